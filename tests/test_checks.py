"""The trusted half of a hidden check: judging untrusted evidence."""
import numpy as np
import pytest
import torch

from course.evidence import plain
from grader.checks import find_check

CHECK = find_check("theory03-gradients")


def results_for(fn, seed=7):
    return CHECK.probe.gather(seed, [fn])


def reference(a, b, c):
    e, f = a * b + c, a - c
    return f * b + e, f * a, f - e


def test_right_answers_pass_and_name_the_count():
    verdict = CHECK.judge(7, results_for(reference), "en", CHECK.stated)
    assert verdict.passed and "all 7 checks passed" in verdict.summary


@pytest.mark.parametrize("value", [
    [float("nan")] * 3, ["4", "-4", "-12"], [True, False, True], [4.0, -4.0], 4.0, None,
    {"a": 4}, [[4.0], [-4.0], [-12.0]],
])
def test_forged_values_fail(value):
    forged = [{"value": value}] * len(CHECK.probe.draw(7))
    assert not CHECK.judge(7, forged, "es", CHECK.stated).passed


@pytest.mark.parametrize("evidence", [None, [], "ok", [{"value": [4, -4, -12]}], [1, 2, 3]])
def test_malformed_evidence_fails(evidence):
    assert not CHECK.judge(7, evidence, "en", CHECK.stated).passed


def test_errors_in_student_code_become_reasons():
    results = results_for(lambda a, b, c: 1 / 0)
    verdict = CHECK.judge(7, results, "es", CHECK.stated)
    assert not verdict.passed and "lanzó ZeroDivisionError" in verdict.summary


def test_plain_keeps_numbers_only():
    assert plain((np.float32(1.5), np.int64(2), torch.tensor(3.0), np.array(4.0), 5)) == \
        [1.5, 2.0, 3.0, 4.0, 5.0]
    assert plain("4") == "4"  # strings travel (capped), but never compare equal to numbers
    for bad in (True, None, object(), torch.tensor([1, 2])):
        with pytest.raises(TypeError):
            plain(bad)


def test_a_test_cell_stating_other_values_fails_closed():
    results = results_for(reference)
    for stated in ({}, {"known": {(2, 3, 4): (4, -4, 12)}}):
        verdict = CHECK.judge(7, results, "en", stated)
        assert not verdict.passed and "ask your instructor" in verdict.summary


@pytest.mark.parametrize("value", [1e308 * 10, -1e400, 10 ** 400, [[[[]]]], {"dtype": "float32",
                                   "shape": [10 ** 9], "base64": ""}, {"dtype": "int8", "shape": [1]}])
def test_judge_never_raises_on_evidence_it_cannot_read(value):
    """Regression: evidence out of float range raised out of judge, and nbgrader dropped the copy."""
    import json

    from grader.checks.verdicts import judge
    report = json.dumps({"grade_id": "theory03-gradients", "seed": 7,
                         "results": [{"value": value}] * len(CHECK.probe.draw(7))})
    passed, reason = judge("theory03-gradients", [report], 7, "en", [], CHECK.stated)
    assert not passed and reason


def test_a_reason_shape_ignores_the_drawn_numbers_and_signs():
    """Serial and parallel runs (and two students) draw other cubics: the same mistake
    must read the same once blanked, and another mistake must not."""
    from grader.reports.report import shape_of
    one = "central_difference(f, 0.3, eps=1e-05), f(x) = 2x³ − x + 1 returned 4.0, expected -1.73"
    other = "central_difference(f, -1.2, eps=0.001), f(x) = −0.5x³ + 3x² − 7 returned 4.0, expected 12"
    assert shape_of(one) == shape_of(other), (shape_of(one), shape_of(other))
    assert shape_of(one) != shape_of("forward(2, 3, 4) is missing")
    assert shape_of("dL/da is -6.0, expected 4.0") == shape_of("dL/da is 7, expected -1e-05")
