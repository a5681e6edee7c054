"""dask DataFrames through the pandas front end: each partition is coded and counted by ``frame_rows``.

A partition is a pandas DataFrame, so everything the pandas front end decides
(class order, groups, missing values, weights, the errors and the row labels
they name) is decided here by the same code. Each partition gives a cube
labelled with the classes and group values it has; the partial cubes are
aligned by label and summed in a tree reduction (which ``dask.distributed``
runs on its workers), and the whole is then checked and warned about once,
as pandas checks the whole frame:

* classes: declared ones (``labels=``, ordered categories) are the same in
  every partition; inferred ones are the sorted union of the values seen, the
  rule for the whole frame;
* group values: the sorted union, or for categoricals the categories in the
  order they appear (what ``ddf.compute()`` gives).

The result is lazy when its shape is known without reading the data: classes
from ``labels=`` or ordered categories, and ``by`` columns that are
categoricals with known categories (``ddf.categorize()`` makes them so),
without ``observed=True``. Otherwise the partitions are read once and the cube
comes back in memory (it is small: K x K per group), as xarray reads the group
labels of a dask-backed groupby.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import is_column_name
from ordframe._core.dims import OBSERVED_DIM, PRED, TRUE
from ordframe._core.messages import MAX_SHOWN
from ordframe._inputs.classes import check_two, missing_values_error
from ordframe._inputs.counting import warn_classes_differ, warn_predicted_only
from ordframe._inputs.frame import frame_rows, warn_dropped
from ordframe._inputs.selection import Selection

# Partial cubes are merged this many at a time (the fan-in of the tree reduction).
SPLIT_EVERY = 8


@dataclass
class Partial:
    """The cube of some partitions, with what the whole needs to be checked and warned about."""

    cube: xr.DataArray | None  # None: a partition failed
    rows: int
    dropped: int
    dropped_in: tuple
    inferred: bool  # the classes were inferred from the values seen (their union is the whole's)
    error: Exception | None = None  # the failure of the earliest step (``FRAME_STEPS``) among the partitions


def check_dask_frame(ddf) -> None:
    """An error unless ``ddf`` is a dask DataFrame."""
    import dask.dataframe as dd

    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"expected a dask DataFrame, got {type(ddf).__name__}")


def dask_cube(ddf, selection: Selection) -> xr.DataArray:
    """The confusion cube of a dask DataFrame, one matrix per combination of ``by`` values (see the module docstring)."""
    import dask

    check_dask_frame(ddf)
    for value, what in ((selection.pred, "pred"), (selection.weights, "weights")):
        if value is not None and not is_column_name(value):
            raise TypeError(
                f"{what}= must name a column of the dask DataFrame, got {type(value).__name__}; rows have no "
                f"position across partitions: add the values as a column (ddf.assign) and give its name"
            )
    template = frame_rows(ddf._meta, selection, part=True).cube()  # the arguments, checked on no rows
    categorical = {str(c) for c in selection.by if isinstance(ddf._meta[c].dtype, pd.CategoricalDtype)}
    count = functools.partial(_count, selection=selection)
    parts = [dask.delayed(count, pure=True)(p) for p in ddf.to_delayed()]
    while len(parts) > 1:
        merge = functools.partial(_merge, categorical=categorical)
        parts = [dask.delayed(merge, pure=True)(*parts[i : i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)]
    finish = functools.partial(_finish, pred=selection.pred, by=selection.by)
    if not _shape_known(ddf, selection, template):
        return dask.delayed(finish, pure=True)(parts[0]).compute()
    import dask.array as da

    values = dask.delayed(functools.partial(_onto, template=template), pure=True)(dask.delayed(finish)(parts[0]))
    data = da.from_delayed(values, shape=template.shape, dtype=template.dtype)
    return template.copy(data=data)


def _shape_known(ddf, selection: Selection, template: xr.DataArray) -> bool:
    """Whether ``template`` (the cube of no rows) already has the classes and groups of the whole frame."""
    if selection.observed:
        return False
    meta = ddf._meta
    labelled = (selection.true, selection.pred)
    known = [d for d in (meta[c].dtype for c in labelled) if isinstance(d, pd.CategoricalDtype) and d.ordered]
    classes = selection.labels is not None or (
        bool(known) and all(ddf[c].cat.known for c in labelled if c in _cats(meta))
    )
    groups = all(isinstance(meta[c].dtype, pd.CategoricalDtype) and ddf[c].cat.known for c in selection.by)
    return classes and groups and template.sizes[TRUE] >= 2


def _cats(meta: pd.DataFrame) -> set:
    return {c for c in meta.columns if isinstance(meta[c].dtype, pd.CategoricalDtype)}


def _count(part: pd.DataFrame, *, selection: Selection) -> Partial:
    """The labelled cube of one partition, by the pandas front end; its error is kept, to be weighed against the others'."""
    try:
        rows = frame_rows(part, selection, part=True)
    except (ValueError, TypeError, KeyError) as exc:
        return Partial(None, len(part), 0, (), False, exc)
    return Partial(rows.cube(), len(part), rows.dropped, rows.dropped_in, rows.pred_name is not None)


def _merge(*partials: Partial, categorical: set) -> Partial:
    """The sum of partial cubes, aligned by label; or the error the whole frame has (the earliest step's)."""
    failed = [p.error for p in partials if p.error is not None]
    if failed:
        error = min(failed, key=lambda exc: getattr(exc, "step", 0))
        if hasattr(error, "missing"):  # counted over every part, not only the first that has some
            error = _missing_in_all(error, failed)
        return Partial(None, 0, 0, (), False, error)
    cubes = [p.cube for p in partials if p.cube is not None]
    where = tuple(dict.fromkeys(w for p in partials for w in p.dropped_in))
    inferred = any(p.inferred for p in partials)
    rows, dropped = sum(p.rows for p in partials), sum(p.dropped for p in partials)
    first = cubes[0]
    classes = _classes([c.indexes[TRUE] for c in cubes], inferred)
    indexes = {d: _union([c.indexes[d] for c in cubes], sort=d not in categorical) for d in first.dims[:-2]}
    if OBSERVED_DIM in indexes and isinstance(first.indexes[OBSERVED_DIM], pd.MultiIndex):
        indexes[OBSERVED_DIM] = _union([c.indexes[OBSERVED_DIM] for c in cubes], sort=True)
    indexes.update({TRUE: classes, PRED: classes})
    total = np.zeros([len(indexes[d]) for d in first.dims], first.dtype)
    for cube in cubes:
        at = np.ix_(*[indexes[d].get_indexer(cube.indexes[d]) for d in cube.dims])
        total[at] += cube.values
    coords: dict = {}
    for d, index in indexes.items():
        if isinstance(index, pd.MultiIndex):
            coords.update(xr.Coordinates.from_pandas_multiindex(index, d))
        else:
            coords[d] = (d, index)
    return Partial(xr.DataArray(total, dims=first.dims, coords=coords, name="count"), rows, dropped, where, inferred)


def _missing_in_all(error: Exception, failed: list) -> ValueError:
    """The missing values of ``error``'s column in every part that failed on them, as one error at its step."""
    column = error.missing[0]  # type: ignore[attr-defined]
    parts = [e.missing for e in failed if getattr(e, "missing", (None,))[0] == column]
    whole = missing_values_error(column, sum(count for _, count, _ in parts), [r for *_, first in parts for r in first])
    whole.step = getattr(error, "step", 0)  # type: ignore[attr-defined]
    return whole


def missing_in_whole(ddf, error: ValueError) -> ValueError:
    """A missing-values ``error`` of one partition said of the whole dask frame: its column counted everywhere."""
    import dask

    column = error.missing[0]  # type: ignore[attr-defined]
    missing = ddf[column].isna()
    count, rows = dask.compute(missing.sum(), ddf[missing].index)
    return missing_values_error(column, int(count), list(rows[:MAX_SHOWN]))


def _classes(indexes: list[pd.Index], inferred: bool) -> pd.Index:
    """The classes of the whole: those of every part if they agree, else (inferred ones only) their sorted union."""
    first = indexes[0]
    if all(index.equals(first) for index in indexes):
        return first
    if not inferred:
        differ = next(index for index in indexes if not index.equals(first))
        raise ValueError(
            f"the partitions have different ordered categories ({list(first)} vs {list(differ)}); give every "
            "partition the same categories (ddf.categorize(), or astype with one CategoricalDtype) or pass labels="
        )
    return _union(indexes, sort=True)


def _union(indexes: list[pd.Index], *, sort: bool) -> pd.Index:
    """The values of all ``indexes``, each once: sorted, or in the order they first appear."""
    union = functools.reduce(lambda a, b: a.append(b[~b.isin(a)]), indexes[1:], indexes[0])
    return union.sort_values() if sort else union


def _finish(partial: Partial, *, pred, by) -> xr.DataArray:
    """The whole cube, checked and warned about as the pandas front end does for a whole frame."""
    if partial.dropped:
        warn_dropped(partial.dropped, partial.rows, partial.dropped_in)
    if partial.error is not None:
        raise partial.error
    cube = partial.cube
    assert cube is not None  # a partial is a cube or an error
    check_two(cube.indexes[TRUE])
    if partial.inferred:
        counts = cube.values
        warn_predicted_only(counts, cube.indexes[TRUE], pred)
        if cube.ndim > 2:
            warn_classes_differ(counts, cube.indexes[TRUE], [*map(str, by)])
    return cube


def _onto(cube: xr.DataArray, *, template: xr.DataArray) -> np.ndarray:
    """The counts of ``cube`` laid out on the classes and groups of ``template`` (the shape known in advance)."""
    out = np.zeros(template.shape, template.dtype)
    at = [template.indexes[d].get_indexer(cube.indexes[d]) for d in template.dims]
    if any((a < 0).any() for a in at):
        raise ValueError("a partition has classes or group values that its dtype does not declare")
    out[np.ix_(*at)] = cube.values
    return out
