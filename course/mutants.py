"""Single-rule backward mutants of minigrad/engine.py: the bugs a gradcheck battery must catch.

Each mutant changes one line of one `_backward` (a sign, a dropped factor, swapped
operands, `=` for `+=`, an off-by-one power, a missing `* out.grad`, the gradient sent
to the wrong input). `engine_class(mutant)` builds that engine's `Value` in memory, anonymously,
minigrad itself untouched. Two mutants no gradcheck can decide, and say why in
`undecidable`: they compute the same derivative as the engine wherever it exists.
Lab 03's students run their own battery against them (`battery_report`); the
reference battery is measured the same way:

    python benchmarks/gradcheck_mutants.py      # caught/total for `python -m grader gradcheck`
"""
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import minigrad.engine

ENGINE = Path(minigrad.engine.__file__)


# minigrad's primitive operations, by method, as a node's label and a student name them (the others
# are built from these: a / b is a * b ** -1, -a is a * -1; `**` labels its node with the exponent)
OPERATIONS = {"__add__": "+", "__mul__": "*", "__sub__": "-", "__pow__": "**",
              "exp": "exp", "log": "log", "tanh": "tanh", "relu": "relu"}


@dataclass(frozen=True)
class Mutant:
    method: str  # the Value method whose `_backward` is changed
    kind: str    # the rule broken, as the benchmark counts them
    old: str     # one line of that method, exactly as in engine.py (stripped)
    new: str
    undecidable: str = ""  # why no gradcheck can tell it from the engine, if it cannot

    @property
    def name(self) -> str:
        return f"{self.method}: {self.kind}: {self.new}"


def _m(method: str, kind: str, old: str, new: str, undecidable: str = "") -> Mutant:
    return Mutant(method, kind, old, new, undecidable)


_ADD_S, _ADD_O = "self.grad += out.grad", "other.grad += out.grad"
_MUL_S, _MUL_O = "self.grad += other.data * out.grad", "other.grad += self.data * out.grad"
_SUB_S, _SUB_O = "self.grad += out.grad", "other.grad += -1.0 * out.grad"
_POW = "self.grad += exponent * _power(self.data, exponent - 1) * out.grad"
_EXP = "self.grad += out.data * out.grad  # d/dx e^x = e^x"
_LOG = "self.grad += out.grad / self.data"
_TANH = "self.grad += (1.0 - t * t) * out.grad"
_RELU = "self.grad += (1.0 if self.data > 0 else 0.0) * out.grad"

MUTANTS = [
    _m("__add__", "sign flip", _ADD_S, "self.grad += -out.grad"),
    _m("__add__", "sign flip", _ADD_O, "other.grad += -out.grad"),
    _m("__add__", "= for +=", _ADD_S, "self.grad = out.grad"),
    _m("__add__", "= for +=", _ADD_O, "other.grad = out.grad"),
    _m("__add__", "missing * out.grad", _ADD_S, "self.grad += 1.0"),
    _m("__add__", "missing * out.grad", _ADD_O, "other.grad += 1.0"),
    _m("__add__", "wrong input", _ADD_S, "other.grad += out.grad"),
    _m("__add__", "wrong input", _ADD_O, "self.grad += out.grad"),
    _m("__mul__", "sign flip", _MUL_S, "self.grad += -other.data * out.grad"),
    _m("__mul__", "sign flip", _MUL_O, "other.grad += -self.data * out.grad"),
    _m("__mul__", "dropped factor", _MUL_S, "self.grad += out.grad"),
    _m("__mul__", "dropped factor", _MUL_O, "other.grad += out.grad"),
    _m("__mul__", "swapped operands", _MUL_S, "self.grad += self.data * out.grad"),
    _m("__mul__", "swapped operands", _MUL_O, "other.grad += other.data * out.grad"),
    _m("__mul__", "= for +=", _MUL_S, "self.grad = other.data * out.grad"),
    _m("__mul__", "= for +=", _MUL_O, "other.grad = self.data * out.grad"),
    _m("__mul__", "missing * out.grad", _MUL_S, "self.grad += other.data"),
    _m("__mul__", "missing * out.grad", _MUL_O, "other.grad += self.data"),
    _m("__mul__", "wrong input", _MUL_S, "other.grad += other.data * out.grad"),
    _m("__mul__", "wrong input", _MUL_O, "self.grad += self.data * out.grad"),
    _m("__sub__", "sign flip", _SUB_S, "self.grad += -out.grad"),
    _m("__sub__", "sign flip", _SUB_O, "other.grad += 1.0 * out.grad"),
    _m("__sub__", "= for +=", _SUB_S, "self.grad = out.grad"),
    _m("__sub__", "= for +=", _SUB_O, "other.grad = -1.0 * out.grad"),
    _m("__sub__", "missing * out.grad", _SUB_S, "self.grad += 1.0"),
    _m("__sub__", "missing * out.grad", _SUB_O, "other.grad += -1.0"),
    _m("__sub__", "wrong input", _SUB_S, "other.grad += out.grad"),
    _m("__sub__", "wrong input", _SUB_O, "self.grad += -1.0 * out.grad"),
    _m("__pow__", "sign flip", _POW, "self.grad += -exponent * _power(self.data, exponent - 1) * out.grad"),
    _m("__pow__", "dropped factor", _POW, "self.grad += _power(self.data, exponent - 1) * out.grad"),
    _m("__pow__", "dropped factor", _POW, "self.grad += exponent * out.grad"),
    _m("__pow__", "off-by-one power", _POW, "self.grad += exponent * _power(self.data, exponent) * out.grad"),
    _m("__pow__", "off-by-one power", _POW, "self.grad += exponent * _power(self.data, exponent - 2) * out.grad"),
    _m("__pow__", "= for +=", _POW, "self.grad = exponent * _power(self.data, exponent - 1) * out.grad"),
    _m("__pow__", "missing * out.grad", _POW, "self.grad += exponent * _power(self.data, exponent - 1)"),
    _m("exp", "sign flip", _EXP, "self.grad += -out.data * out.grad"),
    _m("exp", "dropped factor", _EXP, "self.grad += out.grad"),
    _m("exp", "swapped operands", _EXP, "self.grad += self.data * out.grad"),
    _m("exp", "= for +=", _EXP, "self.grad = out.data * out.grad"),
    _m("exp", "missing * out.grad", _EXP, "self.grad += out.data"),
    _m("log", "sign flip", _LOG, "self.grad += -out.grad / self.data"),
    _m("log", "dropped factor", _LOG, "self.grad += out.grad"),
    _m("log", "swapped operands", _LOG, "self.grad += out.grad * self.data"),
    _m("log", "= for +=", _LOG, "self.grad = out.grad / self.data"),
    _m("log", "missing * out.grad", _LOG, "self.grad += 1.0 / self.data"),
    _m("tanh", "sign flip", _TANH, "self.grad += -(1.0 - t * t) * out.grad"),
    _m("tanh", "sign flip", _TANH, "self.grad += (1.0 + t * t) * out.grad"),
    _m("tanh", "dropped factor", _TANH, "self.grad += out.grad"),
    _m("tanh", "off-by-one power", _TANH, "self.grad += (1.0 - t) * out.grad"),
    _m("tanh", "= for +=", _TANH, "self.grad = (1.0 - t * t) * out.grad"),
    _m("tanh", "missing * out.grad", _TANH, "self.grad += (1.0 - t * t)"),
    _m("relu", "sign flip", _RELU, "self.grad += -(1.0 if self.data > 0 else 0.0) * out.grad"),
    _m("relu", "dropped factor", _RELU, "self.grad += out.grad"),
    _m("relu", "swapped operands", _RELU, "self.grad += (0.0 if self.data > 0 else 1.0) * out.grad"),
    _m("relu", "= for +=", _RELU, "self.grad = (1.0 if self.data > 0 else 0.0) * out.grad"),
    _m("relu", "missing * out.grad", _RELU, "self.grad += (1.0 if self.data > 0 else 0.0)"),
    _m("relu", "gate", _RELU, "self.grad += (1.0 if self.data >= 0 else 0.0) * out.grad",
       undecidable="differs only at 0, relu's kink, where the derivative does not exist "
                   "(a central difference there gives 1/2, neither 0 nor 1)"),
    _m("relu", "gate", _RELU, "self.grad += (1.0 if out.data > 0 else 0.0) * out.grad",
       undecidable="an equivalent mutant: out.data = max(x, 0) > 0 exactly when x > 0"),
]


def mutated_source(mutant: Mutant) -> str:
    """engine.py with `mutant.old` replaced by `mutant.new` inside `mutant.method` only."""
    source = ENGINE.read_text()
    start = source.index(f"    def {mutant.method}(")
    end = source.index("\n    def ", start + 1)
    method = source[start:end]
    if method.count(mutant.old) != 1:  # the engine changed: the table must follow it
        raise LookupError(f"{mutant.method} has no single line {mutant.old!r}")
    return source[:start] + method.replace(mutant.old, mutant.new) + source[end:]


def mutated_method(mutant: Mutant) -> Any:
    """`mutant`'s method alone, compiled among minigrad.engine's own names: a function that
    can stand in for that method of minigrad's own `Value` (course/breakit.py)."""
    source = mutated_source(mutant)
    start = source.index(f"    def {mutant.method}(")
    end = source.index("\n    def ", start + 1)
    namespace: dict[str, Any] = dict(vars(minigrad.engine))
    exec(compile(textwrap.dedent(source[start:end]), "<minigrad>", "exec"), namespace)  # noqa: S102
    return namespace[mutant.method]


# how many engines `engine_class` has built: lab 03's hidden test counts those a bug hunt builds,
# which only a hunt that looks its answer up in this table does
built = [0]


def engine_class(mutant: Mutant | None = None) -> Any:
    """A `Value` class built in memory: minigrad's engine, or `mutant`'s. Anonymous either
    way (a class `Value` of a module `minigrad.engine`, compiled from the file `<minigrad>`):
    nothing on it names the mutant, so only computing gradients tells them apart."""
    built[0] += 1
    source = ENGINE.read_text() if mutant is None else mutated_source(mutant)
    namespace: dict[str, Any] = {"__name__": "minigrad.engine"}
    exec(compile(source, "<minigrad>", "exec"), namespace)  # noqa: S102 (the course's own engine)
    return namespace["Value"]


def decidable() -> list[Mutant]:
    return [m for m in MUTANTS if not m.undecidable]


def failing_expressions(gradcheck: Any, battery: Any, leaf: Any) -> list[str]:
    """The names of the battery's expressions on which `gradcheck` raised AssertionError."""
    failing = []
    for name, f, point in battery:
        try:
            gradcheck(f, tuple(leaf(x) for x in point))
        except AssertionError:
            failing.append(name)
    return failing


def caught(gradcheck: Any, battery: Any, mutant: Mutant) -> bool:
    """Whether `gradcheck` fails on some expression of `battery` with `mutant`'s engine."""
    return bool(failing_expressions(gradcheck, battery, engine_class(mutant)))


def battery_report(gradcheck: Any, battery: Any) -> tuple[list[str], list[Mutant]]:
    """(expressions that fail on the right engine, decidable mutants the battery lets through).
    `battery` holds (name, f, point) triples, as lab 03's EXPRESSIONS."""
    battery = list(battery)
    return (failing_expressions(gradcheck, battery, minigrad.engine.Value),
            [m for m in decidable() if not caught(gradcheck, battery, m)])


def reused(battery: Any, mutant: Mutant) -> int:
    """In how many expressions of `battery` the input whose gradient `mutant`'s rule writes is also
    an input of another node: only there can `=` for `+=` lose a contribution."""
    operation, slot = OPERATIONS[mutant.method], 1 if mutant.old.startswith("other.") else 0
    count = 0
    for _, f, point in battery:
        nodes, stack, seen = [], [f(*(minigrad.engine.Value(x) for x in point))], set()
        while stack:
            node = stack.pop()
            if id(node) not in seen:
                seen.add(id(node))
                nodes.append(node)
                stack.extend(node._inputs)
        users: dict[int, int] = {}
        for node in nodes:
            for input_ in node._inputs:
                users[id(input_)] = users.get(id(input_), 0) + 1
        count += any(_is(node._op, operation) and len(node._inputs) > slot and users[id(node._inputs[slot])] > 1
                     for node in nodes)
    return count


def _is(label: str, operation: str) -> bool:
    """Whether a node's label is `operation`'s (`**` labels its node with the exponent: '**3')."""
    return label.startswith("**") if operation == "**" else label == operation
