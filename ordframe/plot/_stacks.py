"""Reading the stacked DataArrays that plots take: which dim gives panels, points or lines, and their labels."""

from __future__ import annotations

from collections.abc import Hashable, Sequence

import numpy as np
import xarray as xr

from ordframe._core.dims import METRIC_DIM


def label_text(value) -> str:
    """A coordinate value as it appears on a plot (floats without trailing zeros)."""
    if isinstance(value, (float, np.floating)):
        return f"{value:g}"
    return str(value)


def coord_values(obj: xr.DataArray, dim: Hashable) -> np.ndarray:
    """The labels along ``dim``: its coordinate, or positions 0, 1, ... when it has none."""
    return np.asarray(obj[dim].values) if dim in obj.coords else np.arange(obj.sizes[dim])


def line_labels(da: xr.DataArray, dims: list[Hashable]) -> tuple[xr.DataArray, list[str]]:
    """``da`` with its ``dims`` stacked into one leading dim ``_line``, and a readable label per line."""
    if not dims:
        return da.expand_dims("_line"), [""]
    stacked = da.stack(_line=dims).transpose("_line", ...)
    labels = []
    for key in stacked.indexes["_line"]:
        key = key if isinstance(key, tuple) else (key,)
        parts = [label_text(v) if len(dims) == 1 else f"{d}={label_text(v)}" for d, v in zip(dims, key)]
        labels.append(", ".join(parts))
    return stacked, labels


def stack_dim(obj: xr.DataArray, core: Sequence[Hashable], dim: Hashable | None, argument: str) -> Hashable | None:
    """The one dim that makes panels or points; the others beyond ``core`` must be absent or of size 1."""
    others = [d for d in obj.dims if d not in core]
    if dim is None:
        big = [d for d in others if obj.sizes[d] > 1]
        if len(big) > 1:
            raise ValueError(
                f"the input has several stack dims {tuple(others)}; pass {argument}= one of them and reduce or "
                f"select the others first (e.g. .sum({big[1]!r}) or .isel({big[1]}=0))"
            )
        return big[0] if big else (others[0] if others else None)
    if dim not in others:
        raise ValueError(f"{argument}={dim!r} is not a stack dim of the input; its dims are {tuple(obj.dims)}")
    rest = [d for d in others if d != dim and obj.sizes[d] > 1]
    if rest:
        raise ValueError(
            f"{argument}={dim!r} leaves other stack dims {tuple(rest)} of size > 1; reduce or select them first "
            f"(e.g. .sum({rest[0]!r}) or .isel({rest[0]}=0))"
        )
    return dim


def squeeze_except(obj, keep: Sequence[Hashable]):
    """``obj`` with every dim not in ``keep`` (all of size 1) selected away."""
    drop = [d for d in obj.dims if d not in keep]
    return obj.isel({d: 0 for d in drop}) if drop else obj


def one_metric(result: xr.Dataset, metric: Hashable | None) -> Hashable:
    """``metric``, checked against the ``metric`` dim of a result, or the only metric there is."""
    names = list(result[METRIC_DIM].values)
    if metric is None:
        if len(names) != 1:
            raise ValueError(f"result has several metrics {names}; pass metric= one of them")
        return names[0]
    if metric not in names:
        raise ValueError(f"metric={metric!r} is not in the result; it has {names}")
    return metric
