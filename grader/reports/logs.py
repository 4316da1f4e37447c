"""Where each submission's grading log is kept: logs/ASSIGNMENT/STUDENT.log in the
course folder (the last attempt's), so the report's "see its log" can be followed
after the run (and the folder is not committed: .gitignore)."""
import re

LOGS = "logs"


def log_name(student):
    """A file name for `student`'s log: anything but letters, digits and `-_.` escaped
    as %XX (a student id is a folder name a student may have chosen)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]", lambda m: f"%{ord(m.group()):02X}", student)
    if safe.startswith("."):
        safe = "%2E" + safe[1:]
    return f"{safe}.log"
