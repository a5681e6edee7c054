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

With a marker (``marker=``, for the score metrics), each partition's rows are
reduced to one per (group, class, marker value) with their summed weight, a
small pandas frame; the partial frames are concatenated and reduced again in
the same tree, and the pandas front end computes the score metrics on the
whole (``DaskRows.result``), with the weights as ``weights=``: the values of
``ddf.compute()`` with the rows summed in another order. Group values are kept
as categories, so that a value whose rows were all dropped stays, as pandas
keeps it.

The result is lazy when its shape is known without reading the data: classes
from ``labels=`` or ordered categories, and ``by`` columns that are
categoricals with known categories (``ddf.categorize()`` makes them so),
without ``observed=True``. Otherwise the partitions are read once and the cube
(and the reduced rows) come back in memory (small: K x K per group, one row
per distinct marker value and class), as xarray reads the group labels of a
dask-backed groupby.
"""

from __future__ import annotations

import functools
import math
import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import is_column_name
from ordframe._core.dims import OBSERVED_DIM, PRED, TRUE
from ordframe._core.messages import MAX_SHOWN
from ordframe._inputs.classes import check_two, missing_values_error
from ordframe._inputs.counting import warn_classes_differ, warn_predicted_only
from ordframe._inputs.frame import FrameRows, frame_rows, warn_dropped
from ordframe._inputs.marker import marker_table
from ordframe._inputs.selection import Selection

# Partial cubes are merged this many at a time (the fan-in of the tree reduction).
SPLIT_EVERY = 8


@dataclass
class Partial:
    """The cube of some partitions, with what the whole needs to be checked and warned about."""

    cube: xr.DataArray | None  # None: a partition failed, or no pred= is given
    rows: int
    dropped: int
    dropped_in: tuple
    inferred: bool  # the classes were inferred from the values seen (their union is the whole's)
    error: Exception | None = None  # the failure of the earliest step (``FRAME_STEPS``) among the partitions
    reduced: pd.DataFrame | None = None  # with a marker, the rows reduced (``_reduced``)


@dataclass(frozen=True)
class DaskRows:
    """What a dask DataFrame's rows give: the confusion cube (with ``pred``) and the rows reduced for the score
    metrics (with ``marker``), each lazy when the classes and groups are declared (see the module docstring)."""

    cube: xr.DataArray | None
    reduced: Any  # a pandas DataFrame (``_reduced``), or a dask Delayed of one; None without a marker
    meta: pd.DataFrame | None  # ``reduced`` of no rows
    selection: Selection  # the selection of ``reduced``: ``reduced_selection``

    def computed(self) -> pd.DataFrame:
        """The reduced rows, in memory."""
        return self.reduced if isinstance(self.reduced, pd.DataFrame) else self.reduced.compute()

    def result(self, compute: Callable[[pd.DataFrame, Selection], xr.Dataset]) -> xr.Dataset:
        """``compute`` (the pandas front end) on the reduced rows and their selection; lazy when they are."""
        if isinstance(self.reduced, pd.DataFrame):
            return compute(self.reduced, self.selection)
        import dask
        import dask.array as da

        assert self.meta is not None  # the rows of a marker
        template = compute(self.meta, self.selection)
        whole = dask.delayed(compute, pure=True)(self.reduced, self.selection)
        data = {
            name: da.from_delayed(dask.delayed(_values)(whole, name), shape=v.shape, dtype=v.dtype)
            for name, v in template.data_vars.items()
        }
        return template.copy(data=data)


def _values(ds: xr.Dataset, name) -> Any:
    return ds[name].values


def reduced_selection(selection: Selection) -> Selection:
    """The selection of the reduced rows: the columns of ``selection``, their summed weights in a column of their
    own, and no missing value to drop."""
    taken = {selection.true, selection.marker, *selection.by}
    weight = "weight"
    while weight in taken:
        weight += "_"
    return Selection(
        selection.true, by=selection.by, labels=selection.labels, weights=weight, observed=selection.observed,
        marker=selection.marker, by_keyword=selection.by_keyword,
    )  # fmt: skip


def check_dask_frame(ddf) -> None:
    """An error unless ``ddf`` is a dask DataFrame."""
    import dask.dataframe as dd

    if not isinstance(ddf, dd.DataFrame):
        raise TypeError(f"expected a dask DataFrame, got {type(ddf).__name__}")


def dask_cube(ddf, selection: Selection) -> xr.DataArray:
    """The confusion cube of a dask DataFrame, one matrix per combination of ``by`` values (see the module docstring)."""
    cube = dask_rows(ddf, selection).cube
    assert cube is not None  # the rows of a prediction
    return cube


def dask_rows(ddf, selection: Selection) -> DaskRows:
    """The cube (with ``selection.pred``) and the rows reduced (with ``selection.marker``) of a dask DataFrame, from
    one tree reduction over its partitions (see the module docstring)."""
    import dask

    check_dask_frame(ddf)
    for value, what in ((selection.pred, "pred"), (selection.weights, "weights")):
        if value is not None and not is_column_name(value):
            raise TypeError(
                f"{what}= must name a column of the dask DataFrame, got {type(value).__name__}; rows have no "
                f"position across partitions: add the values as a column (ddf.assign) and give its name"
            )
    meta = frame_rows(ddf._meta, selection, part=True)  # the arguments, checked on no rows
    template = None if selection.pred is None else meta.cube()
    reduced_meta = None if selection.marker is None else _reduced(ddf._meta, meta, selection)
    categorical = {str(c) for c in selection.by if isinstance(ddf._meta[c].dtype, pd.CategoricalDtype)}
    count = functools.partial(_count, selection=selection)
    parts = [dask.delayed(count, pure=True)(p) for p in ddf.to_delayed()]
    while len(parts) > 1:
        merge = functools.partial(_merge, categorical=categorical, selection=selection)
        parts = [dask.delayed(merge, pure=True)(*parts[i : i + SPLIT_EVERY]) for i in range(0, len(parts), SPLIT_EVERY)]
    finish = functools.partial(_finish, pred=selection.pred, by=selection.by)
    rows_selection = reduced_selection(selection)
    if not _shape_known(ddf, selection, meta.classes):
        whole = dask.delayed(finish, pure=True)(parts[0]).compute()
        return DaskRows(whole.cube, whole.reduced, reduced_meta, rows_selection)
    import dask.array as da

    finished = dask.delayed(finish)(parts[0])
    cube = None
    if template is not None:
        values = dask.delayed(functools.partial(_onto, template=template), pure=True)(finished)
        cube = template.copy(data=da.from_delayed(values, shape=template.shape, dtype=template.dtype))
    reduced = None if reduced_meta is None else dask.delayed(operator.attrgetter("reduced"), pure=True)(finished)
    return DaskRows(cube, reduced, reduced_meta, rows_selection)


def _shape_known(ddf, selection: Selection, classes: pd.Index) -> bool:
    """Whether ``classes`` (those of no rows) and the groups of no rows are already those of the whole frame."""
    if selection.observed:
        return False
    meta = ddf._meta
    labelled = [c for c in (selection.true, selection.pred) if c is not None]
    known = [d for d in (meta[c].dtype for c in labelled) if isinstance(d, pd.CategoricalDtype) and d.ordered]
    declared = selection.labels is not None or (
        bool(known) and all(ddf[c].cat.known for c in labelled if c in _cats(meta))
    )
    groups = all(isinstance(meta[c].dtype, pd.CategoricalDtype) and ddf[c].cat.known for c in selection.by)
    return declared and groups and len(classes) >= 2


def _cats(meta: pd.DataFrame) -> set:
    return {c for c in meta.columns if isinstance(meta[c].dtype, pd.CategoricalDtype)}


def _count(part: pd.DataFrame, *, selection: Selection) -> Partial:
    """The labelled cube and the reduced rows of one partition, by the pandas front end; its error is kept, to be
    weighed against the others'."""
    try:
        rows = frame_rows(part, selection, part=True)
        reduced = None if selection.marker is None else _reduced(part, rows, selection)
    except (ValueError, TypeError, KeyError) as exc:
        return Partial(None, len(part), 0, (), False, exc)
    cube = None if selection.pred is None else rows.cube()
    return Partial(cube, len(part), rows.dropped, rows.dropped_in, rows.pred_name is not None, reduced=reduced)


def _reduced(df: pd.DataFrame, rows: FrameRows, selection: Selection) -> pd.DataFrame:
    """The ``rows`` of ``df`` reduced to one per (group, class, marker value) with their summed weight, in the columns
    of ``reduced_selection(selection)``.

    The groups are categoricals of the values ``rows`` lays results out over (those of the rows kept for integers
    coded by offset, whose other values a result drops), so that no group value is lost with its rows.
    """
    true, marker = rows.true.array(), rows.marker
    assert marker is not None  # the rows of a score metric
    groups = rows.groups
    groups.check_size(1)
    group = groups.flat_index(len(true))
    table = marker_table(group, marker, true, len(rows.classes), math.prod(groups.sizes), rows.weights)
    cells, first = np.unique(table.cell, return_index=True)
    columns: dict = {selection.marker: marker[first]}
    for c in groups.columns:
        values = c.coord[np.asarray(c.codes)[first] - c.offset]
        dtype = df[c.name].dtype
        if not isinstance(dtype, pd.CategoricalDtype):
            dtype = pd.CategoricalDtype(values.unique().sort_values() if c.prune else c.coord)
        columns[c.name] = pd.Categorical(values, dtype=dtype)
    columns[selection.true] = pd.Series(rows.classes[true[first]]).astype(df[selection.true].dtype).array
    columns[reduced_selection(selection).weights] = table.counts.ravel()[cells]
    reduced = pd.DataFrame(dict(enumerate(columns.values())))
    reduced.columns = pd.Index(list(columns), tupleize_cols=False)
    return reduced


def _merge(*partials: Partial, categorical: set, selection: Selection) -> Partial:
    """The sum of partial cubes, aligned by label, and the partial reduced rows reduced again; or the error the whole
    frame has (the earliest step's)."""
    failed = [p.error for p in partials if p.error is not None]
    if failed:
        error = min(failed, key=lambda exc: getattr(exc, "step", 0))
        if hasattr(error, "missing"):  # counted over every part, not only the first that has some
            error = _missing_in_all(error, failed)
        return Partial(None, 0, 0, (), False, error)
    where = tuple(dict.fromkeys(w for p in partials for w in p.dropped_in))
    inferred = any(p.inferred for p in partials)
    rows, dropped = sum(p.rows for p in partials), sum(p.dropped for p in partials)
    cubes = [p.cube for p in partials if p.cube is not None]
    frames = [p.reduced for p in partials if p.reduced is not None]
    return Partial(
        _summed(cubes, inferred, categorical) if cubes else None, rows, dropped, where, inferred,
        reduced=_reduced_again(frames, selection, categorical) if frames else None,
    )  # fmt: skip


def _reduced_again(frames: list[pd.DataFrame], selection: Selection, categorical: set) -> pd.DataFrame:
    """The reduced rows of several partials as one: their group values united (``_union``), the rows reduced again."""
    frames = [f.copy() for f in frames]
    for name in selection.by:
        united = _union([f[name].cat.categories for f in frames], sort=str(name) not in categorical)
        for f in frames:
            f[name] = f[name].cat.set_categories(united)
    filled = [f for f in frames if len(f)] or frames[:1]  # an empty frame's columns may have another dtype
    whole = pd.concat(filled, ignore_index=True)
    again = reduced_selection(selection)
    return _reduced(whole, frame_rows(whole, again, part=True), again)


def _summed(cubes: list[xr.DataArray], inferred: bool, categorical: set) -> xr.DataArray:
    """The sum of partial cubes, aligned by label."""
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
    return xr.DataArray(total, dims=first.dims, coords=coords, name="count")


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


def _finish(partial: Partial, *, pred, by) -> Partial:
    """The whole, its cube checked and warned about as the pandas front end does for a whole frame (the reduced
    rows are, by it)."""
    if partial.dropped:
        warn_dropped(partial.dropped, partial.rows, partial.dropped_in)
    if partial.error is not None:
        raise partial.error
    cube = partial.cube
    if cube is None:
        return partial
    check_two(cube.indexes[TRUE])
    if partial.inferred:
        counts = cube.values
        warn_predicted_only(counts, cube.indexes[TRUE], pred)
        if cube.ndim > 2:
            warn_classes_differ(counts, cube.indexes[TRUE], [*map(str, by)])
    return partial


def _onto(partial: Partial, *, template: xr.DataArray) -> np.ndarray:
    """The counts of ``partial``'s cube laid out on the classes and groups of ``template`` (the shape known in
    advance)."""
    cube = partial.cube
    assert cube is not None  # the partial of a prediction
    out = np.zeros(template.shape, template.dtype)
    at = [template.indexes[d].get_indexer(cube.indexes[d]) for d in template.dims]
    if any((a < 0).any() for a in at):
        raise ValueError("a partition has classes or group values that its dtype does not declare")
    out[np.ix_(*at)] = cube.values
    return out
