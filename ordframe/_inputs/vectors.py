"""Plain vectors of labels, predictions, probabilities and weights as a DataFrame for the DataFrame front end.

The functions like ``sklearn.metrics`` (``ordframe.oc(y_true, y_pred)``) take
lists, numpy arrays, pandas and polars Series. They are matched by position,
as scikit-learn does (a Series' index is not used), and put side by side in a
DataFrame whose column names are the argument names, so every check, and
every message, is the DataFrame front end's.

Class probabilities ``y_proba`` are taken by position (column ``k`` is the
``k``-th class), except a DataFrame whose column names are the class labels:
its columns are matched to the classes by name, as the accessors'
``proba={label: column}``, since ``pd.DataFrame(model.predict_proba(X),
columns=model.classes_)`` has scikit-learn's sorted classes, rarely the
ordinal order (``column_classes``).

``vector_columns`` holds them as ``Vectors``, which ``frame_rows`` reads as it
reads a DataFrame without one being built: a call on one set of vectors costs
what its checks and its count cost. ``vectors_frame`` makes the DataFrame
itself, for callers that add columns of their own.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterator, Mapping
from contextlib import contextmanager
from functools import cached_property
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._inputs.classes import declared_order
from ordframe._inputs.polars_frame import column_names, is_polars, pandas_frame, pandas_series
from ordframe._inputs.probability import DICT_OF_COLUMNS, PASS_LABELS, PROBA_KEYS, PROBA_LISTS

TRUE, PRED, WEIGHTS, SCORE = "y_true", "y_pred", "sample_weight", "y_score"


def proba_column(k: int) -> str:
    """The name of probability column ``k`` (as the user would index ``y_proba``)."""
    return f"y_proba[:, {k}]"


class Vectors:
    """Named vectors of one value per row, which ``frame_rows`` reads as a DataFrame's columns (rows 0 .. n-1).

    Each is kept as the DataFrame would hold it: a numeric numpy array (booleans, integers, floats) as it is,
    anything else as a Series, so that pandas infers the same dtype (``str`` for an object array of strings).
    """

    def __init__(self, columns: Mapping[Hashable, np.ndarray | pd.Series], rows: int):
        self._columns, self._rows = columns, rows

    def __getitem__(self, name: Hashable) -> Any:  # as a DataFrame's: a Series, or a numeric array standing for one
        return self._columns[name]

    def __len__(self) -> int:
        return self._rows

    def items(self):
        """The names and vectors."""
        return self._columns.items()

    @cached_property
    def index(self) -> pd.RangeIndex:
        """The rows' labels: their positions."""
        return pd.RangeIndex(self._rows)


def vector_columns(
    y_true, y_pred=None, *, y_proba=None, y_score=None, sample_weight=None, groups=None, labels=None
) -> tuple[Vectors, list[str] | dict]:
    """The given vectors as the columns ``y_true``, ``y_pred``, ``y_score``, ``sample_weight``, and ``y_proba``'s columns,
    returned second as the front end's ``proba=``: ``y_proba[:, k]`` in order, or, for a DataFrame whose column
    names are the classes (of ``labels``, else of ``y_true``: ``column_classes``), ``{label: "y_proba[name]"}``.
    ``groups`` maps more column names to one value per sample, or to one value for all."""
    columns: dict[Hashable, np.ndarray | pd.Series] = {TRUE: _vector(y_true, TRUE)}
    if y_pred is not None:
        columns[PRED] = _vector(y_pred, PRED)
    if y_score is not None:
        columns[SCORE] = _vector(y_score, SCORE)
    proba: list[str] | dict = []
    if y_proba is not None:
        table = _table(y_proba)
        names, classes = [proba_column(k) for k in range(table.shape[1])], None
        if isinstance(table, pd.DataFrame):
            classes = column_classes(table, columns[TRUE], labels, text=is_polars(y_proba))
            names = names if classes is None else [f"y_proba[{name!r}]" for name in table.columns]
        columns.update((name, _vector(column, name)) for name, column in zip(names, _table_columns(table)))
        proba = names if classes is None else dict(zip(classes, names))
    if sample_weight is not None:
        columns[WEIGHTS] = _vector(sample_weight, WEIGHTS)
    n = len(columns[TRUE])
    for name, value in (groups or {}).items():
        columns[name] = (
            pd.Series(one_value(value), index=pd.RangeIndex(n))
            if np.ndim(value) == 0
            else _series(_one_per_sample(value, name))
        )
    lengths = {name: len(values) for name, values in columns.items() if not str(name).startswith("y_proba")}
    if y_proba is not None:
        lengths["y_proba"] = len(table)
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"the arguments have different numbers of samples ({shown}); give one value per sample")
    return Vectors(columns, n), proba


def vectors_frame(
    y_true, y_pred=None, *, y_proba=None, sample_weight=None, groups=None, labels=None
) -> tuple[pd.DataFrame, list[str] | dict]:
    """``vector_columns`` as a DataFrame."""
    vectors, proba = vector_columns(
        y_true, y_pred, y_proba=y_proba, sample_weight=sample_weight, groups=groups, labels=labels
    )
    return pd.DataFrame({name: getattr(values, "array", values) for name, values in vectors.items()}), proba


def one_value(value):
    """One value for every sample; a 0-d array or tensor becomes its number (a tensor hashes by identity)."""
    if hasattr(value, "__array__") and not isinstance(value, np.generic):
        return np.asarray(value)[()]
    return value


def _vector(values, name: str) -> np.ndarray | pd.Series:
    """One value per sample (positional) from a list, array, pandas or polars Series, as ``Vectors`` holds it:
    a numeric numpy array as it is, anything else as a Series."""
    values = _one_per_sample(values, name)
    if _numeric(values):
        return values.to_numpy() if isinstance(values, pd.Series) else np.asarray(values)  # a Series' own array
    return _series(values)


def _series(values) -> pd.Series:
    return values if isinstance(values, pd.Series) else pd.Series(values, copy=False)  # pandas copies by default


def _numeric(values) -> bool:
    """Whether ``values`` have a numpy dtype of booleans or real numbers in the machine's byte order."""
    dtype = values.dtype
    return isinstance(dtype, np.dtype) and dtype.kind in "biuf" and dtype.isnative


def _one_per_sample(values, name: str):
    """One value per sample (positional): a 1-D numpy array, pandas Index, ExtensionArray or Series."""
    if type(values) is np.ndarray and values.ndim == 1:  # not a subclass (a masked array is read as numpy reads it)
        return values
    if is_polars(values):
        values = pandas_series(values, name)
    if isinstance(values, xr.DataArray):
        values = values.values
    if isinstance(values, pd.Series):
        return values
    if isinstance(values, (pd.DataFrame, str, bytes, set, frozenset, dict)):
        raise TypeError(f"{name} must be one value per sample (a list, array or Series), got {type(values).__name__}")
    array = values if isinstance(values, (pd.Index, pd.api.extensions.ExtensionArray)) else np.asarray(values)
    if array.ndim == 0:
        raise ValueError(f"{name} must be one value per sample (a list, array or Series), got the one value {values!r}")
    if array.ndim != 1:
        raise ValueError(
            f"{name} must be 1-D (one value per sample), got shape {array.shape}; flatten it, or use "
            "the .ordinal accessor of a DataArray for labels along several dims"
        )
    return array


def _table_columns(table: np.ndarray | pd.DataFrame) -> list:
    """The columns of a probability table, positionally (a DataFrame's keep their dtypes)."""
    if isinstance(table, pd.DataFrame):
        return [table.iloc[:, k] for k in range(table.shape[1])]
    return [table[:, k] for k in range(table.shape[1])]


def _table(values) -> np.ndarray | pd.DataFrame:
    """The class probabilities ``(samples, classes)``: a 2-D array, or a DataFrame (a polars one, or a 2-D
    DataArray, whose class coordinate becomes the column names)."""
    if is_polars(values):
        values = pandas_frame(values, column_names(values)) if hasattr(values, "collect_schema") else values.to_numpy()
    if isinstance(values, xr.DataArray) and values.ndim == 2:
        values = values.to_pandas()
    if isinstance(values, pd.DataFrame):
        return values
    if isinstance(values, Mapping):
        raise TypeError(
            "y_proba must be a 2-D array (samples, classes) or a DataFrame, got a dict: a dict label -> column is "
            "the accessors' proba= (df.ordinal.rps('y', {label: column})). Pass pandas.DataFrame(y_proba): "
            "columns named by the classes are matched to them by name"
        )
    if isinstance(values, xr.DataArray):
        values = values.values
    array = np.asarray(values)
    if array.ndim != 2:
        hint = "; for two classes give both columns, e.g. numpy.column_stack([1 - p, p])" if array.ndim == 1 else ""
        raise ValueError(f"y_proba must be 2-D (samples, classes), got shape {array.shape}{hint}")
    return array


def column_classes(table: pd.DataFrame, y_true: np.ndarray | pd.Series, labels, *, text: bool = False) -> list | None:
    """The class label that names each column of a probability DataFrame, or None for a table read by position.

    The classes are ``labels``, else the categories of a Categorical ``y_true``, else its values; with ``text``
    (a polars frame, whose column names are strings) a name is a label written as text. A table is read by
    position when no column name is a class, or when it has pandas' default names 0 .. K-1 (a frame made from
    an array without names, in the array's order). Names of which only some are classes, a name repeated, or a
    class without a column, are errors.
    """
    names = table.columns
    if isinstance(names, pd.RangeIndex) and names.equals(pd.RangeIndex(len(names))):
        return None
    unseen = ""  # advice for a class that is no value of y_true
    true = pd.Series(y_true, copy=False)
    if labels is not None:
        classes, source = declared_order(labels), "labels="
    elif isinstance(true.dtype, pd.CategoricalDtype):
        classes, source = true.cat.categories, "the categories of y_true"
    else:
        classes, source = pd.Index(true.dropna().unique()), "the values of y_true"
        unseen = "; pass labels=[...] if a class never occurs in y_true"
    at = (classes.map(str) if text else classes).get_indexer(names)
    named = at >= 0
    if not named.any():
        return None
    if not named.all():
        raise ValueError(
            f"y_proba's column names {list(names[named])} are classes and {list(names[~named])} are not (the "
            f"classes are {source} {list(classes)}): name every column by its class, to match them to the "
            f"classes by name, or none, to take them in class order{unseen}"
        )
    repeated = names[names.duplicated()].unique()
    if len(repeated):
        raise ValueError(f"y_proba has the column(s) {list(repeated)} more than once; give one column per class")
    absent = classes.delete(at)
    if len(absent):
        raise ValueError(
            f"y_proba's columns are named by class, and none is named {list(absent)} (classes are {source} "
            f"{list(classes)}); give every class a column, with 0 for a class the model never predicts"
        )
    return list(classes[at])


@contextmanager
def y_proba_words(advice: str = PASS_LABELS) -> Iterator[None]:
    """The DataFrame front end's errors about its ``proba=`` columns in the words of the argument ``y_proba``.

    ``advice`` replaces the advice to pass ``labels=`` where the labels are fixed already (an Accumulator's).
    """
    try:
        yield
    except (TypeError, ValueError) as exc:
        message = str(exc)
        if not (message.startswith(PROBA_LISTS) or PROBA_KEYS in message):
            raise
        message = message.replace(f"{PASS_LABELS}{DICT_OF_COLUMNS}", advice).replace(DICT_OF_COLUMNS, "")
        message = message.replace(f"{PROBA_KEYS!r}", "the column names of y_proba")
        if message.startswith(PROBA_LISTS):
            message = "y_proba has" + message.removeprefix(PROBA_LISTS)
        raise type(exc)(message) from None
