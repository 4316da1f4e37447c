"""Lab 01's one hand-graded answer: the student's own prediction, against what was printed."""
from grader.rubrics import Rubric

RUBRICS = {
    "lab01-reflection": Rubric(
        points=2,
        en=(("**2**: names one of the student's own predictions (Parts B to E) as recorded, quotes what the "
            "notebook printed for it (a number or a line), and says correctly what the reasoning missed or "
            "relied on (e.g. autograd runs the same product, so fp32 agrees exactly; the fp16 product adds in "
            "fp32 and the error divides by the rms; fp16's numbers near 1.0 are 2⁻¹⁰ apart). A wrong "
            "prediction costs nothing. **1**: the prediction and the printed result are there but the reason is "
            "missing, vague or wrong, or a number is quoted that this notebook did not print. **0**: blank; no "
            "prediction of the student's own; or a summary of the notebook's explanations with no prediction."),
            ["Clear: your prediction, the printed result and what you had missed. Well done.",
             "Say what your reasoning missed: the printed result alone does not explain it.",
             "Quote the number or the line as this notebook printed it.",
             "This summarises the notebook's explanation: start from the prediction you wrote.",
             "The reason given does not match what was measured: read the explanation after that cell."]),
        es=(("**2**: nombra una predicción propia (Partes B a E) tal como se registró, cita lo que imprimió el "
            "cuaderno para ella (un número o una línea) y dice correctamente qué se le escapó al razonamiento o "
            "en qué se apoyaba (p. ej., autograd ejecuta el mismo producto, así que fp32 coincide exactamente; el "
            "producto en fp16 suma en fp32 y el error divide entre el rms; cerca de 1,0 los números de fp16 distan "
            "2⁻¹⁰). Una predicción errónea no resta. **1**: están la predicción y el resultado impreso, pero falta "
            "el motivo, es vago o es erróneo, o cita un número que este cuaderno no imprimió. **0**: en blanco; "
            "sin predicción propia; o un resumen de las explicaciones del cuaderno sin predicción."),
            ["Claro: tu predicción, el resultado impreso y lo que se te había escapado. Bien hecho.",
             "Di qué se le escapó a tu razonamiento: el resultado impreso, por sí solo, no lo explica.",
             "Cita el número o la línea tal como los imprimió este cuaderno.",
             "Esto resume la explicación del cuaderno: parte de la predicción que escribiste.",
             "El motivo no coincide con lo medido: lee la explicación que sigue a esa celda."])),
}
