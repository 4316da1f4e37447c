"""Every sentence the course machinery shows a person, in English and Spanish."""


MESSAGES = {
    # ---- lab 03: the hidden tests of the gradcheck, the battery and mypy --strict ----
    "lab03_case": {
        "en": "gradcheck on an expression drawn at grading time, inputs ({point}),"
              " eps={eps}, atol={atol}, rtol={rtol}{extra}",
        "es": "gradcheck con una expresión elegida al azar al corregir, entradas ({point}),"
              " eps={eps}, atol={atol}, rtol={rtol}{extra}",
    },
    "lab03_case_stale": {
        "en": ", every .grad at {stale} beforehand",
        "es": ", con todos los .grad puestos a {stale} de antemano",
    },
    "lab03_case_unused": {
        "en": ", the last input unused",
        "es": ", la última entrada sin usar",
    },
    "lab03_got_true": {"en": "it returned True", "es": "devolvió True"},
    "lab03_got_returned": {"en": "it returned {value}", "es": "devolvió {value}"},
    "lab03_got_raised": {"en": "it raised {error}: {message!r}", "es": "lanzó {error}: {message!r}"},
    "lab03_must_pass": {
        "en": "{got}; the expression's backward is right, so gradcheck must return True",
        "es": "{got}; la pasada hacia atrás de la expresión es correcta, así que gradcheck debe devolver True",
    },
    "lab03_tight": {
        "en": " (with eps = 1e-3 and tight tolerances only a central difference is accurate enough)",
        "es": " (con eps = 1e-3 y tolerancias estrechas solo una diferencia central es lo bastante precisa)",
    },
    "lab03_must_raise": {
        "en": "{got}; the backward is wrong at input index {index}, so gradcheck must raise"
              " AssertionError with a message that names input index {index}",
        "es": "{got}; la pasada hacia atrás está mal en la entrada de índice {index}, así que gradcheck debe lanzar"
              " AssertionError con un mensaje que diga el índice {index}",
    },
    "lab03_not_strict": {
        "en": "mypy --strict finds {n} problem(s) in gradcheck's type annotations; the first: {first}",
        "es": "mypy --strict encuentra {n} problema(s) en las anotaciones de tipo de gradcheck; el primero"
              " (en inglés, como lo dice mypy): {first}",
    },
    # ---- lab 03: a test per operation (Exercise 2, course/expressions.py) ----
    "lab03_expressions": {
        "en": "your EXPRESSIONS, the composites recognised at points drawn at grading time",
        "es": "tus EXPRESSIONS, con las compuestas reconocidas en puntos elegidos al azar al corregir",
    },
    "lab03_expressions_empty": {
        "en": "EXPRESSIONS is not a list of expressions: write [(name, f, point), ...], at least one"
              " expression per operation of minigrad and the three composites",
        "es": "EXPRESSIONS no es una lista de expresiones: escribe [(name, f, point), ...], al menos una"
              " expresión por operación de minigrad y las tres compuestas",
    },
    "lab03_expressions_shape": {
        "en": "an entry of EXPRESSIONS is not (name, f, point), f a function of Values and point a tuple"
              " of 1 to 4 numbers: {got}",
        "es": "una entrada de EXPRESSIONS no es (name, f, point), con f una función de Values y point una"
              " tupla de 1 a 4 números: {got}",
    },
    "lab03_expressions_error": {
        "en": "computing {got}: give each expression a point where it is defined (log needs a positive"
              " number) and make f return a Value",
        "es": "al calcular {got}: da a cada expresión un punto donde esté definida (log necesita un número"
              " positivo) y haz que f devuelva un Value",
    },
    "lab03_expressions_gradcheck": {
        "en": "your gradcheck did not return True on {name!r}, whose backward is minigrad's own and right:"
              " it said {said}. Is its point at relu's kink? If not, fix gradcheck (Exercise 1)",
        "es": "tu gradcheck no devolvió True con {name!r}, cuya pasada hacia atrás es la de minigrad y es"
              " correcta: dijo {said}. ¿Está su punto en el punto anguloso de relu? Si no, corrige gradcheck"
              " (ejercicio 1)",
    },
    "lab03_expressions_point": {
        "en": "{name!r}: at its point the central difference ({num}) and backward ({analytic}) disagree,"
              " so its derivative does not exist there: move the point (relu away from its kink at 0)",
        "es": "{name!r}: en su punto la diferencia central ({num}) y la pasada hacia atrás ({analytic}) no"
              " coinciden, así que ahí no existe la derivada: cambia el punto (relu lejos de su punto"
              " anguloso en 0)",
    },
    "lab03_expressions_missing": {
        "en": "no expression of EXPRESSIONS uses {ops}: write at least one per operation of minigrad"
              " ('+', '*', '-', '**', 'exp', 'log', 'tanh', 'relu')",
        "es": "ninguna expresión de EXPRESSIONS usa {ops}: escribe al menos una por cada operación de"
              " minigrad ('+', '*', '-', '**', 'exp', 'log', 'tanh', 'relu')",
    },
    "lab03_expressions_composite": {
        "en": "EXPRESSIONS lacks {formulas}: the composites of the original notes, each a function of"
              " its inputs in that order (a, b, c)",
        "es": "a EXPRESSIONS le falta {formulas}: las compuestas de los apuntes originales, cada una"
              " función de sus entradas en ese orden (a, b, c)",
    },
    # ---- lab 03: break __sub__ yourself (Exercise 3, course/breakit.py) ----
    "lab03_break_case": {
        "en": "sub_backward_bug inside broken_sub, on (a - c) * k at points drawn at grading time",
        "es": "sub_backward_bug dentro de broken_sub, con (a - c) * k en puntos elegidos al azar al corregir",
    },
    "lab03_break_shape": {
        "en": "sub_backward_bug(a, c, out) gave no gradients ({got}): write a function that adds to"
              " a.grad and c.grad",
        "es": "sub_backward_bug(a, c, out) no dio gradientes ({got}): escribe una función que sume a"
              " a.grad y a c.grad",
    },
    "lab03_break_not_broken": {
        "en": "with your rule, (a - c) * {k} gives a.grad = {a} and c.grad = {c}, minigrad's own"
              " gradients: nothing is broken. Forget the −1 of the right operand: c.grad += out.grad",
        "es": "con tu regla, (a - c) * {k} da a.grad = {a} y c.grad = {c}, los gradientes de minigrad:"
              " no hay nada roto. Olvida el −1 del operando derecho: c.grad += out.grad",
    },
    "lab03_break_other": {
        "en": "with your rule, (a - c) * {k} gives a.grad = {a} and c.grad = {c}; the bug asked for gives"
              " a.grad = {k} and c.grad = {k}: keep the left operand's rule and `* out.grad`, and forget"
              " only the −1 of the right operand's",
        "es": "con tu regla, (a - c) * {k} da a.grad = {a} y c.grad = {c}; el error que se pide da"
              " a.grad = {k} y c.grad = {k}: conserva la regla del operando izquierdo y el `* out.grad`,"
              " y olvida solo el −1 de la del derecho",
    },
    "lab03_break_not_caught": {
        "en": "with your rule, gradcheck(a - c): {said}; it must raise AssertionError with a message"
              " that names input index 1 (c)",
        "es": "con tu regla, gradcheck(a - c): {said}; debe lanzar AssertionError con un mensaje que"
              " diga el índice 1 (c)",
    },
    "lab03_battery": {"en": "your battery (EXPRESSIONS and MORE_EXPRESSIONS)",
                      "es": "tu batería (EXPRESSIONS y MORE_EXPRESSIONS)"},
    "lab03_battery_wrong": {
        "en": "gradcheck fails on {names} with minigrad's own engine, whose backward is right",
        "es": "gradcheck falla con {names} usando el motor de minigrad, cuya pasada hacia atrás es correcta",
    },
    "lab03_battery_missed": {
        "en": "lets {n} of the {total} backward bugs a gradcheck can catch through, for example: {bugs}",
        "es": "deja pasar {n} de los {total} errores de la pasada hacia atrás que una comprobación de gradientes puede"
              " detectar, por ejemplo: {bugs}",
    },
    "lab03_not_restored": {
        "en": "the inputs' .data changed from {before} to {after}: restore each input after perturbing it",
        "es": "el .data de las entradas pasó de {before} a {after}: restaura cada entrada tras perturbarla",
    },
    # ---- lab 03: the bug hunt (course/bughunt.py; visible test, hidden checks) ----
    "lab03_hunt_case": {
        "en": "hunt(Value) on an engine drawn at grading time",
        "es": "hunt(Value) con un motor elegido al azar al corregir",
    },
    "lab03_hunt_raised": {
        "en": "hunt raised {error}: {message!r}; catch your gradcheck's AssertionError and return"
              " (operation, input), or None when every expression passes",
        "es": "hunt lanzó {error}: {message!r}; captura el AssertionError de tu gradcheck y devuelve"
              " (operación, entrada), o None si todas las expresiones pasan",
    },
    "lab03_hunt_shape": {
        "en": "hunt returned {got}; return (operation, input), the operation one of"
              " '+', '*', '-', '**', 'exp', 'log', 'tanh', 'relu' and the input 0 or 1, or None",
        "es": "hunt devolvió {got}; devuelve (operación, entrada), donde la operación es una de"
              " '+', '*', '-', '**', 'exp', 'log', 'tanh', 'relu' y la entrada es 0 o 1, o bien None",
    },
    "lab03_eps_shape": {
        "en": "EPS_FLOAT32 is {got}; write your prediction as one positive number, such as 1e-3",
        "es": "EPS_FLOAT32 vale {got}; escribe tu predicción como un número positivo, por ejemplo 1e-3",
    },
    "lab03_eps_float64": {
        "en": "EPS_FLOAT32 = {got} is the best ε in float64 (u = 2⁻⁵³); in float32 u is 2⁻²⁴, about"
              " 5 × 10⁸ times larger, so cancellation, u|f|/ε, wins up to a much larger ε",
        "es": "EPS_FLOAT32 = {got} es el mejor ε en float64 (u = 2⁻⁵³); en float32, u vale 2⁻²⁴, unas"
              " 5 × 10⁸ veces más, así que la cancelación, u|f|/ε, domina hasta un ε mucho mayor",
    },
    "lab03_eps_forward": {
        "en": "EPS_FLOAT32 = {got} is √u, the balance of a forward difference (truncation ∝ ε against"
              " u|f|/ε); a central difference's truncation is ∝ ε², so the balance is ε³ ∝ u",
        "es": "EPS_FLOAT32 = {got} es √u, el equilibrio de una diferencia hacia delante (truncamiento ∝ ε"
              " frente a u|f|/ε); el truncamiento de una diferencia central es ∝ ε², así que el equilibrio"
              " da ε³ ∝ u",
    },
    "lab03_eps_small": {
        "en": "EPS_FLOAT32 = {got} is too small: there cancellation, u|f|/ε with u = 2⁻²⁴, is far above"
              " truncation; the best ε is where the two are equal",
        "es": "EPS_FLOAT32 = {got} es demasiado pequeño: ahí la cancelación, u|f|/ε con u = 2⁻²⁴, queda muy"
              " por encima del truncamiento; el mejor ε es aquel en que los dos son iguales",
    },
    "lab03_eps_large": {
        "en": "EPS_FLOAT32 = {got} is too large: there truncation, |f'''|ε²/6, is far above cancellation;"
              " the best ε is where the two are equal",
        "es": "EPS_FLOAT32 = {got} es demasiado grande: ahí el truncamiento, |f'''|ε²/6, queda muy por"
              " encima de la cancelación; el mejor ε es aquel en que los dos son iguales",
    },
    "lab03_eps_case": {
        "en": "your prediction of the best ε for tanh at 0.5 in float32",
        "es": "tu predicción del mejor ε para tanh en 0,5 en float32",
    },
    "lab03_hunt_lookup": {
        "en": "hunt built {n:g} engines from course.mutants' table: an answer looked up there, however"
              " right, earns nothing; find the bug with your gradcheck on the engine you are given",
        "es": "hunt construyó {n:g} motores de la tabla de course.mutants: una respuesta buscada ahí, aunque"
              " sea correcta, no puntúa; encuentra el error con tu gradcheck en el motor que recibes",
        "en_one": "hunt built 1 engine from course.mutants' table: an answer looked up there, however"
                  " right, earns nothing; find the bug with your gradcheck on the engine you are given",
        "es_one": "hunt construyó 1 motor de la tabla de course.mutants: una respuesta buscada ahí, aunque"
                  " sea correcta, no puntúa; encuentra el error con tu gradcheck en el motor que recibes",
    },
    "lab03_hunt_no_backward": {
        "en": "hunt answered without running one backward pass through the engine it was given (no"
              " gradient computed): an answer read from the class or its bytecode, however right, earns"
              " nothing; run your gradcheck on expressions built with that Value",
        "es": "hunt respondió sin ejecutar ni una pasada hacia atrás con el motor que recibió (sin calcular"
              " ningún gradiente): una respuesta leída de la clase o de su bytecode, aunque sea correcta, no"
              " puntúa; ejecuta tu gradcheck con expresiones construidas con ese Value",
    },
    "lab03_hunt_false_alarm": {
        "en": "hunt returned {got} on an engine whose backward pass is right: a false alarm (does your"
              " gradcheck fail on a correct expression, at relu's kink or log of a number <= 0?)",
        "es": "hunt devolvió {got} con un motor cuya pasada hacia atrás es correcta: una falsa alarma (¿falla tu"
              " gradcheck con una expresión correcta, en el punto anguloso de relu o con log de un número <= 0?)",
    },
    "lab03_hunt_missed": {
        "en": "hunt returned None, but this engine's backward rule for {op!r} is wrong: your hunt's"
              " expressions let it through (Part 5 found which expressions each kind of bug needs)",
        "es": "hunt devolvió None, pero la regla de la pasada hacia atrás de {op!r} de este motor está mal: las"
              " expresiones de tu hunt la dejan pasar (la Parte 5 averiguó qué expresiones necesita cada tipo"
              " de error)",
    },
    "lab03_hunt_wrong_op": {
        "en": "hunt named {got!r}, but it is {op!r} whose backward rule is wrong: an expression that fails"
              " uses other operations too; try each operation in expressions that use only"
              " operations already cleared",
        "es": "hunt señaló {got!r}, pero la regla de la pasada hacia atrás que está mal es la de {op!r}: una"
              " expresión que falla usa también otras operaciones; prueba cada operación con expresiones"
              " que solo usen operaciones ya comprobadas",
    },
    "lab03_hunt_wrong_input": {
        "en": "hunt named {op!r} rightly, but input {got}: the wrong gradient is input {want}'s"
              " (0 the left operand, 1 the right); give each input of your expression one role,"
              " always left or always right",
        "es": "hunt señaló bien {op!r}, pero la entrada {got}: el gradiente que está mal es el de la"
              " entrada {want} (0 el operando izquierdo, 1 el derecho); da a cada entrada de tu expresión"
              " un solo papel: siempre operando izquierdo o siempre operando derecho",
    },
    "lab03_hunt_untied": {
        "en": "hunt named {got!r} rightly, but the backward passes it ran through this engine do not tie"
              " that answer to its gradients, so it earns nothing: no pass that came out wrong holds"
              " {got!r} with every other operation of it cleared, that is, come out right in another"
              " pass (cleared: {cleared}; in passes that came out wrong: {wrong}). Run your gradcheck"
              " on an expression that fails with {got!r}, after expressions that clear its other operations",
        "es": "hunt señaló bien {got!r}, pero las pasadas hacia atrás que ejecutó con este motor no ligan"
              " esa respuesta a sus gradientes, así que no puntúa: ninguna pasada que salió mal contiene"
              " {got!r} con todas sus demás operaciones comprobadas, es decir, que salieran bien en otra"
              " pasada (comprobadas: {cleared}; en pasadas que salieron mal: {wrong}). Ejecuta tu gradcheck"
              " con una expresión que falle con {got!r}, después de expresiones que comprueben sus demás"
              " operaciones",
    },
    "lab03_hunt_untied_none": {
        "en": "hunt returned None rightly, but the backward passes it ran through this engine cleared"
              " only {cleared}, so it earns nothing: None says no rule is wrong, which only a pass that"
              " came out right with each of '+', '*', '-', '**', 'exp', 'log', 'tanh', 'relu' shows",
        "es": "hunt devolvió bien None, pero las pasadas hacia atrás que ejecutó con este motor solo"
              " comprobaron {cleared}, así que no puntúa: None dice que ninguna regla está mal, y eso solo"
              " lo demuestra una pasada que salga bien con cada una de '+', '*', '-', '**', 'exp', 'log',"
              " 'tanh', 'relu'",
    },
    "lab03_hunt_right": {
        "en": "right: {got} names the wrong backward rule of this engine",
        "es": "correcto: {got} señala la regla de la pasada hacia atrás que está mal en este motor",
    },
    "lab03_hunt_unknown": {
        "en": "this is not an engine suspect_engine() drew: nothing to confirm",
        "es": "este no es un motor elegido al azar por suspect_engine(): no hay nada que confirmar",
    },
    # ---- end of lab 03 ----
    "returned": {
        "en": "{what} returned {got}, expected {want}",
        "es": "{what} devolvió {got}, se esperaba {want}",
    },
    "raised": {
        "en": "{what} raised {error}",
        "es": "{what} lanzó {error}",
    },
    "not_plain": {
        "en": "{what} returned {kind}, which is not a number or a tuple of numbers",
        "es": "{what} devolvió {kind}, que no es un número ni una tupla de números",
    },
    "passed": {
        "en": "✔ {grade_id}: all {n} checks passed",
        "es": "✔ {grade_id}: superadas las {n} comprobaciones",
        "en_one": "✔ {grade_id}: its one check passed",
        "es_one": "✔ {grade_id}: superada su única comprobación",
    },
    "evidence": {
        "en": "{grade_id}: {n} hidden cases run; the grader judges them",
        "en_one": "{grade_id}: 1 hidden case run; the grader judges it",
        "es": "{grade_id}: {n} casos ocultos ejecutados; los juzga el corrector",
        "es_one": "{grade_id}: 1 caso oculto ejecutado; lo juzga el corrector",
    },
    "no_evidence": {
        "en": "the checks of this cell did not run to the end{why}",
        "es": "las comprobaciones de esta celda no llegaron al final{why}",
    },
    "bad_evidence": {
        "en": "this cell's output was tampered with ({detail})",
        "es": "se ha manipulado la salida de esta celda ({detail})",
    },
    "no_check": {
        "en": "no check is registered for {grade_id}: ask your instructor",
        "es": "no hay ninguna comprobación registrada para {grade_id}: avisa a tu profesor",
    },
    "stated_differs": {
        "en": "the test cell of {grade_id} states other values than the grader enforces: ask your instructor",
        "es": "la celda de test de {grade_id} indica valores distintos de los que exige el corrector: "
              "avisa a tu profesor",
    },
    "kernel_died": {
        "en": "the kernel died while running this cell (memory limit, os._exit, a crash); "
              "grading went on in a new kernel",
        "es": "el kernel murió mientras ejecutaba esta celda (límite de memoria, os._exit, un fallo); "
              "la corrección siguió en un kernel nuevo",
    },
    "timeout": {
        "en": "this cell was still running after {seconds} s and was stopped; "
              "grading went on in a new kernel",
        "es": "esta celda seguía ejecutándose tras {seconds} s y se detuvo; "
              "la corrección siguió en un kernel nuevo",
    },
    "out_of_memory": {
        "en": "the kernel was stopped while running this cell: it went over its memory limit; "
              "grading went on in a new kernel",
        "es": "se detuvo el kernel mientras ejecutaba esta celda: superó su límite de memoria; "
              "la corrección siguió en un kernel nuevo",
    },
    "out_of_time": {
        "en": "not run: the notebook used up its {seconds} s of grading time",
        "es": "no ejecutada: el cuaderno agotó sus {seconds} s de tiempo de corrección",
    },
    "not_run": {
        "en": "not run: the kernel died too many times before this cell",
        "es": "no ejecutada: el kernel murió demasiadas veces antes de esta celda",
    },
    "output_cut": {
        "en": "output cut off: this cell printed more than {limit} bytes",
        "es": "salida cortada: esta celda imprimió más de {limit} bytes",
    },
    "unreadable": {
        "en": "your file could not be read as a notebook, so nothing in it was run ({error})",
        "es": "tu archivo no se pudo leer como cuaderno, así que no se ejecutó nada ({error})",
    },
    "missing_cell": {
        "en": "this graded cell is missing from the submission",
        "es": "falta esta celda calificada en la entrega",
    },
    "not_graded": {
        "en": "not graded: nbgrader could not process this submission (see its log: {log})",
        "es": "sin calificar: nbgrader no pudo procesar esta entrega (consulta su registro: {log})",
    },
    "missing_cells": {
        "en": "**Graded cells missing from this submission (0 points each):** {ids}",
        "es": "**Celdas calificadas que faltan en esta entrega (0 puntos cada una):** {ids}",
    },
    "code_stub": {
        "en": "# YOUR CODE HERE\nraise NotImplementedError(\"write your code here\")",
        "es": "# ESCRIBE AQUÍ TU CÓDIGO\nraise NotImplementedError(\"escribe aquí tu código\")",
    },
    "text_stub": {
        "en": "YOUR ANSWER HERE",
        "es": "ESCRIBE AQUÍ TU RESPUESTA",
    },
    "hidden_tests": {
        "en": "# (hidden tests: their results are shown below)",
        "es": "# (tests ocultos: sus resultados aparecen abajo)",
    },
    # ---- what a failing visible test says (course.student.expect_close) ----
    "expect_none": {
        "en": "{what} returned None (missing return?); expected {want}",
        "es": "{what} devolvió None (¿falta un return?); se esperaba {want}",
    },
    "expect_shape": {
        "en": "{what} returned {got}; expected {want}",
        "es": "{what} devolvió {got}; se esperaba {want}",
    },
    "expect_returned": {
        "en": "{what} returned {got}:",
        "es": "{what} devolvió {got}:",
    },
    "expect_element": {
        "en": "  {name} is {got}, expected {want}",
        "es": "  {name} vale {got}, se esperaba {want}",
    },
    "expect_value": {
        "en": "{what} returned {got}, expected {want}",
        "es": "{what} devolvió {got}, se esperaba {want}",
    },
    # ---- theory03: the mistakes this unit predicts ----
    "theory03_only_through_e": {
        "en": "that is only the path through e: the path through f is missing (a diamond: add both)",
        "es": "eso es solo el camino a través de e: falta el camino a través de f "
              "(un diamante: suma los dos)",
    },
    "theory03_only_through_f": {
        "en": "that is only the path through f: the path through e is missing (a diamond: add both)",
        "es": "eso es solo el camino a través de f: falta el camino a través de e "
              "(un diamante: suma los dos)",
    },
    "theory03_forward_difference": {
        "en": "that is a forward difference, (f(x + eps) − f(x)) / eps: "
              "use the central one, (f(x + eps) − f(x − eps)) / (2·eps)",
        "es": "eso es una diferencia hacia delante, (f(x + eps) − f(x)) / eps: "
              "usa la central, (f(x + eps) − f(x − eps)) / (2·eps)",
    },
    "theory03_assigned": {
        "en": "that is what `=` leaves (the last contribution only): with accumulate=True, add with `+=`",
        "es": "eso es lo que deja `=` (solo la última contribución): con accumulate=True, suma con `+=`",
    },
    # ---- formgrader: the rubric below each hand-graded answer (grader/plugins/formgrader.py) ----
    "rubric_title": {
        "en": "Rubric ({points:g} points; for graders, students do not see it)",
        "es": "Rúbrica ({points:g} puntos; para quien corrige, los estudiantes no la ven)",
    },
    "rubric_comments": {
        "en": "Canned comments (copy one into the comment box)",
        "es": "Comentarios preparados (copia uno en el cuadro de comentarios)",
    },
    # ---- predictions (course/predictions.py): recorded before the cell that measures them ----
    "predict_none": {
        "en": "no prediction yet: replace None in the Predict cell above with yours, and run it",
        "es": "aún no hay predicción: cambia None por la tuya en la celda «Predice» de arriba y ejecútala",
    },
    "predict_not_option": {
        "en": "{got} is not one of the options: write {options}",
        "es": "{got} no es una de las opciones: escribe {options}",
    },
    "predict_or": {"en": " or ", "es": " o "},
    "predict_not_numbers": {
        "en": "{got} is not a prediction of {n} numbers: write them as a tuple, e.g. (4, -2)",
        "es": "{got} no es una predicción de {n} números: escríbelos como una tupla, p. ej. (4, -2)",
        "en_one": "{got} is not a prediction of one number: write a number, e.g. 4",
        "es_one": "{got} no es una predicción de un número: escribe un número, p. ej. 4",
    },
    "predict_recorded": {
        "en": "✔ prediction recorded: {got}. Now run the next cell, which measures it.",
        "es": "✔ predicción registrada: {got}. Ahora ejecuta la celda siguiente, que lo mide.",
    },
    "predict_first": {
        "en": "this cell shows the measurement only after your prediction, so record it first: {why}",
        "es": "esta celda solo muestra la medida después de tu predicción, así que regístrala antes: {why}",
    },
    "predict_changed": {
        "en": "(your prediction was {first} when this cell first showed its measurement; now it says {now})",
        "es": "(tu predicción era {first} cuando esta celda mostró su medida por primera vez; ahora dice {now})",
    },
    "predict_compare": {
        "en": "your prediction: {got}   ·   measured: {measured}",
        "es": "tu predicción: {got}   ·   medido: {measured}",
    },
    "predict_agrees": {"en": "   ✔ as you predicted", "es": "   ✔ como predijiste"},
    "predict_differs": {
        "en": "   ✘ not what you predicted: the text below explains what happened",
        "es": "   ✘ no es lo que predijiste: el texto de abajo explica qué ha pasado",
    },
    # ---- lab 01: autograd by hand for linear(64, 600) (visible tests, hidden checks, report) ----
    "lab01_exercise": {
        "en": "Exercise {number} ({name})",
        "es": "Ejercicio {number} ({name})",
    },
    "lab01_not_done": {
        "en": "{exercise} is not done yet: write it in its cell, run that cell, then run this one",
        "es": "{exercise} aún no está hecho: escríbelo en su celda, ejecútala y después ejecuta esta",
    },
    "lab01_needs": {
        "en": "fix {exercise} first: {problem}",
        "es": "corrige antes el {exercise}: {problem}",
    },
    "lab01_not_done_short": {
        "en": "not done yet",
        "es": "aún sin hacer",
    },
    "lab01_run_first": {
        "en": "run the cells of Part {part} above first (`{variable}` is not defined yet)",
        "es": "ejecuta antes las celdas de la Parte {part} de arriba (`{variable}` aún no existe)",
    },
    "lab01_raised": {
        "en": "raised {error}",
        "es": "lanzó {error}",
    },
    "lab01_shapes_error": {
        "en": "raised RuntimeError: a matrix product of shapes ({left}) @ ({right}), which do not fit",
        "es": "lanzó RuntimeError: un producto de matrices de formas ({left}) @ ({right}), que no encajan",
    },
    "lab01_shapes_hint": {
        "en": " — check each product by its shapes: delta (dL/dy) is (n, d_out), W is (d_out, d_in), x is "
              "(n, d_in); dx must come out (n, d_in) and dW (d_out, d_in)",
        "es": " — comprueba cada producto por sus formas: delta (dL/dy) es (n, d_out), W es (d_out, d_in), x es "
              "(n, d_in); dx debe salir (n, d_in) y dW (d_out, d_in)",
    },
    "lab01_no_autograd": {
        "en": "used autograd ({used}): compute the gradients with your formulas, without autograd "
              "(no backward(), torch.autograd, .grad or enable_grad())",
        "es": "usó autograd ({used}): calcula los gradientes con tus fórmulas, sin autograd "
              "(sin backward(), torch.autograd, .grad ni enable_grad())",
    },
    "lab01_returned_none": {
        "en": "returned None (missing return?); expected {want}",
        "es": "devolvió None (¿falta un return?); se esperaba {want}",
    },
    "lab01_count": {
        "en": "returned {got} results; expected {n}: {names}",
        "es": "devolvió {got} resultados; se esperaban {n}: {names}",
    },
    "lab01_kind": {
        "en": "returned a {kind}; expected a tuple of {n} tensors: {names}",
        "es": "devolvió un {kind}; se esperaba una tupla de {n} tensores: {names}",
    },
    "lab01_not_tensor": {
        "en": "{name} is {kind}, not a tensor",
        "es": "{name} es {kind}, no un tensor",
    },
    "lab01_none_grad": {
        "en": "{name} is None (x.grad? .grad is filled only by backward(), "
              "which this exercise does not use: compute it with your formula)",
        "es": "{name} es None (¿x.grad? .grad solo lo rellena backward(), "
              "que este ejercicio no usa: calcúlalo con tu fórmula)",
    },
    "lab01_shape": {
        "en": "{name} has shape {got}, expected {want}",
        "es": "{name} tiene forma {got}, se esperaba {want}",
    },
    "lab01_transposed": {
        "en": "{name} is transposed: shape {got}, expected {want} (x.T @ delta?). "
              "A gradient has the shape of what it is the gradient of",
        "es": "{name} está traspuesto: forma {got}, se esperaba {want} (¿x.T @ delta?). "
              "Un gradiente tiene la forma de aquello de lo que es gradiente",
    },
    "lab01_transposed_square": {
        "en": "{name} is transposed (x.T @ delta for dW?): "
              "a gradient has the layout of what it is the gradient of",
        "es": "{name} está traspuesto (¿x.T @ delta para dW?): "
              "un gradiente tiene la disposición de aquello de lo que es gradiente",
    },
    "lab01_doubled": {
        "en": "{name}: the ½ is missing, it is twice the right value (L = ½ Σ (y − t)² gives "
              "∂L/∂y = y − t, not 2(y − t))",
        "es": "{name}: falta el ½, vale el doble de lo correcto (L = ½ Σ (y − t)² da "
              "∂L/∂y = y − t, no 2(y − t))",
    },
    "lab01_halved": {
        "en": "{name}: half the right value: ∂L/∂y = y − t already includes the ½",
        "es": "{name}: la mitad de lo correcto: ∂L/∂y = y − t ya incluye el ½",
    },
    "lab01_negated": {
        "en": "{name}: wrong sign: ∂L/∂y = y − t, not t − y",
        "es": "{name}: signo cambiado: ∂L/∂y = y − t, no t − y",
    },
    "lab01_dtype": {
        "en": "{name} came back as {got}, expected {want} (the inputs' dtype)",
        "es": "{name} volvió en {got}, se esperaba {want} (el dtype de las entradas)",
    },
    "lab01_device": {
        "en": "{name} came back on {got}, expected {want} (the inputs' device)",
        "es": "{name} volvió en {got}, se esperaba {want} (el dispositivo de las entradas)",
    },
    "lab01_not_finite": {
        "en": "{name} contains inf or NaN",
        "es": "{name} contiene inf o NaN",
    },
    "lab01_wrong": {
        "en": "{name} is off by {error:.2e} (max|G - R| / rms(R)), expected at most {tol:g}",
        "es": "{name} se desvía en {error:.2e} (max|G - R| / rms(R)), se esperaba como mucho {tol:g}",
    },
    "lab01_arrays": {
        "en": "expected {n} tensors ({names})",
        "es": "se esperaban {n} tensores ({names})",
    },
    "lab01_run": {
        "en": "run {run}: {problem}",
        "es": "ejecución {run}: {problem}",
    },
    "lab01_runs": {
        "en": "expected the gradients of {n} runs",
        "es": "se esperaban los gradientes de {n} ejecuciones",
    },
    "lab01_fp32_over": {
        "en": "run {run}: {name} differs from autograd by {error:.2e}, expected below {threshold:g}",
        "es": "ejecución {run}: {name} difiere de autograd en {error:.2e}, se esperaba menos de {threshold:g}",
    },
    "lab01_fp16_under": {
        "en": "no fp16 gradient is above {threshold:g} from the float64 reference ({errors}): "
              "were they computed at fp16?",
        "es": "ningún gradiente fp16 supera {threshold:g} respecto a la referencia float64 ({errors}): "
              "¿se calcularon en fp16?",
    },
    "lab01_walk": {
        "en": "the walk gave {got}, expected {want}",
        "es": "el recorrido dio {got}, se esperaba {want}",
    },
    "lab01_walk_bfs": {
        "en": "that is breadth-first order (a queue): go depth first, finishing each input's "
              "whole subgraph before the next input",
        "es": "ese es el orden en anchura (una cola): recorre en profundidad, terminando todo el "
              "subgrafo de una entrada antes de pasar a la siguiente",
    },
    "lab01_walk_no_seen": {
        "en": "a node reached by two paths is listed twice (the diamond of theory 03): keep a set "
              "of the nodes already seen",
        "es": "un nodo al que se llega por dos caminos aparece dos veces (el diamante de la "
              "teoría 03): guarda un conjunto de los nodos ya vistos",
    },
    "lab01_walk_reversed": {
        "en": "each node's inputs are taken last first (a stack popped in reverse?): follow "
              "next_functions in its order",
        "es": "las entradas de cada nodo se toman de la última a la primera (¿una pila?): sigue "
              "next_functions en su orden",
    },
    "lab01_pitfall_half": {
        "en": "these are the gradients of the loss with its ½ (W.grad / dW = 1): write the loss without the ½",
        "es": "estos son los gradientes de la pérdida con su ½ (W.grad / dW = 1): escribe la pérdida sin el ½",
    },
    "lab01_pitfall_twice": {
        "en": "these are the gradients of one backward() (W.grad / dW = 1): call backward(retain_graph=True), "
              "then backward() again, on the same loss and the same leaves",
        "es": "estos son los gradientes de un solo backward() (W.grad / dW = 1): llama a "
              "backward(retain_graph=True) y luego otra vez a backward() sobre la misma pérdida y las mismas hojas",
    },
    "lab01_pitfall_ratio": {
        "en": "W.grad / dW is {ratio:.3g} on average, where the formulas give 1: is this autograd's .grad of that loss?",
        "es": "W.grad / dW vale {ratio:.3g} de media, donde las fórmulas dan 1: ¿es el .grad de autograd para esa pérdida?",
    },
    "lab01_passed_pitfall": {
        "en": "✔ {exercise}: W.grad / dW = 2 on every entry, and so for x and b",
        "es": "✔ {exercise}: W.grad / dW = 2 en todas las componentes, y lo mismo para x y b",
    },
    "lab01_paths_at_once": {
        "en": "adds many paths at once ({used}): here add one path at a time, dx[i, k] += delta[i, j] * W[j, k] "
              "in loops (the matrix form is Exercise 1)",
        "es": "suma muchos caminos a la vez ({used}): aquí suma un camino cada vez, dx[i, k] += delta[i, j] * W[j, k] "
              "en bucles (la forma de matrices es el ejercicio 1)",
    },
    "lab01_paths_dx_transposed": {
        "en": "dx multiplies by Wᵀ (dx[i, k] += delta[i, j] * W[k, j]?): x[i, k] reaches y[i, j] "
              "through W[j, k], so its path contributes delta[i, j] * W[j, k]",
        "es": "dx multiplica por Wᵀ (¿dx[i, k] += delta[i, j] * W[k, j]?): x[i, k] llega a y[i, j] "
              "a través de W[j, k], así que su camino aporta delta[i, j] * W[j, k]",
    },
    "lab01_paths_one_example": {
        "en": "{name} counts one example of the batch only (`=` where `+=` belongs?): every example i "
              "uses the same weights, so each y[i, j] is a path: add them all",
        "es": "{name} cuenta solo un ejemplo del lote (¿`=` donde va `+=`?): todos los ejemplos i "
              "usan los mismos pesos, así que cada y[i, j] es un camino: súmalos todos",
    },
    "lab01_paths_one_output": {
        "en": "dx counts one output only (`=` where `+=` belongs?): x[i, k] reaches L through "
              "every y[i, j]: add one contribution per j",
        "es": "dx cuenta una sola salida (¿`=` donde va `+=`?): x[i, k] llega a L a través de "
              "todas las y[i, j]: suma una contribución por cada j",
    },
    "lab01_paths_db_not_summed": {
        "en": "db has shape {got}, expected {want}: b[j] reaches L through y[i, j] for every example i, "
              "so db sums over the batch",
        "es": "db tiene forma {got}, se esperaba {want}: b[j] llega a L a través de y[i, j] para cada "
              "ejemplo i, así que db suma sobre el lote",
    },
    "lab01_passed_paths": {
        "en": "✔ {exercise}: dx, dW and db by paths match autograd on {n} examples",
        "es": "✔ {exercise}: dx, dW y db por caminos coinciden con autograd en {n} ejemplos",
    },
    "lab01_passed_grads": {
        "en": "✔ {exercise}: dx {dx}, dW {dW}, db {db} match autograd within {tol:g}",
        "es": "✔ {exercise}: dx {dx}, dW {dW}, db {db} coinciden con autograd con un error menor que {tol:g}",
    },
    "lab01_passed_walk": {
        "en": "✔ {exercise}: {n} graphs walked in the expected order",
        "es": "✔ {exercise}: {n} grafos recorridos en el orden esperado",
    },
    "lab01_passed_bonus": {
        "en": "✔ bonus {number}: matches autograd",
        "es": "✔ extra {number}: coincide con autograd",
    },
    "lab01_bonus_skipped": {
        "en": "bonus {number} not attempted (optional: it is graded 0 and costs nothing)",
        "es": "extra {number} sin intentar (opcional: se califica con 0 y no resta nada)",
    },
    "lab01_report_failed": {
        "en": "NOT VALID: these checks did not pass when this report was written: {failed}. "
              "Fix them and run this cell again.",
        "es": "NO VÁLIDO: estas comprobaciones no se superaban cuando se escribió este informe: "
              "{failed}. Corrígelas y vuelve a ejecutar esta celda.",
    },
    "lab01_report_no_paragraph": {
        "en": "(Exercise 4's answer is not written yet, or the notebook was not saved "
              "before this cell ran.)",
        "es": "(La respuesta del ejercicio 4 aún no está escrita, o el cuaderno no se guardó "
              "antes de ejecutar esta celda.)",
    },
    "start_done": {
        "en": "Your copy is in {folder}: work there. Nothing the course does touches it.",
        "es": "Tu copia está en {folder}: trabaja ahí. Nada de lo que haga el curso la modifica.",
    },
    "start_exists": {
        "en": "{folder} already exists but holds no {notebook}: it was not touched. Open it with "
              "`python -m course lab en`; to start over, rename that folder first (your files stay in it).",
        "es": "La carpeta {folder} ya existe pero no contiene {notebook}: no se ha tocado. Ábrela con "
              "`python -m course lab es`; para empezar de cero, renombra antes esa carpeta (tus archivos "
              "siguen en ella).",
    },
    "start_unknown": {
        "en": "there is no assignment {assignment} in release/ (run this in the course folder); "
              "assignments: {known}",
        "es": "no hay ninguna tarea {assignment} en release/ (ejecuta esta orden en la carpeta del curso); "
              "tareas: {known}",
    },
    # ---- student's first hour: errors a student predictably causes (course.student.hint,
    #      course.student.explain), Validate (course.validate), start/lab/submit (course.start,
    #      course.submit) ----
    "first_hour_name": {
        "en": "`{name}` is not defined yet: run the cells above this one first "
              "(Run ▸ Run All Above Selected Cell); if an exercise defines it, do that exercise first",
        "es": "`{name}` aún no está definido: ejecuta antes las celdas de arriba "
              "(Run ▸ Ejecutar todo por encima de la celda seleccionada); si lo define un ejercicio, "
              "haz antes ese ejercicio",
    },
    "first_hour_name_in_function": {
        "en": "`{name}` is not defined (in {function}()): a typo, or a name from a cell you have not run yet?",
        "es": "`{name}` no está definido (en {function}()): ¿una errata, o un nombre de una celda que aún no "
              "has ejecutado?",
    },
    "first_hour_stub": {
        "en": "this exercise is not done yet: {function}() still says \"{stub}\". Write it in its cell, "
              "run that cell, then this one",
        "es": "este ejercicio aún no está hecho: {function}() todavía dice \"{stub}\". Escribe la función "
              "en su celda, ejecuta esa celda y después esta",
    },
    "first_hour_stub_cell": {
        "en": "this cell is not done yet: it still says \"{stub}\". Write your code in place of that line",
        "es": "esta celda aún no está hecha: todavía dice \"{stub}\". Escribe tu código en lugar de esa línea",
    },
    "start_again": {
        "en": "{folder} already holds your work: it is opened as it is, nothing copied over it.",
        "es": "{folder} ya contiene tu trabajo: se abre tal cual, sin copiar nada encima.",
    },
    "lab_root": {
        "en": "You are root: JupyterLab refuses to run as root unless told to, so --allow-root is added "
              "(better: work as an ordinary user).",
        "es": "Eres root: JupyterLab no se ejecuta como root si no se le indica, así que se añade "
              "--allow-root (mejor: trabaja como usuario normal).",
    },
    "validate_first": {
        "en": "{title} — do this one first",
        "es": "{title} — haz primero este",
    },
    "validate_renamed_title": {
        "en": "{name}: not the assignment's notebook",
        "es": "{name}: no es el cuaderno de la tarea",
    },
    "validate_renamed": {
        "en": "only {folder}/{name} is handed in and graded: work and validate in that file "
              "(rename this one back to {name} if it holds your work)",
        "es": "solo se entrega y se califica {folder}/{name}: trabaja y valida en ese archivo "
              "(si este contiene tu trabajo, devuélvele el nombre {name})",
    },
    "validate_missing": {
        "en": "this graded cell is missing: it is worth 0 points if it stays missing. Put it back: "
              "copy it from {release} and paste it here in its place",
        "es": "falta esta celda calificada: vale 0 puntos si sigue faltando. Vuelve a ponerla: "
              "cópiala de {release} y pégala aquí en su sitio",
    },
    "validate_altered": {
        "en": "this graded cell was changed: grading puts the original back, so your change counts "
              "for nothing. Undo it (the original is in {release})",
        "es": "esta celda calificada se ha modificado: al corregir se repone la original, así que tu "
              "cambio no cuenta. Deshazlo (la original está en {release})",
    },
    "validate_copy_release": {
        "en": "The released notebook lies outside your home folder, where JupyterLab cannot open it: make "
              "{copy}, your copy of it, in a Terminal (File > New > Terminal) with\n    {command}",
        "es": "El cuaderno publicado está fuera de tu carpeta personal y JupyterLab no puede abrirlo: haz "
              "{copy}, tu copia, en un terminal (Archivo > Nuevo > Terminal) con\n    {command}",
    },
    "validate_partial": {
        "en": "passed some but not all of its checks",
        "es": "superó algunas de sus comprobaciones, pero no todas",
    },
    "validate_written_blank": {
        "en": "your teacher grades this answer; write it before you hand in",
        "es": "esta respuesta la califica tu profesor; escríbela antes de entregar",
    },
    "submit_renamed": {
        "en": "{folder} holds no {notebook}, only {found}: only {notebook} is handed in. If one of those is your "
              "work, rename it back to {notebook} (in JupyterLab's file browser: right-click > Rename), then run "
              "this command again",
        "es": "{folder} no contiene {notebook}, solo {found}: solo se entrega {notebook}. Si uno de esos es tu "
              "trabajo, devuélvele el nombre {notebook} (en el explorador de archivos de JupyterLab: clic derecho "
              "> Renombrar) y vuelve a ejecutar esta orden",
    },
    "submit_nothing": {
        "en": "there is no {notebook} to hand in: start the assignment with `python -m course start {assignment}`",
        "es": "no hay ningún {notebook} que entregar: empieza la tarea con `python -m course start {assignment}`",
    },
    "submit_checking": {
        "en": "Checking {notebook} as Validate does (its visible tests and its graded cells)…",
        "es": "Comprobando {notebook} como hace Validate (sus tests visibles y sus celdas calificadas)…",
    },
    "submit_passed": {
        "en": "✔ Every visible test passes and every graded cell is in place.",
        "es": "✔ Pasan todos los tests visibles y todas las celdas calificadas están en su sitio.",
    },
    "submit_failed": {
        "en": "✘ {n} problem(s) above: you can still hand this in, but fix them first if you have time "
              "(then run this command again).",
        "es": "✘ {n} problema(s) (véase arriba): puedes entregarlo igualmente, pero si te da tiempo "
              "corrígelos antes (y vuelve a ejecutar esta orden).",
    },
    "submit_written": {
        "en": "File to hand in: {file}. Upload it, as it is, to the assignment in your course's LMS "
              "(Moodle, Canvas). Keep its name {name}: it tells the grader which assignment it is.",
        "es": "Archivo para entregar: {file}. Súbelo tal cual a la tarea en la plataforma de tu curso "
              "(Moodle, Canvas). No le cambies el nombre, {name}: indica al corrector de qué tarea es.",
    },
    "first_hour_count": {
        "en": "{n} values where {m} are expected",
        "es": "{n} valores donde se esperan {m}",
    },
    "first_hour_one_for_many": {
        "en": "one value where a tuple of {m} is expected",
        "es": "un solo valor donde se espera una tupla de {m}",
    },
    "first_hour_many_for_one": {
        "en": "{n} values where one number is expected",
        "es": "{n} valores donde se espera un solo número",
    },
    "cohort_title": {
        "en": "Cohort report: {assignment}",
        "es": "Informe del grupo: {assignment}",
    },
    "cohort_summary": {
        "en": "{graded} of {total} submissions graded; mean score {mean:.1f} of {max:g}.",
        "es": "{graded} de {total} entregas calificadas; nota media {mean:.1f} de {max:g}.",
    },
    "cohort_distribution": {
        "en": "Score distribution",
        "es": "Distribución de las notas",
    },
    "cohort_score": {"en": "score", "es": "nota"},
    "cohort_students": {"en": "students", "es": "estudiantes"},
    "cohort_questions": {"en": "Per question", "es": "Por pregunta"},
    "cohort_question": {"en": "question", "es": "pregunta"},
    "cohort_points": {"en": "points", "es": "puntos"},
    "cohort_pass_rate": {"en": "full marks", "es": "puntuación completa"},
    "cohort_failures": {
        "en": "most common failure reasons (how many; one example)",
        "es": "motivos de fallo más frecuentes (cuántos; un ejemplo)",
    },
    # ---- what of a submission was not taken in (grader/plugins/intake.py) ----
    "unreadable_message": {
        "en": "your code made the kernel send a message the grader cannot read ({error}); this "
              "cell was stopped and the rest of the notebook was run in a new kernel",
        "es": "tu código hizo que el kernel enviara un mensaje que el corrector no puede leer "
              "({error}); esta celda se detuvo y el resto del cuaderno se ejecutó en un kernel nuevo",
    },
    "refused_files": {
        "en": "**Files of this submission the grader did not open (only ordinary files of your own "
              "folder are graded):**\n{files}",
        "es": "**Archivos de esta entrega que el corrector no abrió (solo se corrigen archivos "
              "normales de tu propia carpeta):**\n{files}",
    },
    "refused_link": {"en": "a symbolic link (not followed)", "es": "un enlace simbólico (no se sigue)"},
    "refused_hard_link": {
        "en": "a hard link (a file with another name elsewhere; not opened)",
        "es": "un enlace duro (un archivo con otro nombre en otro sitio; no se abre)",
    },
    # --- inbound folders `nbgrader collect` refuses (grader/plugins/exchange.py) ---
    "collect_refused_link": {
        "en": "a symbolic link posing as {student}'s submission (made by {owner}; not followed)",
        "es": "un enlace simbólico que se hace pasar por la entrega de {student} (creado por {owner}; "
              "no se sigue)",
    },
    "collect_refused_not_folder": {
        "en": "not a folder (made by {owner})", "es": "no es una carpeta (creada por {owner})"},
    "collect_refused_owner": {
        "en": "named as {student}'s submission but made by {owner}: not collected",
        "es": "se presenta como entrega de {student} pero la creó {owner}: no se recoge",
    },
    "collect_refused_future": {
        "en": "dated in the future (it would displace every later submission of {student}): not collected",
        "es": "fechada en el futuro (desplazaría todas las entregas posteriores de {student}): no se recoge",
    },
    "collect_changed": {
        "en": "changed after it was handed in (its last change is later than the time in its name): "
              "collected as it is, dated by its last change",
        "es": "cambió después de entregarse (su último cambio es posterior a la hora de su nombre): "
              "se recoge tal como está, con la fecha de su último cambio",
    },
    # --- a submission over the size cap (course/exchange.py, classroom/hand_in.py) ---
    "submit_too_big": {
        "en": "Not handed in: {assignment} holds {found} MiB of files, more than the {mib} MiB a submission "
              "may hold. Take the large files you do not need out of the folder {assignment}/ and submit again.",
        "es": "No se ha entregado: {assignment} tiene {found} MiB de archivos, más de los {mib} MiB que puede "
              "tener una entrega. Saca de la carpeta {assignment}/ los archivos grandes que no necesites y "
              "vuelve a entregar.",
    },
    "hand_in_removed": {
        "en": "Your submission of {assignment} ({folder}) was removed from the exchange: it held {found} MiB of "
              "files, more than the {mib} MiB a submission may hold, so it is not handed in. Take the large "
              "files you do not need out of the folder {assignment}/ and submit again.\n",
        "es": "Tu entrega de {assignment} ({folder}) se ha quitado del intercambio: tenía {found} MiB de "
              "archivos, más de los {mib} MiB que puede tener una entrega, así que no está entregada. Saca de "
              "la carpeta {assignment}/ los archivos grandes que no necesites y vuelve a entregar.\n",
    },
    "cohort_refused": {"en": "Refused or marked at collection", "es": "Rechazadas o marcadas al recoger"},
    "cohort_refused_hint": {
        "en": "Folders in the exchange's inbound that `nbgrader collect` did not take in (each "
              "student's own latest submission was collected instead), or took in marked.",
        "es": "Carpetas del buzón de entrada del intercambio que `nbgrader collect` no recogió (de "
              "cada estudiante se recogió su última entrega propia), o recogió marcadas.",
    },
    "cohort_refused_folder": {"en": "Folder", "es": "Carpeta"},
    "cohort_refused_reason": {"en": "Reason", "es": "Motivo"},
    "refused_fifo": {"en": "a FIFO (named pipe)", "es": "una FIFO (tubería con nombre)"},
    "refused_socket": {"en": "a socket", "es": "un socket"},
    "refused_device": {"en": "a device", "es": "un dispositivo"},
    "refused_other": {"en": "not an ordinary file", "es": "no es un archivo normal"},
    "refused_too_big": {
        "en": "over the size cap of a submission ({mib} MiB in all)",
        "es": "supera el tamaño máximo de una entrega ({mib} MiB en total)",
    },
    # --- an archive handed in instead of the notebook (grader/plugins/preprocessors.py) ---
    "archive_not_opened": {
        "en": "you handed in a {kind} archive, and the grader does not open archives: "
              "hand in the notebook itself, {notebook}",
        "es": "entregaste un archivo comprimido {kind}, y el corrector no abre archivos "
              "comprimidos: entrega el propio cuaderno, {notebook}",
    },
    "cohort_per_student": {"en": "Per student", "es": "Por estudiante"},
    "cohort_student": {"en": "student", "es": "estudiante"},
    "cohort_note": {"en": "note", "es": "observación"},
    "cohort_csv": {
        "en": "Every cell's score and reason: {csv}",
        "es": "La nota y el motivo de cada celda: {csv}",
    },
    # --- the course website (authoring/site.py) ---
    "site_title": {"en": "Autograd by Hand", "es": "Autograd a mano"},
    "site_intro": {
        "en": ("An open course on reverse-mode automatic differentiation. You derive gradients by hand, "
               "check them against finite differences and PyTorch, and build them into a small scalar "
               "engine, `minigrad`. Each unit is a Jupyter notebook with exercises that are graded "
               "automatically; these pages show each one as you receive it, without the answers."),
        "es": ("Un curso abierto sobre diferenciación automática en modo inverso. Obtienes gradientes "
               "a mano, los compruebas con diferencias finitas y con PyTorch, y los incorporas a un "
               "pequeño motor escalar, `minigrad`. Cada unidad es un cuaderno de Jupyter con ejercicios "
               "que se corrigen automáticamente; estas páginas muestran cada uno tal como lo recibes, "
               "sin las soluciones."),
    },
    "site_units": {"en": "Units", "es": "Unidades"},
    "site_units_note": {
        "en": ("The figures are those of the parts that do not depend on your answers; the rest "
               "appears when you run the notebook."),
        "es": ("Solo se muestran las figuras de las partes que no dependen de tus respuestas; "
               "las demás aparecen cuando ejecutas el cuaderno."),
    },
    "site_guides": {"en": "Guides", "es": "Guías"},
    "site_page_glossary": {
        "en": "Glossary (English–Spanish)",
        "es": "Glosario (español–inglés)",
    },
    "site_guides_note": {
        "en": "For students, instructors and authors: see the [guides](docs/index.md).",
        "es": "Para estudiantes, profesorado y autores: consulta las [guías](docs/index.md).",
    },
    "site_start_title": {"en": "Start this assignment", "es": "Empieza esta tarea"},
    "site_after_prediction": {
        "en": "*In the notebook, what the measurement above showed is discussed here, once you have "
              "recorded your prediction and run it.*",
        "es": "*En el cuaderno, aquí se comenta lo que ha mostrado la medida de arriba, una vez que "
              "hayas registrado tu predicción y la hayas ejecutado.*",
    },
    "site_start_body": {
        "en": ("This page is the notebook as you receive it: read it here, work on it in Jupyter. "
               "If your class has a JupyterHub, open the assignment there. On your own computer, "
               "after installing the course (see the README), run\n\n"
               "```bash\npython -m course start {assignment}\n```\n\n"
               "It copies the notebook to `my-work/{assignment}/` and opens it in JupyterLab."),
        "es": ("Esta página es el cuaderno tal como lo recibes: léelo aquí y trabaja en él en Jupyter. "
               "Si tu clase tiene un JupyterHub, abre allí la tarea. En tu propio ordenador, después "
               "de instalar el curso (consulta el README), ejecuta\n\n"
               "```bash\npython -m course start {assignment}\n```\n\n"
               "Esta orden copia el cuaderno en `my-work/{assignment}/` y lo abre en JupyterLab."),
    },
    "site_scrolls_code": {"en": "Code block, scrolls: use the arrow keys",
                          "es": "Bloque de código desplazable: usa las flechas"},
    "site_scrolls_output": {"en": "Output, scrolls: use the arrow keys",
                            "es": "Salida desplazable: usa las flechas"},

    # ---- the class hub's login page (classroom/templates/login.html): both languages, as it comes
    # before the hub knows who, so in which language, is signing in ----
    "hub_sign_in": {"en": "Sign in", "es": "Iniciar sesión"},
    "hub_username": {"en": "Username", "es": "Usuario"},
    "hub_password": {"en": "Password", "es": "Contraseña"},
    "hub_show_password": {"en": "Show password", "es": "Mostrar contraseña"},
    "hub_login_error": {"en": "Invalid username or password", "es": "Usuario o contraseña incorrectos"},
    "hub_insecure": {
        "en": "Warning: this hub is served over HTTP, without encryption: ask for HTTPS.",
        "es": "Aviso: este hub se sirve por HTTP, sin cifrar: pide que use HTTPS.",
    },

    # ---- figures in words (course/figures.py): the alt text and the description of each figure ----
    "figure_alt_plot": {"en": "{title} ({series}; {axes})", "es": "{title} ({series}; {axes})"},
    "figure_alt_graph": {
        "en": "{title} (drawing of a computation graph: {nodes} nodes, {operations} operations)",
        "es": "{title} (dibujo de un grafo de cómputo: {nodes} nodos, {operations} operaciones)",
    },
    "figure_count_lines": {"en": "{n} lines", "en_one": "1 line", "es": "{n} líneas", "es_one": "1 línea"},
    "figure_count_points": {"en": "{n} series of points", "en_one": "1 series of points",
                            "es": "{n} series de puntos", "es_one": "1 serie de puntos"},
    "figure_axes_linear": {"en": "linear axes", "es": "ejes lineales"},
    "figure_axes_loglog": {"en": "both axes logarithmic", "es": "los dos ejes logarítmicos"},
    "figure_axes_logy": {"en": "vertical axis logarithmic", "es": "eje vertical logarítmico"},
    "figure_axes_logx": {"en": "horizontal axis logarithmic", "es": "eje horizontal logarítmico"},
    "figure_axis_x": {"en": "Horizontal axis: {label}, from {low} to {high}{log}.",
                      "es": "Eje horizontal: {label}, de {low} a {high}{log}."},
    "figure_axis_y": {"en": "Vertical axis: {label}, from {low} to {high}{log}.",
                      "es": "Eje vertical: {label}, de {low} a {high}{log}."},
    "figure_log": {"en": ", logarithmic scale", "es": ", en escala logarítmica"},
    "figure_series": {"en": "{label} ({style}): {summary}.", "es": "{label} ({style}): {summary}."},
    "figure_unnamed": {"en": "a line without a name", "es": "una línea sin nombre"},
    "figure_and": {"en": " and ", "es": " y "},
    "figure_marker_circles": {"en": "circles", "es": "círculos"},
    "figure_marker_squares": {"en": "squares", "es": "cuadrados"},
    "figure_marker_triangles": {"en": "triangles", "es": "triángulos"},
    "figure_marker_triangles_down": {"en": "downward triangles", "es": "triángulos hacia abajo"},
    "figure_marker_diamonds": {"en": "diamonds", "es": "rombos"},
    "figure_marker_crosses": {"en": "crosses", "es": "aspas"},
    "figure_marker_pluses": {"en": "plus signs", "es": "signos más"},
    "figure_marker_dots": {"en": "dots", "es": "puntos"},
    "figure_hollow": {"en": ", hollow", "es": " huecos"},
    "figure_line_solid": {"en": "solid line", "es": "línea continua"},
    "figure_line_dashed": {"en": "dashed line", "es": "línea discontinua"},
    "figure_line_dotted": {"en": "dotted line", "es": "línea punteada"},
    "figure_line_dashdot": {"en": "dash-dot line", "es": "línea de trazo y punto"},
    "figure_outside": {"en": "outside the plotted range", "es": "fuera del rango dibujado"},
    "figure_single": {"en": "one point, {y} at {x} = {at}", "es": "un punto, {y} en {x} = {at}"},
    "figure_constant": {"en": "constant at {y} from {x} = {first} to {last}",
                        "es": "constante en {y} de {x} = {first} a {last}"},
    "figure_starts": {"en": "from {y} at {x} = {at}", "es": "parte de {y} en {x} = {at}"},
    "figure_stays": {"en": "stays at about {y} up to {x} = {at}", "es": "se mantiene en torno a {y} hasta {x} = {at}"},
    "figure_jumps": {"en": "jumps to {y} between {x} = {since} and {at}",
                     "es": "salta a {y} entre {x} = {since} y {at}"},
    "figure_rises": {"en": "rises{how} to {y} at {x} = {at}", "es": "sube{how} hasta {y} en {x} = {at}"},
    "figure_falls": {"en": "falls{how} to {y} at {x} = {at}", "es": "baja{how} hasta {y} en {x} = {at}"},
    "figure_as": {"en": " as {power}", "es": " como {power}"},
    "figure_slope": {"en": " with slope {k}", "es": " con pendiente {k}"},
    "figure_points": {
        "en": "{n} points from {x} = {first} to {last}, between {low} and {high}, median {median}",
        "es": "{n} puntos de {x} = {first} a {last}, entre {low} y {high}, mediana {median}",
    },
    "figure_horizontal": {"en": "horizontal line at {y}", "es": "línea horizontal en {y}"},
    "figure_vertical": {"en": "vertical line at {x} = {at}", "es": "línea vertical en {x} = {at}"},
    "figure_band": {"en": "A shaded band from {x} = {low} to {high}.",
                    "es": "Una franja sombreada de {x} = {low} a {high}."},
    "figure_above": {"en": "; above it: {found}", "es": "; por encima: {found}"},
    "figure_above_count": {"en": "{label} {n} of {of}", "es": "{label}: {n} de {of}"},
    "figure_none_above": {"en": "; no point above it", "es": "; ningún punto por encima"},
    "figure_others_below": {"en": "; every other point below", "es": "; todos los demás, por debajo"},
    "figure_graph": {
        "en": "Inputs on the left; each arrow goes from an input to the node it feeds. Leaves (inputs we"
              " set): {leaves}. Operations, in the order they are computed: {operations}.",
        "es": "Entradas a la izquierda; cada flecha va de una entrada al nodo al que alimenta. Hojas"
              " (entradas que fijamos): {leaves}. Operaciones, en el orden en que se calculan: {operations}.",
    },
    "figure_graph_untitled": {"en": "A computation graph", "es": "Un grafo de cómputo"},
    "figure_graph_grad": {"en": ", grad {grad}", "es": ", grad {grad}"},
    "figure_graph_feeds": {"en": "{name} feeds {users}", "es": "{name} alimenta a {users}"},
    "figure_graph_shared": {"en": "Inputs of more than one node: {shared}.",
                            "es": "Entradas de más de un nodo: {shared}."},
    # the cohort report's histogram in words (grader/reports/report.py)
    "cohort_distribution_words": {
        "en": "The histogram of the {n} graded students' scores (the maximum is {max}): {bars}.",
        "en_one": "The histogram of the one graded student's score (the maximum is {max}): {bars}.",
        "es": "Histograma de las notas de los {n} estudiantes calificados (el máximo es {max}): {bars}.",
        "es_one": "Histograma de la nota del único estudiante calificado (el máximo es {max}): {bars}.",
    },
    "cohort_distribution_bar": {"en": "{n} students at {score}", "en_one": "1 student at {score}",
                                "es": "{n} estudiantes con {score}", "es_one": "1 estudiante con {score}"},

    # ---- feedback's chrome: nbgrader's feedback template in the student's language ----
    "feedback_score": {"en": "Score", "es": "Puntuación"},
    "feedback_test_cell": {"en": "Test cell", "es": "Celda de test"},
    "feedback_coding": {"en": "Coding free-response", "es": "Respuesta libre en código"},
    "feedback_written": {"en": "Written response", "es": "Respuesta escrita"},
    "feedback_task": {"en": "Task", "es": "Tarea"},
    "feedback_comment": {"en": "Comment", "es": "Comentario"},
    "feedback_comments": {"en": "Comments", "es": "Comentarios"},
    "feedback_late_penalty": {"en": "Late submission penalty", "es": "Penalización por retraso"},
    "feedback_top": {"en": "Top", "es": "Arriba"},
    # the labels above graded cells: in the page's language, as WCAG 3.1.2 asks of every passage
    "feedback_student_answer": {"en": "Student's answer", "es": "Respuesta del estudiante"},
    "feedback_student_task": {"en": "Student's task", "es": "Tarea del estudiante"},
    "feedback_grade_cell": {"en": "Grade cell", "es": "Celda calificada"},
    # ---- cohort report: one maximum, extra credit apart, similarity hints ----
    "cohort_extra_credit": {
        "en": "Scores include extra credit, which can go past the maximum ({students} "
              "students earned some; see the column of its own).",
        "es": "Las notas incluyen los puntos extra, que pueden superar el máximo ({students} "
              "estudiantes obtuvieron alguno; están en su propia columna).",
    },
    "cohort_maximum": {"en": "maximum", "es": "máximo"},
    "cohort_extra": {"en": "extra credit", "es": "puntos extra"},
    "cohort_bonus_points": {"en": "0 (+{bonus:g} extra)", "es": "0 (+{bonus:g} extra)"},
    "cohort_similar": {"en": "Similar answers", "es": "Respuestas parecidas"},
    "cohort_similar_hint": {
        "en": "Hints, not verdicts: answer cells identical or nearly identical across students "
              "(comments and spacing aside; short answers left out). Honest work can coincide, "
              "and working together may be allowed: read the cells before deciding anything.",
        "es": "Son indicios, no veredictos: celdas de respuesta idénticas o casi idénticas entre "
              "estudiantes (sin contar comentarios ni espacios; se omiten las respuestas cortas). "
              "El trabajo honrado puede coincidir y quizá se permita trabajar en grupo: lee las "
              "celdas antes de decidir nada.",
    },
    "cohort_identical": {"en": "identical", "es": "idénticas"},
    "cohort_nearly": {"en": "{percent}% alike", "es": "parecidas en un {percent} %"},
    "cohort_no_similar": {"en": "None found.", "es": "No se ha encontrado ninguna."},
    # ---- the report: what awaits hand grading, and what to do next (grader/reports/report.py) ----
    "cohort_awaits_hand": {"en": "awaits hand grading", "es": "pendiente de calificar a mano"},
    "cohort_left_blank": {
        "en": "left as released: 0 points (nbgrader's rule for an answer not written)",
        "es": "sin cambios respecto a la versión publicada: 0 puntos (la regla de nbgrader para una respuesta "
              "no escrita)",
    },
    "cohort_graded_by_hand": {"en": "graded by hand", "es": "calificada a mano"},
    "cohort_pending_points": {
        "en": "{n:g} points await hand grading", "es": "{n:g} puntos pendientes de calificar a mano",
        "en_one": "1 point awaits hand grading", "es_one": "1 punto pendiente de calificar a mano",
    },
    "cohort_pending_summary": {
        "en": "{points:g} points of {n} submissions await hand grading: those scores are not final yet.",
        "es": "Quedan {points:g} puntos de {n} entregas por calificar a mano: esas notas aún no son "
              "definitivas.",
        "en_one": "{points:g} points of 1 submission await hand grading: its score is not final yet.",
        "es_one": "Quedan {points:g} puntos de 1 entrega por calificar a mano: esa nota aún no es definitiva.",
    },
    "cohort_question_pending": {
        "en": "{n} answers await hand grading ({points:g} points)",
        "es": "{n} respuestas pendientes de calificar a mano ({points:g} puntos)",
        "en_one": "1 answer awaits hand grading ({points:g} points)",
        "es_one": "1 respuesta pendiente de calificar a mano ({points:g} puntos)",
    },
    "cohort_next_title": {"en": "Next steps", "es": "Próximos pasos"},
    "cohort_next_formgrader": {
        "en": "Grade the written answers of {n} submissions in formgrader ({points:g} points await hand "
              "grading): in JupyterLab, Nbgrader > Formgrader > Manage Assignments > the assignment > "
              "Needs manual grade.",
        "es": "Califica en formgrader las respuestas escritas de {n} entregas (quedan {points:g} puntos por "
              "calificar a mano): en JupyterLab, Nbgrader > Formgrader > Manage Assignments > la tarea > "
              "Needs manual grade.",
    },
    "cohort_next_regrade": {
        "en": "{n} submissions were not graded: read their logs (above), then {command} grades just those.",
        "es": "{n} entregas no se calificaron: lee sus registros (arriba) y después {command} califica solo esas.",
    },
    "cohort_next_feedback": {
        "en": "Write the students' feedback: {command} (on a hub, then {release}).",
        "es": "Genera la retroalimentación de los estudiantes: {command} (en un hub, después {release}).",
    },
    "cohort_next_export": {
        "en": "Export the grades to the LMS: {command} (it refuses while points await hand grading).",
        "es": "Exporta las notas a la plataforma: {command} (se niega mientras queden puntos por calificar "
              "a mano).",
    },
    # ---- the demo's summary (grader/demo.py) ----
    "demo_what_happened": {"en": "What came of each submission:", "es": "Qué pasó con cada entrega:"},
    "demo_fork_bomb": {
        "en": "Its extra cell forked without end; the sandbox contained it ({refused}; {defences}): the "
              "machine, the grader and the other submissions were untouched. Its answers are the honest "
              "ones, so it gets full marks: the sandbox stops what code does to the machine, and the "
              "score comes only from the checks of the graded cells.",
        "es": "Su celda de más creaba procesos sin fin; el entorno aislado la contuvo ({refused}; {defences}): "
              "ni la máquina, ni el corrector, ni las demás entregas se vieron afectados. Sus respuestas son "
              "las honradas, así que obtiene la nota máxima: el entorno aislado detiene lo que el código hace "
              "a la máquina, y la nota solo sale de las comprobaciones de las celdas calificadas.",
    },
    "demo_fork_bomb_stopped": {"en": "stopped at its process limit", "es": "detenida en su límite de procesos"},
    "demo_honest": {"en": "The instructor's own answers.", "es": "Las respuestas del propio profesor."},
    "demo_wrong": {
        "en": "One wrong answer (a sign in forward()): that exercise's checks fail, with the reason.",
        "es": "Una respuesta mal (un signo en forward()): fallan las comprobaciones de ese ejercicio, con el "
              "motivo.",
    },
    "demo_hard_coded": {
        "en": "Answers hard-coded for the visible tests' point: they pass those, and fail the hidden checks "
              "at points drawn at grading time.",
        "es": "Respuestas escritas a mano para el punto de los tests visibles: los superan, y fallan las "
              "comprobaciones ocultas en puntos elegidos al azar al corregir.",
    },
    "demo_snoop": {
        "en": "Hard-coded answers, and a cell that looks for the answer key and the gradebook (not in its "
              "sandbox: found nothing) and replaces abs, math.isclose and the visible test's helper (the "
              "grader decides outside the kernel): scored as the hard-coded ones.",
        "es": "Respuestas escritas a mano y una celda que busca las soluciones y el libro de calificaciones "
              "(no están en su entorno aislado: no encontró nada) y sustituye abs, math.isclose y la ayuda "
              "de los tests visibles (el corrector decide fuera del kernel): la misma nota que las escritas "
              "a mano.",
    },
    "demo_kept": {
        "en": "The demo course stays in {folder} for you to look at; when you are done: rm -r {folder}",
        "es": "El curso de demostración se queda en {folder} para que lo examines; cuando termines: "
              "rm -r {folder}",
    },
    # ---- every command's one-line error (course/commands.py) ----
    "cli_help": {"en": "(`{prog} --help` explains every option)",
                 "es": "(`{prog} --help` explica todas las opciones)"},
    "cli_unknown": {"en": "unknown option or argument: {words}", "es": "opción o argumento desconocido: {words}"},
    "cli_required": {"en": "missing argument: {names}", "es": "falta el argumento: {names}"},
    "cli_choice": {"en": "{argument}: {value} is not one of {choices}",
                   "es": "{argument}: {value} no es ninguno de estos: {choices}"},
    "cli_value": {"en": "{argument} needs a value", "es": "{argument} necesita un valor"},
    "cli_invalid": {"en": "{argument}: {value} is not a valid {kind}",
                    "es": "{argument}: {value} no es un valor {kind} válido"},
    "cli_no_class": {"en": "{option}: there is no {cls} to configure (a typo?)",
                     "es": "{option}: no hay ningún {cls} que configurar (¿una errata?)"},
    "cli_no_trait": {"en": "{option}: {cls} has no setting {trait} (a typo?)",
                     "es": "{option}: {cls} no tiene ningún ajuste {trait} (¿una errata?)"},
    "cli_set_here": {"en": "{option}: this command sets it itself", "es": "{option}: esta orden ya lo fija"},
    "cli_bad_value": {"en": "{option}: {why}", "es": "{option}: {why}"},
}


def say(key, lang, **fields):
    """The message `key` in `lang` (English when the language is unknown). A message
    may have a singular form, `<lang>_one`, used when the field `n` is 1."""
    texts = MESSAGES[key]
    lang = lang if lang in texts else "en"
    if fields.get("n") == 1 and f"{lang}_one" in texts:
        return texts[f"{lang}_one"].format(**fields)
    return texts[lang].format(**fields)
