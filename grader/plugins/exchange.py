"""The shared exchange (nbgrader's, on a hub): who may put what in `inbound/`, and what
collection takes in. Every student can create folders in `inbound/`, so a folder's name is
a claim, not a fact: collection refuses a submission whose folder is not owned by the
student it names, is a symbolic link, or is dated in the future (it would beat every real
submission made later), and takes in that student's latest submission that passes. Each
refusal is named in `nbgrader collect`'s output and kept beside the course's report
(`refusals`, shown by `python -m grader report`).

`inbound/` is made sticky at release (nobody renames or removes another's folder); each
student's submission folder is made private by the student's side (course/exchange.py).
Wired in through nbgrader's exchange plugins (grader/plugins/wiring.py).

A folder's owner is a uid; its name comes from the system's users (one machine), or, on a
cluster where each student's pod runs as a uid made from their name and no pod knows the
others' (deploy/helm-values.yaml: `CheckedCollect.student_uid_base` plus their LMS user id),
from that rule.
"""
import csv
import os
import pwd
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
from traitlets import Integer

from course.i18n import say
from grader.plugins.inert import for_spreadsheet
from grader.plugins.intake import SafeCollect

CLOCK_SLACK = timedelta(minutes=1)  # clocks of the machines sharing an exchange may differ
REFUSALS_COLUMNS = ["folder", "student", "owner", "reason"]


class StickyRelease(ExchangeReleaseAssignment):
    """`nbgrader release_assignment`, leaving the course's `inbound/` sticky: students still
    create their submissions there (nbgrader's write-only mode), and only a folder's owner
    (or the instructor, who owns `inbound/`) can rename or remove it."""

    def init_dest(self):
        super().init_dest()
        info = os.lstat(self.inbound_path)
        if info.st_uid == os.geteuid() and not info.st_mode & stat.S_ISVTX:
            os.chmod(self.inbound_path, stat.S_IMODE(info.st_mode) | stat.S_ISVTX)


def refusal(path, student, check_owner=True, student_uid_base=None):
    """Why the inbound folder at `path`, named as `student`'s, is not a submission of
    theirs, as a reason's key (course/i18n.py), or None when it is: a link, not a folder,
    owned by someone else. Only lstat: nothing is followed."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return "collect_refused_link"
    if not stat.S_ISDIR(info.st_mode):
        return "collect_refused_not_folder"
    if check_owner and owner_name(info.st_uid, student_uid_base) != student:
        return "collect_refused_owner"
    return None


def owner_name(uid, student_uid_base=None):
    """The name of the user `uid`: the system's, else (on a cluster) the student whose LMS
    user id is `uid` - `student_uid_base`, else "user id UID"."""
    try:
        return pwd.getpwuid(uid).pw_name
    except KeyError:
        if student_uid_base is not None and uid >= student_uid_base:
            return str(uid - student_uid_base)
        return f"user id {uid}"


def dated_in_future(timestamp):
    now = datetime.now(UTC)
    if timestamp.tzinfo is None:  # nbgrader's parse_utc: naive UTC
        now = now.replace(tzinfo=None)
    return timestamp > now + CLOCK_SLACK


def explain(row, lang="en"):
    """A refusal (a row of `refusals`) in words."""
    return say(row["reason"], lang, student=row["student"], owner=row["owner"])


class CheckedCollect(SafeCollect):
    """`nbgrader collect` refusing (not merely logging, as nbgrader's `check_owner` does)
    every inbound folder `refusal` names, and one dated in the future; the named student's
    latest submission that passes is collected."""

    student_uid_base = Integer(None, allow_none=True, help=(
        "On a cluster, the number each student's uid is their name (their LMS user id) above "
        "(deploy/helm-values.yaml); None: names come from the system's users.")).tag(config=True)

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        why = refusal(path, record["username"], self.check_owner, self.student_uid_base)
        if why is None and dated_in_future(record["timestamp"]):
            why = "collect_refused_future"
        record["refused"] = why
        return record

    def _sort_by_timestamp(self, records):
        """nbgrader picks the first of these for each student: refused ones never come
        first unless a student has nothing else (they are then dropped in init_src)."""
        kept = [r for r in records if not r.get("refused")]
        return super()._sort_by_timestamp(kept or records)

    def init_src(self):
        super().init_src()
        self.refused = []
        for path in sorted(Path(self.inbound_path).glob(
                f"{self.coursedir.student_id or '*'}+{self.coursedir.assignment_id}+*")):
            record = self._path_to_record(str(path))
            if record["refused"]:
                row = {"folder": path.name, "student": record["username"],
                       "owner": owner_name(os.lstat(path).st_uid, self.student_uid_base),
                       "reason": record["refused"]}
                self.refused.append(row)
                self.log.error("REFUSED %r: %s", path.name, explain(row))
        self.src_records = [r for r in self.src_records if not r.get("refused")]
        remember_refusals(self.coursedir.root, self.coursedir.assignment_id, self.refused)

    def copy_files(self):
        """nbgrader's copy, without its own owner check: every folder left passed the one
        above, which also knows a cluster's students (nbgrader's would call each of them
        "unknown id" and a cheating attempt)."""
        checking, self.check_owner = self.check_owner, False
        try:
            super().copy_files()
        finally:
            self.check_owner = checking


def refusals_path(root, assignment):
    return Path(root) / "reports" / f"{assignment}-refused.csv"


def refusals(root, assignment):
    """The inbound folders collection refused for `assignment`, as dicts (REFUSALS_COLUMNS)."""
    path = refusals_path(root, assignment)
    if not path.exists():
        return []
    with open(path, newline="", encoding="utf-8") as stream:
        return list(csv.DictReader(stream))


def remember_refusals(root, assignment, found):
    """Add `found` to the assignment's refusals (each folder once; nothing a spreadsheet
    would take for a formula: folder names are the students')."""
    known = refusals(root, assignment)
    folders = {row["folder"] for row in known}
    found = [{key: for_spreadsheet(value) for key, value in row.items()} for row in found]
    new = [row for row in found if row["folder"] not in folders]
    if not new:
        return
    path = refusals_path(root, assignment)
    path.parent.mkdir(exist_ok=True)
    with open(path, "w", newline="", encoding="utf-8") as stream:
        writer = csv.DictWriter(stream, fieldnames=REFUSALS_COLUMNS)
        writer.writeheader()
        writer.writerows(known + new)
