"""Per-sample scores of probability metrics, and their (weighted) means over samples or groups.

A ``proba`` metric gives one score per sample (through ``ordframe.apply``);
the reported value is the mean over the sample dims of a DataArray, or over
the rows of each group of a DataFrame (``ordframe.frame``). Samples dropped
with ``dropna=True`` have a NaN score and are skipped by the means.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_proba
from ordframe._core.checks import dims_list
from ordframe._inputs.frame import FrameRows
from ordframe._inputs.probability import ProbaInputs
from ordframe._inputs.weights import checked_weights
from ordframe._registry.metric import Metric


def array_scores(metric: Metric, inputs: ProbaInputs, params) -> xr.DataArray:
    """One score per sample of a probability array."""
    return apply_proba(metric, inputs.proba, inputs.codes, inputs.classes, params, inputs.class_dim)


def mean_scores(scores: xr.DataArray, *, dim=None, weights=None) -> xr.DataArray:
    """The (weighted) mean of per-sample ``scores`` over ``dim`` (default: every dim; ``[]``: none)."""
    dims = list(scores.dims) if dim is None else dims_list(dim)
    absent = [d for d in dims if d not in scores.dims]
    if absent:
        raise ValueError(f"dim {absent} not found; the samples have dims {tuple(scores.dims)}")
    weights = checked_weights(weights, like=scores)
    if not dims:
        return scores
    if weights is None:
        return scores.mean(dims)
    return scores.weighted(weights).mean(dims)


def no_weight(scores: xr.DataArray, weights: xr.DataArray | None) -> bool:
    """Whether no sample has a score (all dropped), or the weights of those that do sum to 0."""
    if weights is None:
        return bool(scores.count() == 0)
    return not float(weights.where(scores.notnull()).sum()) > 0


def frame_scores(metric: Metric, rows: FrameRows, params) -> np.ndarray:
    """One score per kept DataFrame row."""
    return _frame_scores(metric, rows, params).values


def frame_mean(metric: Metric, rows: FrameRows, params, name: str) -> xr.DataArray:
    """The (weighted) mean score per group of a DataFrame's rows, with the metric's attrs."""
    scores = _frame_scores(metric, rows, params)
    return rows.mean(scores.values, name).assign_attrs(scores.attrs)


def _frame_scores(metric: Metric, rows: FrameRows, params) -> xr.DataArray:
    proba = xr.DataArray(rows.proba, dims=("row", "class"))
    codes = xr.DataArray(rows.true.array(), dims="row")
    scores = apply_proba(metric, proba, codes, rows.classes, params)
    if rows.unscored is not None:
        scores = scores.where(~rows.unscored)  # a group without probabilities has no score
    return scores
