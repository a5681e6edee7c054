"""Sample weights: finite, non-negative real numbers, checked eagerly (numpy) or as they are computed (dask)."""

from __future__ import annotations

from collections.abc import Hashable

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import check_nonnegative


def check_weights(name: Hashable, values) -> np.ndarray:
    """``values`` as float64; an error if any weight is negative, NaN, infinite, missing or not a real number."""
    if isinstance(values, pd.Series):
        dtype = values.dtype
        numeric = pd.api.types.is_numeric_dtype(dtype) and not pd.api.types.is_complex_dtype(dtype)
        if not (numeric or pd.api.types.is_bool_dtype(dtype)):
            raise TypeError(f"weights {name!r} must be real numbers, got dtype {dtype}")
        values = values.to_numpy(dtype=np.float64, na_value=np.nan)
    values = np.asarray(values)
    if values.dtype.kind not in "iufb":
        raise TypeError(f"weights {name!r} must be real numbers, got dtype {values.dtype}")
    values = check_nonnegative(values.astype(np.float64, copy=False), f"weights {name!r}", "weight")
    with np.errstate(over="ignore"):
        total = values.sum()
    if not np.isfinite(total):
        raise ValueError(
            f"weights {name!r} sum to more than a float can hold (largest {values.max():.3g}); weights only count "
            "relative to each other: divide them by their largest value"
        )
    return values


def checked_weights(weights, like: xr.DataArray | None = None) -> xr.DataArray | None:
    """A weights DataArray whose values are checked: now if in memory, chunk by chunk if dask-backed.

    With ``like``, the coordinates that the weights share with it must agree
    exactly (a weight is never matched to a sample by a partial join).
    """
    if weights is None:
        return None
    if not isinstance(weights, xr.DataArray):
        raise TypeError(
            f"weights must be an xarray.DataArray broadcastable against the labels, got {type(weights).__name__}"
        )
    if like is not None:
        try:
            xr.align(like, weights, join="exact", copy=False)
        except ValueError as exc:
            raise ValueError(
                f"the weights' coordinates disagree with the samples' ({exc}); give one weight per sample, "
                "with the same coordinates (align them first, e.g. with xarray.align)"
            ) from None
    name = weights.name if weights.name is not None else "weights"
    if weights.chunks is None:
        return weights.copy(data=check_weights(name, weights.values))
    return xr.apply_ufunc(lambda w: check_weights(name, w), weights, dask="parallelized", output_dtypes=[np.float64])
