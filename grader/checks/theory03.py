"""Hidden checks of theory/03 (the diamond L = (a*b + c) * (a - c)): the answer key.

Each check runs the student's function at the diamond (2, 3, 4), whose values
the test cell states literally, and at random points, so a memorised answer
scores nothing.
"""
from course.probes.theory03 import PROBES, cubic, diamond_L, gradients_mistakes, wavy
from grader.checks import Check, prediction_check


def forward_reference(a, b, c):
    ab = a * b
    e = ab + c
    f = a - c
    return ab, e, f, e * f


def gradients_reference(a, b, c):
    _, e, f, _ = forward_reference(a, b, c)
    return f * b + e, f * a, f - e


def walk_reference(a, b, c, accumulate):
    """The walk L, f, e, ab: with `=`, each grad keeps its last contribution."""
    if accumulate:
        return gradients_reference(a, b, c)
    _, _, f, _ = forward_reference(a, b, c)
    return b * f, a * f, f  # a: from ab (step 4), c: from e (step 3)


def central_reference(coefficients, x, eps):
    f = cubic(coefficients)
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def _partial_case(case):
    if len(case) == 4:
        return diamond_L, list(case[:3]), case[3], 1e-5
    *point, i, eps, q = case
    return wavy(q), point, i, eps


def partial_reference(case):
    """The central difference along argument i, the others held fixed."""
    f, point, i, eps = _partial_case(case)
    up, down = list(point), list(point)
    up[i] += eps
    down[i] -= eps
    return (f(*up) - f(*down)) / (2 * eps)


# ---- the mistakes this unit predicts, case by case (the visible tests name the same) ----

def central_mistakes(case):
    coefficients, x, eps = case
    f = cubic(coefficients)
    return {"theory03_forward_difference": (f(x + eps) - f(x)) / eps}


def partial_mistakes(case):
    f, point, i, eps = _partial_case(case)
    up = list(point)
    up[i] += eps
    return {"theory03_forward_difference": (f(*up) - f(*point)) / eps}


def walk_mistakes(case):
    if not case[3]:
        return {}
    a_grad, _, c_grad = walk_reference(*case[:3], accumulate=False)
    return {"theory03_assigned": (a_grad, None, c_grad)}


def describe_partial(case):
    point = ", ".join(f"{v:g}" for v in case[:3])
    if len(case) == 4:
        return f"partial_difference(L, ({point}), {case[3]})"
    return f"partial_difference(L + {case[5]:g}·sin(a·b·c), ({point}), {case[3]}, eps={case[4]:g})"


def describe_cubic(case):
    """The cubic written out, signs folded in, with no words of any language."""
    terms = ""
    for power, coefficient in enumerate(case[0]):
        if coefficient == 0:
            continue
        monomial = {0: "", 1: "x", 2: "x²", 3: "x³"}[power]
        size = f"{abs(coefficient):g}"
        body = monomial if size == "1" and monomial else size + monomial
        sign = "−" if coefficient < 0 else "+"
        terms += (f"−{body}" if sign == "−" else body) if not terms else f" {sign} {body}"
    return f"central_difference(f, {case[1]:g}, eps={case[2]:g}), f(x) = {terms or '0'}"


def _describe_call(name):
    return lambda case: f"{name}({', '.join(f'{v:g}' for v in case)})"


CHECKS = {
    "theory03-forward": Check(
        PROBES["theory03-forward"],
        reference=lambda case: forward_reference(*case),
        describe=_describe_call("forward"),
        names=("ab", "e", "f", "L"),
        stated={"known": {(2, 3, 4): (6, 10, -2, -20)}}),
    "theory03-gradients": Check(
        PROBES["theory03-gradients"],
        reference=lambda case: gradients_reference(*case),
        describe=_describe_call("gradients"),
        names=("dL_da", "dL_db", "dL_dc"), mistakes=lambda case: gradients_mistakes(*case),
        stated={"known": {(2, 3, 4): (4, -4, -12)}}),
    "theory03-central": Check(
        PROBES["theory03-central"],
        reference=lambda case: central_reference(*case),
        describe=describe_cubic,
        rel_tol=1e-7, abs_tol=1e-7, mistakes=central_mistakes),
    "theory03-partial": Check(
        PROBES["theory03-partial"],
        reference=partial_reference,
        describe=describe_partial, mistakes=partial_mistakes,
        # at the diamond the known values are exact and the float central difference is within ~1e-10
        rel_tol=1e-7, abs_tol=1e-7,
        stated={"known": {(2, 3, 4, 0): 4, (2, 3, 4, 1): -4, (2, 3, 4, 2): -12}}),
    "theory03-predict-assign": prediction_check("theory03-predict-assign", 2),
    "theory03-predict-digits": prediction_check("theory03-predict-digits", "abcd"),
    "theory03-walk": Check(
        PROBES["theory03-walk"],
        reference=lambda case: walk_reference(*case),
        describe=lambda case: f"walk_by_hand({case[0]:g}, {case[1]:g}, {case[2]:g}, "
                              f"accumulate={bool(case[3])})",
        names=("a_grad", "b_grad", "c_grad"), mistakes=walk_mistakes,
        stated={"known": {(2, 3, 4, True): (4, -4, -12), (2, 3, 4, False): (-6, -4, -2)}}),
}
