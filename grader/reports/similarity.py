"""Similarity hints: answer cells that are identical, or nearly, across students.

A hint, never a verdict: short answers coincide in honest work, students may
work together as allowed, and a shared mistake is not a copy. The instructor
reads the cells and decides. Comments and blank space are ignored, so renaming
nothing and re-spacing a copy does not hide it; the release's own stub and
answers shorter than MIN_CHARS are left out.
"""
import difflib
import io
import tokenize
from collections import defaultdict

MIN_CHARS = 40  # an answer shorter than this (comments and spaces aside) is not compared
NEAR = 0.9  # difflib's ratio from which two answers are "nearly identical"


def normalized(source):
    """The code without comments and with one space between tokens (the text as it
    is, where it does not tokenize)."""
    try:
        tokens = [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline)
                  if t.type not in (tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE,
                                    tokenize.INDENT, tokenize.DEDENT, tokenize.ENDMARKER)]
        return " ".join(tokens)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return " ".join(source.split())


def groups(answers, stub=""):
    """`answers`: {student: source} for one question. Returns [(students, ratio)], one
    per group of alike answers, most alike first: ratio 1.0 for identical answers
    (comments and spacing aside), else the lowest ratio that joined the group."""
    texts = {s: normalized(a) for s, a in answers.items()}
    left_out = normalized(stub)
    texts = {s: t for s, t in texts.items() if len(t.replace(" ", "")) >= MIN_CHARS and t != left_out}
    same = defaultdict(list)
    for student, text in sorted(texts.items()):
        same[text].append(student)
    # near-identical: compare one answer of each distinct text (union-find over texts)
    distinct = sorted(same)
    parent = {t: t for t in distinct}
    ratio = {t: 1.0 for t in distinct}

    def top(t):
        while parent[t] != t:
            t = parent[t]
        return t

    for i, a in enumerate(distinct):
        matcher = difflib.SequenceMatcher(None, a, autojunk=False)
        for b in distinct[i + 1:]:
            matcher.set_seq2(b)
            if matcher.real_quick_ratio() < NEAR or matcher.quick_ratio() < NEAR:
                continue
            r = matcher.ratio()
            if r >= NEAR:
                ra, rb = top(a), top(b)
                if ra != rb:
                    parent[rb] = ra
                    ratio[ra] = min(ratio[ra], ratio[rb], r)
    found = defaultdict(list)
    for text in distinct:
        found[top(text)].extend(same[text])
    result = [(sorted(students), ratio[root]) for root, students in found.items() if len(students) > 1]
    return sorted(result, key=lambda g: (-g[1], -len(g[0]), g[0]))


def answers_of(notebooks, grade_ids):
    """{grade_id: {student: source}} from {student: notebook} (the answer cells)."""
    found = {grade_id: {} for grade_id in grade_ids}
    for student, nb in notebooks.items():
        for cell in nb.cells:
            grade_id = cell.metadata.get("nbgrader", {}).get("grade_id")
            if grade_id in found and cell.cell_type == "code":
                found[grade_id][student] = cell.source
    return found
