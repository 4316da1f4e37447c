"""Hidden checks of theory/03 (the diamond L = (a*b + c) * (a - c)): the answer key.

Each check runs the student's function at the diamond (2, 3, 4), whose values
the test cell states literally, and at random points, so a memorised answer
scores nothing.
"""
from course.probes.theory03 import PROBES, cubic
from grader.checks import Check


def forward_reference(a, b, c):
    ab = a * b
    e = ab + c
    f = a - c
    return ab, e, f, e * f


def gradients_reference(a, b, c):
    _, e, f, _ = forward_reference(a, b, c)
    return f * b + e, f * a, f - e


def walk_reference(a, b, c, accumulate):
    """The original notes' walk L, f, e, ab: with `=`, each grad keeps its last contribution."""
    if accumulate:
        return gradients_reference(a, b, c)
    _, e, f, _ = forward_reference(a, b, c)
    return b * f, a * f, f  # a: from ab (step 4), c: from e (step 3)


def central_reference(coefficients, x, eps):
    f = cubic(coefficients)
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def _describe_call(name):
    return lambda case: f"{name}({', '.join(f'{v:g}' for v in case)})"


CHECKS = {
    "theory03-forward": Check(
        PROBES["theory03-forward"],
        reference=lambda case: forward_reference(*case),
        describe=_describe_call("forward")),
    "theory03-gradients": Check(
        PROBES["theory03-gradients"],
        reference=lambda case: gradients_reference(*case),
        describe=_describe_call("gradients"),
        stated={"known": {(2, 3, 4): (4, -4, -12)}}),
    "theory03-central": Check(
        PROBES["theory03-central"],
        reference=lambda case: central_reference(*case),
        describe=lambda case: f"central_difference(f, {case[1]:g}, eps={case[2]:g}) "
                              f"with f(x) = {case[0][0]:g} + {case[0][1]:g}x + "
                              f"{case[0][2]:g}x² + {case[0][3]:g}x³",
        rel_tol=1e-7, abs_tol=1e-7),
    "theory03-walk": Check(
        PROBES["theory03-walk"],
        reference=lambda case: walk_reference(*case),
        describe=lambda case: f"walk_by_hand({case[0]:g}, {case[1]:g}, {case[2]:g}, "
                              f"accumulate={bool(case[3])})"),
}
