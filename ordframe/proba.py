"""Class probabilities: validation, per-sample scores, their (weighted) means, and the worst samples.

A probability array is a DataArray with a ``class`` dim whose coordinate holds
the ordered class labels (DESIGN.md); a DataFrame gives one probability column
per class. Both become the same pair of arrays, probabilities
``(*samples, class)`` and true-class codes ``(*samples)``, and every ``proba``
kernel turns them into one score per sample through ``xarray.apply_ufunc``
(``dask="parallelized"``), in blocks of rows that stay in the CPU cache.

Each check below is an error giving the count and the first offending rows
(for a dask-backed array the checks run chunk by chunk when the result is
computed, and the positions are within the failing chunk):

* probabilities that are NaN, or outside [0, 1];
* rows whose sum differs from 1 by more than ``SUM_TOL`` = 1e-5 (loose enough
  for float32 softmax outputs); ``renormalize=True`` divides every row by its
  sum instead, which needs a positive sum;
* true labels that are missing or outside the classes (``ordframe.classes``);
* a ``class`` coordinate that disagrees with ``labels=``.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from functools import partial

import numpy as np
import pandas as pd
import xarray as xr

from . import registry
from .apply import checked_output, evaluate_cube, metric_request
from .classes import MAX_SHOWN, first_rows, is_ordered, class_order, encode, missing_error
from .confusion import DroppedRowsWarning, as_list, check_columns, frame_weights, array_cube, check_weights, frame_cube
from .metric import Metric

CLASS_DIM = "class"
SUM_TOL = 1e-5
DROPPED = -1  # the true-class code of a sample left out by dropna=True
# Kernels see at most this many rows at a time: their temporaries stay in the
# CPU cache and memory stays flat however many samples there are.
BLOCK_ROWS = 1 << 16


class _Rows:
    """Names sample positions in error messages: DataFrame row labels or DataArray coordinates."""

    def __init__(self, dims, indexes):
        self.dims = tuple(dims)
        self.indexes = [pd.Index(i) for i in indexes]
        self.shape = tuple(len(i) for i in self.indexes)

    @classmethod
    def of(cls, obj: xr.DataArray) -> _Rows:
        return cls(obj.dims, [obj.indexes[d] if d in obj.indexes else pd.RangeIndex(obj.sizes[d]) for d in obj.dims])

    def index(self, flat, shape) -> pd.Index:
        """Labels of the samples at ``flat`` positions of an array of sample shape ``shape``."""
        flat = np.asarray(flat, dtype=np.intp)
        if tuple(shape) == self.shape:
            labels = [i[p] for i, p in zip(self.indexes, np.unravel_index(flat, shape))]
        else:  # a dask chunk: only positions within it are known
            labels = [pd.Index(p) for p in np.unravel_index(flat, shape)]
        return labels[0] if len(labels) == 1 else pd.MultiIndex.from_arrays(labels, names=self.dims)

    def first(self, flat, shape) -> str:
        """``[a, b, ...]``: the first offending rows, for a message that already gives the count."""
        shown = np.asarray(flat)[: MAX_SHOWN + 1]
        text = first_rows(pd.Series(0, index=self.index(shown, shape)), np.ones(len(shown), bool))
        return text if tuple(shape) == self.shape else f"{text} (positions within one dask chunk)"


# --------------------------------------------------------------------------- classes


def array_classes(proba: xr.DataArray, labels=None) -> pd.Index:
    """The ordered classes of a probability array: its ``class`` coordinate, or ``labels``."""
    if CLASS_DIM not in proba.dims:
        raise ValueError(
            f"class probabilities need a {CLASS_DIM!r} dim holding one probability per class; this array has "
            f"dims {tuple(proba.dims)}. Rename the class dim (proba.rename({{'old': 'class'}}))"
        )
    if CLASS_DIM in proba.coords:
        classes = class_order({}, proba[CLASS_DIM].to_index().rename(None))
        if labels is not None and not class_order({}, labels).equals(classes):
            raise ValueError(
                f"the {CLASS_DIM!r} coordinate {list(classes)} disagrees with labels={list(labels)}; "
                "the coordinate gives the class of each probability, in order: fix one of them or drop labels="
            )
        return classes
    if labels is None:
        raise ValueError(
            f"the {CLASS_DIM!r} dim has no coordinate, so the class of each probability is unknown: "
            f"assign the ordered labels (proba.assign_coords({CLASS_DIM}=[...])) or pass labels=[...]"
        )
    classes = class_order({}, labels)
    if len(classes) != proba.sizes[CLASS_DIM]:
        raise ValueError(f"labels= names {len(classes)} classes but the {CLASS_DIM!r} dim has {proba.sizes[CLASS_DIM]}")
    return classes


def frame_classes(df: pd.DataFrame, true, proba, labels=None) -> tuple[pd.Index, list]:
    """The ordered classes and the probability column of each, from ``proba`` (a list or a dict label -> column)."""
    if isinstance(proba, Mapping):
        if labels is not None or is_ordered(df[true]):
            classes = class_order({true: df[true]}, labels)
        else:  # the classes are the keys: numeric ones sort, others need labels=
            classes = class_order({"the keys of proba": pd.Series(list(proba))})
        absent = [c for c in classes if c not in proba]
        extra = [c for c in proba if c not in classes]
        if absent or extra:
            raise ValueError(
                f"proba must map every class {list(classes)} to a column: "
                + "; ".join(([f"no column for {absent}"] if absent else []) + ([f"{extra} are not classes"] if extra else []))
            )
        return classes, [proba[c] for c in classes]
    columns = [proba] if isinstance(proba, str) else list(proba)
    classes = class_order({true: df[true]}, labels)  # labels=, else ordered categories, else sorted numeric values
    if len(classes) != len(columns):
        source = "labels=" if labels is not None else f"column {true!r}"
        raise ValueError(
            f"proba lists {len(columns)} columns but {source} gives {len(classes)} classes {list(classes)}; "
            "pass labels=[...] naming the class of each column, in order (or a dict label -> column)"
        )
    return classes, columns


# --------------------------------------------------------------------------- validation


def check_proba(values: np.ndarray, *, rows: _Rows, renormalize: bool = False, skip=None) -> np.ndarray:
    """Raise unless every row of ``values`` (``(..., K)``) is a probability vector; the rows, renormalised if asked.

    Rows where the boolean array ``skip`` (shape ``values.shape[:-1]``) is true are not checked.
    """
    k = values.shape[-1]
    flat = values.reshape(-1, k)
    bad = np.zeros(len(flat), bool)
    for start in range(0, len(flat), BLOCK_ROWS):  # cache blocking: each block is vectorised
        block = flat[start : start + BLOCK_ROWS]
        total, low, high = block[:, 0].copy(), block[:, 0].copy(), block[:, 0].copy()
        for i in range(1, k):
            total += block[:, i]
            np.minimum(low, block[:, i], out=low)
            np.maximum(high, block[:, i], out=high)
        sums_ok = total > 0 if renormalize else np.abs(total - 1) <= SUM_TOL
        bad[start : start + BLOCK_ROWS] = ~((low >= 0) & (high <= 1) & sums_ok)  # NaN fails every comparison
    if skip is not None:
        bad &= ~skip.reshape(-1)
    if bad.any():
        raise _proba_error(flat, np.flatnonzero(bad), values.shape[:-1], rows, renormalize)
    if renormalize:
        return values / values.sum(axis=-1, keepdims=True)
    return values


def _proba_error(flat, bad, shape, rows: _Rows, renormalize) -> ValueError:
    block = flat[bad]
    nan = np.isnan(block).any(axis=1)
    outside = ~nan & ((block < 0) | (block > 1)).any(axis=1)
    sums = block.sum(axis=1)
    off = ~nan & ~outside
    problems = []
    if nan.any():
        problems.append(f"{int(nan.sum())} row(s) with NaN probabilities, first at rows {rows.first(bad[nan], shape)}")
    if outside.any():
        problems.append(
            f"{int(outside.sum())} row(s) with probabilities outside [0, 1], first at rows {rows.first(bad[outside], shape)} "
            "(probabilities are expected, e.g. softmax outputs, not logits or scores)"
        )
    if off.any():
        shown = ", ".join(f"{s:.6g}" for s in sums[off][:MAX_SHOWN])
        if renormalize:
            problems.append(f"{int(off.sum())} row(s) summing to 0, which cannot be renormalised, first at rows {rows.first(bad[off], shape)}")
        else:
            problems.append(
                f"{int(off.sum())} row(s) whose probabilities do not sum to 1 (tolerance {SUM_TOL:g}), first at rows "
                f"{rows.first(bad[off], shape)} with sums {shown}; pass renormalize=True to divide each row by its sum"
            )
    return ValueError("invalid class probabilities: " + "; ".join(problems))


def _encode(values: np.ndarray, *, name: str, classes: pd.Index, rows: _Rows, dropna: bool) -> np.ndarray:
    """Class codes of an array of labels; a missing label is an error, or ``DROPPED`` with ``dropna``."""
    series = pd.Series(values.reshape(-1))
    missing = series.isna().to_numpy()
    if missing.any() and not dropna:
        at = np.flatnonzero(missing)
        raise missing_error(name, pd.Series(0, index=rows.index(at, values.shape)), np.ones(len(at), bool))
    try:
        if missing.any():
            codes = np.full(len(series), DROPPED, np.int64)
            codes[~missing] = encode(name, series[~missing], classes)
        else:
            codes = encode(name, series, classes).astype(np.int64, copy=False)
    except ValueError as exc:
        unknown = np.flatnonzero(~(missing | series.isin(classes).to_numpy()))
        raise ValueError(f"{exc} (first at rows {rows.first(unknown, values.shape)})") from None
    return codes.reshape(values.shape)


def _check_samples(values, codes, *, rows: _Rows, renormalize: bool, dropna: bool):
    """``check_proba`` on the samples kept; with ``dropna`` a sample with a NaN probability is ``DROPPED``."""
    if dropna:
        codes = np.where(np.isnan(values).any(axis=-1), DROPPED, codes)
        dropped = int((codes == DROPPED).sum())
        if dropped:
            where = "" if codes.shape == rows.shape else " in one dask chunk"
            warnings.warn(f"dropna=True dropped {dropped} of {codes.size} samples{where} with missing labels or probabilities",
                          DroppedRowsWarning, stacklevel=2)
    return check_proba(values, rows=rows, renormalize=renormalize, skip=codes < 0), codes


# --------------------------------------------------------------------------- inputs


class ProbaInputs:
    """Validated probabilities ``(*samples, class)``, true codes ``(*samples)`` and the classes."""

    def __init__(self, proba: xr.DataArray, codes: xr.DataArray, classes: pd.Index):
        self.proba, self.codes, self.classes = proba, codes, classes

    def scores(self, metric: Metric, params: Mapping) -> xr.DataArray:
        """One score per sample of the ``proba`` metric (lazy for dask-backed inputs)."""
        kernel = _blocked_kernel(metric, metric.params(params))
        scores = xr.apply_ufunc(
            kernel, self.proba, self.codes, input_core_dims=[[CLASS_DIM], []], dask="parallelized", output_dtypes=[np.float64]
        )
        return scores.rename(metric.name)

    def argmax(self) -> xr.DataArray:
        """The code of the most probable class of every sample (the lowest class on ties); ``DROPPED`` where dropped."""
        return self.proba.argmax(CLASS_DIM, skipna=False).where(self.codes != DROPPED, DROPPED)

    def cube(self, *, dim=None, weights=None) -> xr.DataArray:
        """The confusion cube of the most probable class against the true class, counted over ``dim``."""
        kept = self.codes != DROPPED
        pred, true = self.argmax().where(kept), self.codes.where(kept)
        with warnings.catch_warnings():  # dropped samples were reported when the inputs were checked
            warnings.simplefilter("ignore", DroppedRowsWarning)
            cube = array_cube(pred, true, dim=dim, labels=pd.RangeIndex(len(self.classes)), weights=weights, dropna=True)
        return cube.assign_coords(true=self.classes, pred=self.classes)


def label_codes(labels: xr.DataArray, classes: pd.Index, *, name: str, dropna: bool = False) -> xr.DataArray:
    """Class codes of a label array (lazy for dask); missing labels are an error, or ``DROPPED`` with ``dropna``."""
    name = labels.name if isinstance(labels.name, str) else name
    return xr.apply_ufunc(
        partial(_encode, name=name, classes=classes, rows=_Rows.of(labels), dropna=dropna),
        labels, dask="parallelized", output_dtypes=[np.int64],
    )


def array_inputs(proba: xr.DataArray, true: xr.DataArray, *, labels=None, renormalize=False, dropna=False) -> ProbaInputs:
    """Validate a probability array against an array of true labels (broadcast together).

    With ``dropna`` a sample whose true label is missing or which has a NaN
    probability gets the code ``DROPPED``: its score is NaN and means skip it.
    """
    if not isinstance(true, xr.DataArray):
        raise TypeError(f"true must be an xarray.DataArray of true labels, got {type(true).__name__}")
    classes = array_classes(proba, labels)
    if CLASS_DIM in true.dims:
        raise ValueError(f"true has a {CLASS_DIM!r} dim; it must hold one true label per sample")
    codes = label_codes(true, classes, name="true", dropna=dropna)
    try:
        proba, codes = xr.align(proba, codes, join="exact")
    except ValueError as exc:
        raise ValueError(f"proba and true have different coordinates on a shared dim; align them first ({exc})") from None
    proba, codes = xr.broadcast(proba.assign_coords({CLASS_DIM: classes}), codes, exclude=[CLASS_DIM])
    samples = [d for d in proba.dims if d != CLASS_DIM]
    proba, codes = proba.transpose(*samples, CLASS_DIM), codes.transpose(*samples)
    if proba.chunks is not None or codes.chunks is not None:
        proba, codes = xr.unify_chunks(proba.chunk({CLASS_DIM: -1}), codes)
    checked, codes = xr.apply_ufunc(
        partial(_check_samples, rows=_Rows.of(codes), renormalize=renormalize, dropna=dropna),
        proba.astype(np.float64, copy=False),
        codes,
        input_core_dims=[[CLASS_DIM], []],
        output_core_dims=[[CLASS_DIM], []],
        dask="parallelized",
        output_dtypes=[np.float64, np.int64],
    )
    return ProbaInputs(checked, codes, classes)


class FrameInputs(ProbaInputs):
    """:class:`ProbaInputs` of DataFrame rows (dim ``row``), with the rows kept and their weights."""

    def __init__(self, df, proba, codes, classes, weights):
        super().__init__(proba, codes, classes)
        self.df, self.weights = df, weights


def frame_inputs(df: pd.DataFrame, true, proba, *, by=None, labels=None, weights=None, dropna=False,
                 renormalize=False, pred=None) -> FrameInputs:
    """Validate the probability columns ``proba`` and the label column ``true`` of ``df``."""
    check_columns(df, [true])
    classes, columns = frame_classes(df, true, proba, labels)
    by = as_list(by)
    labelled = [true, *([] if pred is None else [pred]), *by]
    check_columns(df, labelled + columns, weights)
    w = frame_weights(df, weights)
    missing = {c: df[c].isna().to_numpy() for c in dict.fromkeys(labelled)}
    if dropna:
        drop = np.logical_or.reduce([*missing.values(), df[columns].isna().any(axis=1).to_numpy()])
        if drop.any():
            warnings.warn(f"dropna=True dropped {int(drop.sum())} of {len(df)} rows with missing labels or probabilities",
                          DroppedRowsWarning, stacklevel=4)
            df, w = df[~drop], None if w is None else w[~drop]
    else:
        column = next((c for c, m in missing.items() if m.any()), None)
        if column is not None:
            raise missing_error(column, df[column], missing[column])
    rows = _Rows(["row"], [df.index])
    codes = encode(true, df[true], classes).astype(np.int64, copy=False)
    values = check_proba(df[columns].to_numpy(dtype=np.float64), rows=rows, renormalize=renormalize)
    return FrameInputs(
        df,
        xr.DataArray(values, dims=("row", CLASS_DIM), coords={CLASS_DIM: classes}),
        xr.DataArray(codes, dims=("row",)),
        classes,
        w,
    )


# --------------------------------------------------------------------------- the kernel bridge


def _blocked_kernel(metric: Metric, params: dict):
    def kernel(proba, true):
        shape = proba.shape[:-1]
        flat, codes = proba.reshape(-1, proba.shape[-1]), np.broadcast_to(true, shape).reshape(-1)
        out = np.empty(len(codes))
        with np.errstate(all="ignore"):
            for start in range(0, len(codes), BLOCK_ROWS):  # cache blocking: each block is vectorised
                stop = min(len(codes), start + BLOCK_ROWS)
                score = metric.func(flat[start:stop], codes[start:stop], **params)
                given = f"probabilities of shape {(stop - start, proba.shape[-1])}"
                out[start:stop] = checked_output(metric, score, (stop - start,), given)
                out[start:stop][codes[start:stop] == DROPPED] = np.nan
        return out.reshape(shape)

    return kernel


def mean_scores(scores: xr.DataArray, *, dim=None, weights=None) -> xr.DataArray:
    """The (weighted) mean of per-sample ``scores`` over ``dim`` (default: every dim; ``[]``: none)."""
    dims = list(scores.dims) if dim is None else as_list(dim)
    absent = [d for d in dims if d not in scores.dims]
    if absent:
        raise ValueError(f"dim {absent} not found; the samples have dims {tuple(scores.dims)}")
    if not dims:
        return scores
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "Mean of empty slice", RuntimeWarning)
        if weights is None:
            return scores.mean(dims)
        if not isinstance(weights, xr.DataArray):
            raise TypeError(f"weights must be an xarray.DataArray broadcastable against the samples, got {type(weights).__name__}")
        if weights.chunks is None:
            check_weights(weights.name or "weights", weights.values)
        return scores.weighted(weights).mean(dims)


def _frame_mean(scores: np.ndarray, weights, keys: list[pd.Series]):
    w = np.ones(len(scores)) if weights is None else weights
    if not keys:
        with np.errstate(invalid="ignore"):
            return xr.DataArray(np.sum(w * scores) / np.sum(w))
    sums = pd.DataFrame({"num": w * scores, "den": w}).groupby(keys, sort=True, observed=False).sum()
    return (sums["num"] / sums["den"]).to_xarray()


# --------------------------------------------------------------------------- front ends


def _proba_metric(name) -> Metric:
    metric = registry.get_metric(name)
    if metric.kind != "proba":
        raise ValueError(f"metric {name!r} is of kind {metric.kind!r}; a per-sample score needs a 'proba' metric, "
                         f"one of {registry.metric_names('proba')}")
    return metric


def array_metric(metric: Metric, proba: xr.DataArray, true: xr.DataArray, *, dim=None, weights=None, labels=None,
                 renormalize=False, dropna=False, params=None) -> xr.DataArray:
    """``metric`` averaged over ``dim`` (default: every sample dim; ``[]``: per-sample scores)."""
    inputs = array_inputs(proba, true, labels=labels, renormalize=renormalize, dropna=dropna)
    return mean_scores(inputs.scores(metric, params or {}), dim=dim, weights=weights).rename(metric.name)


def frame_metric(df: pd.DataFrame, metric: Metric, true, proba, *, by=None, labels=None, weights=None, dropna=False,
                 renormalize=False, params=None) -> xr.DataArray:
    """``metric`` averaged over the rows of ``df`` (per combination of ``by`` values if given)."""
    inputs = frame_inputs(df, true, proba, by=by, labels=labels, weights=weights, dropna=dropna, renormalize=renormalize)
    scores = inputs.scores(metric, params or {}).values
    return _frame_mean(scores, inputs.weights, [inputs.df[c] for c in as_list(by)]).rename(metric.name)


def _split(metrics):
    """The request split into confusion metrics (as ``evaluate_cube`` specs) and proba metrics, and its order."""
    request = metric_request(metrics, kind=None)
    confusion = {out: (m.name, p) for out, (m, p) in request.items() if m.kind == "confusion"}
    proba = {out: (m, p) for out, (m, p) in request.items() if m.kind == "proba"}
    return confusion, proba, list(request)


def evaluate_frame(df: pd.DataFrame, true, pred=None, metrics=None, *, proba=None, by=None, labels=None, weights=None,
                   dropna=False, renormalize=False) -> xr.Dataset:
    """One variable per metric. Confusion metrics use ``pred`` (default: the most probable class); proba metrics use ``proba``."""
    if proba is None:
        if pred is None:
            raise TypeError("evaluate needs predicted labels (pred=) or class probabilities (proba=)")
        return evaluate_cube(frame_cube(df, true, pred, by=by, labels=labels, weights=weights, dropna=dropna), metrics)
    confusion, scores, order = _split(metrics)
    inputs = frame_inputs(df, true, proba, by=by, labels=labels, weights=weights, dropna=dropna,
                          renormalize=renormalize, pred=pred)
    keys = [inputs.df[c] for c in as_list(by)]
    variables = {out: _frame_mean(inputs.scores(m, p).values, inputs.weights, keys) for out, (m, p) in scores.items()}
    if confusion:
        frame = inputs.df
        if pred is None:
            pred = "argmax"
            argmax = pd.Categorical.from_codes(inputs.argmax().values, categories=inputs.classes, ordered=True)
            frame = frame.drop(columns=[pred], errors="ignore").assign(**{pred: argmax})
        cube = frame_cube(frame, true, pred, by=by, labels=inputs.classes, weights=inputs.weights)
        variables.update(evaluate_cube(cube, confusion).data_vars)
    return xr.Dataset({out: variables[out] for out in order})


def evaluate_array(proba: xr.DataArray, true: xr.DataArray, metrics=None, *, pred=None, dim=None, labels=None,
                   weights=None, renormalize=False, dropna=False) -> xr.Dataset:
    """One variable per metric on a probability array. Confusion metrics use ``pred`` (default: the most probable class)."""
    if true is None:
        raise TypeError("evaluate on class probabilities needs the true labels: proba.ordinal.evaluate(true, metrics)")
    confusion, scores, order = _split(metrics)
    inputs = array_inputs(proba, true, labels=labels, renormalize=renormalize, dropna=dropna)
    variables = {out: mean_scores(inputs.scores(m, p), dim=dim, weights=weights) for out, (m, p) in scores.items()}
    if confusion:
        if pred is None:
            cube = inputs.cube(dim=dim, weights=weights)
        else:
            cube = array_cube(pred, true, dim=dim, labels=inputs.classes, weights=weights, dropna=dropna)
        variables.update(evaluate_cube(cube, confusion).data_vars)
    return xr.Dataset({out: variables[out] for out in order})


def worst(data, true, proba=None, *, score="rps", n=10, labels=None, renormalize=False, **params) -> pd.DataFrame:
    """The ``n`` worst samples under the per-sample ``score``, worst first (the error analysis of seed 002, Fig. 3).

    ``worst(df, "y", ["p0", "p1", "p2"])`` for a DataFrame (``proba`` a list or a
    dict label -> column) or ``worst(proba_da, true_da)`` for a probability
    array. The table has the true label, the probabilities, the most probable
    class (``argmax``) and the score, indexed by the DataFrame's row labels or
    the array's sample coordinates. Ties keep the input order.
    """
    metric = _proba_metric(score)
    if isinstance(data, pd.DataFrame):
        if proba is None:
            raise TypeError("worst(df, true, proba): give the probability columns, a list or a dict label -> column")
        inputs = frame_inputs(data, true, proba, labels=labels, renormalize=renormalize)
    elif isinstance(data, xr.DataArray):
        if proba is not None:
            raise TypeError("worst(proba_da, true_da): the probabilities are the first argument")
        inputs = array_inputs(data, true, labels=labels, renormalize=renormalize)
    else:
        raise TypeError(f"worst() takes a pandas DataFrame or an xarray DataArray of probabilities, got {type(data).__name__}")
    scores = np.asarray(inputs.scores(metric, params).values).reshape(-1)
    key = scores if not metric.higher_is_better else -scores
    chosen = np.argsort(-key, kind="stable")[: max(int(n), 0)]
    shape = inputs.codes.shape
    proba_values = np.asarray(inputs.proba.values).reshape(-1, len(inputs.classes))[chosen]
    codes = np.asarray(inputs.codes.values).reshape(-1)[chosen]
    index = (inputs.df.index[chosen] if isinstance(inputs, FrameInputs) else _Rows.of(inputs.codes).index(chosen, shape))
    table = pd.DataFrame(proba_values, index=index, columns=pd.Index(inputs.classes, name=CLASS_DIM))
    table.insert(0, "true", inputs.classes[codes])
    table["argmax"] = inputs.classes[proba_values.argmax(axis=1)]
    table[metric.name] = scores[chosen]
    return table
