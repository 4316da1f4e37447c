"""Each unit fits one class session: a graded core whose parts state their minutes, adding up to the
time the notebook announces and at most the session's length, with every graded cell inside it;
what does not fit is in an optional "Going further" part after it, worth no points. The core's prose
is at most about half of what it was before the units were cut to a session."""
import re

import nbformat
import pytest

from authoring.build import ROOT
from course.names import LANGUAGES, UNITS

SESSION = {"theory03": 60, "lab01": 120, "lab03": 90}  # minutes, at most
WORDS_BEFORE = {"theory03": 1998, "lab01": 3869, "lab03": 3533}  # the English core before the cut
GOING_FURTHER = {"en": "Going further", "es": "Para ir más lejos"}
ANNOUNCED = {"en": r"\*\*Time: (\d+) minutes\*\*", "es": r"\*\*Tiempo: (\d+) minutos\*\*"}
MINUTES = re.compile(r"\((?:[^()]*?)(\d+) min\)\s*$")


def parts(unit, lang):
    """(core cells, going-further cells) of the unit's source notebook."""
    nb = nbformat.read(ROOT / "source" / f"{unit}-{lang}" / f"{unit}.ipynb", 4)
    for index, cell in enumerate(nb.cells):
        if cell.cell_type == "markdown" and re.search(rf"^## {GOING_FURTHER[lang]}\b", cell.source, re.MULTILINE):
            return nb.cells[:index], nb.cells[index:]
    return nb.cells, []


def headings(cells, level="## "):
    return [line for cell in cells if cell.cell_type == "markdown"
            for line in cell.source.splitlines() if line.startswith(level)]


def words(cells):
    return sum(len(cell.source.split()) for cell in cells if cell.cell_type == "markdown")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("unit", UNITS)
def test_the_parts_state_their_minutes_and_add_up_to_the_session(unit, lang):
    core, further = parts(unit, lang)
    parts_ = headings(core)
    stated = [MINUTES.search(heading) for heading in parts_]
    assert parts_ and all(stated), f"a part without its minutes: {[h for h, s in zip(parts_, stated) if not s]}"
    total = sum(int(match.group(1)) for match in stated)
    announced = re.search(ANNOUNCED[lang], core[0].source)
    assert announced, "the introduction announces the session's minutes"
    print(f"{unit}-{lang}: {len(parts_)} parts, {total} minutes; announced {announced.group(1)}")
    assert total == int(announced.group(1)) <= SESSION[unit]
    if further:
        assert all(MINUTES.search(h) for h in headings(further, "### ")), headings(further, "### ")


@pytest.mark.parametrize("lang", LANGUAGES)
@pytest.mark.parametrize("unit", UNITS)
def test_every_point_is_in_the_core_and_going_further_is_optional(unit, lang):
    core, further = parts(unit, lang)
    graded = lambda cells: [c.metadata["nbgrader"]["grade_id"] for c in cells
                            if c.metadata.get("nbgrader", {}).get("points")]
    assert graded(core) and not graded(further), graded(further)
    if further:
        assert ("optional" if lang == "en" else "opcional") in further[0].source.splitlines()[0]


@pytest.mark.parametrize("unit", UNITS)
def test_the_core_reads_in_half_the_words_it_took(unit):
    core, further = parts(unit, "en")
    print(f"{unit}: core {words(core)} words (before: {WORDS_BEFORE[unit]}), going further {words(further)}")
    assert words(core) <= 0.55 * WORDS_BEFORE[unit]


GUIDE_UNITS = {"theory 03": "theory03", "lab 01": "lab01", "lab 03": "lab03",
               "teoría 03": "theory03", "práctica 01": "lab01", "práctica 03": "lab03"}


@pytest.mark.parametrize("lang", LANGUAGES)
def test_the_instructor_guide_states_each_units_minutes_and_points(lang):
    """docs/<lang>/instructor.md's table says what the notebooks say."""
    guide = (ROOT / "docs" / lang / "instructor.md").read_text(encoding="utf-8")
    rows = {GUIDE_UNITS[cells[0]]: cells for cells in
            ([c.strip() for c in line.strip("|").split("|")] for line in guide.splitlines() if line.startswith("| "))
            if cells[0] in GUIDE_UNITS}
    assert sorted(rows) == sorted(UNITS)
    for unit, cells in rows.items():
        core, _ = parts(unit, lang)
        automatic = sum(c.metadata["nbgrader"]["points"] for c in core
                        if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "code")
        by_hand = sum(c.metadata["nbgrader"]["points"] for c in core
                      if c.metadata.get("nbgrader", {}).get("grade") and c.cell_type == "markdown")
        minutes = int(re.search(ANNOUNCED[lang], core[0].source).group(1))
        assert (cells[1], cells[2]) == (str(minutes), f"{automatic:g} / {by_hand:g}"), (unit, cells)
