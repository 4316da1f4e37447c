"""`python -m grader export --lti`: grades go back to the LMS by themselves, through LTI
Assignment and Grade Services, against the test LMS's grade service (tests/support/lti_platform.py),
which checks the token request's signed JWT (the tool's registered key, issuer, audience, a
fresh jti), each request's access token, scope and media type, and each score's shape.

The gradebook is written with nbgrader's own API (what grading leaves in it), so that every
case is there at once: a graded submission, one with hand-graded points still to give (posted as
PendingManual, never as final), one the LMS answers "busy" twice (tried again), one it never
takes (reported, exit status 1, the others still posted), one handed in but not graded (not
posted), and a second run that finds its line items instead of making new ones.
"""
import csv
import json
import subprocess
import sys
from datetime import datetime

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa
from nbgrader.api import Gradebook
from support.lti_platform import Platform, score_problem

CLIENT_ID = "tool-client-1"


def private_key(path):
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    path.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                       serialization.NoEncryption()))
    return key


def write_gradebook(root):
    """theory03 (12 points, autograded) and lab01 (8 autograded + 2 by hand), in both languages."""
    for assignment in ("theory03-en", "theory03-es", "lab01-en", "lab01-es"):
        (root / "release" / assignment).mkdir(parents=True)
    gb = Gradebook(f"sqlite:///{root / 'gradebook.db'}")
    try:
        for language in ("en", "es"):
            gb.add_assignment(f"theory03-{language}")
            gb.add_notebook("theory03", f"theory03-{language}")
            gb.add_grade_cell("checks", "theory03", f"theory03-{language}", max_score=12, cell_type="code")
            gb.add_assignment(f"lab01-{language}")
            gb.add_notebook("lab01", f"lab01-{language}")
            gb.add_grade_cell("checks", "lab01", f"lab01-{language}", max_score=8, cell_type="code")
            gb.add_grade_cell("interpretation", "lab01", f"lab01-{language}", max_score=2, cell_type="markdown")

        def graded(assignment, student, scores, by_hand=None):
            gb.add_student(student) if student not in {s.id for s in gb.students} else None
            gb.add_submission(assignment, student, timestamp=datetime(2026, 12, 1, 10))
            notebook = assignment.split("-")[0]
            for cell, points in scores.items():
                grade = gb.find_grade(cell, notebook, assignment, student)
                grade.auto_score, grade.needs_manual_grade = points, False
            if by_hand is not None:
                grade = gb.find_grade("interpretation", notebook, assignment, student)
                grade.manual_score, grade.needs_manual_grade = by_hand, by_hand is None
            gb.db.commit()
            (root / "autograded" / student / assignment).mkdir(parents=True)
            (root / "submitted" / student / assignment).mkdir(parents=True)

        graded("theory03-en", "7", {"checks": 9})
        graded("lab01-en", "7", {"checks": 8}, by_hand=2)
        graded("lab01-en", "8", {"checks": 6})  # its interpretation not graded by hand yet
        graded("theory03-es", "9", {"checks": 12})
        graded("theory03-en", "10", {"checks": 5})
    finally:
        gb.close()
    (root / "submitted" / "11" / "lab01-en").mkdir(parents=True)  # handed in, never graded


@pytest.fixture
def course(tmp_path):
    root = tmp_path / "course"
    root.mkdir()
    write_gradebook(root)
    key = private_key(tmp_path / "tool.pem")
    lms = Platform(client_id=CLIENT_ID, tool_key=key.public_key()).start()
    config = tmp_path / "lti.json"
    config.write_text(json.dumps({
        "endpoint": {"lineitems": lms.lineitems_url, "scope": []}, "token_url": lms.token_url,
        "client_id": CLIENT_ID, "key_file": str(tmp_path / "tool.pem"), "key_id": "tool-key-1"}))
    yield root, lms, config
    lms.stop()


def export_lti(root, config):
    done = subprocess.run([sys.executable, "-m", "grader", "export", "--lti", f"--lti-config={config}"],
                          cwd=root, capture_output=True, text=True, timeout=120, check=False)
    print(done.stdout, done.stderr)
    return done


@pytest.mark.slow
def test_grades_are_posted_per_student_never_an_unfinished_one_as_final(course):
    root, lms, config = course
    lms.fail_scores("9", 2)  # busy twice, then it takes it
    lms.fail_scores("10", 10)  # never takes it
    done = export_lti(root, config)
    assert done.returncode == 1, "a score the LMS never took must fail the command"

    items = {lms.lineitem(n)["resourceId"]: lms.lineitem(n) for n in lms.lineitems}
    print("line items:", items)
    assert {u: i["scoreMaximum"] for u, i in items.items()} == {"lab01": 10, "theory03": 12}
    posted = {(lms.lineitems[n]["resourceId"], s["userId"]): s for n, s in lms.scores}
    print("scores:", {f"{unit} {user}": score for (unit, user), score in posted.items()})
    assert all(score_problem(s, None) is None for s in posted.values())
    assert set(posted) == {("theory03", "7"), ("lab01", "7"), ("lab01", "8"), ("theory03", "9")}
    assert (posted["theory03", "7"]["scoreGiven"], posted["theory03", "7"]["gradingProgress"]) == (9, "FullyGraded")
    assert (posted["lab01", "7"]["scoreGiven"], posted["lab01", "7"]["gradingProgress"]) == (10, "FullyGraded")
    # 2 points still to grade by hand: sent, but never as final
    assert posted["lab01", "8"]["gradingProgress"] == "PendingManual"
    assert posted["lab01", "8"]["scoreGiven"] == 6 and "2 point(s)" in posted["lab01", "8"]["comment"]
    assert posted["theory03", "9"]["scoreGiven"] == 12  # after two 503s
    assert lms.refusals == [], lms.refusals  # every token request and score had the right shape

    out = done.stdout + done.stderr
    assert "posted 9 theory03: 12/12 FullyGraded" in out
    assert "FAILED 10 theory03 (5/12): HTTP 503 after 3 tries" in out
    assert "NOT POSTED 11 (lab01): lab01-en handed in but not graded" in out
    with open(root / "exports" / "lti.csv", encoding="utf-8") as stream:
        rows = {(r["student"], r["unit"]): r for r in csv.DictReader(stream)}
    assert rows["8", "lab01"]["grading_progress"] == "PendingManual"
    assert rows["10", "theory03"]["outcome"].startswith("FAILED")

    # again, the LMS willing: the same line items, 10's grade now in
    lms.fail_scores("10", 0)
    again = export_lti(root, config)
    assert again.returncode == 0
    assert len(lms.lineitems) == 2
    assert ("theory03", "10") in {(lms.lineitems[n]["resourceId"], s["userId"]) for n, s in lms.scores}


def test_the_lms_refuses_a_token_signed_with_another_key(course, tmp_path):
    root, lms, config = course
    settings = json.loads(config.read_text())
    private_key(tmp_path / "not-the-registered-key.pem")
    settings["key_file"] = str(tmp_path / "not-the-registered-key.pem")
    config.write_text(json.dumps(settings))
    done = export_lti(root, config)
    print("the LMS refused:", lms.refusals)
    assert done.returncode == 1 and lms.scores == [] and lms.lineitems == {}
    assert lms.refusals and all("invalid_client" in why for _, why in lms.refusals)
    assert "HTTP 401" in done.stderr
