"""Confusion cubes from what scikit-learn users hold: label vectors, a fitted estimator, ``cross_validate``'s dict.

Every cube is counted by the DataFrame front end (``frame_rows``), the one
that ``df.ordinal.confusion`` uses, so the class order (``labels=``, an
ordered Categorical, sorted numbers, else an error), the missing-value rules
and every error message are the same; the columns are named after the
arguments (``y_true``, ``y_pred``, ``sample_weight``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.dims import FOLD_DIM
from ordframe._inputs.frame import frame_rows


def _column(values: Any, name: str) -> pd.Series:
    """``values`` as a Series in sample order (a pandas Series by position, its dtype and categories kept)."""
    if isinstance(values, pd.Series):
        return values.reset_index(drop=True)
    if isinstance(values, (pd.Index, pd.Categorical)):
        return pd.Series(values)
    if isinstance(values, pd.DataFrame):
        raise TypeError(f"{name} must hold one value per sample (1-D), got a DataFrame; pass one of its columns")
    array = np.asarray(values.values if isinstance(values, xr.DataArray) else values)
    if array.ndim != 1:
        hint = "; pass .ravel() of a column vector" if array.ndim == 2 and array.shape[1] == 1 else ""
        raise ValueError(f"{name} must hold one value per sample (1-D), got an array of shape {array.shape}{hint}")
    return pd.Series(array)


def prediction_cube(
    y_true: Any,
    y_pred: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    dropna: bool = False,
    fold: np.ndarray | None = None,
) -> xr.DataArray:
    """The confusion cube ``(true, pred)`` of two label vectors, or ``(fold, true, pred)`` with one fold per sample."""
    columns = {"y_true": _column(y_true, "y_true"), "y_pred": _column(y_pred, "y_pred")}
    if sample_weight is not None:
        columns["sample_weight"] = _column(sample_weight, "sample_weight")
    sizes = {name: len(column) for name, column in columns.items()}
    if len(set(sizes.values())) > 1:
        shown = ", ".join(f"{name} has {n}" for name, n in sizes.items())
        raise ValueError(f"y_true, y_pred and sample_weight need one value per sample: {shown}")
    frame = pd.DataFrame(columns)
    if fold is not None:
        frame[FOLD_DIM] = fold
    return frame_rows(
        frame,
        "y_true",
        "y_pred",
        by=None if fold is None else FOLD_DIM,
        labels=labels,
        weights=None if sample_weight is None else "sample_weight",
        dropna=dropna,
    ).cube()


def predict(estimator: Any, X: Any) -> np.ndarray:
    """``estimator.predict(X)``, or an error that says what the estimator lacks."""
    if not hasattr(estimator, "predict"):
        raise TypeError(
            f"estimator must be a fitted classifier with a predict method, got {type(estimator).__name__}; "
            "with predictions at hand, use from_predictions(y_true, y_pred)"
        )
    return np.asarray(estimator.predict(X))


def take_rows(data: Any, rows: np.ndarray) -> Any:
    """The ``rows`` (positions) of ``X`` or ``y``: a pandas object by position, a list, or anything numpy indexes."""
    if hasattr(data, "iloc"):
        return data.iloc[rows]
    if isinstance(data, (list, tuple)):
        return [data[i] for i in rows]
    return data[rows]


def cv_cube(
    cv_results: Mapping,
    X: Any,
    y: Any,
    *,
    labels: Any = None,
    sample_weight: Any = None,
    dropna: bool = False,
) -> xr.DataArray:
    """One confusion matrix per test fold of ``cross_validate(..., return_estimator=True, return_indices=True)``.

    Each fold's estimator predicts its own test samples; the class order is decided once over every fold, so
    a fold that lacks a class is counted on the same classes as the others.
    """
    if not isinstance(cv_results, Mapping):
        raise TypeError(
            "cv_results must be the dict of sklearn.model_selection.cross_validate(estimator, X, y, "
            f"return_estimator=True, return_indices=True), got {type(cv_results).__name__}"
        )
    absent = [
        f"{key!r} (pass {option}=True)"
        for key, option in (("estimator", "return_estimator"), ("indices", "return_indices"))
        if key not in cv_results
    ]
    if absent:
        raise ValueError(
            f"cv_results has no {' and no '.join(absent)}: from_cv_results needs the fitted estimator and the "
            "test samples of every fold, from cross_validate(..., return_estimator=True, return_indices=True)"
        )
    estimators, tests = list(cv_results["estimator"]), list(cv_results["indices"]["test"])
    if len(estimators) != len(tests) or not estimators:
        raise ValueError(
            f"cv_results has {len(estimators)} estimator(s) and {len(tests)} test fold(s); they must pair up"
        )
    true, pred, folds, weights = [], [], [], []
    for i, (estimator, rows) in enumerate(zip(estimators, tests)):
        rows = np.asarray(rows)
        true.append(_column(take_rows(y, rows), "y"))
        pred.append(_column(predict(estimator, take_rows(X, rows)), f"the predictions of fold {i}"))
        folds.append(np.full(len(rows), i))
        if sample_weight is not None:
            weights.append(_column(take_rows(sample_weight, rows), "sample_weight"))
    return prediction_cube(
        pd.concat(true, ignore_index=True),
        pd.concat(pred, ignore_index=True),
        labels=labels,
        sample_weight=None if sample_weight is None else pd.concat(weights, ignore_index=True),
        dropna=dropna,
        fold=np.concatenate(folds),
    )
