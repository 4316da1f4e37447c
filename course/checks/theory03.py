"""Hidden checks of theory/03 (the diamond L = (a*b + c) * (a - c)).

Each check runs the student's function at the diamond (2, 3, 4) and at
random points, so a memorised answer scores nothing.
"""
from course.checks import Check

DIAMOND = (2.0, 3.0, 4.0)


def diamond_and_random(rng, n=6):
    return [DIAMOND] + [tuple(round(rng.uniform(-5, 5), 3) for _ in range(3)) for _ in range(n)]


def forward_reference(a, b, c):
    ab = a * b
    e = ab + c
    f = a - c
    return ab, e, f, e * f


def gradients_reference(a, b, c):
    _, e, f, _ = forward_reference(a, b, c)
    return f * b + e, f * a, f - e


def walk_reference(a, b, c, accumulate):
    """The seed's walk L, f, e, ab: with `=`, each grad keeps its last contribution."""
    if accumulate:
        return gradients_reference(a, b, c)
    _, e, f, _ = forward_reference(a, b, c)
    return b * f, a * f, f  # a: from ab (step 4), c: from e (step 3)


def cubic_cases(rng, n=6):
    cases = []
    for _ in range(n):
        coefficients = [round(rng.uniform(-3, 3), 2) for _ in range(4)]
        x = round(rng.uniform(-2, 2), 3)
        eps = rng.choice([1e-2, 1e-3, 1e-4])
        cases.append((coefficients, x, eps))
    return cases


def cubic(coefficients):
    c0, c1, c2, c3 = coefficients
    return lambda x: c0 + c1 * x + c2 * x ** 2 + c3 * x ** 3


def central_reference(coefficients, x, eps):
    f = cubic(coefficients)
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def _describe_call(name):
    return lambda case: f"{name}({', '.join(f'{v:g}' for v in case)})"


CHECKS = {
    "theory03-forward": Check(
        "theory03-forward", diamond_and_random,
        call=lambda objects, case: objects[0](*case),
        reference=lambda case: forward_reference(*case),
        describe=_describe_call("forward")),
    "theory03-gradients": Check(
        "theory03-gradients", diamond_and_random,
        call=lambda objects, case: objects[0](*case),
        reference=lambda case: gradients_reference(*case),
        describe=_describe_call("gradients")),
    "theory03-central": Check(
        "theory03-central", cubic_cases,
        call=lambda objects, case: objects[0](cubic(case[0]), case[1], case[2]),
        reference=lambda case: central_reference(*case),
        describe=lambda case: f"central_difference(f, {case[1]:g}, eps={case[2]:g}) "
                              f"with f(x) = {case[0][0]:g} + {case[0][1]:g}x + "
                              f"{case[0][2]:g}x² + {case[0][3]:g}x³",
        rel_tol=1e-7, abs_tol=1e-7),
    "theory03-walk": Check(
        "theory03-walk",
        lambda rng: [case + (mode,) for case in diamond_and_random(rng, 4) for mode in (True, False)],
        call=lambda objects, case: objects[0](*case[:3], accumulate=case[3]),
        reference=lambda case: walk_reference(*case),
        describe=lambda case: f"walk_by_hand({case[0]:g}, {case[1]:g}, {case[2]:g}, "
                              f"accumulate={bool(case[3])})"),
}
