"""The names of the dims that ordframe creates or looks for."""

TRUE = "true"
PRED = "pred"
CUBE_DIMS = (TRUE, PRED)
"""The last two dims of a confusion cube: rows are true classes, columns predicted ones."""

CLASS_DIM = "class"
"""The default dim of a probability array that holds one probability per class."""

OBSERVED_DIM = "group"
"""The one stacked dim of the group combinations that occur (``observed=True``)."""
