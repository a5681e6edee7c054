"""matplotlib, imported when a plot is drawn, and the figures and axes the plots draw on.

``import ordframe.plot`` never imports matplotlib: every plot calls
``pyplot()`` when it draws, which says how to
install matplotlib if it is missing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure


def pyplot():
    """``matplotlib.pyplot``, or an ImportError that says how to install it."""
    try:
        import matplotlib.pyplot as plt
    except ImportError as err:  # pragma: no cover - matplotlib is installed in the test environment
        raise ImportError('ordframe.plot needs matplotlib: pip install "ordframe[plot]"') from err
    return plt


def new_axes(
    n: int, axes, *, width: float = 4.0, height: float = 3.6, layout: tuple[int, int] | None = None
) -> tuple[Figure, list[Axes]]:
    """``n`` axes: the ones given (one Axes or a sequence of ``n``), or a new figure of up to 4 per row.

    The rows of a new figure are as even as they can be (5 panels: 3 + 2, not 4 + 1), or ``layout`` (rows,
    columns) places them, and it has matplotlib's constrained layout, so labels, legends and colour bars fit
    inside it.
    """
    plt = pyplot()
    if layout is not None and axes is not None:
        raise ValueError("give layout= for a new figure or axes= to draw in, not both")
    if axes is None:
        nrows, ncols = _grid(n) if layout is None else _checked_layout(n, layout)
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


def _grid(n: int) -> tuple[int, int]:
    """Rows and columns of ``n`` panels, up to 4 per row, the rows as even as they can be."""
    nrows = -(-n // 4)
    return nrows, -(-n // nrows)


def _checked_layout(n: int, layout) -> tuple[int, int]:
    """``layout`` as (rows, columns) of positive ints with room for ``n`` panels, or a ValueError that says so."""
    shape = tuple(layout) if isinstance(layout, (tuple, list)) else ()
    if len(shape) != 2 or not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in shape):
        raise ValueError(f"layout must be (rows, columns), two ints, got {layout!r}")
    rows, columns = (int(v) for v in shape)
    if rows < 1 or columns < 1 or rows * columns < n:
        raise ValueError(
            f"layout={layout!r} has {max(rows, 0) * max(columns, 0)} place(s) for the {n} panels; give rows and "
            f"columns >= 1 whose product is at least {n}, e.g. ({n}, 1) or (1, {n})"
        )
    return rows, columns


def legend_outside(ax: Axes, handles=None, labels=None, **kwargs):
    """A legend to the right of ``ax``, outside it, so that it covers no data; a constrained layout makes room."""
    args = () if handles is None else (handles, labels)
    return ax.legend(*args, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs)


def legend_below(fig: Figure, handles, labels, **kwargs):
    """A legend under all of a constrained figure's panels, in up to 3 columns: a one-column figure keeps its width
    for the panels."""
    return fig.legend(handles, labels, loc="outside lower center", ncols=min(len(labels), 3), **kwargs)


def legend_height(entries: int, fontsize: float = 8.0) -> float:
    """Inches that a one-column legend of ``entries`` lines of ``fontsize`` points needs, margins included."""
    return entries * fontsize * 1.7 / 72 + 0.6
