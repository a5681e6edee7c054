"""Scoring rules for class probabilities (RPS, sa-RPS, Brier and log score), their calibration in the large, and the
unimodality rate.

Every kernel takes ``proba`` of shape ``(..., K)`` (the probabilities of the K
ordered classes, each row summing to 1) and ``true``, the int64 index of the
true class, of shape ``(...)``, and returns one score per sample, shape
``(...)``. Lower is better for the four scoring rules. ordframe validates the inputs and
averages the scores over samples (``ordframe.proba``).

Notation (Galdran 2023): ``y`` is the one-hot vector of the true class,
``P_i = p_1 + ... + p_i`` and ``Y_i = y_1 + ... + y_i`` the cumulative
distributions. Both end at ``P_K = Y_K = 1``, so sums over cumulative terms
stop at ``i = K - 1``.
"""

import numpy as np

from ordframe._registry.hookspecs import hookimpl
from ordframe._registry.metric import Metric

GALDRAN = "A. Galdran, Performance metrics for probabilistic ordinal classifiers, MICCAI 2023"
EPSTEIN = "E. S. Epstein, A scoring system for probability forecasts of ranked categories, J. Appl. Meteor. 8(6), 1969"
BRIER = "G. W. Brier, Verification of forecasts expressed in terms of probability, Mon. Weather Rev. 78(1), 1950"
GOOD = "I. J. Good, Rational decisions, J. R. Stat. Soc. B 14(1), 1952"

PINTO_DA_COSTA = (
    "J. Pinto da Costa, H. Alonso, J. S. Cardoso, The unimodal model for the classification of ordinal data, "
    "Neural Networks 21(1), 2008"
)

VAN_CALSTER = (
    "B. Van Calster, D. Nieboer, Y. Vergouwe, B. De Cock, M. J. Pencina, E. W. Steyerberg, A calibration hierarchy "
    "for risk models was defined: from utopia to empirical data, J. Clin. Epidemiol. 74, 2016"
)

LOG_EPS = 1e-15


def _cdf_gaps(proba, true):
    """Yield ``P_i - Y_i`` for ``i = 1, ..., K - 1``, one array of shape ``(...)`` each."""
    cdf = np.zeros(proba.shape[:-1])
    for i in range(proba.shape[-1] - 1):
        cdf += proba[..., i]
        yield cdf - (true <= i)


def rps(proba, true, normalize=True):
    """Ranked probability score, Galdran (2023) eq. 4: ``(1/(K-1)) sum_{i<K} (P_i - Y_i)^2``.

    ``normalize=False`` drops the ``1/(K-1)`` factor: that unnormalised sum is
    what dlordinal and xskillscore report.
    """
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"rps: normalize must be True or False, got {normalize!r}")
    total = sum(gap * gap for gap in _cdf_gaps(proba, true))
    return total / (proba.shape[-1] - 1) if normalize else total


def sarps(proba, true):
    """Squared absolute RPS, Galdran (2023) eq. 7: ``(1/(K-1)) (sum_{i<K} |P_i - Y_i|)^2``.

    It lies in [0, K - 1] (K - 1 for all mass on the far extreme class), not in
    [0, 1] as the paper says, and it is not a proper scoring rule.
    """
    total = sum(np.abs(gap) for gap in _cdf_gaps(proba, true))
    return total * total / (proba.shape[-1] - 1)


def brier(proba, true):
    """Multi-class Brier score, Galdran (2023) eq. 1: ``sum_i (p_i - y_i)^2``, in [0, 2]."""
    return sum((proba[..., i] - (true == i)) ** 2 for i in range(proba.shape[-1]))


def log_score(proba, true, eps=LOG_EPS):
    """Logarithmic score, Galdran (2023) eq. 2: ``-log p_c`` of the true class ``c``.

    ``p_c`` is clipped to ``[eps, 1]`` first, so a zero probability on the true
    class scores ``-log(eps)`` (34.5 for the default 1e-15) instead of infinity.
    """
    if isinstance(eps, bool) or not isinstance(eps, (int, float, np.integer, np.floating)) or not 0 < eps < 1:
        raise ValueError(f"log_score: eps must be a number in (0, 1), got {eps!r}")
    p_true = np.take_along_axis(proba, np.asarray(true)[..., None], axis=-1)[..., 0]
    return -np.log(np.clip(p_true, eps, 1.0))


def unimodality(proba, true, tol=0.0):
    """1 where the predicted distribution is unimodal, else 0: p_1 <= ... <= p_m >= ... >= p_K for some mode m.

    Plateaus are allowed (weak unimodality); a step counts as a rise or a fall only when it exceeds
    ``tol``. Averaged over samples it is the share of unimodal predictions, the property that the
    unimodal model of Pinto da Costa, Alonso & Cardoso (2008) guarantees. ``true`` is not used.
    """
    if isinstance(tol, bool) or not isinstance(tol, (int, float, np.integer, np.floating)) or not 0 <= tol < 1:
        raise ValueError(f"unimodality: tol must be a number in [0, 1), got {tol!r}")
    step = np.diff(proba, axis=-1)
    fallen = np.logical_or.accumulate(step < -tol, axis=-1)  # a fall at or before each step
    rises_after_a_fall = (step[..., 1:] > tol) & fallen[..., :-1]
    return (~rises_after_a_fall.any(axis=-1)).astype(np.float64)


def calibration_in_the_large(proba, true):
    """E_p[Y] - y: the expected class position under the predicted probabilities minus the true one, per sample.

    Averaged, the mean predicted class position minus the mean true one: calibration in the large (Van Calster et
    al. 2016) on the class scale, best at 0; with one-hot probabilities, ``mean_signed_error`` of their classes.
    """
    return proba @ np.arange(proba.shape[-1], dtype=np.float64) - true


@hookimpl
def ordframe_metrics():
    unit = (0.0, 1.0)
    return [
        Metric(
            "calibration_in_the_large",
            "proba",
            calibration_in_the_large,
            bounds=(float("-inf"), float("inf")),
            best=0.0,
            description="Calibration in the large on the class scale: the mean expected class position under the "
            "predicted probabilities minus the mean true position (the bias of the probabilities; best at 0).",
            reference=VAN_CALSTER,
        ),
        Metric(
            "rps",
            "proba",
            rps,
            False,
            unit,
            description="Ranked probability score: squared distance between predicted and true cumulative "
            "distributions, divided by K - 1 (normalize=False: the plain sum, as dlordinal and xskillscore).",
            reference=f"{EPSTEIN}; {GALDRAN}, eq. 4",
        ),
        Metric(
            "sarps",
            "proba",
            sarps,
            False,
            (0.0, float("inf")),
            description="Squared absolute RPS: the square of the summed absolute cumulative differences, "
            "divided by K - 1; quadratic in the distance of a misplaced mass; in [0, K - 1]; not proper.",
            reference=f"{GALDRAN}, eq. 7",
        ),
        Metric(
            "brier",
            "proba",
            brier,
            False,
            (0.0, 2.0),
            description="Multi-class Brier score: squared distance between the probabilities and the one-hot "
            "true class (blind to the class order).",
            reference=BRIER,
        ),
        Metric(
            "log_score",
            "proba",
            log_score,
            False,
            (0.0, float("inf")),
            description="Logarithmic score (negative log-likelihood) of the true class, with the probability "
            "clipped to [eps, 1] (blind to the class order).",
            reference=GOOD,
        ),
        Metric(
            "unimodality",
            "proba",
            unimodality,
            True,
            unit,
            description="Share of predicted distributions that are unimodal (rise to one mode, then fall; "
            "plateaus allowed, steps within tol ignored).",
            reference=PINTO_DA_COSTA,
        ),
    ]
