"""The DataFrame front end: one validated, position-coded view of the rows every DataFrame method uses.

``frame_rows`` checks the arguments, finds missing values (an error, or
the rows dropped with ``dropna=True``), decides the class order, codes the
labels, groups and weights by position and checks the probabilities. Cubes
(``FrameRows.cube``) and means of per-sample scores (``FrameRows.mean``)
are then counted over the same group codes with the same weights, so they
cannot disagree about which row belongs where.
"""

from __future__ import annotations

import numbers
from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, TypeVar

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.arguments import about
from ordframe._core.checks import is_column_name
from ordframe._core.dims import CUBE_DIMS, PRED, TRUE
from ordframe._core.messages import MAX_SHOWN, DroppedRowsWarning, RowNames, show, show_counts, warn
from ordframe._inputs.classes import (
    MAX_COUNTED_SPAN,
    check_two,
    class_order,
    declared_order,
    encode,
    inferred_order,
    integer_span,
    labels_of,
    missing_error,
    offset_of,
    samples_fewer,
)
from ordframe._inputs.counting import (
    OutsideAxis,
    checks_codes,
    count_cells,
    drop_absent_classes,
    warn_classes_differ,
    warn_predicted_only,
)
from ordframe._inputs.groups import GroupColumn, Groups, confirmed, group_column
from ordframe._inputs.marker import MarkerTable, marker_table
from ordframe._inputs.probability import check_proba, frame_classes
from ordframe._inputs.selection import Selection
from ordframe._inputs.vectors import Vectors
from ordframe._inputs.weights import check_weights


@dataclass
class Codes:
    """Class codes of one label column: ``values - offset`` (integer labels serve as their own codes)."""

    values: np.ndarray
    offset: int = 0

    def array(self) -> np.ndarray:
        """The codes as int64."""
        return self.values.astype(np.int64) - self.offset


T = TypeVar("T")
PROBABILITY_COLUMNS = "the probability columns"  # their missing values, beside those of named columns


class _Confirmed(Generic[T]):
    """A field of ``FrameRows`` read after its sampled spans are confirmed (the value is kept as ``_<name>``)."""

    def __set_name__(self, owner, name: str) -> None:
        self.field = f"_{name}"

    def __get__(self, rows, owner=None) -> T:
        rows._confirm()
        return getattr(rows, self.field)


@dataclass
class FrameRows:
    """The rows kept, coded by position: class codes, checked probabilities, weights and groups.

    With ``prune_classes`` the classes are every integer between the lowest and
    the highest label, and the cube keeps only those that occur.

    Integer labels and ``by`` columns may be laid out over spans read from a
    sample of the rows (``classes.sampled_range``) where the count checks each
    code (``counting.checks_codes``), which the first count confirms while it
    reads every row: one pass instead of two. Anything else that reads the
    classes, codes or groups first confirms the spans exactly (``_confirm``),
    so no reader sees a sampled span that is not the exact one.
    """

    index: pd.Index  # the DataFrame's labels of the rows kept (for messages and tables)
    _classes: pd.Index
    _true: Codes
    _pred: Codes | None
    proba: np.ndarray | None  # (rows, K)
    weights: np.ndarray | None
    _groups: Groups
    _prune_classes: bool = False
    pred_name: Hashable | None = None  # set when the classes were inferred from the values seen: checked then
    unscored: np.ndarray | None = None  # rows of groups without probabilities: their scores are NaN
    part: bool = False  # the rows of one part of a larger frame: the whole is checked and warned about
    dropped: int = 0  # rows dropped by dropna=True
    dropped_in: tuple = ()  # the columns where they had missing values
    _sampled_labels: dict | None = None  # the label columns, when the classes are a span read from samples of them
    marker: np.ndarray | None = None  # the score of every row, float64 (``Selection.marker``)

    # read through ``_confirm``: what a reader sees was coded over exact spans
    classes = _Confirmed[pd.Index]()
    true = _Confirmed[Codes]()
    pred = _Confirmed["Codes | None"]()
    groups = _Confirmed[Groups]()
    prune_classes = _Confirmed[bool]()

    @property
    def grouped(self) -> bool:
        """Whether the rows are grouped (by ``by`` columns), read without confirming sampled spans."""
        return bool(self._groups.columns)

    def _sampled(self) -> bool:
        """Whether some span was read from a sample and is not confirmed yet."""
        return self._sampled_labels is not None or any(c.sampled for c in self._groups.columns)

    def _confirm(self, counted: bool = False) -> None:
        """Make the sampled spans exact: known to be (``counted``: every row was counted inside them), or recomputed."""
        if not self._sampled():
            return
        if not counted and self._sampled_labels is not None:
            self._classes, codes, self._prune_classes = label_codes(self._sampled_labels, self.part)
            self._true, self._pred = codes[TRUE], codes.get(PRED)
        self._sampled_labels = None
        columns = [replace(c, sampled=False) if counted else confirmed(c) for c in self._groups.columns]
        self._groups = Groups(columns, observed=self._groups.observed)

    def predicting(self, pred: np.ndarray) -> FrameRows:
        """These rows with ``pred`` (class codes over ``classes``) as their predictions, the spans made exact first:
        what they would recode from the label columns is replaced."""
        self._confirm()
        return replace(self, _pred=Codes(pred), pred_name=None)

    def predicted(self) -> Codes:
        """Predicted class codes: the ``pred`` column, or else the most probable class (the lowest on ties)."""
        if self.pred is not None:
            return self.pred
        if self.proba is None:
            raise TypeError("predicted labels (pred=) or class probabilities (proba=) are needed")
        return Codes(self.proba.argmax(axis=1))

    def counts(self) -> np.ndarray:
        """The counts ``(*self.groups.sizes, K, K)`` of these rows over ``self.classes``, unlabelled.

        Sampled spans are confirmed by this count, or made exact and the rows counted again.
        """
        if not self._sampled():
            return self._counts()
        if not checks_codes(len(self.index)):  # a count that trusts the codes confirms nothing
            self._confirm()
            return self._counts()
        try:
            counts = self._counts()
        except OutsideAxis:  # a row outside a sampled span: count over the exact spans
            self._confirm()
            return self._counts()
        self._confirm(counted=True)
        return counts

    def _counts(self) -> np.ndarray:
        k = len(self._classes)
        self._groups.check_size(k * k)
        codes, sizes, offsets = self._groups.counting()
        pred = self._pred if self._pred is not None else self.predicted()
        return count_cells(
            [*codes, self._true.values, pred.values],
            [*sizes, k, k],
            offsets=[*offsets, self._true.offset, pred.offset],
            weights=self.weights,
        )

    def cube(self, warned: bool = False) -> xr.DataArray:
        """The confusion cube ``(*groups, true, pred)`` of these rows (``warned``: the label warnings were given
        already, by an evaluation of these rows)."""
        counts, classes = self.matrices(warned)
        rows = counts.sum(axis=(-2, -1)) if self.weights is None else None
        coords = {TRUE: classes, PRED: classes}
        return self.groups.labelled(counts, CUBE_DIMS, coords, rows=self._rows(rows), name="count")

    def matrices(self, warned: bool = False) -> tuple[np.ndarray, pd.Index]:
        """The counts ``(*groups, true, pred)`` of ``cube`` and its classes, checked and warned about, unlabelled."""
        counts = self.counts()
        pred = self.predicted()
        classes = self.classes
        if self.prune_classes:
            labels = None if self.weights is None else [self.true.array(), pred.array()]
            counts, classes = drop_absent_classes(counts, classes, labels)
        if not self.part:  # a part of a frame: the whole is checked and warned about
            check_two(classes)
            if self.pred_name is not None and not warned:
                warn_predicted_only(counts, classes, self.pred_name)
                if self.groups.columns:
                    warn_classes_differ(counts, classes, self.groups.names)
        return counts, classes

    def mean(self, scores: np.ndarray, name: str) -> xr.DataArray:
        """The (weighted) mean of one score per row, per group."""
        mean, weight = self.means(scores)
        w = self.weights
        return self.groups.labelled(mean, rows=self._rows(weight if w is None else None), name=name)

    def means(self, scores: np.ndarray) -> tuple[np.ndarray, np.ndarray | float]:
        """The (weighted) mean of one score per row per group ``(*groups)``, unlabelled, and the weight of each."""
        self.groups.check_size(1)
        codes, sizes, offsets = self.groups.counting()
        w = self.weights
        weighted = scores if w is None else w * scores
        total: np.ndarray | float
        weight: np.ndarray | float
        if codes:
            total = count_cells(codes, sizes, offsets=offsets, weights=weighted)
            weight = count_cells(codes, sizes, offsets=offsets, weights=w)
        else:
            total, weight = np.sum(weighted), np.sum(np.ones(len(scores)) if w is None else w)
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = total / weight
        return np.asarray(mean), weight

    def labelled(self, values: np.ndarray, name: str) -> xr.DataArray:
        """One value per group (``values`` of any shape with that many values) over the group dims."""
        return self.groups.labelled(np.reshape(values, self.groups.sizes), rows=self._rows(None), name=name)

    def marker_table(self) -> tuple[MarkerTable, pd.Index]:
        """The weight of each class at each distinct marker value, per group (``marker_table``), over the classes
        that a label has (``observed_classes``), and those classes."""
        rows = self.observed_classes()
        assert rows.marker is not None  # the rows of a score metric
        rows.groups.check_size(1)
        group = rows.groups.flat_index(len(rows.index))
        n_groups = int(np.prod(rows.groups.sizes))
        table = marker_table(group, rows.marker, rows.true.array(), len(rows.classes), n_groups, rows.weights)
        return table, rows.classes

    def observed_classes(self) -> FrameRows:
        """These rows over the classes that a label has (integer labels are counted over their span), at least two.

        The classes of ``cube``, for code that works on the class codes themselves.
        """
        if not self.prune_classes:
            return self
        k = len(self.classes)
        codes = [self.true.array()] + ([] if self.pred is None else [self.pred.array()])
        seen = np.logical_or.reduce([np.bincount(c, minlength=k) > 0 for c in codes])
        table = np.cumsum(seen) - 1
        pred = None if self.pred is None else Codes(table[codes[1]])
        return replace(
            self, _classes=check_two(self.classes[seen]), _true=Codes(table[codes[0]]), _pred=pred, _prune_classes=False
        )

    def empty(self) -> bool:
        """Whether no row is kept, or the weights of those kept sum to 0."""
        return len(self.index) == 0 or (self.weights is not None and not self.weights.sum() > 0)

    def _rows(self, counts):
        """Rows per group (to drop integer group values no row has); counted here when weights could hide them."""
        if not any(c.prune for c in self.groups.columns) or self.groups.observed:
            return None
        if counts is None:
            codes, sizes, offsets = self.groups.counting()
            counts = count_cells(codes, sizes, offsets=offsets)
        return counts


def frame_rows(
    df: pd.DataFrame | Vectors, selection: Selection, *, unscored_groups: int | None = None, part: bool = False
) -> FrameRows:
    """Validate and code the rows of ``df`` (a DataFrame, or ``Vectors`` read as its columns) that ``selection``
    names (see the module docstring).

    The checks run as the steps of ``FRAME_STEPS``, in order, over all rows. With
    ``unscored_groups=n``, the rows of a group of the first ``n`` ``by`` columns
    whose probabilities are all missing are kept for the label metrics and marked
    ``unscored`` (a model that predicts labels only); missing probabilities in a
    group that has some are an error, or dropped with ``dropna``. With
    ``part=True`` the rows are one part of a larger frame (a dask partition):
    fewer than two classes is no error, and neither the rows dropped nor
    suspicious labels are warned about: the caller does it once for the whole
    (``FrameRows.dropped``). An error carries the ``step`` (its position in
    ``FRAME_STEPS``) that raised it, so that the whole of a frame read in parts
    fails as it would at once: with the error of the earliest step any part fails at.
    """
    reading = _Reading(df, selection, unscored_groups, part)
    for step, check in enumerate(FRAME_STEPS):
        try:
            check(reading)
        except (ValueError, TypeError, KeyError) as exc:
            exc.step = step  # type: ignore[union-attr]
            raise
    return reading.rows()


@dataclass
class _Reading:
    """What ``frame_rows`` has found so far: each step of ``FRAME_STEPS`` reads and sets some of these."""

    df: Any  # a DataFrame, or Vectors read as one
    selection: Selection
    unscored_groups: int | None
    part: bool
    columns: dict = field(default_factory=dict)  # the label columns: TRUE, and PRED where given
    proba_columns: list | None = None
    known: pd.Index | None = None  # the classes, where declared (``labels=``, probability columns)
    sampled: bool = False  # spans read from samples, confirmed by the count
    groups: Groups = field(default_factory=lambda: Groups([]))
    weights: np.ndarray | None = None
    values: np.ndarray | None = None  # the probabilities, (rows, K)
    marker: np.ndarray | None = None  # the scores of the score metrics
    codes: dict = field(default_factory=dict)
    missing: dict = field(default_factory=dict)
    unscored: np.ndarray | None = None
    dropped: int = 0
    where: tuple = ()
    index: pd.Index | None = None
    classes: pd.Index | None = None
    prune: bool = False
    inferred: bool = False
    checked: np.ndarray | None = None

    def rows(self) -> FrameRows:
        """The ``FrameRows`` of what the steps found."""
        assert self.index is not None and self.classes is not None  # set by the steps
        inferred_pred = self.inferred and PRED in self.columns
        return FrameRows(
            index=self.index,
            _classes=self.classes,
            _true=self.codes[TRUE],
            _pred=self.codes.get(PRED),
            proba=self.checked,
            weights=self.weights,
            _groups=self.groups,
            _prune_classes=self.prune,
            pred_name=self.columns[PRED].name if inferred_pred else None,
            unscored=self.unscored if self.unscored is not None and self.unscored.any() else None,
            part=self.part,
            dropped=self.dropped,
            dropped_in=self.where,
            _sampled_labels=self.columns if self.sampled and self.prune else None,
            marker=self.marker,
        )


def _read_true(r: _Reading) -> None:
    if not isinstance(r.df, (pd.DataFrame, Vectors)):
        raise TypeError(f"expected a pandas DataFrame, got {type(r.df).__name__}")
    check_column(r.df, r.selection.true, "true")


def _read_labels(r: _Reading) -> None:
    true, pred = r.selection.true, r.selection.pred
    r.columns[TRUE] = labels_of(true, r.df[true])
    if pred is None:
        return
    if is_column_name(pred):
        check_column(r.df, pred, "pred")
        r.columns[PRED] = labels_of(pred, r.df[pred])
    else:
        r.columns[PRED] = labels_of("pred", row_values(pred, r.df.index, "pred"))


def _read_names(r: _Reading) -> None:
    s = r.selection
    if s.proba is not None:
        r.known, r.proba_columns = frame_classes(r.df, s.true, s.proba, s.labels)
        for c in r.proba_columns:
            check_column(r.df, c, "proba")
    if s.marker is not None:
        check_column(r.df, s.marker, "marker")
    for name in s.by:
        check_column(r.df, name, "by")


def _read_groups(r: _Reading) -> None:
    s = r.selection
    # spans from samples where the count that reads the rows first checks every code (scores are read first)
    n = len(r.df)
    r.sampled = samples_fewer(n) and checks_codes(n) and s.proba is None and s.marker is None and not s.observed
    r.groups = Groups([group_column(name, r.df[name], sampled=r.sampled) for name in s.by], observed=False)


def _read_weights(r: _Reading) -> None:
    r.weights = frame_weights(r.df, r.selection.weights)


def _read_proba(r: _Reading) -> None:
    r.values = None if r.proba_columns is None else _real_values(r.df, r.proba_columns, "probability", "probabilities")
    marker = r.selection.marker
    r.marker = None if marker is None else _real_values(r.df, [marker], "marker", "scores")[:, 0]


def _find_missing(r: _Reading) -> None:
    """The missing values of every column, and with the classes known the label codes (coding finds them for free)."""
    if r.proba_columns is None and r.selection.labels is not None:
        r.known = declared_order(r.selection.labels)
    if r.known is not None:
        r.codes = {key: _codes(column, r.known) for key, column in r.columns.items()}
    r.missing = {c.name: c.missing for c in r.columns.values() if c.missing is not None}
    r.missing.update((g.name, g.missing) for g in r.groups.columns if g.missing is not None)
    if r.marker is not None and np.isnan(r.marker).any():
        r.missing[r.selection.marker] = np.isnan(r.marker)
    if r.values is None:
        return
    if r.unscored_groups is not None:
        r.unscored = _unscored_rows(r.values, r.groups.columns[: r.unscored_groups])
        if r.unscored.any():
            _warn_unscored(r.unscored, r.groups.columns[: r.unscored_groups])
        r.values[r.unscored] = 1.0 / r.values.shape[1]  # a valid placeholder; the scores of these rows are NaN
    if r.selection.dropna:
        nan = np.isnan(r.values).any(axis=1)
        if nan.any():
            r.missing[PROBABILITY_COLUMNS] = nan


def _drop_missing(r: _Reading) -> None:
    """An error for the first column with missing values, or with ``dropna`` the rows dropped (and warned about)."""
    r.index = r.df.index
    if r.missing:
        if not r.selection.dropna:
            name, mask = next(iter(r.missing.items()))
            raise missing_error(name, r.index, mask)
        keep = ~np.logical_or.reduce(list(r.missing.values()))
        r.where = tuple(name for name in r.missing if name is not PROBABILITY_COLUMNS)
        r.where += (PROBABILITY_COLUMNS,) if PROBABILITY_COLUMNS in r.missing else ()
        r.dropped = len(r.df) - int(keep.sum())
        if not r.part:
            warn_dropped(r.dropped, len(r.df), r.where)
        r.columns = {k: c.take(keep) for k, c in r.columns.items()}
        r.codes = {k: Codes(c.values[keep], c.offset) for k, c in r.codes.items()}
        r.groups = Groups([confirmed(c) for c in r.groups.columns]).take(keep)  # the full spans
        r.index = r.index[keep]
        r.weights = None if r.weights is None else r.weights[keep]
        r.values = None if r.values is None else r.values[keep]
        r.marker = None if r.marker is None else r.marker[keep]
        r.unscored = None if r.unscored is None else r.unscored[keep]
    r.groups = Groups(r.groups.columns, observed=r.selection.observed)


def _order_classes(r: _Reading) -> None:
    r.inferred = r.known is None and not any(c.kind == "category" for c in r.columns.values())
    if r.known is not None:
        r.classes = r.known
    else:
        r.classes, r.codes, r.prune = label_codes(r.columns, r.part, sampled=r.sampled)


def _check_probabilities(r: _Reading) -> None:
    if r.values is not None:
        r.checked = check_proba(r.values, rows=RowNames(["row"], [r.index]), renormalize=r.selection.renormalize)


#: The checks of ``frame_rows`` in the order they run over all rows.
FRAME_STEPS = (
    _read_true,
    _read_labels,
    _read_names,
    _read_groups,
    _read_weights,
    _read_proba,
    _find_missing,
    _drop_missing,
    _order_classes,
    _check_probabilities,
)


def warn_dropped(dropped: int, total: int, where: tuple) -> None:
    """The ``DroppedRowsWarning`` of ``dropna=True``: how many rows went, of how many, and where values were missing."""
    shown = [PROBABILITY_COLUMNS if name == PROBABILITY_COLUMNS else show([name]) for name in where]
    warn(
        about(
            DroppedRowsWarning,
            "{dropna:True} dropped {dropped} of {total} rows with a missing value in {where}",
            "dropna",
            True,
            dropped=dropped,
            total=total,
            where=", ".join(shown),
        )
    )


def _warn_unscored(unscored: np.ndarray, columns: list[GroupColumn]) -> None:
    """Say which groups have no probabilities, so that their NaN probability metrics are not a surprise."""
    if not columns:
        warn("no row has class probabilities: the probability metrics are NaN", RuntimeWarning)
        return
    values = [np.asarray(c.coord)[np.subtract(c.codes[unscored], c.offset, dtype=np.intp)] for c in columns]
    groups = pd.MultiIndex.from_arrays(values).unique()
    shown = [", ".join(f"{c.name}={v!r}" for c, v in zip(columns, key)) for key in groups[:MAX_SHOWN]]
    more = f" and {len(groups) - MAX_SHOWN} more" if len(groups) > MAX_SHOWN else ""
    warn(
        f"{len(groups)} group(s) have no class probabilities in any row ({'; '.join(shown)}{more}), e.g. a model "
        "that predicts labels only: their probability metrics are NaN, their label metrics are computed",
        RuntimeWarning,
    )


def _unscored_rows(values: np.ndarray, columns: list[GroupColumn]) -> np.ndarray:
    """The rows of the groups of ``columns`` in which no row has a probability (rows with a missing group value excluded)."""
    absent = np.isnan(values[:, 0])  # a row without probabilities has NaN first: the full test only for those
    if not absent.any():
        return absent
    candidates = np.flatnonzero(absent)
    absent[candidates] = np.isnan(values[candidates]).all(axis=1)
    known = ~np.logical_or.reduce([np.zeros(len(values), bool), *(c.missing for c in columns if c.missing is not None)])
    _, group = np.unique(Groups(columns).flat_index(len(values))[known], return_inverse=True)
    scored = np.bincount(group.reshape(-1), weights=~absent[known], minlength=group.max(initial=-1) + 1)
    unscored = np.zeros(len(values), bool)
    unscored[known] = scored[group.reshape(-1)] == 0
    return unscored


def label_codes(columns: dict, part: bool, *, sampled: bool = False) -> tuple[pd.Index, dict[str, Codes], bool]:
    """The classes of label ``columns`` without ``labels=``, their codes, and whether the classes are pruned after.

    Integer labels of a small span are counted over it (their own codes) and
    the values no label has are pruned after; with ``sampled``, that span is
    read from samples of the labels (``Labels.sampled_span``), to be confirmed.
    """
    listed = list(columns.values())
    if (span := integer_span(listed, sampled=sampled)) and span[1] - span[0] < MAX_COUNTED_SPAN:
        return pd.RangeIndex(span[0], span[1] + 1), {k: Codes(c.values, span[0]) for k, c in columns.items()}, True
    classes = inferred_order(listed) if part else class_order(listed)
    return classes, {key: _codes(column, classes) for key, column in columns.items()}, False


def _codes(column, classes: pd.Index) -> Codes:
    """The class codes of a label column: the labels themselves with an offset where they can be, else coded."""
    offset = offset_of(column, classes)
    return Codes(column.values, offset) if offset is not None else Codes(encode(column, classes))


def _real_values(df: pd.DataFrame | Vectors, columns: list, role: str, plural: str) -> np.ndarray:
    """The ``role`` columns (probability, marker) as one float64 ``(rows, columns)`` array; non-numeric columns
    are an error that says the ``plural`` (probabilities, scores) must be real numbers."""
    values = np.empty((len(df), len(columns)))
    for i, c in enumerate(columns):
        series = df[c]
        if isinstance(series, np.ndarray):  # a vector of real numbers (``Vectors`` holds no other array)
            values[:, i] = series
            continue
        if not (pd.api.types.is_numeric_dtype(series.dtype) and not pd.api.types.is_complex_dtype(series.dtype)):
            odd = series[series.notna() & pd.to_numeric(series, errors="coerce").isna()]
            found = f": {show_counts(odd.value_counts(sort=False))}" if len(odd) else ""
            raise TypeError(f"{role} column {c!r} has dtype {series.dtype}{found}; {plural} must be real numbers")
        values[:, i] = series.to_numpy(dtype=np.float64, na_value=np.nan)
    return values


# --------------------------------------------------------------------------- argument checks


def check_column(df: pd.DataFrame | Vectors, name, role: str) -> None:
    """An error naming the column if it is absent, or if the frame has several columns of that name."""
    if isinstance(df, Vectors):  # named by the arguments that gave them: each there, once
        return
    if isinstance(name, (bool, np.bool_)) or not is_column_name(name):
        kind = type(name).__name__
        raise TypeError(
            f"{role} must name a column (a str or int), got a {kind}; pass the values as a column of the "
            "DataFrame (df.assign(name=values)) and give its name"
        )
    try:
        found = name in df.columns
    except TypeError:
        found = False
    if not found:
        raise KeyError(f"{role} column {name!r} is not in the DataFrame; its columns are {list(df.columns)}")
    if isinstance(df.columns, pd.MultiIndex) and not (isinstance(name, tuple) and len(name) == df.columns.nlevels):
        raise KeyError(
            f"{role} column {name!r} names a level of MultiIndex columns, not one column; give the full "
            "tuple, or flatten the columns first"
        )
    if not isinstance(df.columns.get_loc(name), numbers.Integral):
        raise ValueError(f"the DataFrame has several columns named {name!r}; give them distinct names")


def row_values(values, index: pd.Index, name: str) -> np.ndarray | pd.Series:
    """One value per row in row order, from an array or list (by position) or a Series (matched by row label)."""
    if isinstance(values, pd.Series):
        if values.index.equals(index):
            return values.reset_index(drop=True)
        if len(values) != len(index):
            raise ValueError(
                f"the {name} Series has {len(values)} values for the DataFrame's {len(index)} rows; give one value "
                "per row"
            )
        if not (
            values.index.is_unique and index.is_unique and len(values) == len(index) and values.index.isin(index).all()
        ):
            raise ValueError(
                f"the {name} Series has row labels that differ from the DataFrame's; a Series is matched by row "
                "label, as pandas does: give a Series with the same index, or an array in row order"
            )
        return values.reindex(index).reset_index(drop=True)
    if isinstance(values, (pd.DataFrame, xr.DataArray)) or np.ndim(values) != 1:
        raise TypeError(
            f"{name} must be a column name or one value per row (1-D), got {type(values).__name__} "
            f"of shape {np.shape(values)}"
        )
    values = np.asarray(values)
    if len(values) != len(index):
        raise ValueError(f"{name} has {len(values)} values for {len(index)} rows; give one value per row")
    return values


def frame_weights(df: pd.DataFrame | Vectors, weights) -> np.ndarray | None:
    """Checked float64 weights in row order from a column name, a Series (aligned on the row labels) or an array."""
    if weights is None:
        return None
    if is_column_name(weights):
        check_column(df, weights, "weights")
        return check_weights(weights, df[weights])
    values = row_values(weights, df.index, "weights")
    return check_weights(getattr(weights, "name", None) or "weights", values)
