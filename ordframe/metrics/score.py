"""Score metrics: how well a continuous score (a latent score, an expected class, a regressor's output before rounding)
orders the true classes, before any threshold turns it into labels.

Every kernel takes ``counts`` of shape ``(..., R, K)`` and ``starts`` of shape
``(G + 1,)``: the rows ``starts[g]:starts[g + 1]`` of ``counts`` are group
``g``'s distinct score values in ascending order, and ``counts[..., r, k]`` is
the (weighted) number of samples of class ``k`` at the score value of row
``r``. It returns one value per group, shape ``(..., G)``. Samples with equal
scores share a row, so ties are counted exactly; a group without samples, or
with fewer classes than the metric needs, is NaN.

Pairs of samples: with ``N_k`` the samples of class ``k``, a pair of classes
``i < j`` has ``N_i N_j`` pairs of samples, and its c-statistic is
``c_ij = P(s_j > s_i) + P(s_j = s_i) / 2`` over them (the area under the ROC
curve of the score separating class ``j`` from class ``i``).
"""

import math

import numpy as np

from ordframe._registry.hookspecs import hookimpl
from ordframe._registry.metric import Metric

VAN_CALSTER = (
    "B. Van Calster, V. Van Belle, Y. Vergouwe, E. W. Steyerberg, Discrimination ability of prediction models for "
    "ordinal outcomes: relationships between existing measures and a new measure, Biom. J. 54(5), 2012"
)
NAKAS = (
    "C. T. Nakas, C. T. Yiannoutsos, Ordered multiple-class ROC analysis with continuous measurements, "
    "Stat. Med. 23(22), 2004"
)
SOMERS = "R. H. Somers, A new asymmetric measure of association for ordinal variables, Am. Sociol. Rev. 27(6), 1962"
HARRELL = (
    "F. E. Harrell, K. L. Lee, D. B. Mark, Multivariable prognostic models: issues in developing models, "
    "evaluating assumptions and adequacy, and measuring and reducing errors, Stat. Med. 15(4), 1996"
)
KENDALL = "M. G. Kendall, The treatment of ties in ranking problems, Biometrika 33(3), 1945"


def _group_of(starts: np.ndarray) -> np.ndarray:
    """The group of every row of the table."""
    return np.repeat(np.arange(len(starts) - 1), np.diff(starts))


def _group_sums(values: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Sums of ``values`` ``(..., R, C)`` over each group's rows, ``(..., G, C)`` (0 for a group without rows)."""
    filled = starts[:-1] < starts[1:]
    out = np.zeros((*values.shape[:-2], len(starts) - 1, values.shape[-1]))
    if filled.any():  # each filled group's rows run to the next filled group's first row
        out[..., filled, :] = np.add.reduceat(values, starts[:-1][filled], axis=-2)
    return out


def _below(values: np.ndarray, starts: np.ndarray, group: np.ndarray) -> np.ndarray:
    """``out[..., r, :]``: the sum of the rows of ``r``'s group before ``r`` (lower scores)."""
    through = np.cumsum(values, axis=-2)
    first = starts[group]
    return through - values - (through[..., first, :] - values[..., first, :])


def class_totals(counts: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """``N[..., g, k]``: the samples of class ``k`` in group ``g``."""
    return _group_sums(counts, starts)


def _shares(counts: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row's share of its group's class totals ``(..., R, K)`` (0 for an empty class), the totals and the
    group of every row. Shares keep every sum of a group at most 1, so groups do not lose precision to each other."""
    group = _group_of(starts)
    totals = class_totals(counts, starts)
    per_row = totals[..., group, :]
    return np.divide(counts, per_row, out=np.zeros(counts.shape), where=per_row > 0), totals, group


def pairwise_c(counts: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``c[..., g, i, j]``, the c-statistic of the score separating class ``j`` from class ``i`` in group ``g``
    (NaN where either class has no sample), and the class totals ``(..., G, K)``.

    ``c_ij = sum_r q_j[r] (Q_i[r] + q_i[r] / 2)``, with ``q`` the shares of the classes at row ``r`` and ``Q`` their
    sums over the lower rows: O(R K^2) after the sort.
    """
    shares, totals, group = _shares(counts, starts)
    lower = _below(shares, starts, group) + shares / 2
    c = np.stack([_group_sums(lower[..., i, None] * shares, starts) for i in range(counts.shape[-1])], axis=-2)
    present = totals > 0
    return np.where(present[..., :, None] & present[..., None, :], c, np.nan), totals


def orc(counts, starts):
    """Ordinal c-index, Van Calster et al. (2012): the mean of ``c_ij`` over the pairs of classes ``i < j`` that
    both have samples; NaN with fewer than two such classes. For two classes, the AUC."""
    c, _ = pairwise_c(counts, starts)
    k = counts.shape[-1]
    upper = np.triu(np.ones((k, k), bool), 1)
    pairs = (~np.isnan(c) & upper).sum(axis=(-2, -1))
    return np.where(upper, np.nan_to_num(c), 0.0).sum(axis=(-2, -1)) / np.where(pairs > 0, pairs, np.nan)


def vus(counts, starts):
    """Volume under the ROC surface, Nakas & Yiannoutsos (2004): the probability that K samples, one drawn from each
    class, have scores in the order of their classes, ``s_1 < s_2 < ... < s_K``; NaN unless every class has samples.

    Ties count as a random tie-break would: K samples whose scores never decrease from class to class count
    ``1 / prod(m!)`` over their blocks of ``m`` equal scores (for three classes 1/2 for one tie, 1/6 for three equal
    scores). A dynamic program over the sorted scores counts the ordered chains of classes ``1..k``, class by class:
    O(R K^2), never the ``prod N_k`` tuples.
    """
    shares, totals, group = _shares(counts, starts)
    k = counts.shape[-1]
    before = [np.ones(shares.shape[:-1])]  # chains of classes 1..m whose scores lie below row r's, m = 0, 1, ...
    for last in range(k):
        ending = np.zeros(shares.shape[:-1])  # chains of classes 1..last+1 ending at row r's score
        block = np.ones(shares.shape[:-1])
        for first in range(last, -1, -1):  # classes first..last tied at row r's score, those below it before
            block = block * shares[..., first]
            ending += before[first] * block / math.factorial(last - first + 1)
        if last < k - 1:
            before.append(_below(ending[..., None], starts, group)[..., 0])
    volume = _group_sums(ending[..., None], starts)[..., 0]
    return np.where((totals > 0).all(axis=-1), volume, np.nan)


def _concordance(counts: np.ndarray, starts: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Concordant less discordant pairs of (class, score), the pairs untied on the class, and the pairs untied on
    the score, per group ``(..., G)``."""
    c, totals = pairwise_c(counts, starts)
    k = counts.shape[-1]
    upper = np.triu(np.ones((k, k), bool), 1)
    pairs = totals[..., :, None] * totals[..., None, :]
    net = np.where(upper & ~np.isnan(c), pairs * (2 * np.nan_to_num(c) - 1), 0.0).sum(axis=(-2, -1))
    untied_class = np.where(upper, pairs, 0.0).sum(axis=(-2, -1))
    everyone = totals.sum(axis=-1)
    same_score = _group_sums(counts.sum(axis=-1, keepdims=True) ** 2, starts)[..., 0]
    return net, untied_class, (everyone**2 - same_score) / 2


def marker_somers_d(counts, starts):
    """Somers' D of the score given the true class (Somers 1962): ``(C - D) / (pairs of different classes)``, C and D
    the concordant and discordant pairs; Harrell's D_xy = 2 C-index - 1 (Harrell et al. 1996). In [-1, 1]; NaN with
    fewer than two classes."""
    net, untied_class, _ = _concordance(counts, starts)
    return net / np.where(untied_class > 0, untied_class, np.nan)


def marker_kendall_tau_b(counts, starts):
    """Kendall's tau-b of the score and the true class (Kendall 1945): ``(C - D) / sqrt(P_class P_score)``, P the
    pairs untied on the class and on the score. In [-1, 1]; NaN with fewer than two classes or a constant score."""
    net, untied_class, untied_score = _concordance(counts, starts)
    denominator = np.sqrt(untied_class * untied_score)
    return net / np.where(denominator > 0, denominator, np.nan)


@hookimpl
def ordframe_metrics():
    return [
        Metric(
            "orc",
            "score",
            orc,
            True,
            (0.0, 1.0),
            description="Ordinal c-index: the mean over pairs of classes of the c-statistic (AUC) of the score "
            "separating the higher class from the lower one; 0.5 is chance, 1 a perfect ordering.",
            reference=VAN_CALSTER,
            undefined="fewer than two classes have samples",
        ),
        Metric(
            "vus",
            "score",
            vus,
            True,
            (0.0, 1.0),
            description="Volume under the ROC surface: the probability that one sample of each class, drawn at "
            "random, is ordered by the score as by the classes; 1/K! is chance.",
            reference=NAKAS,
            undefined="some class has no sample",
            interval="bca",
        ),
        Metric(
            "marker_somers_d",
            "score",
            marker_somers_d,
            True,
            (-1.0, 1.0),
            description="Somers' D of the score given the true class (Harrell's D_xy): concordant less discordant "
            "pairs over the pairs of different classes.",
            reference=f"{SOMERS}; {HARRELL}",
            undefined="fewer than two classes have samples",
        ),
        Metric(
            "marker_kendall_tau_b",
            "score",
            marker_kendall_tau_b,
            True,
            (-1.0, 1.0),
            description="Kendall's tau-b between the score and the true class: concordant less discordant pairs "
            "over the geometric mean of the pairs untied on each.",
            reference=KENDALL,
            undefined="fewer than two classes have samples, or the score is constant",
        ),
    ]
