"""OC or UOC against its ``beta`` parameter: does a ranking of models depend on it?"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube
from ordframe._core.docstrings import fill_doc
from ordframe._registry.manager import get_metric
from ordframe.plot._figures import new_axes
from ordframe.plot._heatmap import INDEX_DEFAULTS
from ordframe.plot._stacks import line_labels

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@fill_doc
def beta_profile(cube: xr.DataArray, *, index: str = "oc", betas=None, gamma: float | None = None, ax=None) -> Figure:
    """OC or UOC of every matrix against its ``beta`` parameter, one line per model (per stack element).

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube; all its stack dims give lines.
    index : "oc" or "uoc"
    betas : array-like, optional
        The values of ``beta`` (>= 0), default ``numpy.linspace(0, 1, 21)``.
    gamma : float, optional
        The index's ``gamma`` (default: the metric's default).
    {ax}

    {figure}

    Examples
    --------
    >>> import ordframe.plot
    >>> cube = xr.DataArray([[5, 2, 0], [1, 6, 2], [0, 1, 7]], dims=("true", "pred"))
    >>> fig = ordframe.plot.beta_profile(cube, index="uoc")
    >>> fig.axes[0].get_ylabel()
    'uoc (lower is better)'
    """
    check_cube(cube)
    if index not in INDEX_DEFAULTS:
        raise ValueError(f"index must be 'oc' or 'uoc', got {index!r}")
    grid = np.asarray(np.linspace(0, 1, 21) if betas is None else betas, dtype=np.float64)
    if grid.ndim != 1 or len(grid) < 2 or np.isnan(grid).any() or (grid < 0).any():
        raise ValueError(f"betas must be at least two values >= 0, got {betas!r}")
    params: dict[str, Any] = {} if gamma is None else {"gamma": gamma}
    metric = get_metric(index)
    profile = xr.concat([apply_confusion(metric, cube, {"beta": float(b), **params}) for b in grid], dim="beta")
    profile = profile.assign_coords(beta=grid)
    others = [d for d in profile.dims if d != "beta"]
    lines, labels = line_labels(profile.transpose(..., "beta"), others)
    fig, (axis,) = new_axes(1, ax, width=6.0, height=4.0)
    for i, label in enumerate(labels):
        axis.plot(grid, lines.values[i], lw=1.8, label=label or index, gid=label or index)
    default = INDEX_DEFAULTS[index]["beta"]
    axis.axvline(default, color="grey", ls=":", lw=1)
    axis.annotate(
        f"default beta = {default:g}", (default, 0), xycoords=("data", "axes fraction"), xytext=(3, 4),
        textcoords="offset points", fontsize=8, color="grey",
    )  # fmt: skip
    axis.set_xlabel("beta (weight of the path's distance to the diagonal)")
    axis.set_ylabel(f"{index} (lower is better)")
    used_gamma = gamma if gamma is not None else INDEX_DEFAULTS[index]["gamma"]
    axis.set_title(f"{index.upper()} against beta (gamma = {used_gamma:g})")
    if others:
        axis.legend(fontsize=8)
    axis.grid(alpha=0.3)
    return fig
