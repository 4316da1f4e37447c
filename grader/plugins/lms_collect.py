"""Submissions downloaded from an LMS, filed by `nbgrader zip_collect`.

A student hands in the one file `python -m course submit ASSIGNMENT` writes,
`ASSIGNMENT.ipynb` (`theory03-es.ipynb`), by uploading it to the LMS. The LMS's
"download all submissions" zip renames it; `parse` reads the student and the
assignment back from those names:

- Moodle, in folders: `Ana María Pérez_12345_assignsubmission_file_/theory03-es.ipynb`
  (without folders: `Ana María Pérez_12345_assignsubmission_file_theory03-es.ipynb`);
  the student is the participant number, 12345.
- Canvas: `perezana_LATE_12345_67890_theory03-es-1.ipynb`: the student is the user
  number, 12345; 67890 numbers the uploaded file; `LATE_` is the LMS's late flag;
  `-1` is how Canvas renames a re-upload of a file with the same name.

`LmsCollector` is the collector plugin of `nbgrader zip_collect` (set in
grader/plugins/wiring.py): each submission goes to
`submitted/<student>/<assignment>/<the release notebook's name>`. When an export
holds several uploads of one student, the newest is collected (the highest Canvas
file number, else the highest re-upload suffix) and the others are skipped. A file
of another assignment, or any other file, is skipped with a warning, unless
`FileNameCollectorPlugin.named_regexp` is set: then a name that is neither
Moodle's nor Canvas's is read by nbgrader's own rule (another LMS's export).

An archive a student uploaded (`work.zip`) is kept as it is by both LMSs, inside
their export, and it is not opened: only the archives the instructor puts in
zip_collect's `archive` folder (the LMS's export) are. The extractor takes a
student's archive in as `work.zip.ipynb` (grader/plugins/intake.py). When the student
uploaded no notebook for the assignment, their newest archive is collected as
their notebook, with a warning, so that grading gives them 0 and the reason in
their language (grader/plugins/preprocessors.py); otherwise it is skipped. The late flag
cannot travel through zip_collect (it has only a timestamp, and the LMS export has
none): `parse(...).late` and `late_students` give it to whoever applies penalties.
"""
import re
from pathlib import Path
from typing import NamedTuple

from nbgrader.plugins import FileNameCollectorPlugin

from grader.plugins.archives import ARCHIVE_SUFFIXES

MOODLE = re.compile(r"^(?P<name>.+?)_(?P<student>\d+)_assignsubmission_file_(?P<file>.*)$")
CANVAS = re.compile(r"^(?P<name>[^_]+)_(?P<late>LATE_)?(?P<student>\d+)_(?P<upload>\d+)_(?P<file>.+)$")
REUPLOAD = re.compile(r"^(?P<stem>.+?)(?:-(?P<canvas>\d+)| \((?P<copy>\d+)\))?$")


class Submission(NamedTuple):
    student: str       # the LMS's number for the student
    stem: str          # the uploaded file's name, without the LMS's re-upload suffix or .ipynb
    late: bool         # the LMS said it came in after the deadline (Canvas's LATE_)
    order: tuple       # larger for a newer upload of the same student
    lms: str           # "moodle" or "canvas"
    archive: bool = False  # an archive the student uploaded (not opened), not a notebook


def parse(path) -> Submission | None:
    """What the LMS's name of `path` says, or None when it is no LMS submission name."""
    path = Path(path)
    if path.suffix != ".ipynb":
        return None
    archive = path.stem.lower().endswith(ARCHIVE_SUFFIXES)  # SafeExtractor's `work.zip.ipynb`
    folder = MOODLE.match(path.parent.name)
    if folder and not folder["file"]:  # Moodle, one folder per student
        return _submission(folder["student"], path.stem, False, 0, "moodle", archive)
    flat = MOODLE.match(path.name)
    if flat:
        return _submission(flat["student"], Path(flat["file"]).stem, False, 0, "moodle", archive)
    canvas = CANVAS.match(path.name)
    if canvas:
        return _submission(canvas["student"], Path(canvas["file"]).stem, bool(canvas["late"]),
                           int(canvas["upload"]), "canvas", archive)
    return None


def _submission(student, stem, late, upload, lms, archive=False):
    match = REUPLOAD.match(stem)
    again = int(match["canvas"] or match["copy"] or 0)
    return Submission(student, match["stem"], late, (upload, again), lms, archive)


def late_students(extracted):
    """The students whose newest submission under `extracted` the LMS flagged late."""
    newest = {}
    for path in Path(extracted).rglob("*.ipynb"):
        found = parse(path)
        if found and not found.archive and (found.student not in newest or found.order > newest[found.student].order):
            newest[found.student] = found
    return sorted(s.student for s in newest.values() if s.late)


class LmsCollector(FileNameCollectorPlugin):
    """zip_collect's collector for Moodle and Canvas exports (see the module's docstring)."""

    def collect(self, submitted_file):
        found = parse(submitted_file)
        app = self.parent
        assignment = app.coursedir.assignment_id
        released = sorted(Path(app.coursedir.format_path(
            app.coursedir.release_directory, ".", assignment)).glob("*.ipynb"))
        if found is None and self.named_regexp:
            # another LMS: nbgrader's own reading, by the configured named_regexp
            return super().collect(submitted_file)
        if found is None or not released:
            self.log.warning("Skipped (not an LMS submission of %s): %s", assignment, submitted_file)
            return None
        notebook = released[0].name
        extracted = Path(app._format_collect_path(app.extracted_directory))
        if found.archive:
            return self.archive(found, Path(submitted_file), extracted, (assignment, released[0].stem),
                                notebook)
        if found.stem not in (assignment, released[0].stem):
            self.log.warning("Skipped (a file for another assignment than %s): %s", assignment, submitted_file)
            return None
        for other in extracted.rglob("*.ipynb"):
            theirs = parse(other)
            if (theirs and other != Path(submitted_file) and theirs.student == found.student
                    and theirs.stem == found.stem and theirs.order > found.order):
                self.log.info("Skipped (student %s uploaded a newer file): %s", found.student, submitted_file)
                return None
        if found.late:
            self.log.warning("Student %s: the LMS flagged this submission late", found.student)
        return {"student_id": found.student, "file_id": notebook}

    def archive(self, found, path, extracted, stems, notebook):
        """An archive a student uploaded: collected as their notebook (graded 0, with the
        reason) when it is their newest and they uploaded no notebook of this assignment."""
        uploads = [parse(other) for other in extracted.rglob("*") if other != path and other.is_file()]
        mine = [other for other in uploads if other and other.student == found.student]
        if any(not other.archive and other.stem in stems for other in mine):
            self.log.warning("Skipped (an archive: archives are not opened; student %s's notebook is "
                             "collected): %s", found.student, path)
            return None
        if any(other.archive and other.order > found.order for other in mine):
            self.log.info("Skipped (student %s uploaded a newer file): %s", found.student, path)
            return None
        self.log.warning("Student %s uploaded an archive, not the notebook %s: archives are not "
                         "opened; it is graded as a file that is not a notebook (0, with that reason "
                         "in the student's language): %s", found.student, notebook, path)
        return {"student_id": found.student, "file_id": notebook}
