"""Several metrics at once, one Dataset variable each, and one metric of a DataFrame's validated rows.

Confusion metrics run on one cube, probability metrics on one set of
per-sample scores, score metrics on one table of the marker's values
against the classes (``_inputs/marker.py``); all come from one validation of the inputs
(``ordframe.frame`` for DataFrames, ``ordframe.probability`` and
``ordframe.confusion`` for DataArrays). Rows without groups give one number:
it is computed on their one matrix (or their scores) as numpy arrays, with
the same checks, and not labelled (``rows_metric``).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import (
    apply_confusion,
    as_output,
    confusion_counts,
    confusion_values,
    labelled,
    prepare,
    proba_values,
    score_kernel,
)
from ordframe._bridge.baselines import flag_baselines
from ordframe._bridge.scores import array_scores, frame_mean, mean_scores
from ordframe._core.dims import OBSERVED_DIM
from ordframe._core.drawing import drawn_of
from ordframe._inputs.arrays import array_cube
from ordframe._inputs.frame import FrameRows, frame_rows
from ordframe._inputs.probability import DROPPED, array_inputs
from ordframe._inputs.selection import Selection
from ordframe._registry.metric import Metric
from ordframe._registry.request import evaluation_request


def evaluate_cube(cube: xr.DataArray, metrics=None) -> xr.Dataset:
    """One variable per requested confusion metric, computed on every matrix of ``cube``."""
    request = evaluation_request(metrics, probabilities=False, predicted=True, taken=list(cube.dims))
    counts = confusion_counts(cube)  # validated once for every metric
    variables = {out: as_output(apply_confusion(m, cube, p, counts), out) for out, (m, p) in request.items()}
    return xr.Dataset(variables, attrs=drawn_of(cube.attrs))  # replicates say how they were drawn


def rows_metric(metric: Metric, rows: FrameRows, params) -> xr.DataArray | np.ndarray:
    """``metric`` of validated rows: a DataArray over their groups, or for rows without groups the one value
    (a 0-d array, for ``as_scalar``), computed on their matrix or scores without a cube or labels."""
    if metric.kind == "score":
        return marker_metric(metric, rows, params, metric.name)
    if rows.grouped:
        if metric.kind == "confusion":
            return apply_confusion(metric, rows.cube(), params)
        return frame_mean(metric, rows, params, metric.name)
    if metric.kind == "confusion":
        counts, classes = rows.matrices()
        return confusion_values(metric, counts, classes, params)
    assert rows.proba is not None  # the rows of a probability metric
    return rows.means(proba_values(metric, rows.proba, rows.true.array(), rows.classes, params))[0]


def marker_metric(metric: Metric, rows: FrameRows, given, name: str) -> xr.DataArray:
    """The score metric ``metric`` of validated rows with a marker, one value per group (0-d without groups)."""
    table, classes = rows.marker_table()
    params = prepare(metric, given, len(classes), classes)
    values = score_kernel(metric, params)(table.counts, table.starts)
    return labelled(rows.labelled(values, name), metric, params, classes)


def _evaluate_rows(rows: FrameRows, request: dict) -> xr.Dataset:
    variables, cube, counts = {}, None, None
    for out, (metric, params) in request.items():
        if metric.kind == "score":
            variables[out] = marker_metric(metric, rows, params, out)
        elif metric.kind == "confusion":
            if cube is None:
                cube = rows.cube()
                counts = confusion_counts(cube)  # validated once for every metric
            variables[out] = apply_confusion(metric, cube, params, counts)
        else:
            variables[out] = frame_mean(metric, rows, params, out)
    return xr.Dataset({out: as_output(v, out) for out, v in variables.items()})


def selection_request(metrics, selection: Selection, taken=()) -> dict:
    """The metrics to compute on the columns that ``selection`` names (``evaluation_request``)."""
    s = selection
    return evaluation_request(
        metrics,
        probabilities=s.proba is not None,
        predicted=s.pred is not None,
        marked=s.marker is not None,
        taken=taken,
    )


def evaluate_frame(df: pd.DataFrame, selection: Selection, metrics=None) -> xr.Dataset:
    """One variable per metric. Confusion metrics use ``pred`` (default: the most probable class); proba metrics use
    ``proba``. A metric that ranks a constant baseline above a model is flagged (``baselines.flag_baselines``)."""
    return flag_baselines(evaluate_frame_rows(df, selection, metrics)[0])


def evaluate_frame_rows(df: pd.DataFrame, selection: Selection, metrics=None) -> tuple[xr.Dataset, FrameRows]:
    """``evaluate_frame``'s Dataset and the validated rows it was computed from (for what else they give)."""
    s = selection
    taken = [*map(str, s.by), *([OBSERVED_DIM] if s.observed else [])]
    request = selection_request(metrics, s, taken)
    rows = frame_rows(df, s, unscored_groups=len(s.by) if s.pred is not None else None)
    return _evaluate_rows(rows, request), rows


def evaluate_array(
    obj: xr.DataArray,
    true: xr.DataArray | None,
    *,
    metrics=None,
    class_dim=None,
    pred=None,
    dim=None,
    labels=None,
    weights=None,
    dropna=False,
    renormalize=False,
) -> xr.Dataset:
    """One variable per metric on a cube, on label arrays, or (``class_dim`` given) on a probability array."""
    if class_dim is None:
        if pred is not None or renormalize:
            raise TypeError("pred= and renormalize= apply to class probabilities: pass class_dim= as well")
        if true is None:
            if any(v is not None and v is not False for v in (dim, labels, weights, dropna)):
                raise TypeError("dim=, labels=, weights= and dropna= apply to label arrays; this is already a cube")
            return evaluate_cube(obj, metrics)
        return evaluate_cube(array_cube(true, obj, dim=dim, labels=labels, weights=weights, dropna=dropna), metrics)
    if true is None:
        raise TypeError("evaluate on class probabilities needs the true labels: proba.ordinal.evaluate(true, ...)")
    request = evaluation_request(metrics, probabilities=True, predicted=True, taken=[*obj.dims, *true.dims])
    inputs = array_inputs(obj, true, labels=labels, renormalize=renormalize, dropna=dropna, class_dim=class_dim)
    if pred is not None and dropna:  # every metric sees the same samples: those with probabilities and a prediction
        inputs = inputs.without(pred.isnull(), "a missing predicted label")
    variables: dict[str, xr.DataArray] = {}
    cube: xr.DataArray | None = None
    counts = None
    for out, (metric, params) in request.items():
        if metric.kind == "proba":
            variables[out] = mean_scores(array_scores(metric, inputs, params), dim=dim, weights=weights)
        else:
            if cube is None:
                cube = (
                    inputs.cube(dim=dim, weights=weights)
                    if pred is None
                    else array_cube(  # the samples that the probability metrics keep, no others
                        true.where(inputs.codes != DROPPED) if dropna else true,
                        pred.where(inputs.codes != DROPPED) if dropna else pred,
                        dim=dim,
                        labels=inputs.classes,
                        weights=weights,
                        dropna=dropna,
                        report=False,
                    )
                )
                counts = confusion_counts(cube)  # validated once for every metric
            variables[out] = apply_confusion(metric, cube, params, counts)
    return xr.Dataset({out: as_output(v, out) for out, v in variables.items()})
