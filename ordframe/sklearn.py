"""scikit-learn scorers for ordframe's metrics, for ``cross_validate``, ``cross_val_score`` and ``GridSearchCV``.

``make_scorer(metric, labels=[...])`` turns any registered metric into a
callable ``scorer(estimator, X, y)``, the form scikit-learn accepts as
``scoring=`` (scikit-learn is only imported by the estimators you pass; this
module needs none of it):

* a **confusion** metric (``"oc"``, ``"mae"``, ``"qwk"``, ...) scores
  ``estimator.predict(X)`` against ``y``;
* a **proba** metric (``"rps"``, ``"brier"``, ...) scores
  ``estimator.predict_proba(X)``, whose columns are matched to ``labels``
  through ``estimator.classes_``; a class the fitted estimator never saw gets
  probability 0, and a class outside ``labels`` is an error.

The classes are always ``labels``, in that order, so a test fold that lacks a
class is scored on the same K classes as every other fold.

scikit-learn maximises every score, so a lower-is-better metric (the
registry's ``higher_is_better`` is False, e.g. ``"oc"``, ``"mae"``, ``"rps"``)
gives its **negated** value, like scikit-learn's ``neg_mean_absolute_error``,
and a metric whose best value is a target (``best``, e.g. 0 for
``"mean_signed_error"``) the negated distance from it, ``-|value - best|``:
a bias of +0.3 and one of -0.3 score alike.
A metric that is undefined on a fold gives NaN (with ordframe's warning).

Examples
--------
>>> from ordframe.sklearn import make_scorer
>>> make_scorer("mae", labels=[0, 1, 2])
OrdinalScorer('mae', labels=[0, 1, 2], greater_is_better=False)
>>> make_scorer("qwk", labels=["low", "mid", "high"]).greater_is_better
True
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from ordframe._bridge.apply import as_scalar
from ordframe._bridge.evaluate import rows_metric
from ordframe._core.messages import MAX_SHOWN, show
from ordframe._inputs.classes import declared_order, encode, labels_of
from ordframe._inputs.estimators import predict_proba
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.probability import SUM_TOL
from ordframe._inputs.selection import Selection
from ordframe._registry.manager import get_metric

__all__ = ["OrdinalScorer", "make_scorer"]


class OrdinalScorer:
    """A scikit-learn scorer computing an ordframe metric with a fixed class order; made by [`make_scorer`][make_scorer].

    Attributes
    ----------
    metric : str
        The metric's name.
    kind : {"confusion", "proba"}
        Whether it scores ``predict`` or ``predict_proba``.
    labels : list
        The classes, in order.
    params : dict
        The metric's parameters given to ``make_scorer``.
    greater_is_better : bool
        The metric's ``higher_is_better``; when False the scorer returns the negated value (for a metric whose
        best value is a target, False: the negated distance ``-|value - best|``).
    """

    def __init__(self, metric: str, *, labels: Any, **params: Any) -> None:
        declared = get_metric(metric)  # KeyError, with close names, for an unknown metric
        declared.params(params)  # TypeError for a parameter the metric does not take
        if declared.kind == "score":
            raise ValueError(
                f"{declared.name!r} is a score metric, of a continuous score per sample, which a scorer cannot "
                f"choose among predict, decision_function and predict_proba for you: score the output you mean with "
                f"ordframe.{declared.name}(y_true, y_score)"
            )
        if labels is None:
            raise TypeError(
                "make_scorer needs labels=[...], every class in order (lowest first), "
                "so that every fold is scored on the same classes"
            )
        declared_order(labels)  # a list of at least two distinct, non-missing classes
        self.metric = declared.name
        self.kind = declared.kind
        self.labels = list(labels)
        self.params = dict(params)
        self.greater_is_better = declared.orientation.sign > 0

    def __repr__(self) -> str:
        params = "".join(f", {k}={v!r}" for k, v in self.params.items())
        return f"{type(self).__name__}({self.metric!r}, labels={self.labels!r}{params}, greater_is_better={self.greater_is_better})"

    def __call__(self, estimator: Any, X: Any, y: Any, sample_weight: Any = None) -> float:
        """The metric of ``estimator`` on ``(X, y)``, negated when lower is better (``-|value - best|`` for a target)."""
        true = np.asarray(y)
        metric = get_metric(self.metric)
        weights = None if sample_weight is None else np.asarray(sample_weight, dtype=float)
        name = type(estimator).__name__
        if self.kind == "confusion":
            pred = np.asarray(estimator.predict(X))
            frame = pd.DataFrame({"y": true, "p": pred})
            if weights is not None:
                frame["w"] = weights
            try:
                rows = frame_rows(
                    frame, Selection("y", "p", labels=self.labels, weights=None if weights is None else "w")
                )
            except ValueError:  # say what is wrong in scikit-learn's terms, if it is the labels
                self._check_classes(true, "y")
                self._check_classes(pred, f"{name}.predict(X)", predicted=True)
                raise
            value = as_scalar(rows_metric(metric, rows, self.params), metric, rows.empty)
        else:
            given = predict_proba(
                estimator,
                X,
                self.labels,
                needed_by=f"metric {self.metric!r} scores",
                instead="use a confusion metric (e.g. 'oc', 'mae') or an estimator that predicts probabilities",
            )
            columns = [f"p{k}" for k in range(given.shape[1])]
            frame = pd.DataFrame({"y": true, **dict(zip(columns, given.T))})
            if weights is not None:
                frame["weights"] = weights
            selection = Selection(
                "y", proba=columns, labels=self.labels, weights=None if weights is None else "weights"
            )
            try:
                rows = frame_rows(frame, selection)
            except ValueError:
                self._check_classes(true, "y")
                _check_probabilities(given, f"{name}.predict_proba(X)")
                raise
            value = as_scalar(rows_metric(metric, rows, self.params), metric, rows.empty)
        return float(metric.orientation.score(float(value)))

    def _check_classes(self, values: np.ndarray, what: str, predicted: bool = False) -> None:
        """Raise, in scikit-learn's terms, if a value of ``values`` is missing or not one of ``labels``."""
        flat = values.reshape(-1)
        column = labels_of(what, flat)
        if column.missing is not None:
            at = np.flatnonzero(column.missing)
            raise ValueError(
                f"{what} {'gave' if predicted else 'has'} {len(at)} missing value(s) (NaN/None) for its "
                f"{len(flat)} samples, first at positions [{show(at)}]; every sample needs one of the classes "
                f"labels={self.labels}"
            )
        try:
            encode(column, declared_order(self.labels))
        except ValueError:
            series = pd.Series(flat)
            counts = series[~series.isin(self.labels)].value_counts()
            if not len(counts):  # not a matter of values outside labels: the caller re-raises the original
                return
            shown = ", ".join(
                f"{show([v])} ({c} sample{'s' if c != 1 else ''})" for v, c in counts.head(MAX_SHOWN).items()
            )
            more = f" and {len(counts) - MAX_SHOWN} more" if len(counts) > MAX_SHOWN else ""
            advice = (
                f"a confusion metric such as {self.metric!r} scores predicted classes: use a classifier, or make "
                "predict return classes (e.g. round and clip a regressor's predictions to labels=)"
                if predicted
                else "add them to labels=, every class in order (lowest first)"
            )
            raise ValueError(
                f"{what} {'gave' if predicted else 'has'} {int(counts.sum())} value(s) that are not among "
                f"labels={self.labels}: {shown}{more}; " + advice
            ) from None


def _check_probabilities(proba: np.ndarray, what: str) -> None:
    """Raise, in scikit-learn's terms, for rows of ``proba`` that are not probability vectors."""
    problems = []
    nan = np.isnan(proba).any(axis=1)
    outside = ~nan & ((proba < 0) | (proba > 1)).any(axis=1)
    off = ~nan & ~outside & (np.abs(proba.sum(axis=1) - 1) > SUM_TOL)
    for mask, problem in (
        (nan, "NaN probabilities"),
        (outside, "probabilities outside [0, 1]"),
        (off, "probabilities that do not sum to 1"),
    ):
        if mask.any():
            first = show(np.flatnonzero(mask))
            problems.append(f"{problem} for {int(mask.sum())} of {len(proba)} samples (first at positions [{first}])")
    if problems:
        raise ValueError(
            f"{what} gave {'; '.join(problems)}: a probability metric needs the class probabilities of every "
            "sample; check the estimator (NaN often comes from NaN in X or from a fit that diverged)"
        )


def make_scorer(metric: str, *, labels: Any, **params: Any) -> OrdinalScorer:
    """A scikit-learn scorer of an ordframe metric, with the classes fixed to ``labels``.

    Parameters
    ----------
    metric : str
        A registered metric (``ordframe.list_metrics()``): a confusion metric
        scores ``estimator.predict(X)``, a proba metric scores
        ``estimator.predict_proba(X)`` (columns matched to ``labels`` through
        ``estimator.classes_``; classes the estimator never saw get 0).
    labels : list
        Every class, in order (lowest first). Required: the class order, and
        so K, is the same on every fold, whichever classes it contains.
    **params
        The metric's parameters, e.g. ``beta=0.25`` for ``"oc"``.

    Returns
    -------
    OrdinalScorer
        ``scorer(estimator, X, y, sample_weight=None)`` returns the metric,
        **negated** when the metric is lower-is-better (scikit-learn maximises
        scores), and NaN where the metric is undefined. Picklable.

    Raises
    ------
    KeyError
        For an unknown metric.
    TypeError, ValueError
        For a parameter the metric does not take, or missing or invalid
        ``labels``. When scoring: ``TypeError`` for a proba metric on an
        estimator without ``predict_proba``; ``ValueError`` for labels of
        ``y`` or ``classes_`` outside ``labels``.

    Examples
    --------
    >>> from ordframe.sklearn import make_scorer
    >>> scorer = make_scorer("oc", labels=["mild", "moderate", "severe"], beta=0.25)
    >>> scorer
    OrdinalScorer('oc', labels=['mild', 'moderate', 'severe'], beta=0.25, greater_is_better=False)
    >>> make_scorer("rps", labels=[0, 1]).kind
    'proba'
    """
    return OrdinalScorer(metric, labels=labels, **params)
