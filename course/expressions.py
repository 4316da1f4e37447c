"""Lab 03's test per operation: what a student's EXPRESSIONS must hold.

    report = survey(EXPRESSIONS, gradcheck, POINTS)      # in the kernel: plain data
    problem = expressions_problem(report, POINTS, "en")  # None, or what is missing

EXPRESSIONS is a list of (name, f, point): at least one expression per operation of
minigrad, and the three composites of the original notes, each at a point where its
derivative exists. `survey` computes, for each entry, with minigrad's own engine, the
operations of its graph, its values at the given points (to recognise the composites), the
central difference and the backward gradient of each input, and what the student's gradcheck
said of it. `expressions_problem` judges that report: the visible test calls it at POINTS,
and the grader at points drawn when it grades (course/probes/lab03.py). It knows no answer:
the composites' formulas are in the notebook.
"""
import math

from course.bughunt import OPERATIONS, operation_of
from course.i18n import say
from minigrad import Value

# the composites, as the notebook writes them: number of inputs, formula on plain numbers
COMPOSITES = {
    "(a*b + c) * (a - c)": (3, lambda a, b, c: (a * b + c) * (a - c)),
    "relu(a*b + c)": (3, lambda a, b, c: max(a * b + c, 0.0)),
    "a / (b + 1.0)": (2, lambda a, b: a / (b + 1.0)),
}
# where the visible test recognises them: a*b + c of both signs, b + 1 away from 0
POINTS = {2: [[0.7, 1.3], [-1.1, 0.4], [1.9, -0.6]],
          3: [[0.7, 1.3, -0.2], [-1.1, 0.4, 0.9], [1.2, -0.6, -0.5]]}


def survey(expressions, gradcheck, points):
    """[[name, operations, values at points[n], [[numerical, backward] per input], what gradcheck
    said], ...] for a list of (name, f, point); ["shape", repr] for an entry of another shape,
    ["error", name, message] for one whose computation raises."""
    return [_entry(entry, gradcheck, points) for entry in list(expressions)[:100]]


def _entry(entry, gradcheck, points):
    if not (isinstance(entry, (tuple, list)) and len(entry) == 3 and callable(entry[1])
            and isinstance(entry[2], (tuple, list)) and 1 <= len(entry[2]) <= 4
            and all(isinstance(x, (int, float)) and not isinstance(x, bool) for x in entry[2])):
        return ["shape", repr(entry)[:80]]
    name, f, point = str(entry[0])[:60], entry[1], [float(x) for x in entry[2]]
    try:
        inputs = [Value(x) for x in point]
        root = f(*inputs)
        if not isinstance(root, Value):
            return ["error", name, f"f returned {type(root).__name__}, not a Value"]
        operations = sorted(_operations(root))
        values = [f(*[Value(x) for x in p]).data for p in points.get(len(point), [])]
        root.backward()
        grads = [[_central(f, point, i), x.grad] for i, x in enumerate(inputs)]
    except Exception as error:  # noqa: BLE001 (the student's expression may raise anything)
        return ["error", name, f"{type(error).__name__}: {error}"[:160]]
    return [name, operations, values, grads, _said(gradcheck, f, point)]


def _operations(root):
    reached, stack = {id(root)}, [root]
    found = set()
    while stack:
        node = stack.pop()
        found.add(operation_of(node._op))
        for input_ in node._inputs:
            if id(input_) not in reached:
                reached.add(id(input_))
                stack.append(input_)
    return found - {None}


def _central(f, point, i, eps=1e-5):
    moved = [[x + s * eps * (j == i) for j, x in enumerate(point)] for s in (1, -1)]
    return (f(*map(Value, moved[0])).data - f(*map(Value, moved[1])).data) / (2 * eps)


def _said(gradcheck, f, point):
    try:
        result = gradcheck(f, tuple(Value(x) for x in point))
    except Exception as error:  # noqa: BLE001 (the student's gradcheck may raise anything)
        return f"{type(error).__name__}: {error}"[:200]
    return "True" if result is True else f"returned {result!r}"[:80]


def expressions_problem(report, points, lang):
    """What is wrong with the report `survey` gave at `points`, in `lang`; None when nothing."""
    if not isinstance(report, list) or not report:
        return say("lab03_expressions_empty", lang)
    names = []
    for entry in report:
        if not (isinstance(entry, list) and len(entry) == 5):  # ["shape", repr] or ["error", name, message]
            what = entry[1:] if isinstance(entry, list) else [entry]
            key = "lab03_expressions_error" if isinstance(entry, list) and entry[:1] == ["error"] \
                else "lab03_expressions_shape"
            return say(key, lang, got=": ".join(map(str, what))[:200])
        name, _, _, grads, said = entry
        if said != "True":
            return say("lab03_expressions_gradcheck", lang, name=name, said=str(said)[:200])
        for num, analytic in grads:
            if not abs(num - analytic) <= 1e-4 + 1e-3 * abs(num):
                return say("lab03_expressions_point", lang, name=name, num=f"{num:.6g}", analytic=f"{analytic:.6g}")
        names.append(name)
    covered = set().union(*(set(entry[1]) for entry in report))
    missing = [op for op in OPERATIONS.values() if op not in covered]
    if missing:
        return say("lab03_expressions_missing", lang, ops=", ".join(missing))
    absent = [formula for formula, (n, reference) in COMPOSITES.items()
              if not any(_same(entry[2], [reference(*p) for p in points.get(n, [])]) for entry in report)]
    if absent:
        return say("lab03_expressions_composite", lang, formulas="; ".join(absent))
    return None


def _same(values, want):
    return (isinstance(values, list) and len(values) == len(want) > 0
            and all(isinstance(v, float) and math.isclose(v, w, rel_tol=1e-9, abs_tol=1e-12)
                    for v, w in zip(values, want)))
