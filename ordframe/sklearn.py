"""ordframe with scikit-learn: scorers of its metrics, and cross-validated predictions as its long frame.

``make_scorer(metric, labels=[...])`` turns any registered metric into a
callable ``scorer(estimator, X, y)``, the form scikit-learn accepts as
``scoring=`` for ``cross_validate``, ``cross_val_score`` and ``GridSearchCV``
(scikit-learn is only imported by the estimators you pass; the scorers need
none of it):

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

``cross_val_frame(estimators, X, y, labels=[...], cv=...)`` (which imports
scikit-learn) fits every model on every training fold and returns one row per
model and tested sample, with the constant baselines of the training folds
as models if asked (``baselines=True``; ``add_baselines`` derives them for
an existing frame).

Examples
--------
>>> from ordframe.sklearn import make_scorer
>>> make_scorer("mae", labels=[0, 1, 2])
OrdinalScorer('mae', labels=[0, 1, 2], greater_is_better=False)
>>> make_scorer("qwk", labels=["low", "mid", "high"]).greater_is_better
True
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ordframe._bridge.apply import as_scalar
from ordframe._bridge.baselines import NAMES, PREFIX, baseline_rows
from ordframe._bridge.evaluate import rows_metric
from ordframe._core.arguments import about
from ordframe._core.checks import check_flag, check_progress
from ordframe._core.docstrings import fill_doc
from ordframe._core.messages import MAX_SHOWN, show, warn
from ordframe._core.progress import chunks
from ordframe._inputs.classes import declared_order, encode, labels_of
from ordframe._inputs.estimators import predict_proba, take_rows
from ordframe._inputs.frame import check_column, frame_rows
from ordframe._inputs.probability import SUM_TOL
from ordframe._inputs.selection import Selection
from ordframe._registry.manager import get_metric

__all__ = ["OrdinalScorer", "add_baselines", "cross_val_frame", "make_scorer"]

_CLASSES = (
    "predicted classes: use a classifier, or make predict return classes (e.g. round and clip a regressor's "
    "predictions to labels=)"
)


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
        _fold_classes(labels, "make_scorer", "scored")
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
                _check_classes(true, "y", self.labels)
                _check_classes(pred, f"{name}.predict(X)", self.labels, self._predicted_advice)
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
                _check_classes(true, "y", self.labels)
                _check_probabilities(given, f"{name}.predict_proba(X)")
                raise
            value = as_scalar(rows_metric(metric, rows, self.params), metric, rows.empty)
        return float(metric.orientation.score(float(value)))

    @property
    def _predicted_advice(self) -> str:
        return f"a confusion metric such as {self.metric!r} scores {_CLASSES}"


def _fold_classes(labels: Any, who: str, done: str) -> pd.Index:
    """The classes of ``labels=``, required: every fold is ``done`` (scored, predicted) on the same classes."""
    if labels is None:
        raise TypeError(
            f"{who} needs labels=[...], every class in order (lowest first), so that every fold is {done} on the "
            "same classes"
        )
    return declared_order(labels)  # a list of at least two distinct, non-missing classes


def _check_classes(values: Any, what: str, labels: list, predicted: str | None = None) -> None:
    """Raise, in scikit-learn's terms, if a value of ``values`` is missing or not one of ``labels``.

    ``predicted``: the advice for predictions outside ``labels``; None for true labels.
    """
    flat = np.asarray(values).reshape(-1)
    column = labels_of(what, flat)
    if column.missing is not None:
        at = np.flatnonzero(column.missing)
        raise ValueError(
            f"{what} {'gave' if predicted else 'has'} {len(at)} missing value(s) (NaN/None) for its "
            f"{len(flat)} samples, first at positions [{show(at)}]; every sample needs one of the classes "
            f"labels={labels}"
        )
    try:
        encode(column, declared_order(labels))
    except ValueError:
        series = pd.Series(flat)
        counts = series[~series.isin(labels)].value_counts()
        if not len(counts):  # not a matter of values outside labels: the caller re-raises the original
            return
        shown = ", ".join(f"{show([v])} ({c} sample{'s' if c != 1 else ''})" for v, c in counts.head(MAX_SHOWN).items())
        more = f" and {len(counts) - MAX_SHOWN} more" if len(counts) > MAX_SHOWN else ""
        raise ValueError(
            f"{what} {'gave' if predicted else 'has'} {int(counts.sum())} value(s) that are not among "
            f"labels={labels}: {shown}{more}; "
            + (predicted or "add them to labels=, every class in order (lowest first)")
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


@fill_doc
def cross_val_frame(
    estimators: Mapping[Any, Any],
    X: Any,
    y: Any,
    *,
    labels: Any,
    cv: Any = None,
    groups: Any = None,
    baselines: bool = False,
    return_times: bool = False,
    n_jobs: int | None = None,
    progress: bool | None = None,
) -> pd.DataFrame:
    """Cross-validated predictions of several models as one long frame, the input of every other ordframe call.

    Each estimator is cloned (``sklearn.base.clone``) and fitted on every training fold of ``cv``, then predicts
    its test fold, as ``sklearn.model_selection.cross_validate`` does; the randomness is the splitter's and the
    estimators' own ``random_state``, as there. Needs scikit-learn.

    Parameters
    ----------
    estimators : dict
        Model name -> unfitted estimator or pipeline (anything with ``fit`` and ``predict``).
    X : array-like or DataFrame
        The samples; each fold's rows are taken by position.
    y : array-like
        Their true labels, every one of ``labels``.
    labels : list
        Every class, in order (lowest first). Required: a training fold that lacks a class still gives every
        class a probability column.
    cv : int, cross-validation splitter or iterable, optional
        As scikit-learn's ``cv=`` (``check_cv``: an int is a ``StratifiedKFold`` of that many folds, None 5):
        ``KFold``, ``StratifiedKFold``, ``RepeatedStratifiedKFold``, ``GroupKFold``, ``PredefinedSplit``, ...
    groups : array-like, optional
        The group of every sample, for a grouped splitter (``GroupKFold``), as scikit-learn's ``groups=``.
    baselines : bool
        Add the constant baselines of every training fold as models: ``"baseline: majority"``,
        ``"baseline: prior"`` and ``"baseline: median"`` (see [`add_baselines`][ordframe.sklearn.add_baselines]).
    return_times : bool
        Add the columns ``fit_time`` and ``predict_time``: the seconds each model's fit and predictions (with
        ``predict_proba``) took on the row's fold.
    n_jobs : int, optional
        The fits run in parallel, as scikit-learn's ``n_jobs=`` (joblib: None one at a time, -1 every core).
    {progress}

    Returns
    -------
    pandas.DataFrame
        One row per model and tested sample, with the columns ``sample`` (the sample's position, or ``X``'s
        index label), ``repeat`` and ``fold`` (numbered from 0; a repeat ends when a sample is tested a second
        time, so a ``RepeatedStratifiedKFold(n_splits=5, n_repeats=2)`` gives repeats 0 and 1 of folds 0 to 4),
        ``model`` (a Categorical: the models in the dict's order, then the baselines), ``true`` and ``pred``
        (ordered Categoricals over ``labels``), and ``proba_<label>``, one probability column per class in order,
        matched to ``labels`` through the fitted estimator's ``classes_`` (a class absent from the training fold
        gets probability 0). A model without ``predict_proba`` has NaN there (said by a warning); no model with
        probabilities and no baselines: no probability columns. ``df.ordinal.evaluate("true", "pred",
        by=["model", "repeat", "fold"])``, ``df.ordinal.ci(..., cluster="sample")`` and ``df.ordinal.compare``
        take it as it is.

    Raises
    ------
    TypeError
        For ``estimators`` that are not a dict of estimators, or without ``labels``.
    ValueError
        For labels of ``y`` (or predictions) outside ``labels``, ``X`` and ``y`` of different lengths or
        indexes, an ``X`` index with duplicated labels, or a model named like a baseline.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.dummy import DummyClassifier
    >>> from sklearn.model_selection import RepeatedStratifiedKFold
    >>> from sklearn.tree import DecisionTreeClassifier
    >>> from ordframe.sklearn import cross_val_frame
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(60, 2))
    >>> y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=60), [-0.5, 0.5])  # classes 0 < 1 < 2
    >>> cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    >>> models = {"tree": DecisionTreeClassifier(max_depth=2, random_state=0), "constant": DummyClassifier()}
    >>> frame = cross_val_frame(models, X, y, labels=[0, 1, 2], cv=cv)
    >>> frame.shape  # 2 models x 2 repeats x 60 samples
    (240, 9)
    >>> list(frame.columns)
    ['sample', 'repeat', 'fold', 'model', 'true', 'pred', 'proba_0', 'proba_1', 'proba_2']
    >>> frame.ordinal.mae("true", "pred", by="model").round(3).to_series().to_dict()
    {'tree': 0.308, 'constant': 0.95}
    """
    from joblib import Parallel, delayed
    from sklearn.base import clone
    from sklearn.model_selection import check_cv

    models = _check_estimators(estimators)
    classes = _fold_classes(labels, "cross_val_frame", "predicted")
    baselines, return_times = check_flag(baselines, "baselines"), check_flag(return_times, "return_times")
    progress = check_progress(progress)
    values = np.asarray(y)
    if values.ndim != 1:
        raise ValueError(f"y must hold one label per sample (1-D), got shape {values.shape}")
    _check_classes(values, "y", list(classes))
    codes = encode(labels_of("y", values), classes)
    samples = _sample_ids(X, y, len(values))
    splits = [
        (np.asarray(train), np.asarray(test)) for train, test in check_cv(cv, y, classifier=True).split(X, y, groups)
    ]
    repeat, fold = _repeats([test for _, test in splits], len(values))

    jobs = [(name, s) for name in models for s in range(len(splits))]
    run = Parallel(n_jobs=n_jobs, return_as="generator")(
        delayed(_fit_predict)(clone(models[name]), X, y, *splits[s], list(classes)) for name, s in jobs
    )
    done = [next(run) for _ in chunks(len(jobs), 1, progress=progress, desc="cross_val_frame", unit="fit")]

    test = np.concatenate([rows for _, rows in splits])
    split = np.repeat(np.arange(len(splits)), [len(rows) for _, rows in splits])
    dtype = pd.CategoricalDtype(classes, ordered=True)
    keys = pd.DataFrame(
        {
            "sample": samples.take(test),
            "repeat": repeat[split],
            "fold": fold[split],
            "true": pd.Categorical.from_codes(codes[test], dtype=dtype),
        }
    )
    fitted = {name: done[m * len(splits) : (m + 1) * len(splits)] for m, name in enumerate(models)}  # model-major
    without = [name for name, results in fitted.items() if results[0][1] is None]
    proba = [f"proba_{c}" for c in classes] if baselines or len(without) < len(models) else None
    if without and proba is not None:
        warn(
            f"{'model' if len(without) == 1 else 'models'} {show(without)} "
            f"{'has' if len(without) == 1 else 'have'} no predict_proba: NaN in the probability columns, so the "
            "probability metrics are NaN for them"
        )
    parts = []
    for name, results in fitted.items():
        part = keys.assign(model=name)
        what = f"estimators[{name!r}]"
        predicted = np.concatenate([pred for pred, _, _, _ in results])
        _check_classes(predicted, f"{what}.predict(X)", list(classes), f"cross_val_frame needs {_CLASSES}")
        part["pred"] = pd.Categorical.from_codes(encode(labels_of("pred", predicted), classes), dtype=dtype)
        if proba is not None:
            given = [
                p if p is not None else np.full((len(rows), len(classes)), np.nan)
                for (_, p, _, _), (_, rows) in zip(results, splits)
            ]
            stacked = np.concatenate(given)
            if name not in without:
                _check_probabilities(stacked, f"{what}.predict_proba(X)")
            part[proba] = stacked
        if return_times:
            part["fit_time"] = np.array([t for _, _, t, _ in results])[split]
            part["predict_time"] = np.array([t for _, _, _, t in results])[split]
        parts.append(part)
    if baselines:
        counts = np.stack([np.bincount(codes[train], minlength=len(classes)) for train, _ in splits])
        parts.append(
            baseline_rows(keys, split, counts, model="model", pred="pred", classes=classes, dtype=dtype, proba=proba)
        )
    frame = pd.concat(parts, ignore_index=True)
    frame["model"] = pd.Categorical(frame["model"], categories=[*models, *(NAMES if baselines else ())])
    times = ["fit_time", "predict_time"] if return_times else []
    return frame[["sample", "repeat", "fold", "model", "true", "pred", *(proba or []), *times]]


def _check_estimators(estimators: Any) -> dict:
    if not isinstance(estimators, Mapping):
        raise TypeError(
            "estimators must be a dict model name -> estimator (or pipeline), e.g. {'logistic': "
            f"LogisticRegression()}}, got {type(estimators).__name__}"
        )
    if not estimators:
        raise ValueError("estimators is empty: give at least one model name -> estimator")
    for name, estimator in estimators.items():
        if not (hasattr(estimator, "fit") and hasattr(estimator, "predict")):
            raise TypeError(
                f"estimators[{name!r}] is a {type(estimator).__name__}, not an estimator: it needs fit and predict"
            )
        if isinstance(name, str) and name.startswith(PREFIX):
            raise ValueError(
                f"estimators has a model named {name!r}: names that start with {PREFIX!r} are the constant "
                "baselines' (baselines=True); rename it"
            )
    return dict(estimators)


def _sample_ids(X: Any, y: Any, n: int) -> pd.Index:
    """The ``sample`` of every row: ``X``'s index labels (checked against ``y``'s), else the positions."""
    if len(X) != n:
        raise ValueError(f"X has {len(X)} samples and y has {n}; give one label per sample")
    if not isinstance(X, (pd.DataFrame, pd.Series)):
        return pd.RangeIndex(n)
    index = X.index
    if index.has_duplicates:
        repeated = index[index.duplicated()].unique()
        raise ValueError(
            f"X's index has {len(repeated)} duplicated label(s) ({show(repeated)}); the sample column holds X's "
            "index, one label per sample: pass X.reset_index(drop=True) to number the samples by position"
        )
    if isinstance(y, (pd.Series, pd.DataFrame)) and not y.index.equals(index):
        differ = np.flatnonzero(index.to_numpy() != y.index.to_numpy()) if len(y.index) == n else [0]
        raise ValueError(
            f"X and y have different indexes (first difference at position {int(differ[0])}); they are matched "
            "by position, as in scikit-learn: align them first (y = y.loc[X.index]) or pass y.to_numpy()"
        )
    return index


def _repeats(tests: list[np.ndarray], n: int) -> tuple[np.ndarray, np.ndarray]:
    """The repeat and fold of every split: a repeat ends when a split tests a sample that it has tested."""
    repeat, fold = np.zeros(len(tests), dtype=np.int64), np.zeros(len(tests), dtype=np.int64)
    tested = np.zeros(n, dtype=bool)
    for s, rows in enumerate(tests):
        if tested[rows].any():
            tested[:] = False
            repeat[s], fold[s] = repeat[s - 1] + 1, 0
        elif s:
            repeat[s], fold[s] = repeat[s - 1], fold[s - 1] + 1
        tested[rows] = True
    return repeat, fold


def _fit_predict(estimator: Any, X: Any, y: Any, train: np.ndarray, test: np.ndarray, labels: list) -> tuple:
    """A fold's predictions, probabilities (None without ``predict_proba``), fit time and predict time."""
    started = time.perf_counter()
    estimator.fit(take_rows(X, train), take_rows(y, train))
    fitted = time.perf_counter()
    rows = take_rows(X, test)
    pred = np.asarray(estimator.predict(rows))
    proba = (
        predict_proba(estimator, rows, labels, needed_by="", instead="")
        if hasattr(estimator, "predict_proba")
        else None
    )
    return pred, proba, fitted - started, time.perf_counter() - fitted


@fill_doc
def add_baselines(
    data: pd.DataFrame,
    true: Any = "true",
    pred: Any = "pred",
    *,
    proba: Any = None,
    labels: Any = None,
    model: Any = "model",
    sample: Any = "sample",
    repeat: Any = "repeat",
    fold: Any = "fold",
) -> pd.DataFrame:
    """A long frame of cross-validated predictions with the constant baselines of its training folds added.

    A fold's training samples are the other folds of the same repeat, each sample once (whichever model's row
    gives it). Three constant predictors are fitted on their labels and predict the fold's samples:

    * ``"baseline: majority"``: the most frequent class (of tied classes, the lowest), probability 1;
    * ``"baseline: prior"``: the same class, the training classes' shares as probabilities;
    * ``"baseline: median"``: the lower median of the training labels in class order, probability 1.

    They are the "fitted" ``DummyClassifier(strategy="most_frequent")`` and ``(strategy="prior")`` of
    scikit-learn and a median classifier. No model that learns anything from the features should rank below
    them; a metric that ranks one above a model is flagged by ``df.ordinal.evaluate`` (a
    ``BaselineWarning`` and a ``beaten_by_baseline`` attr on the metric). The names share one prefix,
    ``"baseline: "``, so they sort together, and follow the models in a Categorical ``model`` column.

    Parameters
    ----------
    data : pandas.DataFrame
        The predictions: one row per model and tested sample, as [`cross_val_frame`][ordframe.sklearn.cross_val_frame]
        gives (``ordframe score`` reads such a file). One data set per frame.
    true, pred : str
        The columns of the true and the predicted labels; the baselines' predictions go in ``pred``.
    proba : list or dict, optional
        The probability columns (in class order, or a dict label -> column): the baselines' probabilities go
        there.
    {labels}
    model, sample, repeat, fold : str
        The columns of the models, the samples (the same sample has the same id in every model and repeat), the
        repeats (None: a single cross-validation) and the folds.

    Returns
    -------
    pandas.DataFrame
        ``data``'s rows in their order, then the baselines' rows (one per baseline and row of a sample in a
        repeat), with a new index; columns other than these are missing (NaN) in the baselines' rows.

    Raises
    ------
    ValueError
        For a repeat with one fold (no training data), a sample with two true labels or in two folds of one
        repeat, missing values in these columns, rows that are baselines already, or as in
        ``df.ordinal.evaluate``.

    Examples
    --------
    >>> import pandas as pd
    >>> from ordframe.sklearn import add_baselines
    >>> frame = pd.DataFrame(
    ...     {"sample": [0, 1, 2, 3], "fold": [0, 0, 1, 1], "model": "m", "true": [0, 0, 0, 2], "pred": [0, 1, 2, 2]}
    ... )
    >>> out = add_baselines(frame, repeat=None)
    >>> out[out["model"] == "baseline: median"][["sample", "true", "pred"]].to_numpy().tolist()
    [[0, 0, 0], [1, 0, 0], [2, 0, 0], [3, 2, 0]]
    """
    if not isinstance(data, pd.DataFrame):
        raise TypeError(f"data must be a pandas DataFrame of predictions, got {type(data).__name__}")
    for role, name in (("model", model), ("sample", sample), ("repeat", repeat), ("fold", fold)):
        if name is not None or role != "repeat":
            check_column(data, name, role)
    rows = frame_rows(data, Selection(true, pred, labels=labels)).observed_classes()  # evaluate's classes, checks
    classes, codes = rows.classes, rows.true.array()
    if data[model].isin(NAMES).any():
        raise ValueError(f"model column {model!r} has baselines already ({show(NAMES)}); add them once")
    columns = _proba_list(proba, classes)
    ids = {role: _ids(data, name, role) for role, name in (("sample", sample), ("repeat", repeat), ("fold", fold))}
    first = _first_of_each_sample(data, ids, codes, sample, fold)
    n_folds, k = int(ids["fold"].max()) + 1, len(classes)
    split = ids["repeat"][first] * n_folds + ids["fold"][first]
    counts = np.bincount(split * k + codes[first], minlength=(int(ids["repeat"].max()) + 1) * n_folds * k)
    counts = counts.reshape(-1, n_folds, k)
    training = (counts.sum(axis=1, keepdims=True) - counts).reshape(-1, k)
    alone = training[split].sum(axis=1) == 0
    if alone.any():
        row = data.iloc[first[np.argmax(alone)]]
        where = f"repeat {show([row[repeat]])} has" if repeat is not None else "the frame has"
        said = (
            f"{where} one fold ({show([row[fold]])}): a fold's baselines are fitted on the other folds of its repeat; "
        )
        raise about(
            ValueError,
            _literal(said)
            + "give the column of the repeats as {repeat} if the folds of several repeats are in one column",
            "repeat",
        )
    keys = data.iloc[first][[c for c in (sample, repeat, fold, true) if c is not None]].reset_index(drop=True)
    added = baseline_rows(
        keys, split, training, model=model, pred=pred, classes=classes, dtype=data[pred].dtype, proba=columns
    )
    frame = pd.concat([data, added], ignore_index=True)
    if isinstance(data[model].dtype, pd.CategoricalDtype):
        frame[model] = pd.Categorical(frame[model], categories=[*data[model].cat.categories, *NAMES])
    return frame


def _proba_list(proba: Any, classes: pd.Index) -> list | None:
    """The probability columns in class order, from a list or a dict label -> column."""
    if proba is None:
        return None
    if isinstance(proba, Mapping):
        absent = [c for c in classes if c not in proba]
        if absent:
            raise ValueError(
                f"proba has no column for the classes {show(absent)}; give one per class of {list(classes)}"
            )
        return [proba[c] for c in classes]
    columns = list(proba)
    if len(columns) != len(classes):
        raise ValueError(
            f"proba names {len(columns)} columns for {len(classes)} classes {list(classes)}; give one per class, in order"
        )
    return columns


def _ids(data: pd.DataFrame, name: Any, role: str) -> np.ndarray:
    """Integer ids of a column's values (all 0 for a missing ``repeat``), an error for missing values."""
    if name is None:
        return np.zeros(len(data), dtype=np.int64)
    ids = pd.factorize(data[name])[0]
    if (ids < 0).any():
        raise ValueError(
            f"{role} column {name!r} has {int((ids < 0).sum())} missing value(s) of {len(data)}; every row needs one"
        )
    return ids


def _first_of_each_sample(data: pd.DataFrame, ids: dict, codes: np.ndarray, sample: Any, fold: Any) -> np.ndarray:
    """The position of each sample's first row in each repeat; an error if its rows differ in true label or fold."""
    key = ids["repeat"] * (int(ids["sample"].max()) + 1) + ids["sample"]
    group = pd.factorize(key)[0]  # numbered in the order of first appearance
    first = np.flatnonzero(~pd.Series(key).duplicated().to_numpy())
    for values, what, advice in (
        (codes, "true labels", "a sample has one true label"),
        (
            ids["fold"],
            f"folds (column {fold!r})",
            "a sample is tested once in a repeat: give {repeat} the column of the repeats",
        ),
    ):
        differ = np.flatnonzero(values != values[first][group])
        if len(differ):
            said = (
                f"sample column {sample!r}: {len(np.unique(group[differ]))} sample(s) have rows with different {what} "
                f"within one repeat, first {show([data[sample].iloc[differ[0]]])} (row {show([data.index[differ[0]]])}); "
            )
            raise about(ValueError, _literal(said) + advice, "repeat" if "{repeat}" in advice else "sample")
    return first


def _literal(text: str) -> str:
    """``text`` as a part of an ``about`` template: its braces (in values shown) kept as they are."""
    return text.replace("{", "{{").replace("}", "}}")
