"""What a fitted scikit-learn estimator gives: its predictions, its class probabilities matched to ``labels``,
and the folds of ``cross_validate``'s dict.

scikit-learn is never imported here: anything with ``predict`` (or
``predict_proba`` and ``classes_``) is an estimator.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd


def predict(estimator: Any, X: Any) -> np.ndarray:
    """``estimator.predict(X)``, or an error that says what the estimator lacks."""
    if not hasattr(estimator, "predict"):
        raise TypeError(
            f"estimator must be a fitted classifier with a predict method, got {type(estimator).__name__}; "
            "with predictions at hand, use from_predictions(y_true, y_pred)"
        )
    predicted = np.asarray(estimator.predict(X))
    if predicted.dtype.kind == "f":
        fractional = np.isfinite(predicted) & (predicted != np.round(predicted))
        if fractional.any():
            example = predicted[fractional][0]
            raise ValueError(
                f"{type(estimator).__name__}.predict gave numbers that are not classes ({example:g}, and "
                f"{int(fractional.sum()) - 1} more of {predicted.size}): a confusion matrix needs predicted "
                "classes; use a classifier, or round and clip a regressor's predictions to the classes"
            )
    return predicted


def predict_proba(estimator: Any, X: Any, labels: Any, *, needed_by: str, instead: str) -> np.ndarray:
    """``estimator.predict_proba(X)`` with one column per class of ``labels``, in order (0 for unseen classes).

    The columns follow ``estimator.classes_`` (sorted by scikit-learn, as text for text classes), so they are
    matched to ``labels`` by value, never assumed in order; a class of ``classes_`` outside ``labels`` is an
    error. ``needed_by`` and ``instead`` complete the message for an estimator without ``predict_proba``.
    """
    name = type(estimator).__name__
    if not hasattr(estimator, "predict_proba"):
        raise TypeError(f"{needed_by} class probabilities, but {name} has no predict_proba; {instead}")
    given = np.asarray(estimator.predict_proba(X), dtype=float)
    classes = getattr(estimator, "classes_", None)
    if classes is None:
        raise TypeError(f"{name} has no classes_, so its predict_proba columns cannot be matched to labels=")
    classes = np.asarray(classes)
    if given.ndim != 2 or given.shape[1] != len(classes):
        raise ValueError(
            f"{name}.predict_proba gave shape {given.shape}, expected (n_samples, {len(classes)}) for classes_"
        )
    labels = list(labels)
    where = pd.Index(labels).get_indexer(pd.Index(classes))
    if (where < 0).any():
        outside = classes[where < 0].tolist()
        raise ValueError(f"{name}.classes_ has {outside}, not in labels={labels}; add them to labels= (in order)")
    proba = np.zeros((given.shape[0], len(labels)))
    proba[:, where] = given
    return proba


def take_rows(data: Any, rows: np.ndarray) -> Any:
    """The ``rows`` (positions) of ``X`` or ``y``: a pandas object by position, a list, or anything numpy indexes."""
    if hasattr(data, "iloc"):
        return data.iloc[rows]
    if isinstance(data, (list, tuple)):
        return [data[i] for i in rows]
    return data[rows]


def cv_folds(cv_results: Mapping) -> tuple[list, list[np.ndarray]]:
    """The fitted estimator and the test positions of every fold of
    ``cross_validate(..., return_estimator=True, return_indices=True)``."""
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
    return estimators, [np.asarray(rows) for rows in tests]
