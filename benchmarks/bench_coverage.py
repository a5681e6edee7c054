"""Coverage and width of ordframe's 95% bootstrap intervals for every registered confusion and score metric and for
Krippendorff's alpha, and the default each picks.

    python benchmarks/bench_coverage.py                        # the full table (about an hour, 2 cores)
    python benchmarks/bench_coverage.py --output benchmarks/results_coverage.md --jobs 2
    python benchmarks/bench_coverage.py --family score --output benchmarks/results_coverage.md --jobs 2
    python benchmarks/bench_coverage.py --family agreement --output benchmarks/results_coverage.md --jobs 2
    python benchmarks/bench_coverage.py --smoke                # tiny sizes, the checks only (seconds)

Score metrics (``--family score``, ``score_cell``) and Krippendorff's alpha over items (``--family agreement``,
``alpha_cell``) have populations of their own, with the truth exact, and the same tallies, oracle and rule; each
family's section of the report file is replaced by its run, the others kept. What follows is the confusion family.

Populations are discretised bivariate normals (correlation 0.9): a latent z and a prediction x of it, each
cut into K classes at the same thresholds. With the same thresholds the joint distribution is symmetric, so
an OC/UOC path and its mirror image tie for the optimum ("tied"; the review of November 2026 found the
percentile interval of OC under-covering there at every N). Thresholds at equal-probability quantiles give
balanced classes ("bal"), at the quantiles of a skewed class distribution imbalanced ones ("imb"); "shift"
moves the prediction's thresholds by 0.25 SD, which breaks the tie (a control).

For each population and N, R test sets are drawn (multinomial over the cells), stacked along ``sim``, and
bootstrapped at once (``bootstrap_cube`` of the whole stack, B replicates each, in chunks of test sets);
``ordframe.ci`` gives the percentile, basic and BCa intervals (``cube=`` the stack), and for the non-smooth
OC, UOC, MS and MMAE (a minimum or maximum over paths or classes) the m-out-of-n interval from
``bootstrap_cube(stack, B, size=ceil(N ** 0.7))``, the calibrated percentile interval (a double bootstrap
with 100 inner replicates per replicate, drawn once for the four metrics) and, for the worst of per-class values
(MS, MMAE: ``Metric.per_class``), the intersection interval; for the shares of samples (accuracy,
mer, within_k and the example plugin's underprediction) also the Jeffreys interval. The truth is the metric on the
population's expected counts N p (equal to its value on p for every scale-free metric). Coverage is the share
of test sets whose interval contains the truth (test sets whose estimate is NaN are left out), with its
Monte-Carlo standard error sqrt(c (1 - c) / R).

Width: each interval's width (high - low) over the oracle width of its cell, the 2.5-97.5% range of the
estimator's own distribution over the R simulated test sets of that cell (the width an interval would have if it
knew the sampling distribution), averaged over the test sets with an estimate and finite bounds. A cell whose
oracle width is 0 (every test set gives the same value) has no width ratio.

The rule that picks a metric's default (``choose``) among the methods usable with ordinary replicates: those
whose coverage is at least 0.95 - z s in every cell (s = sqrt(0.95 * 0.05 / R), z = Phi^-1(1 - 0.05 / cells):
a method that covers exactly 0.95 everywhere passes in all cells with probability at least 0.95) qualify; of
those, the narrowest by the mean of width/oracle over the cells, or a cheaper one (``COST``) whose mean is as
narrow within Monte-Carlo error: no wider than the narrowest's by more than twice the two means' standard errors
combined, sqrt(s_a^2 + s_b^2), each from the spread of the test sets' widths (the oracle width divides both
methods' widths alike, so its own error leaves the comparison out). If no method qualifies, the one whose worst
cell covers most.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
import tempfile
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

import numpy as np
import pandas as pd
import xarray as xr
from scipy.stats import multivariate_normal, norm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine_info import emit, machine  # noqa: E402

import ordframe  # noqa: E402
from ordframe._inference.agreement import INTERVAL as ALPHA_INTERVAL  # noqa: E402
from ordframe._inference.agreement import alpha_values  # noqa: E402
from ordframe._inference.intervals import reflected  # noqa: E402
from ordframe._registry import manager as registry  # noqa: E402
from ordframe._registry.interval_methods import INTERVAL_METHODS, methods  # noqa: E402

LEVEL = 0.95
# Measured for every metric: the methods of replicates alone that need no kind of metric, no replicates of their own
# and no draws of their own (percentile, basic, BCa).
METHODS = tuple(
    name
    for name in methods("replicates")
    if not (INTERVAL_METHODS[name].metric or INTERVAL_METHODS[name].drawn_by or "draws" in INTERVAL_METHODS[name].needs)
)
# Non-smooth metrics (a minimum over paths, or over classes): also m-out-of-n, and more test sets when tied.
PATH_METRICS = ("oc", "uoc", "ms", "mmae")
# Shares of samples (a proportion, bounded by 0 and 1): also the Jeffreys interval, which reaches past the bound.
SHARE_METRICS = ("accuracy", "mer", "within_k", "underprediction")
M_EXPONENT = 0.7
IMBALANCED = {3: (0.1, 0.6, 0.3), 5: (0.05, 0.15, 0.35, 0.30, 0.15), 8: (0.03, 0.07, 0.15, 0.25, 0.2, 0.15, 0.1, 0.05)}
CHUNK = 200  # test sets bootstrapped at once (B x CHUNK x K^2 counts)
# The methods measured beside percentile, basic and BCa for the non-smooth metrics: all others but Jeffreys'.
EXTRA = tuple(
    name for name in methods("replicates") if name not in METHODS and INTERVAL_METHODS[name].metric != "share"
)
# The methods a default can be (m-out-of-n needs replicates of its own), cheapest first: the percentile interval
# needs the replicates only, basic and Jeffreys the estimate too, BCa the jackknife (K^2 evaluations of the metric),
# the intersection interval per-class replicates (about one more bootstrap), the calibrated one a double bootstrap.
COST = ("percentile", "basic", "jeffreys", "bca", "intersection", "calibrated")
# Score metrics: the methods ``df.ordinal.ci`` offers them (those that need no cube and no kind of metric).
METHODS_OF_SCORES = tuple(
    name
    for name in methods("frame")
    if "cube" not in INTERVAL_METHODS[name].needs and INTERVAL_METHODS[name].metric is None
)
SEPARATION = {"weak": 0.5, "strong": 0.9}  # the correlation of the marker and the latent class variable
MARKER_LEVELS = {"fine": 200, "coarse": 4}  # the marker's distinct values: nearly continuous, or heavily tied
# Krippendorff's alpha: raters per item and the share of their ratings missing; the SD of a rater's error, in classes
RATERS = {"2/0": (2, 0.0), "5/0.3": (5, 0.3)}
RATER_SPREAD = {"close": 0.5, "loose": 1.0}
ALPHA = "krippendorff_alpha"
ORACLE_RESAMPLES = 200  # bootstrap of the test sets' estimates for the Monte-Carlo error of the oracle width


class Tally(NamedTuple):
    """One method's intervals of one metric in one cell."""

    hit: int  # intervals that contain the truth
    total: int  # test sets with an estimate
    below: int  # intervals entirely below the truth
    width: np.ndarray  # per test set: width / oracle width (NaN without an estimate, a finite bound or an oracle)
    oracle_se: float  # Monte-Carlo standard error of the oracle width, relative to it


def cuts(probs) -> np.ndarray:
    """The thresholds of a standard normal that cut it into classes of these probabilities, ends at -8 and 8."""
    return np.r_[-8.0, np.clip(norm.ppf(np.cumsum(probs)[:-1]), -8, 8), 8.0]


def class_probs(k: int, kind: str) -> np.ndarray:
    """Balanced classes, or the skewed ones of ``IMBALANCED`` (``kind`` "imb")."""
    return np.asarray(IMBALANCED[k]) if kind == "imb" else np.full(k, 1 / k)


def joint(rows: np.ndarray, cols: np.ndarray, rho: float) -> np.ndarray:
    """The probabilities ``(rows - 1, cols - 1)`` of a standard bivariate normal of correlation ``rho`` cut at these
    thresholds."""
    mvn = multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]])
    grid = np.array([[mvn.cdf([a, b]) for b in cols] for a in rows])
    p = grid[1:, 1:] - grid[:-1, 1:] - grid[1:, :-1] + grid[:-1, :-1]
    p = np.clip(p, 0, None)
    return p / p.sum()


def population(k: int, kind: str, rho: float = 0.9) -> np.ndarray:
    """The joint distribution ``(K, K)`` of true and predicted class (rows = true) of a population."""
    rows = cuts(class_probs(k, kind))
    cols = rows + (0.25 if kind == "shift" else 0.0)
    cols[0], cols[-1] = -8.0, 8.0
    return joint(rows, cols, rho)


def tally(bounds: xr.DataArray, truth: float, estimate: xr.DataArray) -> np.ndarray:
    """Per test set: (has an estimate, covers, lies entirely below the truth, width) as rows of floats."""
    valid = estimate.notnull().values
    low, high = bounds.sel(bound="low").values, bounds.sel(bound="high").values
    width = np.where(valid & np.isfinite(low) & np.isfinite(high), high - low, np.nan)
    return np.array([valid, valid & (low <= truth) & (truth <= high), valid & (high < truth), width], dtype=float)


def oracle(estimates: np.ndarray, rng: np.random.Generator) -> tuple[float, float]:
    """The 2.5-97.5% range of the estimates (the oracle width) and its Monte-Carlo standard error relative to it
    (bootstrap of the estimates); NaN where the range is 0."""
    values = estimates[np.isfinite(estimates)]
    width = float(np.diff(np.quantile(values, [0.025, 0.975]))[0])
    if width <= 0:
        return math.nan, math.nan
    redrawn = rng.choice(values, size=(ORACLE_RESAMPLES, values.size))
    return width, float(np.diff(np.quantile(redrawn, [0.025, 0.975], axis=1), axis=0).std()) / width


def cell(kind, k, n, *, names, r_all, r_path, b, rng, extra=EXTRA) -> dict:
    """The ``Tally`` of each (metric, method) of one population and N."""
    p = population(k, kind)
    truth_cube = xr.DataArray(n * p, dims=("true", "pred"))
    truths = {m: float(truth_cube.ordinal.evaluate(metrics=[m])[m]) for m in names}
    rows: dict = {}
    estimated: dict = {}
    m_size = math.ceil(n**M_EXPONENT)
    done = 0
    while done < max(r_all, r_path):
        size = min(CHUNK, (r_all if done < r_all else r_path) - done)
        these = names if done < r_all else [m for m in names if m in PATH_METRICS]
        cubes = xr.DataArray(rng.multinomial(n, p.ravel(), size=size).reshape(size, k, k), dims=("sim", "true", "pred"))
        estimates = cubes.ordinal.evaluate(metrics=these)
        replicates = ordframe.bootstrap_cube(cubes, b, seed=rng).ordinal.evaluate(metrics=these)
        jobs = [(m, method, replicates[m]) for m in these for method in METHODS]
        jobs += [(m, "jeffreys", replicates[m]) for m in these if m in SHARE_METRICS]
        paths = [m for m in these if m in PATH_METRICS]
        if paths and "m_out_of_n" in extra:
            small = ordframe.bootstrap_cube(cubes, b, seed=rng, size=m_size).ordinal.evaluate(metrics=paths)
            jobs += [(m, "m_out_of_n", small[m]) for m in paths]
        intervals = {
            (m, method): ordframe.ci(values, method=method, cube=cubes, level=LEVEL, min_valid=0)
            for m, method, values in jobs
        }
        if paths and "calibrated" in extra:  # one double bootstrap for the four metrics
            both = ordframe.ci(replicates[paths], method="calibrated", cube=cubes, level=LEVEL, min_valid=0, seed=rng)
            intervals.update({(m, "calibrated"): both[m] for m in paths})
        for m in paths:
            if "intersection" in methods_of(m, extra):
                intervals[(m, "intersection")] = ordframe.ci(
                    replicates[m], method="intersection", cube=cubes, level=LEVEL, min_valid=0, seed=rng
                )
        for m in these:
            estimated.setdefault(m, []).append(estimates[m].values)
        for (m, method), bounds in intervals.items():
            rows.setdefault((m, method), []).append(tally(bounds, truths[m], estimates[m]))
        done += size
    return counted(rows, estimated, rng)


def counted(rows: dict, estimated: dict, rng: np.random.Generator) -> dict:
    """The ``Tally`` of each (metric, method) from its ``tally`` rows (a list per key) and the metrics' estimates
    (a list of arrays per metric, for the oracle width)."""
    oracles = {m: oracle(np.concatenate(values), rng) for m, values in estimated.items()}
    counts = {}
    for (m, method), parts in rows.items():
        valid, hit, below, width = np.concatenate(parts, axis=1)
        width_of, se_of = oracles[m]
        counts[(m, method)] = Tally(int(hit.sum()), int(valid.sum()), int(below.sum()), width / width_of, se_of)
    return counts


def score_cell(kind, k, n, *, names, r, b, rng) -> dict:
    """The ``Tally`` of each (score metric, method) of one population and N: ``kind`` is "classes separation ties"
    (``class_probs``, ``SEPARATION``, ``MARKER_LEVELS``)."""
    classes, separation, ties = kind.split()
    levels = MARKER_LEVELS[ties]
    p = joint(cuts(class_probs(k, classes)), cuts(np.full(levels, 1 / levels)), SEPARATION[separation])
    starts = np.array([0, levels])  # the population as one group of (marker level, class) probabilities
    truths = {m: float(registry.get_metric(m).func(p.T, starts)[0]) for m in names}
    rows: dict = {}
    estimated: dict = {}
    for _ in range(r):
        drawn = np.repeat(np.arange(k * levels), rng.multinomial(n, p.ravel()))
        df = pd.DataFrame({"true": drawn // levels, "marker": drawn % levels})
        asked = {"metrics": list(names), "labels": list(range(k))}
        estimates = df.ordinal.evaluate("true", marker="marker", **asked)
        seed = int(rng.integers(2**32))  # the same replicates for every method
        for method in METHODS_OF_SCORES:
            bounds = df.ordinal.ci(
                "true", marker="marker", n_resamples=b, seed=seed, method=method, min_valid=0, **asked
            )
            for m in names:
                rows.setdefault((m, method), []).append(tally(bounds[m], truths[m], estimates[m]).reshape(4, 1))
        for m in names:
            estimated.setdefault(m, []).append(np.atleast_1d(estimates[m].values))
    return counted(rows, estimated, rng)


def rating_probs(k: int, spread: float) -> np.ndarray:
    """``q[t, c]``: the probability that a rater rates an item of true class ``t`` as ``c``, a normal error of SD
    ``spread`` (in classes) about ``t`` rounded to the nearest class, the end classes open."""
    edges = np.r_[-np.inf, np.arange(k - 1) + 0.5, np.inf]
    return np.diff(norm.cdf((edges[None, :] - np.arange(k)[:, None]) / spread), axis=1)


def alpha_cell(kind, k, n, *, r, b, rng) -> dict:
    """The ``Tally`` of Krippendorff's alpha's percentile and basic intervals over ``n`` items of one population:
    ``kind`` is "raters/missing spread" (``RATERS``, ``RATER_SPREAD``)."""
    design, spread = kind.split()
    raters, missing = RATERS[design]
    q = rating_probs(k, RATER_SPREAD[spread])
    probs = class_probs(k, "bal")
    # the population's coincidences, sum_t P(t) q_t q_t^T (to scale: at 1e12 pairable ratings (n - 1) / n is 1)
    truth = float(alpha_values(1e12 * np.einsum("t,tc,tk->ck", probs, q, q), "ordinal"))
    rows: dict = {}
    estimated: list = []
    for _ in range(r):
        true = rng.choice(k, size=n, p=probs)
        rating = (rng.random((n, raters, 1)) > np.cumsum(q[true], axis=1)[:, None, :-1]).sum(axis=2)
        kept = rng.random((n, raters)) >= missing
        item, rater = np.nonzero(kept)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ds = ordframe.krippendorff_alpha(item, rater, rating[kept], labels=list(range(k)), n_resamples=b, seed=rng)
        estimate, (low, high) = ds["alpha"], (ds["interval"].sel(bound=b, drop=True) for b in ("low", "high"))
        basic = xr.concat(reflected(low, high, estimate, 1), dim=pd.Index(["low", "high"], name="bound"))
        for method, bounds in (("percentile", ds["interval"]), ("basic", basic)):
            rows.setdefault((ALPHA, method), []).append(tally(bounds, truth, estimate).reshape(4, 1))
        estimated.append(np.atleast_1d(estimate.values))
    return counted(rows, {ALPHA: estimated}, rng)


def fmt(c: Tally) -> str:
    """Coverage."""
    return f"{c.hit / c.total:.3f}" if c.total else "n/a"


def fmt_width(c: Tally) -> str:
    """Mean width / oracle width."""
    return f"{np.nanmean(c.width):.2f}" if np.isfinite(c.width).any() else "n/a"


def run(ks, ns, kinds, r_all, r_path, b, seed=0, log=True, jobs=1, names=None, extra=EXTRA) -> dict:
    """Every cell (population and N), each from its own random stream, in ``jobs`` processes."""
    # shift: one N; the largest K first, so that the processes finish together
    cells = [
        (kind, k, n) for k in sorted(ks, reverse=True) for kind in kinds for n in ns if kind != "shift" or n == 1000
    ]
    names = tuple(names or registry.metric_names("confusion"))
    settings = [
        {"names": names, "r_all": r_all, "r_path": r_path if kind != "shift" else r_all, "b": b, "extra": extra}
        for kind, _, _ in cells
    ]
    return run_cells(cell, cells, settings, seed, log, jobs)


def run_cells(measure, cells, settings, seed, log, jobs) -> dict:
    """``measure(kind, k, n, rng=..., **setting)`` of every cell ``(kind, k, n)``, each from its own random stream,
    in ``jobs`` processes."""
    streams = np.random.SeedSequence(seed).spawn(len(cells))
    tasks = [(measure, key, setting, stream, log) for key, setting, stream in zip(cells, settings, streams)]
    if jobs == 1:
        return dict(map(one_cell, tasks))
    with ProcessPoolExecutor(jobs) as pool:
        return dict(pool.map(one_cell, tasks))


def one_cell(task) -> tuple:
    measure, (kind, k, n), setting, stream, log = task
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN replicates (d, ms ... on rare classes), degenerate BCa
        counts = measure(kind, k, n, rng=np.random.default_rng(stream), **setting)
    if log:
        print(f"{kind} K={k} N={n}: {time.perf_counter() - start:.1f} s", file=sys.stderr, flush=True)
    return (kind, k, n), counts


def choose(results: dict, metric: str) -> tuple[str, str, dict]:
    """The method the rule picks (module docstring), why, and per method (worst cell, whether it qualifies, mean
    width / oracle over the cells, its Monte-Carlo s.e., and that s.e. without the oracle's error)."""
    cells = [c for c in results.values() if any(key[0] == metric for key in c)]
    defaults = tuple(m for m in EXTRA if INTERVAL_METHODS[m].drawn_by is None)  # not those of replicates of their own
    methods = [m for m in COST if m in methods_of(metric, defaults) and (metric, m) in cells[0]]
    z = float(norm.ppf(1 - 0.05 / len(cells)))
    scores = {}
    for method in methods:
        tallies = [c[(metric, method)] for c in cells if c[(metric, method)].total]
        worst = min(t.hit / t.total for t in tallies)
        qualifies = all(t.hit / t.total >= LEVEL - z * math.sqrt(LEVEL * (1 - LEVEL) / t.total) for t in tallies)
        scores[method] = (worst, qualifies, *mean_width(tallies))
    qualified = [m for m in methods if scores[m][1]]
    if not qualified:
        best = max(methods, key=lambda m: scores[m][0])
        return best, "none qualifies: the best worst cell", scores
    narrowest = min(qualified, key=lambda m: scores[m][2])
    _, _, width, _, spread_se = scores[narrowest]
    cheapest = next(m for m in qualified if scores[m][2] - width <= 2 * math.hypot(scores[m][4], spread_se))
    return cheapest, ("narrowest" if cheapest == narrowest else f"as narrow as {narrowest}, cheaper"), scores


def mean_width(tallies: list[Tally]) -> tuple[float, float, float]:
    """Mean over the cells of the mean width / oracle, its Monte-Carlo s.e. (the test sets' spread and the oracle's
    own error, cells independent), and the s.e. from the test sets' spread alone (what comparing two methods of the
    same cells leaves: the oracle divides both); cells without an oracle width are left out."""
    means, spread, oracle_error = [], [], []
    for t in tallies:
        w = t.width[np.isfinite(t.width)]
        if w.size > 1:
            means.append(w.mean())
            spread.append(w.var(ddof=1) / w.size)
            oracle_error.append((w.mean() * t.oracle_se) ** 2)
    n = len(means)
    return float(np.mean(means)), math.sqrt(sum(spread) + sum(oracle_error)) / n, math.sqrt(sum(spread)) / n


def methods_of(metric: str, path_extra=EXTRA) -> tuple[str, ...]:
    """The methods measured for a metric: percentile, basic and BCa, and those of its kind (of ``path_extra`` for
    the non-smooth metrics; the intersection interval only for the worst of per-class values)."""
    if metric in PATH_METRICS:
        declared = registry.get_metric(metric)  # a method for one kind of metric (its field set) only for that kind
        fields = {m: INTERVAL_METHODS[m].metric for m in path_extra}
        extra = tuple(m for m in path_extra if fields[m] is None or getattr(declared, fields[m]))
    else:
        extra = ("jeffreys",) if metric in SHARE_METRICS else ()
    return (*METHODS, *extra)


def table(results: dict, metrics, methods=None, value=fmt) -> list[str]:
    """Markdown rows: one per metric and population, one column per N, the methods' ``value`` (coverage, or
    ``fmt_width``) joined by / (``methods``, or each metric's own: ``methods_of``)."""
    kinds = list(dict.fromkeys(key[0] for key in results))
    ks = sorted({key[1] for key in results})
    ns = sorted({key[2] for key in results})
    out = []
    for m in metrics:
        for kind in kinds:
            for k in ks:
                cells = [results.get((kind, k, n)) for n in ns]
                if not any(cells):
                    continue
                measured = methods or [x for x in methods_of(m) if any((m, x) in c for c in cells if c)]
                row = [
                    " / ".join(value(c[(m, meth)]) if (m, meth) in c else "-" for meth in measured) if c else ""
                    for c in cells
                ]
                out.append(f"| {m} | {kind} K={k} | " + " | ".join(row) + " |")
    return out


RULE = (
    "The rule that picks a metric's default: a method qualifies if its coverage is at least 0.95 - z s in every "
    "cell, s = sqrt(0.95 x 0.05 / R) its Monte-Carlo s.e. at 0.95 and z = {z:.2f} (one-sided, 0.05 shared by the "
    "{cells} cells: a method that covers exactly 0.95 everywhere qualifies with probability at least 0.95; at R = "
    "{r} the bar is {bar:.3f}). Of those that qualify, the narrowest by the mean of width / oracle over the cells; "
    "a cheaper method is preferred where the two means are within Monte-Carlo error of each other (the difference "
    "at most twice their standard errors combined, sqrt(s_a^2 + s_b^2), each from the spread of the test sets' "
    "widths: the oracle width divides both alike), cheapest first: percentile (the "
    "replicates alone), basic and Jeffreys (the estimate too), BCa (a jackknife of K^2 evaluations), intersection "
    "(per-class replicates), calibrated (a double bootstrap). If none qualifies, the method whose worst cell covers "
    "most, said so."
)


def coverage_and_width(results: dict, metrics, columns: list[str], methods=None) -> list[str]:
    """The coverage table and the width table of ``metrics`` (``table``), under the header rows ``columns``."""
    return [
        "Coverage:",
        "",
        *columns,
        *table(results, metrics, methods),
        "",
        "Width / oracle width:",
        "",
        *columns,
        *table(results, metrics, methods, fmt_width),
    ]


def header(title: str) -> list[str]:
    """A report's title and the machine it ran on."""
    return [title, "", "| machine | |", "|---|---|", *(f"| {k} | {v} |" for k, v in machine())]


def picks(results: dict, names, r: int, registered: dict) -> list[str]:
    """The section of the defaults: the rule (``RULE``), and per metric each method's worst cell and mean width, the
    method the rule picks and the metric's ``registered`` default at the run."""
    z = float(norm.ppf(1 - 0.05 / len(results)))
    out = [
        "## The default each metric's coverage and width pick",
        "",
        RULE.format(z=z, cells=len(results), r=r, bar=LEVEL - z * math.sqrt(LEVEL * (1 - LEVEL) / r)),
        "",
        "Per metric and method: the worst cell's coverage (*italic*: the method does not qualify), and the mean "
        "width / oracle over the cells with its Monte-Carlo s.e.",
        "",
        "| metric | percentile | basic | Jeffreys | BCa | intersection | calibrated | the rule picks | why "
        "| registered default at the run |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for m in names:
        best, why, scores = choose(results, m)
        parts = []
        for meth in COST:
            if meth in scores:
                worst, qualifies, width, width_se, _ = scores[meth]
                parts.append((f"{worst:.3f}" if qualifies else f"*{worst:.3f}*") + f", {width:.3f} ({width_se:.3f})")
            else:
                parts.append("")
        out.append(f"| {m} | " + " | ".join(parts) + f" | {best} | {why} | {registered[m]} |")
    return out


def report(results: dict, r_all, r_path, b, seconds, command: str) -> str:
    measured = {key for counts in results.values() for key in counts}
    names = [m for m in registry.metric_names("confusion") if any(m == name for name, _ in measured)]
    paths = [m for m in PATH_METRICS if m in names]
    path_methods = [meth for meth in (*METHODS, *EXTRA) if any((m, meth) in measured for m in paths)]
    oc_methods = [meth for meth in path_methods if ("oc", meth) in measured]
    kinds = list(dict.fromkeys(key[0] for key in results))
    ks = sorted({key[1] for key in results})
    ns = sorted({key[2] for key in results})
    out = header("# Coverage and width of 95% bootstrap intervals")
    se_all = math.sqrt(0.95 * 0.05 / r_all)
    sizes = f"R = {r_all} test sets per cell" + (
        f" ({r_path} for OC, UOC, MS and MMAE on the tied populations)" if r_path != r_all else ""
    )
    errors = f"{se_all:.4f}" + (f" ({math.sqrt(0.95 * 0.05 / r_path):.4f} at R = {r_path})" if r_path != r_all else "")
    columns = ["| metric | population | " + " | ".join(f"N = {n}" for n in ns) + " |", "|---|---|" + "---|" * len(ns)]
    out += [
        "",
        f"{sizes}, B = {b} replicates each; a coverage of 0.95 has a Monte-Carlo standard error of {errors}. "
        f"Total time {seconds / 60:.1f} min. Populations: `bal` and `imb` are symmetric (tied optimal OC/UOC "
        "paths), balanced and imbalanced classes; `shift` (N = 1000 only) is a control without the tie. Method "
        "`m_out_of_n` is the m-out-of-n interval (m = ceil(N^0.7)), `calibrated` the calibrated percentile interval "
        "(a double bootstrap, 100 inner replicates), `intersection` the intersection interval of the worst of "
        "per-class values (MS, MMAE), `jeffreys` the Jeffreys interval at the bootstrap's effective sample size "
        "(shares of samples only).",
        "",
        "Width is each interval's width over the oracle width of its cell: the 2.5-97.5% range of the estimator's "
        "own distribution over the R simulated test sets of that cell, averaged over the test sets (n/a where "
        "every test set gives the same value). 1.00 is the width of an interval that knew the sampling "
        "distribution; the basic interval is the percentile one reflected, so the two have the same width. See "
        "the docstring of `benchmarks/bench_coverage.py` for the construction.",
        "",
        f"Reproduce with `{command}`.",
        "",
        f"## Non-smooth metrics: {', '.join(m.upper() for m in paths)} ({' / '.join(path_methods)})",
        "",
        *coverage_and_width(results, paths, columns, path_methods),
    ]
    if "oc" in names:
        out += [
            "",
            f"Share of OC intervals entirely **below** the truth (the optimistic side; {' / '.join(oc_methods)}):",
            "",
            "| population | " + " | ".join(f"N = {n}" for n in ns) + " |",
            "|---|" + "---|" * len(ns),
        ]
        for kind in kinds:
            for k in ks:
                cells = [results.get((kind, k, n)) for n in ns]
                row = [
                    " / ".join(f"{c[('oc', meth)].below / c[('oc', meth)].total:.3f}" for meth in oc_methods)
                    if c
                    else ""
                    for c in cells
                ]
                out.append(f"| {kind} K={k} | " + " | ".join(row) + " |")
    out += [
        "",
        "## Every confusion metric (percentile / basic / BCa, and for shares of samples / Jeffreys)",
        "",
        *coverage_and_width(results, names, columns),
        "",
        *picks(results, names, r_all, {m: registry.get_metric(m).interval for m in names}),
    ]
    return "\n".join(out) + "\n"


# The families of metrics measured apart (``--family``): title, what the cells are, and the registered default.
FAMILIES = {
    "confusion": None,  # ``report``
    "score": (
        "# Score metrics: coverage and width of 95% bootstrap intervals",
        "Populations: a latent normal cut into the true classes (`bal`: K = 3 balanced classes; `imb`: K = 5 "
        "imbalanced ones, as above) and a marker correlated with it ({separation}), cut into equal-probability "
        "levels ({levels}); the truth is the metric on the population's joint distribution of (level, class), "
        "exact. Each test set of N samples is scored by `df.ordinal.ci(true, marker=...)`, the same replicates "
        "(one seed) for every method: percentile / basic / BCa (BCa's acceleration from the jackknife of the "
        "samples), the methods `ci` offers score metrics.",
    ),
    "agreement": (
        "# Krippendorff's alpha: coverage and width of 95% bootstrap intervals over items",
        "Populations: N items of K = 5 balanced true classes, each rated by every rater with a normal error "
        "about its class rounded to the nearest class ({spread}), each rating missing with a probability "
        "(raters/missing: {raters}); ordinal alpha. The truth is alpha of the population's coincidences, "
        "sum_t P(t) q_t q_t^T with q_t the ratings' distribution of an item of class t (a finite sample's "
        "coincidences tend to N times it). Each test set is scored by `ordframe.krippendorff_alpha(..., "
        "n_resamples=B)`; percentile / basic, the basic interval the percentile one reflected about the estimate "
        "(`ordframe._inference.intervals.reflected`); BCa would need the jackknife of the items, which "
        "`krippendorff_alpha` does not offer.",
    ),
}
MARK = "<!-- bench_coverage family: {} -->"


def family_report(family: str, results: dict, r: int, b: int, seconds: float, command: str) -> str:
    """The report of the score metrics or of Krippendorff's alpha (``FAMILIES``)."""
    title, populations = FAMILIES[family]
    names = list(dict.fromkeys(m for counts in results.values() for m, _ in counts))
    ns = sorted({key[2] for key in results})
    columns = ["| metric | population | " + " | ".join(f"N = {n}" for n in ns) + " |", "|---|---|" + "---|" * len(ns)]
    registered = {m: registry.get_metric(m).interval for m in names if m != ALPHA}
    registered[ALPHA] = ALPHA_INTERVAL
    settings = {
        "separation": ", ".join(f"`{k}` {v}" for k, v in SEPARATION.items()),
        "levels": ", ".join(f"`{k}` {v}" for k, v in MARKER_LEVELS.items()),
        "spread": ", ".join(f"`{k}` SD {v} classes" for k, v in RATER_SPREAD.items()),
        "raters": ", ".join(f"`{k}`" for k in RATERS),
    }
    out = [
        *header(title),
        "",
        f"R = {r} test sets per cell, B = {b} replicates each; a coverage of 0.95 has a Monte-Carlo standard error "
        f"of {math.sqrt(LEVEL * (1 - LEVEL) / r):.4f}. Total time {seconds / 60:.1f} min. "
        + populations.format(**settings)
        + " Width / oracle width as above.",
        "",
        f"Reproduce with `{command}`.",
        "",
        *coverage_and_width(results, names, columns),
        "",
        *picks(results, names, r, registered),
    ]
    return "\n".join(out) + "\n"


def merged(text: str, path: str, family: str) -> str:
    """The report file at ``path`` with ``family``'s section replaced by ``text``, the other families' kept."""
    old = Path(path).read_text() if Path(path).exists() else ""
    parts = re.split("^" + re.escape(MARK).replace(r"\{\}", r"(\w+)") + "\n", old, flags=re.MULTILINE)
    sections = {"confusion": parts[0], **dict(zip(parts[1::2], parts[2::2]))}
    sections[family] = text
    rest = "".join(f"\n{MARK.format(f)}\n{sections[f]}" for f in FAMILIES if f != "confusion" and f in sections)
    return sections.get("confusion", "").rstrip("\n") + "\n" + rest


def smoke() -> None:
    """Tiny sizes; the checks: the counts add up, the basic interval is the percentile one reflected (in ci, and in
    the widths recorded), and the rule skips a method that under-covers and prefers the cheaper of two alike."""
    results = run((3,), (200,), ("bal",), r_all=20, r_path=20, b=200, log=False)
    counts = results[("bal", 3, 200)]
    assert all(0 <= c.hit <= c.total <= 20 and c.below <= c.total for c in counts.values())
    assert all((c.width[np.isfinite(c.width)] >= 0).all() for c in counts.values())
    for m in registry.metric_names("confusion"):
        np.testing.assert_allclose(counts[(m, "basic")].width, counts[(m, "percentile")].width, rtol=1e-9)
    cube = xr.DataArray([[40, 8, 1], [6, 50, 9], [2, 7, 30]], dims=("true", "pred"))
    values = cube.ordinal.bootstrap(500, seed=0).ordinal.oc()
    q = np.quantile(values.values, [0.025, 0.975])
    basic = ordframe.ci(values, method="basic", cube=cube).values
    np.testing.assert_allclose(basic, 2 * float(cube.ordinal.oc()) - q[::-1], rtol=1e-12)
    rng = np.random.default_rng(0)
    width = rng.normal(1.0, 0.1, 300)

    def made(hit, shift):
        return Tally(hit, 300, 0, width + shift + rng.normal(0, 0.01, 300), 0.0)

    cells = {
        (kind, 3, n): {
            ("mae", "percentile"): made(285, 0.02),
            ("mae", "basic"): made(285, 0.02),
            ("mae", "bca"): made(250, -0.2),
        }
        for kind in ("bal", "imb")
        for n in (200, 1000)
    }
    assert choose(cells, "mae")[0] == "percentile"  # BCa narrower, but it under-covers; basic no narrower
    for c in cells.values():
        c[("mae", "bca")] = made(285, 0.0)
    assert choose(cells, "mae")[0] == "bca"  # now it qualifies and is narrower by far more than its MC error
    for c in cells.values():
        c[("mae", "bca")] = made(285, 0.015)
    assert choose(cells, "mae")[0] == "percentile"  # within MC error of the narrowest: the cheaper one
    confusion = report(results, 20, 20, 200, 0.0, "smoke")
    for family, measure, key in (
        ("score", score_cell, ("imb strong coarse", 5, 100)),
        ("agreement", alpha_cell, ("5/0.3 loose", 5, 30)),
    ):
        setting = {"r": 4, "b": 200} | ({"names": registry.metric_names("score")} if family == "score" else {})
        results = run_cells(measure, [key], [setting], seed=0, log=False, jobs=1)
        counts = results[key]
        assert all(0 <= c.hit <= c.total <= 4 and c.below <= c.total for c in counts.values())
        for m in {m for m, _ in counts}:
            np.testing.assert_allclose(counts[(m, "basic")].width, counts[(m, "percentile")].width, rtol=1e-9)
        text = family_report(family, results, 4, 200, 0.0, "smoke")
        with tempfile.TemporaryDirectory() as folder:  # a family's section replaced, the others kept
            path = Path(folder) / "results.md"
            path.write_text(merged(text, str(path), family))
            path.write_text(merged(confusion, str(path), "confusion"))
            assert merged(text, str(path), family) == path.read_text() == confusion + f"\n{MARK.format(family)}\n{text}"


def score_cells(r: int, b: int) -> tuple[list, list]:
    """The score metrics' cells and their settings: K = 3 balanced or K = 5 imbalanced classes, every separation and
    ties, N = 100 and 500."""
    cells = [
        (f"{classes} {separation} {ties}", k, n)
        for classes, k in (("imb", 5), ("bal", 3))
        for separation in SEPARATION
        for ties in MARKER_LEVELS
        for n in (100, 500)
    ]
    names = registry.metric_names("score")
    return cells, [{"names": names, "r": r, "b": b}] * len(cells)


def alpha_cells(r: int, b: int) -> tuple[list, list]:
    """Krippendorff's alpha's cells and their settings: every design and spread, 30, 100 and 400 items."""
    cells = [(f"{design} {spread}", 5, n) for design in RATERS for spread in RATER_SPREAD for n in (30, 100, 400)]
    return cells, [{"r": r, "b": b}] * len(cells)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="write the markdown report to this file (else print it)")
    parser.add_argument(
        "--family",
        choices=FAMILIES,
        default="confusion",
        help="the metrics measured: the confusion metrics, the score metrics or Krippendorff's alpha; --output "
        "keeps the other families' sections of the file",
    )
    parser.add_argument("--r", type=int, help="test sets per cell (default: 300; score 250; agreement 1000)")
    parser.add_argument("--r-path", type=int, default=300, help="test sets for OC, UOC, MS, MMAE on tied populations")
    parser.add_argument("--b", type=int, default=1000, help="bootstrap replicates")
    parser.add_argument("--jobs", type=int, default=1, help="cells run in this many processes")
    parser.add_argument("--metrics", nargs="+", help="only these registered confusion metrics (default: all)")
    parser.add_argument(
        "--extra",
        nargs="*",
        choices=EXTRA,
        default=EXTRA,
        help="the methods measured beside percentile, basic and BCa for the non-smooth metrics (default: all)",
    )
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: the checks only (seconds)")
    args = parser.parse_args()
    if args.smoke:
        smoke()
        print(
            "bench_coverage smoke: coverage counts add up; the basic interval is the percentile one reflected; "
            "the rule picks the narrowest method that covers, the cheaper of two alike; the score metrics and "
            "Krippendorff's alpha are measured alike"
        )
        return
    start = time.perf_counter()
    command = "python benchmarks/bench_coverage.py " + " ".join(sys.argv[1:])
    if args.family == "confusion":
        r = args.r or 300
        results = run(
            (3, 5, 8),
            (200, 1000, 5000),
            ("bal", "imb", "shift"),
            r,
            args.r_path,
            args.b,
            jobs=args.jobs,
            names=args.metrics,
            extra=tuple(args.extra),
        )
        text = report(results, r, args.r_path, args.b, time.perf_counter() - start, command)
    else:
        r = args.r or {"score": 250, "agreement": 1000}[args.family]
        measure, cells = (score_cell, score_cells) if args.family == "score" else (alpha_cell, alpha_cells)
        results = run_cells(measure, *cells(r, args.b), seed=0, log=True, jobs=args.jobs)
        text = family_report(args.family, results, r, args.b, time.perf_counter() - start, command)
    emit(merged(text, args.output, args.family) if args.output else text, args.output)
    for m in dict.fromkeys(name for counts in results.values() for name, _ in counts):
        best, why, _ = choose(results, m)
        default = ALPHA_INTERVAL if m == ALPHA else registry.get_metric(m).interval
        print(f"{m}: the rule picks {best} ({why}); registered default {default}")


if __name__ == "__main__":
    main()
