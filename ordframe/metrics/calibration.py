"""Decompositions of the Brier score of cumulative probabilities, and of the RPS, into calibration terms.

An ordinal forecast ``p_1, ..., p_K`` gives, for every threshold ``k = 1, ..., K - 1``,
the probability ``x_k = P(Y <= k) = p_1 + ... + p_k`` of a binary event
``y_k = 1{Y <= k}``. The Brier score of threshold ``k`` is ``mean (x_k - y_k)^2``,
and the RPS is their sum over ``k`` (divided by ``K - 1`` when normalised, as
ordframe's ``rps``), so every decomposition of the Brier scores adds up to one
of the RPS.

Two decompositions of the (weighted) mean score ``S`` of each threshold, on
the distinct forecast values ``f_j`` (``n_j`` samples, observed frequency
``o_j``) and the base rate ``o``:

* ``binned`` (Murphy 1973): ``S = REL - RES + UNC`` with
  ``REL = sum_j n_j (f_j - o_j)^2 / N``, ``RES = sum_j n_j (o_j - o)^2 / N``,
  ``UNC = o (1 - o)``. With the distinct forecast values as bins the identity
  is exact.
* ``corp`` (Dimitriadis, Gneiting & Jordan 2021): the forecasts are
  recalibrated by isotonic regression of the outcomes on them (the
  pool-adjacent-violators algorithm, PAV; tied forecasts share one value),
  which gives the score ``S_C``; the climatological forecast ``o`` gives
  ``S_R = UNC``. Then ``MCB = S - S_C``, ``DSC = S_R - S_C`` and
  ``S = MCB - DSC + UNC``, with ``MCB >= 0`` and ``DSC >= 0`` (``S_C`` is capped at ``S`` and
  ``UNC``, which it cannot exceed but for rounding).

The expected calibration error of a threshold is ``sum_b |sum_{i in b} w_i (x_i - y_i)| / N``
over the bins ``b`` of the method (the distinct forecasts, or for ``corp`` the
PAV pools: the sets of forecasts that share one recalibrated value): the binned
ECE (Naeini, Cooper & Hauskrecht 2015) with the CORP bins, whose recalibrated
value is the bin's observed frequency.

Kernels take flat arrays of samples with an integer group code each and
return one value per (group, threshold); a group without samples (or whose
weights sum to 0) gives NaN. Nothing loops over samples or groups in Python:
each threshold is one sort, ``bincount`` sums, and one isotonic regression
(``scipy.optimize.isotonic_regression``) over every group at once. With the
``numba`` extra, the pass that adds a threshold's probabilities also builds its
sort keys and squared gaps, and one pass over the sorted keys makes the bins
(``binned``, whose terms take one more pass) or pushes each bin into a compiled
PAV as it ends (``corp``; the same pools: the runs of equal fitted values);
numpy alone (``ORDFRAME_NUMBA=0``) gives the same values.
"""

from __future__ import annotations

import numpy as np

from ordframe._core import options
from ordframe.metrics import _accelerate

METHODS = ("corp", "binned")
COMPONENTS = {
    "corp": ("score", "miscalibration", "discrimination", "uncertainty"),
    "binned": ("score", "reliability", "resolution", "uncertainty"),
}
"""The components of each method, in the order of the kernels' last axis."""

MURPHY = "A. H. Murphy, A new vector partition of the probability score, J. Appl. Meteor. 12(4), 1973"
CORP = (
    "T. Dimitriadis, T. Gneiting, A. I. Jordan, Stable reliability diagrams for probabilistic classifiers, "
    "PNAS 118(8), 2021"
)

_LOW_BIT = np.uint64(1)


class Bins:
    """The distinct forecast values of each group for one threshold, sorted by group then value.

    ``group``, ``forecast``: the group and value of each bin; ``weight``: the
    samples' total weight in it; ``events``: their total weight where the event
    occurred.
    """

    def __init__(self, group: np.ndarray | None, forecast, weight, events):
        self.group, self.forecast, self.weight, self.events = group, forecast, weight, events

    def group_of(self, values: np.ndarray) -> np.ndarray:
        """``values`` (one per group) for every bin."""
        return values[0] if self.group is None else values[self.group]

    @classmethod
    def of(cls, x: np.ndarray, y: np.ndarray, group: np.ndarray | None, weights: np.ndarray | None) -> Bins:
        """The bins of forecasts ``x`` in [0, 2) and binary outcomes ``y`` (bool), per ``group`` code."""
        if group is not None or weights is not None:
            return cls.with_members(x, y, group, weights)[0]
        # One sort of the forecasts' bit patterns (monotone for x >= 0, below 2**62) with the outcome in the
        # spare lowest bit: exact, and a plain sort (SIMD) is several times faster than argsort.
        key = x.view(np.uint64) << _LOW_BIT
        np.bitwise_or(key, y, out=key, casting="unsafe")
        key.sort()
        x_s = (key >> _LOW_BIT).view(np.float64)
        start = _run_starts(x_s, None)
        end = np.append(start[1:], len(x_s))[: len(start)]  # counts: differences of cumulative counts are exact
        ones = np.cumsum((key & _LOW_BIT).view(np.int64))
        events = np.diff(ones[end - 1], prepend=0).astype(np.float64) if len(end) else np.zeros(0)
        return cls(None, x_s[start], (end - start).astype(np.float64), events)

    @classmethod
    def with_members(
        cls, x: np.ndarray, y: np.ndarray, group: np.ndarray | None, weights: np.ndarray | None
    ) -> tuple[Bins, np.ndarray]:
        """The bins of ``of``, and the bin of every sample."""
        order = np.argsort(x)
        if group is not None:
            order = order[np.argsort(group[order], kind="stable")]
        x_s, y_s = x[order], y[order].view(np.int8)
        g_s = None if group is None else group[order]
        start = _run_starts(x_s, g_s)
        segment = _run_of(start, len(x_s))
        if weights is None:
            weight = np.bincount(segment, minlength=len(start)).astype(np.float64)
            events = np.bincount(segment, y_s, minlength=len(start))
        else:
            w_s = weights[order]
            weight = np.bincount(segment, w_s, minlength=len(start))
            events = np.bincount(segment, w_s * y_s, minlength=len(start))
        member = np.empty(len(x), np.int64)
        member[order] = segment
        return cls(None if g_s is None else g_s[start], x_s[start], weight, events), member

    def frequency(self) -> np.ndarray:
        """The observed frequency of the event in every bin."""
        return self.events / self.weight

    def pooled(self) -> tuple[Bins, np.ndarray]:
        """The PAV pools, and the pool of every bin: bins merged where their frequencies violate the order of the
        forecasts, per group.

        A pool's ``forecast`` is its weighted mean forecast; its frequency is the recalibrated (isotonic) value of
        each of its bins.
        """
        if len(self.weight) == 0:
            return self, np.zeros(0, np.int64)
        if options.COMPILED:  # PAV compiled: the pools and their sums in one pass over the bins
            pool, start, weight, weighted, events = _accelerate.pav(self.weight, self.forecast, self.events, self.group)
        else:
            from scipy.optimize import isotonic_regression

            # Groups are kept apart by adding 2 per group to values in [0, 1]: no pool crosses a group's end. The
            # fitted values only tell the pools apart; their frequencies are recomputed exactly from the sums below.
            frequency = self.frequency()
            if self.group is not None:
                frequency += 2.0 * self.group
            fitted = isotonic_regression(frequency, weights=self.weight).x
            start = _run_starts(fitted, self.group)
            pool = _run_of(start, len(fitted))
            weight = np.bincount(pool, self.weight, minlength=len(start))
            weighted = np.bincount(pool, self.weight * self.forecast, minlength=len(start))
            events = np.bincount(pool, self.events, minlength=len(start))
        return Bins(None if self.group is None else self.group[start], weighted / weight, weight, events), pool

    def per_group(self, values: np.ndarray, n_groups: int) -> np.ndarray:
        """The sum of ``values`` (one per bin) over the bins of each group."""
        if self.group is None:
            return np.array([values.sum()])
        return np.bincount(self.group, weights=values, minlength=n_groups)


def _run_starts(values: np.ndarray, group: np.ndarray | None) -> np.ndarray:
    """Where each run of equal sorted ``values`` (within a group) starts."""
    new = np.empty(len(values), bool)
    new[:1] = True
    np.not_equal(values[1:], values[:-1], out=new[1:])
    if group is not None:
        new[1:] |= group[1:] != group[:-1]
    return np.flatnonzero(new)


def _run_of(start: np.ndarray, n: int) -> np.ndarray:
    """The run of each of ``n`` elements, from the runs' ``start``s."""
    marks = np.zeros(n, np.int64)
    marks[start[1:]] = 1
    return np.cumsum(marks)


def _cdf_events(proba: np.ndarray, true: np.ndarray):
    """Yield ``(x_k, y_k)`` for ``k = 1, ..., K - 1``: cumulative probabilities and outcomes ``1{true <= k}``."""
    cdf = np.zeros(proba.shape[:-1])
    for k in range(proba.shape[-1] - 1):
        cdf += proba[..., k]
        yield cdf.copy(), true <= k


def decompose(
    proba: np.ndarray,
    true: np.ndarray,
    group: np.ndarray | None = None,
    n_groups: int = 1,
    weights: np.ndarray | None = None,
    method: str = "corp",
) -> tuple[np.ndarray, np.ndarray]:
    """The decomposition of every threshold's Brier score, and its ECE, per group.

    Parameters
    ----------
    proba : numpy.ndarray
        Probabilities ``(n, K)`` of the ordered classes.
    true : numpy.ndarray
        The true class code of every sample ``(n,)``, in ``0, ..., K - 1``.
    group : numpy.ndarray, optional
        The group code of every sample, in ``0, ..., n_groups - 1`` (default: one group).
    n_groups : int
        The number of groups.
    weights : numpy.ndarray, optional
        Sample weights ``> 0``.
    method : {"corp", "binned"}
        CORP (Dimitriadis, Gneiting & Jordan 2021) or Murphy's (1973) binning by distinct forecasts.

    Returns
    -------
    components : numpy.ndarray
        ``(n_groups, K - 1, 4)``: score, then ``COMPONENTS[method]`` in order.
    ece : numpy.ndarray
        ``(n_groups, K - 1)``: the expected calibration error over the method's bins.
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if group is not None:  # small unsigned codes: numpy's stable sort of them is a radix sort
        group = group.astype(np.min_scalar_type(max(n_groups - 1, 0)), copy=False)
    n_thresholds = proba.shape[-1] - 1
    components = np.empty((n_groups, n_thresholds, 4))
    ece = np.empty((n_groups, n_thresholds))
    compiled = options.COMPILED and group is None and weights is None
    with np.errstate(invalid="ignore", divide="ignore"):
        for k, step in enumerate(_accelerate.thresholds(proba, true) if compiled else _cdf_events(proba, true)):
            pools = None
            if compiled:  # Bins.of's keys, built in the pass that adds the threshold's probabilities
                squared, key = step
                key.sort()
                if method == "corp":  # the bins go straight into PAV; the pools' sums are the bins' (whole numbers)
                    bins = pools = Bins(None, *_accelerate.key_pools(key))
                else:
                    bins = Bins(None, *_accelerate.key_bins(key))
            else:
                x, y = step
                bins = Bins.of(x, y, group, weights)
                gap = x - y
                squared = gap * gap if weights is None else weights * gap * gap
            total = bins.per_group(bins.weight, n_groups)
            base_rate = bins.per_group(bins.events, n_groups) / total
            score = (np.bincount(group, squared, minlength=n_groups) if group is not None else squared.sum()) / total
            uncertainty = base_rate * (1 - base_rate)
            if method == "binned":
                if compiled:  # the three terms of every bin in one pass, by the same operations
                    terms = _accelerate.binned_terms(bins.weight, bins.forecast, bins.events, float(base_rate[0]))
                else:
                    freq = bins.frequency()
                    terms = (
                        bins.weight * (bins.forecast - freq) ** 2,
                        bins.weight * (freq - bins.group_of(base_rate)) ** 2,
                        np.abs(bins.weight * bins.forecast - bins.events),
                    )
                calibration, resolution, gaps = (bins.per_group(term, n_groups) / total for term in terms)
            else:
                cells = bins.pooled()[0] if pools is None else pools
                freq = cells.frequency()
                recalibrated_score = cells.per_group(cells.weight * freq * (1 - freq), n_groups) / total
                # S_C <= S and S_C <= UNC (the forecasts and the base rate are isotonic): held against rounding,
                # so MCB, DSC >= 0 and S = MCB - DSC + UNC to rounding
                recalibrated_score = np.minimum(recalibrated_score, np.minimum(score, uncertainty))
                calibration = score - recalibrated_score
                resolution = uncertainty - recalibrated_score
                gaps = cells.per_group(np.abs(cells.weight * cells.forecast - cells.events), n_groups) / total
            components[:, k] = np.stack([score, calibration, resolution, uncertainty], axis=-1)
            ece[:, k] = gaps
    return components, ece
