"""polars columns as pandas ones for the DataFrame front end: numbers without copying, an ``Enum`` as an
ordered Categorical (its order kept), without pyarrow; strings as arrow strings where pyarrow is installed.

Only the columns an evaluation names are taken; a ``LazyFrame`` is collected
once, for those columns.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable

import numpy as np
import pandas as pd


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


def pandas_frame(frame, names: Iterable[Hashable]) -> pd.DataFrame:
    """The columns ``names`` (those that exist, in the frame's order) of a polars DataFrame or LazyFrame as a
    pandas DataFrame with a default index: row ``i`` is polars' row ``i``."""
    wanted = set(names)
    kept = [c for c in column_names(frame) if c in wanted]
    selected = frame.select(kept)
    if not hasattr(selected, "height"):  # a LazyFrame: collected once
        selected = selected.collect()
    if not kept:
        return pd.DataFrame(index=pd.RangeIndex(selected.height))
    return pd.concat(
        [pandas_series(selected.get_column(name), f"column {name!r}") for name in kept], axis=1
    )  # no copy, unlike
    # DataFrame(dict), which gathers columns of one dtype into one block


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
