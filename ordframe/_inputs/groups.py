"""Groups of rows (``by=`` columns) coded by position, and results laid out over them.

Every front end that groups rows (confusion cubes, means of per-sample scores,
retention curves) codes the ``by`` columns here, once, as integer positions:
nothing is aligned on a pandas index, so a filtered, sorted or re-indexed
frame gives the same groups as a fresh one.

Layouts:

Dims are named by the column names as strings (a column ``2`` of a frame read
with ``header=None`` gives the dim ``"2"``).

* dense (default): one dim per ``by`` column, coordinates the sorted values
  (or the categorical order); a combination without rows is still there
  (a zero matrix, a NaN mean). Integer values that no row has are left out.
* ``observed=True``: one dim ``group`` with a MultiIndex of the combinations
  that occur, like pandas' ``groupby(observed=True)``.

A dense layout larger than ``ordframe.set_options(max_cube_bytes=...)`` is
refused before anything is allocated.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass, replace

import numpy as np
import pandas as pd
import xarray as xr
from xarray.indexes import PandasIndex

from ordframe._core.dims import OBSERVED_DIM
from ordframe._core.options import check_allocation
from ordframe._inputs.classes import MAX_INT_SPAN, sampled_range, value_range

# Integer group values spanning at most this many integers are coded by offset
# (values no row has are dropped from the result); wider spans are renumbered.
DENSE_INT_SPAN = 1 << 12


@dataclass(frozen=True)
class GroupColumn:
    """One ``by`` column: per-row codes (``code - offset`` is the position in ``coord``), -1 where missing."""

    name: Hashable
    codes: np.ndarray
    offset: int
    coord: pd.Index
    prune: bool  # integer values coded by offset: values no row has are dropped from the result
    missing: np.ndarray | None
    sampled: bool = False  # coded by offset over a span read from a sample: to be confirmed (``confirmed``)


def group_column(name: Hashable, series: pd.Series, *, sampled: bool = False) -> GroupColumn:
    """Code one ``by`` column: categoricals by their codes, small-span integers by offset, the rest factorized.

    With ``sampled``, the span of integers is read from a sample (``sampled_range``);
    a column coded over it is marked ``sampled``, and ``confirmed`` codes it over the exact span.
    """
    dtype = series.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        codes = np.asarray(series.array.codes)
        missing = codes < 0 if len(codes) and codes.min() < 0 else None
        return GroupColumn(name, codes, 0, dtype.categories, False, missing)
    if isinstance(dtype, np.dtype) and dtype.kind in "iu" and dtype != np.uint64 and len(series):
        values = series.to_numpy()
        low, high = sampled_range(values) if sampled else value_range(values)
        if high - low < DENSE_INT_SPAN:
            return GroupColumn(name, values, low, pd.RangeIndex(low, high + 1), True, None, sampled)
        if sampled:  # a wide span is renumbered from the exact one
            low, high = value_range(values)
        if high - low < MAX_INT_SPAN:  # a wide span: number the values that occur, through a table over it
            shifted = np.subtract(values, low, dtype=np.int64)
            seen = np.bincount(shifted, minlength=high - low + 1) > 0
            table = np.cumsum(seen) - 1
            return GroupColumn(name, table[shifted], 0, pd.Index(np.flatnonzero(seen) + low), False, None)
    try:
        codes, uniques = pd.factorize(series, sort=True)
    except TypeError as exc:
        raise TypeError(
            f"group column {name!r} mixes values that cannot be sorted ({exc}); convert it to one type"
        ) from None
    coord = pd.Index(uniques)
    numpy_dtype = getattr(coord.dtype, "numpy_dtype", None)  # nullable Int64, Float64, boolean: no NA left
    if numpy_dtype is not None and not isinstance(coord.dtype, np.dtype):
        coord = pd.Index(coord.to_numpy(dtype=numpy_dtype))
    return GroupColumn(name, codes, 0, coord, False, codes < 0 if (codes < 0).any() else None)


class Groups:
    """The ``by`` columns of a set of rows, and how results are laid out over their combinations."""

    def __init__(self, columns: list[GroupColumn], *, observed: bool = False):
        self.columns, self.observed = columns, observed
        self.names = [str(c.name) for c in columns]  # dim names: xarray and netCDF need strings
        if observed and columns:
            self._inverse, self._combos = _observed_combinations(columns)
        if observed and OBSERVED_DIM in self.names:
            raise ValueError(
                f"observed=True stacks the groups into a dim named {OBSERVED_DIM!r}, which is also "
                "a by column: rename that column"
            )

    def take(self, keep: np.ndarray) -> Groups:
        """The groups of the rows where ``keep`` holds (the coordinates stay)."""
        columns = [
            replace(c, codes=c.codes[keep], missing=None if c.missing is None else c.missing[keep])
            for c in self.columns
        ]
        return Groups(columns, observed=self.observed)

    @property
    def sizes(self) -> list[int]:
        """The leading shape of a result: one size per dim (``[]`` without ``by``)."""
        if self.observed and self.columns:
            return [len(self._combos)]
        return [len(c.coord) for c in self.columns]

    def counting(self) -> tuple[list[np.ndarray], list[int], list[int]]:
        """``(codes, sizes, offsets)`` of the leading axes, as ``count_cells`` takes them."""
        if self.observed and self.columns:
            return [self._inverse], self.sizes, [0]
        return [c.codes for c in self.columns], self.sizes, [c.offset for c in self.columns]

    def flat_index(self, n: int) -> np.ndarray:
        """The row-major position of each of the ``n`` rows' group in a result of leading shape ``self.sizes``."""
        index = np.zeros(n, np.int64)
        codes, sizes, offsets = self.counting()
        for code, size, offset in zip(codes, sizes, offsets):
            index = index * size + (np.asarray(code, dtype=np.int64) - offset)
        return index

    def check_size(self, cells_per_group: int, itemsize: int = 8) -> None:
        """Refuse a dense result larger than the ``max_cube_bytes`` option, before it is allocated."""
        groups = " x ".join(f"{n} {name!r}" for n, name in zip(self.sizes, self.names))
        what = (
            f"the result ({groups} groups x {cells_per_group} cells)"
            if groups
            else f"the result ({cells_per_group} cells)"
        )
        hint = (
            "pass observed=True to keep only the group combinations that occur, or "
            if groups and not self.observed
            else ""
        )
        check_allocation(math.prod(self.sizes) * cells_per_group * itemsize, what, hint)

    def combinations(self) -> list[tuple]:
        """The values of each group, in the order of a result's leading axes (``observed=True``)."""
        if not self.columns:
            return [()]
        return list(zip(*(c.coord[codes] for c, codes in zip(self.columns, self._combos.T))))

    def labelled(
        self,
        values: np.ndarray,
        dims: tuple = (),
        coords: dict | None = None,
        *,
        rows: np.ndarray | None = None,
        name: str | None = None,
    ) -> xr.DataArray:
        """A DataArray of ``values`` (shape ``(*self.sizes, *rest)``) over the group dims, then ``dims``.

        ``rows`` (the number of rows per group, shape ``self.sizes``) tells which
        integer group values occur; those that do not are dropped.
        """
        coords = dict(coords or {})
        if self.observed and self.columns:
            index = pd.MultiIndex.from_arrays(
                [c.coord[codes] for c, codes in zip(self.columns, self._combos.T)], names=self.names
            )
            coords.update(xr.Coordinates.from_pandas_multiindex(index, OBSERVED_DIM))
            return xr.DataArray(values, dims=(OBSERVED_DIM, *dims), coords=coords, name=name)
        keep = {}
        for axis, column in enumerate(self.columns):
            seen = None
            if column.prune and rows is not None:
                seen = np.asarray(rows).sum(axis=tuple(a for a in range(len(self.columns)) if a != axis)) > 0
            if seen is not None and not seen.all():
                values = np.compress(seen, values, axis=axis)
                keep[str(column.name)] = column.coord[seen]
            else:
                keep[str(column.name)] = column.coord
        coords.update(keep)
        return labelled_array(values, (*self.names, *dims), coords, name)


def labelled_array(values: np.ndarray, dims: tuple, coords: dict, name=None) -> xr.DataArray:
    """``xarray.DataArray(values, dims=dims, coords=coords, name=name)``, built from the coordinates' indexes
    when each is an unnamed pandas Index along the dim of its name, of that dim's size.

    xarray's constructor copies every index it is given (deeply), which is most of what a small result costs;
    pandas indexes cannot change, so these are shared instead. The result is the same (xarray casts only object
    indexes, which may hold ``cftime`` dates).
    """
    shape = dict(zip(dims, np.shape(values)))
    if not all(
        isinstance(index, pd.Index)
        and not isinstance(index, pd.MultiIndex)
        and index.name is None
        and len(index) == shape.get(dim, -1)
        for dim, index in coords.items()
    ):
        return xr.DataArray(values, dims=dims, coords=coords, name=name)
    indexes = {dim: PandasIndex(index, dim, fastpath=index.dtype != object) for dim, index in coords.items()}
    variables = {}
    for index in indexes.values():
        variables.update(index.create_variables())
    return xr.DataArray(xr.Variable(dims, values), coords=variables, name=name, indexes=indexes, fastpath=True)


def _observed_combinations(columns: list[GroupColumn]) -> tuple[np.ndarray, np.ndarray]:
    """Per row, the position of its combination among those that occur (sorted); and those combinations' codes.

    The combinations are ordered by the columns' codes, first column first (the
    order of the coordinates, as pandas' ``groupby(observed=True)`` sorts).
    Nothing sorts the rows, and the rows take at most one int64 column:

    * when the product of the columns' sizes is at most the number of rows (or
      ``_MIN_TABLE``), the combined codes, in the narrowest signed integer
      type that holds them, mark a table of that size (cache-sized blocks, no
      per-row temporaries), and are renumbered in place when some
      combinations are absent;
    * otherwise the combined code (one int64 column) is hashed, only the
      distinct combinations are sorted, and each row's code is replaced in
      place by its position.

    The rows carry no missing group value (the front ends drop or refuse them first).
    """
    n = len(columns[0].codes)
    sizes = [len(c.coord) for c in columns]
    space = math.prod(sizes)
    if space <= max(n, _MIN_TABLE):
        return _observed_by_table(columns, sizes, space, n)
    return _observed_by_hash(columns, n)


# The observed combinations are marked in a table over every combination when
# it has at most this many entries, or at most one per row.
_MIN_TABLE = 1 << 20
# Rows are combined in blocks that stay in the CPU cache.
_BLOCK_ROWS = 1 << 16


def _narrowest(count: int) -> type[np.signedinteger]:
    """The narrowest signed integer type that holds ``0 .. count``."""
    return next(t for t in (np.int8, np.int16, np.int32, np.int64) if count <= np.iinfo(t).max)


def _combined(columns: list[GroupColumn], sizes: list[int], start: int, stop: int) -> np.ndarray:
    """The row-major position of rows ``start:stop`` in a table of shape ``sizes`` (int64)."""
    first = columns[0]
    flat = np.subtract(first.codes[start:stop], first.offset, dtype=np.int64)
    for column, size in zip(columns[1:], sizes[1:]):
        flat *= size
        flat += column.codes[start:stop]
        if column.offset:
            flat -= column.offset
    return flat


def _observed_by_table(
    columns: list[GroupColumn], sizes: list[int], space: int, n: int
) -> tuple[np.ndarray, np.ndarray]:
    """The combined codes (in the narrowest type that holds them) mark a table; then renumbered in place."""
    dtype = _narrowest(max(space - 1, 0))  # holds every position in the table, and the cumsum below (< space)
    inverse = np.empty(n, dtype)
    seen = np.zeros(space, bool)
    for start in range(0, n, _BLOCK_ROWS):
        stop = min(n, start + _BLOCK_ROWS)
        flat = _combined(columns, sizes, start, stop)
        seen[flat] = True
        inverse[start:stop] = flat
    occurring = np.flatnonzero(seen)
    if len(occurring) < space:  # some combinations are absent: number those that occur
        table = np.cumsum(seen, dtype=dtype)
        table -= 1
        for start in range(0, n, _BLOCK_ROWS):
            block = inverse[start : start + _BLOCK_ROWS]
            np.take(table, block, out=block, mode="clip")
    return inverse, _unravelled(occurring, sizes)


def _unravelled(flat: np.ndarray, sizes: list[int]) -> np.ndarray:
    """The codes per column (int64, one row per value) of row-major positions ``flat`` in a table of shape ``sizes``."""
    out = np.empty((len(flat), len(sizes)), np.int64)
    rest = flat.astype(np.int64, copy=True)
    for axis in range(len(sizes) - 1, 0, -1):
        np.remainder(rest, sizes[axis], out=out[:, axis])
        rest //= sizes[axis]
    if len(sizes):
        out[:, 0] = rest
    return out


def _observed_by_hash(columns: list[GroupColumn], n: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes combined into one int64 per row (renumbered to the partial combinations that occur when the product of
    sizes would overflow), hashed; the distinct combinations are sorted and decoded.

    The combined codes are replaced in place by their positions, so the rows take one int64 column.
    """
    flat = np.zeros(n, np.int64)
    known = np.zeros((1, 0), np.int64)  # the combinations of the columns before the last renumbering
    radices: list[int] = []  # the sizes of the columns combined since
    size = 1
    for column in columns:
        count = len(column.coord)
        if size * count >= 2**62:
            uniques = _ranked_in_place(flat)
            known = _decoded(uniques, known, radices)
            radices, size = [], len(uniques)
        flat *= count
        flat += column.codes
        if column.offset:
            flat -= column.offset
        radices.append(count)
        size *= count
    uniques = _ranked_in_place(flat)
    return flat, _decoded(uniques, known, radices)


def _ranked_in_place(flat: np.ndarray) -> np.ndarray:
    """Replace each value by its position among the sorted distinct values; return those values.

    The distinct values are found by hashing (``pandas.unique``) and sorted;
    the rows are then looked up in their hash table block by block, written
    back in place (no second column of the rows' size).
    """
    uniques = np.sort(pd.unique(flat))
    index = pd.Index(uniques)
    for start in range(0, len(flat), _BLOCK_ROWS):
        block = flat[start : start + _BLOCK_ROWS]
        block[:] = index.get_indexer(block)
    return uniques


def _decoded(uniques: np.ndarray, known: np.ndarray, radices: list[int]) -> np.ndarray:
    """The codes per column of combined values ``uniques``: the position in ``known``, then one code per radix."""
    parts = np.unravel_index(uniques, (len(known), *radices))
    return np.concatenate([known[parts[0]], *(p[:, None] for p in parts[1:])], axis=1).astype(np.int64, copy=False)


def confirmed(column: GroupColumn) -> GroupColumn:
    """A column coded over a sampled span (``group_column(..., sampled=True)``), coded over its exact span."""
    return group_column(column.name, pd.Series(column.codes, copy=False)) if column.sampled else column


def occurring(column: GroupColumn) -> GroupColumn:
    """``column`` with only the integer values that a row has (coded by offset, values no row has are dropped).

    Categories and other values are kept as they are: those lay out results whether rows have them or not.
    """
    if not column.prune:
        return column
    positions = np.asarray(column.codes, dtype=np.int64) - column.offset
    seen = np.bincount(positions, minlength=len(column.coord)) > 0
    table = np.cumsum(seen) - 1
    return replace(column, codes=table[positions], offset=0, coord=column.coord[seen], prune=False)
