"""Calibration of ordinal probabilities: score decompositions and reliability curves, labelled.

The probabilities and true labels come through the one probability front end
(``_inputs/frame.py`` for DataFrame columns, ``_inputs/probability.py`` for
arrays); the numbers come from the kernels of ``ordframe.metrics.calibration``.
Every result has a ``threshold`` dim: threshold ``k`` (labelled by the class
``k``) is the event ``Y <= k`` and its forecast ``P(Y <= k)``, for every class
but the last.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import check_count, check_level, dims_list, rng_of
from ordframe._core.dims import CLASS_DIM, COMPONENT_DIM, POINT_DIM, THRESHOLD_DIM
from ordframe._core.messages import warn
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.probability import DROPPED, array_inputs
from ordframe._inputs.selection import Selection
from ordframe._inputs.weights import checked_weights
from ordframe.metrics.calibration import COMPONENTS, CORP, METHODS, MURPHY, Bins, decompose


class Samples:
    """Flat probabilities ``(n, K)``, true codes, group codes and weights of the samples kept, and how to label
    a result ``(n_groups, *rest)`` over the groups."""

    def __init__(self, proba, true, group, n_groups, weights, classes, label):
        keep = true != DROPPED
        if weights is not None:
            keep &= weights > 0  # a sample of weight 0 counts nowhere, and isotonic regression needs weights > 0
        if not keep.all():
            proba, true, group = proba[keep], true[keep], group[keep]
            weights = None if weights is None else weights[keep]
        self.proba, self.true, self.weights, self.classes = proba, true, weights, classes
        self.group, self.n_groups = (None, 1) if n_groups == 1 else (group, n_groups)
        self.sizes = np.bincount(group, minlength=n_groups)
        self._label = label

    def label(self, values: np.ndarray, dims: tuple, coords: dict, name: str) -> xr.DataArray:
        """``values`` ``(n_groups, *rest)`` over the group dims, then ``dims``."""
        return self._label(values, dims, coords, name)

    def warn_empty(self) -> None:
        empty = int((self.sizes == 0).sum())
        if empty:
            warn(
                f"{empty} of {len(self.sizes)} groups have no sample with a positive weight: their calibration is NaN",
                RuntimeWarning,
            )


def frame_samples(df: pd.DataFrame, selection: Selection) -> Samples:
    """The samples of a DataFrame's rows, through ``frame_rows`` (one group per ``by`` combination)."""
    rows = frame_rows(df, selection)
    n = len(rows.index)
    sizes = rows.groups.sizes
    group = rows.groups.flat_index(n)
    codes = rows.true.array().astype(np.int64)
    if rows.unscored is not None:
        codes = np.where(rows.unscored, DROPPED, codes)  # a group without probabilities has no calibration
    counts = np.bincount(group, minlength=int(np.prod(sizes, dtype=np.int64))).reshape(sizes)

    def label(values, dims, coords, name):
        return rows.groups.labelled(values.reshape((*sizes, *values.shape[1:])), dims, coords, rows=counts, name=name)

    return Samples(rows.proba, codes, group, int(np.prod(sizes, dtype=np.int64)), rows.weights, rows.classes, label)


def array_samples(
    proba: xr.DataArray, true, *, dim, labels, weights, dropna, renormalize, class_dim=CLASS_DIM
) -> Samples:
    """The samples of a probability array, pooled over ``dim`` (default: every dim but ``class_dim``)."""
    inputs = array_inputs(proba, true, labels=labels, renormalize=renormalize, dropna=dropna, class_dim=class_dim)
    codes = inputs.codes
    dims = list(codes.dims) if dim is None else dims_list(dim)
    absent = [d for d in dims if d not in codes.dims]
    if absent:
        raise ValueError(f"dim {absent} not found; the samples have dims {tuple(codes.dims)}")
    kept = [d for d in codes.dims if d not in dims]
    weights = checked_weights(weights, like=codes)
    if weights is not None:
        weights = weights.broadcast_like(codes).transpose(*kept, *dims).values.reshape(-1).astype(np.float64)
    shape = [codes.sizes[d] for d in kept]
    n_groups = int(np.prod(shape, dtype=np.int64))
    values = inputs.proba.transpose(*kept, *dims, inputs.class_dim).values.reshape(-1, len(inputs.classes))
    flat = codes.transpose(*kept, *dims).values.reshape(-1)
    group = np.repeat(np.arange(n_groups), len(flat) // max(n_groups, 1))
    coords = {d: codes[d] for d in kept if d in codes.coords}

    def label(values, dims_, coords_, name):
        return xr.DataArray(
            values.reshape((*shape, *values.shape[1:])), dims=(*kept, *dims_), coords={**coords, **coords_}, name=name
        )

    return Samples(values, flat, group, n_groups, weights, inputs.classes, label)


def check_method(method) -> str:
    if method not in METHODS:
        raise ValueError(
            f"method must be 'corp' (isotonic recalibration, Dimitriadis, Gneiting & Jordan 2021) or 'binned' "
            f"(Murphy 1973, one bin per distinct forecast), got {method!r}"
        )
    return method


def calibration(samples: Samples, *, method: str = "corp", normalize: bool = True) -> xr.Dataset:
    """The decompositions of every threshold's Brier score and of the RPS, and the ECEs, per group.

    See ``ordframe.metrics.calibration`` for the formulas.
    """
    method = check_method(method)
    if not isinstance(normalize, (bool, np.bool_)):
        raise TypeError(f"normalize must be True or False, got {normalize!r}")
    samples.warn_empty()
    components, ece = decompose(
        samples.proba, samples.true, samples.group, samples.n_groups, samples.weights, method=method
    )
    n_thresholds = components.shape[1]
    thresholds = {THRESHOLD_DIM: samples.classes[:-1]}
    names = {COMPONENT_DIM: list(COMPONENTS[method])}
    rps = components.sum(axis=1) / (n_thresholds if normalize else 1)
    data = {
        "brier": samples.label(components, (THRESHOLD_DIM, COMPONENT_DIM), {**thresholds, **names}, "brier"),
        "rps": samples.label(rps, (COMPONENT_DIM,), names, "rps"),
        "ece": samples.label(ece, (THRESHOLD_DIM,), thresholds, "ece"),
        "ordinal_ece": samples.label(ece.mean(axis=1), (), {}, "ordinal_ece"),
    }
    ds = xr.Dataset(data)
    ds["brier"].attrs["description"] = "Brier score of P(Y <= threshold) and its decomposition"
    ds["rps"].attrs["description"] = "ranked probability score and its decomposition: the sum over thresholds" + (
        ", divided by K - 1" if normalize else ""
    )
    ds["ece"].attrs["description"] = "expected calibration error of P(Y <= threshold) over the method's bins"
    ds["ordinal_ece"].attrs["description"] = "mean of ece over the thresholds"
    return ds.assign_attrs(method=method, normalize=int(normalize), reference=CORP if method == "corp" else MURPHY)


def reliability(
    samples: Samples, *, method: str = "corp", n_resamples: int = 100, level: float = 0.9, seed=None
) -> xr.Dataset:
    """Reliability curves per threshold and group, with consistency bands, and the decomposition.

    ``forecast``, ``observed`` (the isotonic recalibration for ``corp``, the observed
    frequency for ``binned``) and ``weight`` (the share of the group's weight) of every
    distinct forecast, along a ``point`` dim padded with NaN. The consistency band
    (Dimitriadis, Gneiting & Jordan 2021, Sec. 3) holds the central ``level`` of
    ``observed`` over ``n_resamples`` sets of outcomes drawn from the forecasts themselves
    (``y* ~ Bernoulli(x)``): where the curve leaves the band, calibration is doubtful.
    """
    method = check_method(method)
    n_resamples = check_count(n_resamples, "n_resamples")
    level = check_level(level)
    rng = rng_of(seed)
    decomposition = calibration(samples, method=method)
    group = np.zeros(len(samples.true), np.int64) if samples.group is None else samples.group.astype(np.int64)
    n_groups = samples.n_groups
    weights = samples.weights
    curves = []
    for k, threshold_forecast in enumerate(np.cumsum(samples.proba[:, :-1], axis=1).T):  # thresholds: K - 1
        x = np.ascontiguousarray(threshold_forecast)
        bins, member = Bins.with_members(x, samples.true <= k, group, weights)
        # outcomes of calibrated forecasts, one set per replicate: the bins stay those of the forecasts, so the
        # replicates need no sort, only each bin's events counted (replicate r's bins are r * J, ..., r * J + J - 1)
        n_bins = len(bins.weight)
        drawn = (rng.random((n_resamples, len(x))) < x).reshape(-1)
        cells = (np.arange(n_resamples)[:, None] * n_bins + member).reshape(-1)[drawn]
        events = np.bincount(
            cells, None if weights is None else np.tile(weights, n_resamples)[drawn], minlength=n_resamples * n_bins
        )
        replicates = Bins(
            (np.arange(n_resamples)[:, None] * n_groups + _groups_of(bins)).reshape(-1),
            np.tile(bins.forecast, n_resamples),
            np.tile(bins.weight, n_resamples),
            events,
        )
        observed = _observed(bins, method)
        band = _observed(replicates, method).reshape(n_resamples, -1)  # the same bins, replicate after replicate
        lower, upper = np.quantile(band, [(1 - level) / 2, (1 + level) / 2], axis=0)
        curves.append((bins, observed, lower, upper))
    n_points = max(int(np.bincount(_groups_of(b), minlength=n_groups).max(initial=0)) for b, *_ in curves)
    out = {name: np.full((n_groups, len(curves), n_points), np.nan) for name in VARIABLES}
    for k, (bins, observed, lower, upper) in enumerate(curves):
        groups = _groups_of(bins)
        starts = np.searchsorted(groups, np.arange(n_groups))
        point = np.arange(len(groups)) - starts[groups]
        totals = np.bincount(groups, bins.weight, minlength=n_groups)
        for name, values in zip(VARIABLES, (bins.forecast, observed, bins.weight / totals[groups], lower, upper)):
            out[name][groups, k, point] = values
    coords = {THRESHOLD_DIM: samples.classes[:-1], POINT_DIM: np.arange(n_points)}
    for name, values in out.items():
        decomposition[name] = samples.label(values, (THRESHOLD_DIM, POINT_DIM), coords, name)
    return decomposition.assign_attrs(level=level, n_resamples=n_resamples, bands="consistency")


VARIABLES = ("forecast", "observed", "weight", "lower", "upper")


def _groups_of(bins: Bins) -> np.ndarray:
    return np.zeros(len(bins.weight), np.int64) if bins.group is None else bins.group.astype(np.int64)


def _observed(bins: Bins, method: str) -> np.ndarray:
    """Per bin: its isotonic recalibrated value (``corp``) or its observed frequency (``binned``)."""
    if method == "binned":
        return bins.frequency()
    pools, pool_of_bin = bins.pooled()
    return pools.frequency()[pool_of_bin]
