"""Lab 03's bug hunt: a minigrad engine with one backward rule silently wrong.

    suspect = suspect_engine()      # a `Value` class; which rule is wrong is not said
    hunt(suspect)                   # the student's: ("*", 1), say, or None for "no bug"
    confirm(suspect, hunt(suspect))

`suspect_engine()` draws one decidable mutant of course/mutants.py each time it is
called (under `python -m authoring build`, which sets COURSE_BUILD, the same one every
build, so that two builds write the same notebook). Every engine here, the right one included, is built the same way
(`engine`, course/mutants.py's `engine_class`): a class named `Value` in a module
named `minigrad.engine`, compiled from a file named `<minigrad>`, with no attribute
that holds the mutant. So its name, its repr and its module tell nothing; only computing gradients does. Its bytecode
can still be compared with minigrad's, and its gradients with each mutant's engine: `answer`
records how many backward passes the hunt ran through the class it was given and how many
engines it built from the table, and `mistake` gives nothing to a hunt that ran none or built any.

An answer names the operation (one of OPERATIONS) and the input whose gradient is
wrong: 0 for the left operand (`self`), 1 for the right one (`other`); a unary
operation has only input 0. `culprit(mutant)` is the right answer, `mistake(...)`
what is wrong with an answer: the notebook's visible test and the grader use both.
"""
import os
import random
import weakref

from course import mutants
from course.i18n import say
from course.mutants import MUTANTS, Mutant, decidable, engine_class

# minigrad's primitive operations as the student names them (the others are built from these:
# a / b is a * b ** -1, -a is a * -1)
OPERATIONS = {"__add__": "+", "__mul__": "*", "__sub__": "-", "__pow__": "**",
              "exp": "exp", "log": "log", "tanh": "tanh", "relu": "relu"}
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


# the visible test's engines: a right operand's rule, a rule below the root, an input used again,
# relu at a negative input (grading draws others of each kind)
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


def answer(hunt, value_class):
    """What `hunt(value_class)` did, as plain data: [what it returned, how many backward passes
    it ran through `value_class` on graphs it built, how many engines it built from
    course/mutants.py]. What it returned: ["answer", operation, input], ["none"], ["returned",
    repr] for any other shape, or ["raised", error type, message]."""
    passes = _counting_backward(value_class)
    before = mutants.built[0]
    returned = _returned(hunt, value_class)
    return [returned, passes[0], mutants.built[0] - before]


def _counting_backward(value_class):
    """Make `value_class.backward` count its calls on a graph (a node with inputs); the counter."""
    passes = [0]
    backward = value_class.backward

    def counted(self):
        if self._inputs:
            passes[0] += 1
        return backward(self)
    value_class.backward = counted
    return passes


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


def _named(operation, inputs):
    return f"{operation!r}, input {' or '.join(map(str, inputs))}"


def mistake(got, want, lang, need_input=True):
    """Why what a hunt did, `got` (from `answer`), earns nothing for `want` (a culprit), None when it
    is right: an answer looked up in course/mutants.py's table, or found without one backward pass
    through the engine, earns nothing however right. Without `need_input`, naming the right
    operation is enough."""
    if not (isinstance(got, list) and len(got) == 3 and all(isinstance(n, (int, float)) for n in got[1:])):
        return say("lab03_hunt_shape", lang, got=repr(got)[:80])
    returned, passes, built = got
    if isinstance(returned, list) and returned[:1] == ["raised"]:
        return wrong_answer(returned, want, lang, need_input)
    if built:
        return say("lab03_hunt_lookup", lang, n=int(built))
    if not passes:
        return say("lab03_hunt_no_backward", lang)
    return wrong_answer(returned, want, lang, need_input)


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
    from course.student import _state
    want = _drawn.get(suspect, "unknown")
    if want == "unknown":
        print(say("lab03_hunt_unknown", _state["lang"]))
        return
    problem = wrong_answer(_returned(lambda _: got, suspect), want, _state["lang"])
    print(problem or say("lab03_hunt_right", _state["lang"], got=got))
