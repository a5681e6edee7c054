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
from .proba import CLASS_DIM, array_inputs, array_metric, evaluate_array, evaluate_frame, frame_metric, worst
from .retention import array_aursc, frame_aursc


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

    def evaluate(self, true, pred=None, metrics=None, *, proba=None, by=None, labels=None, weights=None, dropna=False,
                 renormalize=False) -> xr.Dataset:
        """A Dataset with one variable per metric.

        ``metrics`` is a list of names or ``{output name: name | (name, params)}``;
        by default every confusion metric, plus every proba metric when ``proba``
        (probability columns: a list in class order or a dict label -> column) is
        given. Confusion metrics use ``pred``, or else the most probable class.
        """
        return evaluate_frame(self._df, true, pred, metrics, proba=proba, by=by, labels=labels, weights=weights,
                              dropna=dropna, renormalize=renormalize)

    def worst(self, true, proba, *, score="rps", n=10, labels=None, renormalize=False, **params) -> pd.DataFrame:
        """The ``n`` rows with the worst per-sample ``score``, worst first (see :func:`ordframe.worst`)."""
        return worst(self._df, true, proba, score=score, n=n, labels=labels, renormalize=renormalize, **params)

    def aursc(self, true, proba, *, score="rps", metric="qwk", fractions=None, pred=None, by=None, labels=None,
              weights=None, dropna=False, renormalize=False) -> xr.Dataset:
        """Retained-samples curve of ``metric`` as the worst rows under ``score`` go, and its area (``ordframe.retention``)."""
        return frame_aursc(self._df, true, proba, score=score, metric=metric, fractions=fractions, pred=pred, by=by,
                           labels=labels, weights=weights, dropna=dropna, renormalize=renormalize)

    def _metric_method(self, metric: Metric):
        if metric.kind == "proba":
            return self._proba_method(metric)

        def method(true, pred, *, by=None, labels=None, weights=None, dropna=False, **params):
            cube = self.confusion(true, pred, by=by, labels=labels, weights=weights, dropna=dropna)
            result = apply_confusion_metric(metric, cube, params)
            return as_scalar(result, metric, cube) if by is None else result

        method.__doc__ = _metric_doc(metric, f"df.ordinal.{metric.name}(true, pred, *, by=None, labels=None, weights=None, dropna=False, **params)")
        return method

    def _proba_method(self, metric: Metric):
        def method(true, proba, *, by=None, labels=None, weights=None, dropna=False, renormalize=False, **params):
            result = frame_metric(self._df, metric, true, proba, by=by, labels=labels, weights=weights, dropna=dropna,
                                  renormalize=renormalize, params=params)
            return as_scalar(result, metric) if by is None else result

        method.__doc__ = _metric_doc(metric, f"df.ordinal.{metric.name}(true, proba, *, by=None, labels=None, weights=None, dropna=False, renormalize=False, **params)")
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
        """Confusion cube of these predicted labels (or of the most probable class, for class probabilities) against ``true``."""
        if CLASS_DIM in self._obj.dims:
            return array_inputs(self._obj, true, labels=labels, dropna=dropna).cube(dim=dim, weights=weights)
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
        if CLASS_DIM in self._obj.dims:
            return evaluate_array(self._obj, true, metrics, **kwargs)
        return evaluate_cube(self._cube(true, kwargs), metrics)

    def worst(self, true: xr.DataArray, *, score="rps", n=10, labels=None, renormalize=False, **params) -> pd.DataFrame:
        """The ``n`` samples of these class probabilities with the worst per-sample ``score`` (see :func:`ordframe.worst`)."""
        return worst(self._obj, true, score=score, n=n, labels=labels, renormalize=renormalize, **params)

    def aursc(self, true: xr.DataArray, *, score="rps", metric="qwk", fractions=None, pred=None, dim=None, labels=None,
              weights=None, dropna=False, renormalize=False) -> xr.Dataset:
        """Retained-samples curve of ``metric`` as the worst samples under ``score`` go, and its area (``ordframe.retention``)."""
        return array_aursc(self._obj, true, score=score, metric=metric, fractions=fractions, pred=pred, dim=dim,
                           labels=labels, weights=weights, dropna=dropna, renormalize=renormalize)

    def _metric_method(self, metric: Metric):
        if metric.kind == "proba":
            return self._proba_method(metric)

        def method(true: xr.DataArray | None = None, *, dim=None, labels=None, weights=None, dropna=False, **params):
            given = {k: v for k, v in dict(dim=dim, labels=labels, weights=weights, dropna=dropna).items() if v is not None and v is not False}
            cube = self._cube(true, given)
            result = apply_confusion_metric(metric, cube, params)
            return as_scalar(result, metric, cube)

        method.__doc__ = _metric_doc(metric, f"cube.ordinal.{metric.name}(**params) or pred.ordinal.{metric.name}(true, *, dim=None, labels=None, weights=None, **params)")
        return method

    def _proba_method(self, metric: Metric):
        def method(true: xr.DataArray, *, dim=None, labels=None, weights=None, dropna=False, renormalize=False, **params):
            result = array_metric(metric, self._obj, true, dim=dim, weights=weights, labels=labels, dropna=dropna,
                                  renormalize=renormalize, params=params)
            return as_scalar(result, metric)

        method.__doc__ = _metric_doc(metric, f"proba.ordinal.{metric.name}(true, *, dim=None, labels=None, weights=None, dropna=False, renormalize=False, **params)")
        return method
