"""minigrad: a scalar reverse-mode autograd engine for the course: `engine` (`Value`), and the
teaching helpers `trace` (the reverse walk recorded one node at a time) and `draw` (a graph drawn)."""
from .engine import Value

__all__ = ["Value"]
