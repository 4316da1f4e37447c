"""Lab 03 outside the notebook: the reference gradcheck command and the sign-bug context manager."""
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from course.breakit import sub_sign_bug
from grader.gradcheck import gradcheck
from minigrad import Value

ROOT = Path(__file__).resolve().parent.parent
REFERENCE = "grader/gradcheck.py"


def run(*args):
    return subprocess.run([sys.executable, *args], check=False, cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_command_passes_on_minigrad():
    result = run("-m", "grader", "gradcheck")
    assert result.returncode == 0, result.stdout + result.stderr
    assert "diamond" in result.stdout and "FAILED" not in result.stdout


def test_command_fails_loudly_on_an_injected_bug():
    result = run("-m", "grader", "gradcheck", "--inject-sub-sign-bug")
    assert result.returncode == 1
    assert "FAILED  a - b\ngradcheck FAILED at input index 1:" in result.stdout
    assert "numerical = -1.000000\n  analytic  = 1.000000" in result.stdout


def test_sign_bug_lives_only_inside_the_block():
    a, c = Value(2.0), Value(4.0)
    with sub_sign_bug(), pytest.raises(AssertionError, match="input index 1"):
        gradcheck(lambda a, c: a - c, (a, c))
    assert gradcheck(lambda a, c: a - c, (a, c))


def test_sign_bug_restored_when_the_block_raises():
    original = Value.__sub__
    with pytest.raises(RuntimeError), sub_sign_bug():
        assert Value.__sub__ is not original
        raise RuntimeError("the block fails")
    assert Value.__sub__ is original


def test_reference_restores_data_and_ignores_stale_grads():
    a, b, unused = Value(2.0), Value(3.0), Value(0.0)
    a.grad, unused.grad = 100.0, 7.0  # stale values from an earlier check
    assert gradcheck(lambda a, b, u: a * b, (a, b, unused))
    assert (a.data, b.data, unused.data) == (2.0, 3.0, 0.0)
    assert (a.grad, b.grad, unused.grad) == (3.0, 2.0, 0.0)


def test_reference_respects_atol_and_rtol():
    # d(a**2)/da = 2a, so a factor 1.01 bug is off by 0.02 at a = 1
    def almost(a):
        out = Value(a.data ** 2, (a,), "sq")

        def _backward():
            a.grad += 1.01 * 2 * a.data * out.grad
        out._backward = _backward
        return out
    assert gradcheck(almost, (Value(1.0),), atol=0.0, rtol=0.011)
    with pytest.raises(AssertionError, match="input index 0"):
        gradcheck(almost, (Value(1.0),), atol=0.0, rtol=0.009)


# minigrad stays untyped (students read it); --follow-imports=silent keeps --strict on the reference
@pytest.mark.parametrize("tool", [["mypy", "--strict", "--follow-imports=silent"], ["ruff", "check"]])
def test_reference_is_typed_and_linted(tool):
    executable = shutil.which(tool[0], path=str(Path(sys.executable).parent))
    assert executable, f"{tool[0]} is pinned in requirements.txt"
    result = subprocess.run([executable, *tool[1:], REFERENCE], check=False, cwd=ROOT,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stdout + result.stderr
