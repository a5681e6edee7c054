"""Heatmaps of the matrices of a confusion cube, one panel per model (or fold, ...), with the optimal OC / UOC path."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._bridge.apply import check_cube, cube_classes
from ordframe._core.dims import CUBE_DIMS, PRED, TRUE
from ordframe._core.docstrings import fill_doc
from ordframe.plot._figures import new_axes
from ordframe.plot._heatmap import (
    PATH_STYLE,
    MatrixStyle,
    cell_texts,
    check_path_arguments,
    draw_matrix,
    index_paths,
    shares_of_rows,
)
from ordframe.plot._stacks import coord_values, label_text, squeeze_except, stack_dim

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@fill_doc
def confusion(
    cube: xr.DataArray,
    *,
    normalize: str | None = None,
    path: str | None = "oc",
    beta: float | None = None,
    col: Hashable | None = None,
    axes=None,
    cmap: str = "Blues",
) -> Figure:
    """Heatmaps of confusion matrices (rows = true class), counts in the cells, with the optimal OC or UOC path.

    For one matrix made from predictions, an estimator or a cross-validation, see
    [`ConfusionDisplay`][ordframe.plot.ConfusionDisplay].

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube (dims ``(..., "true", "pred")``).
    normalize : None or "true"
        ``"true"`` colours each cell by its share of the true class (its row); the counts stay in the cells.
    path : "oc", "uoc" or None
        Draw the optimal path of that index ([`ordframe.oc_path`][ordframe.oc_path] /
        [`ordframe.uoc_path`][ordframe.uoc_path]) and give its value in the title; ``None`` draws no path.
    beta : float, optional
        The index's ``beta`` (default: the metric's default).
    col : str, optional
        The stack dim with one panel per element (default: the only stack dim, if any). Other stack dims must
        have size 1.
    {axes}
    cmap : str
        The matplotlib colour map; one colour scale is shared by all panels.

    {figure}

    Examples
    --------
    >>> import ordframe.plot
    >>> cube = xr.DataArray([[5, 2, 0], [1, 6, 2], [0, 1, 7]], dims=("true", "pred"))
    >>> fig = ordframe.plot.confusion(cube)
    >>> [ax.get_title() for ax in fig.axes[:1]]
    ['OC = 0.329 (beta = 0.75)']
    """
    check_cube(cube)
    check_path_arguments(path, beta, normalize)
    cube, _ = cube_classes(cube)  # predicted classes in the order of the true ones
    stack = stack_dim(cube, CUBE_DIMS, col, "col")
    cube = squeeze_except(cube, [d for d in (stack, TRUE, PRED) if d is not None]).transpose(..., TRUE, PRED)
    n = cube.sizes[stack] if stack is not None else 1
    side = 2.6 + 0.3 * cube.sizes[TRUE]  # inches per panel: room for the numbers of larger matrices
    fig, panel_axes = new_axes(n, axes, width=side + 1.4 / min(n, 4), height=side)  # + colour bar

    counts = cube.values.astype(np.float64).reshape(n, *cube.shape[-2:])
    if normalize == "true":
        shown, vmax, bar_label = shares_of_rows(counts), 1.0, "share of the true class (rows sum to 1)"
    else:
        shown, vmax, bar_label = counts, max(float(np.nanmax(counts)), 1.0), "number of samples"
    paths = index_paths(cube, path, beta, n) if path is not None else None
    labels = [label_text(v) for v in coord_values(cube, TRUE)]
    characters = max(len(t) for panel in counts for row in cell_texts(panel, None) for t in row)  # one font size
    image = None
    for i, ax in enumerate(panel_axes):
        drawn = draw_matrix(
            ax,
            counts[i],
            shown[i],
            labels,
            MatrixStyle(vmax, cmap, characters=characters),
            path_cells=None if paths is None else paths.of(i),
            path_name=path or "oc",
        )
        image = drawn.image
        if i == 0 or axes is not None:
            ax.set_ylabel("true class")
        title = []
        if stack is not None:
            title.append(f"{stack} = {label_text(coord_values(cube, stack)[i])}")
        if paths is not None:
            title.append(paths.title(i))
        ax.set_title("\n".join(title), fontsize=10)
    assert image is not None
    fig.colorbar(image, ax=panel_axes, label=bar_label, shrink=0.8)
    if path is not None:
        _path_legend(fig, panel_axes, path)
    return fig


def _path_legend(fig, panel_axes, path: str) -> None:
    """One legend entry for the path, under the panels."""
    from matplotlib.layout_engine import ConstrainedLayoutEngine
    from matplotlib.lines import Line2D

    legend = ([Line2D([], [], **PATH_STYLE)], [f"optimal {path.upper()} path (cells it collects)"])
    if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
        fig.legend(*legend, loc="outside lower center", frameon=False)  # the layout makes room for it
        return
    # under the middle panel of the bottom row, below its tick labels and axis label
    lowest = min(ax.get_position().y0 for ax in panel_axes)
    bottom_row = [ax for ax in panel_axes if ax.get_position().y0 < lowest + 0.01]
    middle = bottom_row[len(bottom_row) // 2]
    slanted = any(t.get_rotation() for t in middle.get_xticklabels())
    middle.legend(*legend, loc="upper center", bbox_to_anchor=(0.5, -0.45 if slanted else -0.2), frameon=False)
