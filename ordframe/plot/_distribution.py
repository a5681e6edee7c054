"""Box plots of a metric's bootstrap or fold values, one box per model."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._core.checks import dims_list, direction_text
from ordframe._core.dims import BOOTSTRAP_DIM, MODEL_DIM
from ordframe._core.docstrings import fill_doc
from ordframe.plot._figures import new_axes
from ordframe.plot._stacks import coord_values, label_text, squeeze_except

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@fill_doc
def distribution(
    values: xr.DataArray,
    *,
    model_dim: Hashable = MODEL_DIM,
    dim: Hashable | list = BOOTSTRAP_DIM,
    points: bool | None = None,
    ax=None,
) -> Figure:
    """Box plots of a metric's bootstrap (or fold) values, one box per model.

    Parameters
    ----------
    values : xarray.DataArray
        A metric's values with dims ``model_dim`` and ``dim`` (e.g. ``boot.ordinal.oc()``); its ``direction`` attr
        goes into the y label.
    model_dim : str
        The dim of the models: one box each.
    dim : str or list of str
        The dim of the replicates or folds, summarised by each box, e.g. ``"bootstrap"`` or ``"fold"``; several
        dims (``["repeat", "fold"]``) are pooled into each box.
    points : bool, optional
        Also draw every value as a dot (default: when there are at most 50 per model).
    {ax}

    {figure}

    Examples
    --------
    >>> import ordframe.plot
    >>> mae = xr.DataArray(
    ...     [[0.50, 0.61], [0.42, 0.70], [0.55, 0.66]],
    ...     dims=("fold", "model"),
    ...     coords={"model": ["a", "b"]},
    ...     name="mae",
    ...     attrs={"direction": "lower is better"},
    ... )
    >>> fig = ordframe.plot.distribution(mae, dim="fold")
    >>> fig.axes[0].get_ylabel()
    'mae (lower is better)'
    """
    if not isinstance(values, xr.DataArray):
        raise TypeError(f"values must be an xarray.DataArray of metric values, got {type(values).__name__}")
    pooled = dims_list(dim)
    missing = [d for d in (model_dim, *pooled) if d not in values.dims]
    if missing:
        shown = repr(pooled[0]) if len(pooled) == 1 else pooled
        raise ValueError(
            f"values need dims {model_dim!r} (the models) and {shown} (the replicates or folds); missing "
            f"{missing}, the dims are {tuple(values.dims)}"
        )
    rest = [d for d in values.dims if d not in (model_dim, *pooled) and values.sizes[d] > 1]
    if rest:
        raise ValueError(
            f"values have other dims {tuple(rest)}; select one element first (.isel({rest[0]}=0)), or pool them "
            f"into each box: dim={[*pooled, rest[0]]}"
        )
    values = squeeze_except(values, [model_dim, *pooled]).transpose(model_dim, *pooled)
    dim = " x ".join(map(str, pooled))
    values = xr.DataArray(
        values.values.reshape(values.sizes[model_dim], -1),
        dims=(model_dim, dim),
        coords={model_dim: values[model_dim]} if model_dim in values.coords else {},
        name=values.name,
        attrs=values.attrs,
    )
    names = [label_text(v) for v in coord_values(values, model_dim)]
    data = [row[~np.isnan(row)] for row in values.values.astype(np.float64)]
    fig, (axis,) = new_axes(1, ax, width=max(4.0, 1.2 * len(names) + 2), height=4.0)
    show_points = points if points is not None else max((len(x) for x in data), default=0) <= 50
    boxes = axis.boxplot(data, showfliers=not show_points, widths=0.5)
    axis.set_xticks(range(1, len(names) + 1), names)
    for name, median in zip(names, boxes["medians"]):
        median.set_gid(f"median-{name}")
    if show_points:
        rng = np.random.default_rng(0)
        for i, (name, x) in enumerate(zip(names, data), start=1):
            jitter = rng.uniform(-0.12, 0.12, len(x))
            axis.plot(i + jitter, x, "o", ms=3.5, alpha=0.6, color="tab:blue", gid=f"points-{name}")
    metric = values.name or values.attrs.get("metric", "value")
    direction = direction_text(values.attrs)
    axis.set_ylabel(f"{metric} ({direction})" if direction else str(metric))
    axis.set_xlabel(str(model_dim))
    axis.set_title(f"{metric} over {values.sizes[dim]} {dim} values per {model_dim}")
    axis.grid(axis="y", alpha=0.3)
    return fig
