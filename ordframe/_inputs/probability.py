"""Class probabilities as input: which class each probability belongs to, and checks on the values.

A probability array is a DataArray with a class dim (``class_dim``, by default
``"class"``) whose coordinate holds the ordered class labels; a DataFrame
gives one probability column per class. Both become probabilities
``(*samples, class)`` and true-class codes ``(*samples)``.

Each check below is an error giving the count and the first offending rows
(for a dask-backed array the checks run chunk by chunk when the result is
computed, and the positions are within the failing chunk):

* probabilities that are NaN, or outside [0, 1];
* rows whose sum differs from 1 by more than ``SUM_TOL`` = 1e-5 (loose enough
  for float32 softmax outputs); ``renormalize=True`` divides every row by its
  sum instead, which needs a positive sum;
* true labels that are missing or outside the classes (the class order);
* a class coordinate that disagrees with ``labels=``.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.arguments import Wording, about
from ordframe._core.dims import CLASS_DIM
from ordframe._core.messages import MAX_SHOWN, DroppedRowsWarning, RowNames, array_name, warn
from ordframe._inputs.arrays import array_cube, check_shared_dims, sample_positions
from ordframe._inputs.classes import class_order, declared_order, encode, labels_of, missing_error

SUM_TOL = 1e-5
# Words of the messages about proba= columns, which the functions' front end rewrites in its own (y_proba=)
PROBA_LISTS = "proba lists"
PASS_LABELS = "; pass labels=[...] naming the class of each column, in order"
DICT_OF_COLUMNS = Wording.advice["or_dict"]
PROBA_KEYS = "the keys of proba"
DROPPED = -1  # the true-class code of a sample left out by dropna=True
# Checks see at most this many probabilities at a time, so their temporaries stay in the CPU cache.
BLOCK_VALUES = 1 << 16


# --------------------------------------------------------------------------- classes


def array_classes(proba: xr.DataArray, labels=None, class_dim=CLASS_DIM) -> pd.Index:
    """The ordered classes of a probability array: its class coordinate, or ``labels``."""
    if class_dim not in proba.dims:
        raise ValueError(
            f"class probabilities need a {class_dim!r} dim holding one probability per class; this array has "
            f"dims {tuple(proba.dims)}. Pass class_dim= naming the dim that holds the classes"
        )
    if class_dim in proba.coords:
        classes = declared_order(proba[class_dim].to_index())
        if labels is not None and not declared_order(labels).equals(classes):
            raise ValueError(
                f"the {class_dim!r} coordinate {list(classes)} disagrees with labels={list(labels)}; "
                "the coordinate gives the class of each probability, in order: fix one of them or drop labels="
            )
        return classes
    if labels is None:
        raise ValueError(
            f"the {class_dim!r} dim has no coordinate, so the class of each probability is unknown: "
            f"assign the ordered labels (proba.assign_coords({class_dim}=[...])) or pass labels=[...]"
        )
    classes = declared_order(labels)
    if len(classes) != proba.sizes[class_dim]:
        raise ValueError(f"labels= names {len(classes)} classes but the {class_dim!r} dim has {proba.sizes[class_dim]}")
    return classes


def frame_classes(df: pd.DataFrame, true, proba, labels=None) -> tuple[pd.Index, list]:
    """The ordered classes and the probability column of each, from ``proba`` (a list or a dict label -> column).

    Without a ``true`` column (None), the classes are ``labels`` or the dict's keys.
    """
    if isinstance(proba, Mapping):
        given = [] if true is None else [labels_of(true, df[true])]
        if labels is not None or any(c.kind == "category" and c.ordered for c in given):
            classes = class_order(given, labels)
        else:  # the classes are the keys: numeric ones sort, others need labels=
            classes = class_order([labels_of(PROBA_KEYS, pd.Series(list(proba)))])
        absent = [c for c in classes if c not in proba]
        extra = [c for c in proba if c not in classes]
        if absent or extra:
            raise ValueError(
                f"proba must map every class {list(classes)} to a column: "
                + "; ".join(
                    ([f"no column for {absent}"] if absent else []) + ([f"{extra} are not classes"] if extra else [])
                )
            )
        columns = [proba[c] for c in classes]
        repeated = [c for c in dict.fromkeys(columns) if columns.count(c) > 1]
        if repeated:
            raise ValueError(f"proba maps several classes to the column(s) {repeated}; give one column per class")
        return classes, columns
    if isinstance(proba, (set, frozenset)):
        raise TypeError(
            "proba= must list the probability columns in class order (a list), or map each class to "
            "its column (a dict); a set has no order"
        )
    columns = [proba] if isinstance(proba, str) else list(proba)
    repeated = [c for c in dict.fromkeys(columns) if columns.count(c) > 1]
    if repeated:
        raise about(
            ValueError,
            "{proba!s} lists the column(s) {repeated} more than once; give one column per class",
            "proba",
            proba,
            repeated=repeated,
        )
    given = [] if true is None else [labels_of(true, df[true])]
    classes = class_order(given, labels)  # labels=, ordered categories, or sorted numbers
    if len(classes) != len(columns):
        source = "{labels}" if labels is not None else "column {true!r}"
        raise about(
            ValueError,
            "{proba!s} lists {count} columns but " + source + " gives {k} classes {classes}; pass {labels:[...]} "
            "naming the class of each column, in order{or_dict}",
            "proba",
            proba,
            true=true,
            count=len(columns),
            k=len(classes),
            classes=list(classes),
        )
    return classes, columns


# --------------------------------------------------------------------------- validation
def check_proba(
    values: np.ndarray, *, rows: RowNames, renormalize: bool = False, skip=None, positions=None
) -> np.ndarray:
    """Raise unless every row of ``values`` (``(..., K)``) is a probability vector; the rows, renormalised if asked.

    Rows where the boolean array ``skip`` (shape ``values.shape[:-1]``) is true are not checked.
    """
    k = values.shape[-1]
    flat = values.reshape(-1, k)
    bad = np.zeros(len(flat), bool)
    step = max(1, BLOCK_VALUES // k)  # cache blocking: each block vectorised
    for start in range(0, len(flat), step):
        # the block's columns as rows: each reduction adds (or compares) them in order, one call for all
        columns = np.ascontiguousarray(flat[start : start + step].T)
        total, low, high = columns.sum(axis=0), columns.min(axis=0), columns.max(axis=0)
        sums_ok = total > 0 if renormalize else np.abs(total - 1) <= SUM_TOL
        bad[start : start + step] = ~((low >= 0) & (high <= 1) & sums_ok)  # NaN fails every comparison
    if skip is not None:
        bad &= ~skip.reshape(-1)
    if bad.any():
        raise _proba_error(flat, np.flatnonzero(bad), values.shape[:-1], rows, renormalize, positions)
    if renormalize:
        return values / values.sum(axis=-1, keepdims=True)
    return values


def _proba_error(flat, bad, shape, rows: RowNames, renormalize, positions=None) -> ValueError:
    block = flat[bad]
    nan = np.isnan(block).any(axis=1)
    outside = ~nan & ((block < 0) | (block > 1)).any(axis=1)
    sums = block.sum(axis=1)
    off = ~nan & ~outside
    problems, data = [], dict[str, object]()
    if nan.any():
        data.update(nan=int(nan.sum()), nan_rows=rows.first(bad[nan], shape, positions))
        problems.append(
            "{nan} row(s) with NaN probabilities, first at rows {nan_rows} (pass {dropna:True} to leave those rows "
            "out of every metric; with {pred} given, a {by} group with no probabilities at all, e.g. a model that "
            "predicts labels only, is kept: only its probability metrics are NaN)"
        )
    if outside.any():
        data.update(outside=int(outside.sum()), outside_rows=rows.first(bad[outside], shape, positions))
        problems.append(
            "{outside} row(s) with probabilities outside [0, 1], first at rows {outside_rows} "
            "(probabilities are expected, e.g. softmax outputs, not logits or scores)"
        )
    if off.any():
        shown = ", ".join(f"{s:.6g}" for s in sums[off][:MAX_SHOWN])
        data.update(off=int(off.sum()), off_rows=rows.first(bad[off], shape, positions), sums=shown, tol=SUM_TOL)
        if renormalize:
            problems.append("{off} row(s) summing to 0, which cannot be renormalised, first at rows {off_rows}")
        else:
            problems.append(
                "{off} row(s) whose probabilities do not sum to 1 (tolerance {tol:g}), first at rows {off_rows} "
                "with sums {sums}; pass {renormalize:True} to divide each row by its sum"
            )
    argument = "dropna" if nan.any() else "renormalize" if off.any() else "proba"
    return about(ValueError, "invalid class probabilities: " + "; ".join(problems), argument, **data)


def _encode(values: np.ndarray, positions=None, *, name, classes: pd.Index, rows: RowNames, dropna: bool) -> np.ndarray:
    """Class codes of an array of labels; a missing label is an error, or ``DROPPED`` with ``dropna``."""
    labels = labels_of(name, values.reshape(-1))
    if labels.missing is not None and not dropna:
        at = np.flatnonzero(labels.missing)
        raise missing_error(name, rows.index(at, values.shape, positions), np.ones(len(at), bool))
    try:
        codes = encode(labels, classes).astype(np.int64)
    except ValueError as exc:
        known = labels.series().isin(classes).to_numpy()
        unknown = np.flatnonzero(~known if labels.missing is None else ~(known | labels.missing))
        raise ValueError(f"{exc} (first at rows {rows.first(unknown, values.shape, positions)})") from None
    return codes.reshape(values.shape)


def _check_samples(values, codes, positions=None, *, rows: RowNames, renormalize: bool, dropna: bool):
    """``check_proba`` on the samples kept; with ``dropna`` a sample with a NaN probability is ``DROPPED``."""
    if dropna:
        codes = np.where(np.isnan(values).any(axis=-1), DROPPED, codes)
        dropped = int((codes == DROPPED).sum())
        if dropped:
            where = "" if codes.shape == rows.shape else " in one dask chunk"
            warn(
                about(
                    DroppedRowsWarning,
                    "{dropna:True} dropped {dropped} of {size} samples{where} with missing labels or probabilities",
                    "dropna",
                    True,
                    dropped=dropped,
                    size=codes.size,
                    where=where,
                )
            )
    return check_proba(values, rows=rows, renormalize=renormalize, skip=codes < 0, positions=positions), codes


# --------------------------------------------------------------------------- inputs


class ProbaInputs:
    """Validated probabilities ``(*samples, class_dim)``, true codes ``(*samples)`` and the classes."""

    def __init__(self, proba: xr.DataArray, codes: xr.DataArray, classes: pd.Index, class_dim=CLASS_DIM):
        self.proba, self.codes, self.classes, self.class_dim = proba, codes, classes, class_dim

    def argmax(self) -> xr.DataArray:
        """The code of the most probable class of every sample (the lowest class on ties); ``DROPPED`` where dropped."""
        return self.proba.argmax(self.class_dim, skipna=False).where(self.codes != DROPPED, DROPPED)

    def without(self, drop: xr.DataArray, why: str) -> ProbaInputs:
        """These inputs with the samples where ``drop`` holds left out too (a ``DroppedRowsWarning`` counts them)."""
        new = drop & (self.codes != DROPPED)
        if new.chunks is None and bool(new.any()):
            warn(
                about(
                    DroppedRowsWarning,
                    "{dropna:True} dropped {dropped} more of {size} samples with {why}",
                    "dropna",
                    True,
                    dropped=int(new.sum()),
                    size=new.size,
                    why=why,
                )
            )
        return ProbaInputs(self.proba, self.codes.where(~new, DROPPED), self.classes, self.class_dim)

    def cube(self, *, dim=None, weights=None) -> xr.DataArray:
        """The confusion cube of the most probable class against the true class, counted over ``dim``."""
        kept = self.codes != DROPPED
        pred, true = self.argmax().where(kept), self.codes.where(kept)
        cube = array_cube(
            true, pred, dim=dim, labels=pd.RangeIndex(len(self.classes)), weights=weights, dropna=True, report=False
        )  # dropped samples were reported when the inputs were checked
        return cube.assign_coords(true=self.classes, pred=self.classes)


def label_codes(labels: xr.DataArray, classes: pd.Index, *, name: str, dropna: bool = False) -> xr.DataArray:
    """Class codes of a label array (lazy for dask); missing labels are an error, or ``DROPPED`` with ``dropna``."""
    name = array_name(labels, name)
    positions = sample_positions(labels)
    return xr.apply_ufunc(
        partial(_encode, name=name, classes=classes, rows=RowNames.of(labels), dropna=dropna),
        labels,
        *([] if positions is None else [positions]),
        dask="parallelized",
        output_dtypes=[np.int64],
    )


def array_inputs(
    proba: xr.DataArray, true: xr.DataArray, *, labels=None, renormalize=False, dropna=False, class_dim=CLASS_DIM
) -> ProbaInputs:
    """Validate a probability array against an array of true labels (broadcast together).

    With ``dropna`` a sample whose true label is missing or which has a NaN
    probability gets the code ``DROPPED``: its score is NaN and means skip it.
    """
    for value, what in ((proba, "the probabilities"), (true, "true")):
        if not isinstance(value, xr.DataArray):
            raise TypeError(f"{what} must be an xarray.DataArray, got {type(value).__name__}")
    classes = array_classes(proba, labels, class_dim)
    if class_dim in true.dims:
        raise ValueError(f"true has a {class_dim!r} dim; it must hold one true label per sample")
    check_shared_dims(proba, true, ("the probabilities", "true"), exclude=[class_dim])
    codes = label_codes(true, classes, name="true", dropna=dropna)
    try:
        proba, codes = xr.align(proba, codes, join="exact", copy=False)
    except ValueError as exc:
        raise ValueError(
            f"proba and true have different coordinates on a shared dim; align them first ({exc})"
        ) from None
    proba, codes = xr.broadcast(proba.assign_coords({class_dim: classes}), codes, exclude=[class_dim])
    samples = [d for d in proba.dims if d != class_dim]
    proba, codes = proba.transpose(*samples, class_dim), codes.transpose(*samples)
    if proba.chunks is not None or codes.chunks is not None:
        proba, codes = xr.unify_chunks(proba.chunk({class_dim: -1}), codes)
    if proba.dtype.kind not in "iufb":
        raise TypeError(f"probabilities must be real numbers, got dtype {proba.dtype}")
    positions = sample_positions(proba.isel({class_dim: 0}, drop=True) if codes.chunks is None else codes)
    checked, codes = xr.apply_ufunc(
        partial(_check_samples, rows=RowNames.of(codes), renormalize=renormalize, dropna=dropna),
        proba.astype(np.float64, copy=False),
        codes,
        *([] if positions is None else [positions]),
        input_core_dims=[[class_dim], [], *([] if positions is None else [[]])],
        output_core_dims=[[class_dim], []],
        dask="parallelized",
        output_dtypes=[np.float64, np.int64],
    )
    return ProbaInputs(checked, codes, classes, class_dim)
