"""minigrad: a scalar reverse-mode autograd engine for the course."""
from .engine import Value

__all__ = ["Value"]
