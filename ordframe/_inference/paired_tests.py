"""Exact and asymptotic paired tests of two models' predictions of the same samples (one test set).

For every pair of models (a, b) and every stratum, the samples give

* McNemar's test (McNemar 1947) on correctness: ``b`` samples that a gets right
  and b wrong, ``c`` the reverse. Exact: ``min(1, 2 P(X <= min(b, c)))`` for
  ``X ~ Binomial(b + c, 1/2)``; asymptotic: ``(b - c)^2 / (b + c)``, or with the
  continuity correction ``(|b - c| - 1)^2 / (b + c)`` (Edwards 1948), on
  chi-square(1);
* Stuart's test of marginal homogeneity (Stuart 1955; Maxwell 1970) of the
  K x K table ``n_ij`` (a predicts i, b predicts j): ``d = col - row`` margins,
  ``V_ii = n_i. + n_.i - 2 n_ii``, ``V_ij = -(n_ij + n_ji)``, statistic
  ``d' V^-1 d`` on the first K - 1 classes, chi-square(K - 1);
* Bowker's test of symmetry (Bowker 1948): ``sum_{i<j} (n_ij - n_ji)^2 / (n_ij + n_ji)``,
  chi-square(K (K - 1) / 2);
* the sign test and Wilcoxon's signed-rank test (Wilcoxon 1945) on the per-sample
  differences of absolute class errors ``|a - true| - |b - true|``.

The tables are sums over sample patterns ``(stratum, true, prediction of each
model)``, counted once for every pair and stratum by ``numpy.bincount``; every
test is a numpy kernel over the stacked tables.
"""

from __future__ import annotations

import numpy as np
import xarray as xr

from ordframe._core.checks import as_sequence
from ordframe._core.dims import TEST_DIM, VERSUS_DIM
from ordframe._core.drawing import Resampling
from ordframe._core.messages import show, warn
from ordframe._core.options import check_allocation
from ordframe._inputs.selection import Selection
from ordframe._resampling.paired import CHUNK_CELLS, PairedSamples, paired_samples

MCNEMAR = ("mcnemar_exact", "mcnemar_chi2", "mcnemar_chi2_corrected")
TABLE = ("stuart_maxwell", "bowker")
ERRORS = ("sign", "wilcoxon")
TESTS = (*MCNEMAR, *TABLE, *ERRORS)
"""The tests of ``df.ordinal.paired_tests``, in the order of its ``test`` dim."""


# --------------------------------------------------------------------------- kernels on stacked counts


def exact_binomial(b: np.ndarray, c: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two-sided exact binomial test of ``b`` against ``c`` successes at 1/2: ``(min(b, c), p)``.

    ``p = min(1, 2 P(X <= min(b, c)))`` with ``X ~ Binomial(b + c, 1/2)``; 1 when ``b + c = 0``.
    """
    import scipy.stats  # imported when needed: it takes half a second

    low = np.minimum(b, c)
    return low.astype(np.float64), np.minimum(1.0, 2 * scipy.stats.binom.cdf(low, b + c, 0.5))


def mcnemar_chi2(b: np.ndarray, c: np.ndarray, correction: bool) -> tuple[np.ndarray, np.ndarray]:
    """McNemar's chi-square ``(|b - c| - correction)^2 / (b + c)`` and its chi-square(1) p-value; 0 and 1 when ``b + c = 0``."""
    import scipy.stats

    n = (b + c).astype(np.float64)
    statistic = np.where(n > 0, (np.abs(b - c) - float(correction)) ** 2 / np.where(n > 0, n, 1.0), 0.0)
    return statistic, np.where(n > 0, scipy.stats.chi2.sf(statistic, 1), 1.0)


def bowker(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bowker's symmetry test of K x K tables ``(..., K, K)``: ``(statistic, df, p)``.

    A pair of classes with ``n_ij + n_ji = 0`` adds 0 (as statsmodels); ``df`` counts the
    pairs of the classes that either model predicts. No disagreement gives 0 and p = 1.
    """
    import scipy.stats

    upper, lower = np.triu_indices(table.shape[-1], 1)
    above, below = table[..., upper, lower], table[..., lower, upper]
    both = above + below
    statistic = np.sum(np.where(both > 0, (above - below) ** 2 / np.where(both > 0, both, 1.0), 0.0), axis=-1)
    k = _predicted(table).sum(axis=-1)
    df = (k * (k - 1) / 2).astype(np.float64)
    with np.errstate(invalid="ignore"):
        p = np.where(both.sum(axis=-1) > 0, scipy.stats.chi2.sf(statistic, df), 1.0)
    return statistic, df, p


def stuart_maxwell(table: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Stuart-Maxwell marginal homogeneity test of K x K tables ``(..., K, K)``: ``(statistic, df, p, singular)``.

    Over the K' classes that either model predicts, ``V`` is the Laplacian of
    the graph whose edges weigh ``n_ij + n_ji`` with one class left out, so it is
    invertible exactly when those classes are connected by disagreements; the
    statistic ``d' V^-1 d`` equals ``d' L^+ d`` over all K' classes, computed here as
    ``d' (L + 1 1')^-1 d``. ``singular`` marks the tables where it is not (NaN);
    no disagreement at all gives 0 and p = 1. ``df = K' - 1``.
    """
    import scipy.stats

    k = table.shape[-1]
    eye = np.eye(k, dtype=bool)
    pairs = np.where(eye, 0.0, table + np.swapaxes(table, -1, -2))
    laplacian = np.where(eye, pairs.sum(axis=-1)[..., None], -pairs)
    seen = _predicted(table)
    agree = pairs.sum(axis=(-2, -1)) == 0
    singular = ~agree & ~_connected(pairs > 0, seen)
    solvable = ~agree & ~singular
    grounded = laplacian + (seen[..., :, None] & seen[..., None, :]) + (eye & ~seen[..., None, :])
    grounded = np.where(solvable[..., None, None], grounded, np.eye(k))
    d = table.sum(axis=-2) - table.sum(axis=-1)
    quadratic = np.sum(d * np.linalg.solve(grounded, d[..., None])[..., 0], axis=-1)
    statistic = np.where(solvable, quadratic, np.where(agree, 0.0, np.nan))
    df = (seen.sum(axis=-1) - 1).astype(np.float64)
    with np.errstate(invalid="ignore"):
        p = np.where(agree, 1.0, scipy.stats.chi2.sf(statistic, df))
    return statistic, df, p, singular


def signed_rank(counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wilcoxon's signed-rank test from counts ``(..., 2 K - 1)`` of the differences ``-(K - 1) .. K - 1``.

    Zero differences are dropped (scipy's ``zero_method="wilcox"``); tied absolute
    differences share their average rank. Returns ``(min(R+, R-), p)``, p from the
    normal approximation with the tie correction of the variance, without
    continuity correction (scipy's ``method="asymptotic"``); 0 and 1 without a
    nonzero difference.
    """
    import scipy.stats

    k = (counts.shape[-1] + 1) // 2
    negative, positive = counts[..., : k - 1][..., ::-1], counts[..., k:]  # |difference| = 1 .. K - 1
    tied = (negative + positive).astype(np.float64)
    n = tied.sum(axis=-1)
    rank = np.cumsum(tied, axis=-1) - tied + (tied + 1) / 2
    plus, minus = np.sum(rank * positive, axis=-1), np.sum(rank * negative, axis=-1)
    variance = (n * (n + 1) * (2 * n + 1) - np.sum(tied**3 - tied, axis=-1) / 2) / 24
    with np.errstate(invalid="ignore", divide="ignore"):
        z = (plus - n * (n + 1) / 4) / np.sqrt(variance)
    p = np.where(n > 0, 2 * scipy.stats.norm.sf(np.abs(z)), 1.0)
    return np.minimum(plus, minus), p


def _predicted(table: np.ndarray) -> np.ndarray:
    """The classes that either model predicts: ``(..., K)`` bool."""
    return (table.sum(axis=-1) + table.sum(axis=-2)) > 0


def _connected(edges: np.ndarray, nodes: np.ndarray) -> np.ndarray:
    """Whether the ``nodes`` ``(..., K)`` are connected by ``edges`` ``(..., K, K)`` (repeated squaring of reach)."""
    k = edges.shape[-1]
    reach = (edges | np.eye(k, dtype=bool)).astype(np.float64)
    for _ in range(max(1, int(np.ceil(np.log2(k))))):  # paths of length up to 2^steps >= K - 1
        reach = ((reach @ reach) > 0).astype(np.float64)
    first = np.argmax(nodes, axis=-1)
    from_first = np.take_along_axis(reach, first[..., None, None], axis=-2)[..., 0, :] > 0
    return np.all(from_first | ~nodes, axis=-1)


# --------------------------------------------------------------------------- the frame front end


def frame_paired_tests(df, selection: Selection, draws: Resampling, tests=None) -> xr.Dataset:
    """Every test of ``tests`` for every pair of models (``selection.by``) and stratum (see ``df.ordinal.paired_tests``)."""
    chosen = _tests(tests)
    models = selection.by
    if len(models) != 1:
        raise ValueError(
            f"model= must name one column of models to compare pairwise, got {show(models)}; combine several "
            "columns into one first, e.g. df['model'] = df['a'].astype(str) + '/' + df['b'].astype(str)"
        )
    clash = [c for c in [*models, *draws.strata] if str(c) in (VERSUS_DIM, TEST_DIM)]
    if clash:
        raise ValueError(
            f"model= or strata= column {clash[0]!r} has the name of a result dim ({VERSUS_DIM!r}, {TEST_DIM!r}); "
            f"rename it, e.g. df.rename(columns={{{clash[0]!r}: '{clash[0]}_'}})"
        )
    paired = paired_samples(df, selection, draws, resampled=False)
    patterns, weight = np.unique(
        np.column_stack([paired.stratum, paired.truth, paired.rows.predicted().array()[paired.table]]),
        axis=0,
        return_counts=True,
    )
    variables = pattern_tests(patterns, weight, paired.n_strata, len(paired.rows.classes), chosen)
    samples = variables.pop("n")
    out = xr.Dataset({name: _labelled(paired, values, chosen) for name, values in variables.items()})
    model_dim = paired.groups.names[-1]
    out["n"] = _labelled(paired, samples, chosen).isel({model_dim: 0, VERSUS_DIM: 0}, drop=True)
    return out.assign_attrs(tests=", ".join(chosen), zero_method="wilcox", pairs=f"{model_dim} against {VERSUS_DIM}")


def pattern_tests(patterns: np.ndarray, weight: np.ndarray, n_strata: int, k: int, chosen) -> dict[str, np.ndarray]:
    """The tests of every pair of models and stratum from sample patterns and their counts.

    ``patterns[p]`` is ``(stratum, true class, prediction of model 1, ...)`` (class
    codes), ``weight[p]`` how many samples have it. Returns ``statistic``,
    ``p_value`` and ``df`` ``(S, M, M, len(chosen))``, the counts the chosen tests
    use ``(S, M, M)`` and ``n`` ``(S, M, M)``: axis 1 is model a, axis 2 model b.
    """
    s, m = n_strata, patterns.shape[1] - 2
    slot = {name: i for i, name in enumerate(chosen)}

    def counted(cell_of, size: int) -> np.ndarray:
        """The pattern weights summed by the cell ``cell_of(truth, predicted)`` of every (pattern, a, b)."""
        sums = np.zeros(s * m * m * size)
        step = max(1, CHUNK_CELLS // (m * m))
        for start in range(0, len(patterns), step):  # bounded memory: chunks of patterns
            part = patterns[start : start + step]
            place = (part[:, 0, None, None] * m + np.arange(m)[:, None]) * m + np.arange(m)  # (pattern, a, b)
            cell, mask = cell_of(part[:, 1], part[:, 2:])
            w = np.broadcast_to(weight[start : start + len(part), None, None], place.shape)
            sums += np.bincount(
                (place * size + cell).ravel(), weights=(w if mask is None else w * mask).ravel(), minlength=sums.size
            )
        return np.rint(sums).astype(np.int64).reshape(s, m, m, size)

    samples = counted(lambda truth, pred: (0, None), 1)[..., 0]
    statistic = np.full((s, m, m, len(chosen)), np.nan)
    p_value, df = statistic.copy(), statistic.copy()
    out = {}
    if any(t in slot for t in MCNEMAR):
        out["only_correct"] = only = counted(_only_correct, 1)[..., 0]
        for name, (stat, p) in {
            "mcnemar_exact": exact_binomial(only, np.swapaxes(only, 1, 2)),
            "mcnemar_chi2": mcnemar_chi2(only, np.swapaxes(only, 1, 2), False),
            "mcnemar_chi2_corrected": mcnemar_chi2(only, np.swapaxes(only, 1, 2), True),
        }.items():
            if name in slot:
                statistic[..., slot[name]], p_value[..., slot[name]] = stat, p
                df[..., slot[name]] = np.nan if name == "mcnemar_exact" else 1.0
    if any(t in slot for t in TABLE):
        check_allocation(s * m * m * k * k * 8, f"the {k} x {k} tables of {m * m} pairs of models in {s} strata")
        joint = counted(lambda truth, pred: (pred[:, :, None] * k + pred[:, None, :], None), k * k)
        joint = joint.reshape(s, m, m, k, k).astype(np.float64)
        out["disagreements"] = samples - np.trace(joint, axis1=-2, axis2=-1).astype(np.int64)
        if "stuart_maxwell" in slot:
            stat, dof, p, singular = stuart_maxwell(joint)
            statistic[..., slot["stuart_maxwell"]], df[..., slot["stuart_maxwell"]] = stat, dof
            p_value[..., slot["stuart_maxwell"]] = p
            _warn_singular(singular)
        if "bowker" in slot:
            stat, dof, p = bowker(joint)
            statistic[..., slot["bowker"]], df[..., slot["bowker"]], p_value[..., slot["bowker"]] = stat, dof, p
    if any(t in slot for t in ERRORS):
        differences = counted(_error_difference(k), 2 * k - 1)
        out["smaller_error"] = differences[..., : k - 1].sum(axis=-1)
        if "sign" in slot:
            stat, p = exact_binomial(out["smaller_error"], differences[..., k:].sum(axis=-1))
            statistic[..., slot["sign"]], p_value[..., slot["sign"]] = stat, p
        if "wilcoxon" in slot:
            statistic[..., slot["wilcoxon"]], p_value[..., slot["wilcoxon"]] = signed_rank(differences)
    empty = samples == 0
    if empty.any():  # a combination of strata values without samples: nothing to test
        statistic[empty], p_value[empty], df[empty] = np.nan, np.nan, np.nan
        warn(
            f"{int(empty[:, 0, 0].sum())} of {s} strata have no sample (a combination of strata= values that no "
            "row has): their statistic, p_value and df are NaN",
            RuntimeWarning,
        )
    return {"statistic": statistic, "p_value": p_value, "df": df, **out, "n": samples}


def _only_correct(truth: np.ndarray, pred: np.ndarray):
    """Cell 0 where model a is right and model b wrong."""
    right = pred == truth[:, None]
    return 0, right[:, :, None] & ~right[:, None, :]


def _error_difference(k: int):
    """The cell of ``|a - true| - |b - true|``, shifted by K - 1 to 0 .. 2 K - 2."""

    def cell(truth: np.ndarray, pred: np.ndarray):
        error = np.abs(pred - truth[:, None])
        return error[:, :, None] - error[:, None, :] + k - 1, None

    return cell


def _tests(tests) -> list[str]:
    """The tests asked for, in the order of ``TESTS``: all of them for None."""
    if tests is None:
        return list(TESTS)
    names = as_sequence([tests] if isinstance(tests, str) else tests, "tests")
    unknown = [t for t in names if t not in TESTS]
    if unknown or not names:
        raise ValueError(f"tests= takes names among {', '.join(TESTS)} (None: all), got {show(unknown or names)}")
    return [t for t in TESTS if t in names]


def _labelled(paired: PairedSamples, values: np.ndarray, chosen: list[str]) -> xr.DataArray:
    """``values`` ``(S, M, M, [tests])`` as a DataArray ``([test], model, versus, *strata)``."""
    m = paired.n_models
    rest = (TEST_DIM,) if values.ndim == 4 else ()
    stacked = np.moveaxis(values, 2, 0).reshape(m, paired.n_strata * m, *values.shape[3:])
    out = paired.labelled(stacked, VERSUS_DIM, rest, {TEST_DIM: chosen} if rest else None)
    model = paired.groups.names[-1]
    return out.assign_coords({VERSUS_DIM: out[model].values}).transpose(*rest, model, VERSUS_DIM, ...)


def _warn_singular(singular: np.ndarray) -> None:
    """One RuntimeWarning with the number of (pair, stratum) tables whose Stuart-Maxwell statistic is NaN, and why."""
    upper = np.triu(np.ones(singular.shape[1:], dtype=bool), 1)
    count = int((singular & upper).sum())
    if count:
        warn(
            f"stuart_maxwell is NaN for {count} pair(s) of models (and strata): the covariance of their margins' "
            "differences is singular, because the classes they predict split into groups with no disagreement "
            "between them (e.g. a class that both models predict only for the same samples). Test those classes "
            "apart, or use bowker",
            RuntimeWarning,
        )
