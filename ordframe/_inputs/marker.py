"""The input of the score metrics: the rows sorted once by (group, marker) and counted per distinct marker value.

A score metric (``kind="score"``) asks how a continuous score orders the true
classes, so what it needs of the rows is, per group, the weight of each class
at each distinct score value in ascending order: a contingency table of the
score's distinct values against the class. ``marker_table`` builds it for
every group at once from one sort; a bootstrap replicate weights the same
rows differently, so its table has the same rows (``MarkerTable.cells``).

Label and score arrays come to the same table through the pandas front end:
``marker_frame`` lays them out as a frame of one row per sample, the dims not
counted over as group columns.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import dims_list
from ordframe._inputs.arrays import check_label_arrays, check_shared_dims
from ordframe._inputs.selection import Selection
from ordframe._inputs.weights import checked_weights


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


#: The columns of ``marker_frame``: the arrays' roles, not their names (a dim may have the name of an array).
MARKER_COLUMNS = {"true": "true", "marker": "marker", "weights": "weights"}


def marker_frame(
    true: xr.DataArray, marker: xr.DataArray, *, dim=None, labels=None, weights=None, dropna: bool = False
) -> tuple[pd.DataFrame, Selection]:
    """Label and score arrays (and weights, broadcastable against them) as a frame of one row per sample over the
    ``dim`` dims (default: all), and its ``Selection``: the other dims are ``by`` columns, categoricals of their
    coordinates in order, so every combination is a group, as the arrays' confusion cubes have.

    Loads dask-backed arrays: the score metrics sort every sample of a group at once.
    """
    given = {"true": true, "marker": marker, **({} if weights is None else {"weights": weights})}
    check_label_arrays(given)
    check_shared_dims(true, marker, ("true", "marker"), dim)
    if weights is not None:
        given["weights"] = checked_weights(weights)
    try:
        arrays = xr.broadcast(*xr.align(*given.values(), join="exact", copy=False))
    except ValueError as exc:
        raise ValueError(
            f"the label and score arrays' coordinates disagree ({exc}); align them first, e.g. with xarray.align"
        ) from None
    core = list(arrays[0].dims) if dim is None else dims_list(dim)
    absent = [d for d in core if d not in arrays[0].dims]
    if absent:
        raise ValueError(f"dim {absent} not found; the label and score arrays have dims {tuple(arrays[0].dims)}")
    groups = [d for d in arrays[0].dims if d not in core]
    clash = [d for d in groups if d in MARKER_COLUMNS]
    if clash:
        raise ValueError(f"the arrays have a dim named {clash[0]!r}, which is not counted over: rename it")
    table = xr.Dataset(
        {MARKER_COLUMNS[role]: a.variable for role, a in zip(given, arrays)},
        coords={d: arrays[0].get_index(d) for d in arrays[0].dims},
    ).to_dataframe(dim_order=[*groups, *core])
    table = table.reset_index(level=groups) if groups else table
    for d in groups:
        table[d] = pd.Categorical(table[d], categories=arrays[0].get_index(d))
    selection = Selection(
        MARKER_COLUMNS["true"], by=groups, labels=labels, dropna=dropna, marker=MARKER_COLUMNS["marker"],
        weights=None if weights is None else MARKER_COLUMNS["weights"],
    )  # fmt: skip
    return table, selection
