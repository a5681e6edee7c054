"""Styles that tell many curves or points apart: each gets its own pair of colour and dash pattern (or marker).

Twenty colours (matplotlib's ``tab10``, then the light halves of ``tab20``'s
pairs, so that the first ten are the familiar ones) times four dash patterns
(or markers) give 80 distinct pairs. Curves along two dims (say 12 models x 3
scores) take their colour from one dim and their dash pattern from the other,
so that a model keeps its colour and a score its pattern (up to 20 x 4);
otherwise curve i takes colour i mod 10 (i mod 20 past 40 curves) and
pattern (i + i div 10) mod 4 (20 past 40), so that neighbours differ in both
and a figure reads without its colours. Past 80 curves, styles repeat, with
a warning.
"""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any

COLOURS: tuple[str, ...] = ("tab:blue", "tab:orange", "tab:green", "tab:red", "tab:purple")
COLOURS += ("tab:brown", "tab:pink", "tab:gray", "tab:olive", "tab:cyan")
LIGHT_COLOURS: tuple[str, ...] = ("#aec7e8", "#ffbb78", "#98df8a", "#ff9896", "#c5b0d5")  # tab20's light halves
LIGHT_COLOURS += ("#c49c94", "#f7b6d2", "#c7c7c7", "#dbdb8d", "#9edae5")
DASHES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D")


def _palette(n: int) -> tuple[str, ...]:
    """The colours for ``n`` things: ``tab10`` while it has enough, else ``tab10`` and its light halves."""
    return COLOURS if n <= len(COLOURS) else COLOURS + LIGHT_COLOURS


def _cycled(n: int, patterns: tuple[str, ...], key: str) -> list[dict[str, Any]]:
    """Thing i: colour i mod C and pattern (i + i div C) mod P, C the fewest colours that tell the ``n`` things apart.

    The things of one colour, i = a C + b, have patterns (b + a) mod P for a < P: all different.
    """
    colours = _palette(-(-n // len(patterns)))
    if n > len(colours) * len(patterns):
        warnings.warn(
            f"{n} curves or points but {len(colours) * len(patterns)} distinct styles: some look alike; "
            "draw fewer at a time (select or facet them)",
            UserWarning,
            stacklevel=3,
        )
    c, p = len(colours), len(patterns)
    return [{"color": colours[i % c], key: patterns[(i + i // c) % p]} for i in range(n)]


def line_styles(sizes: Sequence[int]) -> list[dict[str, Any]]:
    """``color`` and ``linestyle`` of every curve of a stack with these dim ``sizes`` (the curves in C order).

    No two curves share both while there are at most 80 of them; with two dims, one keeps its colour and
    the other its dash pattern while they are at most 20 x 4.
    """
    n = 1
    for size in sizes:
        n *= size
    if len(sizes) == 2:
        # the longer dim takes the colours (there are more of them), the shorter one the dash patterns
        colour_axis = 0 if sizes[0] >= sizes[1] else 1
        dash_axis = 1 - colour_axis
        colours = _palette(sizes[colour_axis])
        if sizes[colour_axis] <= len(colours) and sizes[dash_axis] <= len(DASHES):
            return [
                {"color": colours[key[colour_axis]], "linestyle": DASHES[key[dash_axis]]}
                for key in itertools.product(range(sizes[0]), range(sizes[1]))
            ]
    return _cycled(n, DASHES, "linestyle")


def marker_styles(n: int) -> list[dict[str, Any]]:
    """``color`` and ``marker`` of ``n`` points, distinct up to 80 (as ``line_styles`` cycles them)."""
    return _cycled(n, MARKERS, "marker")
