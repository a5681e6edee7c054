"""polars columns as pandas ones for the DataFrame front end: numbers without copying, an ``Enum`` as an
ordered Categorical (its order kept), without pyarrow; strings as arrow strings where pyarrow is installed,
label strings with ``labels=`` as the ordered Categorical of those classes, coded from polars' string views.

Only the columns an evaluation names are taken; a ``LazyFrame`` is collected
once, for those columns.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np
import pandas as pd

from ordframe._inputs.classes import LAZY, Labels, codes_of, declared_order

LABEL_ARGUMENTS = ("true", "pred")  # the parameters that name label columns


def is_polars(value) -> bool:
    """Whether ``value`` is a polars object (polars itself is not imported to tell)."""
    return type(value).__module__.split(".")[0] == "polars"


def pandas_series(series, what: str = "the argument") -> pd.Series:
    """A polars Series as a pandas one: an ``Enum`` becomes an ordered Categorical, a ``Categorical`` (no order
    of its own) its labels as strings, integers with nulls a nullable integer array, other values go through
    numpy (a missing value becomes NaN or None). Strings become arrow strings where pyarrow is installed
    (``arrow_strings``), else Python ones. Another polars object, or a dtype that does not hold one
    number per row (nested, 128-bit integers), is an error naming ``what``."""
    import polars as pl

    if not isinstance(series, pl.Series):
        raise TypeError(
            f"{what} must be one value per row (a polars Series), got a polars "
            f"{type(series).__name__}" + ("; pass the column's name, e.g. 'y'" if isinstance(series, pl.Expr) else "")
        )
    if series.dtype.is_nested():
        raise TypeError(
            f"{what} has polars dtype {series.dtype}, which holds several values per row; give one label, "
            "weight or group value per row (e.g. one field or one element of it)"
        )
    if series.dtype in (pl.Int128, pl.UInt128):
        raise TypeError(f"{what} has polars dtype {series.dtype}, which numpy has no type for: cast it to Int64")
    if isinstance(series.dtype, pl.Enum):
        codes = series.to_physical().to_numpy()  # without a copy where there is no missing value
        order = pd.CategoricalDtype(series.dtype.categories.to_list(), ordered=True)
        if series.null_count():
            codes = np.where(series.is_null().to_numpy(), -1, np.nan_to_num(codes, nan=-1)).astype(np.int64)
        elif codes.dtype.kind == "u" and len(order.categories) <= np.iinfo(f"i{codes.dtype.itemsize}").max:
            codes = codes.view(f"i{codes.dtype.itemsize}")  # the same codes as pandas' signed type: no copy
        categorical = pd.Categorical.from_codes(codes, dtype=order, validate=False)  # polars' codes are valid
        return pd.Series(categorical, name=series.name, copy=False)
    if series.dtype == pl.Categorical:
        series = series.cast(pl.String)
    if series.dtype == pl.String:
        strings = arrow_strings(series)
        if strings is not None:
            return pd.Series(strings, name=series.name, copy=False)
    if series.dtype.is_integer() and series.null_count():  # integers stay integers, as in pandas' Int64
        values = series.fill_null(0).to_numpy()
        return pd.Series(pd.arrays.IntegerArray(values, series.is_null().to_numpy()), name=series.name, copy=False)
    return pd.Series(series.to_numpy(), name=series.name, copy=False)  # pandas copies arrays by default


def arrow_strings(series) -> pd.api.extensions.ExtensionArray | None:
    """A polars String Series as pandas' arrow strings, which the class coding reads without a Python object
    per row (``classes._arrow_string_codes``); ``None`` without pyarrow. polars' string views are copied
    into one contiguous arrow string array (about 10 ns per row)."""
    try:
        import pyarrow as pa
    except ImportError:
        return None
    return pd.arrays.ArrowExtensionArray(series.to_arrow().cast(pa.large_string()))


def column_names(frame) -> list[str]:
    """The column names of a polars DataFrame or LazyFrame (a LazyFrame's from its schema, nothing computed)."""
    return frame.collect_schema().names() if hasattr(frame, "collect_schema") else list(frame.columns)


def pandas_frame(frame, names: Iterable[Hashable], labels=None, label_columns: Iterable[Hashable] = ()) -> pd.DataFrame:
    """The columns ``names`` (those that exist, in the frame's order) of a polars DataFrame or LazyFrame as a
    pandas DataFrame with a default index: row ``i`` is polars' row ``i``. With ``labels``, the string
    columns among ``label_columns`` are read as their classes (``declared_labels``) where they can be."""
    wanted = set(names)
    kept = [c for c in column_names(frame) if c in wanted]
    selected = frame.select(kept)
    if not hasattr(selected, "height"):  # a LazyFrame: collected once
        selected = selected.collect()
    if not kept:
        return pd.DataFrame(index=pd.RangeIndex(selected.height))
    label_columns = wanted.intersection(label_columns)
    order = _declared_order(labels) if labels is not None and label_columns else None
    columns = []
    for name in kept:
        series = selected.get_column(name)
        declared = declared_labels(series, order) if order is not None and name in label_columns else None
        columns.append(pandas_series(series, f"column {name!r}") if declared is None else declared)
    return pd.concat(columns, axis=1)  # no copy, unlike DataFrame(dict), which gathers a dtype's columns in a block


def _declared_order(labels) -> pd.CategoricalDtype | None:
    """The classes ``labels`` declares, in order; ``None`` where the front end refuses them (and says why)."""
    try:
        return pd.CategoricalDtype(declared_order(labels), ordered=True)
    except (TypeError, ValueError):
        return None


def declared_labels(series, order: pd.CategoricalDtype) -> pd.Series | None:
    """A polars String (or Categorical) label column as an ordered Categorical of the classes ``labels=``
    declares (``order``), as if it were their ``Enum``: coded by the classes' perfect hash over polars' string views,
    which are not copied into arrow's contiguous layout (``classes.codes_of``). ``None`` where a value is
    not a class (the front end names them) or without pyarrow."""
    import polars as pl

    if series.dtype not in (pl.String, pl.Categorical):
        return None
    try:
        import pyarrow as pa
    except ImportError:
        return None
    strings = pa.chunked_array(series.cast(pl.String))  # polars' chunks of string views, not copied
    column = Labels(series.name, pd.arrays.ArrowExtensionArray(strings), "object", LAZY)
    codes, unknown = codes_of(column, order.categories)
    if unknown is not None:
        return None
    categorical = pd.Categorical.from_codes(codes, dtype=order, validate=False)
    return pd.Series(categorical, name=series.name, copy=False)


def label_columns(arguments: dict, columns: set) -> set:
    """The columns that a call's ``arguments`` (its parameters' names and values, defaults included) name as
    ``true`` or ``pred`` and as nothing else (``labels`` names classes, not columns)."""
    named = named_columns([arguments.get(name) for name in LABEL_ARGUMENTS], columns)
    return named - named_columns([v for k, v in arguments.items() if k not in (*LABEL_ARGUMENTS, "labels")], columns)


def named_columns(values, columns: set) -> set:
    """The column names among argument ``values`` (names, lists or tuples of names, dicts of names)."""
    found: set = set()
    for value in values:
        if isinstance(value, dict):
            found |= named_columns(value.values(), columns)
        elif isinstance(value, (list, tuple)):
            found |= named_columns(value, columns)
        elif isinstance(value, str) and value in columns:
            found.add(value)
    return found
