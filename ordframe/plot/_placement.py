"""Text labels next to their points, none covering another label or a point.

A short greedy search, deterministic (the same figure gives the same
placement): each label in turn tries positions around its point, on rings
of growing distance (right-above first, then right, above, right-below,
left-above, left, below, left-below), and takes the first one that stays
inside the axes, covers neither a point nor a label placed before it and
crosses none of the lines it is told about. A label that had to move beyond
the first ring is joined to its point by a thin line. If no position is
free, the one that covers the least is taken (a line crossed counts as a
quarter of the label's area).

Positions are offsets in points from the labelled point, so they survive a
change of dpi; they are computed for the figure's size and layout at the
time of the call.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.text import Annotation

DIRECTIONS = ((1, 1), (1, 0), (0, 1), (1, -1), (-1, 1), (-1, 0), (0, -1), (-1, -1))
"""(x, y) signs of the positions tried around a point, in order of preference."""

RINGS = 12
"""How many distances are tried: the first ring touches the point's marker, each next one is ``step`` further."""


def _overlap(box: np.ndarray, others: np.ndarray) -> np.ndarray:
    """Area of the intersection of ``box`` (x0, y0, x1, y1) with each row of ``others``."""
    if not len(others):
        return np.zeros(0)
    w = np.minimum(box[2], others[:, 2]) - np.maximum(box[0], others[:, 0])
    h = np.minimum(box[3], others[:, 3]) - np.maximum(box[1], others[:, 1])
    return np.clip(w, 0, None) * np.clip(h, 0, None)


def _crossed(box: np.ndarray, segments: np.ndarray) -> np.ndarray:
    """Whether each segment (x0, y0, x1, y1) of ``segments`` passes through ``box`` (Liang & Barsky's clipping)."""
    if not len(segments):
        return np.zeros(0, bool)
    x0, y0 = segments[:, 0], segments[:, 1]
    dx, dy = segments[:, 2] - x0, segments[:, 3] - y0
    low, high = np.zeros(len(segments)), np.ones(len(segments))
    inside = np.ones(len(segments), bool)
    for p, q in ((-dx, x0 - box[0]), (dx, box[2] - x0), (-dy, y0 - box[1]), (dy, box[3] - y0)):
        parallel = p == 0
        inside &= ~(parallel & (q < 0))
        with np.errstate(divide="ignore", invalid="ignore"):
            r = np.where(parallel, 0.0, q / np.where(parallel, 1.0, p))
        low = np.where(~parallel & (p < 0), np.maximum(low, r), low)
        high = np.where(~parallel & (p > 0), np.minimum(high, r), high)
    return inside & (low <= high)


def place_labels(
    ax: Axes,
    points: np.ndarray,
    texts: Sequence[str],
    colours: Sequence,
    *,
    marker_size: float = 8.0,
    obstacles: Sequence[tuple[float, float, float]] = (),
    lines: Sequence[tuple[float, float, float, float]] = (),
    fontsize: float = 9.0,
    gap: float = 2.0,
    step: float = 6.0,
) -> list[Annotation]:
    """Annotate each of ``points`` (data coordinates, one row per label) with its text, in its colour.

    ``marker_size`` (points) is the size of the markers drawn at ``points``; ``obstacles`` are other markers
    to keep clear of, as ``(x, y, size in points)``, and ``lines`` segments ``(x0, y0, x1, y1)`` not to cross
    (all in data coordinates). ``gap`` is the distance (points) between a marker and
    the nearest label position, ``step`` the distance between rings.
    """
    fig = ax.figure.canvas.figure  # the whole figure, also when ax is in a subfigure
    fig.draw_without_rendering()  # the final layout: the axes' size and position in pixels
    scale = fig.dpi / 72.0  # pixels per point
    frame = ax.get_window_extent()
    pad = 1.0 * scale
    xy = ax.transData.transform(np.asarray(points, dtype=np.float64).reshape(-1, 2))
    markers = [(x, y, marker_size) for x, y in xy]
    for x, y, size in obstacles:
        px, py = ax.transData.transform((x, y))
        markers.append((px, py, size))
    occupied = [
        np.array([x - s * scale / 2, y - s * scale / 2, x + s * scale / 2, y + s * scale / 2]) for x, y, s in markers
    ]

    ends = np.asarray(lines, dtype=np.float64).reshape(-1, 2)
    segments = ax.transData.transform(ends).reshape(-1, 4) if len(ends) else np.zeros((0, 4))
    labels = []
    for point, (x, y), text, colour in zip(np.asarray(points, dtype=np.float64).reshape(-1, 2), xy, texts, colours):
        probe = ax.text(0, 0, text, fontsize=fontsize)
        extent = probe.get_window_extent()
        probe.remove()
        w, h = extent.width + 2 * pad, extent.height + 2 * pad
        best, best_cover = None, np.inf
        taken = np.array(occupied)
        for ring in range(RINGS):
            distance = (marker_size / 2 + gap + ring * step) * scale
            for ux, uy in DIRECTIONS:
                cx, cy = x + ux * (w / 2 + distance), y + uy * (h / 2 + distance)
                box = np.array([cx - w / 2, cy - h / 2, cx + w / 2, cy + h / 2])
                outside = max(frame.x0 - box[0], box[2] - frame.x1, frame.y0 - box[1], box[3] - frame.y1, 0.0)
                cover = float(_overlap(box, taken).sum()) + outside * (w + h) * 100
                cover += 0.25 * w * h * int(_crossed(box, segments).sum())
                if cover < best_cover:
                    best, best_cover = (ring, cx - x, cy - y, box), cover
                if cover == 0:
                    break
            if best_cover == 0:
                break
        assert best is not None
        ring, dx, dy, box = best
        leader = {"arrowstyle": "-", "color": colour, "lw": 0.7, "shrinkA": 0, "shrinkB": 4}
        label = ax.annotate(
            text,
            (float(point[0]), float(point[1])),
            xytext=(dx / scale, dy / scale),
            textcoords="offset points",
            ha="center",
            va="center",
            fontsize=fontsize,
            color=colour,
            arrowprops=leader if ring > 0 else None,
        )
        label.set_in_layout(False)  # a label must not make the layout shrink the axes it was placed for
        labels.append(label)
        occupied.append(box)
    return labels
