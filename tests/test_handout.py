"""What students get, for a course whose answer key stays private."""
import json
import subprocess
import sys

from authoring.build import ROOT


def test_handout_has_no_solution_and_no_reference(tmp_path):
    folder = tmp_path / "handout"
    subprocess.run([sys.executable, "-m", "grader", "handout", str(folder)], check=True,
                   capture_output=True)
    assert (folder / "release").is_dir() and (folder / "course" / "student.py").exists()
    assert (folder / "minigrad" / "engine.py").exists()
    assert not (folder / "grader").exists() and not (folder / "source").exists()
    text = "\n".join(p.read_text() for p in folder.rglob("*") if p.is_file())
    assert "BEGIN SOLUTION" not in text and "BEGIN HIDDEN TESTS" not in text
    assert "_reference" not in text  # no reference implementation, by name
    for source in ROOT.glob("source/*/*.ipynb"):
        for cell in json.loads(source.read_text())["cells"]:
            code = "".join(cell["source"])
            if "### BEGIN SOLUTION" in code:
                answer = code.split("### BEGIN SOLUTION")[1].split("### END SOLUTION")[0].strip()
                assert answer not in text, answer[:80]


def test_handout_refuses_a_folder_in_use(tmp_path):
    (tmp_path / "mine.txt").write_text("keep me")
    result = subprocess.run([sys.executable, "-m", "grader", "handout", str(tmp_path)],
                            capture_output=True, text=True, check=False)
    assert result.returncode != 0 and "not empty" in result.stderr
    assert (tmp_path / "mine.txt").read_text() == "keep me"


def test_the_handout_pins_the_torch_the_requirements_pin():
    """One torch for the course and the students' handout: requirements.txt's pin."""
    import tomllib

    from course.names import PROJECT
    from grader.handout import PYPROJECT, TORCH
    pins = [line.split("#")[0].strip() for line in (ROOT / "requirements.txt").read_text().splitlines()
            if line.startswith("torch")]
    print("requirements.txt:", pins, "handout:", TORCH)
    assert pins == [TORCH]
    handout = tomllib.loads(PYPROJECT)["project"]
    assert TORCH in handout["dependencies"] and handout["name"] == f"{PROJECT}-student"
    # and the course's name is its distribution's (course/names.py's PROJECT)
    assert tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["name"] == PROJECT
