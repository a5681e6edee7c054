"""The ``.ordinal`` accessors of ``pandas.DataFrame`` and ``xarray.DataArray``.

They only parse arguments and call the layers below (``confusion`` builds
cubes, ``apply`` runs kernels). Every registered metric is reachable as a
method, looked up in the registry at call time.
"""

from __future__ import annotations

import difflib

import pandas as pd
import xarray as xr

from . import registry
from .apply import CUBE_DIMS, apply_confusion_metric, as_scalar, check_cube, evaluate_cube
from .confusion import array_cube, frame_cube
from .metric import Metric


def _metric_doc(metric: Metric, call: str) -> str:
    params = ", ".join(f"{k}={v!r}" for k, v in metric.defaults.items()) or "none"
    return (
        f"{metric.description}\n\n{call}\n\n"
        f"Direction: {metric.direction}; bounds: {metric.bounds}; parameters: {params}.\n"
        f"Reference: {metric.reference or 'none given'}"
    )


class _OrdinalAccessor:
    def __dir__(self):
        return sorted(set(super().__dir__()) | set(registry.metric_names()))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            metric = registry.get_metric(name)
        except KeyError:
            close = difflib.get_close_matches(name, dir(self), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise AttributeError(f"'.ordinal' has no method or metric {name!r}{hint}") from None
        method = self._metric_method(metric)
        method.__name__ = method.__qualname__ = name
        return method


@pd.api.extensions.register_dataframe_accessor("ordinal")
class OrdinalFrameAccessor(_OrdinalAccessor):
    """Ordinal evaluation of label columns: ``df.ordinal.<metric>(true, pred, by=...)``."""

    def __init__(self, df: pd.DataFrame):
        self._df = df

    def confusion(self, true, pred, *, by=None, labels=None, weights=None, dropna=False) -> xr.DataArray:
        """Confusion cube with dims ``(*by, "true", "pred")`` (rows = true class).

        ``by`` columns become dims whose coordinates are their sorted values (or
        their categorical order); a combination without rows is a zero matrix.
        ``weights`` is a column name or one number per row.
        """
        return frame_cube(self._df, true, pred, by=by, labels=labels, weights=weights, dropna=dropna)

    def evaluate(self, true, pred, metrics=None, *, by=None, labels=None, weights=None, dropna=False) -> xr.Dataset:
        """A Dataset with one variable per metric (default: every registered confusion metric).

        ``metrics`` is a list of names or ``{output name: name | (name, params)}``.
        """
        return evaluate_cube(self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna), metrics)

    def _metric_method(self, metric: Metric):
        def method(true, pred, *, by=None, labels=None, weights=None, dropna=False, **params):
            cube = self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna)
            result = apply_confusion_metric(metric, cube, params)
            return as_scalar(result, metric, cube) if by is None else result

        method.__doc__ = _metric_doc(metric, f"df.ordinal.{metric.name}(true, pred, *, by=None, labels=None, weights=None, dropna=False, **params)")
        return method


@xr.register_dataarray_accessor("ordinal")
class OrdinalArrayAccessor(_OrdinalAccessor):
    """Ordinal evaluation of a confusion cube (``cube.ordinal.oc()``) or of predicted labels (``pred.ordinal.mae(true)``)."""

    def __init__(self, obj: xr.DataArray):
        self._obj = obj

    @property
    def _is_cube(self) -> bool:
        return all(d in self._obj.dims for d in CUBE_DIMS)

    def confusion(self, true: xr.DataArray, *, dim=None, labels=None, weights=None, dropna=False) -> xr.DataArray:
        """Confusion cube of these predicted labels against ``true`` (broadcast together), counted over ``dim`` (default: all dims)."""
        return array_cube(self._obj, true, dim=dim, labels=labels, weights=weights, dropna=dropna)

    def _cube(self, true, kwargs) -> xr.DataArray:
        if true is None:
            if kwargs:
                raise TypeError(f"{sorted(kwargs)} only apply to label arrays; this is already a confusion cube")
            check_cube(self._obj)
            return self._obj
        if self._is_cube:
            raise TypeError("this array is a confusion cube; call its metrics without a true-label array")
        return self.confusion(true, **kwargs)

    def evaluate(self, metrics=None, true: xr.DataArray | None = None, **kwargs) -> xr.Dataset:
        """A Dataset with one variable per metric: ``cube.ordinal.evaluate(metrics)`` or ``pred.ordinal.evaluate(true, metrics)``."""
        if isinstance(metrics, xr.DataArray):
            metrics, true = true, metrics
        return evaluate_cube(self._cube(true, kwargs), metrics)

    def _metric_method(self, metric: Metric):
        def method(true: xr.DataArray | None = None, *, dim=None, labels=None, weights=None, dropna=False, **params):
            given = {k: v for k, v in dict(dim=dim, labels=labels, weights=weights, dropna=dropna).items() if v is not None and v is not False}
            cube = self._cube(true, given)
            result = apply_confusion_metric(metric, cube, params)
            return as_scalar(result, metric, cube) if result.ndim == 0 else result

        method.__doc__ = _metric_doc(metric, f"cube.ordinal.{metric.name}(**params) or pred.ordinal.{metric.name}(true, *, dim=None, labels=None, weights=None, **params)")
        return method
