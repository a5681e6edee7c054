"""One confusion matrix drawn on one Axes: coloured cells, the counts in them and an optimal OC / UOC path.

Shared by ``ordframe.plot.confusion`` (one panel per matrix of a cube) and
``ordframe.plot.ConfusionDisplay``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np
import xarray as xr

from ordframe._bridge.apply import apply_confusion
from ordframe._diagnostics.oc_paths import _OC, _UOC, oc_path, uoc_path
from ordframe._registry.manager import get_metric

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.image import AxesImage
    from matplotlib.lines import Line2D

INDEX_DEFAULTS = {"oc": _OC, "uoc": _UOC}
"""The defaults of the indices whose path can be drawn, as their kernels declare them."""

PATH_COLOUR = "tab:orange"
PATH_STYLE: dict[str, Any] = {"color": PATH_COLOUR, "lw": 6, "alpha": 0.45, "solid_capstyle": "round"}
"""How an optimal path is drawn: a wide, translucent line through the centres of its cells."""


def check_path_arguments(path, beta, normalize) -> None:
    """The errors of the ``path``, ``beta`` and ``normalize`` arguments shared by the confusion plots."""
    if normalize not in (None, "true"):
        raise ValueError(f"normalize must be None or 'true' (each row sums to 1), got {normalize!r}")
    if path not in (None, "oc", "uoc"):
        raise ValueError(f"path must be 'oc', 'uoc' or None, got {path!r}")
    if beta is not None and path is None:
        raise ValueError("beta is the parameter of the path's index; pass path='oc' or 'uoc' with it")


@dataclass
class IndexPaths:
    """The optimal paths of ``index`` for a stack of matrices, their values and the ``beta`` used."""

    index: str
    cells: np.ndarray  # (matrices, steps, 2) positions (row, column); -1 pads a shorter path
    values: np.ndarray  # (matrices,)
    beta: float

    def of(self, i: int) -> np.ndarray:
        """The (row, column) cells of matrix ``i``'s path, from the top left to the bottom right."""
        cells = self.cells[i]
        return cells[cells[:, 0] >= 0]

    def title(self, i: int) -> str:
        return f"{self.index.upper()} = {self.values[i]:.3f} (beta = {self.beta:g})"


def index_paths(cube: xr.DataArray, index: str, beta: float | None, matrices: int) -> IndexPaths:
    """The paths and values of ``index`` ("oc" or "uoc") for the ``matrices`` matrices of ``cube``, in order."""
    params = {} if beta is None else {"beta": beta}
    draw = {"oc": oc_path, "uoc": uoc_path}[index]
    cells = draw(cube, **params).values.reshape(matrices, -1, 2)
    values = np.atleast_1d(apply_confusion(get_metric(index), cube, params) if cube.sum() > 0 else np.nan)
    values = np.broadcast_to(np.asarray(values, dtype=np.float64).ravel(), (matrices,))
    return IndexPaths(index, cells, values, beta if beta is not None else INDEX_DEFAULTS[index]["beta"])


def shares_of_rows(counts: np.ndarray) -> np.ndarray:
    """Every cell as a share of its row (the true class); a row without samples stays 0."""
    rows = counts.sum(axis=-1, keepdims=True)
    return np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)


def cell_fontsize(ax: Axes, k: int, characters: int) -> float:
    """The font size (points) at which ``characters`` digits fit in one of the ``k`` x ``k`` cells of ``ax``: 4 to 9."""
    ax.apply_aspect()  # the square cells' final size
    cell = min(ax.bbox.width, ax.bbox.height) / k * 72 / ax.figure.dpi  # points
    return float(np.clip(cell / (0.8 * max(characters, 2) + 0.6), 4, 9))  # a digit is about 0.6 em wide, plus margins


def cell_texts(counts: np.ndarray, values_format: str | None) -> list[list[str]]:
    """The numbers printed in the cells: whole numbers as such, others with 3 significant digits."""
    if values_format is None:
        whole = bool(np.all(counts == np.round(counts)))
        values_format = "d" if whole else ".3g"
    if values_format == "d":
        return [[f"{int(n)}" for n in row] for row in counts]
    return [[format(n, values_format) for n in row] for row in counts]


def names_collide(ax: Axes, names: Sequence[str]) -> bool:
    """Whether the longest class name, written level, would be wider than 90% of a cell (a character is ~0.6 em)."""
    from matplotlib.font_manager import FontProperties
    from matplotlib.pyplot import rcParams

    ax.apply_aspect()
    cell = ax.bbox.width / len(names) * 72 / ax.figure.dpi  # points
    size = FontProperties(size=rcParams["xtick.labelsize"]).get_size_in_points()
    return max(map(len, names)) * 0.6 * size > 0.9 * cell


@dataclass
class MatrixArtists:
    """What ``draw_matrix`` added to the Axes."""

    image: AxesImage
    texts: np.ndarray | None  # (K, K) matplotlib Text, or None without values
    path: Line2D | None


@dataclass(frozen=True)
class MatrixStyle:
    """How a matrix is drawn: colours up to ``vmax`` in ``cmap``; with ``include_values`` every cell's count in
    ``values_format`` (the font sized for ``characters`` per number, default: the longest); ``xticks_rotation``
    (None slants long class names only); matplotlib's ``im_kw`` and ``text_kw``."""

    vmax: float
    cmap: Any
    include_values: bool = True
    values_format: str | None = None
    xticks_rotation: float | str | None = None
    im_kw: dict | None = None
    text_kw: dict | None = None
    characters: int | None = None


def draw_matrix(
    ax: Axes,
    counts: np.ndarray,
    shown: np.ndarray,
    names: Sequence[str],
    style: MatrixStyle,
    *,
    path_cells: np.ndarray | None = None,
    path_name: str = "oc",
) -> MatrixArtists:
    """Draw one K x K matrix on ``ax``: ``shown`` as colours, ``counts`` as numbers, the path's cells joined.

    Rows are true classes (y, top to bottom) and columns predicted ones (x), ``names`` the classes' names;
    cell (r, c) is centred at (x = c, y = r), so the path's line runs through ``(column, row)`` of its cells.
    """
    vmax, text_kw = style.vmax, style.text_kw
    k = len(names)
    image = ax.imshow(
        shown, **{"cmap": style.cmap, "vmin": 0.0, "vmax": vmax, "aspect": "equal", **(style.im_kw or {})}
    )
    image.set_gid("matrix")
    texts = None
    if style.include_values:
        printed = cell_texts(counts, style.values_format)
        longest = max(len(t) for row in printed for t in row) if style.characters is None else style.characters
        fontsize = cell_fontsize(ax, k, longest)
        texts = np.empty((k, k), dtype=object)
        for r in range(k):
            for c in range(k):
                dark = shown[r, c] > 0.55 * vmax
                cell = {"ha": "center", "va": "center", "fontsize": fontsize, "zorder": 4}
                cell["color"] = "white" if dark else "black"
                texts[r, c] = ax.text(c, r, printed[r][c], **{**cell, **(text_kw or {})})
    rotation = (45 if names_collide(ax, names) else 0) if style.xticks_rotation is None else style.xticks_rotation
    ha = "center" if rotation in (0, 90, "horizontal", "vertical") else "right"
    ax.set_xticks(range(k), names, rotation=rotation, ha=ha)
    ax.set_yticks(range(k), names)
    ax.set_xlabel("predicted class")
    line = None
    if path_cells is not None and len(path_cells):
        (line,) = ax.plot(path_cells[:, 1], path_cells[:, 0], "-", zorder=3, gid=f"{path_name}_path", **PATH_STYLE)
    return MatrixArtists(image, texts, line)
