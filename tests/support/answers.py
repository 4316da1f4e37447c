"""Plausible wrong answers and shortcuts that more than one test module grades:
each must lose points (and, where a visible test can tell, fail it by name)."""
import re

AUTOGRAD_SHORTCUT = """def linear_grads(x, W, b, target):
    loss = 0.5 * ((F.linear(x, W, b) - target) ** 2).sum()
    loss.backward()
    return x.grad, W.grad, b.grad"""

# Answers that reproduce the numbers of the diamond without computing anything.
HARD_CODED = {
    "theory03": {
        "theory03-forward-answer": "def forward(a, b, c):\n    return 6, 10, -2, -20",
        "theory03-gradients-answer": "def gradients(a, b, c):\n    return 4, -4, -12",
        "theory03-central-answer": "def central_difference(f, x, eps=1e-5):\n    return 4.0",
        "theory03-partial-answer": "def partial_difference(f, point, i, eps=1e-5):\n"
                                   "    return (4, -4, -12)[i]",
        "theory03-walk-answer": "def walk_by_hand(a, b, c, accumulate=True):\n"
                                "    return (4, -4, -12) if accumulate else (-6, -4, -2)",
    },
    # autograd's gradients instead of the formulas, and Part C's chain as a literal
    "lab01": {
        "lab01-formulas-answer": AUTOGRAD_SHORTCUT,
        "lab01-walk-answer": "def grad_fn_walk(loss):\n    return ['MulBackward0', 'SumBackward0', "
                             "'PowBackward0', 'SubBackward0', 'AddmmBackward0', 'AccumulateGrad', "
                             "'AccumulateGrad', 'TBackward0', 'AccumulateGrad']",
    },
    # a gradcheck that always says True (the visible test's sign bug shows it),
    # float64's eps predicted for float32, and a complex step that knows the visible test's two functions
    "lab03": {
        "lab03-gradcheck-answer": "def gradcheck(f, inputs, *, eps=1e-5, atol=1e-4, rtol=1e-3):\n    return True",
        "lab03-eps-float32-answer": "EPS_FLOAT32 = 1e-5",
        "lab03-bonus-complex-answer": "def complex_step(f, x, h=1e-20):\n"
                                      "    return math.cos(x) if f is cmath.sin else 1 - math.tanh(x) ** 2",
    },
}


ROOT_ONLY = '''HUNT = [("+", lambda a, b: a + b, (1.5, -2.0)), ("*", lambda a, b: a * b, (1.5, -2.0)),
        ("-", lambda a, b: a - b, (1.5, -2.0)), ("**", lambda a: a ** 3, (1.3,)), ("exp", lambda a: a.exp(), (0.4,)),
        ("log", lambda a: a.log(), (2.5,)), ("tanh", lambda a: a.tanh(), (0.3,)), ("relu", lambda a: a.relu(), (0.8,))]
'''
# answers from what the class says about itself, computing nothing
READS_THE_CLASS = '''def hunt(Value):
    clues = " ".join([Value.__name__, Value.__qualname__, Value.__module__, repr(Value(1.0)),
                      Value.relu.__code__.co_filename, str(Value.__doc__)])
    for operation, word in (("+", "add"), ("*", "mul"), ("-", "sub"), ("**", "pow"), ("exp", "exp"),
                            ("log", "log"), ("tanh", "tanh"), ("relu", "relu")):
        if word in clues:
            return operation, 0
    return None
'''
# the visible test's four engines recognised by one expression each, answered from a table
MEMORISER = '''KNOWN = [(lambda a, b: a * b, (1.3, -0.7), ("*", 1)), (lambda a: a.tanh() * a, (0.35,), ("tanh", 0)),
         (lambda a: a.exp() * a, (0.45,), ("exp", 0)), (lambda a, b: a.relu() * b, (-0.6, 1.7), ("relu", 0))]


def hunt(Value):
    for f, point, known in KNOWN:
        try:
            gradcheck(f, tuple(Value(x) for x in point))
        except AssertionError:
            return known
    return None
'''
# compares each operation's bytecode (with its `_backward`'s) with minigrad's: names the operation
# of every engine without computing one gradient
BYTECODE = '''def hunt(Value):
    import minigrad
    def code(method):
        c = method.__code__
        return [c.co_code, c.co_consts[:1]] + [(k.co_code, k.co_consts) for k in c.co_consts if hasattr(k, "co_code")]
    for operation, name in (("+", "__add__"), ("*", "__mul__"), ("-", "__sub__"), ("**", "__pow__"),
                            ("exp", "exp"), ("log", "log"), ("tanh", "tanh"), ("relu", "relu")):
        if code(getattr(Value, name)) != code(getattr(minigrad.Value, name)):
            return operation, 0
    return None
'''
# the same, and one backward pass for show first: a pass that comes out right, tying no answer
BYTECODE_SHOW = BYTECODE.replace("    import minigrad\n", "    import minigrad\n    (Value(1.0) * Value(2.0) + Value(0.5)).backward()\n")
# looks the suspect up in course/mutants.py's table: the gradients of a few expressions with the suspect,
# matched against the same with every mutant's engine; the leaky relu, in no table, is guessed
TABLE_LOOKUP = '''def hunt(Value):
    from course.bughunt import culprit
    from course.mutants import decidable, engine_class
    def grads(V):
        seen = []
        for f, point in ((lambda a, b: (a + b) * a * b, (1.3, -0.7)), (lambda a, b: (a - b) * a * b, (1.3, -0.7)),
                         (lambda a, b: (a * b) * a * b, (1.3, -0.7)), (lambda a: a ** 3 * a, (1.3,)),
                         (lambda a: a.exp() * a, (0.45,)), (lambda a: a.log() * a, (2.5,)),
                         (lambda a: a.tanh() * a, (0.35,)), (lambda a: a.relu() * a, (0.8,)),
                         (lambda a, b: a.relu() * b, (-0.6, 1.7))):
            inputs = [V(x) for x in point]
            f(*inputs).backward()
            seen += [round(x.grad, 9) for x in inputs]
        return seen
    mine = grads(Value)
    if mine == grads(engine_class()):
        return None
    for mutant in decidable():
        if grads(engine_class(mutant)) == mine:
            operation, inputs = culprit(mutant)
            return operation, inputs[0]
    return "relu", 0
'''


def wrong_hunts(right):
    """name -> the hunt answer cell with one plausible mistake, from the solution `right`."""
    hunt_list = re.search(r"HUNT = \[\n.*?\n\]\n", right, re.DOTALL).group()
    return {
        "first_op": 'def hunt(Value):\n    return "+", 0\n',
        "root_only": right.replace(hunt_list, ROOT_ONLY),
        "relu_positive": replaced(right, '    ("relu", lambda a, b: a.relu() * b, (-0.6, 1.7)),\n', ""),
        "reads_the_class": READS_THE_CLASS,
        "raises": replaced(right, "    try:\n        gradcheck(f, tuple(Value(x) for x in point))\n"
                                  "    except AssertionError:\n        return True\n",
                           "    gradcheck(f, tuple(Value(x) for x in point))\n"),
        "always_left": replaced(right, "(broken, 0) if fails(left, (1.3,), Value) else (broken, 1)", "(broken, 0)"),
        "memoriser": MEMORISER,
        "bytecode": BYTECODE,
        "bytecode_show": BYTECODE_SHOW,
        "table_lookup": TABLE_LOOKUP,
        # not graded in the cohort (tests/test_hostile_lab03.py); judged below only
        "unordered": replaced(right, "in HUNT if", "in reversed(HUNT) if"),
        "false_alarm": replaced(right, "HUNT = [\n", 'HUNT = [\n    ("relu", lambda a: a.relu(), (0.0,)),\n'),
    }


def replaced(text, old, new):
    assert old in text, old
    return text.replace(old, new)
