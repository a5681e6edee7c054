"""The paired bootstrap of several models scored on the same samples, without touching rows per replicate.

Comparing models needs the *same* resample of samples for every model, so
that their differences keep their correlation. Resampling rows would cost
N operations per replicate. Instead, every sample is reduced to its pattern
``(stratum, true class, prediction of model 1, ..., prediction of model M)``;
there are at most N patterns, usually far fewer (at most K^(M+1) per
stratum). A bootstrap replicate is a multinomial draw of the stratum's N
samples over its patterns with probabilities (pattern count) / N, which is
exactly what drawing N rows with replacement gives; each model's replicate
cube is then the sum of the pattern counts by cell, a sparse matrix product.
Replicates are drawn in chunks, so memory stays bounded whatever their number.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import xarray as xr
from scipy import sparse

from .dims import PRED, TRUE
from .frame import by_names, frame_rows
from .groups import Groups
from .messages import show
from .resample import BOOTSTRAP_DIM, check_replicates, rng_of

# Pattern counts of at most this many (replicate, pattern) pairs are held at once.
CHUNK_CELLS = 1 << 23


def frame_bootstrap(
    df: pd.DataFrame,
    true,
    pred,
    *,
    by="model",
    sample=None,
    strata=None,
    n: int = 1000,
    seed=None,
    labels=None,
    dropna: bool = False,
    dim: str = BOOTSTRAP_DIM,
) -> xr.DataArray:
    """Paired bootstrap replicate cubes with dims ``(dim, *strata, *by, "true", "pred")``.

    ``by`` names the models (the columns whose values are compared); every
    model must predict every sample once. ``sample`` names the column that
    identifies a sample across models (default: the row's position within its
    model and stratum). ``strata`` are resampled independently, each keeping
    its number of samples (e.g. the folds of a cross-validation).
    """
    n = check_replicates(n)
    models, layers = by_names(by), by_names(strata)
    if not models:
        raise ValueError("by= must name the column(s) of the models to compare (one cube per model)")
    extra = by_names(sample)
    overlap = [c for c in [*models, *extra] if c in layers] + [c for c in extra if c in models]
    if overlap:
        raise ValueError(f"{show(overlap)} given twice among by=, strata= and sample=")
    rows = frame_rows(df, true, pred, by=[*layers, *models, *extra], labels=labels, dropna=dropna)
    columns = rows.groups.columns
    groups = Groups(columns[: len(layers) + len(models)])
    n_models = math.prod(len(c.coord) for c in columns[len(layers) : len(layers) + len(models)])
    group = groups.flat_index(len(rows.index))
    stratum, model = np.divmod(group, n_models)
    if extra:
        key = np.asarray(columns[-1].codes, dtype=np.int64) - columns[-1].offset
    else:  # the position of the row within its model and stratum
        order = np.argsort(group, kind="stable")
        starts = np.searchsorted(group[order], group[order], side="left")
        key = np.empty(len(group), np.int64)
        key[order] = np.arange(len(group)) - starts
    true_codes, pred_codes = rows.true.array(), rows.predicted().array()
    _, sample_of = np.unique(np.stack([stratum, key]), axis=1, return_inverse=True)
    sample_of = sample_of.reshape(-1)
    table = _prediction_table(sample_of, model, pred_codes, n_models, rows.index, columns[-1].name if extra else None)
    truth = np.full(table.shape[0], -1, np.int64)
    truth[sample_of] = true_codes  # one of each sample's rows; all of them must agree
    disagree = truth[sample_of] != true_codes
    if disagree.any():
        count = len(np.unique(sample_of[disagree]))
        raise ValueError(
            f"{count} sample(s) have different true labels for different models; a paired "
            "comparison needs one true label per sample (check the sample= column)"
        )
    layer = np.zeros(table.shape[0], np.int64)
    layer[sample_of] = stratum
    k = len(rows.classes)
    n_strata = math.prod(len(c.coord) for c in columns[: len(layers)])
    counts = _replicates(layer, truth, table, n_strata, k, n, rng_of(seed))
    sizes = [*groups.sizes]
    values = counts.reshape(n, *sizes, k, k)
    values = np.moveaxis(values, 0, len(sizes))  # (*groups, replicate, K, K) for the group layout
    seen = np.bincount(group, minlength=math.prod(sizes)).reshape(sizes)
    coords = {TRUE: rows.classes, PRED: rows.classes}
    cube = groups.labelled(values, (dim, TRUE, PRED), coords, rows=seen, name="count")
    return cube.transpose(dim, ...)


def _prediction_table(sample_of, model, pred_codes, n_models, index, sample_name) -> np.ndarray:
    """``table[s, m]``: model m's predicted class code for sample s; an error unless each is given once."""
    n_samples = int(sample_of.max()) + 1 if len(sample_of) else 0
    cell = sample_of * n_models + model
    given = np.bincount(cell, minlength=n_samples * n_models)
    if (given > 1).any():
        where = f"the same {sample_name!r} value" if sample_name is not None else "the same sample"
        raise ValueError(
            f"{int((given > 1).sum())} (sample, model) pair(s) appear more than once: a model predicts "
            f"{where} twice; give each sample one row per model (or name the sample column with sample=)"
        )
    if (given == 0).any():
        raise ValueError(
            f"{int((given == 0).sum())} (sample, model) pair(s) have no prediction: a paired bootstrap needs "
            "every model to predict every sample (drop the samples that some model lacks)"
        )
    table = np.empty(n_samples * n_models, np.int64)
    table[cell] = pred_codes
    return table.reshape(n_samples, n_models)


def _replicates(layer, truth, table, n_strata: int, k: int, n: int, rng: np.random.Generator) -> np.ndarray:
    """Replicate cubes ``(n, n_strata * n_models, K, K)``: multinomial pattern counts summed by cell."""
    n_models = table.shape[1]
    patterns, counts = np.unique(np.column_stack([layer, truth, table]), axis=0, return_counts=True)
    stratum = patterns[:, 0]
    sizes = np.bincount(stratum, weights=counts, minlength=n_strata).astype(np.int64)
    starts = np.searchsorted(stratum, np.arange(n_strata))
    widths = np.bincount(stratum, minlength=n_strata)
    width = max(int(widths.max()), 1)
    slot = np.arange(len(patterns)) - starts[stratum]  # a pattern's position within its stratum
    pvals = np.zeros((n_strata, width))
    pvals[stratum, slot] = counts / sizes[stratum]
    pvals[sizes == 0, 0] = 1.0  # an empty stratum draws nothing
    # each (pattern, model) adds its count to one cell of one model's cube
    cell = ((stratum[:, None] * n_models + np.arange(n_models)) * k + patterns[:, 1:2]) * k + patterns[:, 2:]
    onehot = sparse.csr_matrix(
        (np.ones(cell.size), (np.repeat(np.arange(len(patterns)), n_models), cell.ravel())),
        shape=(len(patterns), n_strata * n_models * k * k),
    )
    out = np.empty((n, n_strata * n_models * k * k), np.int64)
    chunk = max(1, CHUNK_CELLS // (n_strata * width))
    for start in range(0, n, chunk):  # bounded memory: chunks of replicates, each one vectorised draw
        stop = min(n, start + chunk)
        draws = rng.multinomial(sizes, pvals, size=(stop - start, n_strata))  # (chunk, strata, width)
        per_pattern = draws[:, stratum, slot]
        out[start:stop] = (onehot.T @ per_pattern.T).T
    return out.reshape(n, n_strata * n_models, k, k)
