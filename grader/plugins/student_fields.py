"""What the gradebook may hold about a student: an id (grader/plugins/intake.py's rule), names,
an email and an LMS user id that no page could take for markup, and no line break.

`guard_gradebook()` (called by grader/plugins/wiring.py's `configure` where an nbgrader
application starts: every nbgrader command and formgrader) makes nbgrader's `Student` refuse any other value
the moment it is set, before anything is written: `nbgrader db student import` and
`nbgrader db student add`, formgrader's Add and Edit and autograde all go through it. Names keep apostrophes, accents and spaces (O'Brien,
María José); an email is one `local@domain` without markup, spaces or a scheme
(`javascript:`).
"""
import re
import sys

from sqlalchemy import event

from grader.plugins.intake import unsafe_id

UNSAFE_NAME = re.compile(r"[<>&\"`\\\x00-\x1f\x7f-\x9f\u2028\u2029]")
EMAIL = re.compile(r"[^\s@<>&\"`\\:;,()\[\]]+@[^\s@<>&\"'`\\:;,()\[\]]+")  # o'brien@ is an address


class UnsafeStudentField(ValueError):
    """A value for a student's id, name or email that the gradebook does not take."""


def unsafe_name(name):
    """Why `name` cannot be a first or last name, or None when it can."""
    if name and UNSAFE_NAME.search(name):
        return "markup or a line break (< > & \" ` \\)"
    return None


def unsafe_email(email):
    """Why `email` cannot be a student's email, or None when it can."""
    if email and not EMAIL.fullmatch(email):
        return "not one address local@domain (no markup, spaces, double quotes or scheme like javascript:)"
    return None


# lms_user_id: the LMS's own number, which grader/reports/export.py writes into the LMS's import file
RULES = {"id": unsafe_id, "first_name": unsafe_name, "last_name": unsafe_name, "email": unsafe_email,
         "lms_user_id": unsafe_name}


def _checker(field):
    rule = RULES[field]

    def check(student, value, _old, _initiator):
        why = value is not None and rule(value)
        if why:
            who = value if field == "id" else student.id
            raise UnsafeStudentField(f"student {who!r}: {field} {value!r} refused: {why}. "
                                     "Correct it and run the command again (this student was not written).")
        return value
    return check


CHECKS = {field: _checker(field) for field in RULES}


def guard_gradebook():
    """Make nbgrader's Student refuse unsafe ids, names and emails (once per process);
    a command stopped by a refusal says why in one line, without a traceback."""
    from nbgrader.api import Student
    for field, check in CHECKS.items():
        attribute = getattr(Student, field)
        if not event.contains(attribute, "set", check):
            event.listen(attribute, "set", check, retval=True)
    if not getattr(sys.excepthook, "says_refusals", False):
        sys.excepthook = _one_line_refusals(sys.excepthook)


def _one_line_refusals(stock):
    def excepthook(kind, error, traceback):
        if issubclass(kind, UnsafeStudentField):
            print(f"nbgrader: {error}", file=sys.stderr)
        else:
            stock(kind, error, traceback)
    excepthook.says_refusals = True
    return excepthook
