"""Docstring texts written once and filled into many docstrings, as pandas' ``doc`` decorator and xarray's templates do.

A docstring names a text by ``{name}`` (a parameter's entry, a section, an
example's data); [`fill_doc`][ordframe._core.docstrings.fill_doc] replaces it
when the module is imported, with the lines after the first indented like
the placeholder, so ``__doc__`` is the whole numpydoc docstring that
``help()``, doctest and the API reference read (the reference's griffe
extension, ``docs_hooks/shared_docstrings.py``, takes it from the imported
function). Texts several layers share live in ``TEXTS``; a module passes its
own as keywords. ``{{name}}`` stands for a literal ``{name}``.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from typing import TypeVar, overload

F = TypeVar("F", bound=Callable)

PLACEHOLDER = re.compile(r"^([ \t]*)(.*?)(?<!\{)\{([A-Za-z_]\w*)\}(?!\})", re.M)
ESCAPED = re.compile(r"\{(\{[A-Za-z_]\w*\})\}")

TEXTS = {
    "ax": """\
ax : matplotlib Axes, optional
    The axes to draw in (default: a new figure).""",
    "axes": """\
axes : matplotlib Axes or sequence of Axes, optional
    One per panel (default: a new figure).""",
    "figure": """\
Returns
-------
matplotlib.figure.Figure
    The figure drawn in (that of the axes given, if any).""",
    "estimator_data": """\
X : array-like or DataFrame
    The samples to predict.
y : array-like
    Their true labels.""",
    "cv_data": """\
cv_results : dict
    The output of ``sklearn.model_selection.cross_validate(estimator, X, y, return_estimator=True,
    return_indices=True)``.
X : array-like or DataFrame
    The samples given to ``cross_validate``; each fold's rows are taken by position.
y : array-like
    Their true labels, as given to ``cross_validate``.""",
    "labels": """\
labels : list, optional
    The classes in order, lowest first. Without it, the order is that of an ordered Categorical (or polars
    Enum), or the sorted numbers seen; text labels need ``labels=``.""",
    "sample_weight": """\
sample_weight : array-like, optional
    One weight per sample (finite, >= 0).""",
    "dropna": """\
dropna : bool
    Drop samples with a missing label (default: an error that counts them).""",
    "seed": """\
seed : None, int or numpy.random.Generator
    The same seed gives the same result.""",
    "recalibration": """\
method : {"corp", "binned"}
    Isotonic recalibration (CORP, the default) or the observed frequency of every distinct forecast.""",
    "bands": """\
{recalibration}
n_resamples : int
    Sets of outcomes drawn from the forecasts for the consistency bands.
level : float
    The share of those curves inside the band.
{seed}""",
    # The parameters of the accessors, in the words each accessor module binds (see below).
    "true": """\
true : {column}
    The true labels.""",
    "true_models": """\
true : {column}
    The true labels, one row per (sample, model).""",
    "pred": """\
pred : {values}
    The predicted labels, one per row.""",
    "pred_or_proba": """\
pred : {values}, optional
    The predicted labels, one per row; without them, confusion metrics use the most probable class of ``proba``.""",
    "proba": """\
proba : list or dict
    {proba_columns}""",
    "proba_optional": """\
proba : list or dict, optional
    {proba_columns}""",
    "proba_columns": "The probability columns: a list in class order, or a dict label -> column.",
    "marker": """\
marker : {column}, optional
    A continuous score per {row} that orders the samples (a latent score, the expected class of the
    probabilities, a regressor's output before rounding), for the score metrics (``orc``, ``vus``, ...); the
    default metrics then include every score metric. Without ``pred`` and ``proba``, only score metrics.""",
    "labels_array": """\
labels : list, optional
    The classes in order, lowest first. Without it, the sorted numbers seen; text labels need ``labels=``.""",
    "by": """\
by : column name or list of column names, optional
    One result per combination of their values: each column becomes a dim whose coordinate holds its sorted
    values (or the categorical order).""",
    "weights": """\
weights : {values}, optional
    One weight per {row} (finite, >= 0){aligned}.""",
    "dropna_rows": """\
dropna : bool
    Leave out every {row} with a missing {missing}, with a warning that counts them (default: an error).""",
    "dropna_proba": """\
dropna : bool
    Leave out every {row} with a missing {missing}, or a missing probability, with a warning that
    counts them (default: an error).""",
    "renormalize": """\
renormalize : bool
    Divide each {row}'s probabilities by their sum instead of requiring them to sum to 1.""",
    "observed": """\
observed : bool
    Stack only the ``by`` combinations that occur into one ``group`` dim.""",
    "class_dim": """\
class_dim : str
    The dim that holds the classes.""",
    "sample_dims": """\
dim : str or list of str, optional
    The sample dims (default: all but ``class_dim``); the other dims give one result each.""",
    "metric_names": """\
metrics : str, list or dict, optional
    Metric names, or ``{output name: name | (name, {{params}})}``.""",
    "metrics": """\
{metric_names}
    Default (or ``"all"``, as ``--metrics all``): every confusion metric, and every proba metric when ``proba``
    is given.""",
    "report_metrics": """\
{metric_names}
    The overall indices (default ``ordframe.METRIC_SETS["report"]``: accuracy, mae, amae, ms, gm, qwk, oc, uoc,
    rint).""",
    "retention": """\
score : str or (str, dict)
    The proba metric that orders the samples (worst first); a list gives a ``score`` dim.
metric : str or (str, dict)
    The confusion metric computed on the samples retained.
fractions : list of float, optional
    Retained fractions in (0, 1] (default 1.00, 0.99, ..., 0.50).""",
    "normalize_rps": """\
normalize : bool
    Divide the RPS terms by K - 1 (default), as [`rps`][ordframe.metrics.proba.rps].""",
    "frame_cube": """\
{true}
{pred}
{by}
{labels}
{weights}
{dropna_rows}""",
    "proba_rows": """\
{by}
{labels}
{weights}
{dropna_proba}
{renormalize}
{observed}""",
    "proba_samples": """\
{sample_dims}
{labels_array}
{weights}
{dropna_proba}
{renormalize}
{class_dim}""",
    "n_resamples": """\
n_resamples : int
    The number of replicates.""",
    "seed_replicates": """\
seed : None, int or numpy.random.Generator
    The same seed gives the same replicates.""",
    "sample": """\
sample : column name, optional
    Identifies a sample across models (default: the row's position within its model and stratum).""",
    "strata": """\
strata : column name or list of column names, optional
    Groups resampled independently, each keeping its size (e.g. ``"fold"``).""",
    "cluster": """\
cluster : column name, optional
    The clusters drawn whole: a replicate draws as many clusters as there are, with replacement, each with all
    its rows across strata and models (several images of one patient, the repeats of a repeated
    cross-validation). Clusters that each lie in one stratum are drawn within it; otherwise the strata only
    split the cubes, whose sizes then vary between replicates.""",
    "replicate_dim": """\
replicate_dim : str
    The name of the new dim of the replicates.""",
    "stratify": """\
stratify : bool
    Keep the size of every true class (resample within each row of a matrix).""",
    "progress": """\
progress : bool, optional
    Show a progress bar (default: in an interactive terminal, for runs longer than a couple of seconds).""",
    "proba_frame": """\
>>> df = pd.DataFrame({"y": [0, 1, 2, 2, 1, 0, 1, 2], "p0": [0.7, 0.2, 0.1, 0.2, 0.3, 0.5, 0.1, 0.1]})
>>> df["p1"] = 0.2
>>> df["p2"] = 1 - df["p0"] - df["p1"]""",
    "fold_values": """\
>>> mae = xr.DataArray(
...     [[0.50, 0.52, 0.47, 0.55, 0.49], [0.45, 0.50, 0.46, 0.49, 0.47]],
...     dims=("model", "fold"),
...     coords={"model": ["a", "b"]},
...     name="mae",
...     attrs={"higher_is_better": 0},
... )""",
    "dataset_values": """\
>>> auc = xr.DataArray(
...     [[0.70, 0.72, 0.75], [0.61, 0.66, 0.65], [0.80, 0.83, 0.86], [0.55, 0.57, 0.60], [0.91, 0.90, 0.95]],
...     dims=("dataset", "model"),
...     coords={"model": ["a", "b", "c"]},
...     name="auc",
...     attrs={"higher_is_better": 1},
... )""",
}
"""The shared texts: parameter entries, sections and the data of examples (``proba_frame``: true labels and
class probabilities of eight samples; ``fold_values``: two models' MAE over five folds; ``dataset_values``: three
models' AUC over five data sets). The accessors' parameter entries are in words that each accessor module
binds: ``column`` (the type of an argument that names one column), ``values`` (of one that takes a column or one
value per row), ``row`` (what one value is for: a row or a sample), ``aligned`` (how values meet the rows) and
``missing`` (what a row may lack)."""


def fill(doc: str, texts: dict[str, str]) -> str:
    """``doc`` cleaned of its indentation (as ``inspect.cleandoc``) with every ``{name}`` replaced by ``texts[name]``.

    A text may name other texts. A placeholder that no text fills is an error that names it.
    """
    return ESCAPED.sub(r"\1", _substitute(inspect.cleandoc(doc), texts))


def _substitute(doc: str, texts: dict[str, str]) -> str:
    def replace(match: re.Match) -> str:
        indent, before, name = match.groups()
        if name not in texts:
            raise KeyError(
                f"the docstring names {{{name}}}, which is no shared text; add it to ordframe._core.docstrings.TEXTS "
                f"or pass it to fill_doc({name}=...). The texts are {sorted(texts)}"
            )
        return indent + before + _substitute(texts[name], texts).replace("\n", "\n" + indent)

    previous = None
    while previous != doc:  # one placeholder a line per pass
        previous, doc = doc, PLACEHOLDER.sub(replace, doc)
    return doc


@overload
def fill_doc(func: F, /) -> F: ...
@overload
def fill_doc(func: None = None, /, **texts: str) -> Callable[[F], F]: ...
def fill_doc(func: F | None = None, /, **texts: str) -> F | Callable[[F], F]:
    """Fill the ``{name}`` placeholders of a docstring from ``TEXTS`` and ``texts`` (which take precedence).

    Use it as ``@fill_doc`` or, with texts of the module's own, ``@fill_doc(name=text)``.
    """

    def decorate(f: F) -> F:
        f.__doc__ = fill(f.__doc__ or "", {**TEXTS, **texts})
        return f

    return decorate if func is None else decorate(func)
