"""The values that the tests compare: a DataArray or Dataset of metric values over model, fold and data-set dims."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import xarray as xr

from ordframe._core.dims import OBSERVED_DIM, VERSUS_DIM
from ordframe._core.messages import show


def as_dataset(values) -> xr.Dataset:
    if isinstance(values, xr.DataArray):
        name = values.name if values.name is not None else values.attrs.get("metric", "value")
        return values.to_dataset(name=name)
    if not isinstance(values, xr.Dataset):
        raise TypeError(f"values must be an xarray DataArray or Dataset, got {type(values).__name__}")
    return values


def check_dims(name: Hashable, values: xr.DataArray, dims: Sequence[str], pairwise: bool = True) -> None:
    for d in dims:
        if d not in values.dims:
            hint = (
                f" (results of observed=True stack the groups in the dim {OBSERVED_DIM!r}: "
                f"use .unstack({OBSERVED_DIM!r}) first)"
                if OBSERVED_DIM in values.dims
                else ""
            )
            raise ValueError(f"{name!r} has no dim {d!r}; its dims are {tuple(values.dims)}{hint}")
    if pairwise and VERSUS_DIM in values.dims:
        raise ValueError(f"{name!r} already has a dim {VERSUS_DIM!r}, the name the pairwise results use")


def elementwise(function, *args) -> xr.DataArray:
    """An elementwise scipy function applied to DataArrays (and scalars)."""
    return xr.apply_ufunc(function, *args, dask="parallelized", output_dtypes=[np.float64])


def check_label(label, values: xr.DataArray, dim: str, what: str) -> None:
    """``label`` must be one of the coordinate values of ``values`` along ``dim`` (``what`` names the argument)."""
    if dim not in values.indexes:
        raise ValueError(
            f"{what}={label!r} needs the models to be labelled: {dim!r} has no coordinate; "
            f"label them, e.g. values.assign_coords({dim}=[...])"
        )
    labels = values.indexes[dim]
    if label not in labels:
        raise ValueError(f"{what}={label!r} is not a label along {dim!r}; the labels are {show(labels)}")


def check_complete(name: Hashable, values: xr.DataArray, model_dim: str, dim: str, test: str, models: int = 2) -> None:
    """At least ``models`` models and 2 data sets (along ``dim``), every model scored on every data set."""
    k, n = values.sizes[model_dim], values.sizes[dim]
    if k < models or n < 2:
        need = f"at least {models} models and 2 data sets" if models > 1 else "at least 2 data sets"
        raise ValueError(
            f"{name!r} has {k} models along {model_dim!r} and {n} data sets along {dim!r}; {test} needs {need}"
        )
    missing = int(values.isnull().sum())
    if missing:
        raise ValueError(
            f"{name!r} has {missing} missing (NaN) values out of {values.size}; {test} needs complete blocks (every "
            f"model scored on every {dim!r}): drop the incomplete ones, e.g. values.dropna({dim!r}), or fill them"
        )
