"""The input of the score metrics: the rows sorted once by (group, marker) and counted per distinct marker value.

A score metric (``kind="score"``) asks how a continuous score orders the true
classes, so what it needs of the rows is, per group, the weight of each class
at each distinct score value in ascending order: a contingency table of the
score's distinct values against the class. ``marker_table`` builds it for
every group at once from one sort; a bootstrap replicate weights the same
rows differently, so its table has the same rows (``MarkerTable.cells``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class MarkerTable:
    """``counts[r, k]``: the weight of class ``k`` at distinct value ``r``; rows ``starts[g]:starts[g + 1]`` are group
    ``g``'s values in ascending order; ``cell[i]`` is the flat position (``r * K + k``) input row ``i`` adds to."""

    counts: np.ndarray  # (R, K) float64
    starts: np.ndarray  # (G + 1,) int64
    cell: np.ndarray  # (rows,) int64


def marker_table(
    group: np.ndarray, marker: np.ndarray, true: np.ndarray, k: int, n_groups: int, weights: np.ndarray | None = None
) -> MarkerTable:
    """The table of ``marker`` (float64 without NaN) against the class codes ``true`` in ``k`` classes, per group
    code ``group`` in ``[0, n_groups)``; ``weights``, one per row, or every row 1."""
    order = np.lexsort((marker, group))
    sorted_group, sorted_marker = group[order], marker[order]
    new = np.ones(len(order), bool)
    new[1:] = (sorted_group[1:] != sorted_group[:-1]) | (sorted_marker[1:] != sorted_marker[:-1])
    value = np.empty(len(order), np.int64)
    value[order] = np.cumsum(new) - 1
    n_values = int(new.sum())
    cell = value * k + true
    counts = np.bincount(cell, weights=weights, minlength=n_values * k).astype(np.float64).reshape(n_values, k)
    starts = np.searchsorted(sorted_group[new], np.arange(n_groups + 1)).astype(np.int64)
    return MarkerTable(counts, starts, cell)
