"""Classic hard-label metrics as functions of the confusion matrix (rows = true class).

Distances are index distances in the declared class order. Every kernel takes
counts of shape ``(..., K, K)`` and returns shape ``(...)``.
"""

import numpy as np

from ..hookspecs import hookimpl
from ..metric import Metric
from ._matrix import cost_matrix, index_distance, suffix_sum, total

ORCA = "P. A. Gutiérrez et al., Ordinal regression methods: survey and experimental study, IEEE TKDE 28(1), 2016"
CARDOSO = "J. S. Cardoso, R. Sousa, Measuring the performance of ordinal classification, IJPRAI 25(8), 2011"
CRUZ_RAMIREZ = "M. Cruz-Ramírez et al., Metrics to guide a multi-objective evolutionary algorithm for ordinal classification, Neurocomputing 135, 2014"
BACCIANELLA = "S. Baccianella, A. Esuli, F. Sebastiani, Evaluation measures for ordinal regression, ISDA 2009"


def accuracy(counts):
    """Share of samples on the diagonal: trace / N."""
    return np.trace(counts, axis1=-2, axis2=-1) / total(counts)


def mer(counts):
    """Misclassification error rate: 1 - trace / N."""
    return 1.0 - accuracy(counts)


def mae(counts):
    """Mean absolute index error: sum n_rc |r - c| / N."""
    return (counts * index_distance(counts.shape[-1])).sum(axis=(-2, -1)) / total(counts)


def mse(counts):
    """Mean squared index error: sum n_rc (r - c)^2 / N."""
    return (counts * index_distance(counts.shape[-1], 2)).sum(axis=(-2, -1)) / total(counts)


def _class_mae(counts, missing):
    if missing not in ("skip", "zero"):
        raise ValueError(f"missing must be 'skip' or 'zero', got {missing!r}")
    rows = counts.sum(axis=-1)
    error = (counts * index_distance(counts.shape[-1])).sum(axis=-1) / rows
    if missing == "zero":
        error = np.where(rows > 0, error, 0.0)
        error[total(counts) == 0] = np.nan
    return error


def amae(counts, missing="skip"):
    """Average over true classes of the per-class MAE; classes without samples are skipped (or count as 0)."""
    error = _class_mae(counts, missing)
    valid = ~np.isnan(error)
    return np.where(valid, error, 0.0).sum(axis=-1) / valid.sum(axis=-1)


def mmae(counts, missing="skip"):
    """Maximum over true classes of the per-class MAE; classes without samples are skipped (or count as 0)."""
    error = _class_mae(counts, missing)
    valid = ~np.isnan(error)
    return np.where(valid.any(axis=-1), np.where(valid, error, -np.inf).max(axis=-1), np.nan)


def _mid_ranks(margin):
    """Average rank of each class in the expanded sample, from its class counts."""
    return np.cumsum(margin, axis=-1) - margin + (margin + 1) / 2


def spearman(counts):
    """Spearman's rank correlation (average ranks for ties) of true and predicted class."""
    rows, cols = counts.sum(axis=-1), counts.sum(axis=-2)
    centre = ((total(counts) + 1) / 2)[..., None]
    r = _mid_ranks(rows) - centre
    c = _mid_ranks(cols) - centre
    cov = (counts * r[..., :, None] * c[..., None, :]).sum(axis=(-2, -1))
    return cov / np.sqrt((rows * r**2).sum(axis=-1) * (cols * c**2).sum(axis=-1))


def kendall_tau_b(counts):
    """Kendall's tau-b: (concordant - discordant) / sqrt((n0 - n1)(n0 - n2)), ties corrected."""
    below = suffix_sum(counts, -2) - counts  # samples with a larger true class, per predicted class
    after = suffix_sum(below, -1) - below  # ... and a larger predicted class
    before = np.cumsum(below, axis=-1) - below  # ... and a smaller predicted class
    concordant = (counts * after).sum(axis=(-2, -1))
    discordant = (counts * before).sum(axis=(-2, -1))
    n = total(counts)
    pairs = n * (n - 1) / 2
    rows, cols = counts.sum(axis=-1), counts.sum(axis=-2)
    tied_rows = (rows * (rows - 1) / 2).sum(axis=-1)
    tied_cols = (cols * (cols - 1) / 2).sum(axis=-1)
    return (concordant - discordant) / np.sqrt((pairs - tied_rows) * (pairs - tied_cols))


def qwk(counts):
    """Quadratic weighted kappa: 1 - sum w O / sum w E with w = (r - c)^2 and E the outer product of the margins / N."""
    weights = index_distance(counts.shape[-1], 2)
    expected = counts.sum(axis=-1)[..., :, None] * counts.sum(axis=-2)[..., None, :] / total(counts)[..., None, None]
    return 1.0 - (weights * counts).sum(axis=(-2, -1)) / (weights * expected).sum(axis=(-2, -1))


def expected_cost(counts, cost=None):
    """Mean misclassification cost: sum n_rc C_rc / N, with C_rc = |r - c| by default."""
    k = counts.shape[-1]
    cost = index_distance(k) if cost is None else cost_matrix(cost, k, "expected_cost")
    return (counts * cost).sum(axis=(-2, -1)) / total(counts)


_RANK_UNDEFINED = "every sample has the same true class or the same predicted class (zero variance)"


@hookimpl
def ordframe_metrics():
    rate = (0.0, 1.0)
    errors = (0.0, float("inf"))
    return [
        Metric("accuracy", "confusion", accuracy, True, rate, description="Share of exact predictions.", reference=CARDOSO),
        Metric("mer", "confusion", mer, False, rate, description="Misclassification error rate, 1 - accuracy.", reference=CARDOSO),
        Metric("mae", "confusion", mae, False, errors, description="Mean absolute error on class indices.", reference=CARDOSO),
        Metric("mse", "confusion", mse, False, errors, description="Mean squared error on class indices.", reference=CARDOSO),
        Metric(
            "amae", "confusion", amae, False, errors, {"missing": "skip"},
            description="Mean over true classes of the per-class MAE (robust to imbalance).",
            reference=BACCIANELLA, undefined="no true class has samples",
        ),
        Metric(
            "mmae", "confusion", mmae, False, errors, {"missing": "skip"},
            description="Maximum over true classes of the per-class MAE.",
            reference=CRUZ_RAMIREZ, undefined="no true class has samples",
        ),
        Metric(
            "spearman", "confusion", spearman, True, (-1.0, 1.0),
            description="Spearman's rank correlation of true and predicted class.",
            reference=CARDOSO, undefined=_RANK_UNDEFINED,
        ),
        Metric(
            "kendall_tau_b", "confusion", kendall_tau_b, True, (-1.0, 1.0),
            description="Kendall's tau-b rank correlation of true and predicted class.",
            reference=CARDOSO, undefined=_RANK_UNDEFINED,
        ),
        Metric(
            "qwk", "confusion", qwk, True, (-1.0, 1.0),
            description="Quadratic weighted Cohen's kappa on class indices.",
            reference="J. Cohen, Weighted kappa, Psychological Bulletin 70(4), 1968",
            undefined="the chance-expected disagreement is zero (a single class in both margins)",
        ),
        Metric(
            "expected_cost", "confusion", expected_cost, False, errors, {"cost": None},
            description="Mean cost of the predictions under a cost matrix (default |r - c|).",
            reference="C. Elkan, The foundations of cost-sensitive learning, IJCAI 2001",
        ),
    ]
