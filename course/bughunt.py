"""Lab 03's bug hunt: a minigrad engine with one backward rule silently wrong.

    suspect = suspect_engine()      # a `Value` class; which rule is wrong is not said
    hunt(suspect)                   # the student's: ("*", 1), say, or None for "no bug"
    confirm(suspect, hunt(suspect))

`suspect_engine()` draws one decidable mutant of course/mutants.py each time it is
called (under `python -m authoring build`, which sets COURSE_BUILD, the same one every
build, so that two builds write the same notebook). Every engine here, the right one included,
is built the same way (`engine`, course/mutants.py's `engine_class`): a class named `Value` in a
module named `minigrad.engine`, compiled from a file named `<minigrad>`, with no attribute that
holds the mutant. So its name, its repr and its module tell nothing; only computing gradients does.

An answer must be tied to gradients of the engine it was given. `answer` records every backward
pass the hunt runs through that class (the graph: each node's operation, inputs and value; each
leaf's .grad before and after), and `passes` rebuilds each recorded graph with minigrad's own
engine and says which passes came out right and which wrong. An answer (operation, input) earns
its points only when some pass that came out wrong contains that operation and every other
operation of that pass came out right in some pass ("cleared"); None only when all eight
operations came out right in some pass. A hunt that ran no pass, or built engines from
course/mutants.py's table, earns nothing. The visible tests apply the rule in the kernel; the
grader applies it again, in its own process, to the same evidence (grader/checks/lab03.py).

An answer names the operation (one of OPERATIONS) and the input whose gradient is
wrong: 0 for the left operand (`self`), 1 for the right one (`other`); a unary
operation has only input 0. `culprit(mutant)` is the right answer, `mistake(...)`
what is wrong with an answer: the notebook's visible test and the grader use both.
"""
import math
import os
import random
import weakref

from course import mutants
from course.i18n import say
from course.mutants import MUTANTS, OPERATIONS, Mutant, decidable, engine_class

_RELU = next(m.old for m in MUTANTS if m.method == "relu")


# every engine, the right one included, is built the same way: anonymous (course/mutants.py)
engine = engine_class


def leaky_gate(slope):
    """relu whose backward lets `slope` of the gradient through at negative inputs: wrong only there."""
    return Mutant("relu", "leaky gate", _RELU, f"self.grad += (1.0 if self.data > 0 else {slope!r}) * out.grad")


def culprit(mutant):
    """(operation, inputs whose gradient is wrong) for `mutant`; None for the right engine.
    A gradient sent to the wrong input makes both inputs wrong: either is accepted."""
    if mutant is None:
        return None
    if mutant.kind == "wrong input":
        return OPERATIONS[mutant.method], (0, 1)
    return OPERATIONS[mutant.method], (1,) if mutant.old.startswith("other.") else (0,)


# the visible test's engines, four kinds of bug (grading draws others of each kind)
VISIBLE = tuple(next(m for m in MUTANTS if (m.method, m.kind, m.new) == key) for key in (
    ("__mul__", "swapped operands", "other.grad += other.data * out.grad"),
    ("tanh", "missing * out.grad", "self.grad += (1.0 - t * t)"),
    ("exp", "= for +=", "self.grad = out.data * out.grad"),
    ("relu", "dropped factor", "self.grad += out.grad"),
))
_drawn = weakref.WeakKeyDictionary()  # suspect class -> its culprit, for `confirm` only


def suspect_engine():
    """A `Value` class with one backward rule wrong, drawn at random on every call (the same one
    every time under the build, so that the built notebook is the same from one build to the next)."""
    draw = random.Random(os.environ["COURSE_BUILD"]) if "COURSE_BUILD" in os.environ else random.SystemRandom()
    mutant = draw.choice(decidable())
    suspect = engine(mutant)
    _drawn[suspect] = culprit(mutant)
    return suspect


def visible_engines():
    """[(Value class, its culprit)]: the right engine first (a false alarm is named as such), then
    the visible test's four mutants."""
    return [(engine(), None)] + [(engine(m), culprit(m)) for m in VISIBLE]


# what `answer` records of one hunt: enough for a real hunt (a dozen passes of a dozen nodes), and a
# bound on the evidence of a hunt that loops (grader/checks/lab03.py declares its size)
MAX_PASSES = 100  # backward passes recorded per engine; later ones are counted only
MAX_NODES = 60    # nodes of one recorded graph; a larger graph is counted only


def answer(hunt, value_class):
    """What `hunt(value_class)` did, as plain data: [what it returned, how many backward passes
    it ran through `value_class` on graphs it built, how many engines it built from
    course/mutants.py, the passes it ran (`_recording_backward`)]. What it returned:
    ["answer", operation, input], ["none"], ["returned", repr] for any other shape, or
    ["raised", error type, message]."""
    passes, records = _recording_backward(value_class)
    before = mutants.built[0]
    returned = _returned(hunt, value_class)
    return [returned, passes[0], mutants.built[0] - before, records]


def _engine_rules(value_class):
    """The code of every `_backward` the class's own operations make (and a leaf's): a node whose
    backward is other code was not made by the engine, and its pass says nothing of it."""
    codes = {value_class(0.0)._backward.__code__}
    for name in OPERATIONS:
        method = getattr(value_class, name, None)
        codes |= {c for c in getattr(getattr(method, "__code__", None), "co_consts", ()) if hasattr(c, "co_code")}
    return codes


def _recording_backward(value_class):
    """Make `value_class.backward` count its calls on a graph (a node with inputs) and record
    each: [[op, [input positions], value] per node in creation order, [[position, .grad before,
    .grad after] per leaf]]. A graph with a node the engine did not make is recorded as
    ["foreign"]; one over MAX_NODES nodes as ["large"]. (the counter, the records)"""
    passes, records = [0], []
    backward, rules = value_class.backward, _engine_rules(value_class)

    def recorded(self):
        if not self._inputs:
            return backward(self)
        passes[0] += 1
        nodes = _graph(self) if len(records) < MAX_PASSES else None
        if nodes is None or len(nodes) > MAX_NODES:
            if nodes is not None:
                records.append(["large"])
            return backward(self)
        if any(getattr(n._backward, "__code__", None) not in rules for n in nodes):
            records.append(["foreign"])
            return backward(self)
        position = {id(n): p for p, n in enumerate(nodes)}
        leaves = [(p, n, n.grad) for p, n in enumerate(nodes) if not n._inputs]
        described = [[str(n._op)[:20], [position[id(i)] for i in n._inputs], n.data] for n in nodes]
        result = backward(self)  # a pass that raises is not recorded: it came out neither way
        records.append([described, [[p, before, n.grad] for p, n, before in leaves]])
        return result
    value_class.backward = recorded
    return passes, records


def _graph(root):
    """The nodes `root` depends on, itself included, in creation order; MAX_NODES + 1 of them at
    most (a larger graph is not recorded, and not searched further)."""
    reached, stack = {id(root): root}, [root]
    while stack and len(reached) <= MAX_NODES:
        for node in stack.pop()._inputs:
            if id(node) not in reached:
                reached[id(node)] = node
                stack.append(node)
    return sorted(reached.values(), key=lambda n: n._number)


# ---- which recorded passes came out right: the graph rebuilt with minigrad's own engine ----


def operation_of(label):
    """The operation a node's label names ('**3' is '**'), or None (a leaf, or no operation)."""
    if not isinstance(label, str):
        return None
    return "**" if label.startswith("**") else label if label in OPERATIONS.values() else None


def _rebuilt(nodes, Value):
    """The recorded graph `nodes` made again with the class `Value`, or None when it is not a
    graph of these operations whose values come out as recorded."""
    built = []
    for op, inputs, data in nodes:
        if not (isinstance(inputs, list) and all(isinstance(i, (int, float)) and float(i).is_integer()
                                                 and 0 <= i < len(built) for i in inputs)):
            return None
        args = [built[int(i)] for i in inputs]
        kind = operation_of(op)
        if not args:
            node = Value(data)
        elif kind in ("+", "*", "-") and len(args) == 2:
            node = {"+": args[0].__add__, "*": args[0].__mul__, "-": args[0].__sub__}[kind](args[1])
        elif kind == "**" and len(args) == 1:
            exponent = float(op[2:])
            node = args[0] ** (int(exponent) if exponent.is_integer() else exponent)
        elif kind in ("exp", "log", "tanh", "relu") and len(args) == 1:
            node = getattr(args[0], kind)()
        else:
            return None
        if node.data != data:  # also NaN: a value that cannot be checked
            return None
        built.append(node)
    return built


def judged(records, Value):
    """[(operations of the pass, whether it came out right)] for every recorded pass that
    `Value`, a trusted engine, rebuilds: right when each leaf's .grad after the pass is what
    the trusted engine's backward gives from the same .grad before."""
    found = []
    for record in records if isinstance(records, list) else []:
        try:
            nodes, leaves = record
            built = _rebuilt(nodes, Value)
            if not built or not built[-1]._inputs:
                continue
            grads = {}
            for position, before, after in leaves:
                built[int(position)].grad = float(before)
                grads[int(position)] = float(after)
            if sorted(grads) != [p for p, n in enumerate(built) if not n._inputs]:
                continue
            built[-1].backward()
        except (TypeError, ValueError, IndexError, ArithmeticError):
            continue  # not a pass of this engine's operations: it says nothing either way
        right = all(math.isclose(built[p].grad, after, rel_tol=1e-9, abs_tol=0.0) for p, after in grads.items())
        found.append(({operation_of(op) for op, _, _ in nodes} - {None}, right))
    return found


def untied(records, operation, lang):
    """Why the answer `operation` (None: no bug) is not tied to the recorded passes, or None:
    (operation) some pass that came out wrong holds it, and every other operation of that pass
    came out right in some pass; (None) every operation came out right in some pass."""
    from minigrad import Value
    verdicts = judged(records, Value)
    cleared = set().union(*(ops for ops, right in verdicts if right))
    shown = ", ".join(repr(op) for op in OPERATIONS.values() if op in cleared) or "-"
    if operation is None:
        if cleared >= set(OPERATIONS.values()):
            return None
        return say("lab03_hunt_untied_none", lang, cleared=shown)
    if any(operation in ops and ops - {operation} <= cleared for ops, right in verdicts if not right):
        return None
    wrong = sorted({op for ops, right in verdicts if not right for op in ops})
    return say("lab03_hunt_untied", lang, got=operation, cleared=shown,
               wrong=", ".join(map(repr, wrong)) or "-")


def _returned(hunt, value_class):
    try:
        got = hunt(value_class)
    except Exception as error:  # noqa: BLE001 (the student's code may raise anything)
        return ["raised", type(error).__name__, _text(str, error)[:200]]
    if got is None:
        return ["none"]
    if type(got) is tuple and len(got) == 2 and type(got[0]) is str and type(got[1]) is int:
        return ["answer", got[0][:20], got[1]]
    return ["returned", _text(repr, got)[:80]]


def _text(show, value):
    """`show(value)`, or the type's name when the student's object will not say."""
    try:
        return str(show(value))
    except Exception:  # noqa: BLE001 (a __str__ or __repr__ that raises)
        return type(value).__name__


def mistake(got, want, lang, need_input=True):
    """Why what a hunt did, `got` (from `answer`), earns nothing for `want` (a culprit), None when it
    is right: an answer looked up in course/mutants.py's table, found without one backward pass
    through the engine, or not tied to the passes it ran (`untied`), earns nothing however
    right. Without `need_input`, naming the right operation is enough."""
    if not (isinstance(got, list) and len(got) == 4 and all(isinstance(n, (int, float)) for n in got[1:3])):
        return say("lab03_hunt_shape", lang, got=repr(got)[:80])
    returned, passes, built, records = got
    if isinstance(returned, list) and returned[:1] == ["raised"]:
        return wrong_answer(returned, want, lang, need_input)
    if built:
        return say("lab03_hunt_lookup", lang, n=int(built))
    if not passes:
        return say("lab03_hunt_no_backward", lang)
    return wrong_answer(returned, want, lang, need_input) or untied(records, want and want[0], lang)


def wrong_answer(got, want, lang, need_input=True):
    """Why what a hunt returned, `got` (the first item of `answer`), is wrong for `want`."""
    if not isinstance(got, list) or not got:
        return say("lab03_hunt_shape", lang, got=repr(got)[:80])
    if got[0] == "raised":
        return say("lab03_hunt_raised", lang, error=got[1], message=got[2])
    if got[0] == "returned":
        return say("lab03_hunt_shape", lang, got=got[1])
    if got[0] == "answer" and isinstance(got[2], float) and got[2].is_integer():
        got = [*got[:2], int(got[2])]  # evidence carries numbers as floats
    if want is None:
        return None if got[0] == "none" else say("lab03_hunt_false_alarm", lang, got=tuple(got[1:]))
    operation, inputs = want
    if got[0] == "none":
        return say("lab03_hunt_missed", lang, op=operation)
    if got[1] not in OPERATIONS.values():
        return say("lab03_hunt_shape", lang, got=tuple(got[1:]))
    if got[1] != operation:
        return say("lab03_hunt_wrong_op", lang, got=got[1], op=operation)
    if need_input and got[2] not in inputs:
        return say("lab03_hunt_wrong_input", lang, op=operation, got=got[2], want=inputs[0])
    return None


def confirm(suspect, got):
    """Print whether `got` (what hunt returned) names `suspect`'s wrong rule, in the notebook's language."""
    from course.student import current_language
    lang = current_language()
    want = _drawn.get(suspect, "unknown")
    if want == "unknown":
        print(say("lab03_hunt_unknown", lang))
        return
    problem = wrong_answer(_returned(lambda _: got, suspect), want, lang)
    print(problem or say("lab03_hunt_right", lang, got=got))
