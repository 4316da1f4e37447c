"""Lab 03's prediction of the best ε: what a central difference of tanh at 0.5 needs in float32.

    problem = eps_mistake(EPS_FLOAT32, "en")     # None, or why the prediction is off

The best ε is where the two errors of a central difference meet: truncation |f'''| ε² / 6
against cancellation u |f| / ε, so ε = (6 u |f| / |f'''|)^(1/3), with u = 2^-24 in float32.
A prediction within a factor of 3 of it is right: the measured curve is flat there, and the
rule of thumb u^(1/3) lands inside. The visible test and the grader both call `eps_mistake`,
so both name the same mistakes.
"""
import math

from course.i18n import say

X0 = 0.5
FLOAT32_U = 2.0 ** -24
FLOAT64_U = 2.0 ** -53
BAND = 3.0  # a right prediction is within this factor of the crossing, either way


def crossing(u):
    """The ε where truncation and cancellation meet for tanh at X0, rounding unit `u`."""
    t = math.tanh(X0)
    third = -2 * (1 - t * t) * (1 - 3 * t * t)
    return (6 * u * abs(t) / abs(third)) ** (1 / 3)


def _near(value, target, factor):
    return target / factor <= value <= target * factor


def eps_mistake(got, lang):
    """Why `got` is not the best ε for float32 (None when it is within BAND of the crossing)."""
    if isinstance(got, bool) or not isinstance(got, (int, float)) or not math.isfinite(got) or got <= 0:
        return say("lab03_eps_shape", lang, got=repr(got)[:80])
    best = crossing(FLOAT32_U)
    if _near(got, best, BAND):
        return None
    shown = f"{got:.1e}".replace(".", "," if lang == "es" else ".")  # Spanish writes a decimal comma
    if _near(got, crossing(FLOAT64_U), BAND) or got in (1e-5, 1e-6):
        return say("lab03_eps_float64", lang, got=shown)
    if _near(got, math.sqrt(FLOAT32_U), 2.0):
        return say("lab03_eps_forward", lang, got=shown)
    return say("lab03_eps_small" if got < best else "lab03_eps_large", lang, got=shown)
