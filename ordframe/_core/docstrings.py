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
models' AUC over five data sets)."""


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
