"""Bars of the samples per class: the true labels, and the labels each model predicts."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from ordframe._bridge.apply import check_cube, cube_classes
from ordframe._core.dims import CUBE_DIMS, MODEL_DIM, PRED, TRUE
from ordframe._core.docstrings import fill_doc
from ordframe.plot._figures import legend_outside, new_axes
from ordframe.plot._stacks import coord_values, label_text, squeeze_except, stack_dim
from ordframe.plot._styles import COLOURS

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: The true labels' bars: black outlines and hatching, told apart from the models' without colour.
TRUE_STYLE: dict[str, Any] = {"color": "white", "edgecolor": "black", "hatch": "///"}
HATCHES = ("", "..", "\\\\", "xx", "oo", "--", "++", "**")


@fill_doc
def class_counts(cube: xr.DataArray, *, model_dim: Hashable = MODEL_DIM, ax=None) -> Figure:
    """Bars of the samples per class: the true labels (hatched) beside the labels each model predicts.

    A model that puts almost every sample in one class (a majority-class baseline, a regression rounded to the
    middle) shows at a glance, as does a class with few true samples. The true labels get one bar per class when
    every model predicts the same samples (their rows of the cube sum alike), else one per model.

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube (dims ``(..., "true", "pred")``), e.g. ``df.ordinal.confusion("y", "yhat", by="model")``.
    model_dim : str
        The stack dim of the models: one bar per model and class (used only if the cube has it; otherwise its one
        stack dim of size > 1, if any).
    {ax}

    {figure}

    Examples
    --------
    >>> import ordframe.plot
    >>> cube = xr.DataArray(
    ...     [[[5, 1], [2, 2]], [[6, 0], [4, 0]]],
    ...     dims=("model", "true", "pred"),
    ...     coords={"model": ["tree", "majority"], "true": [0, 1], "pred": [0, 1]},
    ... )
    >>> fig = ordframe.plot.class_counts(cube)
    >>> [text.get_text() for text in fig.legends[0].get_texts()]
    ['true', 'tree (predicted)', 'majority (predicted)']
    """
    from matplotlib.layout_engine import ConstrainedLayoutEngine

    check_cube(cube)
    cube, _ = cube_classes(cube)
    stack = stack_dim(cube, CUBE_DIMS, model_dim if model_dim in cube.dims else None, "model_dim")
    cube = squeeze_except(cube, [d for d in (stack, TRUE, PRED) if d is not None])
    counts = cube.transpose(..., TRUE, PRED).values.astype(np.float64).reshape(-1, *cube.shape[-2:])
    models = [label_text(m) for m in coord_values(cube, stack)] if stack is not None else ["model"]
    true = counts.sum(axis=-1)
    shared = bool(np.all(true == true[0]))
    bars: list[tuple[str, np.ndarray, dict[str, Any]]] = [("true", true[0], TRUE_STYLE)] if shared else []
    for i, name in enumerate(models):
        if not shared:
            bars.append((f"{name} (true)", true[i], {**TRUE_STYLE, "edgecolor": COLOURS[i % len(COLOURS)]}))
        style = {"color": COLOURS[i % len(COLOURS)], "edgecolor": "black", "hatch": HATCHES[i % len(HATCHES)]}
        bars.append((f"{name} (predicted)" if stack is not None else "predicted", counts[i].sum(axis=-2), style))
    classes = [label_text(c) for c in coord_values(cube, TRUE)]
    fig, (axis,) = new_axes(1, ax, width=max(4.0, 0.2 * len(bars) * len(classes) + 1.5), height=3.6)
    width = 0.8 / len(bars)
    positions = np.arange(len(classes))
    for j, (label, heights, look) in enumerate(bars):
        axis.bar(positions + (j - (len(bars) - 1) / 2) * width, heights, width, label=label, lw=0.6, **look)
    axis.set_xticks(positions, classes)
    axis.set_xlabel("class")
    axis.set_ylabel("samples")
    axis.grid(axis="y", alpha=0.3)
    axis.set_axisbelow(True)
    axis.set_title("samples per class", fontsize=10)
    if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):  # a new figure: the legend under the axes
        fig.legend(loc="outside lower center", ncols=min(len(bars), 2), fontsize=8, frameon=False)
    else:
        legend_outside(axis, fontsize=8)
    return fig
