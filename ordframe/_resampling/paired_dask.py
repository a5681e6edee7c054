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

Only the table of distinct patterns (at most K^(M+1) per stratum) leaves the cluster;
with ``cluster=`` (clusters of samples drawn whole), the table of distinct
(pattern, cluster) pairs, from which the clusters' patterns are found as for a
pandas frame.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import one_column, rng_of
from ordframe._core.dims import BOOTSTRAP_DIM, PRED, TRUE
from ordframe._core.drawing import Resampling
from ordframe._core.messages import show
from ordframe._inputs.dask_frame import check_dask_frame, dask_cube, missing_in_whole
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._resampling.paired import (
    check_roles,
    cluster_draws,
    pattern_cubes,
    sample_draws,
    warn_repeated_samples,
)


def dask_bootstrap(ddf, selection: Selection, draws: Resampling, replicate_dim: str = BOOTSTRAP_DIM) -> xr.DataArray:
    """Paired bootstrap replicate cubes of a dask DataFrame (see the module docstring and ``df.ordinal.bootstrap``).

    ``selection.by`` names the model column, ``draws.sample`` the samples' ids (both needed here).
    """
    check_dask_frame(ddf)
    models, layers, sample = list(selection.by), list(draws.strata), draws.sample
    if len(models) != 1 or sample is None:
        raise ValueError(
            "a dask DataFrame's paired bootstrap needs one model column (model=) and the column that "
            "identifies the samples (sample=): row positions are not known across partitions"
        )
    clusters = one_column(draws.cluster, "cluster")
    own = [c for c in clusters if c != sample]  # the sample ids may be the clusters: one row per subject
    named = [*models, *layers, sample, *own]
    repeated = [c for c in dict.fromkeys(named) if named.count(c) > 1]
    if repeated:
        raise ValueError(f"{show(repeated)} given twice among model=, strata=, sample= and cluster=")
    check_roles(ddf._meta, {"model": models, "strata": layers, "sample": [sample], "cluster": own})
    cube = dask_cube(ddf, selection.but(by=[*layers, *models]))
    classes = cube.indexes[TRUE]
    strata_values = [cube.indexes[str(c)] for c in layers]
    model_values = cube.indexes[str(models[0])]
    k, n_models = len(classes), len(model_values)
    if (k + 1) ** n_models * (k + 1) >= 2**62 or n_models > 61:
        raise ValueError(f"{n_models} models of {k} classes are too many for one pattern code; compare fewer models")
    meta = pd.DataFrame({"stratum": [], "sample": [], "truth": [], "code": [], "models": [], "rows": []}).astype(
        {"stratum": "i8", "sample": ddf._meta[sample].dtype, "truth": "i8", "code": "i8", "models": "i8", "rows": "i8"}
    )
    if own:
        meta["cluster"] = ddf._meta[own[0]]
    coded = ddf.map_partitions(
        _codes,
        selection=selection.but(by=[*layers, models[0], sample, *own], labels=classes),
        levels=[*strata_values, model_values],
        meta=meta,
    )
    if clusters and not own:
        coded = coded.assign(cluster=coded["sample"])
    sums = {"truth": ["min", "max"], "code": "sum", "models": "sum", "rows": "sum"}
    per_sample = coded.groupby(["stratum", "sample"]).agg({**sums, **({"cluster": ["min", "max"]} if clusters else {})})
    per_sample.columns = [
        "true_min",
        "true_max",
        "code",
        "models",
        "rows",
        *(["cluster", "cluster_max"] if clusters else []),
    ]
    keys = [
        "stratum",
        "true_min",
        "true_max",
        "code",
        "models",
        "rows",
        *(["cluster", "cluster_max"] if clusters else []),
    ]
    table = per_sample.groupby(keys).size()
    try:
        if layers and not clusters:  # sample ids in several strata: repeated cross-validation, see paired_samples
            import dask  # an optional dependency, there when a dask DataFrame is

            recurring = coded[["sample", "stratum"]].drop_duplicates()["sample"].value_counts()
            table, recurring = dask.compute(table, recurring)
            warn_repeated_samples(recurring.to_numpy(), sample, layers)
        else:
            table = table.compute()
    except ValueError as error:
        if not hasattr(error, "missing"):
            raise
        raise missing_in_whole(ddf, error) from None  # one partition's count: said of the whole frame
    table = table.reset_index()
    if clusters and (table["cluster"] != table["cluster_max"]).any():
        count = int(table[0][table["cluster"] != table["cluster_max"]].sum())
        raise ValueError(
            f"{count} sample(s) have different {clusters[0]!r} values for different models; a sample belongs to one "
            f"cluster: check the {clusters[0]!r} and sample= columns"
        )
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
            f"sample= and model= columns"
        )
    code = table["code"].to_numpy()
    digits = np.stack([(code // (k + 1) ** m) % (k + 1) for m in range(n_models)], axis=1)
    n_strata = int(np.prod([len(v) for v in strata_values], dtype=np.int64))
    stratum, truth = table["stratum"].to_numpy(np.int64), table["true_min"].to_numpy(np.int64)
    predictions, weight = (digits - 1).astype(np.int64), table[0].to_numpy(np.int64)
    if clusters:
        units = cluster_draws(
            pd.factorize(table["cluster"])[0], stratum, truth, predictions, k, n_strata, clusters[0], weight
        )
    else:  # the patterns in the order of the pandas front end's: the same seed draws the same replicates
        units = sample_draws(stratum, truth, predictions, k, n_strata, weight)
    values = pattern_cubes(units, n_strata * n_models, k, draws.n_resamples, rng_of(draws.seed), draws.progress)
    shape = (draws.n_resamples, *(len(v) for v in strata_values), n_models, k, k)
    coords = {str(c): v for c, v in zip([*layers, models[0]], [*strata_values, model_values])}
    coords.update({TRUE: (TRUE, classes), PRED: (PRED, classes)})
    dims = (replicate_dim, *map(str, layers), str(models[0]), TRUE, PRED)
    return xr.DataArray(values.reshape(shape), dims=dims, coords=coords, name="count", attrs=draws.record())


def _codes(part: pd.DataFrame, *, selection: Selection, levels) -> pd.DataFrame:
    """Per row kept: its stratum, its sample, its true class and its share of its sample's two sums."""
    rows = frame_rows(part, selection, part=True)
    classes = rows.classes
    *groups, samples = rows.groups.columns[: len(levels) + 1]
    position = [
        np.asarray(level.get_indexer(g.coord), dtype=np.int64)[np.asarray(g.codes, np.int64) - g.offset]
        for g, level in zip(groups, levels)
    ]
    stratum = np.zeros(len(rows.index), np.int64)
    for p, level in zip(position[:-1], levels[:-1]):
        stratum = stratum * len(level) + p
    model = position[-1]
    k = len(classes)
    columns = {
        "stratum": stratum,
        "sample": _values(samples),
        "truth": rows.true.array(),
        "code": (rows.predicted().array() + 1) * (k + 1) ** model,
        "models": np.left_shift(1, model),
        "rows": 1,
    }
    if len(rows.groups.columns) > len(levels) + 1:
        columns["cluster"] = _values(rows.groups.columns[-1])
    return pd.DataFrame(columns, index=rows.index)


def _values(column):
    """A ``by`` column's value in every row."""
    return column.coord[np.asarray(column.codes, np.int64) - column.offset]
