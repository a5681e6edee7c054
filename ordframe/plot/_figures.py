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


def new_axes(n: int, axes, *, width: float = 4.0, height: float = 3.6) -> tuple[Figure, list[Axes]]:
    """``n`` axes: the ones given (one Axes or a sequence of ``n``), or a new figure of up to 4 per row.

    The rows of a new figure are as even as they can be (5 panels: 3 + 2, not 4 + 1), and it has matplotlib's
    constrained layout, so labels, legends and colour bars fit inside it.
    """
    plt = pyplot()
    if axes is None:
        nrows = -(-n // 4)
        ncols = -(-n // nrows)
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


def legend_outside(ax: Axes, handles=None, labels=None, **kwargs):
    """A legend to the right of ``ax``, outside it, so that it covers no data; a constrained layout makes room."""
    args = () if handles is None else (handles, labels)
    return ax.legend(*args, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0.0, **kwargs)


def legend_height(entries: int, fontsize: float = 8.0) -> float:
    """Inches that a one-column legend of ``entries`` lines of ``fontsize`` points needs, margins included."""
    return entries * fontsize * 1.7 / 72 + 0.6
