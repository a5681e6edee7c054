"""Every registered metric as a function like ``sklearn.metrics``: ``ordframe.oc(y_true, y_pred)``.

The functions are made from the registry when asked for (``ordframe.<name>``),
so a plugin's metric gets one too. The vectors go through the DataFrame front
end as columns named after the arguments (``Vectors``: no DataFrame is built),
so the checks, the class order and the messages are those of ``df.ordinal``;
the kernel then runs on the one matrix (or the samples' scores) as numpy
arrays, without the labelled results that a stack of groups needs.
"""

from __future__ import annotations

from collections.abc import Callable

from ordframe._accessors.base import _method
from ordframe._bridge.apply import as_scalar
from ordframe._bridge.evaluate import rows_metric
from ordframe._core.docstrings import TEXTS, fill
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._inputs.vectors import PRED, SCORE, TRUE, WEIGHTS, vector_columns, y_proba_words
from ordframe._registry.metric import Metric

#: The words of the shared parameter texts (``ordframe._core.docstrings.TEXTS``) for vectors.
_WORDS = {"row": "sample", "missing": "label"}

_LABEL_ARGUMENTS = fill(
    """y_true, y_pred : array-like
    True and predicted class labels, one per sample: lists, numpy arrays, pandas or polars
    Series, matched by position.
{labels}
{sample_weight}
{dropna_rows}""",
    {**TEXTS, **_WORDS},
)

_PROBA_ARGUMENTS = fill(
    """y_true : array-like
    True class labels, one per sample (lists, numpy arrays, pandas or polars Series).
y_proba : array-like of shape (samples, classes)
    Class probabilities, one column per class: a 2-D array's columns are the classes of ``labels`` in
    order; a DataFrame's are too, unless their names are the classes (``columns=model.classes_``): they
    are then matched to the classes by name. Names of which only some are classes are an error.
{labels}
{sample_weight}
{dropna_proba}
{renormalize}""",
    {**TEXTS, **_WORDS},
)

_SCORE_ARGUMENTS = fill(
    """y_true : array-like
    True class labels, one per sample (lists, numpy arrays, pandas or polars Series).
y_score : array-like
    A continuous score per sample that orders the samples (a latent score, the expected class of the
    probabilities, ``y_proba @ numpy.arange(K)``, a regressor's output before rounding), matched by position.
{labels}
{sample_weight}
{dropna_rows}""",
    {**TEXTS, **_WORDS, "missing": "label or score"},
)

_RETURNS = "float\n    NaN with a RuntimeWarning that says why when the metric is undefined"


def metric_function(metric: Metric):
    """The function ``ordframe.<metric.name>`` of a registered metric, the same object while the metric stays
    registered (so that pickle finds it as ``ordframe.<name>``)."""
    made = _MADE.get(metric.name)
    if made is None or made[0] is not metric:  # a metric registered again under its name is a new object
        made = _MADE[metric.name] = (metric, _function(metric))
    return made[1]


_MADE: dict[str, tuple[Metric, Callable]] = {}


def _function(metric: Metric) -> Callable:
    """The DataFrame accessor's method of ``metric`` on the vectors read as columns, for one matrix."""
    if metric.kind == "confusion":

        def function(y_true, y_pred, *, labels=None, sample_weight=None, dropna=False, **params):
            _check_params(metric, params)
            vectors, _ = vector_columns(y_true, y_pred, sample_weight=sample_weight)
            weights = None if sample_weight is None else WEIGHTS
            rows = frame_rows(vectors, Selection(TRUE, PRED, labels=labels, weights=weights, dropna=dropna))
            return as_scalar(rows_metric(metric, rows, params), metric, rows.empty)

        call = f"ordframe.{metric.name}(y_true, y_pred, *, labels=None, sample_weight=None, ...)"
        made = _method(function, metric, call, _LABEL_ARGUMENTS, _RETURNS)
    elif metric.kind == "score":

        def score_function(y_true, y_score, *, labels=None, sample_weight=None, dropna=False, **params):
            _check_params(metric, params)
            vectors, _ = vector_columns(y_true, y_score=y_score, sample_weight=sample_weight)
            weights = None if sample_weight is None else WEIGHTS
            rows = frame_rows(vectors, Selection(TRUE, labels=labels, weights=weights, dropna=dropna, marker=SCORE))
            return as_scalar(rows_metric(metric, rows, params), metric, rows.empty)

        call = f"ordframe.{metric.name}(y_true, y_score, *, labels=None, sample_weight=None, ...)"
        made = _method(score_function, metric, call, _SCORE_ARGUMENTS, _RETURNS)
    else:

        def proba_function(
            y_true, y_proba, *, labels=None, sample_weight=None, dropna=False, renormalize=False, **params
        ):
            _check_params(metric, params)
            vectors, proba = vector_columns(y_true, y_proba=y_proba, sample_weight=sample_weight, labels=labels)
            weights = None if sample_weight is None else WEIGHTS
            selection = Selection(
                TRUE, None, proba, labels=labels, weights=weights, dropna=dropna, renormalize=renormalize
            )
            with y_proba_words():
                rows = frame_rows(vectors, selection)
                return as_scalar(rows_metric(metric, rows, params), metric, rows.empty)

        call = f"ordframe.{metric.name}(y_true, y_proba, *, labels=None, sample_weight=None, ...)"
        made = _method(proba_function, metric, call, _PROBA_ARGUMENTS, _RETURNS)
    made.__module__ = "ordframe"
    return made


def _check_params(metric: Metric, params: dict) -> None:
    """The metric's own parameters only: the accessors' ``weights=``, ``by=``, ``observed=`` are not taken."""
    if "weights" in params:
        raise TypeError(f"ordframe.{metric.name}() takes the weights as sample_weight=, as scikit-learn does")
    grouping = sorted({"by", "observed"} & set(params))
    if grouping:
        raise TypeError(
            f"ordframe.{metric.name}() gives one number and takes no {grouping}; for one value per group use "
            f"df.ordinal.{metric.name}(..., by=[...]) or df.ordinal.evaluate(..., by=[...])"
        )
    metric.params(params)  # the registry's error for a name the metric does not take
