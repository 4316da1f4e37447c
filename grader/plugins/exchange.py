"""The shared exchange (nbgrader's, on a hub): who may put what in `inbound/`, and what
collection takes in. Every student can create folders in `inbound/`, so a folder's name is
a claim, not a fact: collection refuses a submission whose folder is not owned by the
student it names, is a symbolic link, or is dated in the future (it would beat every real
submission made later), and takes in that student's latest submission that passes. Each
refusal is named in `nbgrader collect`'s output and kept beside the course's report
(`refusals`, shown by `python -m grader report`).

A submission's time is never the one its student wrote (the folder's name, timestamp.txt):
it is the hand-in record's where the class's hub froze the submission (classroom/hand_in.py
writes HANDED_IN, root's, into a folder it made root's), else the machine's time of the
folder's last change (the latest ctime in it, which no student can set back). Collection
writes that time into the collected copy's timestamp.txt, which autograde puts in the
gradebook, and marks a submission changed after the time in its name.

`inbound/` is made sticky at release (nobody renames or removes another's folder); each
student's submission folder is made private by the student's side (course/exchange.py).
Wired in through nbgrader's exchange plugins (grader/plugins/wiring.py).

A folder's owner is a uid; its name comes from the system's users (one machine), or, on a
cluster where each student's pod runs as a uid made from their name and no pod knows the
others' (deploy/helm-values.yaml: `CheckedCollect.student_uid_base` plus their LMS user id),
from that rule.
"""
import csv
import json
import os
import pwd
import stat
from datetime import UTC, datetime, timedelta
from pathlib import Path

from nbgrader.exchange.default.release_assignment import ExchangeReleaseAssignment
from nbgrader.utils import parse_utc
from traitlets import Integer

from course.i18n import say
from grader.plugins.inert import for_spreadsheet
from grader.plugins.intake import SafeCollect

CLOCK_SLACK = timedelta(minutes=1)  # clocks of the machines sharing an exchange may differ
REFUSALS_COLUMNS = ["folder", "student", "owner", "reason"]
HANDED_IN = ".handed-in.json"  # the record the hub's hand-in service writes into a frozen submission
TIME_FORMAT = "%Y-%m-%d %H:%M:%S.%f UTC"  # nbgrader's timestamps (Exchange.timestamp_format)


class StickyRelease(ExchangeReleaseAssignment):
    """`nbgrader release_assignment`, leaving the course's `inbound/` sticky: students still
    create their submissions there (nbgrader's write-only mode), and only a folder's owner
    (or the instructor, who owns `inbound/`) can rename or remove it."""

    def init_dest(self):
        super().init_dest()
        info = os.lstat(self.inbound_path)
        if info.st_uid == os.geteuid() and not info.st_mode & stat.S_ISVTX:
            os.chmod(self.inbound_path, stat.S_IMODE(info.st_mode) | stat.S_ISVTX)


def refusal(path, student, check_owner=True, owner=None, student_uid_base=None):
    """Why the inbound folder at `path`, named as `student`'s, is not a submission of
    theirs, as a reason's key (course/i18n.py), or None when it is: a link, not a folder,
    made by someone else (`owner`, or the folder's owner's name: `owner_name`). Only lstat:
    nothing is followed."""
    info = os.lstat(path)
    if stat.S_ISLNK(info.st_mode):
        return "collect_refused_link"
    if not stat.S_ISDIR(info.st_mode):
        return "collect_refused_not_folder"
    if check_owner and (owner or owner_name(info.st_uid, student_uid_base)) != student:
        return "collect_refused_owner"
    return None


def handed_in_record(path):
    """The hand-in record of the frozen submission folder `path` ({"student", "handed_in",
    ...}), or None: read only where the folder and the record are both root's (no student
    makes either), never through a link."""
    try:
        if os.lstat(path).st_uid != 0:
            return None
        fd = os.open(os.path.join(path, HANDED_IN), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, encoding="utf-8") as stream:
        info = os.fstat(stream.fileno())
        if info.st_uid != 0 or not stat.S_ISREG(info.st_mode):
            return None
        try:
            return json.loads(stream.read(1 << 20))
        except ValueError:
            return None


def last_change(path):
    """When `path`, or anything in the folder it is, last changed, by the machine's clock
    (the latest ctime; lstat only), as a naive UTC datetime like nbgrader's."""
    latest = os.lstat(path).st_ctime
    if stat.S_ISDIR(os.lstat(path).st_mode):
        for current, folders, files in os.walk(path):
            for name in folders + files:
                try:
                    latest = max(latest, os.lstat(os.path.join(current, name)).st_ctime)
                except OSError:
                    pass
    return datetime.fromtimestamp(latest, UTC).replace(tzinfo=None)


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
    latest submission that passes is collected, dated as the module's docstring says."""

    student_uid_base = Integer(None, allow_none=True, help=(
        "On a cluster, the number each student's uid is their name (their LMS user id) above "
        "(deploy/helm-values.yaml); None: names come from the system's users.")).tag(config=True)

    def _path_to_record(self, path):
        record = super()._path_to_record(path)
        frozen = handed_in_record(path)
        record["claimed"] = record["timestamp"]  # the folder's name: the student's word
        record["timestamp"] = parse_utc(frozen["handed_in"]) if frozen else last_change(path)
        record["owner"] = frozen["student"] if frozen else owner_name(os.lstat(path).st_uid, self.student_uid_base)
        why = refusal(path, record["username"], self.check_owner, record["owner"])
        if why is None and dated_in_future(record["claimed"]):
            why = "collect_refused_future"
        record["refused"] = why
        record["changed"] = record["timestamp"] > record["claimed"] + CLOCK_SLACK
        self.times[record["filename"]] = record["timestamp"]
        return record

    def do_copy(self, src, dest, log=None):
        """SafeCollect's copy, then the time collection trusts in place of the student's."""
        super().do_copy(src, dest, log)
        Path(dest, HANDED_IN).unlink(missing_ok=True)
        when = self.times.get(os.path.basename(src))
        if when is not None:
            Path(dest, "timestamp.txt").write_text(when.strftime(TIME_FORMAT), encoding="utf-8")

    def _sort_by_timestamp(self, records):
        """nbgrader picks the first of these for each student: refused ones never come
        first unless a student has nothing else (they are then dropped in init_src)."""
        kept = [r for r in records if not r.get("refused")]
        return super()._sort_by_timestamp(kept or records)

    def init_src(self):
        self.times = {}
        super().init_src()
        self.refused = []
        for path in sorted(Path(self.inbound_path).glob(
                f"{self.coursedir.student_id or '*'}+{self.coursedir.assignment_id}+*")):
            record = self._path_to_record(str(path))
            if record["refused"]:
                row = {"folder": path.name, "student": record["username"], "owner": record["owner"],
                       "reason": record["refused"]}
                self.refused.append(row)
                self.log.error("REFUSED %r: %s", path.name, explain(row))
        self.src_records = [r for r in self.src_records if not r.get("refused")]
        for record in self.src_records:
            if record["changed"]:
                row = {"folder": record["filename"], "student": record["username"], "owner": record["owner"],
                       "reason": "collect_changed"}
                self.refused.append(row)
                self.log.warning("CHANGED %r: %s (named %s, last changed %s)", record["filename"], explain(row),
                                 record["claimed"], record["timestamp"])
        remember_refusals(self.coursedir.root, self.coursedir.assignment_id, self.refused)

    def copy_files(self):
        """nbgrader's copy, without its own owner check: every folder left passed the one
        above, which also knows a cluster's students and a frozen submission's student
        (nbgrader's would call them "unknown id" or root, and a cheating attempt)."""
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
