"""Confusion cubes: stacked confusion matrices with dims ``(*groups, "true", "pred")``.

Every cube is counted in one vectorised pass: each row's group codes and
class codes are combined into a single cell index (row-major over the cube's
shape) and the cells are counted with ``numpy.bincount``. Nothing loops over
rows or groups. DataFrame rows are coded in ``ordframe.frame``; label arrays
(numpy- or dask-backed DataArrays) here, chunk by chunk.
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.arguments import about
from ordframe._core.checks import dims_list
from ordframe._core.dims import CUBE_DIMS, PRED, TRUE
from ordframe._core.messages import DroppedRowsWarning, RowNames, array_name, warn
from ordframe._core.options import check_allocation
from ordframe._inputs.classes import (
    MAX_COUNTED_SPAN,
    check_orderable,
    check_two,
    class_order,
    code_dtype,
    declared_order,
    encode,
    integer_span,
    labels_of,
    missing_error,
    offset_of,
)
from ordframe._inputs.counting import count_cells, drop_absent_classes, warn_predicted_only
from ordframe._inputs.weights import checked_weights


def check_label_arrays(arrays: dict[str, object]) -> None:
    """An error unless every value is an xarray DataArray with known chunk sizes."""
    for name, a in arrays.items():
        if not isinstance(a, xr.DataArray):
            raise TypeError(
                f"{name} must be an xarray.DataArray, got {type(a).__name__}; for pandas data use "
                "df.ordinal, for numpy arrays wrap them: xarray.DataArray(values, dims=...)"
            )
        if a.chunks is not None and any(math.isnan(c) for chunks in a.chunks for c in chunks):
            raise ValueError(
                f"{name} is a dask array with unknown chunk sizes; call compute_chunk_sizes() "
                "on it (or build it with known sizes) first"
            )


def _check_missing(name, labels: xr.DataArray) -> None:
    """The missing-label error for an in-memory label array, naming the first missing samples by coordinate."""
    if labels.chunks is not None or labels.dtype.kind not in "fOmM" or labels.ndim == 0:
        return
    missing = np.asarray(pd.isna(labels.values)).reshape(-1)
    if missing.any():
        flat = labels.stack({"_sample": list(labels.dims)}) if labels.ndim > 1 else labels
        index = flat.indexes[flat.dims[0]] if flat.dims[0] in flat.indexes else pd.RangeIndex(flat.size)
        raise missing_error(name, index, missing)


def _array_classes(arrays: dict[Hashable, xr.DataArray], labels) -> tuple[pd.Index, bool]:
    """The classes of label arrays, and whether they are a span of integers to prune after counting."""
    if labels is not None:
        return declared_order(labels), False
    if all(a.chunks is None for a in arrays.values()):
        span = integer_span([labels_of(name, a.values.reshape(-1)) for name, a in arrays.items()])
        if span is not None and span[1] - span[0] < MAX_COUNTED_SPAN:
            return pd.RangeIndex(span[0], span[1] + 1), True
    columns = []
    for name, a in arrays.items():
        if a.chunks is not None:  # dask: per-chunk unique, then merged, once the dtype says they are numbers
            import dask.array as dsa

            check_orderable([labels_of(name, np.empty(0, a.dtype))])
            columns.append(labels_of(name, np.asarray(dsa.unique(a.data).compute())))
        else:
            columns.append(labels_of(name, a.values.reshape(-1)))
    return class_order(columns), False


def check_shared_dims(a: xr.DataArray, b: xr.DataArray, names: tuple, dim=None, exclude=()) -> None:
    """An error if each array has sample dims the other lacks: broadcasting would pair every sample with every other.

    One array may lack a dim the other has (one true label for several models'
    predictions); both lacking one of the other's is two different sample dims.
    """
    counted = None if dim is None else set(dims_list(dim))
    only = [
        [d for d in x.dims if d not in y.dims and d not in exclude and (counted is None or d in counted)]
        for x, y in ((a, b), (b, a))
    ]
    if only[0] and only[1]:
        raise ValueError(
            f"{names[0]} has dims {only[0]} that {names[1]} lacks, and {names[1]} has dims {only[1]} that "
            f"{names[0]} lacks: they would be broadcast into every pair of samples. Give both the same sample dim, "
            f"e.g. {names[0]}.rename({{{only[0][0]!r}: {only[1][0]!r}}})"
        )


def sample_positions(array: xr.DataArray) -> xr.DataArray | None:
    """The flat position in ``array`` of each of its samples, chunked as it is (``None`` in memory: they are known).

    Checks that run chunk by chunk name the user's samples with it, not positions within a chunk.
    """
    if array.chunks is None:
        return None
    import dask.array as dsa

    data = dsa.map_blocks(
        _block_positions, chunks=array.data.chunks, dtype=np.int64, meta=np.empty((0,) * array.ndim, np.int64)
    )
    return array.copy(data=data)


def _block_positions(block_info=None) -> np.ndarray:
    info = block_info[None]
    grids = np.meshgrid(*(np.arange(low, high) for low, high in info["array-location"]), indexing="ij")
    return np.ravel_multi_index(grids, info["shape"]).astype(np.int64)


@dataclass(frozen=True)
class _BlockCount:
    """How every block of label arrays is counted: the arrays' ``names`` (for messages), the ``classes``, the
    number of core (counted) axes ``n_core``, ``dropna``, ``report`` (warn of rows dropped), the ``rows``' names
    and ``offset``, when given, which turns every label into its code (integer labels within the classes' span)."""

    names: tuple
    classes: pd.Index
    n_core: int
    dropna: bool
    report: bool
    rows: RowNames
    offset: int | None = None

    def __call__(self, true, pred, weights=None, positions=None) -> np.ndarray:
        """Per-block counts of shape ``(*outer, 1, ..., 1, K * K)`` (core axes kept as size 1).

        ``positions`` (dask blocks) place the block's samples in the whole array, for messages.
        """
        names, classes, n_core, offset = self.names, self.classes, self.n_core, self.offset
        outer = true.shape[: true.ndim - n_core]
        n_groups, k = math.prod(outer), len(classes)
        per_group = math.prod(true.shape[true.ndim - n_core :])
        columns = [labels_of(n, np.asarray(a).reshape(-1)) for n, a in zip(names, (true, pred))]
        w = None if weights is None else np.asarray(weights, dtype=np.float64).reshape(-1)
        group = np.repeat(np.arange(n_groups, dtype=code_dtype(n_groups)), per_group) if n_groups > 1 else None
        missing = [c.missing for c in columns if c.missing is not None]
        if missing:
            if not self.dropna:
                column = next(c for c in columns if c.missing is not None)
                at = np.flatnonzero(np.asarray(column.missing))
                raise missing_error(column.name, self.rows.index(at, true.shape, positions), np.ones(len(at), bool))
            keep = ~np.logical_or.reduce(missing)
            if self.report:
                warn(
                    about(
                        DroppedRowsWarning,
                        "{dropna:True} dropped {dropped} of {size} samples with a missing label",
                        "dropna",
                        True,
                        dropped=int((~keep).sum()),
                        size=len(keep),
                    )
                )
            columns = [c.take(keep) for c in columns]
            group = None if group is None else group[keep]
            w = None if w is None else w[keep]
        offsets = [offset if offset is not None else offset_of(c, classes) for c in columns]
        codes = [c.values if o is not None else encode(c, classes) for c, o in zip(columns, offsets)]
        offsets = [o or 0 for o in offsets]
        if group is None:
            counts = count_cells(codes, [k, k], offsets=offsets, weights=w).reshape(1, k * k)
        else:
            counts = count_cells([group, *codes], [n_groups, k, k], offsets=[0, *offsets], weights=w)
        return counts.reshape(*outer, *([1] * n_core), k * k)


def array_cube(
    true: xr.DataArray, pred: xr.DataArray, *, dim=None, labels=None, weights=None, dropna=False, report=True
) -> xr.DataArray:
    """The confusion cube of label arrays ``true`` and ``pred``, counting over ``dim`` (default: all dims).

    ``report=False`` drops missing labels (with ``dropna``) without a warning.
    """
    check_label_arrays({"true": true, "pred": pred, **({} if weights is None else {"weights": weights})})
    if not dropna:  # before broadcasting, so that a missing label is counted once, where it is
        for name, labels_given in ((TRUE, true), (PRED, pred)):
            _check_missing(labels_given.name if labels_given.name is not None else name, labels_given)
    check_shared_dims(true, pred, ("true", "pred"), dim)
    weights = checked_weights(weights)
    given = [true, pred] + ([] if weights is None else [weights])
    try:
        arrays = list(xr.broadcast(*xr.align(*given, join="exact", copy=False)))
    except ValueError as exc:
        raise ValueError(
            f"the label arrays' coordinates disagree ({exc}); align them first, e.g. with xarray.align"
        ) from None
    if any(a.chunks is not None for a in arrays):  # map_blocks would pass a numpy array whole to every block
        arrays = [a if a.chunks is not None else a.chunk() for a in arrays]
    arrays = list(xr.unify_chunks(*arrays))
    core = list(arrays[0].dims) if dim is None else dims_list(dim)
    absent = [d for d in core if d not in arrays[0].dims]
    if absent:
        raise ValueError(f"dim {absent} not found; the label arrays have dims {tuple(arrays[0].dims)}")
    clash = [d for d in arrays[0].dims if d in CUBE_DIMS and d not in core]
    if clash:
        raise ValueError(
            f"the label arrays have a dim named {clash[0]!r}, which a confusion cube uses for its "
            "classes: count over it (dim=) or rename it"
        )
    outer = [d for d in dict.fromkeys((*pred.dims, *arrays[0].dims)) if d not in core]  # pred's dim order first
    arrays = [a.transpose(*outer, *core) for a in arrays]
    names = (array_name(true, TRUE), array_name(pred, PRED))
    if names[0] == names[1]:
        names = (TRUE, PRED)
    classes, prune = _array_classes(dict(zip(names, arrays[:2])), labels)
    k = len(classes)
    cubes = math.prod(arrays[0].sizes[d] for d in outer)
    check_allocation(cubes * k * k * 8, f"the confusion cube ({cubes} matrices of {k} x {k} classes)")
    # integer labels counted over their span need no second look at their range
    offset = int(classes[0]) if prune else None
    rows = RowNames.of(arrays[0])
    count = _BlockCount(names, classes, len(core), dropna, report, rows, offset)
    data = [a.data for a in arrays] + [None] * (3 - len(arrays))
    dtype = np.int64 if weights is None else np.float64
    if any(hasattr(d, "dask") for d in data if d is not None):
        import dask.array as dsa

        first = data[0]
        chunks = first.chunks[: len(outer)] + tuple((1,) * len(c) for c in first.chunks[len(outer) :]) + ((k * k,),)
        positions = sample_positions(arrays[0])
        assert positions is not None
        blocks = dsa.map_blocks(
            lambda t, p, q, w=None: count(t, p, w, q),
            data[0],
            data[1],
            positions.data,
            *[d for d in data[2:] if d is not None],
            chunks=chunks,
            new_axis=[first.ndim],
            dtype=dtype,
            meta=np.empty((0,) * (first.ndim + 1), dtype),
        )
    else:
        blocks = count(data[0], data[1], data[2])
    counts = blocks.sum(axis=tuple(range(len(outer), len(outer) + len(core))))
    counts = counts.reshape(counts.shape[:-1] + (k, k))
    if prune:  # integer labels counted over their span: keep the values that occur
        codes = None if weights is None else [np.asarray(d).reshape(-1) - classes[0] for d in data[:2]]
        counts, classes = drop_absent_classes(counts, classes, codes)
        check_two(classes)
    if labels is None and isinstance(counts, np.ndarray):
        warn_predicted_only(counts, classes, names[1])
    coords = {name: c for a in arrays for name, c in a.coords.items() if set(c.dims) <= set(outer)}
    coords.update(true=classes, pred=classes)
    return xr.DataArray(counts, dims=(*outer, *CUBE_DIMS), coords=coords, name="count")
