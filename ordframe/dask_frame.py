"""The ``.ordinal`` accessor of ``dask.dataframe.DataFrame``: confusion cubes and metrics of partitioned rows.

Every partition is counted by the pandas front end (``ordframe.frame``) into
a cube of the same shape, and the partition cubes are summed by a dask tree
reduction, which a ``dask.distributed`` cluster runs across its workers: the
result is a lazy cube, and every metric on it is lazy too. The shape must be
known before any partition is counted, so

* the classes come from ``labels=``, from known ordered categories, or
  (numeric labels) from one pass over the label columns;
* every ``by`` column's values come from known categories, or from one pass
  over the column (sorted distinct values, as for pandas).
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from .accessors import _method, _OrdinalAccessor
from .apply import apply_confusion, as_scalar
from .classes import check_two, declared_order
from .dims import CUBE_DIMS, PRED, TRUE
from .evaluate import evaluate_cube
from .frame import by_names, check_flag
from .metric import Metric
from .types import By, ClassLabels, Column, MetricSpec


def _classes(ddf, true, pred, labels) -> pd.Index:
    if labels is not None:
        return declared_order(labels)
    dtypes = [ddf[c].dtype for c in (true, pred)]
    ordered = [d for d in dtypes if isinstance(d, pd.CategoricalDtype) and d.ordered and d.categories is not None]
    if ordered:
        return check_two(ordered[0].categories)
    if not all(pd.api.types.is_numeric_dtype(d) or pd.api.types.is_bool_dtype(d) for d in dtypes):
        kinds = ", ".join(f"{c!r} ({d})" for c, d in zip((true, pred), dtypes))
        raise TypeError(f"cannot tell the class order of {kinds}: pass labels=[...] in order (lowest first)")
    import dask

    seen = dask.compute(ddf[true].dropna().unique(), ddf[pred].dropna().unique())
    return check_two(pd.Index(np.unique(np.concatenate([np.asarray(s) for s in seen]))))


def _group_values(ddf, by: list) -> list[pd.Index]:
    import dask

    known = {c: ddf[c].dtype.categories for c in by if isinstance(ddf[c].dtype, pd.CategoricalDtype)}
    unknown = [c for c in by if c not in known]
    found = dask.compute(*[ddf[c].dropna().unique() for c in unknown])
    values = {c: pd.Index(np.sort(np.asarray(v))) for c, v in zip(unknown, found)}
    return [known[c] if c in known else values[c] for c in by]


def _partition_cube(part: pd.DataFrame, true, pred, by, groups, classes, weights, dropna) -> np.ndarray:
    """The cube of one partition, laid out over the global group values and classes."""
    part = part.assign(**{str(c): pd.Categorical(part[c], categories=g) for c, g in zip(by, groups)})
    cube = part.ordinal.confusion(true, pred, by=by, labels=classes, weights=weights, dropna=dropna)
    return cube.values


def dask_cube(ddf, true, pred, *, by=None, labels=None, weights=None, dropna=False) -> xr.DataArray:
    """The lazy confusion cube of a dask DataFrame, one matrix per combination of ``by`` values."""
    import dask
    import dask.array as da

    dropna = check_flag(dropna, "dropna")
    by = by_names(by)
    for column in [true, pred, *by, *([weights] if isinstance(weights, (str, int)) else [])]:
        if column not in ddf.columns:
            raise KeyError(f"column {column!r} is not in the DataFrame; its columns are {list(ddf.columns)}")
    if weights is not None and not isinstance(weights, (str, int)):
        raise TypeError("weights= must name a column of the dask DataFrame")
    classes = _classes(ddf, true, pred, labels)
    groups = _group_values(ddf, by)
    shape = (*(len(g) for g in groups), len(classes), len(classes))
    dtype = np.float64 if weights is not None else np.int64
    count = dask.delayed(_partition_cube, pure=True)
    parts = [
        da.from_delayed(count(p, true, pred, by, groups, classes, weights, dropna), shape=shape, dtype=dtype)
        for p in ddf.to_delayed()
    ]
    total = da.stack(parts).sum(axis=0, split_every=8) if parts else da.zeros(shape, dtype=dtype)
    coords = {str(c): g for c, g in zip(by, groups)}
    coords.update({TRUE: classes, PRED: classes})
    return xr.DataArray(total, dims=(*map(str, by), *CUBE_DIMS), coords=coords, name="count")


class OrdinalDaskFrameAccessor(_OrdinalAccessor):
    """Ordinal evaluation of a dask DataFrame: ``ddf.ordinal.<metric>(true, pred, by=...)``, lazily."""

    def __init__(self, ddf: Any):
        self._ddf = ddf

    def confusion(
        self,
        true: Column,
        pred: Column,
        *,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Hashable | None = None,
        dropna: bool = False,
    ) -> xr.DataArray:
        """Lazy confusion cube with dims ``(*by, "true", "pred")``, as ``df.ordinal.confusion`` (see ``ordframe.dask_frame``).

        Examples
        --------
        >>> import dask.dataframe as dd
        >>> df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1], "fold": [0, 0, 1, 1]})
        >>> cube = dd.from_pandas(df, npartitions=2).ordinal.confusion("y", "yhat", by="fold")
        >>> cube.compute().sel(fold=1).values.tolist()
        [[0, 0, 0], [0, 0, 0], [0, 1, 1]]
        """
        return dask_cube(self._ddf, true, pred, by=by, labels=labels, weights=weights, dropna=dropna)

    def evaluate(
        self,
        true: Column,
        pred: Column,
        *,
        metrics: MetricSpec = None,
        by: By = None,
        labels: ClassLabels | None = None,
        weights: Hashable | None = None,
        dropna: bool = False,
    ) -> xr.Dataset:
        """A lazy Dataset with one variable per confusion metric (see :meth:`confusion` and ``df.ordinal.evaluate``)."""
        return evaluate_cube(self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna), metrics)

    def _confusion_method(self, metric: Metric):
        def method(true, pred, *, by=None, labels=None, weights=None, dropna=False, **params):
            cube = self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna)
            result = apply_confusion(metric, cube, params)
            return result if by_names(by) else as_scalar(result, metric, lambda: float(cube.sum()) == 0)

        return _method(method, metric, f"ddf.ordinal.{metric.name}(true, pred, *, by=None, labels=None, ...)")

    def _proba_method(self, metric: Metric):
        raise AttributeError(
            f"{metric.name!r} scores class probabilities, which the dask DataFrame accessor does not take yet; "
            "score a pandas DataFrame (ddf.compute()) or an xarray DataArray of probabilities (it can be dask-backed)"
        )


def register() -> None:
    """Register the accessor on ``dask.dataframe.DataFrame`` if dask's DataFrame support is installed."""
    try:
        from dask.dataframe.extensions import register_dataframe_accessor
    except ImportError:  # dask[dataframe] is optional
        return
    register_dataframe_accessor("ordinal")(OrdinalDaskFrameAccessor)
