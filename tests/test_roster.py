"""The classroom's roster: safe login names or a clear refusal naming the line
(no system user is made from a name that could mean something else)."""
import subprocess
import sys

import pytest

from authoring.build import ROOT
from classroom.roster import RosterError, read

GOOD = "id,name,language,role\nlopez,Marta López,es,instructor\nAna.Garcia,Ana García,es,\nbob,Bob,en,student\n"


def roster(tmp_path, text):
    path = tmp_path / "roster.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_login_names_come_from_the_ids(tmp_path):
    people = read(roster(tmp_path, GOOD), "class")
    assert [(p.login, p.language, p.role) for p in people] == [
        ("class-lopez", "es", "instructor"), ("class-ana-garcia", "es", "student"),
        ("class-bob", "en", "student")]


@pytest.mark.parametrize("row, said", [
    ("-rf,x,en,student", "unsafe id '-rf'"),
    ("root:0,x,en,student", "unsafe id 'root:0'"),
    ("../etc,x,en,student", "unsafe id '../etc'"),
    ("a+b,x,en,student", "unsafe id 'a+b'"),  # nbgrader's exchange splits names at '+'
    ("ana\u00e9,x,en,student", "unsafe id"),
    (",x,en,student", "unsafe id ''"),
    ("carla,x,fr,student", "language 'fr'"),
    ("carla,x,en,admin", "role 'admin'"),
    ("ana-garcia,x,en,student", "as the id on line 3 does"),
    ("a" * 40 + ",x,en,student", "too long"),
    ("carla,<img src=x onerror=alert(1)>,en,student", "name '<img src=x onerror=alert(1)>': markup"),
    ('carla,"Carla\nforged",en,student', "name 'Carla\\nforged': markup or a line break"),
])
def test_a_bad_row_is_refused_with_its_line(tmp_path, row, said):
    with pytest.raises(RosterError) as error:
        read(roster(tmp_path, GOOD + row + "\n"), "class")
    print(error.value)
    assert said in str(error.value) and "line 5" in str(error.value)


def test_a_roster_needs_an_instructor_and_a_safe_prefix(tmp_path):
    with pytest.raises(RosterError, match="no instructor"):
        read(roster(tmp_path, "id,name,language\nbob,Bob,en\n"), "class")
    with pytest.raises(RosterError, match="unsafe prefix"):
        read(roster(tmp_path, GOOD), "Class;rm")


def test_start_refuses_a_bad_roster_before_making_anything(tmp_path):
    done = subprocess.run([sys.executable, "-m", "classroom", "start", str(roster(tmp_path, GOOD + "x y,z,en,\n")),
                           "--state", str(tmp_path / "state")], cwd=ROOT, capture_output=True, text=True,
                          check=False, timeout=60)
    print(done.stderr)
    assert done.returncode != 0
    assert "unsafe id 'x y'" in done.stderr or "run it as root" in done.stderr
    assert not (tmp_path / "state").exists()
