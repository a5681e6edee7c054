"""The constant baselines of cross-validation: what a model that ignores the features predicts from the training labels.

Each is fitted on the class counts of one fold's training samples:

* ``"baseline: majority"``: the most frequent training class (a tie: the lowest of the tied classes), with
  probability 1 (scikit-learn's ``DummyClassifier(strategy="most_frequent")``);
* ``"baseline: prior"``: the same class, with the training classes' shares as its probabilities
  (``DummyClassifier(strategy="prior")``);
* ``"baseline: median"``: the lower median of the training labels in class order, with probability 1.

``ordframe.sklearn.cross_val_frame(..., baselines=True)`` fits them on the training folds it splits, and
``ordframe.sklearn.add_baselines`` on the other folds of the same repeat of an existing long frame; both build the
rows with ``baseline_rows``. ``flag_baselines`` marks the metrics of an evaluation that rank a baseline above a model.
"""

from __future__ import annotations

import json
from collections.abc import Hashable

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import orientation
from ordframe._core.messages import MAX_SHOWN, BaselineWarning, warn

PREFIX = "baseline: "
NAMES = tuple(PREFIX + name for name in ("majority", "prior", "median"))
FLAG = "beaten_by_baseline"  # the attr of a metric that ranks a baseline above a model


def constant_predictions(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The class codes ``(..., 3)`` and probabilities ``(..., 3, K)`` of the baselines of ``NAMES``, fitted on
    training class counts ``(..., K)`` (each with at least one sample)."""
    counts = np.asarray(counts, dtype=float)
    k = counts.shape[-1]
    majority = counts.argmax(axis=-1)  # the first maximum: the lowest of tied classes
    half = np.ceil(counts.sum(axis=-1, keepdims=True) / 2)
    median = (counts.cumsum(axis=-1) < half).sum(axis=-1)  # the first class whose cumulative count reaches half
    one_hot = np.eye(k)
    prior = counts / counts.sum(axis=-1, keepdims=True)
    return np.stack([majority, majority, median], axis=-1), np.stack(
        [one_hot[majority], prior, one_hot[median]], axis=-2
    )


def baseline_rows(
    keys: pd.DataFrame,
    split: np.ndarray,
    counts: np.ndarray,
    *,
    model: Hashable,
    pred: Hashable,
    classes: pd.Index,
    dtype=None,
    proba: list | None = None,
) -> pd.DataFrame:
    """The rows of every baseline for the test rows ``keys`` (their sample, repeat, fold and true columns): row
    ``i`` is of the fold whose training class counts (in the order of ``classes``) are ``counts[split[i]]``.

    ``pred`` holds the predicted classes (a Categorical where ``dtype`` is a ``CategoricalDtype``), the ``proba``
    columns, if any, the probabilities.
    """
    codes, probabilities = constant_predictions(counts)
    parts = []
    for b, name in enumerate(NAMES):
        part = keys.copy()
        part[model] = name
        predicted = classes[codes[split, b]]
        part[pred] = pd.Categorical(predicted, dtype=dtype) if isinstance(dtype, pd.CategoricalDtype) else predicted
        if proba is not None:
            part[proba] = probabilities[split, b]
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def flag_baselines(result: xr.Dataset) -> xr.Dataset:
    """``result`` (in place) with a ``beaten_by_baseline`` attr on each metric that ranks a baseline above a
    model, and one ``BaselineWarning`` naming them.

    The models are the coordinates of a dim that holds baselines' names (``NAMES``); each metric is averaged
    over the other dims (folds, repeats) before the ranking. The attr is JSON: a list of ``{"model": ...,
    "baseline": ...}``.
    """
    dims = [d for d in result.dims if d in result.indexes and _baselines_of(result.indexes[d]).any()]
    said = []
    for dim in dims:
        names = result.indexes[dim]
        is_baseline = _baselines_of(names)
        for out, values in result.data_vars.items():
            if dim not in values.dims or "higher_is_better" not in values.attrs and "best" not in values.attrs:
                continue
            others = [d for d in values.dims if d != dim]
            mean = values.mean(others, skipna=True)
            means = np.asarray(mean.values, dtype=float)
            score = orientation(out, values.attrs).score(means)
            beaten = [
                (names[int(m)], names[int(b)], means[m], means[b])
                for m in np.flatnonzero(~is_baseline)
                for b in np.flatnonzero(is_baseline)
                if score[b] > score[m]  # False where either is NaN
            ]
            if beaten:
                values.attrs[FLAG] = json.dumps([{"model": str(m), "baseline": str(b)} for m, b, _, _ in beaten])
                shown = ", ".join(f"{b!r} ({vb:.4g}) above {m!r} ({vm:.4g})" for m, b, vm, vb in beaten[:MAX_SHOWN])
                more = f" and {len(beaten) - MAX_SHOWN} more" if len(beaten) > MAX_SHOWN else ""
                over = f" (means over {', '.join(map(str, others))})" if others else ""
                said.append(f"{out} ranks {shown}{more}{over}")
    if said:
        warn(
            "; ".join(said) + ". A constant baseline uses none of the features: either the model has learnt less "
            "than the class frequencies, or the metric rewards the class imbalance more than skill (read it beside a "
            "metric that ranks the baselines last, e.g. uoc, qwk, rps)",
            BaselineWarning,
        )
    return result


def _baselines_of(names: pd.Index) -> np.ndarray:
    """Which of a dim's coordinates name a baseline (none of a MultiIndex's: its elements are tuples)."""
    return np.zeros(len(names), dtype=bool) if isinstance(names, pd.MultiIndex) else np.asarray(names.isin(NAMES))
