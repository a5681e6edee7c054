"""Demšar (2006)'s critical-difference diagram of the average ranks of ``ordframe.friedman``."""

from __future__ import annotations

from collections.abc import Hashable
from typing import TYPE_CHECKING

import numpy as np
import xarray as xr

from ordframe._core.dims import METRIC_DIM
from ordframe._core.docstrings import fill_doc
from ordframe.plot._figures import new_axes
from ordframe.plot._stacks import coord_values, label_text, one_metric

if TYPE_CHECKING:
    from matplotlib.figure import Figure


def _cliques(ranks: np.ndarray, cd: float) -> list[tuple[int, int]]:
    """Maximal runs ``(i, j)`` of the sorted ``ranks`` whose spread is below ``cd`` (at least two models)."""
    found: list[tuple[int, int]] = []
    for i in range(len(ranks)):
        j = i
        while j + 1 < len(ranks) and ranks[j + 1] - ranks[i] < cd:
            j += 1
        if j > i and (not found or j > found[-1][1]):
            found.append((i, j))
    return found


@fill_doc
def critical_difference(result: xr.Dataset, *, metric: Hashable | None = None, ax=None) -> Figure:
    """Demšar (2006)'s critical-difference diagram from the Dataset of [`ordframe.friedman`][ordframe.friedman].

    The models sit at their average rank (1 = best) on an axis 1..k; the bar at the top has the length of the
    Nemenyi critical difference (CD), and a thick line joins models whose average ranks differ by less than CD
    (not significantly different). For a result of ``friedman(..., control=...)`` the bar is the
    Bonferroni-Dunn CD instead, and the thick line spans the control's rank -/+ that CD: the models outside it
    differ significantly from the control (Demšar 2006, Fig. 2).

    Parameters
    ----------
    result : xarray.Dataset
        The output of ``ordframe.friedman``.
    metric : str, optional
        Which metric of ``result`` (needed when it has several).
    {ax}

    {figure}

    Examples
    --------
    >>> import ordframe.plot
    >>> from ordframe import friedman
    {dataset_values}
    >>> fig = ordframe.plot.critical_difference(friedman(auc))
    >>> fig.axes[0].get_title()
    'auc: average rank over 5 dataset values (1 = best; Iman-Davenport p = 0.017)\\nNemenyi CD = 1.482 at level = 0.95'
    >>> fig = ordframe.plot.critical_difference(friedman(auc, control="a"))
    >>> fig.axes[0].get_title().splitlines()[1]
    'Bonferroni-Dunn CD = 1.418 against a at level = 0.95'
    """
    if not isinstance(result, xr.Dataset) or "average_rank" not in result or "critical_difference" not in result:
        raise TypeError(
            "critical_difference plots the Dataset of ordframe.friedman(...) (variables 'average_rank' and "
            f"'critical_difference'), got {type(result).__name__}"
        )
    if METRIC_DIM in result.dims:
        metric = one_metric(result, metric)
        result = result.sel({METRIC_DIM: metric})
    rank = result["average_rank"]
    model_dims = [d for d in rank.dims]
    if len(model_dims) != 1:
        raise ValueError(
            f"average_rank has dims {tuple(rank.dims)}; select one element of the extra dims first so that only the "
            "models remain"
        )
    (models,) = model_dims
    control = result.attrs.get("control") if "bonferroni_dunn_cd" in result else None
    cd = float(result["bonferroni_dunn_cd"] if control is not None else result["critical_difference"])
    ranks = rank.values.astype(np.float64)
    order = np.argsort(ranks, kind="stable")
    labels = coord_values(rank, models)[order]
    names = [label_text(v) for v in labels]
    ranks = ranks[order]
    k = len(ranks)
    half = (k + 1) // 2
    height = 1.0 + 0.35 * half
    fig, (axis,) = new_axes(1, ax, width=7.0, height=height + 0.9)
    # the rank axis at y = 0, models below it (negative y)
    axis.plot([1, k], [0, 0], color="black", lw=1)
    for r in range(1, k + 1):
        axis.plot([r, r], [0, 0.08], color="black", lw=1)
        axis.text(r, 0.12, str(r), ha="center", va="bottom", fontsize=9)
    for tick in np.arange(1.5, k, 1.0):
        axis.plot([tick, tick], [0, 0.04], color="black", lw=0.7)
    # the CD bar above the axis, starting at rank 1
    bar_y = 0.55
    axis.plot([1, 1 + cd], [bar_y, bar_y], color="black", lw=1.5, gid="cd-bar")
    for end in (1, 1 + cd):
        axis.plot([end, end], [bar_y - 0.05, bar_y + 0.05], color="black", lw=1.5)
    axis.text(1 + cd / 2, bar_y + 0.08, f"CD = {cd:.3f}", ha="center", va="bottom", fontsize=9)
    # the models: the better half on the left, the rest on the right
    step = 0.35
    cliques = _cliques(ranks, cd) if control is None else [(0, 0)]  # one line: the control's interval
    first = -0.25 - step * max(len(cliques), 1) * 0.5
    for i, (name, r) in enumerate(zip(names, ranks)):
        left = i < half
        row = i if left else k - 1 - i
        y = first - step * row
        x_text = 0.6 if left else k + 0.4
        axis.plot([r, r, x_text], [0, y, y], color="black", lw=0.8, gid=f"model-{name}")
        axis.text(
            x_text + (-0.05 if left else 0.05),
            y,
            f"{name} ({r:.2f})",
            ha="right" if left else "left",
            va="center",
            fontsize=9,
        )
    if control is not None:  # the control's rank -/+ CD: the models outside differ significantly from it
        centre = ranks[[str(v) for v in labels].index(control)]  # friedman stores str(control)
        axis.plot(
            [max(1.0, centre - cd), min(float(k), centre + cd)],
            [-0.12, -0.12],
            color="tab:red",
            lw=4,
            solid_capstyle="round",
            gid="control-interval",
        )
    # cliques: thick lines just below the axis
    for j, (a, b) in enumerate(cliques if control is None else []):
        y = -0.12 - 0.5 * step * j
        axis.plot([ranks[a] - 0.03, ranks[b] + 0.03], [y, y], color="black", lw=4, solid_capstyle="round", gid="clique")
    axis.set_xlim(-0.9, k + 1.9)
    axis.set_ylim(first - step * (half - 1) - 0.3, bar_y + 0.35)
    axis.axis("off")
    axis.set_title(_cd_title(result, metric, cd, control), fontsize=10)
    return fig


def _cd_title(result: xr.Dataset, metric, cd: float, control) -> str:
    over, blocks = result.attrs.get("blocks_dim"), result.attrs.get("blocks")
    head = f"{metric}: average rank" if metric is not None else "Average rank"
    if over:
        head += f" over {blocks} {over} values" if blocks else f" over {over}"
    omnibus = "iman_davenport_p_value"  # Demšar (2006) reports it: the chi-square p-value is conservative
    head += " (1 = best" + (f"; Iman-Davenport p = {float(result[omnibus]):.3f})" if omnibus in result else ")")
    level = result.attrs.get("level")
    kind = "Nemenyi CD" if control is None else "Bonferroni-Dunn CD"
    tail = f"{kind} = {cd:.3f}" + (f" against {control}" if control is not None else "")
    tail += f" at level = {level:g}" if level is not None else ""
    return f"{head}\n{tail}"
