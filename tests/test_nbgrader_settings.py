"""nbgrader's own settings keep nbgrader's meaning with the course's classes in place, where the
course does not mean to change them (nbgrader's own app tests found each of these; the whole of
them runs in benchmarks/nbgrader_own_tests.py):

- `ClearSolutions.code_stub` / `text_stub`, set in the configuration, are the stubs
  `generate_assignment` writes, whatever the notebook's language;
- `LateSubmissionPlugin.penalty_method`, set, means what nbgrader says: 'none' takes nothing,
  'zero' the whole score;
- a collector rule (`FileNameCollectorPlugin.named_regexp`) that gives no student id gets
  nbgrader's own message from `zip_collect`, not a KeyError from the course's collector.
"""
import shutil
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from traitlets.config import Config

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.parametrize("section", ["ClearSolutions", "LocalizedClearSolutions"])
def test_configured_stubs_are_the_ones_written(section):
    from grader.plugins.preprocessors import LocalizedClearSolutions
    source = ROOT / "source" / "theory03-es" / "theory03.ipynb"
    config = Config()
    config[section].code_stub = {"python": "# MINE"}
    config[section].text_stub = "MY ANSWER"
    nb, _ = LocalizedClearSolutions(config=config).preprocess(nbformat.read(source, 4), {})
    answers = [c.source for c in nb.cells if c.metadata.get("nbgrader", {}).get("solution")]
    print(answers[0])
    assert "# MINE" in answers[0] and "ESCRIBE AQUÍ" not in "".join(answers)
    default, _ = LocalizedClearSolutions(config=Config()).preprocess(nbformat.read(source, 4), {})
    assert "# ESCRIBE AQUÍ TU CÓDIGO" in "".join(c.source for c in default.cells)  # unset: the notebook's language


@pytest.mark.parametrize("method, taken", [(None, 1.0), ("none", 0.0), ("zero", 10.0)])
def test_penalty_method_means_what_nbgrader_says(method, taken):
    from grader.plugins.late import PercentPerDay, penalty
    config = Config()
    config.AssignLatePenalties.plugin_class = PercentPerDay
    if method is not None:
        config.LateSubmissionPlugin.penalty_method = method
    assert penalty(config, "ana", 10.0, 3600) == pytest.approx(taken)  # an hour late: 10 % by default


def test_a_collector_rule_without_a_student_id_gets_nbgraders_message(tmp_path):
    from grader.cohort.forking import environment
    for name in ("source", "release"):
        shutil.copytree(ROOT / name / "theory03-es", tmp_path / name / "theory03-es")
    shutil.copy(ROOT / "nbgrader_config.py", tmp_path)
    archive = tmp_path / "downloaded" / "theory03-es" / "archive"
    archive.mkdir(parents=True)
    shutil.copy(ROOT / "release" / "theory03-es" / "theory03.ipynb", archive / "ana_theory03.ipynb")
    done = subprocess.run([sys.executable, "-m", "nbgrader", "zip_collect", "theory03-es",
                           r"--FileNameCollectorPlugin.named_regexp=.*/(?P<name>[^/_]+)_(?P<file_id>[^/]+)"],
                          cwd=tmp_path, env=environment(), capture_output=True, text=True, check=False)
    print(done.stderr[-1500:])
    assert done.returncode != 0 and "KeyError" not in done.stderr
    assert "Expected collector" in done.stderr and "student_id" in done.stderr
