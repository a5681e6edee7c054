"""Reliability diagrams of ordinal probabilities: one panel per cumulative threshold, with consistency bands."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._core.dims import COMPONENT_DIM, POINT_DIM, THRESHOLD_DIM
from ordframe.plot._figures import legend_outside, new_axes
from ordframe.plot._stacks import label_text, line_labels
from ordframe.plot._styles import line_styles

if TYPE_CHECKING:
    from matplotlib.figure import Figure

_CURVE = ("forecast", "observed", "lower", "upper")
_SHORT = {
    "miscalibration": "MCB",
    "discrimination": "DSC",
    "uncertainty": "UNC",
    "reliability": "REL",
    "resolution": "RES",
}


def reliability(curves: xr.Dataset, *, axes=None) -> Figure:
    """Reliability diagrams of ``df.ordinal.reliability(...)`` / ``proba.ordinal.reliability(...)``, one panel per threshold.

    In the panel of threshold ``k``, x is the forecast ``P(Y <= k)`` and y its recalibrated value: the isotonic
    (PAV) fit of the outcomes ``1{Y <= k}``, drawn as steps (``corp``), or the observed frequency of every
    distinct forecast (``binned``). A calibrated forecast lies on the diagonal; the shaded consistency band
    holds the central share of the curves of outcomes drawn from the forecasts themselves (Dimitriadis,
    Gneiting & Jordan 2021), so a curve outside it shows miscalibration beyond sampling noise. The panel's
    text gives the Brier score and its decomposition; ticks under the axis show where the forecasts lie.
    Every other dim (model, a ``by`` column, ...) gives a curve of its own colour and line style.

    Parameters
    ----------
    curves : xarray.Dataset
        With variables ``forecast``, ``observed``, ``lower``, ``upper`` (dims ``threshold``, ``point``) and ``brier``.
    axes : matplotlib Axes or sequence of Axes, optional
        One per threshold.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import ordframe.plot
    >>> df = pd.DataFrame({"y": [0, 1, 2, 2, 1, 0, 1, 2], "p0": [0.7, 0.2, 0.1, 0.2, 0.3, 0.5, 0.1, 0.1]})
    >>> df["p1"] = 0.2
    >>> df["p2"] = 1 - df["p0"] - df["p1"]
    >>> fig = ordframe.plot.reliability(df.ordinal.reliability("y", ["p0", "p1", "p2"], seed=0))
    >>> len(fig.axes)
    2
    """
    if not isinstance(curves, xr.Dataset) or any(v not in curves for v in (*_CURVE, "brier")):
        raise TypeError(
            "reliability plots the Dataset of df.ordinal.reliability(...) or proba.ordinal.reliability(...) "
            f"(variables {list(_CURVE)} and 'brier'), got {type(curves).__name__}"
        )
    forecast = curves["forecast"]
    others = [d for d in forecast.dims if d not in (THRESHOLD_DIM, POINT_DIM)]
    stacked = {name: line_labels(curves[name].transpose(..., THRESHOLD_DIM, POINT_DIM), others)[0] for name in _CURVE}
    brier, labels = line_labels(curves["brier"].transpose(..., THRESHOLD_DIM, COMPONENT_DIM), others)
    thresholds = curves[THRESHOLD_DIM].values
    fig, panels = new_axes(len(thresholds), axes, width=4.2, height=4.2)
    styles = line_styles([forecast.sizes[d] for d in others])
    steps = curves.attrs.get("method", "corp") == "corp"
    components = [str(c) for c in curves[COMPONENT_DIM].values]
    for k, (threshold, ax) in enumerate(zip(thresholds, panels)):
        ax.plot([0, 1], [0, 1], color="0.55", lw=0.9, ls=(0, (4, 3)), zorder=1)
        lines = []
        for i, label in enumerate(labels):
            x, y, lo, hi = (stacked[name].values[i, k] for name in _CURVE)
            keep = ~np.isnan(x)
            x, y, lo, hi = x[keep], y[keep], lo[keep], hi[keep]
            colour = styles[i]["color"]
            ax.fill_between(x, lo, hi, color=colour, alpha=0.18, lw=0, zorder=2, step="post" if steps else None)
            draw = ax.step if steps else ax.plot
            kwargs = {"where": "post"} if steps else {"marker": "o", "ms": 3}
            (line,) = draw(x, y, lw=1.8, zorder=3, gid=label or "curve", **kwargs, **styles[i])
            lines.append(line)
            ax.plot(x, np.full(len(x), -0.025 - 0.02 * i), "|", color=colour, ms=4, mew=0.6, alpha=0.25, clip_on=False)
        if len(labels) == 1:
            values = brier.values[0, k]
            text = "\n".join(
                f"{_SHORT.get(c, c)} {v:.3f}" if c != "score" else f"Brier {v:.3f}" for c, v in zip(components, values)
            )
            ax.text(0.04, 0.96, text, transform=ax.transAxes, va="top", ha="left", fontsize=8, family="monospace")
        ax.set_xlim(-0.01, 1.01)
        ax.set_ylim(-0.06, 1.01)
        ax.set_aspect("equal")
        ax.set_xlabel(f"forecast P(Y ≤ {label_text(threshold)})")
        ax.set_ylabel("recalibrated (observed) probability" if k == 0 else "")
        ax.set_title(f"threshold {label_text(threshold)}: event Y ≤ {label_text(threshold)}", fontsize=10)
        ax.grid(alpha=0.25)
        if len(labels) > 1 and k == len(thresholds) - 1:
            legend_outside(ax, lines, labels, fontsize=8, handlelength=3.0)
    level = curves.attrs.get("level")
    if level is not None:
        fig.suptitle(f"Reliability per threshold ({level:.0%} consistency bands)", fontsize=11)
    return fig
