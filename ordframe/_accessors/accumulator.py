"""Batches of predictions counted as they come, for training and evaluation loops (``ordframe.Accumulator``).

Each batch goes through the DataFrame front end (its checks and messages; its
vectors read as columns, no DataFrame built) and leaves only counts: one
confusion matrix per group of the batch and, for the probability metrics, the
sums of their per-sample scores and of the weights.
Those are added to a stack that grows when a new group appears, so memory
does not grow with the number of samples, and two accumulators (one per
worker) add up.
"""

from __future__ import annotations

import copy
from collections.abc import Hashable

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import (
    apply_confusion,
    as_output,
    as_scalar,
    labelled,
    parameters_json,
    prepare,
    proba_kernel,
)
from ordframe._core.checks import check_flag
from ordframe._core.dims import CUBE_DIMS, OBSERVED_DIM, PRED, TRUE
from ordframe._inputs.classes import check_two, declared_order
from ordframe._inputs.counting import count_cells
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._inputs.vectors import PRED as PRED_COLUMN
from ordframe._inputs.vectors import TRUE as TRUE_COLUMN
from ordframe._inputs.vectors import WEIGHTS, one_value, vector_columns, y_proba_words
from ordframe._registry.metric import RESERVED_PARAMETERS
from ordframe._registry.request import default_metrics, metric_request


class Accumulator:
    """Confusion counts (and probability-score sums) of batches, along named group dims, at any time.

    ``update`` takes one batch: labels, predicted labels and/or class
    probabilities as anything ``numpy.asarray`` takes (lists, numpy, pandas or
    polars Series, CPU tensors of PyTorch, JAX or TensorFlow), and group values
    as keywords (``epoch=3``, one value for the batch, or one per sample).
    ``cube()`` and ``evaluate()`` give what the accessors give for all the
    samples seen so far; ``merge`` adds another accumulator's counts (one per
    worker), and accumulators pickle.

    Parameters
    ----------
    labels : sequence
        The classes in order, lowest first (a batch need not have them all).
    metrics : str, list or dict, optional
        What ``evaluate`` computes, as ``metrics=`` of ``evaluate`` (default:
        every confusion metric, and every probability metric once
        probabilities are given). The probability metrics' per-sample scores
        are summed as batches come, so they are fixed here.

    Examples
    --------
    >>> import ordframe
    >>> acc = ordframe.Accumulator(labels=[0, 1, 2], metrics=["accuracy", "mae"])
    >>> for epoch in range(2):
    ...     acc.update([0, 1, 2, 2], [0, 1, 1, 2], epoch=epoch, split="valid")
    >>> acc.evaluate().accuracy.sel(split="valid").values
    array([0.75, 0.75])
    """

    def __init__(self, labels, *, metrics=None):
        self.classes = check_two(declared_order(labels))
        self.metrics = metrics
        self._request = metric_request(default_metrics(probabilities=True) if metrics is None else metrics, None)
        ranked = [out for out, (m, _) in self._request.items() if m.kind == "score"]
        if ranked:
            raise ValueError(
                f"{ranked} are score metrics, which need every sample's score at once, not counts of batches: "
                "compute them on the whole, ordframe.<metric>(y_true, y_score)"
            )
        k = len(self.classes)  # every parameter is checked now; the probability kernels' are prepared once
        prepared = [(m, prepare(m, p, k, self.classes)) for m, p in self._request.values()]
        self._outputs = {out: (m, parameters_json(p)) for out, (m, p) in zip(self._request, prepared)}  # merge's
        self._prepared = [(m, p) for m, p in prepared if m.kind == "proba"]
        self._proba_outputs = [out for out, (m, _) in self._request.items() if m.kind == "proba"]
        self._selections: dict[tuple, Selection] = {}
        self.reset()

    def reset(self) -> None:
        """Forget every batch (the classes, metrics and group dims are kept if set)."""
        k = len(self.classes)
        self._dims: tuple[str, ...] | None = None
        self._probabilities: bool | None = None
        self._slots: dict[tuple, int] = {}
        self._counts = np.zeros((0, k, k), np.int64)
        self._scores = np.zeros((0, len(self._prepared)))
        self._weights = np.zeros(0)

    def update(
        self,
        y_true,
        y_pred=None,
        *,
        y_proba=None,
        sample_weight=None,
        dropna: bool = False,
        renormalize: bool = False,
        **groups,
    ) -> None:
        """Add one batch: true labels, predicted labels and/or class probabilities ``(samples, classes)``.

        The columns of ``y_proba`` are the classes of ``labels=`` in order, or, for a DataFrame whose
        column names are those classes (``columns=model.classes_``), matched to them by name. Without
        ``y_pred`` the predicted class is the most probable one. ``dropna=True`` leaves out samples
        with a missing label (with a warning), ``renormalize=True`` divides each row of ``y_proba`` by its
        sum (float16 softmax rows may miss 1 by more than 1e-5). Other keywords name group dims: one value
        for the whole batch, or one per sample.
        """
        layout = self._checked_layout(groups, y_proba is not None)
        slot = self._known_slot(groups)
        columns = {} if slot is not None else groups  # the values of a group seen before need no coding
        vectors, proba = vector_columns(
            y_true, y_pred, y_proba=y_proba, sample_weight=sample_weight, groups=columns, labels=self.classes
        )
        by = tuple(columns)
        selection = self._selection(y_pred is not None, proba, by, sample_weight is not None, dropna, renormalize)
        if y_proba is None:
            rows = frame_rows(vectors, selection)
        else:
            with y_proba_words(advice="; give one column per class of Accumulator(labels=...), in that order"):
                rows = frame_rows(vectors, selection)
        self._dims, self._probabilities = layout  # the batch is valid: its layout is the accumulator's
        counts = rows.counts()
        slots: np.ndarray | slice
        if slot is None:
            slots = self._slots_of(rows.groups.combinations(), tuple(groups))
        else:
            slots = slice(slot, slot + 1)  # basic indexing: no copy of the stack's matrix
        if sample_weight is not None and self._counts.dtype.kind != "f":
            self._counts = self._counts.astype(np.float64)  # weighted counts from now on
        self._counts[slots] += counts.reshape(-1, *counts.shape[-2:])
        if self._probabilities and self._prepared:
            codes, sizes, offsets = rows.groups.counting()
            weights = np.ones(len(rows.index)) if rows.weights is None else rows.weights
            true = rows.true.array()
            scores = np.stack([weights, *(proba_kernel(m, params)(rows.proba, true) for m, params in self._prepared)])
            if rows.weights is not None:
                scores[1:] *= weights
            sums = _sums(codes, sizes, offsets, scores)
            self._weights[slots] += sums[0]
            self._scores[slots] += sums[1:].T

    def merge(self, other: Accumulator) -> Accumulator:
        """Add the counts of ``other`` (another worker's, made with the same ``labels=`` and ``metrics=``,
        parameters included: an error otherwise) to these; returns ``self``."""
        if not isinstance(other, Accumulator):
            raise TypeError(f"can only merge another Accumulator, got {type(other).__name__}")
        if not (other.classes.equals(self.classes) and other._request.keys() == self._request.keys()):
            raise ValueError(
                "the accumulators differ in their classes or metrics "
                f"({list(self.classes)}, {list(self._request)} vs {list(other.classes)}, {list(other._request)}); "
                "create every worker's with the same labels= and metrics="
            )
        for out, (metric, params) in self._outputs.items():
            other_metric, other_params = other._outputs[out]
            if other_metric != metric or other_params != params:
                raise ValueError(
                    f"the accumulators differ in their metrics: output {out!r} is {metric.name} with parameters "
                    f"{params} here and {other_metric.name} with parameters {other_params} in the other; "
                    "create every worker's with the same labels= and metrics="
                )
        if other._dims is None:
            return self
        self._dims, self._probabilities = self._checked_layout(dict.fromkeys(other._dims), bool(other._probabilities))
        slots = self._slots_of(list(other._slots), other._dims)
        self._counts = self._counts.astype(np.result_type(self._counts, other._counts), copy=False)
        self._counts[slots] += other._counts[: len(slots)]
        self._scores[slots] += other._scores[: len(slots)]
        self._weights[slots] += other._weights[: len(slots)]
        return self

    def __add__(self, other: Accumulator) -> Accumulator:
        return copy.deepcopy(self).merge(other)

    def __radd__(self, other) -> Accumulator:
        if isinstance(other, int) and other == 0:  # sum(accumulators) starts from 0
            return copy.deepcopy(self)
        return NotImplemented

    def __repr__(self) -> str:
        dims = "no batch yet" if self._dims is None else f"dims {self._dims}, {len(self._slots)} group(s)"
        return f"Accumulator(labels={list(self.classes)}, {dims})"

    def cube(self, *, observed: bool = False) -> xr.DataArray:
        """The confusion cube ``(*group dims, true, pred)`` of every sample so far.

        ``observed=True`` stacks the group combinations seen into one dim
        ``group``; otherwise every combination of the dims' values is there
        (zeros where none was seen), values sorted.
        """
        observed = check_flag(observed, "observed")
        self._check_started()
        counts = self._counts[: len(self._slots)]
        return self._laid_out(counts, CUBE_DIMS, observed, fill=0).rename("count")

    def evaluate(self, *, observed: bool = False) -> xr.Dataset:
        """One variable per metric of ``metrics=``, over the group dims, for every sample so far.

        A probability metric is the weighted mean of its per-sample scores. Without group dims, a NaN comes
        with a ``RuntimeWarning`` that says why, as from the functions ``ordframe.<metric>``.
        """
        observed = check_flag(observed, "observed")
        self._check_started()
        variables = {}
        cube = None
        weights = self._weights[: len(self._slots)]
        empty = {"confusion": lambda: not self._counts[: len(self._slots)].any(), "proba": lambda: not weights.any()}
        for out, (metric, params) in self._request.items():
            if metric.kind == "confusion":
                cube = self.cube(observed=observed) if cube is None else cube
                variables[out] = apply_confusion(metric, cube, params)
            elif self._probabilities:
                index = self._proba_outputs.index(out)
                with np.errstate(invalid="ignore", divide="ignore"):
                    mean = self._scores[: len(self._slots), index] / weights
                prepared = self._prepared[index][1]
                variables[out] = labelled(
                    self._laid_out(mean, (), observed, fill=np.nan), metric, prepared, self.classes
                )
            elif self.metrics is not None:
                raise ValueError(f"{out!r} needs class probabilities, and no batch gave y_proba")
            else:
                continue
            if not variables[out].ndim:  # one value, as a function gives: NaN comes with the function's warning
                as_scalar(variables[out], metric, empty[metric.kind])
        return xr.Dataset({out: as_output(v, out) for out, v in variables.items()})

    def _check_started(self) -> None:
        if self._dims is None:
            raise ValueError("no batch has been added yet: call update(...) first")

    def _checked_layout(self, groups: dict, probabilities: bool) -> tuple[tuple[str, ...], bool]:
        """The group dims and whether there are probabilities: those of the first batch, which later ones keep."""
        dims = tuple(groups)
        clash = [d for d in dims if d in (TRUE, PRED, OBSERVED_DIM, TRUE_COLUMN, PRED_COLUMN, WEIGHTS)]
        if clash:
            raise ValueError(f"group dim(s) {clash} would clash with ordframe's own names; rename them")
        arguments = [d for d in dims if d in RESERVED_PARAMETERS]
        if arguments:
            raise TypeError(
                f"update() got {arguments}, which the accessors take but update() does not: its keywords name "
                "group dims. The classes are given once, Accumulator(labels=...); weights are "
                "update(..., sample_weight=...); groups are keywords, update(..., epoch=3)"
            )
        if self._dims is None:
            return dims, probabilities
        if set(dims) != set(self._dims):
            raise ValueError(
                f"this batch has group dims {list(dims)}, earlier ones {list(self._dims)}; give every batch the "
                "same group keywords"
            )
        if probabilities != self._probabilities:
            had = "had" if self._probabilities else "had no"
            raise ValueError(
                f"earlier batches {had} class probabilities (y_proba=); give them with every batch or with none"
            )
        return self._dims, probabilities

    def _selection(self, pred: bool, proba: list | dict, by: tuple, weights: bool, dropna, renormalize) -> Selection:
        """The ``Selection`` of a batch's vectors, made once per kind of batch (flags that are no bool: every
        time, to be refused by it)."""
        named = tuple(proba.items() if isinstance(proba, dict) else proba)
        key = (pred, isinstance(proba, dict), named, by, weights, dropna, renormalize)
        if type(dropna) is bool and type(renormalize) is bool and key in self._selections:
            return self._selections[key]
        selection = Selection(
            TRUE_COLUMN,
            PRED_COLUMN if pred else None,
            proba or None,
            list(by),
            self.classes,
            WEIGHTS if weights else None,
            dropna,
            renormalize,
            observed=True,
        )
        self._selections[key] = selection  # the flags are booleans: the Selection checked them
        return selection

    def _known_slot(self, groups: dict) -> int | None:
        """The stack position of a batch that gives each group dim one value, together those of a group seen
        before; else None (its values are coded as columns, as a new group's are)."""
        if self._dims is None or any(np.ndim(value) for value in groups.values()):
            return None
        try:
            return self._slots.get(tuple(one_value(groups[d]) for d in self._dims))
        except TypeError:  # a value that does not hash
            return None

    def _slots_of(self, keys: list[tuple], dims: tuple) -> np.ndarray:
        """The stack positions of group ``keys`` (values along ``dims``), growing the stack for new groups."""
        order = [dims.index(d) for d in self._dims or ()]
        slots = np.array([self._slots.setdefault(tuple(k[i] for i in order), len(self._slots)) for k in keys], int)
        grow = len(self._slots) - len(self._counts)
        if grow > 0:
            grow = max(grow, len(self._counts))  # doubling: amortised O(1) per new group
            k = len(self.classes)
            self._counts = np.concatenate([self._counts, np.zeros((grow, k, k), self._counts.dtype)])
            self._scores = np.concatenate([self._scores, np.zeros((grow, self._scores.shape[1]))])
            self._weights = np.concatenate([self._weights, np.zeros(grow)])
        return slots

    def _laid_out(self, values: np.ndarray, dims: tuple, observed: bool, fill) -> xr.DataArray:
        coords: dict[Hashable, pd.Index] = {TRUE: self.classes, PRED: self.classes} if dims else {}
        if not self._dims:
            return xr.DataArray(values[0], dims=dims, coords=coords)
        index = pd.MultiIndex.from_tuples(list(self._slots), names=list(self._dims))
        stacked = xr.DataArray(
            values,
            dims=(OBSERVED_DIM, *dims),
            coords={**coords, **xr.Coordinates.from_pandas_multiindex(index, OBSERVED_DIM)},
        )
        if observed:
            return stacked.sortby(OBSERVED_DIM)
        dense = stacked.unstack(OBSERVED_DIM, fill_value=fill)
        return dense.transpose(*self._dims, *dims)


def _sums(codes, sizes, offsets, weights: np.ndarray) -> np.ndarray:
    """Per row of ``weights`` ``(values, rows)``, the sum of each group's (in the order of the batch's cube)."""
    if not codes:
        return weights.sum(axis=1, keepdims=True)
    return np.stack([count_cells(codes, sizes, offsets=offsets, weights=w).reshape(-1) for w in weights])
