"""From numpy kernels to labelled results: the one place that calls ``xarray.apply_ufunc``."""

from __future__ import annotations

import warnings

import numpy as np
import xarray as xr

from . import registry
from .metric import Metric

CUBE_DIMS = ("true", "pred")


def check_cube(cube: xr.DataArray) -> None:
    """Raise if ``cube`` is not a confusion cube (last dims ``true`` and ``pred``)."""
    missing = [d for d in CUBE_DIMS if d not in cube.dims]
    if missing:
        raise ValueError(
            f"a confusion cube needs dims 'true' and 'pred' (rows = true class); this array has dims "
            f"{tuple(cube.dims)}. Build one with df.ordinal.confusion(...) or pred.ordinal.confusion(true)."
        )
    if cube.sizes["true"] != cube.sizes["pred"]:
        raise ValueError(f"a confusion cube must be square, got true={cube.sizes['true']} and pred={cube.sizes['pred']}")
    if cube.sizes["true"] < 2:
        raise ValueError(f"an ordinal problem needs at least two classes; this cube has {cube.sizes['true']}")


def checked_output(metric: Metric, out, shape: tuple, given: str) -> np.ndarray:
    """A kernel's output as float64; an error naming the metric if its shape or dtype is wrong."""
    out = np.asarray(out)
    if out.shape != shape:
        raise ValueError(
            f"metric {metric.name!r}: its kernel returned shape {out.shape} for {given}; "
            f"a {metric.kind} kernel must return shape {shape}"
        )
    if out.dtype.kind not in "fiub":
        raise TypeError(f"metric {metric.name!r}: its kernel returned dtype {out.dtype}; it must return real numbers")
    return out.astype(np.float64, copy=False)


def _checked_kernel(metric: Metric, params: dict):
    def kernel(counts):
        with np.errstate(all="ignore"):
            out = metric.func(counts, **params)
        return checked_output(metric, out, counts.shape[:-2], f"counts of shape {counts.shape}")

    return kernel


def apply_confusion_metric(metric: Metric, cube: xr.DataArray, params: dict) -> xr.DataArray:
    """Compute ``metric`` on every matrix of ``cube``; a DataArray over the other dims."""
    check_cube(cube)
    params = metric.params(params)
    counts = cube.transpose(..., *CUBE_DIMS).astype(np.float64)
    kernel = _checked_kernel(metric, params)
    k = cube.sizes["true"]
    kernel(np.zeros((1, k, k)))  # bad parameters fail now, not when a lazy result is computed
    result = xr.apply_ufunc(
        kernel,
        counts,
        input_core_dims=[list(CUBE_DIMS)],
        dask="parallelized",
        output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True},  # a matrix is only K x K: joining its chunks is cheap
    )
    return result.rename(metric.name)


def as_scalar(result: xr.DataArray, metric: Metric, cube: xr.DataArray | None = None):
    """A 0-d result as a float (computed if lazy), NaN with one ``RuntimeWarning`` that says why.

    ``cube`` is the confusion cube a confusion metric was computed on (``None``
    for a mean of per-sample scores).
    """
    if result.ndim:
        return result
    value = float(result)
    if np.isnan(value):
        if cube is None:
            reason = "there are no samples (or their weights sum to 0)"
        elif float(cube.sum()) == 0:
            reason = "the confusion matrix is empty (no samples)"
        else:
            reason = metric.undefined or "the kernel returned NaN"
        warnings.warn(f"{metric.name} is undefined for this input and is NaN: {reason}", RuntimeWarning, stacklevel=3)
    return value


def metric_request(metrics, kind: str = "confusion") -> dict[str, tuple[Metric, dict]]:
    """Normalise an ``evaluate(metrics=...)`` argument to ``{output name: (metric, params)}``.

    ``None`` means every registered metric of ``kind`` with default parameters;
    a list names metrics; a dict maps output names to a name or ``(name, params)``.
    """
    if metrics is None:
        metrics = registry.metric_names(kind)
    if isinstance(metrics, str):
        metrics = [metrics]
    if not isinstance(metrics, dict):
        metrics = {name: name for name in metrics}
    request = {}
    for output, spec in metrics.items():
        name, params = (spec, {}) if isinstance(spec, str) else spec
        metric = registry.get_metric(name)
        request[output] = (metric, metric.params(params))
    return request


def evaluate_cube(cube: xr.DataArray, metrics=None) -> xr.Dataset:
    """One variable per requested confusion metric, computed on every matrix of ``cube``."""
    request = metric_request(metrics)
    variables = {}
    for output, (metric, params) in request.items():
        if metric.kind != "confusion":
            raise ValueError(f"metric {metric.name!r} needs class probabilities, not a confusion cube")
        variables[output] = apply_confusion_metric(metric, cube, params).rename(output)
    return xr.Dataset(variables)
