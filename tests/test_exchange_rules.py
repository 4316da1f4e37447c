"""The exchange's rules without a class (fast): what collection refuses and why, hard links
refused at intake, refusals kept once each. The real thing, with system users and stock
nbgrader, is tests/test_exchange_isolation.py."""
import getpass
import os
from datetime import UTC, datetime, timedelta

import pytest

from grader.plugins.exchange import (
    dated_in_future,
    explain,
    refusal,
    refusals,
    remember_refusals,
)
from grader.plugins.intake import Refused, open_regular, vet


def test_a_folder_is_refused_when_a_link_or_someone_elses(tmp_path):
    me = getpass.getuser()
    (tmp_path / "mine").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "mine")
    (tmp_path / "file").write_text("x")
    assert refusal(tmp_path / "mine", me) is None
    assert refusal(tmp_path / "mine", "someone-else") == "collect_refused_owner"
    assert refusal(tmp_path / "mine", "someone-else", check_owner=False) is None
    assert refusal(tmp_path / "link", me) == "collect_refused_link"
    assert refusal(tmp_path / "file", me) == "collect_refused_not_folder"
    row = {"student": "carol", "owner": "bob", "reason": "collect_refused_owner"}
    assert explain(row) == "named as carol's submission but made by bob: not collected"
    assert "bob" in explain(row, "es") and "carol" in explain(row, "es")


@pytest.mark.skipif(os.geteuid() != 0, reason="gives folders the uids of a cluster's pods: run as root")
def test_on_a_cluster_a_folder_is_a_students_when_made_by_their_uid(tmp_path):
    """deploy/helm-values.yaml: student 7's pod runs as uid 100007, which no passwd file of the
    instructor's pod knows; collection names it by the rule (else every submission is refused
    as made by "user id 100007"), and a classmate's planted folder is still refused."""
    base = 100000
    for name, uid in (("7+theory03-es+now", base + 7), ("8+theory03-es+planted-by-7", base + 7)):
        (tmp_path / name).mkdir()
        os.chown(tmp_path / name, uid, uid)
    found = {name: refusal(tmp_path / name, name.split("+")[0], student_uid_base=base)
             for name in ("7+theory03-es+now", "8+theory03-es+planted-by-7")}
    print("with the cluster's rule:", found)
    assert found == {"7+theory03-es+now": None, "8+theory03-es+planted-by-7": "collect_refused_owner"}
    without = refusal(tmp_path / "7+theory03-es+now", "7")
    print("without it:", without)
    assert without == "collect_refused_owner"


def test_a_date_later_than_now_is_refused():
    now = datetime.now(UTC).replace(tzinfo=None)
    assert dated_in_future(datetime(2099, 1, 1))
    assert dated_in_future(now + timedelta(hours=1))
    assert not dated_in_future(now)
    assert not dated_in_future(now - timedelta(days=3))
    assert dated_in_future(datetime(2099, 1, 1, tzinfo=UTC))


def test_a_hard_link_is_refused_at_intake(tmp_path):
    course_file = tmp_path / "solutions.ipynb"
    course_file.write_text("{}")
    submission = tmp_path / "submission"
    submission.mkdir()
    (submission / "theory03.ipynb").write_text("{}")
    os.link(course_file, submission / "copy.ipynb")
    accepted, refused = vet(submission)
    print("accepted:", accepted, "refused:", refused)
    assert accepted == ["theory03.ipynb"] and refused == [("copy.ipynb", "refused_hard_link")]
    with pytest.raises(Refused, match="hard link"):
        open_regular(submission / "copy.ipynb")


def test_refusals_are_kept_once_each_and_inert_in_a_spreadsheet(tmp_path):
    row = {"folder": "=cmd|' /C calc'!A0+theory03-en+2099", "student": "carol", "owner": "bob",
           "reason": "collect_refused_owner"}
    remember_refusals(tmp_path, "theory03-en", [row])
    remember_refusals(tmp_path, "theory03-en", [row])
    kept = refusals(tmp_path, "theory03-en")
    assert len(kept) == 1 and not kept[0]["folder"].startswith("=")
    assert refusals(tmp_path, "lab01-en") == []
