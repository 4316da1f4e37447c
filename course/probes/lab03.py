"""Cases of lab 03's hidden test: expressions handed to the student's gradcheck.

Every expression is drawn at grading time: a small random graph over 2 to 4
inputs (minigrad's own operations, inputs reused by later nodes), and in some
cases one node whose backward is wrong in one way (a sign, `=` for `+=`, a
factor, swapped operands) on one of its inputs. Each is built as a closure over
the drawn description, the same code for every case, so neither its code nor
its name tells a correct expression from a wrong one: only computing the two
gradients does. The cases also draw the tolerances (some at a border, some
tight with a larger eps, where a forward difference is off), stale gradients
and an unused input. The probe records what the student's gradcheck did
(returned True / raised, with the message; the inputs' data before and after);
it knows no answer: the grader rebuilds each expression and decides.
"""
import cmath

from course.breakit import broken_sub, sub_gradients
from course.bughunt import VISIBLE, answer, engine, leaky_gate
from course.expressions import survey
from course.mutants import MUTANTS, caught, decidable, failing_expressions
from course.probes import Probe, prediction
from course.strict import mypy_strict
from minigrad import Value

UNARY = ("tanh", "exp", "square", "logsq", "relu", "cube")
BINARY = ("+", "-", "*", "div")
BUGS = ("sign", "assign", "factor", "swap")  # what the wrong node's backward does on one input


def _apply(op, x, y):
    if op == "+":
        return x + y
    if op == "-":
        return x - y
    if op == "*":
        return x * y
    if op == "div":
        return x / (y * y + 1.0)
    if op == "tanh":
        return x.tanh()
    if op == "exp":
        return (x * 0.5).exp()
    if op == "square":
        return x ** 2
    if op == "cube":
        return x ** 3
    if op == "logsq":
        return (x * x + 1.0).log()
    return x.relu()


def _wrong_mul(x, y, kind, slot, factor):
    """x * y whose backward is wrong on input `slot` in the way `kind` says."""
    out = Value(x.data * y.data, (x, y), "*")
    inputs = (x, y)

    def backward():
        for i, node in enumerate(inputs):
            right = inputs[1 - i].data * out.grad
            if i != slot:
                node.grad += right
            elif kind == "sign":
                node.grad -= right
            elif kind == "assign":
                node.grad = right
            elif kind == "factor":
                node.grad += factor * right
            else:  # swap: its own value instead of the other operand's
                node.grad += node.data * out.grad
    out._backward = backward
    return out


def build(description):
    """The expression f(*inputs) a case describes: [n_inputs, nodes, wrong], where each node
    is [op, i, j] over the values so far (inputs first) and `wrong` is [] or
    [node, kind, slot, factor] (that node is a product with a wrong backward)."""
    _, nodes, wrong = description

    def f(*inputs):
        values = list(inputs)
        for k, (op, i, j) in enumerate(nodes):
            if wrong and wrong[0] == k:
                values.append(_wrong_mul(values[i], values[j], *wrong[1:]))
            else:
                values.append(_apply(op, values[i], values[j]))
        return values[-1] * values[-2] if len(nodes) > 1 else values[-1]
    return f


def _draw_description(rng, n_inputs, wrong):
    nodes = []
    for k in range(rng.randint(2, 4)):
        size = n_inputs + k
        # every input is used by some node, and the last nodes reuse earlier values
        i = k if k < n_inputs else rng.randrange(size)
        j = rng.randrange(size)
        op = rng.choice(BINARY + UNARY)
        nodes.append([op, i, j])
    for extra in range(len(nodes), n_inputs):  # inputs no node reached yet
        nodes.append([rng.choice(BINARY), extra, rng.randrange(n_inputs + len(nodes))])
    bug = []
    if wrong:
        k = rng.randrange(len(nodes))
        nodes[k][0] = "*"
        bug = [k, rng.choice(BUGS), rng.randrange(2), rng.choice((0.5, 1.5, 3.0))]
    return [n_inputs, nodes, bug]


def _point(rng, n):
    return [round(rng.uniform(0.4, 1.6) * rng.choice((-1, 1)), 3) for _ in range(n)]


def cases(rng):
    """[description, point, [eps, atol, rtol], stale .grad, unused input] for each case."""
    default = [1e-5, 1e-4, 1e-3]
    drawn = []
    for wrong in [False] * 6 + [True] * 8:
        n = rng.randint(2, 4)
        drawn.append([_draw_description(rng, n, wrong), _point(rng, n), default, 0.0, 0])
    for _ in range(3):  # tight, with a larger eps: a central difference passes, a forward one does not
        n = rng.randint(2, 3)
        drawn.append([_draw_description(rng, n, False), _point(rng, n), [1e-3, 1e-6, 1e-5], 0.0, 0])
    # x * x with one side's gradient off by a factor 1 + off: 0.7 of the error fails, 1.4 of it passes
    for scale in (0.7, 1.4):
        off = round(rng.uniform(0.01, 0.03), 4)
        drawn.append([[1, [["*", 0, 0]], [0, "factor", rng.randrange(2), 1 + off]], _point(rng, 1),
                      [1e-5, 0.0, round(off / 2 * scale, 6)], 0.0, 0])  # relative error off/2
        drawn.append([[1, [["*", 0, 0]], [0, "factor", rng.randrange(2), 1 + off]], [1.0],
                      [1e-5, round(off * scale, 6), 0.0], 0.0, 0])  # absolute error off at 1
    for stale in (100.0, 7.0):  # stale .grad values before the call, also on an unused input
        n = rng.randint(2, 3)
        drawn.append([_draw_description(rng, n, False), _point(rng, n), default, stale, 1])
    rng.shuffle(drawn)
    return drawn


def expression(case):
    """The callable and the input values of a case (an unused input, if any, comes last)."""
    description, point, _, _, unused = case
    f = build(description)
    if unused:
        return (lambda *inputs: f(*inputs[:-1])), point + [0.0]
    return f, point


def call(objects, case):
    """[outcome, message, data before, data after] for one case."""
    gradcheck = objects[0]
    f, point = expression(case)
    (eps, atol, rtol), stale = case[2], case[3]
    inputs = tuple(Value(x) for x in point)
    for x in inputs:
        x.grad = stale
    before = [x.data for x in inputs]
    try:
        result = gradcheck(f, inputs, eps=eps, atol=atol, rtol=rtol)
        outcome, message = ("True", "") if result is True else ("returned", repr(result)[:80])
    except AssertionError as error:
        outcome, message = "AssertionError", str(error)[:300]
    except Exception as error:  # noqa: BLE001 (the student's code may raise anything)
        outcome, message = type(error).__name__, str(error)[:300]
    return [outcome, message, before, [x.data for x in inputs]]


def annotations(objects, case):
    """What `mypy --strict` says about the student's gradcheck: [] when nothing."""
    return mypy_strict(objects[0])


def battery_call(objects, case):
    """[expressions failing on minigrad's engine, [[mutant, caught 0/1], ...]] for the student's
    battery (EXPRESSIONS and MORE_EXPRESSIONS) and gradcheck."""
    gradcheck, more, given = objects
    battery = [tuple(entry[:3]) for entry in list(given) + list(more)]
    wrong = failing_expressions(gradcheck, battery, Value)
    return [wrong, [[m.name, int(caught(gradcheck, battery, m))] for m in decidable()]]


# ---- a test per operation (EXPRESSIONS): the composites recognised at points drawn here ----


def composite_points(rng):
    """[[points of 2 inputs], [points of 3 inputs]]: b + 1 away from 0, a*b + c of both signs."""
    pairs = []
    while len(pairs) < 3:
        a, b = round(rng.uniform(-2, 2), 3), round(rng.uniform(-2, 2), 3)
        if abs(b + 1) > 0.2:
            pairs.append([a, b])
    triples = []
    while len(triples) < 4:  # relu's input negative, positive, negative, positive
        a, b, c = (round(rng.uniform(-2, 2), 3) for _ in range(3))
        if abs(a * b + c) > 0.1 and (a * b + c > 0) == (len(triples) % 2 == 1):
            triples.append([a, b, c])
    return [[pairs, triples]]


def expressions_call(objects, case):
    """What course.expressions.survey finds in the student's EXPRESSIONS (with their gradcheck)."""
    return survey(objects[0], objects[1], {2: case[0], 3: case[1]})


# ---- break __sub__ yourself: the student's rule inside broken_sub ----


def break_cases(rng):
    return [[round(rng.uniform(-3, 3), 3), round(rng.uniform(-3, 3), 3), round(rng.uniform(1.5, 3), 3)
             * rng.choice((-1, 1))] for _ in range(3)]


def break_call(objects, case):
    """[[a.grad, c.grad] of (a - c) * k with the student's rule, what their gradcheck said of a - c
    with it]."""
    rule, gradcheck = objects
    a, c, k = case
    grads = sub_gradients(rule, a, c, k)
    with broken_sub(rule):
        try:
            result = gradcheck(lambda x, y: x - y, (Value(a), Value(c)))
            said = "True" if result is True else f"returned {result!r}"[:80]
        except Exception as error:  # noqa: BLE001 (the student's gradcheck may raise anything)
            said = f"{type(error).__name__}: {error}"[:300]
    return [grads, said]


# ---- bonus: the complex-step derivative of plain functions (complex arguments, via cmath) ----

FUNCTIONS = {
    "sin": cmath.sin,
    "exp_sin": lambda z: cmath.exp(cmath.sin(z)),
    "tanh": lambda z: cmath.tanh(2 * z - 0.5),
    "rational": lambda z: z ** 3 / (1 + z * z),
    "log": lambda z: cmath.log(z * z + 1),
}


def complex_cases(rng):
    return [[name, round(rng.uniform(-2.0, 2.0), 3)] for name in FUNCTIONS for _ in range(2)]


def complex_call(objects, case):
    name, x = case
    return objects[0](FUNCTIONS[name], x)


# ---- the bug hunt: the student's hunt(Value) on engines drawn at grading time ----


def hunt_cases(rng):
    """Seven engines: minigrad's own, relu leaking `slope` of the gradient at negative inputs (a
    slope drawn here, so in no table), and one mutant of course/mutants.py of each kind a hunt
    must handle, never one of the visible test's: `=` for `+=`, a missing `* out.grad`, a right
    operand's rule, an operation the visible test never breaks, and one more of any kind."""
    pool = [m for m in decidable() if m not in VISIBLE]
    kinds = [lambda m: m.kind == "= for +=", lambda m: m.kind == "missing * out.grad",
             lambda m: m.old.startswith("other.") and m.kind != "wrong input",
             lambda m: m.method in ("__add__", "__sub__", "__pow__", "log"), lambda m: True]
    drawn = [["none", 0], ["leaky", round(rng.uniform(0.05, 0.5), 3)]]
    for kind in kinds:
        mutant = rng.choice([m for m in pool if kind(m)])
        pool.remove(mutant)
        drawn.append(["mutant", MUTANTS.index(mutant)])
    rng.shuffle(drawn)
    return drawn


def hunt_mutant(case):
    """The mutant a hunt case builds its engine from (None: minigrad's own engine)."""
    what, value = case
    if what == "mutant":
        return MUTANTS[value]
    return leaky_gate(value) if what == "leaky" else None


def hunt_call(objects, case):
    """What the student's hunt answered for the case's engine (course.bughunt.answer)."""
    return answer(objects[0], engine(hunt_mutant(case)))


# ---- the prediction of the best eps in float32: the number the student wrote ----


def eps_call(objects, case):
    return objects[0]


PROBES = {
    "lab03-expressions": Probe("lab03-expressions", composite_points, call=expressions_call),
    "lab03-break": Probe("lab03-break", break_cases, call=break_call),
    "lab03-predict-sub": prediction("lab03-predict-sub"),
    "lab03-predict-blind": prediction("lab03-predict-blind"),
    "lab03-eps-float32": Probe("lab03-eps-float32", lambda rng: [["float32"]], call=eps_call),
    "lab03-bonus-complex": Probe("lab03-bonus-complex", complex_cases, call=complex_call),
    "lab03-gradcheck": Probe("lab03-gradcheck", cases, call=call),
    "lab03-annotations": Probe("lab03-annotations", lambda rng: [["signature"]], call=annotations),
    "lab03-battery": Probe("lab03-battery", lambda rng: [["battery"]], call=battery_call),
    "lab03-hunt": Probe("lab03-hunt", hunt_cases, call=hunt_call),
    "lab03-hunt-input": Probe("lab03-hunt-input", hunt_cases, call=hunt_call),
}
