"""Meta-evaluation of ordinal metrics by simulation: random confusion cubes of a given design, and how often
each metric prefers the matrix a reference criterion (lower cost, higher accuracy, another metric) prefers.

``confusion_cubes`` draws the cubes; ``prefers`` scores pairs of them.
"""

from ordframe.simulate._generate import confusion_cubes
from ordframe.simulate._prefer import prefers

__all__ = ["confusion_cubes", "prefers"]
