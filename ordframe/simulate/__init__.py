"""Meta-evaluation of ordinal metrics by simulation: which metric to trust, how well it separates models, how many samples.

``confusion_cubes`` draws random confusion cubes of a given design;
``prefers`` scores pairs of them: how often each metric prefers the matrix a
reference criterion (lower cost, higher accuracy, another metric) prefers;
``agreement`` (Kendall's tau-b between metrics' orderings of a stack of
cubes); ``discriminative_power`` (Sakai 2006: the share of pairs of models a
metric separates by a bootstrap test); and sample-size planning from a pilot
matrix, ``sample_size`` (a metric within +-h) and ``power`` (a difference
between two models, from their joint table of predictions).
"""

from ordframe.simulate._agreement import agreement
from ordframe.simulate._generate import confusion_cubes
from ordframe.simulate._planning import power, sample_size
from ordframe.simulate._power import discriminative_power
from ordframe.simulate._prefer import prefers

__all__ = ["agreement", "confusion_cubes", "discriminative_power", "power", "prefers", "sample_size"]
