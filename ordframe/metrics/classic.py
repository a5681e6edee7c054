"""Classic hard-label metrics as functions of the confusion matrix (rows = true class).

Distances are index distances in the declared class order. Every kernel takes
counts of shape ``(..., K, K)`` and returns shape ``(...)``. A metric's compiled
twin (``_accelerate``), where one is measured to pay, is declared beside it
(``Metric.compiled``).
"""

import numpy as np

from ordframe._registry.hookspecs import hookimpl
from ordframe._registry.metric import Metric
from ordframe.metrics import _accelerate
from ordframe.metrics._matrix import RANKS, cost_matrix, index_distance, mean_weight, rank_statistic, suffix_sum, total

ORCA = "P. A. Gutiérrez et al., Ordinal regression methods: survey and experimental study, IEEE TKDE 28(1), 2016"
CARDOSO = "J. S. Cardoso, R. Sousa, Measuring the performance of ordinal classification, IJPRAI 25(8), 2011"
CRUZ_RAMIREZ = "M. Cruz-Ramírez et al., Metrics to guide a multi-objective evolutionary algorithm for ordinal classification, Neurocomputing 135, 2014"
SOMERS = "R. H. Somers, A new asymmetric measure of association for ordinal variables, American Sociological Review 27(6), 1962"
GERRITY = "J. P. Gerrity, A note on Gandin and Murphy's equitable skill score, Monthly Weather Review 120(11), 1992"
AMIGO = (
    "E. Amigó, J. Gonzalo, S. Mizzaro, J. Carrillo-de-Albornoz, An effectiveness metric for ordinal "
    "classification: formal properties and experimental results, ACL 2020"
)
COHEN = "J. Cohen, Weighted kappa, Psychological Bulletin 70(4), 1968"
BACCIANELLA = "S. Baccianella, A. Esuli, F. Sebastiani, Evaluation measures for ordinal regression, ISDA 2009"
WILKS = "D. S. Wilks, Statistical Methods in the Atmospheric Sciences, 3rd ed., Academic Press, 2011, ch. 8"


def accuracy(counts):
    """Share of samples on the diagonal: trace / N."""
    return np.trace(counts, axis1=-2, axis2=-1) / total(counts)


def mer(counts):
    """Misclassification error rate: 1 - trace / N."""
    return 1.0 - accuracy(counts)


def within_k(counts, k=1):
    """Within-k accuracy: the share of samples at most k classes from the truth, sum_{|r - c| <= k} n_rc / N.

    ``k=0`` is the accuracy, ``k=1`` the accuracy within one class (Gutiérrez et al. 2016).
    """
    return mean_weight(counts, _within(k, counts.shape[-1]))


def _within(k, size):
    """``within_k``'s weights: 1 where |r - c| <= k."""
    if isinstance(k, (bool, np.bool_)) or not isinstance(k, (int, np.integer)) or k < 0:
        raise ValueError(f"within_k: k must be an integer >= 0 (a number of class positions), got {k!r}")
    return index_distance(size) <= k


def _within_k_compiled(counts, k=1):
    return _accelerate.mean_weight(counts, _within(k, counts.shape[-1]))


def mae(counts):
    """Mean absolute index error: sum n_rc |r - c| / N."""
    return mean_weight(counts, index_distance(counts.shape[-1]))


def _mae_compiled(counts):
    return _accelerate.mean_weight(counts, index_distance(counts.shape[-1]))


def mse(counts):
    """Mean squared index error: sum n_rc (r - c)^2 / N."""
    return mean_weight(counts, index_distance(counts.shape[-1], 2))


def _mse_compiled(counts):
    return _accelerate.mean_weight(counts, index_distance(counts.shape[-1], 2))


def mean_signed_error(counts):
    """Mean signed index error, the bias: sum n_rc (c - r) / N, predicted minus true class (Wilks 2011, ch. 8)."""
    return mean_weight(counts, _signed_distance(counts.shape[-1]))


def _mean_signed_error_compiled(counts):
    return _accelerate.mean_weight(counts, _signed_distance(counts.shape[-1]))


def _signed_distance(k: int) -> np.ndarray:
    """The ``(K, K)`` matrix ``c - r``: the predicted class's index minus the true class's."""
    r = np.arange(k, dtype=np.float64)
    return r[None, :] - r[:, None]


def _class_error(counts, missing, power=1):
    """Per true class r, sum_c n_rc |r - c|^power / N_r, ``(..., K)``: NaN for a class without samples, or
    0 with ``missing="zero"`` (NaN for an empty matrix)."""
    _check_missing(missing)
    rows = counts.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):  # a class without samples: NaN, said by the metric
        error = (counts * index_distance(counts.shape[-1], power)).sum(axis=-1) / rows
    if missing == "zero":
        error = np.where(rows > 0, error, 0.0)
        error[total(counts) == 0] = np.nan
    return error


def _check_missing(missing):
    if not isinstance(missing, str) or missing not in ("skip", "zero"):
        raise ValueError(f"missing must be 'skip' or 'zero', got {missing!r}")


def _class_summary(counts, missing, power, want):
    """The mean (``want`` = CLASS_MEAN) or maximum (CLASS_MAX) over true classes of the per-class errors."""
    _check_missing(missing)
    weights = index_distance(counts.shape[-1], power)
    return _accelerate.per_class(counts, weights, want, missing == "zero")


def _class_mean(error):
    """The mean of per-class errors ``(..., K)`` over the classes where they are defined (not NaN)."""
    valid = ~np.isnan(error)
    return np.where(valid, error, 0.0).sum(axis=-1) / valid.sum(axis=-1)


def amae(counts, missing="skip"):
    """Average over true classes of the per-class MAE; classes without samples are skipped (or count as 0)."""
    return _class_mean(_class_error(counts, missing))


def _amae_compiled(counts, missing="skip"):
    return _class_summary(counts, missing, 1, _accelerate.CLASS_MEAN)


def amse(counts, missing="skip"):
    """Macro-averaged MSE: the mean over true classes r of MSE_r = sum_c n_rc (r - c)^2 / N_r.

    Classes without samples are skipped (``missing="skip"``, as imbalanced-learn's
    ``macro_averaged_mean_absolute_error`` does for MAE) or count as 0 (``"zero"``).
    """
    return _class_mean(_class_error(counts, missing, 2))


def _amse_compiled(counts, missing="skip"):
    return _class_summary(counts, missing, 2, _accelerate.CLASS_MEAN)


def mmae(counts, missing="skip"):
    """Maximum over true classes of the per-class MAE; classes without samples are skipped (or count as 0)."""
    error = _class_error(counts, missing)
    valid = ~np.isnan(error)
    return np.where(valid.any(axis=-1), np.where(valid, error, -np.inf).max(axis=-1), np.nan)


def _mmae_compiled(counts, missing="skip"):
    return _class_summary(counts, missing, 1, _accelerate.CLASS_MAX)


def _proportions(counts):
    """counts / N per matrix, NaN for an empty matrix (without a 0/0 warning).

    The rank correlations and qwk do not depend on the scale of the counts, and
    products of proportions neither underflow nor overflow where products of
    counts would (weights of 1e-160 or 1e160).
    """
    n = total(counts)[..., None, None]
    return counts / np.where(n > 0, n, np.nan)


def _varies(rows, cols):
    """Whether at least two classes are used in the row margin and in the column margin."""
    return ((rows > 0).sum(axis=-1) >= 2) & ((cols > 0).sum(axis=-1) >= 2)


def _pairs_not_tied(margin):
    """sum_{i<j} m_i m_j, the pairs in two different classes.

    On proportions this is (1 - sum_i m_i^2) / 2, as a sum of non-negative terms (no cancellation).
    """
    return (margin * (suffix_sum(margin, -1) - margin)).sum(axis=-1)


def _mid_ranks(margin):
    """Average rank of each class in the expanded sample, minus the mean rank (N + 1) / 2.

    Class i holds ranks cumsum_{<i} + 1 .. cumsum_{<=i}, so its average rank is
    cumsum_{<=i} - m_i / 2 + 1/2; the +1/2 cancels against the mean rank, which
    leaves cumsum_{<=i} - m_i / 2 - N / 2. On proportions (N = 1) this is the
    average rank over N, centred, and the same function of the proportions at
    every scale of the counts.
    """
    return np.cumsum(margin, axis=-1) - margin / 2 - margin.sum(axis=-1, keepdims=True) / 2


def spearman(counts):
    """Spearman's rank correlation (average ranks for ties) of true and predicted class.

    Computed on proportions p = counts / N with centred mid-ranks u_r, v_c (the mean
    rank of a class's samples): sum p_rc u_r v_c / sqrt(sum_r p_r. u_r^2 sum_c p_.c v_c^2), which is
    the same value as on the counts. NaN when a margin uses a single class.
    """
    p = _proportions(counts)
    rows, cols = p.sum(axis=-1), p.sum(axis=-2)
    r, c = _mid_ranks(rows), _mid_ranks(cols)
    cov = (p * r[..., :, None] * c[..., None, :]).sum(axis=(-2, -1))
    var = (rows * r**2).sum(axis=-1) * (cols * c**2).sum(axis=-1)
    varies = _varies(rows, cols)
    return np.where(varies, cov / np.sqrt(np.where(varies, var, np.nan)), np.nan)


def _spearman_compiled(counts, *, ranks=None):
    return rank_statistic(counts, _accelerate.SPEARMAN, ranks)


def _concordance(p):
    """(C - D) / N^2 on proportions ``p``: concordant minus discordant pairs of samples."""
    below = suffix_sum(p, -2) - p  # mass with a larger true class, per predicted class
    after = suffix_sum(below, -1) - below  # ... and a larger predicted class
    before = np.cumsum(below, axis=-1) - below  # ... and a smaller predicted class
    return (p * (after - before)).sum(axis=(-2, -1))


def kendall_tau_b(counts):
    """Kendall's tau-b: (concordant - discordant) / sqrt((n0 - n1)(n0 - n2)), ties corrected.

    Homogeneous of degree 0 in the counts: n0 - n1 = (N^2 - sum_r N_r^2) / 2 = sum_{r<r'} N_r N_r'
    (the -N terms cancel, sum_r N_r = N), likewise for the columns, and C - D has no
    -N term. So it is computed on proportions p = counts / N:
    (C' - D') / sqrt(sum_{r<r'} p_r p_r' sum_{c<c'} p_c p_c'), the same value at every scale.
    NaN when a margin uses a single class.
    """
    p = _proportions(counts)
    balance = _concordance(p)
    rows, cols = p.sum(axis=-1), p.sum(axis=-2)
    untied = _pairs_not_tied(rows) * _pairs_not_tied(cols)  # (n0 - n1)(n0 - n2) / N^4
    varies = _varies(rows, cols)
    return np.where(varies, balance / np.sqrt(np.where(varies, untied, np.nan)), np.nan)


def _kendall_tau_b_compiled(counts, *, ranks=None):
    return rank_statistic(counts, _accelerate.KENDALL, ranks)


def somers_d(counts):
    """Somers' D of the predicted class given the true class: (C - D) / (pairs with different true classes).

    The pairs tied on the prediction but not on the truth count in the denominator; Somers (1962).
    Equal to ``scipy.stats.somersd(true, pred).statistic`` on the expanded samples, except that a
    constant prediction gives 0 here (scipy: NaN). Computed on proportions, as ``kendall_tau_b``.
    NaN when every sample has the same true class.
    """
    p = _proportions(counts)
    untied = _pairs_not_tied(p.sum(axis=-1))
    return _concordance(p) / np.where(untied > 0, untied, np.nan)


def _somers_d_compiled(counts, *, ranks=None):
    return rank_statistic(counts, _accelerate.SOMERS, ranks)


def _weighted_kappa(counts, weights):
    """1 - sum w p / sum w p_r. p_.c on proportions p = counts / N, NaN when the denominator is zero."""
    p = _proportions(counts)
    expected = p.sum(axis=-1)[..., :, None] * p.sum(axis=-2)[..., None, :]
    chance = (weights * expected).sum(axis=(-2, -1))
    return 1.0 - (weights * p).sum(axis=(-2, -1)) / np.where(chance > 0, chance, np.nan)


def qwk(counts):
    """Quadratic weighted kappa: 1 - sum w O / sum w E with w = (r - c)^2 and E the outer product of the margins / N.

    Computed on proportions p = counts / N, 1 - sum w p / sum w p_r. p_.c, which is the same
    value as on the counts at every scale. NaN when the expected disagreement is zero.
    """
    return _weighted_kappa(counts, index_distance(counts.shape[-1], 2))


def _qwk_compiled(counts):
    return _accelerate.weighted_kappa(counts, index_distance(counts.shape[-1], 2))


KAPPA_WEIGHTINGS = ("linear", "quadratic")


def _disagreement(weighting, k):
    """The ``(K, K)`` disagreement weights of ``kappa``'s ``weighting``."""
    if weighting is None:
        return 1.0 - np.eye(k)
    if isinstance(weighting, str):
        if weighting not in KAPPA_WEIGHTINGS:
            raise ValueError(
                f"kappa: weighting must be 'linear', 'quadratic', None or a {k}x{k} matrix, got {weighting!r}"
            )
        return index_distance(k, 1 if weighting == "linear" else 2)
    weights = cost_matrix(weighting, k, "kappa", argument="weighting")
    if np.diagonal(weights).any():
        raise ValueError(
            f"kappa: weighting must be disagreement weights with a zero diagonal, got diagonal "
            f"{np.diagonal(weights).tolist()}; for agreement weights a (1 on the diagonal) pass 1 - a"
        )
    return weights


def kappa(counts, weighting="linear"):
    """Cohen's weighted kappa: 1 - sum w_rc n_rc / sum w_rc N_r M_c / N (Cohen 1968).

    ``weighting`` gives the disagreement weights w: ``"linear"`` |r - c|, ``"quadratic"`` (r - c)^2
    (``qwk``), None 1 - [r = c] (Cohen's unweighted kappa), or a ``(K, K)`` matrix >= 0 with a zero
    diagonal (rows = true class). Computed on proportions, as ``qwk``; NaN when the chance-expected
    disagreement is zero.
    """
    return _weighted_kappa(counts, _disagreement(weighting, counts.shape[-1]))


def _kappa_compiled(counts, weighting="linear"):
    return _accelerate.weighted_kappa(counts, _disagreement(weighting, counts.shape[-1]))


def gerrity(counts):
    """Gerrity score: sum_rc p_rc s_rc with Gerrity's (1992) equitable scoring matrix s of the true margin.

    With P_i the share of samples of true class <= i and a_i = (1 - P_i) / P_i (i < K),
    s_rc = (sum_{i<r} 1/a_i - (c - r) + sum_{c<=i<K} a_i) / (K - 1) for r <= c, symmetric.
    Equal to xskillscore's ``Contingency(...).gerrity_score()`` with the truth as observations.
    NaN when the first or the last true class has no samples (some a_i is 0 or infinite), or K < 2.
    """
    p = _proportions(counts)
    k = p.shape[-1]
    rows = p.sum(axis=-1)
    defined = (rows[..., 0] > 0) & (rows[..., -1] > 0) & (k > 1)
    below = np.cumsum(rows, axis=-1)[..., :-1]  # P_i
    above = suffix_sum(rows, -1)[..., 1:]  # 1 - P_i, without cancellation
    safe = defined[..., None]
    a = np.where(safe, above, 1.0) / np.where(safe, below, 1.0)
    zero = np.zeros((*a.shape[:-1], 1))
    inverse_before = np.concatenate([zero, np.cumsum(1.0 / a, axis=-1)], axis=-1)  # sum_{i<r} 1/a_i
    a_from = np.concatenate([suffix_sum(a, -1), zero], axis=-1)  # sum_{c<=i<K} a_i
    r = np.arange(k)
    low, high = np.minimum.outer(r, r), np.maximum.outer(r, r)
    score = (inverse_before[..., low] + a_from[..., high] - index_distance(k)) / max(k - 1, 1)
    return np.where(defined, (p * score).sum(axis=(-2, -1)), np.nan)


def cem_ord(counts):
    """Closeness evaluation measure CEM-ORD of Amigó et al. (2020): sum_rc n_rc prox(c, r) / sum_r N_r prox(r, r).

    prox(c, r) = -log2((N_c / 2 + sum of N_k over the classes k between c and r, r included, c excluded) / N),
    with N_k the true class sizes: the information in "the prediction c is as close to r as the truth".
    That sum is N_r / 2 + |m_c - m_r| with m_k = N_1 + ... + N_(k-1) + N_k / 2 the mid-cumulative sizes.
    Computed on proportions; NaN for an empty matrix.
    """
    p = _proportions(counts)
    shares = p.sum(axis=-1)
    middle = np.cumsum(shares, axis=-1) - shares / 2
    closeness = shares[..., :, None] / 2 + np.abs(middle[..., :, None] - middle[..., None, :])  # [r, c]
    with np.errstate(divide="ignore"):
        found = np.where(p > 0, p * -np.log2(np.where(p > 0, closeness, 1.0)), 0.0).sum(axis=(-2, -1))
        best = np.where(shares > 0, shares * -np.log2(np.where(shares > 0, shares / 2, 1.0)), 0.0).sum(axis=-1)
    return found / np.where(best > 0, best, np.nan)


def expected_cost(counts, cost=None):
    """Mean misclassification cost: sum n_rc C_rc / N, with C_rc = |r - c| by default."""
    return mean_weight(counts, _cost(cost, counts.shape[-1]))


def _cost(cost, k):
    """``expected_cost``'s weights: |r - c|, or the cost matrix given."""
    return index_distance(k) if cost is None else cost_matrix(cost, k, "expected_cost")


def _expected_cost_compiled(counts, cost=None):
    return _accelerate.mean_weight(counts, _cost(cost, counts.shape[-1]))


def _sensitivities(counts):
    """Per-class recall n_rr / N_r, NaN for a true class without samples; shape ``(..., K)``."""
    rows = counts.sum(axis=-1)
    hits = np.diagonal(counts, axis1=-2, axis2=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(rows > 0, hits / np.where(rows > 0, rows, 1.0), np.nan)


def ms(counts):
    """Minimum sensitivity: the smallest per-class recall n_rr / N_r over the true classes with samples."""
    recall = _sensitivities(counts)
    valid = ~np.isnan(recall)
    return np.where(valid.any(axis=-1), np.where(valid, recall, np.inf).min(axis=-1), np.nan)


def gm(counts):
    """Geometric mean of the per-class recalls n_rr / N_r over the true classes with samples (0 if one is 0)."""
    recall = _sensitivities(counts)
    valid = ~np.isnan(recall)
    n = valid.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        logs = np.where(valid, np.log(np.where(valid, recall, 1.0)), 0.0).sum(axis=-1)
        return np.where(n > 0, np.exp(logs / np.where(n > 0, n, 1)), np.nan)


def _ms_compiled(counts):
    return _accelerate.per_class(counts, np.zeros((counts.shape[-1],) * 2), _accelerate.MIN_RECALL)


def _gm_compiled(counts):
    return _accelerate.per_class(counts, np.zeros((counts.shape[-1],) * 2), _accelerate.GM_RECALL)


_KAPPA_UNDEFINED = "the chance-expected disagreement is zero (a single class in both margins)"
_RANK_UNDEFINED = "every sample has the same true class or the same predicted class (zero variance)"


@hookimpl
def ordframe_metrics():
    rate = (0.0, 1.0)
    errors = (0.0, float("inf"))
    return [
        Metric(
            "accuracy",
            "confusion",
            accuracy,
            True,
            rate,
            description="Share of exact predictions.",
            reference=CARDOSO,
            share=True,
        ),
        Metric(
            "mer",
            "confusion",
            mer,
            False,
            rate,
            description="Misclassification error rate, 1 - accuracy.",
            reference=CARDOSO,
            share=True,
        ),
        Metric(
            "within_k",
            "confusion",
            within_k,
            True,
            rate,
            description="Share of predictions at most k classes from the true class (k=0: accuracy).",
            reference=ORCA,
            share=True,
            interval="jeffreys",
            compiled=_within_k_compiled,
        ),
        Metric(
            "mae",
            "confusion",
            mae,
            False,
            errors,
            description="Mean absolute error on class indices.",
            reference=CARDOSO,
            compiled=_mae_compiled,
        ),
        Metric(
            "mse",
            "confusion",
            mse,
            False,
            errors,
            description="Mean squared error on class indices.",
            reference=CARDOSO,
            interval="bca",
            compiled=_mse_compiled,
        ),
        Metric(
            "mean_signed_error",
            "confusion",
            mean_signed_error,
            bounds=(float("-inf"), float("inf")),
            best=0.0,
            description="Mean of predicted minus true class index: the bias, > 0 when predicting too high.",
            reference=WILKS,
            interval="basic",
            compiled=_mean_signed_error_compiled,
        ),
        Metric(
            "amae",
            "confusion",
            amae,
            False,
            errors,
            description="Mean over true classes of the per-class MAE (robust to imbalance).",
            reference=BACCIANELLA,
            undefined="no true class has samples",
            compiled=_amae_compiled,
        ),
        Metric(
            "amse",
            "confusion",
            amse,
            False,
            errors,
            description="Mean over true classes of the per-class MSE (macro-averaged MSE, robust to imbalance).",
            reference=BACCIANELLA,
            undefined="no true class has samples",
            compiled=_amse_compiled,
        ),
        Metric(
            "mmae",
            "confusion",
            mmae,
            False,
            errors,
            description="Maximum over true classes of the per-class MAE.",
            reference=CRUZ_RAMIREZ,
            undefined="no true class has samples",
            interval="intersection",
            per_class=_class_error,
            compiled=_mmae_compiled,
        ),
        Metric(
            "spearman",
            "confusion",
            spearman,
            True,
            (-1.0, 1.0),
            description="Spearman's rank correlation of true and predicted class.",
            reference=CARDOSO,
            undefined=_RANK_UNDEFINED,
            compiled=_spearman_compiled,
            needs=(RANKS,),
        ),
        Metric(
            "kendall_tau_b",
            "confusion",
            kendall_tau_b,
            True,
            (-1.0, 1.0),
            description="Kendall's tau-b rank correlation of true and predicted class.",
            reference=CARDOSO,
            undefined=_RANK_UNDEFINED,
            compiled=_kendall_tau_b_compiled,
            needs=(RANKS,),
        ),
        Metric(
            "somers_d",
            "confusion",
            somers_d,
            True,
            (-1.0, 1.0),
            description="Somers' D of the predicted class given the true class (pairs tied on the truth left out).",
            reference=SOMERS,
            undefined="every sample has the same true class (no pair to order)",
            interval="bca",
            compiled=_somers_d_compiled,
            needs=(RANKS,),
        ),
        Metric(
            "qwk",
            "confusion",
            qwk,
            True,
            (-1.0, 1.0),
            description="Quadratic weighted Cohen's kappa on class indices.",
            reference=COHEN,
            undefined=_KAPPA_UNDEFINED,
            compiled=_qwk_compiled,
        ),
        Metric(
            "kappa",
            "confusion",
            kappa,
            True,
            (float("-inf"), 1.0),
            description="Cohen's weighted kappa with linear (default), quadratic, no (weighting=None) or "
            "custom disagreement weights.",
            reference=COHEN,
            undefined=_KAPPA_UNDEFINED,
            compiled=_kappa_compiled,
        ),
        Metric(
            "gerrity",
            "confusion",
            gerrity,
            True,
            (float("-inf"), 1.0),  # -1 for a reversed split of two equal classes; no lower bound is proven
            description="Gerrity's equitable skill score: 1 for perfect predictions, 0 for constant or random ones.",
            reference=GERRITY,
            undefined="the first or the last true class has no samples, or there is a single class",
            interval="bca",
            compiled=_accelerate.gerrity,
        ),
        Metric(
            "cem_ord",
            "confusion",
            cem_ord,
            True,
            rate,
            description="Closeness evaluation measure of Amigó et al.: the information of predicted closeness to "
            "the truth, weighted by the true class distribution, over that of perfect predictions.",
            reference=AMIGO,
            compiled=_accelerate.cem_ord,
        ),
        Metric(
            "expected_cost",
            "confusion",
            expected_cost,
            False,
            errors,
            description="Mean cost of the predictions under a cost matrix (default |r - c|).",
            reference="C. Elkan, The foundations of cost-sensitive learning, IJCAI 2001",
            compiled=_expected_cost_compiled,
        ),
        Metric(
            "ms",
            "confusion",
            ms,
            True,
            rate,
            description="Minimum sensitivity: the smallest per-class recall over the true classes with samples.",
            reference=f"{CRUZ_RAMIREZ}; {ORCA}",
            undefined="no true class has samples",
            interval="intersection",
            per_class=_sensitivities,
            compiled=_ms_compiled,
        ),
        Metric(
            "gm",
            "confusion",
            gm,
            True,
            rate,
            description="Geometric mean of the per-class recalls over the true classes with samples.",
            reference=ORCA,
            undefined="no true class has samples",
            interval="bca",
            compiled=_gm_compiled,
        ),
    ]
