"""Hostile and broken submissions to theory03-en, each with the outcome it must get.

Each case is built from the instructor's solved notebook (or the release) by
`make(course, paths)`, where `paths` holds the absolute paths a hostile
submission would like to reach. `score` is the total it must get;
`reasons` maps grade_id -> text that its reason must contain.
"""
import copy

import nbformat

ANSWERS = "theory03-forward-answer"


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


HARD = {
    "theory03-forward-answer": "def forward(a, b, c):\n    return 6, 10, -2, -20",
    "theory03-gradients-answer": "def gradients(a, b, c):\n    return 4, -4, -12",
    "theory03-central-answer": "def central_difference(f, x, eps=1e-5):\n    return 4.0",
    "theory03-walk-answer": "def walk_by_hand(a, b, c, accumulate=True):\n"
                            "    return (4, -4, -12) if accumulate else (-6, -4, -2)",
}


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

READ_OUTSIDE = '''
import json
for path in ["{source}", "{gradebook}"]:
    try:
        text = open(path).read()
    except OSError:
        continue
    # with the instructor's notebook in hand, take its solutions
    for c in json.loads(text)["cells"]:
        if "BEGIN SOLUTION" in "".join(c["source"]):
            exec("".join(c["source"]))
'''

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

FORK_BOMB = '''
import os, time
children = 0
try:
    while True:
        if os.fork() == 0:
            time.sleep(60)
            os._exit(0)
        children += 1
except OSError as error:
    print("fork refused after", children, "children:", error)
'''

def dies_again_and_again(course, paths):
    nb = course.solved("theory03-en")
    for _ in range(4):  # one more death than GradingExecute.max_kernel_restarts allows
        nb.cells.insert(4, cell("import os\nos._exit(1)"))
    return nb


CASES = {
    # name: (make, expected total, {grade_id: text in its reason})
    "honest": (answers({}), 10, {"theory03-walk": "all 10 checks passed"}),
    "blank": (released, 0, {"theory03-forward": "NotImplementedError"}),
    "wrong": (wrong_forward, 8, {"theory03-forward": "expected"}),
    "hard_coded": (answers(HARD), 0, {"theory03-gradients": "expected"}),
    "endless_loop": (with_cell("while True:\n    pass"), 10, {}),
    "loop_ignoring_interrupts": (with_cell(
        "import signal\nsignal.signal(signal.SIGINT, signal.SIG_IGN)\nwhile True:\n    pass"), 10, {}),
    "dying_kernel": (with_cell("import os\nos._exit(1)"), 10, {}),
    "dying_at_the_end": (with_cell("import os\nos._exit(1)", position="end"), 10, {}),
    "dies_again_and_again": (dies_again_and_again, 0, {"theory03-forward": "not run"}),
    "memory_bomb": (with_cell("hog = []\nwhile True:\n    hog.append(bytearray(10 ** 8))"), 10, {}),
    "fork_bomb": (with_cell(FORK_BOMB), 10, {}),
    "output_flood": (with_cell("for i in range(10 ** 5):\n    print('spam' * 20)"), 10, {}),
    "deleted_test_cell": (deleted_cell, 7, {"theory03-walk": "missing"}),
    "duplicated_cells": (duplicated_cells, 10, {}),
    "edited_tests": (edited_tests, 0, {"theory03-forward": "expected"}),
    "edited_metadata": (edited_metadata, 10, {}),
    "invalid_json": ('{"cells": [', 0, {"theory03-forward": "could not be read"}),
    "not_utf8": (b"\xff\xfe\x00garbage", 0, {"theory03-forward": "could not be read"}),
    "foreign_notebook": (foreign_notebook, 0, {"theory03-forward": "missing"}),
    "monkeypatching": (hard_coded_plus(PATCHES), 0, {}),
    "lying_objects": (answers({ANSWERS: LIAR, "theory03-gradients-answer": ""}), 5,
                      {"theory03-forward": "expected"}),
    "read_outside": (lambda course, paths: hard_coded_plus(READ_OUTSIDE)(course, paths), 0, {}),
    "write_outside": (with_cell(WRITE_OUTSIDE), 10, {}),
    "network": (with_cell(NETWORK), 10, {}),
}
