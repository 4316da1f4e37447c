"""What of a submission the grader takes in, decided before anything is opened or copied.

A submission is the student's: only its regular files, inside its own folder, are
ever read or copied with the grader's (or instructor's) rights. Symbolic links
(whatever they point at), hard links (a regular file with another name, perhaps a course
file: the grader may run as root), FIFOs, sockets and devices are refused with a reason and
the rest is graded; files are counted by their size (a sparse file by the size it
claims) against a cap per submission, checked before a byte is copied. Student ids
(folder names) that a page or a terminal would take for markup or a new line are
refused where submissions come in.

Used by nbgrader's autograde (a pre-convert hook, before nbgrader copies the
submission into autograded/), the course's notebook reader, `nbgrader collect`
(`SafeCollect`), `nbgrader zip_collect` (`SafeExtractor`, `SafeCollector`) and the
Dask task's archive (grader/cohort/cluster.py).
"""
import os
import re
import shutil
import stat
from pathlib import Path

from nbgrader.exchange.default.collect import ExchangeCollect
from nbgrader.plugins.zipcollect import ExtractorPlugin
from nbgrader.utils import unzip

from course.i18n import say
from grader.plugins.archives import ARCHIVE_SUFFIXES, member_refusal
from grader.plugins.lms_collect import LmsCollector

MAX_SUBMISSION_BYTES = 100 * 1024 ** 2  # one submission's files, its notebooks included
# characters that make an id markup (formgrader renders ids into its pages) or break a line
UNSAFE_ID = re.compile(r"[<>&\"'`/\\\x00-\x1f\x7f-\x9f\u2028\u2029]")


def unsafe_id(student):
    """Why `student` cannot be a student id, or None when it can."""
    if not student or student in (".", "..") or student != student.strip():
        return "an empty id, or one with spaces around it"
    if UNSAFE_ID.search(student):
        return "an id with markup, a slash or control characters (< > & \" ' ` / \\ or a line break)"
    return None


def kind(mode):
    """What a file that is not a regular one is, as a reason's key (course/i18n.py)."""
    if stat.S_ISLNK(mode):
        return "refused_link"
    if stat.S_ISFIFO(mode):
        return "refused_fifo"
    if stat.S_ISSOCK(mode):
        return "refused_socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "refused_device"
    return "refused_other"


def reason(key, lang="en", limit=MAX_SUBMISSION_BYTES):
    return say(key, lang, mib=limit // 1024 ** 2)


def vet(folder, limit=MAX_SUBMISSION_BYTES):
    """(accepted, refused): the regular files of `folder` that fit under `limit` bytes in
    all, as paths relative to it, and [(path, reason's key)] for everything else. Nothing is
    followed or opened: only lstat."""
    accepted, refused, total = [], [], 0
    folder = Path(folder)
    if folder.is_symlink() or not folder.is_dir():
        return [], [(".", kind(os.lstat(folder).st_mode) if os.path.lexists(folder) else "refused_other")]
    pending = [folder]
    while pending:
        current = pending.pop()
        with os.scandir(current) as entries:
            for entry in sorted(entries, key=lambda e: e.name):
                relative = Path(entry.path).relative_to(folder).as_posix()
                mode = entry.stat(follow_symlinks=False).st_mode
                if stat.S_ISDIR(mode):
                    pending.append(Path(entry.path))
                elif not stat.S_ISREG(mode):
                    refused.append((relative, kind(mode)))
                elif entry.stat(follow_symlinks=False).st_nlink > 1:
                    refused.append((relative, "refused_hard_link"))
                elif total + entry.stat(follow_symlinks=False).st_size > limit:
                    refused.append((relative, "refused_too_big"))
                else:
                    total += entry.stat(follow_symlinks=False).st_size
                    accepted.append(relative)
    return sorted(accepted), sorted(refused)


class Refused(OSError):
    """A file of a submission that is not opened; `key` says why (course/i18n.py)."""

    def __init__(self, name, key, limit=MAX_SUBMISSION_BYTES):
        super().__init__(f"{name}: {reason(key, limit=limit)}")
        self.name, self.key, self.limit = name, key, limit

    def say(self, lang):
        return f"{self.name}: {reason(self.key, lang, self.limit)}"


def open_regular(path, limit=MAX_SUBMISSION_BYTES):
    """A binary stream of `path`, which must be a regular file (not a link) of at most
    `limit` bytes; `Refused` otherwise. Opened without following a link and without
    blocking on a FIFO, then checked on the open file itself."""
    name = Path(path).name
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        if os.path.islink(path):
            raise Refused(name, "refused_link", limit) from None
        raise
    info = os.fstat(fd)
    why = kind(info.st_mode) if not stat.S_ISREG(info.st_mode) else \
        "refused_hard_link" if info.st_nlink > 1 else "refused_too_big" if info.st_size > limit else None
    if why:
        os.close(fd)
        raise Refused(name, why, limit)
    return os.fdopen(fd, "rb")


def copy_vetted(source, destination, limit=MAX_SUBMISSION_BYTES, ignore=()):
    """Copy the regular files `vet` accepts from `source` into `destination` (made);
    returns the refused [(path, reason)]."""
    accepted, refused = vet(source, limit)
    for relative in accepted:
        if any(Path(part).match(pattern) for part in Path(relative).parts for pattern in ignore):
            continue
        target = Path(destination, relative)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open_regular(Path(source, relative), limit) as stream, open(target, "wb") as out:
            shutil.copyfileobj(stream, out)
        shutil.copystat(Path(source, relative), target, follow_symlinks=False)
    Path(destination).mkdir(parents=True, exist_ok=True)
    return refused


def ignore_refused(coursedir, folder, limit=MAX_SUBMISSION_BYTES):
    """nbgrader's copy of `folder` into autograded/ (BaseConverter.init_assignment) skips
    files matching `coursedir.ignore`: add every refused file's name, so nothing refused
    is opened. Returns the refused [(path, reason)]."""
    import glob
    base = getattr(coursedir, "_course_ignore", None)
    if base is None:
        base = coursedir._course_ignore = list(coursedir.ignore)
    _, refused = vet(folder, limit)
    coursedir.ignore = base + [glob.escape(Path(path).name) for path, _ in refused if path != "."]
    return refused


def refusal_note(refused, lang):
    """The refused files, one per line, for the graded copy's first cell."""
    return say("refused_files", lang, files="\n".join(
        f"- `{path.replace('`', '')}`: {reason(key, lang)}" for path, key in refused))


# ---- nbgrader collect (the JupyterHub exchange) ----

class SafeCollect(ExchangeCollect):
    """`nbgrader collect` taking in only what `vet` accepts, for safe student ids (the
    inbound folder is the students' to fill, and nbgrader's own copy follows links)."""

    def init_src(self):
        super().init_src()
        kept = []
        for record in self.src_records:
            why = unsafe_id(record["username"])
            if why:
                self.log.warning("refused a submission: student id %r is %s", record["username"], why)
            else:
                kept.append(record)
        self.src_records = kept

    def do_copy(self, src, dest, log=None):
        for path, key in copy_vetted(src, dest, ignore=self.coursedir.ignore):
            self.log.warning("refused %r of %s: %s", path, os.path.basename(src), reason(key))


# ---- nbgrader autograde ----

def vet_before_copy(notebooks=(), **_):
    """nbgrader's pre-convert hook, run for each submission before nbgrader copies its
    folder into autograded/: refuse an unsafe student id (the run stops, saying which
    folder to rename; nothing of it is written), and make nbgrader's copy skip every
    file `vet` refuses. nbgrader swallows a hook's exceptions, so every failure here
    stops the run (SystemExit): a copy made without vetting must never happen."""
    from traitlets.config import Application
    if not notebooks:
        return
    folder = Path(notebooks[0]).parent
    student = folder.parent.name
    try:
        why = unsafe_id(student)
        if why is None and (folder.is_symlink() or folder.parent.is_symlink()):
            why = "a symbolic link (not followed)"
        if why is None:
            ignore_refused(Application.instance().coursedir, folder)
    except Exception as error:  # see the docstring
        raise SystemExit(f"could not check the submission in {folder}: {error!r}") from error
    if why:
        raise SystemExit(f"refusing to grade the submission in {str(folder)!r} (student id "
                         f"{student!r}): {why}. Make it a plain folder with a plain id and grade again.")


# ---- nbgrader zip_collect (an LMS export) ----

def archive_refusal(path, limit=MAX_SUBMISSION_BYTES):
    """Why the archive at `path` is not extracted (a member that is a link, a device or
    leads out of the folder; a member over `limit` bytes as declared), or None."""
    import tarfile
    import zipfile
    if zipfile.is_zipfile(path):
        with zipfile.ZipFile(path) as archive:
            members = [(m.filename, stat.S_IFMT(m.external_attr >> 16) in (0, stat.S_IFREG, stat.S_IFDIR),
                        m.file_size) for m in archive.infolist()]
    else:
        with tarfile.open(path) as archive:
            members = [(m.name, m.isfile() or m.isdir(), m.size) for m in archive.getmembers()]
    return next(filter(None, (member_refusal(*member, limit) for member in members)), None)



class SafeExtractor(ExtractorPlugin):
    """nbgrader's extractor, taking from the downloaded folder only regular files and
    archives whose every member is an ordinary file within the size cap (nbgrader's own
    follows links and extracts whatever an archive holds). Only the archives at the top of
    the folder (the LMS's exports, put there by the instructor) are opened: an archive inside
    one, or in a folder beside them, is a student's upload. It is never opened, and is taken
    in as `NAME.ipynb` (`work.zip.ipynb`), so that zip_collect can file it as the student's
    notebook (grader/plugins/lms_collect.py) and grading gives the reason (grader/plugins/preprocessors.py)."""

    def extract(self, archive_path, extracted_path):
        top = os.path.abspath(archive_path)
        for root, _, files in os.walk(archive_path):
            target = Path(extracted_path, os.path.relpath(root, archive_path))
            target.mkdir(parents=True, exist_ok=True)
            for name in sorted(files):
                path = os.path.join(root, name)
                if not stat.S_ISREG(os.lstat(path).st_mode):
                    self.log.warning("refused %r: %s", path, reason(kind(os.lstat(path).st_mode)))
                    continue
                if os.path.abspath(root) != top or not name.endswith(tuple(self.zip_ext)):
                    try:
                        with open_regular(path) as stream, open(target / name, "wb") as out:
                            shutil.copyfileobj(stream, out)
                    except Refused as refused:
                        self.log.warning("refused %r: %s", path, refused)
                    continue
                try:
                    why = archive_refusal(path)
                except Exception as error:  # noqa: BLE001 (a damaged archive is refused, not fatal)
                    why = f"not a readable archive ({error})"
                if why:
                    self.log.warning("refused the archive %r: %s", path, why)
                else:
                    unzip(path, str(target), zip_ext=self.zip_ext, create_own_folder=True)
        # what is left that is an archive is a student's upload (not opened): a notebook's name
        for path in sorted(Path(extracted_path).rglob("*")):
            if path.name.lower().endswith(ARCHIVE_SUFFIXES) and path.is_file() and not path.is_symlink():
                self.log.warning("not opened (an archive inside the export, a student's upload): "
                                 "%r, taken in as %r", str(path), path.name + ".ipynb")
                path.rename(path.with_name(path.name + ".ipynb"))


class SafeCollector(LmsCollector):
    """The LMS exports' file-name collector (grader/plugins/lms_collect.py), skipping (with a
    warning) files whose student id `unsafe_id` refuses."""

    def collect(self, submission_file):
        info = super().collect(submission_file)
        if not info or not isinstance(info.get("student_id"), str):
            return info  # nothing, or no id: nbgrader says so itself ("Expected collector ... student_id")
        if unsafe_id(info["student_id"]):
            self.log.warning("refused %r: student id %r is %s", submission_file, info["student_id"],
                             unsafe_id(info["student_id"]))
            return None
        return info
