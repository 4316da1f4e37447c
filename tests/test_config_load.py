"""Loading the course's nbgrader_config.py changes nothing outside nbgrader's applications:
the report, the export and the cohort command read it for its settings, and nbgrader's
`Student`, `sys.excepthook` and formgrader stay stock there; an nbgrader application that
loads it gets the guards."""
import subprocess
import sys

from authoring.build import ROOT

STATE = '''
import sys
from nbgrader.api import Student
from sqlalchemy import event
from grader.plugins.student_fields import CHECKS
def state():
    return (sys.excepthook, [event.contains(getattr(Student, f), "set", c) for f, c in CHECKS.items()])
'''

PLAIN = STATE + '''
import nbgrader.server_extensions.formgrader.formgrader as formgrader
del sys.modules["nbgrader.server_extensions.formgrader.formgrader"]  # imported, not loaded by a server
stock = formgrader.FormgradeExtension.init_tornado_settings
before = state()
from grader.config import load_config
config = load_config(sys.argv[1], [])
assert config.CourseDirectory.course_id == "autograd-by-hand", "the settings were read"
assert state() == before and not any(before[1]), state()
assert formgrader.FormgradeExtension.init_tornado_settings is stock
print("plain process: settings read, nothing patched")
'''

NBGRADER_APP = STATE + '''
from nbgrader.apps.baseapp import NbGrader
import os
os.chdir(sys.argv[1])
app = NbGrader.instance()
app.load_config_file()  # nbgrader's own: its config folders, then the course's nbgrader_config.py
assert app.config.CourseDirectory.course_id == "autograd-by-hand", "the course's settings were read"
excepthook, checked = state()
assert all(checked) and getattr(excepthook, "says_refusals", False), state()
print("nbgrader application: Student guarded, refusals said in one line")
'''


def run(script):
    return subprocess.run([sys.executable, "-c", script, str(ROOT)], capture_output=True, text=True,
                          timeout=120, check=False)


def test_loading_the_configuration_in_a_plain_process_changes_nothing():
    result = run(PLAIN)
    print(result.stdout)
    assert result.returncode == 0, result.stderr[-2000:]


def test_an_nbgrader_application_loading_it_gets_the_guards():
    result = run(NBGRADER_APP)
    print(result.stdout)
    assert result.returncode == 0, result.stderr[-2000:]
