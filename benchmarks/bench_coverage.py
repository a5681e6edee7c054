"""Coverage of ordframe's 95% bootstrap intervals for every registered confusion metric, with Monte-Carlo errors.

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
mer, within_k and the example plugin's accuracy_off1) also the Jeffreys interval. The truth is the metric on the
population's expected counts N p (equal to its value on p for every scale-free metric). Coverage is the share
of test sets whose interval contains the truth (test sets whose estimate is NaN are left out), with its
Monte-Carlo standard error sqrt(c (1 - c) / R).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import xarray as xr
from scipy.stats import multivariate_normal, norm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine_info import machine  # noqa: E402

import ordframe  # noqa: E402
from ordframe._registry import manager as registry  # noqa: E402

LEVEL = 0.95
METHODS = ("percentile", "basic", "bca")
# Non-smooth metrics (a minimum over paths, or over classes): also m-out-of-n, and more test sets when tied.
PATH_METRICS = ("oc", "uoc", "ms", "mmae")
# Shares of samples (a proportion, bounded by 0 and 1): also the Jeffreys interval, which reaches past the bound.
SHARE_METRICS = ("accuracy", "mer", "within_k", "accuracy_off1")
M_EXPONENT = 0.7
IMBALANCED = {3: (0.1, 0.6, 0.3), 5: (0.05, 0.15, 0.35, 0.30, 0.15), 8: (0.03, 0.07, 0.15, 0.25, 0.2, 0.15, 0.1, 0.05)}
CHUNK = 200  # test sets bootstrapped at once (B x CHUNK x K^2 counts)
# The methods measured beside percentile, basic and BCa for the non-smooth metrics.
EXTRA = ("m_out_of_n", "calibrated", "intersection")


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


def covered(bounds: xr.DataArray, truth: float, estimate: xr.DataArray) -> tuple[int, int, int]:
    """(covered, test sets with an estimate, intervals entirely below the truth)."""
    valid = estimate.notnull()
    low, high = bounds.sel(bound="low"), bounds.sel(bound="high")
    hit = ((low <= truth) & (truth <= high) & valid).sum()
    below = ((high < truth) & valid).sum()
    return int(hit), int(valid.sum()), int(below)


def cell(k, kind, n, names, r_all, r_path, b, rng, extra=EXTRA) -> dict:
    """Coverage counts ``{(metric, method): [covered, total, below]}`` of one population and N."""
    p = population(k, kind)
    truth_cube = xr.DataArray(n * p, dims=("true", "pred"))
    truths = {m: float(truth_cube.ordinal.evaluate(metrics=[m])[m]) for m in names}
    counts: dict = {}
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
        for (m, method), bounds in intervals.items():
            got = covered(bounds, truths[m], estimates[m])
            counts.setdefault((m, method), [0, 0, 0])
            counts[(m, method)] = [a + g for a, g in zip(counts[(m, method)], got)]
        done += size
    return counts


def fmt(c: list[int]) -> str:
    hit, total, _ = c
    return f"{hit / total:.3f}" if total else "n/a"


def se(c: list[int]) -> float:
    hit, total, _ = c
    q = hit / total if total else float("nan")
    return math.sqrt(q * (1 - q) / total) if total else float("nan")


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


def recommend(results: dict, metric: str, margin: float) -> tuple[str, dict]:
    """The method (of those usable with ordinary replicates) whose worst cell covers most, unless the
    percentile interval's worst cell is within ``margin`` (two Monte-Carlo SEs) of it: the percentile
    interval needs no cube. Also returns per method (cells in [0.93, 0.97], cells, lowest, highest)."""
    scores = {}
    methods = methods_of(metric, ("calibrated", "intersection"))
    methods = tuple(m for m in methods if any((metric, m) in c for c in results.values()))
    for method in methods:
        cells = [c[(metric, method)] for c in results.values() if (metric, method) in c and c[(metric, method)][1]]
        cov = np.array([h / t for h, t, _ in cells])
        scores[method] = (int(((cov >= 0.93) & (cov <= 0.97)).sum()), len(cov), float(cov.min()), float(cov.max()))
    best = max(methods, key=lambda m: scores[m][2])
    return ("percentile" if scores[best][2] - scores["percentile"][2] <= margin else best), scores


def methods_of(metric: str, path_extra=EXTRA) -> tuple[str, ...]:
    """The methods measured for a metric: percentile, basic and BCa, and those of its kind (of ``path_extra`` for
    the non-smooth metrics; the intersection interval only for the worst of per-class values)."""
    if metric in PATH_METRICS:
        worst_class = registry.get_metric(metric).per_class is not None
        extra = tuple(m for m in path_extra if m != "intersection" or worst_class)
    else:
        extra = ("jeffreys",) if metric in SHARE_METRICS else ()
    return (*METHODS, *extra)


def table(results: dict, metrics, methods=None) -> list[str]:
    """Markdown rows: one per metric and population, one column per N, the methods' coverage joined by /
    (``methods``, or each metric's own: ``methods_of``)."""
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
                    " / ".join(fmt(c[(m, meth)]) if (m, meth) in c else "-" for meth in measured) if c else ""
                    for c in cells
                ]
                out.append(f"| {m} | {kind} K={k} | " + " | ".join(row) + " |")
    return out


def report(results: dict, r_all, r_path, b, seconds, command: str) -> str:
    measured = {key for counts in results.values() for key in counts}
    names = [m for m in registry.metric_names("confusion") if any(m == name for name, _ in measured)]
    paths = [m for m in PATH_METRICS if m in names]
    path_methods = [meth for meth in (*METHODS, *EXTRA) if any((m, meth) in measured for m in paths)]
    oc_methods = [meth for meth in path_methods if ("oc", meth) in measured]
    kinds = sorted({key[0] for key in results}, key=["bal", "imb", "shift"].index)
    ks = sorted({key[1] for key in results})
    ns = sorted({key[2] for key in results})
    out = ["# Coverage of 95% bootstrap intervals", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    se_all = math.sqrt(0.95 * 0.05 / r_all)
    se_path = math.sqrt(0.95 * 0.05 / r_path)
    out += [
        "",
        f"R = {r_all} test sets per cell ({r_path} for OC, UOC, MS and MMAE on the tied populations), B = {b} replicates each; "
        f"a coverage of 0.95 has a Monte-Carlo standard error of {se_all:.4f} (R = {r_all}) and {se_path:.4f} "
        f"(R = {r_path}). Total time {seconds / 60:.1f} min. Populations: `bal` and `imb` are symmetric (tied "
        "optimal OC/UOC paths), balanced and imbalanced classes; `shift` (N = 1000 only) is a control without the "
        "tie. Method `m/n` is the m-out-of-n interval (m = ceil(N^0.7)), `calibrated` the calibrated percentile "
        "interval (a double bootstrap, 100 inner replicates), `intersection` the intersection interval of the worst "
        "of per-class values (MS, MMAE), `Jeffreys` the Jeffreys interval at the bootstrap's "
        "effective sample size (shares of samples only). See the docstring of "
        "`benchmarks/bench_coverage.py` for the construction.",
        "",
        f"Reproduce with `{command}`.",
        "",
        f"## Non-smooth metrics: {', '.join(m.upper() for m in paths)} ({' / '.join(path_methods)})",
        "",
        "| metric | population | " + " | ".join(f"N = {n}" for n in ns) + " |",
        "|---|---|" + "---|" * len(ns),
    ]
    out += table(results, paths, path_methods)
    out += (
        []
        if "oc" not in names
        else [
            "",
            f"Share of OC intervals entirely **below** the truth (the optimistic side; {' / '.join(oc_methods)}):",
            "",
            "| population | " + " | ".join(f"N = {n}" for n in ns) + " |",
            "|---|" + "---|" * len(ns),
        ]
    )
    for kind in kinds if "oc" in names else ():
        for k in ks:
            row = []
            for n in ns:
                c = results.get((kind, k, n))
                row.append(
                    " / ".join(f"{c[('oc', meth)][2] / c[('oc', meth)][1]:.3f}" for meth in oc_methods) if c else ""
                )
            out.append(f"| {kind} K={k} | " + " | ".join(row) + " |")
    out += [
        "",
        "## Every confusion metric (percentile / basic / BCa, and for shares of samples / Jeffreys)",
        "",
        "| metric | population | " + " | ".join(f"N = {n}" for n in ns) + " |",
        "|---|---|" + "---|" * len(ns),
    ]
    out += table(results, names)
    out += [
        "",
        "## Summary and recommended default",
        "",
        "Per metric and method: the cells whose coverage lies in [0.93, 0.97] (of all cells), and the range of "
        "coverage. The recommendation is the method whose worst cell covers most, unless the percentile "
        f"interval's worst cell is within two Monte-Carlo SEs ({2 * se_all:.3f}) of it (the percentile interval "
        "needs no cube).",
        "",
        "| metric | percentile | basic | BCa | calibrated | intersection | Jeffreys | recommended "
        "| registered default at the run |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    for m in names:
        best, scores = recommend(results, m, 2 * se_all)
        parts = [
            f"{a}/{b} in range, {lo:.3f}-{hi:.3f}" if meth in scores else ""
            for meth in (*METHODS, "calibrated", "intersection", "jeffreys")
            for a, b, lo, hi in [scores.get(meth, (0, 0, 0.0, 0.0))]
        ]
        out.append(f"| {m} | " + " | ".join(parts) + f" | {best} | {registry.get_metric(m).interval} |")
    return "\n".join(out) + "\n"


def smoke() -> None:
    """Tiny sizes; the checks: the counts add up, and ci's basic interval is the percentile one reflected."""
    results = run((3,), (200,), ("bal",), r_all=20, r_path=20, b=200, log=False)
    counts = results[("bal", 3, 200)]
    assert all(0 <= hit <= total <= 20 and below <= total for hit, total, below in counts.values())
    cube = xr.DataArray([[40, 8, 1], [6, 50, 9], [2, 7, 30]], dims=("true", "pred"))
    values = cube.ordinal.bootstrap(500, seed=0).ordinal.oc()
    q = np.quantile(values.values, [0.025, 0.975])
    basic = ordframe.ci(values, method="basic", cube=cube).values
    np.testing.assert_allclose(basic, 2 * float(cube.ordinal.oc()) - q[::-1], rtol=1e-12)
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
        print("bench_coverage smoke: coverage counts add up; the basic interval is the percentile one reflected")
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
    if args.output:
        Path(args.output).write_text(text)
    else:
        print(text)


if __name__ == "__main__":
    main()
