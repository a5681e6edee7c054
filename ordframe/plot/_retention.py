"""Retained-samples curves (Galdran 2023) and their areas, one line per model and score, told apart at a glance."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._core.checks import direction_text, target_of
from ordframe._core.dims import RETAINED_DIM
from ordframe._core.docstrings import fill_doc
from ordframe.plot._figures import legend_height, legend_outside, new_axes
from ordframe.plot._stacks import line_labels
from ordframe.plot._styles import line_styles

if TYPE_CHECKING:
    from matplotlib.figure import Figure


@fill_doc
def retention(curves: xr.Dataset, *, ax=None) -> Figure:
    """The retained-samples curves of ``df.ordinal.aursc(...)`` / ``proba.ordinal.aursc(...)``, one line each.

    x is the fraction of samples kept (the worst under the score removed first), from 1 down; the legend, to
    the right of the axes, gives each curve's area (AURSC). Every curve has its own pair of colour and line
    style (up to 80 curves, with a warning beyond): with two dims, such as models and scores, the longer one
    sets the colour and the shorter one the line style, so a model keeps its colour across scores (up to
    20 x 4).

    Parameters
    ----------
    curves : xarray.Dataset
        With variables ``curve`` (dim ``retained``) and ``aursc``; every other dim (model, score, ...) gives lines.
    {ax}

    {figure}

    Examples
    --------
    >>> import ordframe.plot
    {proba_frame}
    >>> fig = ordframe.plot.retention(df.ordinal.aursc("y", ["p0", "p1", "p2"], metric="mae"))
    >>> len(fig.axes[0].get_lines())
    1
    """
    if not isinstance(curves, xr.Dataset) or "curve" not in curves or "aursc" not in curves:
        raise TypeError(
            "retention plots the Dataset of df.ordinal.aursc(...) or proba.ordinal.aursc(...) (variables 'curve' "
            f"and 'aursc'), got {type(curves).__name__}"
        )
    curve = curves["curve"]
    if RETAINED_DIM not in curve.dims:
        raise ValueError(f"'curve' needs a {RETAINED_DIM!r} dim, got dims {tuple(curve.dims)}")
    others = [d for d in curve.dims if d != RETAINED_DIM]
    lines, labels = line_labels(curve.transpose(..., RETAINED_DIM), others)
    areas, _ = line_labels(curves["aursc"].broadcast_like(curve.isel({RETAINED_DIM: 0}, drop=True)), others)
    retained = curve[RETAINED_DIM].values
    order = np.argsort(retained)[::-1]
    metric = curves.attrs.get("metric", curve.attrs.get("metric", "metric"))
    best = target_of(curve.attrs)  # a metric with a target: its area is that of the distance from it
    area_of = "AURSC" if best is None else f"AURSC of |{metric} - {best:g}|"
    entries = [f"{label or 'curve'}: {area_of} = {float(area):.3f}" for label, area in zip(labels, areas.values)]
    width = 5.5 + 0.065 * max(len(e) for e in entries)  # inches: the axes, and the legend beside them
    fig, (axis,) = new_axes(1, ax, width=width, height=max(4.0, legend_height(len(entries))))
    styles = line_styles([curve.sizes[d] for d in others])
    for i, (label, entry) in enumerate(zip(labels, entries)):
        axis.plot(retained[order], lines.values[i][order], lw=1.8, label=entry, gid=label or "curve", **styles[i])
    axis.set_xlim(retained.max(), retained.min())
    score = curves.attrs.get("score")
    direction = direction_text(curve.attrs)
    axis.set_xlabel(
        "fraction of samples retained" + (f" (samples with the worst {score} removed first)" if score else "")
    )
    axis.set_ylabel(f"{metric} on the retained samples" + (f"\n({direction})" if direction else ""))
    axis.set_title("Retention curves: does the score find the bad predictions?")
    legend_outside(axis, fontsize=8, handlelength=3.0)  # long enough handles to show the line style
    axis.grid(alpha=0.3)
    return fig
