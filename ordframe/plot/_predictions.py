"""Confusion cubes from what scikit-learn users hold: label vectors, a fitted estimator, ``cross_validate``'s dict.

The vectors become the columns ``y_true``, ``y_pred`` and ``sample_weight``
of a DataFrame (``_inputs/vectors.py``, as for ``ordframe.oc(y_true, y_pred)``)
that the DataFrame front end (``frame_rows``) counts, the one that
``df.ordinal.confusion`` uses: the class order (``labels=``, an ordered
Categorical or polars Enum, sorted numbers, else an error), the missing-value
rules and every error message are the same, and name the arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import xarray as xr

from ordframe._core.dims import FOLD_DIM
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.vectors import PRED, TRUE, WEIGHTS, vectors_frame


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
    frame, _ = vectors_frame(y_true, y_pred, sample_weight=sample_weight)
    if fold is not None:
        frame[FOLD_DIM] = fold
    return frame_rows(
        frame,
        TRUE,
        PRED,
        by=None if fold is None else FOLD_DIM,
        labels=labels,
        weights=None if sample_weight is None else WEIGHTS,
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
    tests = [np.asarray(rows) for rows in tests]
    rows = np.concatenate(tests)  # every fold's test samples, fold after fold
    predicted = np.concatenate([predict(estimator, take_rows(X, test)) for estimator, test in zip(estimators, tests)])
    return prediction_cube(
        take_rows(y, rows),
        predicted,
        labels=labels,
        sample_weight=None if sample_weight is None else take_rows(sample_weight, rows),
        dropna=dropna,
        fold=np.repeat(np.arange(len(tests)), [len(test) for test in tests]),
    )
