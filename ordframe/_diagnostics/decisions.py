"""Decisions that fit the metric: the label that minimises the expected loss under the class probabilities.

With probabilities p_t of the true classes t and a cost matrix C (rows = true
class, columns = predicted class), predicting class j costs sum_t p_t C[t, j]
in expectation; the Bayes decision is its argmin (Elkan 2001). The named losses
are cost matrices on index distances:

* ``"zero_one"``: C = 1 - I, the mode of p (what accuracy and the error rate reward);
* ``"absolute"``: C = |t - j|, a median of p, the smallest class whose cumulative
  probability reaches 1/2 (what MAE rewards);
* ``"squared"``: C = (t - j)^2, the class nearest the mean index sum_t t p_t
  (what MSE rewards: the expected loss is the variance plus the squared distance
  to the mean).

Ties (expected costs equal to within rounding, ``TIE``) go to the lowest class.
Set-level indices (OC, UOC, QWK, kappa, ...) are not sums of per-sample losses:
the best label of one sample depends on every other sample, so no per-sample
decision minimises them, and ``decide`` refuses them.

``frame_evaluate`` scores the decisions beside a model's own predictions: each
metric that rewards one of these losses (``FITTING_LOSS``) also on the labels
of its Bayes decision, from the same validated rows.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import apply_confusion, as_output, prepare
from ordframe._bridge.baselines import flag_baselines
from ordframe._bridge.evaluate import evaluate_frame_rows, selection_request
from ordframe._core.arguments import about
from ordframe._core.dims import CUBE_DIMS, PRED, TRUE
from ordframe._core.messages import RowNames, first_rows
from ordframe._inputs.classes import declared_order
from ordframe._inputs.frame import FrameRows
from ordframe._inputs.probability import check_proba, frame_classes
from ordframe._inputs.selection import Selection
from ordframe.metrics._matrix import cost_matrix, index_distance

#: The named losses: the cost matrix of K classes, rows = true class, columns = predicted class.
LOSSES: dict[str, Callable[[int], np.ndarray]] = {
    "zero_one": lambda k: 1.0 - np.eye(k),
    "absolute": index_distance,
    "squared": lambda k: index_distance(k, 2.0),
}

#: The loss whose Bayes decision each metric rewards, by metric name: a name of ``LOSSES``, or ``"cost"``: the
#: metric's own ``cost`` parameter (``expected_cost``'s default, |r - c|, is ``"absolute"``).
FITTING_LOSS: Mapping[str, str] = {
    "accuracy": "zero_one",
    "mer": "zero_one",
    "mae": "absolute",
    "mse": "squared",
    "expected_cost": "cost",
}

#: The suffix of the output name of a metric at its fitting decision.
AT_DECISION = "_at_decision"

#: Expected costs within this share of the largest cost (times K) are tied: their differences are rounding.
TIE = 1e-12

_UNKNOWN = (
    "{loss:=} is not a loss decide knows: it takes 'zero_one' (the mode: accuracy), 'absolute' (a median: "
    "MAE), 'squared' (the class nearest the mean: MSE) or a cost matrix (expected cost). OC, UOC, QWK, kappa and "
    "the other set-level indices are not sums of per-sample losses (the best label of one sample depends on the "
    "others), so no per-sample decision minimises them: score those decisions with that metric on held-out data "
    "and keep the best"
)


def bayes_codes(proba: np.ndarray, cost: np.ndarray) -> np.ndarray:
    """The class codes ``argmin_j sum_t proba[..., t] cost[t, j]``, the lowest on ties (``TIE``); ``(..., K) -> (...)``."""
    expected = proba @ cost
    tie = TIE * cost.shape[0] * max(float(np.abs(cost).max()), 1.0)
    return np.argmax(expected <= expected.min(axis=-1, keepdims=True) + tie, axis=-1)


def loss_matrix(loss, classes: pd.Index) -> np.ndarray:
    """The ``(K, K)`` cost matrix of ``loss`` (a name of ``LOSSES`` or a cost matrix) in the order of ``classes``."""
    k = len(classes)
    if isinstance(loss, str):
        if loss in LOSSES:
            return LOSSES[loss](k)
        raise about(ValueError, _UNKNOWN, "loss", loss)
    if isinstance(loss, pd.DataFrame):
        loss = xr.DataArray(loss.to_numpy(), dims=CUBE_DIMS, coords={TRUE: loss.index, PRED: loss.columns})
    if isinstance(loss, xr.DataArray):
        loss = _aligned(loss, classes)
    return cost_matrix(loss, k, "decide", "loss")


def _aligned(cost: xr.DataArray, classes: pd.Index) -> xr.DataArray:
    """A labelled cost matrix in the order of ``classes``; an error unless its rows and columns are those classes."""
    if set(cost.dims) != set(CUBE_DIMS) or not all(d in cost.indexes for d in CUBE_DIMS):
        raise ValueError(
            f"loss= as a DataArray needs dims ('true', 'pred') with the classes as coordinates, got dims "
            f"{tuple(cost.dims)}; label it, or pass a numpy array in class order"
        )
    for dim in CUBE_DIMS:
        given = cost.indexes[dim]
        absent, extra = classes.difference(given), given.difference(classes)
        if len(absent) or len(extra) or given.has_duplicates:
            raise ValueError(
                f"the {dim} labels of the loss= matrix {list(given)} are not the classes {list(classes)}"
                + (f": no {dim} row or column for {list(absent)}" if len(absent) else "")
                + (f": {list(extra)} are not classes" if len(extra) else "")
                + (": a label is repeated" if given.has_duplicates else "")
                + "; label its rows (true) and columns (predicted) with the classes"
            )
    return cost.transpose(*CUBE_DIMS).sel({TRUE: classes, PRED: classes})


def decide(y_proba, *, loss, labels=None, renormalize: bool = False) -> np.ndarray:
    """The label that minimises the expected ``loss`` under each row of class probabilities (the Bayes decision).

    Predicting class ``j`` for probabilities ``p`` costs ``sum_t p_t C[t, j]`` in expectation, for a cost
    matrix ``C`` (rows = true class, columns = predicted class); the decision is its argmin (Elkan 2001).
    Taking the most probable class and then scoring MAE or a cost reports a model worse than it is: the
    label to predict depends on the metric. See [Decisions that fit the metric](../decisions.md).

    Parameters
    ----------
    y_proba : array-like of shape (n_samples, K)
        Class probabilities, one column per class in class order (a DataFrame's columns are taken in order).
    loss : {"zero_one", "absolute", "squared"} or cost matrix
        ``"zero_one"``: the mode (accuracy, error rate); ``"absolute"``: a median, the smallest class whose
        cumulative probability reaches 1/2 (MAE); ``"squared"``: the class nearest the mean, on class index
        distances (MSE); or a K x K cost matrix, rows = true class, columns = predicted class (expected cost):
        a numpy array in class order, or a DataFrame (index = true, columns = predicted) or a DataArray with
        dims ``true`` and ``pred`` labelled with the classes, which is put in class order. OC, QWK and the
        other set-level indices are refused: no per-sample decision minimises them.
    labels : list, optional
        The classes of the columns, in order, lowest first (default: the class indices 0 .. K - 1).
    renormalize : bool
        Divide each row by its sum instead of requiring it to sum to 1.

    Returns
    -------
    numpy.ndarray
        One label per row. Ties in expected loss (to within rounding) go to the lowest class.

    Raises
    ------
    ValueError
        For probabilities that are missing, outside [0, 1] or do not sum to 1, an unknown or set-level loss, a
        cost matrix of the wrong shape or with negative entries, or one whose labels are not the classes.

    Examples
    --------
    >>> import ordframe
    >>> p = [[0.4, 0.1, 0.5], [0.5, 0.0, 0.5]]
    >>> ordframe.decide(p, loss="zero_one"), ordframe.decide(p, loss="absolute")
    (array([2, 0]), array([1, 0]))
    >>> ordframe.decide(p, loss="squared", labels=["mild", "moderate", "severe"])
    array(['moderate', 'moderate'], dtype=object)
    """
    values = np.asarray(y_proba, dtype=np.float64)
    if values.ndim != 2:
        raise ValueError(f"y_proba must be a 2-d array (samples, classes), got shape {values.shape}")
    classes = pd.RangeIndex(values.shape[1]) if labels is None else declared_order(labels)
    if len(classes) != values.shape[1]:
        raise ValueError(f"labels= names {len(classes)} classes but y_proba has {values.shape[1]} columns")
    return classes.to_numpy()[_codes(values, pd.RangeIndex(len(values)), loss, classes, renormalize)]


def frame_decide(df: pd.DataFrame, proba, loss, labels=None, renormalize: bool = False) -> pd.Series:
    """``decide`` on a DataFrame's probability columns (a list in class order with ``labels``, or a dict label ->
    column): one label per row, indexed like ``df``."""
    if not isinstance(proba, Mapping) and labels is None:
        raise about(
            ValueError,
            "{proba!s} lists columns without their classes: pass {labels:[...]} naming the class of each column, "
            "in order, or a dict label -> column",
            "proba",
            proba,
        )
    classes, columns = frame_classes(df, None, proba, labels)
    codes = _codes(df[columns].to_numpy(dtype=np.float64), df.index, loss, classes, renormalize)
    return pd.Series(classes.to_numpy()[codes], index=df.index, name=loss if isinstance(loss, str) else "decision")


def _codes(values: np.ndarray, index: pd.Index, loss, classes: pd.Index, renormalize: bool) -> np.ndarray:
    """The decisions' class codes of checked probability rows (``index`` names them in messages)."""
    missing = np.isnan(values).any(axis=1)
    if missing.any():
        raise ValueError(
            f"{int(missing.sum())} row(s) have a missing probability, first at rows {first_rows(index, missing)}: a "
            "decision needs the probability of every class; leave those rows out first (e.g. df.dropna(subset=...))"
        )
    checked = check_proba(values, rows=RowNames([None], [index]), renormalize=renormalize)
    return bayes_codes(checked, loss_matrix(loss, classes))


def frame_evaluate(df: pd.DataFrame, selection: Selection, metrics=None) -> xr.Dataset:
    """``evaluate_frame``'s Dataset and, for each metric of ``FITTING_LOSS``, ``<output>_at_decision``: that metric of
    the labels ``decide`` gives for its loss from the probabilities, on the same rows, groups and weights, with the
    metric's attrs and ``decision``, the loss."""
    if selection.proba is None:
        raise about(
            ValueError,
            "{decisions:=} scores the labels decided from class probabilities, and no probabilities are given: "
            "pass the probability columns as {proba:[...]} (with labels=) or a dict label -> column, or leave out "
            "decisions=True",
            "decisions",
            True,
        )
    result, rows = evaluate_frame_rows(df, selection, metrics)
    for out, (metric, params) in selection_request(metrics, selection).items():
        if metric.name not in FITTING_LOSS:
            continue
        name = out + AT_DECISION
        if name in result or name in map(str, selection.by):
            raise ValueError(
                f"the output name {name!r} of {out!r} at its decision is taken by another output or a by column: "
                f"rename the output, e.g. metrics={{'{out}_model': {metric.name!r}}}"
            )
        loss = FITTING_LOSS[metric.name]
        value = apply_confusion(metric, _decided(rows, _cost(metric, params, loss, rows.classes)).cube(True), params)
        if rows.unscored is not None:  # a group without probabilities has no decision
            value = value.where(rows.mean((~rows.unscored).astype(np.float64), name) > 0)
        cost_given = loss == "cost" and params.get("cost") is not None
        value.attrs["decision"] = "cost" if cost_given else "absolute" if loss == "cost" else loss
        result[name] = as_output(value, name)
    return flag_baselines(result)


def _cost(metric, params: Mapping, loss: str, classes: pd.Index) -> np.ndarray:
    """The cost matrix of ``loss`` for ``metric``: a named loss, or the metric's ``cost`` as its kernel takes it."""
    if loss != "cost":
        return LOSSES[loss](len(classes))
    cost = prepare(metric, params, len(classes), classes).get("cost")
    return index_distance(len(classes)) if cost is None else cost_matrix(cost, len(classes), metric.name)


def _decided(rows: FrameRows, cost: np.ndarray) -> FrameRows:
    """``rows`` predicting the Bayes decision of their probabilities under ``cost``."""
    assert rows.proba is not None  # a selection with probabilities
    return rows.predicting(bayes_codes(rows.proba, cost))
