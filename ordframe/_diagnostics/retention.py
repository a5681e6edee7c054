"""Retained-samples curves and their area, AURSC (Galdran 2023, Sec. 2.4).

Within every stack of samples (a model, a fold, a ``by`` group) the samples
are ordered from best to worst under a per-sample score (a ``proba`` metric;
ties keep the input order). For each retained fraction ``r`` the best
``m = floor(r n + 1/2)`` of the ``n`` samples are kept, the predicted class
(the most probable one, unless given) is compared with the true class, and a
set-level ``confusion`` metric (``qwk``, ``expected_cost``, ...) is computed on
what remains. A score that ranks ordinal mistakes well improves that metric
fast as the worst samples go.

Every retained set is a prefix of the best-first order, so all of its
confusion matrices come from one pass: each sample is counted (``bincount``)
into the segment between the two cut points that bracket its rank, and a
cumulative sum over the segments gives the cube of every fraction at once.
The metric then runs on that stack of cubes. Nothing loops over fractions.

The area is normalised by the width of the range of fractions::

    aursc = (1 / (r_max - r_min)) * integral_{r_min}^{r_max} metric(r) dr

with the trapezoidal rule on the given fractions: the mean of the metric over
the range, in the metric's own units (for qwk, within [-1, 1]). Galdran (2023) does
not state the scale of its Table 1 (AURSC-QWK 13-18), so those values are not
comparable with this one. A NaN anywhere on a curve makes its area NaN. For a metric whose best value is a
target (``Metric.best``, e.g. the mean signed error's 0) the curve shows the metric and the area is that of its
distance from the target, ``|metric(r) - best|`` (lower is better): values on either side would cancel.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import apply_confusion
from ordframe._bridge.scores import array_scores, frame_scores
from ordframe._core.checks import dims_list
from ordframe._core.dims import CLASS_DIM, CUBE_DIMS, RETAINED_DIM, SCORE_DIM
from ordframe._inputs.counting import count_cells
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.probability import DROPPED, array_inputs, label_codes
from ordframe._inputs.selection import Selection
from ordframe._inputs.weights import checked_weights
from ordframe._registry.request import metric_request

# retained fractions 1.00, 0.99, ..., 0.50: up to half of the samples dropped
DEFAULT_FRACTIONS = tuple(np.round(np.linspace(1.0, 0.5, 51), 2))


def retention_counts(
    key, group, cell, *, n_groups: int, retained: np.ndarray, n_cells: int, weights=None
) -> np.ndarray:
    """Cell counts ``(n_groups, J, n_cells)`` of the samples kept at each fraction of ``retained`` (ascending).

    ``key`` orders the samples of a group (lowest = best, kept longest),
    ``group`` and ``cell`` are integer codes per sample, ``weights`` optional
    per-sample weights added instead of 1.
    """
    order = np.lexsort((key, group))
    group, cell = group[order], cell[order]
    sizes = np.bincount(group, minlength=n_groups)
    rank = np.arange(len(group)) - (np.cumsum(sizes) - sizes)[group]
    kept = np.floor(np.multiply.outer(sizes, retained) + 0.5).astype(np.int64)  # (G, J), ascending along J
    # a sample's segment = the number of cut points at or below its rank, so it is kept at fractions from there on
    span = len(group) + 1
    cuts = (np.arange(n_groups)[:, None] * span + kept).ravel()
    segment = np.searchsorted(cuts, group * span + rank, side="right") - group * len(retained)
    counts = count_cells(
        [group, segment, cell],
        [n_groups, len(retained) + 1, n_cells],
        weights=None if weights is None else weights[order],
    )
    return np.cumsum(counts, axis=1)[:, :-1]


def _stacked_cubes(key, true, pred, *weights, retained, k):
    """``retention_counts`` for arrays ``(..., n)``: one group per leading index, cubes ``(..., J, K, K)``."""
    lead = key.shape[:-1]
    n_groups = int(np.prod(lead, dtype=np.int64))
    group = np.repeat(np.arange(n_groups), key.shape[-1])
    true, pred = true.reshape(-1), pred.reshape(-1)
    kept = (true != DROPPED) & (pred != DROPPED)
    w = weights[0].reshape(-1)[kept] if weights else None
    counts = retention_counts(
        key.reshape(-1)[kept],
        group[kept],
        (true * k + pred)[kept],
        n_groups=n_groups,
        retained=retained,
        n_cells=k * k,
        weights=w,
    )
    return counts.reshape(*lead, len(retained), k, k)


@dataclass(frozen=True)
class Retention:
    """What retention curves score: the per-sample ``score`` (a proba metric name, ``(name, params)`` or a
    list of names: a ``score`` dim), the set-level ``metric`` (a confusion metric name or ``(name, params)``)
    and the retained ``fractions``; checked once, where it is built."""

    score: Any = "rps"
    metric: Any = "qwk"
    fractions: Any = None
    scores: dict = field(init=False, repr=False)  # the score metrics' request
    confusion: dict = field(init=False, repr=False)  # the metric's request, one output

    def __post_init__(self) -> None:
        object.__setattr__(self, "fractions", _fractions(self.fractions))
        object.__setattr__(self, "scores", metric_request(self.score, argument="score", require="proba"))
        request = metric_request(self.metric, argument="metric", require="confusion")
        if len(request) != 1:
            raise ValueError(f"metric must name one confusion metric, got {list(request)}")
        object.__setattr__(self, "confusion", request)

    @property
    def stacked(self) -> bool:
        """Whether the curves have a ``score`` dim (``score`` named a list of metrics)."""
        return not isinstance(self.score, (str, tuple))


def _fractions(fractions) -> np.ndarray:
    if fractions is not None and (isinstance(fractions, (str, set, frozenset)) or np.ndim(fractions) != 1):
        raise TypeError(f"fractions must be a list of retained fractions in (0, 1], got {fractions!r}")
    try:
        retained = np.asarray(DEFAULT_FRACTIONS if fractions is None else fractions, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"fractions must be a list of numbers in (0, 1], got {fractions!r}") from None
    if len(retained) < 2 or np.isnan(retained).any() or (retained <= 0).any() or (retained > 1).any():
        raise ValueError(f"fractions must be at least two retained fractions in (0, 1], got {list(retained)}")
    if len(np.unique(retained)) != len(retained):
        raise ValueError(f"fractions must be distinct, got {list(retained)}")
    return np.sort(retained)


def _check_dims(names, what: str) -> None:
    """An error if a group or sample dim would clash with the dims of the result."""
    clash = sorted({n for n in names if n in (RETAINED_DIM, SCORE_DIM)})
    if clash:
        raise ValueError(f"a {what} is named {clash[0]!r}, which retention curves use for their own dim; rename it")


def _finish(cubes: dict[str, xr.DataArray], retention: Retention) -> xr.Dataset:
    """Curves, areas and retained counts from the cubes of every score (cube dims ``(..., retained, true, pred)``)."""
    stacked = retention.stacked
    ((out, (confusion, params)),) = retention.confusion.items()
    curves = [apply_confusion(confusion, c, params) for c in cubes.values()]
    curve = (
        xr.concat(curves, dim=xr.DataArray(np.array(list(cubes)), dims=SCORE_DIM, name=SCORE_DIM))
        if stacked
        else curves[0]
    )
    ascending = confusion.orientation.ranked(curve).sortby(RETAINED_DIM)  # a target metric: its distance from it
    r = ascending[RETAINED_DIM]
    area = ascending.integrate(RETAINED_DIM) / float(r.max() - r.min())
    descending = slice(None, None, -1)
    return xr.Dataset(
        {
            "curve": curve.isel({RETAINED_DIM: descending}),
            "aursc": area,
            "n_retained": next(iter(cubes.values())).sum(CUBE_DIMS).isel({RETAINED_DIM: descending}),
        },
        attrs={"metric": out, **({} if stacked else {"score": next(iter(cubes))})},
    )


def array_aursc(
    proba: xr.DataArray,
    true: xr.DataArray,
    retention: Retention,
    *,
    pred=None,
    dim=None,
    labels=None,
    weights=None,
    dropna=False,
    renormalize=False,
    class_dim=CLASS_DIM,
) -> xr.Dataset:
    """Retention curves of a probability array, one per index of the dims not in ``dim`` (default: all sample dims).

    Returns a Dataset with ``curve`` (dim ``retained``, from 1 down), ``aursc`` and ``n_retained``.
    """
    retained = retention.fractions
    _check_dims([*proba.dims, *true.dims], "dim of the probabilities")
    inputs = array_inputs(proba, true, labels=labels, renormalize=renormalize, dropna=dropna, class_dim=class_dim)
    weights = checked_weights(weights, like=inputs.codes)
    k = len(inputs.classes)
    pred_codes = inputs.argmax() if pred is None else label_codes(pred, inputs.classes, name="pred", dropna=dropna)
    samples = list(inputs.codes.dims) if dim is None else dims_list(dim)
    absent = [d for d in samples if d not in inputs.codes.dims]
    if absent or not samples:
        raise ValueError(f"dim must name one or more sample dims of {tuple(inputs.codes.dims)}, got {dim!r}")
    cubes = {}
    for name, (m, params) in retention.scores.items():
        key = array_scores(m, inputs, params)
        arrays = list(
            xr.broadcast(-m.orientation.score(key), inputs.codes, pred_codes, *([] if weights is None else [weights]))
        )
        if len(samples) > 1:
            arrays = [a.stack(_sample=samples) for a in arrays]
        core = samples[0] if len(samples) == 1 else "_sample"
        arrays = [a.drop_vars([c for c in a.coords if core in a[c].dims]) for a in arrays]
        cube = xr.apply_ufunc(
            _stacked_cubes,
            *arrays,
            input_core_dims=[[core]] * len(arrays),
            output_core_dims=[[RETAINED_DIM, *CUBE_DIMS]],
            kwargs={"retained": retained, "k": k},
            dask="parallelized",
            output_dtypes=[np.float64 if weights is not None else np.int64],
            dask_gufunc_kwargs={
                "output_sizes": {RETAINED_DIM: len(retained), "true": k, "pred": k},
                "allow_rechunk": True,
            },
        )
        cubes[name] = cube.assign_coords({RETAINED_DIM: retained, "true": inputs.classes, "pred": inputs.classes})
    return _finish(cubes, retention)


def frame_aursc(df: pd.DataFrame, selection: Selection, retention: Retention) -> xr.Dataset:
    """Retention curves of DataFrame rows, one per combination of ``by`` values (see ``array_aursc``)."""
    retained = retention.fractions
    _check_dims(map(str, selection.by), "by column")
    rows = frame_rows(df, selection)
    k = len(rows.classes)
    groups = rows.groups
    groups.check_size(len(retained) * k * k)
    group, sizes = groups.flat_index(len(rows.index)), groups.sizes
    n_groups = int(np.prod(sizes, dtype=np.int64))
    cell = rows.true.array() * k + rows.predicted().array()
    cubes = {}
    for name, (m, params) in retention.scores.items():
        key = frame_scores(m, rows, params)
        counts = retention_counts(
            -m.orientation.score(key),
            group,
            cell,
            n_groups=n_groups,
            retained=retained,
            n_cells=k * k,
            weights=rows.weights,
        )
        counts = counts.reshape(*sizes, len(retained), k, k)
        cubes[name] = groups.labelled(
            counts,
            (RETAINED_DIM, *CUBE_DIMS),
            {RETAINED_DIM: retained, "true": rows.classes, "pred": rows.classes},
            rows=np.bincount(group, minlength=n_groups).reshape(sizes),
        )
    return _finish(cubes, retention)
