"""Every sentence the course machinery shows a person, in English and Spanish."""

LANGUAGES = ("en", "es")

MESSAGES = {
    "lab03_not_restored": {
        "en": "the inputs' .data changed from {before} to {after}: restore each input after perturbing it",
        "es": "el .data de los inputs pasó de {before} a {after}: restaura cada input tras perturbarlo",
    },
    "lab03_unannotated": {
        "en": "gradcheck needs type annotations on every parameter and on its return value",
        "es": "gradcheck necesita anotaciones de tipo en cada parámetro y en su valor de retorno",
    },
    "returned": {
        "en": "{what} returned {got}, expected {want}",
        "es": "{what} devolvió {got}, se esperaba {want}",
    },
    "returned_none": {
        "en": "{what} returned None (missing return?), expected {want}",
        "es": "{what} devolvió None (¿falta un return?), se esperaba {want}",
    },
    "element_differs": {
        "en": " (element {index}, counting from 0, is the first that differs)",
        "es": " (el elemento {index}, contando desde 0, es el primero que difiere)",
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
    },
    "evidence": {
        "en": "{grade_id}: {n} hidden cases run; the grader judges them",
        "es": "{grade_id}: ejecutados {n} casos ocultos; los juzga el corrector",
    },
    "no_evidence": {
        "en": "the checks of this cell did not run to the end{why}",
        "es": "las comprobaciones de esta celda no llegaron al final{why}",
    },
    "bad_evidence": {
        "en": "this cell's output was tampered with ({detail})",
        "es": "la salida de esta celda fue manipulada ({detail})",
    },
    "no_check": {
        "en": "no check is registered for {grade_id}: ask your instructor",
        "es": "no hay ninguna comprobación registrada para {grade_id}: avisa a tu profesor",
    },
    "stated_differs": {
        "en": "the test cell of {grade_id} states other values than the grader enforces: ask your instructor",
        "es": "la celda de test de {grade_id} dice otros valores que los que exige el corrector: avisa a tu profesor",
    },
    "kernel_died": {
        "en": "the kernel died while running this cell (memory limit, os._exit, a crash); "
              "grading went on in a new kernel",
        "es": "el kernel murió ejecutando esta celda (límite de memoria, os._exit, un fallo); "
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
        "es": "el kernel se detuvo ejecutando esta celda: superó su límite de memoria; "
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
        "es": "esta celda calificada falta en la entrega",
    },
    "not_graded": {
        "en": "not graded: nbgrader could not process this submission (see its log)",
        "es": "sin calificar: nbgrader no pudo procesar esta entrega (mira su registro)",
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
    "start_done": {
        "en": "Your copy is in {folder}: work there. Nothing the course does touches it.",
        "es": "Tu copia está en {folder}: trabaja ahí. Nada de lo que haga el curso la modifica.",
    },
    "start_exists": {
        "en": "{folder} already exists and holds your work: it was not touched. Open it with "
              "`python -m course lab en`. To start over, rename or delete that folder first.",
        "es": "{folder} ya existe y contiene tu trabajo: no se ha tocado. Ábrelo con "
              "`python -m course lab es`. Para empezar de cero, renombra o borra antes esa carpeta.",
    },
    "start_unknown": {
        "en": "there is no assignment {assignment} in release/ (run this in the course folder); "
              "assignments: {known}",
        "es": "no hay ninguna tarea {assignment} en release/ (ejecútalo en la carpeta del curso); "
              "tareas: {known}",
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
    "cohort_per_student": {"en": "Per student", "es": "Por estudiante"},
    "cohort_student": {"en": "student", "es": "estudiante"},
    "cohort_note": {"en": "note", "es": "observación"},
    "cohort_csv": {
        "en": "Every cell's score and reason: {csv}",
        "es": "La nota y el motivo de cada celda: {csv}",
    },
}


def say(key, lang, **fields):
    """The message `key` in `lang` (English when the language is unknown)."""
    texts = MESSAGES[key]
    return texts.get(lang, texts["en"]).format(**fields)
