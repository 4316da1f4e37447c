"""The course's Spanish follows its glossary: no word of the glossary's "Words we do not use" table
appears in any Spanish text a student, an instructor or an author reads (the units' masters, the
messages, docs/es/, README.es.md), and Spanish prose writes decimals with a comma."""
import re
from pathlib import Path

import pytest

from authoring.masters import for_language, read_master
from course.i18n import MESSAGES

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = ROOT / "docs" / "glossary.md"


def forbidden_patterns(prose_only=False):
    """[(compiled pattern, what to write instead)] from the glossary's table of words we do not use:
    those marked "prose:" when `prose_only`, the others otherwise."""
    text = GLOSSARY.read_text(encoding="utf-8")
    table = text.split("## Words we do not use", 1)[1]
    rows = []
    for line in table.splitlines():
        match = re.match(r"\| (prose: )?`(.+?)` \| (.+?) \|", line.replace(r"\|", "\x00"))
        if match and bool(match.group(1)) == prose_only:
            pattern = match.group(2).replace("\x00", "|")
            rows.append((re.compile(pattern, re.IGNORECASE), match.group(3).replace("\x00", "|")))
    return rows


def spanish_texts():
    """{where: text} for every Spanish text of the course."""
    texts = {}
    for master in sorted((ROOT / "notebooks").glob("*.md")):
        nb = for_language(read_master(master), "es", master.stem)
        for number, cell in enumerate(nb.cells):
            texts[f"notebooks/{master.name} (es), cell {number} ({cell.cell_type})"] = cell.source
    for key, message in MESSAGES.items():
        texts[f"course/i18n.py, {key}"] = message["es"]
    for path in [ROOT / "README.es.md", *sorted((ROOT / "docs" / "es").glob("*.md"))]:
        texts[str(path.relative_to(ROOT))] = path.read_text(encoding="utf-8")
    return texts


def prose(markdown):
    """Markdown without what is not prose: code blocks, code spans, math, link targets, HTML."""
    markdown = re.sub(r"^(```|~~~).*?^\1", " ", markdown, flags=re.DOTALL | re.MULTILINE)
    markdown = re.sub(r"^( {4}|\t).*$", " ", markdown, flags=re.MULTILINE)
    markdown = re.sub(r"`[^`]*`", " ", markdown)
    markdown = re.sub(r"\$\$.*?\$\$|\$[^$\n]*\$", " ", markdown, flags=re.DOTALL)
    markdown = re.sub(r"\]\([^)]*\)|<[^>]*>|https?://\S+", " ", markdown)
    return markdown


# a number written with a point: 1.5, 0.25, 3.000, 1.2e-1 (Spanish prose writes 1,5, 3000 or 3 000 and
# 1,2e-1); versions (2.13.0, Python 3.11, LTI 1.3, Kubernetes (1.28 o posterior), WCAG 2.1, JupyterLab 4.5,
# JupyterHub 6.1) are names, not numbers
DECIMAL_POINT = re.compile(r"(?<![\w.])(?<!Python )(?<!LTI )(?<!Kubernetes \()(?<!WCAG )(?<!JupyterLab )(?<!JupyterHub )"
                           r"\d+\.\d+(e[-+]?\d+)?(?![\w.])")
# a number of five digits or more, ungrouped (Spanish prose writes 65 504 and 38 400)
# (an id is a name: «estudiante 12345», «Student 12345», an issue's number «jupyterlab#16891»)
UNGROUPED = re.compile(r"(?<![\w.,/:#-])(?<!estudiante )(?<!Student )\d{5,}(?![\w.,/-])")
# an English word in a formula's \text{} (\text{at} where a Spanish formula says \text{en})
# (d_\text{in} and d_\text{out} are the names the code uses, d_in and d_out)
ENGLISH_IN_MATH = re.compile(r"\\text\{\s*(at|and|or|for|with|where|if|of|the|to|is)\s*\}")


def violations(texts, patterns):
    found = []
    for where, text in texts.items():
        for pattern, instead in patterns:
            for match in pattern.finditer(text):
                found.append(f"{where}: «{match.group(0)}» (write: {instead})")
    return found


def decimal_points(texts):
    found = []
    for where, text in texts.items():
        if "(code)" in where:
            continue
        for match in DECIMAL_POINT.finditer(prose(text)):
            found.append(f"{where}: {match.group(0)} (Spanish prose writes a decimal comma, and groups "
                         "thousands with a space or not at all)")
    return found


def number_and_math_style(texts):
    """Ungrouped numbers of five digits or more in prose, English words in a formula's \\text{}."""
    found = []
    for where, text in texts.items():
        if "(code)" in where:
            continue
        found += [f"{where}: {m.group(0)} (write 65 504: a space every three digits)"
                  for m in UNGROUPED.finditer(prose(text))]
        found += [f"{where}: {m.group(0)} (a Spanish formula's words are Spanish)"
                  for m in ENGLISH_IN_MATH.finditer(text)]
    return found


def prose_violations(texts):
    """The glossary's prose-only words, in prose (code, commands and math left out)."""
    return violations({where: prose(text) for where, text in texts.items() if "(code)" not in where},
                      forbidden_patterns(prose_only=True))


def test_the_glossary_table_is_read_and_catches_what_it_names():
    patterns = forbidden_patterns()
    assert len(patterns) >= 15, patterns
    samples = {"al corregir se sortean otras": "sorte", "el backward de la suma": "backward",
               "los núcleos que deja un trabajador muerto": "núcleo",
               "solo una diferencia central es bastante precisa": "bastante precisa",
               "aproximaciones demasiado groseras": "groseras",
               "el motor que sorteó": "sorteó", "la condición de parada": "condición de parada"}
    for sample, word in samples.items():
        found = violations({"sample": sample}, patterns)
        assert found and word in found[0], (sample, found)
    allowed = ["un servidor de 32 núcleos", "2 núcleos de CPU", "lo bastante precisa", "un kernel",
               "la pasada hacia atrás", "el método `backward()`"]
    for sample in allowed:
        assert not violations({"sample": sample}, patterns), sample


def test_no_spanish_text_uses_a_word_the_glossary_rules_out():
    found = violations(spanish_texts(), forbidden_patterns())
    print(f"{len(spanish_texts())} Spanish texts read, {len(found)} words the glossary rules out")
    assert not found, "\n".join(found)


@pytest.mark.parametrize("sample, bad", [("un error de 1.5 veces", True), ("un error de 1,5 veces", False),
                                         ("la versión 2.13.0", False), ("3.000 estudiantes", True),
                                         ("Python 3.11", False), ("3000 estudiantes", False), ("`x = 0.5`", False),
                                         ("$\\varepsilon = 10^{-3.5}$", False), ("las WCAG 2.1", False),
                                         ("JupyterLab 4.5", False), ("en 4.5 segundos", True)])
def test_the_decimal_rule_tells_a_point_from_a_comma(sample, bad):
    assert bool(decimal_points({"sample (markdown)": sample})) is bad


def test_spanish_prose_writes_decimals_with_a_comma():
    found = decimal_points(spanish_texts())
    assert not found, "\n".join(found)


@pytest.mark.parametrize("sample, bad", [("un error de 1.2e-1", True), ("un error de 1,2e-1", False),
                                         ("65504 es el mayor", True), ("65 504 es el mayor", False),
                                         ("el puerto 8000", False), ("`65504`", False),
                                         ("$L \\text{at} a = 2$", True), ("$L \\text{en} a = 2$", False),
                                         ("con lab 01", True), ("con la práctica 01", False),
                                         ("`python -m course lab es`", False), ("| lab/01 |", False),
                                         ("[jupyterlab#16891](https://x)", False)])
def test_the_number_math_and_prose_rules_tell_right_from_wrong(sample, bad):
    texts = {"sample (markdown)": sample}
    assert bool(decimal_points(texts) + number_and_math_style(texts) + prose_violations(texts)) is bad, sample


def test_spanish_groups_long_numbers_and_writes_formulas_in_spanish():
    found = number_and_math_style(spanish_texts())
    assert not found, "\n".join(found)


def test_spanish_prose_says_practica_for_a_lab():
    found = prose_violations(spanish_texts())
    assert not found, "\n".join(found)
