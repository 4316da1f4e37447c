"""What test cells call inside the student's kernel.

`expect_close` gives a visible test a clear message in the notebook's
language. `probe` runs a unit's hidden cases on the student's functions and
prints what they returned as *evidence*: the grader, in its own process,
draws the same cases and compares with its own reference (see
`grader/checks/`). Nothing here decides a grade, and nothing here knows the
answers: code in this kernel can be changed by the student, so it only reports.
"""
import json
import os

from course.evidence import close, plain
from course.i18n import say
from course.names import DEFAULT_LANGUAGE
from course.probes import find_probe

EVIDENCE_MIME = "application/vnd.autograd-course.evidence+json"
SEED_VARIABLE = "COURSE_GRADING_SEED"
_state = {"lang": DEFAULT_LANGUAGE}


def language(lang):
    """Set the language of the messages test cells print, and word the errors a
    student predictably causes (a cell run too early, an exercise left blank) as
    one line in that language (see `hint`)."""
    _state["lang"] = lang
    from IPython import get_ipython  # the kernel's (ipykernel's own dependency)
    shell = get_ipython()
    if shell is not None:
        shell.set_custom_exc((NameError, NotImplementedError), _show_hint)


def current_language():
    """The language test cells speak (set by `language`; English until then)."""
    return _state["lang"]


def hint(error, lang):
    """One line for an error a student predictably causes, or None for any other.

    A NameError in a cell is a cell run before the cell that defines the name (in a
    function of the notebook, a typo or such a cell); a
    NotImplementedError raised by a function of the notebook is an exercise's
    stub still in place (the stub's own words are kept, they are what the
    student sees in the cell to replace)."""
    if isinstance(error, NotImplementedError):
        function = _notebook_function(error.__traceback__)
        if function is None:
            return None
        if function == "<module>":
            return say("first_hour_stub_cell", lang, stub=error)
        return say("first_hour_stub", lang, function=function, stub=error)
    if type(error) is NameError and getattr(error, "name", None):
        function = _notebook_function(error.__traceback__)
        if function == "<module>":  # the cell itself: a cell above it has not run
            return say("first_hour_name", lang, name=error.name)
        if function is not None:  # inside the student's function: a typo, most likely
            return say("first_hour_name_in_function", lang, name=error.name, function=function)
    return None


def _notebook_function(traceback):
    """The name of the function (or "<module>") of the innermost frame, when that
    frame is code of a notebook cell; None when the error came from a library."""
    while traceback is not None and traceback.tb_next is not None:
        traceback = traceback.tb_next
    if traceback is None:
        return None
    code = traceback.tb_frame.f_code
    cell = "ipykernel_" in code.co_filename or code.co_filename.startswith("<ipython-input")
    return code.co_name if cell else None


def _show_hint(shell, etype, value, tb, tb_offset=None):
    """IPython's handler for NameError and NotImplementedError: the hint as an
    error output of its own (the cell still fails, for the student, for nbgrader
    and for Validate), or the usual traceback when there is no hint."""
    line = hint(value, _state["lang"])
    if line is None:
        return shell.showtraceback((etype, value, tb), tb_offset=tb_offset)
    shell._showtraceback(etype, line, [f"{etype.__name__}: {line}"])


class TestFailed(AssertionError):
    """A visible test that failed (an AssertionError, so nbgrader and other tools see
    a failure). IPython shows it as its message alone, with no frames of this module:
    the student needs the message, not the course's insides."""

    def _render_traceback_(self):
        return [f"AssertionError: {self}"]


def expect_close(got, want, what, tol=1e-9, names=None, mistakes=None):
    """Assert that `got` equals `want` (a number or tuple of numbers) within `tol`.

    The message shows what the student returned, as they returned it, and one
    line per wrong element. `names` labels the elements (("ab", "e", "f", "L")).
    `mistakes` maps a message key of course.i18n to a wrong answer the unit
    predicts, shaped like `want` (None where any value may appear): an element
    that matches it gets that explanation too.
    """
    problem = explain(got, want, what, _state["lang"], tol, tol, names, mistakes)
    if problem:
        raise TestFailed(problem)


def explain(got, want, what, lang, rel_tol=1e-9, abs_tol=1e-9, names=None, mistakes=None):
    """Why `got` is not `want`, in `lang`, or None when it is (see `expect_close`).

    The grader words its hidden checks' reasons with this same function, on the
    evidence the probe carried out (plain numbers and lists), so a hidden test
    fails with the very words of a visible one."""
    shown = _shown(got)
    if got is None:
        return say("expect_none", lang, what=what, want=_shown(want))
    try:
        got_plain = plain(got)
        if not _numbers_only(got_plain):
            raise TypeError
    except TypeError:
        return say("not_plain", lang, what=what, kind=type(got).__name__)
    want_plain = plain(want)
    if close(got_plain, want_plain, rel_tol, abs_tol):
        return None
    single = not isinstance(want_plain, list)
    if single and type(got_plain) is list:
        return say("expect_shape", lang, what=what, got=shown, want=_shown(want)) + _count(got_plain, want_plain, lang)
    if single:
        items = [(got, want, got_plain, want_plain, None)]
    elif type(got_plain) is list and len(got_plain) == len(want_plain):
        labels = list(names) if names else [f"[{i}]" for i in range(len(want_plain))]
        items = list(zip(got, want, got_plain, want_plain, labels))
    else:
        return say("expect_shape", lang, what=what, got=shown, want=_shown(want)) + _count(got_plain, want_plain, lang)
    lines = [] if single else [say("expect_returned", lang, what=what, got=shown)]
    for index, (value, expected, value_plain, expected_plain, label) in enumerate(items):
        if close(value_plain, expected_plain, rel_tol, abs_tol):
            continue
        line = say("expect_element", lang, name=label, got=_shown(value), want=_shown(expected)) \
            if label else say("expect_value", lang, what=what, got=shown, want=_shown(expected))
        for key, wrong in (mistakes or {}).items():
            wrong = wrong if single else wrong[index]
            if wrong is not None and close(value_plain, float(wrong), 1e-6, abs_tol):
                line += " \u2014 " + say(key, lang)
        lines.append(line)
    return "\n".join(lines)


def _count(got, want, lang):
    """Why a result has the wrong shape: how many values came back, how many were expected."""
    if type(got) is not list:
        return " \u2014 " + say("first_hour_one_for_many", lang, m=len(want))
    if type(want) is not list:
        return " \u2014 " + say("first_hour_many_for_one", lang, n=len(got))
    return " \u2014 " + say("first_hour_count", lang, n=len(got), m=len(want))


def _numbers_only(value):
    return all(map(_numbers_only, value)) if type(value) is list else type(value) is float


def _shown(value):
    """`value` as the student wrote it (its repr), cut short."""
    text = repr(value)
    return text if len(text) <= 300 else text[:300] + "\u2026"


def probe(grade_id, *student_objects, **stated):
    """Run the hidden cases `grade_id` on the student's functions and publish
    what they returned. `stated` is what the test cell asserts (the diamond's
    gradients, a threshold): the grader reads it from the cell's own source,
    which nbgrader restores, and enforces it; here it is only shown."""
    seed = int(os.environ.get(SEED_VARIABLE, "0"))
    results = find_probe(grade_id).gather(seed, student_objects)
    from IPython.display import display
    summary = say("evidence", _state["lang"], grade_id=grade_id, n=len(results))
    display({EVIDENCE_MIME: json.dumps({"grade_id": grade_id, "seed": seed, "results": results}),
             "text/plain": summary}, raw=True)
