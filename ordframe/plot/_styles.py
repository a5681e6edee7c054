"""Styles that tell many curves or points apart: each gets its own pair of colour and dash pattern (or marker).

Ten colours (matplotlib's ``tab10``) times four dash patterns (or markers)
give 40 distinct pairs. Curves along two dims (say 4 models x 3 scores) take their
colour from one dim and their dash pattern from the other, so that a model
keeps its colour and a score its pattern; otherwise curve i takes colour
i mod 10 and pattern i div 10.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from typing import Any

COLOURS: tuple[str, ...] = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")
COLOURS += ("tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan")
DASHES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D")


def line_styles(sizes: Sequence[int]) -> list[dict[str, Any]]:
    """``color`` and ``linestyle`` of every curve of a stack with these dim ``sizes`` (the curves in C order).

    No two curves share both while there are at most ``len(COLOURS) * len(DASHES)`` = 40 of them.
    """
    n = 1
    for size in sizes:
        n *= size
    if len(sizes) == 2:
        # the longer dim takes the colours (there are more of them), the shorter one the dash patterns
        colour_axis = 0 if sizes[0] >= sizes[1] else 1
        dash_axis = 1 - colour_axis
        if sizes[colour_axis] <= len(COLOURS) and sizes[dash_axis] <= len(DASHES):
            return [
                {"color": COLOURS[key[colour_axis]], "linestyle": DASHES[key[dash_axis]]}
                for key in itertools.product(range(sizes[0]), range(sizes[1]))
            ]
    return [
        {"color": COLOURS[i % len(COLOURS)], "linestyle": DASHES[(i // len(COLOURS)) % len(DASHES)]} for i in range(n)
    ]


def marker_styles(n: int) -> list[dict[str, Any]]:
    """``color`` and ``marker`` of ``n`` points: point i takes colour i mod 10 and marker i div 10 (distinct up to 40)."""
    return [
        {"color": COLOURS[i % len(COLOURS)], "marker": MARKERS[(i // len(COLOURS)) % len(MARKERS)]} for i in range(n)
    ]
