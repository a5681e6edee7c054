"""The paired bootstrap of a dask DataFrame: sample patterns found across partitions, then drawn as in ``paired``.

A sample's rows (one per model) may sit in different partitions, so its
pattern (stratum, true class, prediction of every model; ``ordframe``'s
paired bootstrap) is assembled by a groupby over ``(stratum, sample)`` that
dask runs as a tree reduction. Two passes over the data:

1. the confusion cube by ``(*strata, model)`` through the dask front end,
   which decides the classes, the strata and the models, and finds missing
   values, as for a pandas frame;
2. every partition coded by the pandas front end against those, each row
   adding ``(pred + 1) (K + 1)^m`` and ``2^m`` for its model m to its sample's
   sums. A sample has every model exactly once when it has M rows whose
   ``2^m`` sum to ``2^M - 1`` (M powers of two reach that sum only if they are
   all different), and then its first sum is carry-free: the predictions.

Only the table of distinct patterns (at most K^(M+1) per stratum) leaves the cluster.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import by_names, check_replicates, rng_of
from ordframe._core.dims import BOOTSTRAP_DIM, PRED, TRUE
from ordframe._inputs.dask_frame import check_dask_frame, dask_cube
from ordframe._inputs.frame import frame_rows
from ordframe._resampling.paired import pattern_cubes


def dask_bootstrap(
    ddf,
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
    replicate_dim: str = BOOTSTRAP_DIM,
    progress: bool | None = None,
) -> xr.DataArray:
    """Paired bootstrap replicate cubes of a dask DataFrame (see the module docstring and ``df.ordinal.bootstrap``)."""
    check_dask_frame(ddf)
    n = check_replicates(n)
    models, layers = by_names(by), by_names(strata, "strata")
    if len(models) != 1 or sample is None:
        raise ValueError(
            "a dask DataFrame's paired bootstrap needs one model column (by=) and the column that "
            "identifies the samples (sample=): row positions are not known across partitions"
        )
    overlap = [c for c in [*models, sample] if c in layers] + ([sample] if sample in models else [])
    if overlap:
        raise ValueError(f"{overlap} given twice among by=, strata= and sample=")
    cube = dask_cube(ddf, true, pred, by=[*layers, *models], labels=labels, dropna=dropna)
    classes = cube.indexes[TRUE]
    strata_values = [cube.indexes[str(c)] for c in layers]
    model_values = cube.indexes[str(models[0])]
    k, n_models = len(classes), len(model_values)
    if (k + 1) ** n_models * (k + 1) >= 2**62 or n_models > 61:
        raise ValueError(f"{n_models} models of {k} classes are too many for one pattern code; compare fewer models")
    meta = pd.DataFrame({"stratum": [], "sample": [], "truth": [], "code": [], "models": [], "rows": []}).astype(
        {"stratum": "i8", "sample": ddf._meta[sample].dtype, "truth": "i8", "code": "i8", "models": "i8", "rows": "i8"}
    )
    coded = ddf.map_partitions(
        _codes,
        true=true,
        pred=pred,
        columns=[*layers, models[0], sample],
        levels=[*strata_values, model_values],
        classes=classes,
        dropna=dropna,
        meta=meta,
    )
    per_sample = coded.groupby(["stratum", "sample"]).agg(
        {"truth": ["min", "max"], "code": "sum", "models": "sum", "rows": "sum"}
    )
    per_sample.columns = ["true_min", "true_max", "code", "models", "rows"]
    table = per_sample.groupby(["stratum", "true_min", "true_max", "code", "models", "rows"]).size().compute()
    table = table.reset_index()
    if (table["true_min"] != table["true_max"]).any():
        count = int(table[0][table["true_min"] != table["true_max"]].sum())
        raise ValueError(
            f"{count} sample(s) have different true labels for different models; a paired comparison needs "
            "one true label per sample (check the sample= column)"
        )
    complete = (table["rows"] == n_models) & (table["models"] == 2**n_models - 1)
    if not complete.all():
        count = int(table[0][~complete].sum())
        raise ValueError(
            f"{count} sample(s) do not have exactly one row of every model (a model lacks the sample, or predicts "
            f"it twice); every model must predict every sample exactly once: drop those samples, or check the "
            f"sample= and by= columns"
        )
    code = table["code"].to_numpy()
    digits = np.stack([(code // (k + 1) ** m) % (k + 1) for m in range(n_models)], axis=1)
    patterns, where = np.unique(
        np.column_stack([table["stratum"], table["true_min"], digits - 1]).astype(np.int64), axis=0, return_inverse=True
    )  # in the order of the pandas front end's patterns: the same seed draws the same replicates
    weight = np.bincount(where.reshape(-1), weights=table[0].to_numpy(), minlength=len(patterns)).astype(np.int64)
    n_strata = int(np.prod([len(v) for v in strata_values], dtype=np.int64))
    values = pattern_cubes(patterns, weight, n_strata, k, n, rng_of(seed), progress)
    shape = (n, *(len(v) for v in strata_values), n_models, k, k)
    coords = {str(c): v for c, v in zip([*layers, models[0]], [*strata_values, model_values])}
    coords.update({TRUE: (TRUE, classes), PRED: (PRED, classes)})
    dims = (replicate_dim, *map(str, layers), str(models[0]), TRUE, PRED)
    return xr.DataArray(values.reshape(shape), dims=dims, coords=coords, name="count")


def _codes(part: pd.DataFrame, *, true, pred, columns, levels, classes, dropna) -> pd.DataFrame:
    """Per row kept: its stratum, its sample, its true class and its share of its sample's two sums."""
    rows = frame_rows(part, true, pred, by=columns, labels=classes, dropna=dropna, part=True)
    *groups, samples = rows.groups.columns
    position = [
        np.asarray(level.get_indexer(g.coord), dtype=np.int64)[np.asarray(g.codes, np.int64) - g.offset]
        for g, level in zip(groups, levels)
    ]
    stratum = np.zeros(len(rows.index), np.int64)
    for p, level in zip(position[:-1], levels[:-1]):
        stratum = stratum * len(level) + p
    model = position[-1]
    k = len(classes)
    return pd.DataFrame(
        {
            "stratum": stratum,
            "sample": samples.coord[np.asarray(samples.codes, np.int64) - samples.offset],
            "truth": rows.true.array(),
            "code": (rows.predicted().array() + 1) * (k + 1) ** model,
            "models": np.left_shift(1, model),
            "rows": 1,
        },
        index=rows.index,
    )
