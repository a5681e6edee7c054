"""What the displays count and draw, from what scikit-learn users hold: label or probability vectors, a fitted
estimator, ``cross_validate``'s dict.

The vectors become the columns ``y_true``, ``y_pred``, ``y_proba[:, k]`` (or
``y_proba[name]`` for a DataFrame whose column names are the classes) and
``sample_weight`` of a DataFrame (``_inputs/vectors.py``, as for
``ordframe.oc(y_true, y_pred)``) that the DataFrame front end
(``frame_rows``) reads, the one of ``df.ordinal.confusion`` and
``df.ordinal.reliability``: the class order (``labels=``, an ordered
Categorical or polars Enum, sorted numbers, else an error), the missing-value
rules and every error message are the same, and name the arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import xarray as xr

from ordframe._core.dims import FOLD_DIM
from ordframe._diagnostics.calibration import Samples, frame_samples
from ordframe._inputs.estimators import take_rows
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._inputs.vectors import PRED, TRUE, WEIGHTS, vectors_frame, y_proba_words


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
    weights = None if sample_weight is None else WEIGHTS
    by = None if fold is None else FOLD_DIM
    return frame_rows(frame, Selection(TRUE, PRED, by=by, labels=labels, weights=weights, dropna=dropna)).cube()


def prediction_samples(
    y_true: Any, y_proba: Any, *, labels: Any = None, sample_weight: Any = None, dropna: bool = False
) -> Samples:
    """The samples of true labels and class probabilities (one column per class, in class order, or a DataFrame
    whose columns are named by the classes)."""
    frame, proba = vectors_frame(y_true, y_proba=y_proba, sample_weight=sample_weight, labels=labels)
    with y_proba_words():
        weights = None if sample_weight is None else WEIGHTS
        return frame_samples(frame, Selection(TRUE, proba=proba, labels=labels, weights=weights, dropna=dropna))


def cv_predictions(
    folds: tuple[list, list[np.ndarray]],
    X: Any,
    y: Any,
    sample_weight: Any,
    predicted: Callable[[Any, Any], np.ndarray],
) -> tuple[Any, np.ndarray, Any, np.ndarray]:
    """Every fold's test samples, fold after fold: their ``y``, ``predicted(estimator, X_test)`` by the fold's
    own fitted estimator, their ``sample_weight`` (or None) and their fold number. ``folds`` are the fitted
    estimators and test positions of ``cross_validate``'s dict (``cv_folds``)."""
    estimators, tests = folds
    rows = np.concatenate(tests)
    if len(X) != len(y) or (rows.size and not 0 <= rows.min() <= rows.max() < len(y)):
        raise ValueError(
            f"cv_results tests the samples at positions {rows.min()} to {rows.max()}, and X has {len(X)} samples, "
            f"y {len(y)}: give the X and y that were given to cross_validate"
        )
    given = np.concatenate([predicted(estimator, take_rows(X, test)) for estimator, test in zip(estimators, tests)])
    weights = None if sample_weight is None else take_rows(sample_weight, rows)
    return take_rows(y, rows), given, weights, np.repeat(np.arange(len(tests)), [len(test) for test in tests])
