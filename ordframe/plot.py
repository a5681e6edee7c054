"""Plots of ordframe results with matplotlib (optional: ``pip install "ordframe[plot]"``).

Every function returns the matplotlib ``Figure`` and draws on new axes unless
``ax=`` (or ``axes=``) is given. matplotlib is imported only when a function
is called, so ``import ordframe.plot`` works without it.

- [`confusion`][confusion]: heatmaps of confusion matrices with the optimal OC / UOC path.
- [`cost_plane`][cost_plane]: George, Lu & Chang (2016)'s accuracy-cost plane.
- [`retention`][retention]: retained-samples curves and their area (AURSC).
- [`beta_profile`][beta_profile]: OC or UOC against its ``beta`` parameter.
- [`distribution`][distribution]: box plots of bootstrap or fold values per model.
- [`critical_difference`][critical_difference]: Demšar (2006)'s critical-difference diagram.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion, check_cube
from ordframe._core.checks import direction_text
from ordframe._core.dims import BOOTSTRAP_DIM, CUBE_DIMS, MODEL_DIM, PRED, TRUE
from ordframe._diagnostics.oc_paths import _OC, _UOC, oc_path, uoc_path
from ordframe._registry.manager import get_metric

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["beta_profile", "confusion", "cost_plane", "critical_difference", "distribution", "retention"]

_INDEX_DEFAULTS = {"oc": _OC, "uoc": _UOC}
_PATHS = {"oc": oc_path, "uoc": uoc_path}


def _pyplot():
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:  # pragma: no cover - matplotlib is installed in the test environment
        raise ImportError('ordframe.plot needs matplotlib: pip install "ordframe[plot]"') from err
    return plt


def _axes(n: int, axes, *, width: float = 4.0, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    """``n`` axes: the ones given (one Axes or a sequence of ``n``), or a new figure of up to 4 per row.

    A new figure has matplotlib's constrained layout, so labels, legends and colour bars fit inside it.
    """
    plt = _pyplot()
    if axes is None:
        ncols = min(n, 4)
        nrows = -(-n // ncols)
        fig, grid = plt.subplots(
            nrows, ncols, figsize=(width * ncols, height * nrows), squeeze=False, layout="constrained"
        )
        flat = list(grid.ravel())
        for extra in flat[n:]:
            extra.remove()
        return fig, flat[:n]
    given = [axes] if not isinstance(axes, (Sequence, np.ndarray)) else list(np.ravel(np.asarray(axes, dtype=object)))
    if len(given) != n:
        raise ValueError(f"this plot has {n} panel(s) but {len(given)} axes were given; pass {n} axes or none")
    fig = given[0].get_figure()
    return fig, given


def _cell_fontsize(ax: Axes, k: int, characters: int) -> float:
    """The font size (points) at which ``characters`` digits fit in one of the ``k`` x ``k`` cells of ``ax``: 4 to 9."""
    ax.apply_aspect()  # the square cells' final size
    cell = min(ax.bbox.width, ax.bbox.height) / k * 72 / ax.figure.dpi  # points
    return float(np.clip(cell / (0.8 * max(characters, 2) + 0.6), 4, 9))  # a digit is about 0.6 em wide, plus margins


def _label(value) -> str:
    if isinstance(value, (float, np.floating)):
        return f"{value:g}"
    return str(value)


def _coord(obj: xr.DataArray, dim: Hashable) -> np.ndarray:
    """The labels along ``dim``: its coordinate, or positions 0, 1, ... when it has none."""
    return np.asarray(obj[dim].values) if dim in obj.coords else np.arange(obj.sizes[dim])


def _line_labels(da: xr.DataArray, dims: list[Hashable]) -> tuple[xr.DataArray, list[str]]:
    """``da`` with its ``dims`` stacked into one leading dim ``_line``, and a readable label per line."""
    if not dims:
        return da.expand_dims("_line"), [""]
    stacked = da.stack(_line=dims).transpose("_line", ...)
    labels = []
    for key in stacked.indexes["_line"]:
        key = key if isinstance(key, tuple) else (key,)
        parts = [_label(v) if len(dims) == 1 else f"{d}={_label(v)}" for d, v in zip(dims, key)]
        labels.append(", ".join(parts))
    return stacked, labels


def _stack_dim(obj: xr.DataArray, core: Sequence[Hashable], dim: Hashable | None, argument: str) -> Hashable | None:
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


def _squeeze_except(obj, keep: Sequence[Hashable]):
    drop = [d for d in obj.dims if d not in keep]
    return obj.isel({d: 0 for d in drop}) if drop else obj


# --- confusion matrices -------------------------------------------------------------------------------------------


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

    Parameters
    ----------
    cube : xarray.DataArray
        A confusion cube (dims ``(..., "true", "pred")``).
    normalize : None or "true"
        ``"true"`` colours each cell by its share of the true class (its row); the counts stay in the cells.
    path : "oc", "uoc" or None
        Draw the optimal path of that index ([`ordframe.oc_path`][ordframe.oc_path] / [`ordframe.uoc_path`][ordframe.uoc_path]) and give its
        value in the title; ``None`` draws no path.
    beta : float, optional
        The index's ``beta`` (default: the metric's default).
    col : str, optional
        The stack dim with one panel per element (default: the only stack dim, if any). Other stack dims must
        have size 1.
    axes : matplotlib Axes or sequence of Axes, optional
        One per panel.
    cmap : str
        The matplotlib colour map; one colour scale is shared by all panels.

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import ordframe.plot
    >>> cube = xr.DataArray([[5, 2, 0], [1, 6, 2], [0, 1, 7]], dims=("true", "pred"))
    >>> fig = ordframe.plot.confusion(cube)
    >>> [ax.get_title() for ax in fig.axes[:1]]
    ['OC = 0.329 (beta = 0.75)']
    """
    check_cube(cube)
    if normalize not in (None, "true"):
        raise ValueError(f"normalize must be None or 'true' (each row sums to 1), got {normalize!r}")
    if path not in (None, "oc", "uoc"):
        raise ValueError(f"path must be 'oc', 'uoc' or None, got {path!r}")
    if beta is not None and path is None:
        raise ValueError("beta is the parameter of the path's index; pass path='oc' or 'uoc' with it")
    stack = _stack_dim(cube, CUBE_DIMS, col, "col")
    cube = _squeeze_except(cube, [d for d in (stack, TRUE, PRED) if d is not None]).transpose(..., TRUE, PRED)
    panels = [cube.isel({stack: i}) for i in range(cube.sizes[stack])] if stack is not None else [cube]
    side = 2.6 + 0.3 * cube.sizes[TRUE]  # inches per panel: room for the numbers of larger matrices
    fig, panel_axes = _axes(len(panels), axes, width=side + 1.4 / min(len(panels), 4), height=side)  # + colour bar

    counts = cube.values.astype(np.float64)
    if normalize == "true":
        rows = counts.sum(axis=-1, keepdims=True)
        shown = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
        vmax, bar_label = 1.0, "share of the true class (rows sum to 1)"
    else:
        shown = counts
        vmax, bar_label = max(float(np.nanmax(counts)), 1.0), "number of samples"
    shown = shown.reshape(len(panels), *counts.shape[-2:])
    params = {} if beta is None else {"beta": beta}
    if path is not None:
        paths = _PATHS[path](cube, **params).values.reshape(len(panels), -1, 2)
        values = np.atleast_1d(apply_confusion(get_metric(path), cube, params) if cube.sum() > 0 else np.nan)
        values = np.broadcast_to(np.asarray(values, dtype=np.float64).ravel(), (len(panels),))
        used_beta = beta if beta is not None else _INDEX_DEFAULTS[path]["beta"]
    integer = cube.dtype.kind in "iub" or bool(np.all(counts == np.round(counts)))
    labels = [_label(v) for v in _coord(cube, TRUE)]
    image = None
    for i, (ax, panel) in enumerate(zip(panel_axes, panels)):
        image = ax.imshow(shown[i], cmap=cmap, vmin=0.0, vmax=vmax, aspect="equal")
        image.set_gid("matrix")
        k = len(labels)
        texts = [[f"{int(n)}" if integer else f"{n:.3g}" for n in row] for row in panel.values]
        fontsize = _cell_fontsize(ax, k, max(len(t) for row in texts for t in row))
        for r in range(k):
            for c in range(k):
                dark = shown[i, r, c] > 0.55 * vmax
                ax.text(
                    c, r, texts[r][c], ha="center", va="center", fontsize=fontsize, zorder=4,
                    color="white" if dark else "black",
                )  # fmt: skip
        slanted = sum(map(len, labels)) > 4 * k  # long class names would run into each other
        ax.set_xticks(range(k), labels, rotation=45 if slanted else 0, ha="right" if slanted else "center")
        ax.set_yticks(range(k), labels)
        ax.set_xlabel("predicted class")
        if i == 0 or axes is not None:
            ax.set_ylabel("true class")
        title = []
        if stack is not None:
            title.append(f"{stack} = {_label(_coord(cube, stack)[i])}")
        if path is not None:
            cells = paths[i][paths[i, :, 0] >= 0]
            if len(cells):
                ax.plot(
                    cells[:, 1],
                    cells[:, 0],
                    "-",
                    color="tab:orange",
                    lw=6,
                    alpha=0.45,
                    zorder=3,
                    gid=f"{path}_path",
                    solid_capstyle="round",
                )
            title.append(f"{path.upper()} = {values[i]:.3f} (beta = {used_beta:g})")
        ax.set_title("\n".join(title), fontsize=10)
    assert image is not None
    fig.colorbar(image, ax=panel_axes, label=bar_label, shrink=0.8)
    if path is not None:
        from matplotlib.layout_engine import ConstrainedLayoutEngine
        from matplotlib.lines import Line2D

        legend = (
            [Line2D([], [], color="tab:orange", lw=6, alpha=0.45)],
            [f"optimal {path.upper()} path (cells it collects)"],
        )
        if isinstance(fig.get_layout_engine(), ConstrainedLayoutEngine):
            fig.legend(*legend, loc="outside lower center", frameon=False)  # the layout makes room for it
        else:  # under the middle panel of the bottom row, below its tick labels and axis label
            lowest = min(ax.get_position().y0 for ax in panel_axes)
            bottom_row = [ax for ax in panel_axes if ax.get_position().y0 < lowest + 0.01]
            below = -0.45 if slanted else -0.2
            bottom_row[len(bottom_row) // 2].legend(
                *legend, loc="upper center", bbox_to_anchor=(0.5, below), frameon=False
            )
    return fig


# --- George's plane -----------------------------------------------------------------------------------------------


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
    stack = _stack_dim(cube, CUBE_DIMS, model_dim, "model_dim")
    cube = _squeeze_except(cube, [d for d in (stack, TRUE, PRED) if d is not None])
    params = {} if cost is None else {"cost": cost}
    accuracy = np.atleast_1d(np.asarray(apply_confusion(get_metric("accuracy"), cube, {}), dtype=np.float64))
    mc = np.atleast_1d(np.asarray(apply_confusion(get_metric("mc"), cube, params), dtype=np.float64))
    d = np.atleast_1d(np.asarray(apply_confusion(get_metric("d"), cube, params), dtype=np.float64))
    names = [_label(v) for v in _coord(cube, stack)] if stack is not None else ["model"]
    fig, (axis,) = _axes(1, ax, width=5.5, height=5.0)
    axis.plot([0, 1], [1, 0], "--", color="grey", lw=1, label="chance line Acc + MC = 1 (shaded: worse)")
    axis.fill_between([0, 1], [1, 0], [1.05, 1.05], color="grey", alpha=0.08, lw=0)
    axis.plot([1], [0], "*", color="gold", mec="black", ms=16, zorder=5, label="ideal (Acc = 1, MC = 0)")
    colours = _pyplot().rcParams["axes.prop_cycle"].by_key()["color"]
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


# --- retention curves ---------------------------------------------------------------------------------------------


def retention(curves: xr.Dataset, *, ax=None) -> Figure:
    """The retained-samples curves of ``df.ordinal.aursc(...)`` / ``proba.ordinal.aursc(...)``, one line each.

    x is the fraction of samples kept (the worst under the score removed first), from 1 down; the legend gives
    each curve's area (AURSC).

    Parameters
    ----------
    curves : xarray.Dataset
        With variables ``curve`` (dim ``retained``) and ``aursc``; every other dim (model, score, ...) gives lines.
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import ordframe.plot
    >>> df = pd.DataFrame({"y": [0, 1, 2, 2, 1, 0, 1, 2], "p0": [0.7, 0.2, 0.1, 0.2, 0.3, 0.5, 0.1, 0.1]})
    >>> df["p1"] = 0.2
    >>> df["p2"] = 1 - df["p0"] - df["p1"]
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
    if "retained" not in curve.dims:
        raise ValueError(f"'curve' needs a 'retained' dim, got dims {tuple(curve.dims)}")
    others = [d for d in curve.dims if d != "retained"]
    lines, labels = _line_labels(curve.transpose(..., "retained"), others)
    areas, _ = _line_labels(curves["aursc"].broadcast_like(curve.isel(retained=0, drop=True)), others)
    retained = curve["retained"].values
    order = np.argsort(retained)[::-1]
    fig, (axis,) = _axes(1, ax, width=6.0, height=4.0)
    for i, label in enumerate(labels):
        name = label or "curve"
        axis.plot(
            retained[order],
            lines.values[i][order],
            lw=1.8,
            label=f"{name}: AURSC = {float(areas.values[i]):.3f}",
            gid=name,
        )
    axis.set_xlim(retained.max(), retained.min())
    metric = curves.attrs.get("metric", curve.attrs.get("metric", "metric"))
    score = curves.attrs.get("score")
    direction = direction_text(curve.attrs)
    axis.set_xlabel(
        "fraction of samples retained" + (f" (samples with the worst {score} removed first)" if score else "")
    )
    axis.set_ylabel(f"{metric} on the retained samples" + (f"\n({direction})" if direction else ""))
    axis.set_title("Retention curves: does the score find the bad predictions?")
    axis.legend(fontsize=8)
    axis.grid(alpha=0.3)
    return fig


# --- beta profile -------------------------------------------------------------------------------------------------


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
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import ordframe.plot
    >>> cube = xr.DataArray([[5, 2, 0], [1, 6, 2], [0, 1, 7]], dims=("true", "pred"))
    >>> fig = ordframe.plot.beta_profile(cube, index="uoc")
    >>> fig.axes[0].get_ylabel()
    'uoc (lower is better)'
    """
    check_cube(cube)
    if index not in _INDEX_DEFAULTS:
        raise ValueError(f"index must be 'oc' or 'uoc', got {index!r}")
    grid = np.asarray(np.linspace(0, 1, 21) if betas is None else betas, dtype=np.float64)
    if grid.ndim != 1 or len(grid) < 2 or np.isnan(grid).any() or (grid < 0).any():
        raise ValueError(f"betas must be at least two values >= 0, got {betas!r}")
    params: dict[str, Any] = {} if gamma is None else {"gamma": gamma}
    metric = get_metric(index)
    profile = xr.concat([apply_confusion(metric, cube, {"beta": float(b), **params}) for b in grid], dim="beta")
    profile = profile.assign_coords(beta=grid)
    others = [d for d in profile.dims if d != "beta"]
    lines, labels = _line_labels(profile.transpose(..., "beta"), others)
    fig, (axis,) = _axes(1, ax, width=6.0, height=4.0)
    for i, label in enumerate(labels):
        axis.plot(grid, lines.values[i], lw=1.8, label=label or index, gid=label or index)
    default = _INDEX_DEFAULTS[index]["beta"]
    axis.axvline(default, color="grey", ls=":", lw=1)
    axis.annotate(
        f"default beta = {default:g}", (default, 0), xycoords=("data", "axes fraction"), xytext=(3, 4),
        textcoords="offset points", fontsize=8, color="grey",
    )  # fmt: skip
    axis.set_xlabel("beta (weight of the path's distance to the diagonal)")
    axis.set_ylabel(f"{index} (lower is better)")
    used_gamma = gamma if gamma is not None else _INDEX_DEFAULTS[index]["gamma"]
    axis.set_title(f"{index.upper()} against beta (gamma = {used_gamma:g})")
    if others:
        axis.legend(fontsize=8)
    axis.grid(alpha=0.3)
    return fig


# --- distributions ------------------------------------------------------------------------------------------------


def distribution(
    values: xr.DataArray,
    *,
    model_dim: Hashable = MODEL_DIM,
    dim: Hashable = BOOTSTRAP_DIM,
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
    dim : str
        The dim of the replicates or folds, summarised by each box, e.g. ``"bootstrap"`` or ``"fold"``.
    points : bool, optional
        Also draw every value as a dot (default: when there are at most 50 per model).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

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
    missing = [d for d in (model_dim, dim) if d not in values.dims]
    if missing:
        raise ValueError(
            f"values need dims {model_dim!r} (the models) and {dim!r} (the replicates or folds); missing {missing}, "
            f"the dims are {tuple(values.dims)}"
        )
    rest = [d for d in values.dims if d not in (model_dim, dim) and values.sizes[d] > 1]
    if rest:
        raise ValueError(f"values have other dims {tuple(rest)}; select one element first, e.g. .isel({rest[0]}=0)")
    values = _squeeze_except(values, [model_dim, dim]).transpose(model_dim, dim)
    names = [_label(v) for v in _coord(values, model_dim)]
    data = [row[~np.isnan(row)] for row in values.values.astype(np.float64)]
    fig, (axis,) = _axes(1, ax, width=max(4.0, 1.2 * len(names) + 2), height=4.0)
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


# --- critical-difference diagram ----------------------------------------------------------------------------------


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


def critical_difference(result: xr.Dataset, *, metric: Hashable | None = None, ax=None) -> Figure:
    """Demšar (2006)'s critical-difference diagram from the Dataset of [`ordframe.friedman`][ordframe.friedman].

    The models sit at their average rank (1 = best) on an axis 1..k; the bar at the top has the length of the
    Nemenyi critical difference (CD), and a thick line joins models whose average ranks differ by less than CD
    (not significantly different).

    Parameters
    ----------
    result : xarray.Dataset
        The output of ``ordframe.friedman``.
    metric : str, optional
        Which metric of ``result`` (needed when it has several).
    ax : matplotlib Axes, optional

    Returns
    -------
    matplotlib.figure.Figure

    Examples
    --------
    >>> import ordframe.plot
    >>> from ordframe import friedman
    >>> auc = xr.DataArray(
    ...     [[0.70, 0.72, 0.75], [0.61, 0.66, 0.65], [0.80, 0.83, 0.86], [0.55, 0.57, 0.60], [0.91, 0.90, 0.95]],
    ...     dims=("dataset", "model"),
    ...     coords={"model": ["a", "b", "c"]},
    ...     name="auc",
    ...     attrs={"higher_is_better": 1},
    ... )
    >>> fig = ordframe.plot.critical_difference(friedman(auc))
    >>> fig.axes[0].get_title()
    'auc: average rank over 5 dataset values (1 = best; Friedman p = 0.041)\\nNemenyi CD = 1.482 at alpha = 0.05'
    """
    if not isinstance(result, xr.Dataset) or "average_rank" not in result or "critical_difference" not in result:
        raise TypeError(
            "critical_difference plots the Dataset of ordframe.friedman(...) (variables 'average_rank' and "
            f"'critical_difference'), got {type(result).__name__}"
        )
    if "metric" in result.dims:
        names = list(result["metric"].values)
        if metric is None:
            if len(names) != 1:
                raise ValueError(f"result has several metrics {names}; pass metric= one of them")
            metric = names[0]
        if metric not in names:
            raise ValueError(f"metric={metric!r} is not in the result; it has {names}")
        result = result.sel(metric=metric)
    rank = result["average_rank"]
    model_dims = [d for d in rank.dims]
    if len(model_dims) != 1:
        raise ValueError(
            f"average_rank has dims {tuple(rank.dims)}; select one element of the extra dims first so that only the "
            "models remain"
        )
    (models,) = model_dims
    cd = float(result["critical_difference"])
    ranks = rank.values.astype(np.float64)
    order = np.argsort(ranks, kind="stable")
    names = [_label(v) for v in _coord(rank, models)[order]]
    ranks = ranks[order]
    k = len(ranks)
    half = (k + 1) // 2
    height = 1.0 + 0.35 * half
    fig, (axis,) = _axes(1, ax, width=7.0, height=height + 0.9)
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
    cliques = _cliques(ranks, cd)
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
    # cliques: thick lines just below the axis
    for j, (a, b) in enumerate(cliques):
        y = -0.12 - 0.5 * step * j
        axis.plot([ranks[a] - 0.03, ranks[b] + 0.03], [y, y], color="black", lw=4, solid_capstyle="round", gid="clique")
    axis.set_xlim(-0.9, k + 1.9)
    axis.set_ylim(first - step * (half - 1) - 0.3, bar_y + 0.35)
    axis.axis("off")
    axis.set_title(_cd_title(result, metric, cd), fontsize=10)
    return fig


def _cd_title(result: xr.Dataset, metric, cd: float) -> str:
    over, blocks = result.attrs.get("blocks_dim"), result.attrs.get("blocks")
    head = f"{metric}: average rank" if metric is not None else "Average rank"
    if over:
        head += f" over {blocks} {over} values" if blocks else f" over {over}"
    head += " (1 = best" + (f"; Friedman p = {float(result['p_value']):.3f})" if "p_value" in result else ")")
    alpha = result.attrs.get("alpha")
    tail = f"Nemenyi CD = {cd:.3f}" + (f" at alpha = {alpha:g}" if alpha is not None else "")
    return f"{head}\n{tail}"
