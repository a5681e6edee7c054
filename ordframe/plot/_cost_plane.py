"""George, Lu & Chang (2016)'s accuracy-cost plane: one point per model at (accuracy, MC).

The ideal classifier sits at (1, 0) and George's d is a point's distance to
it. The paper's line of random chance, Acc + MC = 1, runs from (0, 1) to
(1, 0), through the ideal point itself; the paper uses the distance from it,
|Acc + MC - 1| / sqrt 2, on either side of it, only to break ties in d (the
farther point wins). So the plot draws the line without calling either side
worse, and gives each model's d and chance distance in the legend.
"""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube
from ordframe._core.dims import CUBE_DIMS, PRED, TRUE
from ordframe._core.docstrings import fill_doc
from ordframe._registry.manager import get_metric
from ordframe.plot._figures import legend_height, legend_outside, new_axes
from ordframe.plot._placement import place_labels
from ordframe.plot._stacks import coord_values, label_text, squeeze_except, stack_dim
from ordframe.plot._styles import marker_styles

if TYPE_CHECKING:
    from matplotlib.figure import Figure

CHANCE_LINE = "line of random chance, Acc + MC = 1:\nfor equal d, the point farther from it\n(on either side) is better"
"""The legend entry of the chance line, in the words of George, Lu & Chang (2016)'s tie-break."""

POINT_SIZE = 8.0
IDEAL_SIZE = 16.0


@fill_doc
def cost_plane(cube: xr.DataArray, *, model_dim: Hashable | None = None, cost=None, ax=None) -> Figure:
    """George, Lu & Chang (2016)'s plane: accuracy against misclassification cost (MC), one point per model.

    The ideal classifier sits at (1, 0); George's ``d`` (lower is better) is the distance to it. The dashed
    line Acc + MC = 1 is the paper's line of random chance; it runs through the ideal point, and the paper
    uses the distance from it, on either side, only to break ties in ``d``: of two models with equal ``d``,
    the one farther from the line is better (the ``chance_distance`` metric). The legend
    gives both values for every model. Labels are placed next to their points without covering one another
    (a label that had to move away is joined to its point by a thin line).

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube; ``model_dim`` (default: its only stack dim) gives one point per element.
    model_dim : str, optional
        The stack dim of the models. Other stack dims must have size 1.
    cost : array-like or DataArray, optional
        The cost matrix of ``mc`` (default: George's).
    {ax}

    {figure}

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

    def values(name: str, given: dict) -> np.ndarray:
        return np.atleast_1d(np.asarray(apply_confusion(get_metric(name), cube, given), dtype=np.float64))

    accuracy, mc, d = values("accuracy", {}), values("mc", params), values("d", params)
    chance = values("chance_distance", params)
    names = [label_text(v) for v in coord_values(cube, stack)] if stack is not None else ["model"]
    width = 5.0 + 0.065 * max(len(CHANCE_LINE.splitlines()[1]), *(len(n) + 35 for n in names))  # + the legend
    height = max(5.0, legend_height(len(names) + len(CHANCE_LINE.splitlines()) + 1))
    fig, (axis,) = new_axes(1, ax, width=width, height=height)
    axis.plot([0, 1], [1, 0], "--", color="grey", lw=1, label=CHANCE_LINE, gid="chance_line")
    axis.plot([1], [0], "*", color="gold", mec="black", ms=IDEAL_SIZE, zorder=5, label="ideal (Acc = 1, MC = 0)")
    styles = marker_styles(len(names))
    colours = [style["color"] for style in styles]
    for i, name in enumerate(names):
        axis.plot([accuracy[i], 1], [mc[i], 0], ":", color=colours[i], lw=1)
        axis.plot(
            [accuracy[i]],
            [mc[i]],
            ls="",
            ms=POINT_SIZE,
            mec="white",
            mew=0.8,
            zorder=4,
            **styles[i],
            label=f"{name}: d = {d[i]:.3f}, chance distance = {chance[i]:.3f}",
            gid=name,
        )
    axis.set_xlim(-0.02, 1.05)
    axis.set_ylim(-0.05, 1.05)
    axis.set_aspect("equal")
    axis.set_xlabel("accuracy (higher is better)")
    axis.set_ylabel("misclassification cost MC (lower is better)")
    axis.set_title("Accuracy-cost plane (George, Lu & Chang 2016)\nd = distance to the ideal point (lower is better)")
    legend_outside(axis, fontsize=8)
    axis.grid(alpha=0.3)
    shown = np.isfinite(accuracy) & np.isfinite(mc)
    place_labels(
        axis,
        np.column_stack([accuracy, mc])[shown],
        [n for n, s in zip(names, shown) if s],
        [c for c, s in zip(colours, shown) if s],
        marker_size=POINT_SIZE,
        obstacles=[(1.0, 0.0, IDEAL_SIZE)],
        lines=[(0.0, 1.0, 1.0, 0.0)] + [(a, m, 1.0, 0.0) for a, m in zip(accuracy[shown], mc[shown])],
    )
    return fig
