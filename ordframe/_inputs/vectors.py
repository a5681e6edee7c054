"""Plain vectors of labels, predictions, probabilities and weights as a DataFrame for the DataFrame front end.

The functions like ``sklearn.metrics`` (``ordframe.oc(y_true, y_pred)``) take
lists, numpy arrays, pandas and polars Series. They are matched by position,
as scikit-learn does (a Series' index is not used), and put side by side in a
DataFrame whose column names are the argument names, so every check, and
every message, is the DataFrame front end's.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._inputs.polars_frame import is_polars, pandas_series

TRUE, PRED, WEIGHTS = "y_true", "y_pred", "sample_weight"


def proba_column(k: int) -> str:
    """The name of probability column ``k`` (as the user would index ``y_proba``)."""
    return f"y_proba[:, {k}]"


def vectors_frame(
    y_true, y_pred=None, *, y_proba=None, sample_weight=None, groups=None
) -> tuple[pd.DataFrame, list[str]]:
    """The given vectors as the columns ``y_true``, ``y_pred``, ``sample_weight``, and ``y_proba``'s
    columns ``y_proba[:, k]`` (listed second, in order); ``groups`` maps more column names to one value
    per sample, or to one value for all."""
    columns = {TRUE: _vector(y_true, TRUE)}
    if y_pred is not None:
        columns[PRED] = _vector(y_pred, PRED)
    proba: list[str] = []
    if y_proba is not None:
        table = _table(y_proba)
        proba = [proba_column(k) for k in range(table.shape[1])]
        columns.update(zip(proba, _table_columns(table)))
    if sample_weight is not None:
        columns[WEIGHTS] = _vector(sample_weight, WEIGHTS)
    n = len(columns[TRUE])
    for name, value in (groups or {}).items():
        columns[name] = (
            pd.Series(_scalar(value), index=pd.RangeIndex(n)) if np.ndim(value) == 0 else _vector(value, name)
        )
    lengths = {name: len(values) for name, values in columns.items() if not name.startswith("y_proba")}
    if y_proba is not None:
        lengths["y_proba"] = len(table)
    if len(set(lengths.values())) > 1:
        shown = ", ".join(f"{name} has {n}" for name, n in lengths.items())
        raise ValueError(f"the arguments have different numbers of samples ({shown}); give one value per sample")
    frame = pd.DataFrame({name: getattr(values, "array", values) for name, values in columns.items()})
    return frame, proba


def _scalar(value):
    """One value for every sample; a 0-d array or tensor becomes its number (a tensor hashes by identity)."""
    if hasattr(value, "__array__") and not isinstance(value, np.generic):
        return np.asarray(value)[()]
    return value


def _vector(values, name: str) -> pd.Series:
    """One value per sample as a pandas Series (positional), from a list, array, pandas or polars Series."""
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
    return pd.Series(array, copy=False)  # pandas copies arrays by default


def _table_columns(table: np.ndarray | pd.DataFrame) -> list:
    """The columns of a probability table, positionally (a DataFrame's keep their dtypes)."""
    if isinstance(table, pd.DataFrame):
        return [table.iloc[:, k].array for k in range(table.shape[1])]
    return [table[:, k] for k in range(table.shape[1])]


def _table(values) -> np.ndarray | pd.DataFrame:
    """The class probabilities ``(samples, classes)``: a 2-D array, or a DataFrame used by position."""
    if is_polars(values):
        values = values.to_numpy()
    if isinstance(values, pd.DataFrame):
        return values
    if isinstance(values, xr.DataArray):
        values = values.values
    array = np.asarray(values)
    if array.ndim != 2:
        hint = "; for two classes give both columns, e.g. numpy.column_stack([1 - p, p])" if array.ndim == 1 else ""
        raise ValueError(f"y_proba must be 2-D (samples, classes), got shape {array.shape}{hint}")
    return array
