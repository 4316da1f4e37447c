"""Rubric of lab 03's one hand-graded answer: Exercise 6b, the paragraph on choosing ε (2 points).

The numbers are those Part 7 prints beside the plot (tanh at 0.5, float64 and float32); a student's
own run prints the same. The paragraph is judged against the student's own criterion,
atol + rtol·|num| = 8.9e-4, not against atol alone.
"""
from grader.rubrics import Rubric

RUBRICS = {
    "lab03-eps": Rubric(
        points=2,
        en=(("2: both errors with their scaling (truncation ∝ ε², cancellation ∝ 1/ε) and where they cross"
            " (near 8e-6 in float64); each of 1e-2, 1e-5 and 1e-12 judged with the printed errors against"
            " the student's criterion atol + rtol·|num| = 8.9e-4 (1e-2 and 1e-12 still pass, by about 94×"
            " and 26×; 1e-5 by about 6e7×), so the default is chosen for its margin; and the float32"
            " prediction placed on the measured curve (the lines cross near 7e-3, the measured minimum is"
            " at 3e-3). 1: the two errors with their scaling but no numbers, or the numbers without the"
            " reason. 0: otherwise, or a smaller ε is always better, or 1e-12 or 1e-2 fails here, or ε"
            " taken for a tolerance."),
            ["Full marks: both errors, how each scales, and each ε judged with the printed numbers.",
             "Name both errors and how each scales with ε: truncation ∝ ε², cancellation ∝ 1/ε.",
             ("Judge each ε against your criterion atol + rtol·|num| (8.9e-4 here), not atol alone: 1e-2"
             " and 1e-12 still pass, by about 94× and 26×."),
             "Quote the printed errors: 9.4e-6 at ε = 1e-2, 1.5e-11 at 1e-5, 3.4e-5 at 1e-12.",
             "A smaller ε is not always better: below the crossing, cancellation grows as 1/ε.",
             "ε is the step of the difference, not a tolerance: atol + rtol·|num| is the tolerance.",
             ("Say where your float32 prediction landed: the lines cross near 7e-3, the measured minimum"
             " is at 3e-3.")]),
        es=(("2: los dos errores con su escala (truncamiento ∝ ε², cancelación ∝ 1/ε) y dónde se cruzan"
            " (cerca de 8e-6 en float64); cada uno de 1e-2, 1e-5 y 1e-12 juzgado con los errores impresos"
            " frente al criterio del estudiante, atol + rtol·|num| = 8,9e-4 (1e-2 y 1e-12 aún pasan, por"
            " unas 94 y 26 veces; 1e-5, por unas 6e7 veces), así que el valor por defecto se elige por su"
            " margen; y la predicción para float32 situada en la curva medida (las rectas se cruzan cerca"
            " de 7e-3 y el mínimo medido está en 3e-3). 1: los dos errores con su escala pero sin números,"
            " o los números sin el porqué. 0: en otro caso, o si un ε menor siempre es mejor, o si 1e-12 o"
            " 1e-2 no pasan aquí, o si se toma ε por una tolerancia."),
            ["Nota máxima: los dos errores, cómo escala cada uno y cada ε juzgado con los números impresos.",
             "Nombra los dos errores y cómo escala cada uno con ε: truncamiento ∝ ε², cancelación ∝ 1/ε.",
             ("Juzga cada ε frente a tu criterio atol + rtol·|num| (aquí 8,9e-4), no solo frente a atol:"
             " 1e-2 y 1e-12 aún pasan, por unas 94 y 26 veces."),
             "Cita los errores impresos: 9,4e-6 con ε = 1e-2, 1,5e-11 con 1e-5 y 3,4e-5 con 1e-12.",
             "Un ε menor no siempre es mejor: por debajo del cruce, la cancelación crece como 1/ε.",
             "ε es el paso de la diferencia, no una tolerancia: la tolerancia es atol + rtol·|num|.",
             ("Di dónde cayó tu predicción para float32: las rectas se cruzan cerca de 7e-3 y el mínimo"
             " medido está en 3e-3.")])),
}
