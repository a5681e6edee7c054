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

    The models are the coordinates of a dim, or the level of a dim's MultiIndex (the groups that occur), that
    holds baselines' names (``NAMES``); each metric is averaged over the rest (folds, repeats) before the
    ranking. The attr is JSON: a list of ``{"model": ..., "baseline": ...}``.
    """
    said = []
    for dim, level in _model_dims(result):
        for out, values in result.data_vars.items():
            if dim not in values.dims or "higher_is_better" not in values.attrs and "best" not in values.attrs:
                continue
            by_model = values if level is None else values.groupby(values[level]).mean(skipna=True)
            model = dim if level is None else level
            others = [d for d in by_model.dims if d != model]
            mean = by_model.mean(others, skipna=True)
            names = mean.indexes[model]
            is_baseline = np.asarray(names.isin(NAMES))
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
                averaged = others if level is None else [*others, *(n for n in result.indexes[dim].names if n != level)]
                over = f" (means over {', '.join(map(str, averaged))})" if averaged else ""
                said.append(f"{out} ranks {shown}{more}{over}")
    if said:
        warn(
            "; ".join(said) + ". A constant baseline uses none of the features: either the model has learnt less "
            "than the class frequencies, or the metric rewards the class imbalance more than skill (read it beside a "
            "metric that ranks the baselines last, e.g. uoc, qwk, rps)",
            BaselineWarning,
        )
    return result


def _model_dims(result: xr.Dataset) -> list[tuple[Hashable, Hashable | None]]:
    """The dims whose coordinates name baselines, each with None, or with the level of its MultiIndex that does."""
    found: list[tuple[Hashable, Hashable | None]] = []
    for dim in result.dims:
        index = result.indexes.get(dim)
        if isinstance(index, pd.MultiIndex):
            levels = [i for i in range(index.nlevels) if index.get_level_values(i).isin(NAMES).any()]
            found += [(dim, index.names[levels[0]])] if levels else []
        elif index is not None and index.isin(NAMES).any():
            found.append((dim, None))
    return found
