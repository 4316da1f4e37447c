"""The roster: who is in the class, their login name, language and role.

A CSV with a header row `id,name,language,role` (role: `student`, the default, or
`instructor`). Login names are the prefix plus the id, lower-cased, with `.` as `-`;
an id with any other character is refused, so no name reaches `useradd`, a path or
nbgrader's exchange (which splits file names at `+`) that could mean something else.
A name with markup or a line break is refused too (grader/plugins/student_fields.py's rule, the
gradebook's), so no page or file an instructor opens shows one.
"""
import csv
import re
from dataclasses import dataclass
from pathlib import Path

from course.names import DEFAULT_LANGUAGE, LANGUAGES
from grader.plugins.student_fields import unsafe_name

ROLES = ("student", "instructor")
SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
SAFE_PREFIX = re.compile(r"[a-z][a-z0-9]{0,11}")
MAX_NAME = 32  # useradd's limit


@dataclass(frozen=True)
class Person:
    id: str
    name: str
    language: str
    role: str
    login: str


class RosterError(ValueError):
    """A roster that cannot be used, with the line at fault."""


def login_name(prefix, person_id):
    if not SAFE_ID.fullmatch(person_id):
        raise RosterError(f"unsafe id {person_id!r}: use letters, digits, '.', '_' or '-', "
                          "starting with a letter or a digit")
    login = f"{prefix}-{person_id.lower().replace('.', '-')}"
    if len(login) > MAX_NAME:
        raise RosterError(f"id {person_id!r} is too long for a login name ({login!r}, "
                          f"more than {MAX_NAME} characters)")
    return login


def read(path, prefix):
    """The people of the roster at `path`; RosterError names the first bad line."""
    if not SAFE_PREFIX.fullmatch(prefix):
        raise RosterError(f"unsafe prefix {prefix!r}: a lower-case letter, then letters or digits "
                          "(at most 12)")
    with open(path, newline="", encoding="utf-8-sig") as handle:
        rows = list(csv.DictReader(handle))
    people, logins = [], {}
    for line, row in enumerate(rows, start=2):
        row = {(key or "").strip().lower(): (value or "").strip() for key, value in row.items()}
        try:
            language = row.get("language") or DEFAULT_LANGUAGE
            role = row.get("role") or "student"
            if language not in LANGUAGES:
                raise RosterError(f"language {language!r}: use one of {', '.join(LANGUAGES)}")
            if role not in ROLES:
                raise RosterError(f"role {role!r}: use one of {', '.join(ROLES)}")
            login = login_name(prefix, row.get("id", ""))
            if unsafe_name(row.get("name")):
                raise RosterError(f"name {row['name']!r}: {unsafe_name(row['name'])}")
            if login in logins:
                raise RosterError(f"id {row['id']!r} gives the login {login!r}, "
                                  f"as the id on line {logins[login]} does")
        except RosterError as error:
            raise RosterError(f"{Path(path).name}, line {line}: {error}") from None
        logins[login] = line
        people.append(Person(row["id"], row.get("name") or row["id"], language, role, login))
    if not any(p.role == "instructor" for p in people):
        raise RosterError(f"{Path(path).name}: no instructor (a row with role 'instructor')")
    if not any(p.role == "student" for p in people):
        raise RosterError(f"{Path(path).name}: no student")
    return people
