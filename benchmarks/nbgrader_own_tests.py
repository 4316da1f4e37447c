"""nbgrader's own application tests, run with the course's classes in place.

    python benchmarks/nbgrader_own_tests.py            # about 15 minutes on 2 cores
    python benchmarks/nbgrader_own_tests.py -k list    # a part of them (pytest's -k)

nbgrader 0.9.6 ships its test suite inside its package (nbgrader/tests/apps). This runs it as
nbgrader's developers do, with one change: a Jupyter configuration folder whose
nbgrader_config.py calls the course's `configure(c)` (grader/plugins/wiring.py), so every
nbgrader command those tests run uses the course's preprocessors, exchange, collector, sandbox
and plugins. Where the course keeps nbgrader's behaviour, nbgrader's tests pass. Where it
changes it on purpose, they fail, and each such test is listed below (DELIBERATE) with the
difference that explains it (docs/en/grading.md, section 9). The script prints every test that
failed, and what explains it; a failure the table does not explain is printed as UNEXPECTED and
makes the exit status 1. It grades notebooks: on a shared machine, run it where no other
grading runs (the suite's lock: `flock /work/heavy-tests.lock python benchmarks/...`).
"""
import argparse
import os
import pwd
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

CHECKS = "checks per graded cell: nbgrader's test cells have no check in grader/checks, so the grader scores them 0"
DELIBERATE = {
    **{f"test_nbgrader_autograde.py::{name}": CHECKS for name in (
        "test_grade", "test_grade_autotest", "test_grade_hashed_autotest", "test_grade_complex_autotest",
        "test_showtraceback_exploit", "test_student_id_exclude", "test_late_submission_penalty_none",
        "test_late_submission_penalty_zero", "test_late_submission_penalty_plugin",
        "test_hidden_tests_single_notebook", "test_hidden_tests_autotest", "test_autograde_timeout")},
    "test_nbgrader_autograde.py::test_side_effects":
        "the sandbox's throw-away working copy: what the notebook writes does not reach autograded/",
    **{f"test_nbgrader_autograde.py::{name}":
       "metadata repair: cells the gradebook does not know are graded as the release has them, not a failure"
       for name in ("test_handle_failure", "test_handle_failure_single_notebook")},
    **{f"test_nbgrader_update.py::{name}":
       "metadata repair: a submission's nbgrader metadata is the release's (an old one is updated with the release)"
       for name in ("test_update_autograde", "test_update_autograde_old_assign")},
    **{f"test_nbgrader_collect.py::test_permissions[{flag}]":
       "sticky inbound: release_assignment makes the exchange's inbound/ sticky (mode 3733/3773, not 2733/2773)"
       for flag in ("False", "True")},
    **{f"test_nbgrader_list.py::{name}":
       "the course's configuration names its course (CourseDirectory.course_id): `nbgrader list` shows that course's"
       for name in ("test_list_released", "test_list_fetched", "test_list_remove_outbound", "test_list_inbound",
                    "test_list_inbound_no_random_string", "test_list_cached", "test_list_remove_inbound",
                    "test_list_remove_cached", "test_list_without_random_string", "test_list_feedback_inbound",
                    "test_list_feedback_cached")},
}


def configuration_folder():
    """A Jupyter configuration folder whose nbgrader_config.py wires the course into nbgrader."""
    folder = Path(tempfile.mkdtemp(prefix="nbgrader-own-tests-"))
    (folder / "nbgrader_config.py").write_text(
        "from grader.plugins.wiring import configure\nconfigure(get_config())  # noqa: F821\n")
    return folder


def run(selection, report):
    import nbgrader
    tests = Path(nbgrader.__file__).parent / "tests" / "apps"
    env = dict(os.environ, JUPYTER_CONFIG_DIR=str(configuration_folder()),
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
    env.setdefault("USER", pwd.getpwuid(os.getuid()).pw_name)  # nbgrader's fetch_feedback test reads it
    command = [sys.executable, "-m", "pytest", str(tests), "-c", os.devnull, "-p", "no:cacheprovider", "-q",
               f"--junitxml={report}", "-W", "ignore::DeprecationWarning"]
    if selection:
        command += ["-k", selection]
    return subprocess.run(command, env=env, cwd=tempfile.gettempdir(), check=False,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def outcomes(report):
    """{test id (file::name): None when it passed, else the first line of why it failed}, skipped left out."""
    found = {}
    for case in ET.parse(report).iter("testcase"):
        if any(child.tag == "skipped" for child in case):
            continue
        test = f"{case.get('classname').split('.')[-2]}.py::{case.get('name')}"
        failed = [child for child in case if child.tag in ("failure", "error")]
        found[test] = (failed[0].get("message") or "").splitlines()[0][:160] if failed else None
    return found


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("-k", dest="selection", default="", metavar="EXPRESSION",
                        help="run only the tests pytest's -k selects (default: all of nbgrader/tests/apps)")
    arguments = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        report = Path(scratch) / "report.xml"
        run(arguments.selection, report)
        found = outcomes(report)
    failed = {test: why for test, why in found.items() if why is not None}
    unexpected = sorted(test for test in failed if test not in DELIBERATE)
    print(f"nbgrader's own app tests with the course's classes: {len(found) - len(failed)} passed, "
          f"{len(failed)} failed ({len(failed) - len(unexpected)} deliberate, {len(unexpected)} unexpected)")
    for test in sorted(failed):
        print(f"  {'DELIBERATE' if test in DELIBERATE else 'UNEXPECTED'} {test}\n"
              f"      {DELIBERATE.get(test, failed[test])}")
    return 1 if unexpected else 0


if __name__ == "__main__":
    raise SystemExit(main())
