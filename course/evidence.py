"""Evidence: what a hidden test may carry out of the student's kernel.

Only numbers, short strings, lists of them and arrays survive `plain`; nothing the student
defined (a float subclass that lies about equality, say) reaches the grader.
Arrays travel as raw little-endian bytes in base64, so a 600x64 gradient costs
about 200 KB of output instead of megabytes of decimal text.
"""
import base64
import math

ARRAY_DTYPES = ("float16", "float32", "float64")


def plain(value):
    """`value` as floats, strings, lists and encoded arrays only, or TypeError."""
    if isinstance(value, bool):
        raise TypeError("bool")
    if isinstance(value, (int, float)):
        return float(value)
    if type(value) is str:
        return value[:2000]
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if hasattr(value, "item") and callable(value.item) and getattr(value, "ndim", None) == 0:
        return plain(value.item())  # a numpy scalar, a 0-d array or a torch tensor
    if getattr(value, "ndim", 0) and hasattr(value, "shape"):
        return encode_array(value)
    raise TypeError(type(value).__name__)


def encode_array(value):
    """A numpy array or torch tensor as {"dtype", "shape", "base64"}."""
    if hasattr(value, "detach"):  # torch: leave the autograd graph, come to the CPU
        value = value.detach().cpu().numpy()
    dtype = str(value.dtype)
    if dtype not in ARRAY_DTYPES:
        raise TypeError(f"array of {dtype}")
    data = value.astype(value.dtype.newbyteorder("<")).tobytes()
    return {"dtype": dtype, "shape": [int(n) for n in value.shape],
            "base64": base64.b64encode(data).decode("ascii")}


def close(got, want, rel_tol, abs_tol):
    """Whether plain data `got` matches `want` element by element, all finite."""
    if isinstance(want, list):
        return (type(got) is list and len(got) == len(want)
                and all(close(g, w, rel_tol, abs_tol) for g, w in zip(got, want)))
    return (type(got) in (int, float) and math.isfinite(got)
            and math.isclose(got, want, rel_tol=rel_tol, abs_tol=abs_tol))
