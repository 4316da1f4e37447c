"""What the three hostile-corpus test modules share: a course copy with an assignment's
submissions, graded in ONE run of the course's parallel command (`python -m grader grade
--workers 2`: stock `nbgrader autograde --student` per submission, two at a time), and
the checks every such run gets."""
import os
import shutil
import tempfile
import threading
import time

from nbformat.v4 import new_code_cell

from .course import Course, course_folder, graded_cells, verdict_text


def with_cell(nb, code):
    """`nb` with one extra student cell after the first."""
    nb.cells.insert(1, new_code_cell(code))
    return nb


def submitted_course(grader, assignment, make_submissions):
    """A course copy with `assignment` generated and `make_submissions(course)` submitted:
    {student: notebook, or (notebook, plant)} where `plant(folder)` adds files beside it."""
    course = Course(course_folder(), grader, generated=(assignment,))
    for name, submission in make_submissions(course).items():
        notebook, plant = submission if isinstance(submission, tuple) else (submission, None)
        path = course.submit(name, assignment, notebook)
        if plant is not None:  # links and special files beside the notebook
            plant(path.parent)
            grader.own(path.parent)
    return course


def graded_cohort(grader, assignment, make_submissions, *options):
    """A module fixture's body: yields (course, the command's result), removes the copy after."""
    course = submitted_course(grader, assignment, make_submissions)
    try:
        yield course, course.grade(assignment, *options, workers=2)
    finally:
        shutil.rmtree(course.root, ignore_errors=True)


def assert_every_submission_graded(course, result, assignment, names):
    # the command exits 1, with a NOT GRADED line on stderr, for a submission it could not grade
    assert result.returncode == 0 and "NOT GRADED" not in result.stderr, result.stderr[-3000:]
    assert "2 at a time" in result.stderr, result.stderr[-3000:]
    for name in names:
        assert (course.root / "autograded" / name / assignment).exists(), name


def verdicts(course, assignment, name):
    """grade id -> the grader's verdict, for one student's autograded notebook."""
    return {k: verdict_text(c) for k, c in graded_cells(course.autograded(assignment, name)).items()}


def printed(course, assignment, name):
    """Everything one student's cells printed, errors included."""
    nb = course.autograded(assignment, name)
    return "\n".join(f"{o.get('ename', '')} {o.get('evalue') or o.get('text') or ''}"
                     for c in nb.cells if c.cell_type == "code" for o in c.outputs)


class HostGrowth:
    """What grading left on the grader's host while it ran, sampled every 0.1 s: the most
    bytes (MiB) found in the host's temporary folder and /dev/shm, two levels deep (where a
    kernel's private folder is), in files whose name carries `token` (the private-fill case
    names its files so, and holds each write for 0.5 s); and how much those two file systems
    grew (MiB; other users of a shared machine add to that figure)."""

    PLACES = (tempfile.gettempdir(), "/dev/shm")

    def __init__(self, token):
        self.token = token

    def __enter__(self):
        self.start = {place: shutil.disk_usage(place).used for place in self.PLACES}
        self.most = dict.fromkeys(self.PLACES, 0)
        self.found = 0
        self.running = True
        self.thread = threading.Thread(target=self._sample, daemon=True)
        self.thread.start()
        return self

    def _sample(self):
        while self.running:
            for place in self.PLACES:
                grown = (shutil.disk_usage(place).used - self.start[place]) >> 20
                self.most[place] = max(self.most[place], grown)
            self.found = max(self.found, self._marked() >> 20)
            time.sleep(0.1)

    def _marked(self):
        total = 0
        for place in self.PLACES:
            for entry in _entries(place):
                paths = _entries(entry.path) if entry.is_dir(follow_symlinks=False) else [entry]
                total += sum(_size(path) for path in paths if self.token in path.name)
        return total

    def __exit__(self, *_):
        self.running = False
        self.thread.join()


def _entries(folder):
    try:
        with os.scandir(folder) as entries:
            return list(entries)
    except OSError:
        return []


def _size(entry):
    try:
        return entry.stat(follow_symlinks=False).st_size
    except OSError:
        return 0


def fills(text):
    """What the private-fill case wrote where: {place: (MiB written, why it stopped)}."""
    found = {}
    for line in text.splitlines():
        words = line.split()
        if "MiB:" in words and ("refused" in words or "accepted" in words):
            place = " ".join(words[:words.index("refused" if "refused" in words else "accepted")])
            found[place.removeprefix("MOUNT ")] = (int(words[words.index("MiB:") - 1]),
                                                   line.split("MiB:", 1)[1].strip())
    return found


# the kernel's only writable places: tmpfs capped at SandboxedKernelManager.tmp_size and
# workdir_size (256 MiB each by default)
CAPPED = {"/tmp": 256, "/dev/shm": 256, "/submission": 256}


def assert_private_fill_found_nothing(text, growth):
    """The launcher planted beside the notebook never ran; the private folder took nothing;
    every place that took bytes is a capped tmpfs that stopped at its cap; none of the case's
    files was ever seen on the host."""
    places = fills(text)
    assert "planted launcher: never ran" in text, text[-1500:]
    assert places.get("private", (None,))[0] == 0, text[-1500:]
    assert "/" in places and "/proc" in places, text[-1500:]  # the walk did walk the mounts
    for place, (written, why) in places.items():
        assert why != "accepted", (place, text[-1500:])
        if written:
            assert place in CAPPED and written <= CAPPED[place], (place, written, text[-1500:])
    assert growth.found == 0, f"{growth.found} MiB of the case's files reached the host"
