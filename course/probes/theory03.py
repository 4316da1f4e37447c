"""Cases of theory/03's hidden tests: the diamond (2, 3, 4) and random points."""
import math

from course.probes import Probe, prediction

DIAMOND = (2.0, 3.0, 4.0)


def diamond_and_random(rng, n=6):
    return [DIAMOND] + [tuple(round(rng.uniform(-5, 5), 3) for _ in range(3)) for _ in range(n)]


def cubic_cases(rng, n=6):
    """Random cubics, points and step sizes: (coefficients, x, eps)."""
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


def diamond_L(a, b, c):
    return (a * b + c) * (a - c)


def wavy(q):
    """L plus q*sin(a*b*c): not a polynomial, so the step size matters along every argument."""
    return lambda a, b, c: diamond_L(a, b, c) + q * math.sin(a * b * c)


def partial_cases(rng, n=6):
    """The diamond along a, b and c: (2, 3, 4, i); then random (a, b, c, i, eps, q) for wavy(q)."""
    cases = [DIAMOND + (i,) for i in range(3)]
    for _ in range(n):
        point = tuple(round(rng.uniform(-2, 2), 3) for _ in range(3))
        cases.append(point + (rng.randrange(3), rng.choice([1e-2, 1e-3]), round(rng.uniform(0.5, 2), 2)))
    return cases


def call_partial(objects, case):
    if len(case) == 4:
        return objects[0](diamond_L, tuple(case[:3]), case[3])
    *point, i, eps, q = case
    return objects[0](wavy(q), tuple(point), i, eps)


def gradients_mistakes(a, b, c):
    """The wrong answers Exercise 2 predicts at (a, b, c), shaped like its answer: one side of
    each diamond only (through e: f·b and f; through f: e and −e)."""
    e, f = a * b + c, a - c
    return {"theory03_only_through_e": (f * b, None, f), "theory03_only_through_f": (e, None, -e)}


def walk_cases(rng):
    return [case + (mode,) for case in diamond_and_random(rng, 4) for mode in (True, False)]


PROBES = {
    "theory03-forward": Probe("theory03-forward", diamond_and_random,
                              call=lambda objects, case: objects[0](*case)),
    "theory03-gradients": Probe("theory03-gradients", diamond_and_random,
                                call=lambda objects, case: objects[0](*case)),
    "theory03-central": Probe("theory03-central", cubic_cases,
                              call=lambda objects, case: objects[0](cubic(case[0]), case[1], case[2])),
    "theory03-partial": Probe("theory03-partial", partial_cases, call=call_partial),
    "theory03-predict-assign": prediction("theory03-predict-assign"),
    "theory03-predict-digits": prediction("theory03-predict-digits"),
    "theory03-walk": Probe("theory03-walk", walk_cases,
                           call=lambda objects, case: objects[0](*case[:3], accumulate=case[3])),
}
