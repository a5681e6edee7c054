"""George, Lu & Chang (2016)'s accuracy-cost plane: one point per model at (accuracy, MC)."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube
from ordframe._core.dims import CUBE_DIMS, PRED, TRUE
from ordframe._registry.manager import get_metric
from ordframe.plot._figures import new_axes, pyplot
from ordframe.plot._stacks import coord_values, label_text, squeeze_except, stack_dim

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def cost_plane(cube: xr.DataArray, *, model_dim: Hashable | None = None, cost=None, ax=None) -> Figure:
    """George, Lu & Chang (2016)'s plane: accuracy against misclassification cost (MC), one point per model.

    The ideal classifier sits at (1, 0); George's ``d`` is the distance to it (shown in the legend). Points
    on the line Acc + MC = 1 are no better than chance.

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube; ``model_dim`` (default: its only stack dim) gives one point per element.
    model_dim : str, optional
        The stack dim of the models. Other stack dims must have size 1.
    cost : array-like or DataArray, optional
        The cost matrix of ``mc`` (default: George's).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import ordframe.plot
    >>> cube = xr.DataArray(
    ...     [[[5, 2, 0], [1, 6, 2], [0, 1, 7]], [[3, 3, 1], [2, 4, 3], [1, 2, 5]]],
    ...     dims=("model", "true", "pred"),
    ...     coords={"model": ["a", "b"]},
    ... )
    >>> fig = ordframe.plot.cost_plane(cube)
    >>> fig.axes[0].get_xlabel()
    'accuracy (higher is better)'
    """
    check_cube(cube)
    stack = stack_dim(cube, CUBE_DIMS, model_dim, "model_dim")
    cube = squeeze_except(cube, [d for d in (stack, TRUE, PRED) if d is not None])
    params = {} if cost is None else {"cost": cost}
    accuracy = np.atleast_1d(np.asarray(apply_confusion(get_metric("accuracy"), cube, {}), dtype=np.float64))
    mc = np.atleast_1d(np.asarray(apply_confusion(get_metric("mc"), cube, params), dtype=np.float64))
    d = np.atleast_1d(np.asarray(apply_confusion(get_metric("d"), cube, params), dtype=np.float64))
    names = [label_text(v) for v in coord_values(cube, stack)] if stack is not None else ["model"]
    fig, (axis,) = new_axes(1, ax, width=5.5, height=5.0)
    axis.plot([0, 1], [1, 0], "--", color="grey", lw=1, label="chance line Acc + MC = 1 (shaded: worse)")
    axis.fill_between([0, 1], [1, 0], [1.05, 1.05], color="grey", alpha=0.08, lw=0)
    axis.plot([1], [0], "*", color="gold", mec="black", ms=16, zorder=5, label="ideal (Acc = 1, MC = 0)")
    colours = pyplot().rcParams["axes.prop_cycle"].by_key()["color"]
    for i, name in enumerate(names):
        colour = colours[i % len(colours)]
        axis.plot([accuracy[i], 1], [mc[i], 0], ":", color=colour, lw=1)
        axis.plot([accuracy[i]], [mc[i]], "o", color=colour, ms=8, zorder=4, label=f"{name}: d = {d[i]:.3f}", gid=name)
        axis.annotate(name, (accuracy[i], mc[i]), xytext=(6, 6), textcoords="offset points", fontsize=9, color=colour)
    axis.set_xlim(-0.02, 1.05)
    axis.set_ylim(-0.05, 1.05)
    axis.set_aspect("equal")
    axis.set_xlabel("accuracy (higher is better)")
    axis.set_ylabel("misclassification cost MC (lower is better)")
    axis.set_title("Accuracy-cost plane (George et al. 2016)\nd = distance to the ideal point (lower is better)")
    axis.legend(loc="upper left", fontsize=8)
    axis.grid(alpha=0.3)
    _separate(axis.texts)
    return fig


def _separate(labels) -> None:
    """Move point labels up, one line at a time, until none covers another."""
    if not labels:
        return
    labels[0].get_figure().draw_without_rendering()
    placed: list = []
    for label in labels:
        while any(label.get_window_extent().overlaps(other) for other in placed):
            x, y = label.xyann
            label.xyann = (x, y + 1.1 * label.get_fontsize())
        placed.append(label.get_window_extent())
