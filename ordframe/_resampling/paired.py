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

Probability metrics give every sample its own score, so with them each
pattern's draw is then shared out among the samples that have it, uniformly
(a second, independent random stream): together the two stages draw N
samples with replacement, exactly as before, and the patterns drawn are those
of the confusion metrics alone, so a seed gives the same label replicates
with or without probabilities. A replicate's mean score is the sum of the
scores drawn. Replicates are drawn in chunks, so memory stays bounded
whatever their number; the result is refused up front when it would exceed
``ordframe.set_options(max_cube_bytes=...)``.

With ``cluster=`` the units drawn are clusters of samples (patients,
subjects, sites; Davison & Hinkley 1997, sec. 3.8): a cluster's pattern is
its count in every cell of every cube, all its rows across strata and models,
and a replicate draws as many clusters as there are, with replacement, over
the distinct patterns. Clusters that each lie in one stratum are drawn within
their stratum; clusters that span strata (a subject in every repeat of a
repeated cross-validation) are drawn from all clusters together, and the
strata then only split the cubes, whose sizes vary between replicates. Fewer
than 2 clusters (in a stratum they are drawn within) is an error: every
replicate would be the data itself. Fewer than ``FEW_CLUSTERS`` warns: with
few clusters the cluster bootstrap's intervals are too narrow (Cameron &
Miller 2015, sec. VI).

Every result records how it was drawn in its attrs (``_core/drawing.py``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import apply_confusion, as_output, confusion_counts, labelled, prepare, score_kernel
from ordframe._bridge.evaluate import evaluate_frame_rows, selection_request
from ordframe._bridge.scores import frame_scores
from ordframe._core.arguments import about
from ordframe._core.checks import by_names, is_column_name, new_dim, one_column, rng_of
from ordframe._core.dims import BOOTSTRAP_DIM, CUBE_DIMS, LEFT_OUT_DIM, PRED, TRUE
from ordframe._core.drawing import Resampling
from ordframe._core.messages import MAX_SHOWN, show, warn
from ordframe._core.options import check_allocation
from ordframe._core.progress import chunks
from ordframe._inputs.frame import FrameRows, check_column, frame_rows
from ordframe._inputs.groups import Groups, occurring
from ordframe._inputs.marker import MarkerTable, marker_table
from ordframe._inputs.selection import Selection
from ordframe._registry.metric import Metric

if TYPE_CHECKING:
    from scipy import sparse

# Pattern counts of at most this many (replicate, pattern) pairs are held at once.
CHUNK_CELLS = 1 << 23

#: Fewer clusters than this (in a stratum they are drawn within) warn: the literature's rule of thumb.
FEW_CLUSTERS = 20

# A column that the call does not name, with at least this many distinct values, may be the samples' ids.
MIN_IDS = 10


@dataclass
class PairedSamples:
    """The rows of several models arranged by the samples they share.

    ``stratum[s]`` and ``truth[s]`` are sample s's stratum and true class code;
    ``table[s, m]`` is the row of model m for sample s (an index into ``rows``);
    ``cluster[s]`` (with ``cluster=``) the index of sample s's cluster.
    """

    rows: FrameRows
    groups: Groups  # the strata columns, then the model columns
    n_strata: int
    n_models: int
    stratum: np.ndarray
    truth: np.ndarray
    table: np.ndarray
    cluster: np.ndarray | None = None
    cluster_name: object = None

    def pooled(self, layers: int) -> PairedSamples:
        """The same samples with their ``layers`` strata columns pooled into one stratum (for labelling)."""
        groups = Groups(self.groups.columns[layers:])
        zero = np.zeros_like(self.stratum)
        return PairedSamples(
            self.rows, groups, 1, self.n_models, zero, self.truth, self.table, self.cluster, self.cluster_name
        )

    def draws(self) -> Draws:
        """The units a replicate draws: the samples, or with ``cluster=`` the clusters of samples."""
        rows = self.rows
        marked_only = rows.pred is None and rows.proba is None  # a marker alone: patterns of the true classes
        predictions = (rows.true if marked_only else rows.predicted()).array()[self.table]
        k = len(self.rows.classes)
        if self.cluster is None:
            return sample_draws(self.stratum, self.truth, predictions, k, self.n_strata)
        return cluster_draws(self.cluster, self.stratum, self.truth, predictions, k, self.n_strata, self.cluster_name)

    def labelled(self, values: np.ndarray, dim: str, dims=(), coords=None, name=None) -> xr.DataArray:
        """``values`` of shape ``(n, n_strata * n_models, *rest)`` as a DataArray ``(dim, *strata, *models, *dims)``."""
        sizes = self.groups.sizes
        values = np.moveaxis(values.reshape(len(values), *sizes, *values.shape[2:]), 0, len(sizes))
        seen = np.zeros(self.n_strata * self.n_models, np.int64)
        seen[self.stratum[:, None] * self.n_models + np.arange(self.n_models)] = 1
        out = self.groups.labelled(values, (dim, *dims), coords, rows=seen.reshape(sizes), name=name)
        return out.transpose(dim, ...)


def paired_samples(
    df: pd.DataFrame, selection: Selection, draws: Resampling, *, resampled: bool = True
) -> PairedSamples:
    """Validate the rows (one per sample and model) and arrange them by sample (see ``PairedSamples``).

    ``selection.by`` names the models' columns (``selection.by_keyword``, the keyword that named them, for
    the messages); ``draws`` the samples, strata and clusters. ``resampled``: the samples are to be
    bootstrapped, so sample ids found in several strata warn.
    """
    what = selection.by_keyword
    models, layers = list(selection.by), list(draws.strata)
    extra, clusters = by_names(draws.sample, "sample"), one_column(draws.cluster, "cluster")
    own = [c for c in clusters if c not in extra]  # the sample ids may be the clusters: one row per subject
    named = [*models, *layers, *extra, *own]
    repeated = [c for c in dict.fromkeys(named) if named.count(c) > 1]
    if repeated:
        raise about(
            ValueError,
            "{repeated} given twice among {" + what + "}, {strata}, {sample} and {cluster}",
            what,
            repeated=show(repeated),
        )
    check_roles(df, {what: models, "strata": layers, "sample": extra, "cluster": own})
    rows = frame_rows(
        df,
        selection.but(by=[*layers, *models, *extra, *own], weights=None, observed=False),
        unscored_groups=len(layers) + len(models) if selection.pred is not None else None,
    )
    rows = rows.observed_classes()
    columns = [occurring(c) for c in rows.groups.columns]  # integer strata and models: those with rows
    groups = Groups(columns[: len(layers) + len(models)])
    n_models = math.prod(len(c.coord) for c in columns[len(layers) : len(layers) + len(models)])
    group = groups.flat_index(len(rows.index))
    stratum, model = np.divmod(group, n_models)
    _check_every_model_predicts(Groups(columns[len(layers) : len(layers) + len(models)]), model, n_models)
    if extra:
        ids = columns[len(layers) + len(models)]
        key = np.asarray(ids.codes, dtype=np.int64) - ids.offset
    else:  # the position of the row within its model and stratum
        order = np.argsort(group, kind="stable")
        starts = np.searchsorted(group[order], group[order], side="left")
        key = np.empty(len(group), np.int64)
        key[order] = np.arange(len(group)) - starts
    _, sample_of = np.unique(np.stack([stratum, key]), axis=1, return_inverse=True)
    sample_of = sample_of.reshape(-1)
    table = _row_table(sample_of, model, n_models, extra[0] if extra else None)
    true_codes = rows.true.array()
    truth = true_codes[table[:, 0]]
    disagree = truth[sample_of] != true_codes
    if disagree.any():
        count = len(np.unique(sample_of[disagree]))
        raise about(
            ValueError, _mismatch_template(what, models, layers, extra), "sample", count=count, others=show(models[1:])
        )
    n_strata = math.prod(len(c.coord) for c in columns[: len(layers)])
    stratum = stratum[table[:, 0]]
    if clusters:
        codes = np.asarray(columns[-1].codes, dtype=np.int64) - columns[-1].offset
        cluster_of = _cluster_of(codes, table, clusters[0])
        return PairedSamples(rows, groups, n_strata, n_models, stratum, truth, table, cluster_of, clusters[0])
    if extra and layers and resampled:
        warn_repeated_samples(np.unique(key[table[:, 0]], return_counts=True)[1], extra[0], layers)
    if not extra and not clusters and resampled:
        _warn_unnamed_samples(df, models, {*named, *_named_columns(selection.true, selection.pred, selection.proba)})
    return PairedSamples(rows, groups, n_strata, n_models, stratum, truth, table)


def _mismatch_template(what: str, models: list, layers: list, extra: list) -> str:
    """The message of samples whose true labels differ between models: without sample ids, how rows were paired."""
    message = (
        "{count} sample(s) have different true labels for different models; a paired comparison needs one true "
        "label per sample"
    )
    if extra:
        return message + " (check the {sample} column)"
    message += (
        ". Without {sample}, rows are paired by position: the i-th row of every {" + what + "} group"
        + (" within each {strata} group" if layers else "")
        + " is one sample. Name the column that identifies a sample with {sample}"
    )  # fmt: skip
    if len(models) > 1:  # a fold among the models' columns: its groups hold different samples
        one = len(models) == 2
        message += (
            f", or, if {{others}} {'splits' if one else 'split'} the samples rather than "
            f"{'naming' if one else 'name'} models, move {'it' if one else 'them'} to {{strata}}"
        )
    return message


def check_roles(df: pd.DataFrame, roles: dict) -> None:
    """An error naming the argument (``{keyword: column names}``) whose column the frame lacks."""
    for role, names in roles.items():
        for name in names:
            check_column(df, name, role)


def _cluster_of(codes: np.ndarray, table: np.ndarray, name) -> np.ndarray:
    """The cluster of every sample (0 .. clusters - 1); an error when a sample's rows name different clusters."""
    first = codes[table[:, 0]]
    split = (codes[table] != first[:, None]).any(axis=1)
    if split.any():
        raise about(
            ValueError,
            "{count} sample(s) have different {name!r} values for different models; a sample belongs "
            "to one cluster: check the {name!r} and {sample} columns",
            "cluster",
            name,
            count=int(split.sum()),
            name=name,
        )
    return np.unique(first, return_inverse=True)[1].reshape(-1)


def _named_columns(*arguments) -> set:
    """The column names among a call's ``true``, ``pred`` and ``proba`` (a name, a list of them or a dict's values)."""
    names = set()
    for argument in arguments:
        values = list(argument.values()) if isinstance(argument, dict) else argument
        for value in values if isinstance(values, (list, tuple)) else [values]:
            if is_column_name(value):
                names.add(value)
    return names


def _warn_unnamed_samples(df: pd.DataFrame, models: list, named: set) -> None:
    """A warning when a column that the call does not name looks like the ids of subjects with several rows per model.

    Without ``sample=`` or ``cluster=`` every row is a sample of its own. A column of ids (integers, strings or categories, at
    least ``MIN_IDS`` distinct values) each with the same number r >= 2 of rows in every model is the signature
    of repeated cross-validation (a subject in every repeat): resampling those rows apart makes intervals too
    narrow. Only pandas columns are looked at (a dask frame needs ``sample=`` anyway).
    """
    model = (
        df.groupby(models, sort=False, dropna=False, observed=True).ngroup().to_numpy()
        if models
        else np.zeros(len(df), np.int64)
    )
    for name in df.columns:
        column = df[name]
        if name in named or not (
            isinstance(column.dtype, pd.CategoricalDtype)
            or pd.api.types.is_integer_dtype(column.dtype)
            or pd.api.types.is_string_dtype(column.dtype)
        ):
            continue
        codes = pd.factorize(column)[0]
        distinct = int(codes.max()) + 1 if len(codes) else 0
        if distinct < MIN_IDS:
            continue
        known = codes >= 0
        counts = np.bincount(model[known] * distinct + codes[known])
        rows = counts[counts > 0]
        if rows.min() == rows.max() >= 2:
            warn(
                about(
                    UserWarning,
                    "column {name!r} looks like the ids of subjects with several rows per model: each of its "
                    "{distinct} values has {rows} rows in every model (a subject in every repeat of a repeated "
                    "cross-validation, or several images of a patient), and without {sample} or {cluster} every row "
                    "is resampled as a sample of its own, which makes intervals too narrow. Pass {cluster:=} to draw "
                    "each subject with all its rows (for repeated cross-validation: {sample:=}, {cluster:=} and the "
                    "repeats and folds in {strata})",
                    "cluster",
                    name,
                    name=name,
                    distinct=distinct,
                    rows=int(rows[0]),
                )
            )
            return


def warn_repeated_samples(strata_per_id: np.ndarray, name, layers: list) -> None:
    """A warning when sample ids recur in several strata: rows of one subject resampled as if independent.

    ``strata_per_id``: for every sample id, the number of strata it occurs in.
    """
    recurring = int((strata_per_id > 1).sum())
    if recurring:
        warn(
            about(
                UserWarning,
                "{recurring} {name!r} value(s) occur in more than one stratum of {layers} (the signature of "
                "repeated cross-validation): each stratum's rows are resampled independently, as if they were "
                "different samples, which makes intervals too narrow when they are the same subjects. Pass "
                "{cluster:=} to draw each subject with all its rows, across strata and models",
                "cluster",
                name,
                recurring=recurring,
                name=name,
                layers=show(layers),
            )
        )


@dataclass
class Draws:
    """The units a replicate draws (samples, or clusters of them), as their distinct patterns."""

    stratum: np.ndarray  # (patterns,): the stratum a pattern's units are drawn within
    weight: np.ndarray  # (patterns,): how many units have the pattern
    cells: sparse.csr_matrix  # (patterns, cells): a unit's count in every cell of every cube
    n_strata: int  # the strata drawn within
    pattern_of: np.ndarray  # (units,): every unit's pattern

    @property
    def n_units(self) -> int:
        return len(self.pattern_of)


def sample_draws(stratum, truth, predictions, k: int, n_strata: int, weight=None) -> Draws:
    """Samples as units: a sample's pattern is ``(stratum, true class, prediction of every model)``.

    ``weight`` (optional) is the number of samples each row of the arrays stands for.
    """
    patterns, pattern_of = np.unique(np.column_stack([stratum, truth, predictions]), axis=0, return_inverse=True)
    pattern_of = pattern_of.reshape(-1)
    counts = np.bincount(pattern_of, weights=weight, minlength=len(patterns)).astype(np.int64)
    cells = _cells(patterns[:, 0], patterns[:, 1], patterns[:, 2:], k, n_strata)
    return Draws(patterns[:, 0], counts, cells, n_strata, pattern_of)


def cluster_draws(cluster, stratum, truth, predictions, k: int, n_strata: int, name, weight=None) -> Draws:
    """Clusters of samples as units: a cluster's pattern is its count in every cell of every cube.

    Clusters that each lie in one stratum are drawn within it; otherwise all are drawn together. ``name``:
    the cluster column, for the error on fewer than 2 clusters and the warning on fewer than ``FEW_CLUSTERS``.
    """
    from scipy import sparse  # imported when needed: it takes a third of `import ordframe`

    n_clusters = int(cluster.max()) + 1 if len(cluster) else 0
    members = sparse.csr_matrix(
        (np.ones(len(cluster)) if weight is None else weight, (cluster, np.arange(len(cluster)))),
        shape=(n_clusters, len(cluster)),
    )
    contributions = (members @ _cells(stratum, truth, predictions, k, n_strata)).tocsr()
    contributions.sort_indices()
    pattern_of, first = _equal_rows(contributions)
    low, high = np.full(n_clusters, n_strata), np.full(n_clusters, -1)
    np.minimum.at(low, cluster, stratum)
    np.maximum.at(high, cluster, stratum)
    nested = bool((low == high).all())
    _check_cluster_count(np.bincount(low, minlength=n_strata) if nested else np.array([n_clusters]), name)
    drawn_in = low[first] if nested else np.zeros(len(first), np.int64)
    counts = np.bincount(pattern_of, minlength=len(first))
    return Draws(drawn_in, counts, contributions[first], n_strata if nested else 1, pattern_of)


def _check_cluster_count(per_stratum: np.ndarray, name) -> None:
    """An error for fewer than 2 clusters where they are drawn (``per_stratum``: clusters in each stratum drawn
    within, or the one count of all), a warning for fewer than ``FEW_CLUSTERS``."""
    drawn = per_stratum[per_stratum > 0] if per_stratum.any() else per_stratum
    fewest = int(drawn.min())
    data = {"clusters": f"{fewest} cluster{'s' if fewest != 1 else ''}", "few": FEW_CLUSTERS}
    where = "{cluster:=} has {clusters}"
    if len(per_stratum) > 1:  # drawn within strata
        data.update(fewest=int((drawn == fewest).sum()), strata=len(drawn))
        where = (
            "{cluster:=}: {fewest} of the {strata} strata hold only {clusters} "
            "(clusters that each lie in one stratum are drawn within it)"
        )
    if fewest < 2:
        raise about(
            ValueError,
            where + ": a cluster bootstrap draws whole clusters, so every replicate would be the data itself "
            "(intervals of width 0, p-values at their floor). Give a cluster column with at least 2 clusters "
            "everywhere ({few} or more for intervals that cover), or leave {cluster} out",
            "cluster",
            name,
            **data,
        )
    if fewest < FEW_CLUSTERS:
        warn(
            about(
                UserWarning,
                where + ": with fewer than about {few} clusters the cluster bootstrap's intervals are too "
                "narrow and its p-values too small (Cameron & Miller 2015); read them as a lower bound of the "
                "uncertainty",
                "cluster",
                name,
                **data,
            )
        )


def _equal_rows(matrix: sparse.csr_matrix) -> tuple[np.ndarray, np.ndarray]:
    """Equal rows of a csr matrix with sorted indices: ``(group of every row, first row of every group)``.

    Rows are grouped by two random projections (equal rows sum the same numbers in the same order), then
    checked entry by entry; should different rows share their projections, every row is kept apart.
    """
    probe = np.random.default_rng(0).random((matrix.shape[1], 2))
    _, first, group = np.unique(matrix @ probe, axis=0, return_index=True, return_inverse=True)
    group = group.reshape(-1)
    if (matrix - matrix[first][group]).count_nonzero():
        everyone = np.arange(matrix.shape[0])
        return everyone, everyone
    return group, first


def frame_bootstrap(
    df: pd.DataFrame, selection: Selection, draws: Resampling, replicate_dim: str = BOOTSTRAP_DIM
) -> xr.DataArray:
    """Paired bootstrap replicate cubes with dims ``(replicate_dim, *strata, *models, "true", "pred")``.

    ``selection.by`` names the models (the columns whose values are compared); every model must predict
    every sample once. ``draws`` says how (see ``Resampling`` and the module docstring).
    """
    _check_replicate_dim(replicate_dim, selection, draws)
    paired = paired_samples(df, selection, draws)
    k = len(paired.rows.classes)
    values = pattern_cubes(
        paired.draws(), paired.n_strata * paired.n_models, k, draws.n_resamples, rng_of(draws.seed), draws.progress
    )
    coords = {TRUE: paired.rows.classes, PRED: paired.rows.classes}
    cube = paired.labelled(values, replicate_dim, (TRUE, PRED), coords, name="count")
    cube.attrs = draws.record()
    return cube


def _check_replicate_dim(replicate_dim, selection: Selection, draws: Resampling) -> None:
    new_dim(replicate_dim, [*map(str, selection.by), *map(str, draws.strata), *CUBE_DIMS], "replicate_dim")


def pattern_cubes(
    draws: Draws, matrices: int, k: int, n_resamples: int, rng: np.random.Generator, progress: bool | None = None
) -> np.ndarray:
    """Replicate cubes ``(n_resamples, matrices, K, K)`` drawn over the patterns of ``draws``."""
    counts = _replicate_counts(n_resamples, matrices, k)
    for start, stop, drawn in _draws(draws.stratum, draws.weight, draws.n_strata, n_resamples, rng, progress):
        counts[start:stop] = (draws.cells.T @ drawn.T).T
    return counts.reshape(n_resamples, matrices, k, k)


def _replicate_counts(n_resamples: int, matrices: int, k: int) -> np.ndarray:
    """The array of ``n_resamples`` replicates of ``matrices`` K x K cubes, refused when larger than ``max_cube_bytes``."""
    check_allocation(n_resamples * matrices * k * k * 8, f"{n_resamples} bootstrap replicates of {matrices} matrices")
    return np.empty((n_resamples, matrices * k * k), np.int64)


def bootstrap_evaluate(
    df: pd.DataFrame, selection: Selection, draws: Resampling, metrics=None, replicate_dim: str = BOOTSTRAP_DIM
) -> xr.Dataset:
    """Every metric on the same paired replicates: ``paired_replicates``' Dataset, without its cubes."""
    return paired_replicates(df, selection, draws, metrics, replicate_dim)[0]


def paired_replicates(
    df: pd.DataFrame,
    selection: Selection,
    draws: Resampling,
    metrics=None,
    replicate_dim: str = BOOTSTRAP_DIM,
    *,
    pool: bool = False,
) -> tuple[xr.Dataset, xr.DataArray]:
    """Every metric on the same paired replicates, a Dataset with dims ``(replicate_dim, *strata, *models)``, and
    the replicate cubes it was computed from (pooled with ``pool``); the models are ``selection.by``.

    Confusion metrics run on the replicate cubes of ``pred`` (or the most
    probable class), probability metrics are the replicate means of the
    per-sample scores of ``proba``; all from one draw of the samples (or clusters).
    ``pool``: the strata are drawn apart but scored together (dims ``(replicate_dim, *models)``):
    summed cubes, and the mean score over every sample drawn.

    The cubes hold every replicate's true-class counts, from which a reference forecast that depends on
    the class prior (a skill score's climatology) is scored on the same replicate as the models.
    """
    _check_replicate_dim(replicate_dim, selection, draws)
    taken = [*map(str, selection.by), *map(str, draws.strata), replicate_dim]
    s, n_resamples = selection, draws.n_resamples
    request = selection_request(metrics, s, taken)
    if all(m.kind == "confusion" for m, _ in request.values()) and not pool:  # cubes alone: draw the patterns
        cube = frame_bootstrap(df, selection, draws, replicate_dim)
        checked = confusion_counts(cube)  # validated once for every metric
        return xr.Dataset(
            {out: as_output(apply_confusion(m, cube, p, checked), out) for out, (m, p) in request.items()},
            attrs=cube.attrs,
        ), cube
    paired = paired_samples(df, selection, draws)
    rows, k = paired.rows, len(paired.rows.classes)
    places = paired.n_strata * paired.n_models
    units = paired.draws()
    members = np.argsort(
        units.pattern_of, kind="stable"
    )  # the units of pattern p: members[first[p] : first[p] + weight[p]]
    first = np.cumsum(units.weight) - units.weight
    scores = {
        out: _unit_sums(frame_scores(m, rows, p)[paired.table], paired, units.n_units, places)
        for out, (m, p) in request.items()
        if m.kind == "proba"
    }
    markers = {out: (m, p) for out, (m, p) in request.items() if m.kind == "score"}
    if markers:  # scored per model (and stratum unless pooled): a replicate weights the rows of one table
        table, unit_cells = _marker_cells(paired, units.n_units, pool=pool)
        kernels = {out: score_kernel(m, prepare(m, p, k, rows.classes)) for out, (m, p) in markers.items()}
        ranked = {out: np.empty((n_resamples, len(table.starts) - 1)) for out in markers}
    counts = _replicate_counts(n_resamples, places, k)
    totals = {out: np.empty((n_resamples, places)) for out in scores}
    rng = rng_of(draws.seed)
    share = rng.spawn(1)[0]  # the second stage's stream: the first stage's draws stay those of the labels alone
    chunk = max(1, CHUNK_CELLS // max(len(paired.truth) * paired.n_models, 1))
    if markers:  # a replicate's table (R, K), and a kernel's arrays over it, K of them at most
        chunk = max(1, min(chunk, CHUNK_CELLS // (table.counts.size * k)))
    for start, stop, drawn in _draws(
        units.stratum, units.weight, units.n_strata, n_resamples, rng, draws.progress, most=chunk
    ):
        counts[start:stop] = (units.cells.T @ drawn.T).T
        if not scores and not markers:
            continue
        picked = _shared_out(drawn, units.weight, first, members, share, units.n_units)
        for out, sums in scores.items():
            totals[out][start:stop] = (picked @ sums).toarray()
        if markers:
            drawn_counts = (picked @ unit_cells).toarray().reshape(stop - start, *table.counts.shape)
            for out, kernel in kernels.items():
                ranked[out][start:stop] = kernel(drawn_counts, table.starts)
    counts = counts.reshape(n_resamples, places, k, k)
    if pool:
        paired = paired.pooled(len(draws.strata))
        counts = counts.reshape(n_resamples, -1, paired.n_models, k, k).sum(axis=1)
        totals = {out: t.reshape(n_resamples, -1, paired.n_models).sum(axis=1) for out, t in totals.items()}
    cube = paired.labelled(counts, replicate_dim, (TRUE, PRED), {TRUE: rows.classes, PRED: rows.classes})
    cube.attrs = draws.record()
    drawn_rows = counts.sum(axis=(2, 3))  # per replicate and cube: the samples drawn (fixed without clusters)
    variables = {}
    counts_checked = confusion_counts(cube)  # validated once for every metric
    for out, (metric, params) in request.items():
        if metric.kind == "confusion":
            variables[out] = apply_confusion(metric, cube, params, counts_checked)
        elif metric.kind == "score":
            variables[out] = labelled(
                paired.labelled(ranked[out], replicate_dim), metric, metric.params(params), rows.classes
            )
            variables[out].attrs.update(cube.attrs)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                mean = paired.labelled(totals[out] / drawn_rows, replicate_dim)
            variables[out] = labelled(mean, metric, metric.params(params), rows.classes)
            variables[out].attrs.update(cube.attrs)
    return xr.Dataset({out: as_output(v, out) for out, v in variables.items()}, attrs=cube.attrs), cube


def paired_jackknife(paired: PairedSamples, request: dict, layers: int) -> dict[str, tuple[xr.DataArray, xr.DataArray]]:
    """Every metric of ``request`` with one unit (sample or cluster) left out, the strata pooled.

    ``{output: (values, weights)}``: along ``LEFT_OUT_DIM``, a confusion metric on the pooled cubes less one
    distinct unit pattern (weighted by how many units have it: every unit of a pattern leaves the same cubes),
    a probability metric's mean score less one unit (weight 1). The same unit leaves every model's cube, so
    the values of two models give the jackknife of their difference too.
    """
    from scipy import sparse  # imported when needed: it takes a third of `import ordframe`

    draws = paired.draws()
    pooled = paired.pooled(layers)
    k, models = len(paired.rows.classes), paired.n_models
    patterns = len(draws.weight)
    check_allocation(2 * patterns * models * k * k * 8, f"a jackknife of {patterns} unit patterns x {models} models")
    contribution = draws.cells.toarray().reshape(patterns, paired.n_strata, models, k, k).sum(axis=1)
    cube = np.tensordot(draws.weight, contribution, axes=1)
    coords = {TRUE: paired.rows.classes, PRED: paired.rows.classes}
    left = pooled.labelled(cube[None] - contribution, LEFT_OUT_DIM, (TRUE, PRED), coords)
    weight = xr.DataArray(draws.weight.astype(np.float64), dims=LEFT_OUT_DIM)
    out = {}
    units = np.arange(len(paired.truth)) if paired.cluster is None else paired.cluster
    size = np.bincount(units, minlength=draws.n_units).astype(np.float64)[:, None]  # a unit's rows per model
    places = paired.n_strata * models
    to_model = sparse.csr_matrix(
        (np.ones(places), (np.arange(places), np.arange(places) % models)), shape=(places, models)
    )
    left_counts = confusion_counts(left)  # validated once for every metric
    for name, (metric, params) in request.items():
        if metric.kind == "confusion":
            out[name] = (apply_confusion(metric, left, params, left_counts), weight)
            continue
        if metric.kind == "score":
            left_one = _marker_jackknife(metric, params, paired, draws.n_units)
            values = labelled(
                pooled.labelled(left_one, LEFT_OUT_DIM), metric, metric.params(params), paired.rows.classes
            )
            out[name] = (values, xr.ones_like(xr.DataArray(left_one[:, 0], dims=LEFT_OUT_DIM)))
            continue
        scores = frame_scores(metric, paired.rows, params)[paired.table]
        per_model = (_unit_sums(scores, paired, draws.n_units, places) @ to_model).toarray()
        with np.errstate(invalid="ignore", divide="ignore"):
            mean = (per_model.sum(axis=0) - per_model) / (size.sum() - size)
        values = labelled(pooled.labelled(mean, LEFT_OUT_DIM), metric, metric.params(params), paired.rows.classes)
        out[name] = (values, xr.ones_like(xr.DataArray(mean[:, 0], dims=LEFT_OUT_DIM)))
    return out


class FrameReplicates(NamedTuple):
    """What intervals and comparisons of a frame's models start from (see ``frame_replicates``)."""

    replicates: xr.Dataset
    estimate: xr.Dataset
    jackknife: dict
    cube: xr.DataArray | None


def frame_replicates(
    df: pd.DataFrame, selection: Selection, draws: Resampling, metrics=None, *, jackknife=False, cube=False
) -> FrameReplicates:
    """What intervals and comparisons of a frame's models start from, the strata pooled.

    Every metric on the paired replicates (dims ``(replicate_dim, *by)``) and on the data (dims ``by``);
    with ``jackknife`` the paired jackknife (``paired_jackknife``; else ``{}``); with ``cube`` the data's
    confusion cube (dims ``(*by, true, pred)``; else None).
    """
    replicates = paired_replicates(df, selection, draws, metrics, pool=True)[0]
    estimate, rows = evaluate_frame_rows(df, selection, metrics)
    left_out = {}
    if jackknife:
        paired = paired_samples(df, selection, draws)
        request = selection_request(metrics, selection)
        left_out = paired_jackknife(paired, request, len(draws.strata))
    return FrameReplicates(replicates, estimate, left_out, rows.cube(warned=True) if cube else None)


def _marker_cells(paired: PairedSamples, n_units: int, *, pool: bool) -> tuple[MarkerTable, sparse.csr_matrix]:
    """The marker table of every model's rows (per stratum and model, or per model with ``pool``) and each unit's
    cells in it: ``(units, R * K)``, how many of the unit's rows each (value, class) has."""
    from scipy import sparse  # imported when needed: it takes a third of `import ordframe`

    rows, models = paired.rows, paired.n_models
    place = np.arange(models) if pool else paired.stratum[:, None] * models + np.arange(models)
    row = paired.table.ravel()
    n_places = models if pool else paired.n_strata * models
    assert rows.marker is not None  # the rows of a score metric
    group = np.broadcast_to(place, paired.table.shape).ravel()
    table = marker_table(group, rows.marker[row], rows.true.array()[row], len(rows.classes), n_places)
    unit = np.arange(len(paired.truth)) if paired.cluster is None else paired.cluster
    cells = sparse.csr_matrix(
        (np.ones(row.size), (np.repeat(unit, models), table.cell)), shape=(n_units, table.counts.size)
    )
    return table, cells


def _marker_jackknife(metric: Metric, params, paired: PairedSamples, n_units: int) -> np.ndarray:
    """The score metric of every model's rows, the strata pooled, with one unit left out: ``(units, models)``.

    Each value is the kernel on the table less the unit's cells: the metric is computed once per unit, in
    chunks of units whose tables fit ``CHUNK_CELLS``.
    """
    table, cells = _marker_cells(paired, n_units, pool=True)
    k = table.counts.shape[1]
    kernel = score_kernel(metric, prepare(metric, params, k, paired.rows.classes))
    values = np.empty((n_units, paired.n_models))
    step = max(1, CHUNK_CELLS // (table.counts.size * k))
    for start in range(0, n_units, step):
        left = table.counts - cells[start : start + step].toarray().reshape(-1, *table.counts.shape)
        values[start : start + step] = kernel(left, table.starts)
    return values


def _unit_sums(scores: np.ndarray, paired: PairedSamples, n_units: int, places: int) -> sparse.csr_matrix:
    """Every unit's sum of per-sample scores in every cube, ``(units, places)``; ``scores[s, m]`` per sample and model."""
    from scipy import sparse  # imported when needed: it takes a third of `import ordframe`

    unit = np.arange(len(paired.truth)) if paired.cluster is None else paired.cluster
    place = paired.stratum[:, None] * paired.n_models + np.arange(paired.n_models)
    return sparse.csr_matrix(
        (scores.ravel(), (np.repeat(unit, paired.n_models), place.ravel())), shape=(n_units, places)
    )


def _check_every_model_predicts(models: Groups, model: np.ndarray, n_models: int) -> None:
    """An error naming the models (e.g. unused categories of a categorical column) that have no row at all."""
    absent = np.flatnonzero(np.bincount(model, minlength=n_models) == 0)
    if not len(absent):
        return
    sizes = models.sizes
    names = [
        ", ".join(f"{c.name}={c.coord[i]!r}" for c, i in zip(models.columns, np.unravel_index(a, sizes)))
        for a in absent[:MAX_SHOWN]
    ]
    first = models.columns[0].name
    raise ValueError(
        f"{len(absent)} model(s) have no row at all ({'; '.join(names)}): a paired bootstrap compares models that "
        f"predict the same samples. Unused categories are models too: drop them first, e.g. "
        f"df[{first!r}] = df[{first!r}].cat.remove_unused_categories()"
    )


def _row_table(sample_of, model, n_models, sample_name) -> np.ndarray:
    """``table[s, m]``: the row of model m for sample s; an error unless each is given exactly once."""
    n_samples = int(sample_of.max()) + 1 if len(sample_of) else 0
    cell = sample_of * n_models + model
    given = np.bincount(cell, minlength=n_samples * n_models)
    if (given > 1).any():
        where = "the same {sample_name!r} value" if sample_name is not None else "the same sample"
        raise about(
            ValueError,
            "{count} (sample, model) pair(s) appear more than once: a model predicts "
            + where
            + " twice; give each sample one row per model"
            + (
                ": rows of one sample in several repeats or folds go in {strata} (and {cluster} draws the sample "
                "with all of them)"
                if sample_name is not None
                else " (or name the sample column with {sample})"
            ),
            "sample",
            sample_name,
            count=int((given > 1).sum()),
            sample_name=sample_name,
        )
    if (given == 0).any():
        raise about(
            ValueError,
            "{count} (sample, model) pair(s) have no prediction: a paired bootstrap needs "
            "every model to predict every sample (drop the samples that some model lacks; columns that split the "
            "samples, such as folds, go in {strata})",
            "strata",
            count=int((given == 0).sum()),
        )
    table = np.empty(n_samples * n_models, np.int64)
    table[cell] = np.arange(len(cell))
    return table.reshape(n_samples, n_models)


def _cells(stratum, truth, predictions, k: int, n_strata: int) -> sparse.csr_matrix:
    """Which cube cell each unit (a pattern or a sample) adds to, for every model: a (units, cells) 0/1 matrix."""
    from scipy import sparse  # imported when needed: it takes a third of `import ordframe`

    units, n_models = predictions.shape
    cell = ((stratum[:, None] * n_models + np.arange(n_models)) * k + truth[:, None]) * k + predictions
    return sparse.csr_matrix(
        (np.ones(cell.size), (np.repeat(np.arange(units), n_models), cell.ravel())),
        shape=(units, n_strata * n_models * k * k),
    )


def _shared_out(drawn: np.ndarray, weight: np.ndarray, first: np.ndarray, members: np.ndarray, rng, units: int):
    """Every pattern's draws shared out uniformly among its units: ``picked[b, u]`` draws of unit u in replicate b.

    ``drawn[b, p]`` draws of pattern p in replicate b become as many uniform
    picks among the pattern's ``weight[p]`` units, which with the pattern
    draws is drawing units with replacement.
    """
    from scipy import sparse  # imported when needed: it takes a third of `import ordframe`

    b, n_patterns = drawn.shape
    flat = drawn.ravel()
    pattern = np.repeat(np.tile(np.arange(n_patterns), b), flat)
    replicate = np.repeat(np.arange(b), drawn.sum(axis=1))
    unit = members[first[pattern] + rng.integers(0, weight[pattern])]
    return sparse.csr_matrix((np.ones(len(unit)), (replicate, unit)), shape=(b, units))


def _draws(
    stratum, weight, n_strata: int, n_resamples: int, rng: np.random.Generator, progress: bool | None = None, most=None
):
    """Chunks ``(start, stop, counts)`` of replicates: ``counts[b, u]`` draws of unit u (pattern or sample).

    In each stratum the stratum's size is drawn over its units with
    probabilities weight / size: row resampling, unit by unit. ``most`` caps
    the replicates of a chunk (the draws are the same however they are chunked).
    """
    sizes = np.bincount(stratum, weights=weight, minlength=n_strata).astype(np.int64)
    order = np.argsort(stratum, kind="stable")
    starts = np.searchsorted(stratum[order], np.arange(n_strata))
    width = max(int(np.bincount(stratum, minlength=n_strata).max()), 1)
    slot = np.empty(len(stratum), np.int64)
    slot[order] = np.arange(len(stratum)) - starts[stratum[order]]  # a unit's position within its stratum
    pvals = np.zeros((n_strata, width))
    pvals[stratum, slot] = weight / np.maximum(sizes[stratum], 1)
    pvals[sizes == 0, 0] = 1.0  # an empty stratum draws nothing
    size = max(1, min(CHUNK_CELLS // (n_strata * width), most or n_resamples))
    for start, stop in chunks(
        n_resamples, size, progress=progress, desc="bootstrap"
    ):  # bounded memory: chunks of replicates
        drawn = rng.multinomial(sizes, pvals, size=(stop - start, n_strata))  # (chunk, strata, width)
        yield start, stop, drawn[:, stratum, slot]
