"""Coverage and width of ordframe's 95% bootstrap intervals for every registered confusion metric, and the default each picks.

    python benchmarks/bench_coverage.py                        # the full table (about an hour, 2 cores)
    python benchmarks/bench_coverage.py --output benchmarks/results_coverage.md --jobs 2
    python benchmarks/bench_coverage.py --smoke                # tiny sizes, the checks only (seconds)

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
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

import numpy as np
import xarray as xr
from scipy.stats import multivariate_normal, norm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine_info import emit, machine  # noqa: E402

import ordframe  # noqa: E402
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
ORACLE_RESAMPLES = 200  # bootstrap of the test sets' estimates for the Monte-Carlo error of the oracle width


class Tally(NamedTuple):
    """One method's intervals of one metric in one cell."""

    hit: int  # intervals that contain the truth
    total: int  # test sets with an estimate
    below: int  # intervals entirely below the truth
    width: np.ndarray  # per test set: width / oracle width (NaN without an estimate, a finite bound or an oracle)
    oracle_se: float  # Monte-Carlo standard error of the oracle width, relative to it


def population(k: int, kind: str, rho: float = 0.9) -> np.ndarray:
    """The joint distribution ``(K, K)`` of true and predicted class (rows = true) of a population."""
    probs = np.asarray(IMBALANCED[k]) if kind == "imb" else np.full(k, 1 / k)
    cuts = np.clip(norm.ppf(np.cumsum(probs)[:-1]), -8, 8)
    rows = np.r_[-8.0, cuts, 8.0]
    cols = rows + (0.25 if kind == "shift" else 0.0)
    cols[0], cols[-1] = -8.0, 8.0
    mvn = multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]])
    grid = np.array([[mvn.cdf([a, b]) for b in cols] for a in rows])
    p = grid[1:, 1:] - grid[:-1, 1:] - grid[1:, :-1] + grid[:-1, :-1]
    p = np.clip(p, 0, None)
    return p / p.sum()


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


def cell(k, kind, n, names, r_all, r_path, b, rng, extra=EXTRA) -> dict:
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
    oracles = {m: oracle(np.concatenate(values), rng) for m, values in estimated.items()}
    counts = {}
    for (m, method), parts in rows.items():
        valid, hit, below, width = np.concatenate(parts, axis=1)
        width_of, se_of = oracles[m]
        counts[(m, method)] = Tally(int(hit.sum()), int(valid.sum()), int(below.sum()), width / width_of, se_of)
    return counts


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
    streams = np.random.SeedSequence(seed).spawn(len(cells))
    names = tuple(names or registry.metric_names("confusion"))
    tasks = [
        (key, r_all, r_path if key[0] != "shift" else r_all, b, stream, log, names, extra)
        for key, stream in zip(cells, streams)
    ]
    if jobs == 1:
        return dict(map(one_cell, tasks))
    with ProcessPoolExecutor(jobs) as pool:
        return dict(pool.map(one_cell, tasks))


def one_cell(task) -> tuple:
    (kind, k, n), r_all, r_path, b, stream, log, names, extra = task
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # NaN replicates (d, ms ... on rare classes), degenerate BCa
        counts = cell(k, kind, n, names, r_all, r_path, b, np.random.default_rng(stream), extra)
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
    kinds = sorted({key[0] for key in results}, key=["bal", "imb", "shift"].index)
    ks = sorted({key[1] for key in results})
    ns = sorted({key[2] for key in results})
    out = []
    for m in metrics:
        for kind in kinds:
            for k in ks:
                cells = [results.get((kind, k, n)) for n in ns]
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


def report(results: dict, r_all, r_path, b, seconds, command: str) -> str:
    measured = {key for counts in results.values() for key in counts}
    names = [m for m in registry.metric_names("confusion") if any(m == name for name, _ in measured)]
    paths = [m for m in PATH_METRICS if m in names]
    path_methods = [meth for meth in (*METHODS, *EXTRA) if any((m, meth) in measured for m in paths)]
    oc_methods = [meth for meth in path_methods if ("oc", meth) in measured]
    kinds = sorted({key[0] for key in results}, key=["bal", "imb", "shift"].index)
    ks = sorted({key[1] for key in results})
    ns = sorted({key[2] for key in results})
    out = ["# Coverage and width of 95% bootstrap intervals", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    se_all = math.sqrt(0.95 * 0.05 / r_all)
    sizes = f"R = {r_all} test sets per cell" + (
        f" ({r_path} for OC, UOC, MS and MMAE on the tied populations)" if r_path != r_all else ""
    )
    errors = f"{se_all:.4f}" + (f" ({math.sqrt(0.95 * 0.05 / r_path):.4f} at R = {r_path})" if r_path != r_all else "")
    columns = ["| metric | population | " + " | ".join(f"N = {n}" for n in ns) + " |", "|---|---|" + "---|" * len(ns)]
    z = float(norm.ppf(1 - 0.05 / len(results)))
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
        "Coverage:",
        "",
        *columns,
        *table(results, paths, path_methods),
        "",
        "Width / oracle width:",
        "",
        *columns,
        *table(results, paths, path_methods, fmt_width),
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
        "Coverage:",
        "",
        *columns,
        *table(results, names),
        "",
        "Width / oracle width:",
        "",
        *columns,
        *table(results, names, value=fmt_width),
        "",
        "## The default each metric's coverage and width pick",
        "",
        RULE.format(z=z, cells=len(results), r=r_all, bar=LEVEL - z * se_all),
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
        out.append(f"| {m} | " + " | ".join(parts) + f" | {best} | {why} | {registry.get_metric(m).interval} |")
    return "\n".join(out) + "\n"


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
    report(results, 20, 20, 200, 0.0, "smoke")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="write the markdown report to this file (else print it)")
    parser.add_argument("--r", type=int, default=300, help="test sets per cell")
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
            "the rule picks the narrowest method that covers, the cheaper of two alike"
        )
        return
    start = time.perf_counter()
    results = run(
        (3, 5, 8),
        (200, 1000, 5000),
        ("bal", "imb", "shift"),
        args.r,
        args.r_path,
        args.b,
        jobs=args.jobs,
        names=args.metrics,
        extra=tuple(args.extra),
    )
    command = "python benchmarks/bench_coverage.py " + " ".join(sys.argv[1:])
    text = report(results, args.r, args.r_path, args.b, time.perf_counter() - start, command)
    emit(text, args.output)
    for m in sorted({name for counts in results.values() for name, _ in counts}):
        best, why, _ = choose(results, m)
        print(f"{m}: the rule picks {best} ({why}); registered default {registry.get_metric(m).interval}")


if __name__ == "__main__":
    main()
