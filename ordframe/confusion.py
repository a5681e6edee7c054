"""Confusion cubes: stacked confusion matrices with dims ``(*groups, "true", "pred")``.

Every cube is counted in one vectorised pass: each row's group codes and
class codes are combined into a single cell index (row-major over the cube's
shape) and the cells are counted with ``numpy.bincount``. Nothing loops over
rows or groups.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import xarray as xr

from .apply import CUBE_DIMS
from .classes import class_order, encode, missing_error

# Rows are combined in blocks that stay in the CPU cache; a block is never
# smaller than a few times the cube, so adding block counts stays cheap.
BLOCK_ROWS = 1 << 17
# An integer group column whose values span at most this many integers is
# coded by offset (no hashing); wider ones are factorized.
MAX_INT_SPAN = 1 << 16


class DroppedRowsWarning(UserWarning):
    """Rows with missing labels were dropped because ``dropna=True`` was given."""


def count_cells(codes, sizes, *, offsets=None, weights=None) -> np.ndarray:
    """Count rows per cell of an array of shape ``sizes``.

    ``codes[i]`` holds each row's index along axis ``i`` (plus ``offsets[i]``,
    which is subtracted). ``weights`` (one per row) makes the counts float sums.
    """
    sizes = [int(s) for s in sizes]
    offsets = [int(o) for o in offsets] if offsets else [0] * len(sizes)
    total = math.prod(sizes)
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    shift = sum(o * s for o, s in zip(offsets, strides))
    # The cell index is built in the narrowest integer type that holds every
    # partial sum (less memory traffic); int64 wraps harmlessly otherwise.
    bound = sum(abs(o) * s for o, s in zip(offsets, strides)) + total
    dtype = next((t for t in (np.int16, np.int32) if bound < np.iinfo(t).max), np.int64)
    shift = (shift + 2**63) % 2**64 - 2**63
    block = max(BLOCK_ROWS, 4 * total)
    out = np.zeros(total, np.float64 if weights is not None else np.int64)
    m = min(n := len(codes[0]), block)
    index_buf, code_buf, cell_buf = np.empty(m, dtype), np.empty(m, dtype), np.empty(m, np.intp)
    for start in range(0, n, block):  # cache blocking: a few dozen blocks, each vectorised
        stop = min(n, start + block)
        index, code_part, cell = index_buf[: stop - start], code_buf[: stop - start], cell_buf[: stop - start]
        np.copyto(index, codes[0][start:stop], casting="unsafe")
        for size, code in zip(sizes[1:], codes[1:]):
            index *= dtype(size)
            np.copyto(code_part, code[start:stop], casting="unsafe")
            index += code_part
        if shift:
            index -= dtype(shift)
        np.copyto(cell, index)
        w = None if weights is None else weights[start:stop]
        out += np.bincount(cell, weights=w, minlength=total)
    return out.reshape(sizes)


def as_list(by) -> list:
    """``None`` -> ``[]``, one name -> ``[name]``, an iterable of names -> a list."""
    if by is None:
        return []
    return [by] if isinstance(by, (str, int)) or not hasattr(by, "__iter__") else list(by)


def _group_codes(column, series: pd.Series):
    """``(codes, offset, coordinate, needs_pruning)`` for one ``by`` column."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.array.codes, 0, series.dtype.categories, False
    values = series.to_numpy()
    if values.dtype.kind in "iu" and values.dtype != np.uint64 and len(values):  # uint64 + intp is float64
        low, high = int(values.min()), int(values.max())
        if high - low < MAX_INT_SPAN:
            return values, low, pd.RangeIndex(low, high + 1), True
    try:
        codes, uniques = pd.factorize(series, sort=True)
    except TypeError as exc:
        raise TypeError(f"group column {column!r} mixes values that cannot be sorted ({exc}); convert it to one type") from None
    return codes, 0, pd.Index(uniques), False


def check_weights(name: str, values: np.ndarray) -> np.ndarray:
    """``values`` as float64; an error if any weight is negative, NaN or infinite."""
    if values.dtype.kind not in "iufb":
        raise TypeError(f"{name!r} must be numeric, got dtype {values.dtype}")
    values = values.astype(np.float64, copy=False)
    bad = ~np.isfinite(values) | (values < 0)
    if bad.any():
        shown = ", ".join(repr(float(v)) for v in pd.unique(values[bad])[:5])
        raise ValueError(
            f"{name!r} has {int(bad.sum())} weight(s) that are negative, NaN or infinite ({shown}); "
            "weights must be finite and >= 0"
        )
    return values


def frame_weights(df: pd.DataFrame, weights) -> np.ndarray | None:
    """Checked float64 weights from a column name or one number per row (``None`` stays ``None``)."""
    if weights is None:
        return None
    if isinstance(weights, str):
        return check_weights(weights, df[weights].to_numpy())
    values = np.asarray(weights)
    if values.shape != (len(df),):
        raise ValueError(f"weights has shape {values.shape} for {len(df)} rows; give one weight per row")
    return check_weights("weights", values)


def check_columns(df: pd.DataFrame, columns, weights=None) -> None:
    """A ``KeyError`` listing the DataFrame's columns if one of ``columns`` (or a weights column) is absent."""
    absent = [c for c in dict.fromkeys(columns) if c not in df.columns]
    if absent:
        raise KeyError(f"column(s) {absent} not in the DataFrame; its columns are {list(df.columns)}")
    if isinstance(weights, str) and weights not in df.columns:
        raise KeyError(f"weights column {weights!r} not in the DataFrame; its columns are {list(df.columns)}")


def _missing(series: pd.Series) -> np.ndarray | None:
    """Where a group column is missing (``None`` for dtypes that cannot hold missing values)."""
    if isinstance(series.dtype, pd.CategoricalDtype):
        return series.array.codes < 0
    if isinstance(series.dtype, np.dtype) and series.dtype.kind in "iub":
        return None
    return series.isna().to_numpy()


def frame_cube(df: pd.DataFrame, true, pred, *, by=None, labels=None, weights=None, dropna=False) -> xr.DataArray:
    """The confusion cube of columns ``true`` and ``pred``, one matrix per combination of ``by`` values."""
    by = as_list(by)
    columns = [true, pred, *by]
    check_columns(df, columns, weights)
    w = frame_weights(df, weights)
    classes = class_order({true: df[true], pred: df[pred]}, labels)
    label_codes = {true: encode(true, df[true], classes), pred: encode(pred, df[pred], classes)}
    missing = {c: codes < 0 for c, codes in label_codes.items()}
    missing.update((c, m) for c in by if (m := _missing(df[c])) is not None)
    if any(m.any() for m in missing.values()):
        if not dropna:
            column = next(c for c in columns if c in missing and missing[c].any())
            raise missing_error(column, df[column], missing[column])
        keep = ~np.logical_or.reduce(list(missing.values()))
        warnings.warn(f"dropna=True dropped {int((~keep).sum())} of {len(df)} rows with a missing label or group value", DroppedRowsWarning, stacklevel=3)
        # the class order may depend on the rows kept (numeric labels), so count them afresh
        return frame_cube(df[keep], true, pred, by=by, labels=labels, weights=None if w is None else w[keep])
    groups = [_group_codes(c, df[c]) for c in by]
    codes = [g[0] for g in groups] + [label_codes[true], label_codes[pred]]
    sizes = [len(g[2]) for g in groups] + [len(classes)] * 2
    counts = count_cells(codes, sizes, offsets=[g[1] for g in groups] + [0, 0], weights=w)
    coords = {c: g[2] for c, g in zip(by, groups)}
    for axis, (column, (code, offset, coord, prune)) in enumerate(zip(by, groups)):
        if prune:
            if w is None:  # a value no row has is a slice of zeros
                seen = counts.sum(axis=tuple(a for a in range(counts.ndim) if a != axis))
            else:  # zero weights could hide a value: look at the column itself
                seen = np.bincount(np.subtract(code, offset, dtype=np.intp), minlength=len(coord))
            counts = np.compress(seen > 0, counts, axis=axis)
            coords[column] = coord[seen > 0]
    coords.update(true=classes, pred=classes)
    return xr.DataArray(counts, dims=(*by, *CUBE_DIMS), coords=coords, name="count")


def _array_classes(arrays: dict[str, xr.DataArray], labels) -> pd.Index:
    if labels is not None:
        return class_order({}, labels)
    kinds = {name: a.dtype for name, a in arrays.items()}
    if not all(dt.kind in "iufb" for dt in kinds.values()):
        shown = ", ".join(f"{name!r} ({dt})" for name, dt in kinds.items())
        raise TypeError(f"cannot tell the class order of {shown}: pass labels=[...] in order (lowest first)")
    observed = [np.unique(a.data).compute() if hasattr(a.data, "dask") else np.unique(a.data) for a in arrays.values()]  # dask: per-chunk unique, then merged
    return class_order({name: pd.Series(v) for name, v in zip(arrays, observed)}, None)


def _count_block(true, pred, weights, *, names, classes, n_core, dropna):
    """Per-block counts of shape ``(*outer, 1, ..., 1, K * K)`` (core axes kept as size 1)."""
    outer = true.shape[: true.ndim - n_core]
    n_groups, k = math.prod(outer), len(classes)
    group = np.repeat(np.arange(n_groups), math.prod(true.shape[true.ndim - n_core :]))
    flat = [pd.Series(np.asarray(a).reshape(-1)) for a in (true, pred)]
    w = None if weights is None else check_weights("weights", np.asarray(weights).reshape(-1))
    missing = [s.isna().to_numpy() for s in flat]
    if missing[0].any() or missing[1].any():
        if not dropna:
            name, s, mask = next((n, s, m) for n, s, m in zip(names, flat, missing) if m.any())
            raise missing_error(name, s, mask)
        keep = ~(missing[0] | missing[1])
        warnings.warn(f"dropna=True dropped {int((~keep).sum())} of {len(keep)} samples with a missing label", DroppedRowsWarning, stacklevel=2)
        flat, group = [s[keep] for s in flat], group[keep]
        w = None if w is None else w[keep]
    codes = [group] + [encode(n, s, classes) for n, s in zip(names, flat)]
    counts = count_cells(codes, [n_groups, k, k], weights=w)
    return counts.reshape(*outer, *([1] * n_core), k * k)


def array_cube(pred: xr.DataArray, true: xr.DataArray, *, dim=None, labels=None, weights=None, dropna=False) -> xr.DataArray:
    """The confusion cube of label arrays ``true`` and ``pred``, counting over ``dim`` (default: all dims)."""
    arrays = [true, pred] + ([] if weights is None else [weights])
    try:
        arrays = xr.broadcast(*xr.align(*arrays, join="exact"))
    except ValueError as exc:
        raise ValueError(f"the label arrays' coordinates disagree ({exc}); align them first, e.g. with xarray.align") from None
    if any(a.chunks is not None for a in arrays):  # map_blocks would pass a numpy array whole to every block
        arrays = [a if a.chunks is not None else a.chunk() for a in arrays]
    arrays = list(xr.unify_chunks(*arrays))
    core = list(arrays[0].dims) if dim is None else as_list(dim)
    absent = [d for d in core if d not in arrays[0].dims]
    if absent:
        raise ValueError(f"dim {absent} not found; the label arrays have dims {tuple(arrays[0].dims)}")
    outer = [d for d in dict.fromkeys((*pred.dims, *arrays[0].dims)) if d not in core]  # pred's dim order first
    arrays = [a.transpose(*outer, *core) for a in arrays]
    names = (true.name or "true", pred.name or "pred")
    if names[0] == names[1]:
        names = ("true", "pred")
    classes = _array_classes(dict(zip(names, arrays[:2])), labels)
    k = len(classes)
    params = dict(names=names, classes=classes, n_core=len(core), dropna=dropna)
    data = [a.data for a in arrays] + [None] * (3 - len(arrays))
    dtype = np.int64 if weights is None else np.float64
    if any(hasattr(d, "dask") for d in data if d is not None):
        import dask.array as dsa

        first = data[0]
        chunks = first.chunks[: len(outer)] + tuple((1,) * len(c) for c in first.chunks[len(outer) :]) + ((k * k,),)
        blocks = dsa.map_blocks(
            lambda t, p, w=None: _count_block(t, p, w, **params),
            *[d for d in data if d is not None],
            chunks=chunks,
            new_axis=[first.ndim],
            dtype=dtype,
            meta=np.empty((0,) * (first.ndim + 1), dtype),
        )
    else:
        blocks = _count_block(*data, **params)
    counts = blocks.sum(axis=tuple(range(len(outer), len(outer) + len(core))))
    counts = counts.reshape(counts.shape[:-1] + (k, k))
    coords = {name: c for a in arrays for name, c in a.coords.items() if set(c.dims) <= set(outer)}
    coords.update(true=classes, pred=classes)
    return xr.DataArray(counts, dims=(*outer, *CUBE_DIMS), coords=coords, name="count")
