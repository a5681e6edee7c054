"""Meta-evaluation of metrics by simulation: how metrics agree, how well they separate models, how many samples.

``agreement`` (Kendall's tau-b between metrics' orderings of a stack of
cubes), ``discriminative_power`` (Sakai 2006: the share of pairs of models a
metric separates by a bootstrap test), and sample-size planning from a pilot
matrix, ``sample_size`` (a metric within +-h) and ``power`` (a difference
between two models, from their joint table of predictions).
"""

from ordframe.simulate._agreement import agreement
from ordframe.simulate._planning import power, sample_size
from ordframe.simulate._power import discriminative_power

__all__ = ["agreement", "discriminative_power", "power", "sample_size"]
