"""Benchmark: simulating pairs of confusion matrices and scoring them with every built-in confusion metric.

The target: 10^6 pairs of 5 x 5 matrices drawn by
``ordframe.simulate.confusion_cubes`` and scored by ``ordframe.simulate.prefers``
with every built-in confusion metric within 10 s. The report splits the time:
the draw of the two cubes, then every metric through the bridge that
``prefers`` and ``evaluate`` use (``apply_confusion`` on the 2 x 10^6 matrices),
beside the bare kernel that runs (``Metric.kernel``: the compiled twin, as in a process whose work has paid for it) on the same matrices as float64 (the floor:
no validation, no xarray), then the whole ``prefers`` call, which computes
George's terms once for d, MC, TC, max TC and the chance distance and the four
rank statistics in one pass (``Metric.needs``), so it can take less than the
sum of the separate calls.

    python benchmarks/bench_simulate.py                  # print the report
    python benchmarks/bench_simulate.py --smoke          # tiny sizes, the checks only (seconds)

Checks: every replicate has N samples and the fixed accuracy, and ``prefers``'
shares equal those counted from the bare kernels' values. Times are process
CPU time (every step is single-threaded numpy, and CPU time is what other jobs
on a shared machine disturb least), the minimum over ``--repeat`` rounds.
"""

from __future__ import annotations

import argparse
import os
import time

import numpy as np
import xarray as xr
from machine_info import machine

import ordframe  # noqa: F401  (registers the metrics)
from ordframe._bridge.apply import apply_confusion
from ordframe._core import compiling
from ordframe._registry.manager import BUILTIN_MODULES, get_metric, metric_names, plugin_of
from ordframe.simulate import confusion_cubes, prefers

compiling.steady_state()  # every compiled routine at every size, as once a process's numpy work paid for it

K, N, ACCURACY = 5, 1000, 0.7


def timed(func, repeat: int):
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.process_time()
        out = func()
        best = min(best, time.process_time() - start)
    return best, out


def builtin_metrics() -> list[str]:
    return [m for m in metric_names("confusion") if plugin_of(get_metric(m)) in BUILTIN_MODULES]


def draw(pairs: int):
    design = dict(accuracy=ACCURACY, largest=0.5, n_resamples=pairs)
    return confusion_cubes(K, N, seed=1, **design), confusion_cubes(K, N, seed=2, **design)


def check(a, b, result, names) -> None:
    for cube in (a, b):
        assert (cube.sum(["true", "pred"]) == N).all()
        assert (np.trace(cube.values, axis1=1, axis2=2) == round(ACCURACY * N)).all()
    floats = [cube.values.astype(np.float64) for cube in (a, b)]

    def sign(name):
        metric = get_metric(name)
        with np.errstate(all="ignore"):
            va, vb = (metric.orientation.score(np.asarray(metric.kernel(f.size)(f), dtype=np.float64)) for f in floats)
        diff = va - vb
        tied = np.abs(diff) <= 1e-9 * np.maximum(1, np.maximum(np.abs(va), np.abs(vb)))
        return np.where(np.isnan(diff), np.nan, np.where(tied, 0, np.sign(diff)))

    ref = sign("tc")
    kept = ~np.isnan(ref) & (ref != 0)
    assert int(result["pairs"]) == kept.sum()
    for name in names:
        agree = (sign(name)[kept] == ref[kept]).mean()
        assert abs(float(result["agree"].sel(metric=name)) - agree) < 1e-12, name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", type=int, default=10**6)
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one round: the checks only (seconds)")
    args = parser.parse_args()
    if args.smoke:
        args.pairs, args.repeat = 2000, 1
    names = builtin_metrics()

    generation, (a, b) = timed(lambda: draw(args.pairs), args.repeat)
    both = xr.concat([a, b], dim="side")
    floats = both.transpose(..., "true", "pred").values.astype(np.float64)
    rows = []
    for name in names:
        metric = get_metric(name)
        params = metric.params({})
        bridged, _ = timed(lambda metric=metric, params=params: apply_confusion(metric, both, params), args.repeat)
        with np.errstate(all="ignore"):
            kernel, _ = timed(
                lambda metric=metric, params=params: metric.kernel(floats.size)(floats, **params), args.repeat
            )
        rows.append((name, bridged, kernel))
    total, result = timed(lambda: prefers(a, b, metrics=names, reference="cost"), args.repeat)
    check(a, b, result, names)
    if args.smoke:
        print(f"bench_simulate smoke: {len(names)} metrics; prefers' shares equal the bare kernels' counts")
        return

    scoring = sum(r[1] for r in rows)
    out = ["# Benchmark: simulating and scoring pairs of confusion matrices", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    out += [
        "",
        f"{args.pairs:,} pairs of {K} x {K} matrices (N = {N}, overall accuracy {ACCURACY}, largest class 50%, "
        f"multinomial class sizes, uniform errors), {len(names)} built-in confusion metrics; process CPU time, "
        f"min of {args.repeat}; load average {' / '.join(f'{x:.1f}' for x in os.getloadavg())} at the end.",
        "",
        "| step | time | share of the whole |",
        "|---|---|---|",
        f"| draw both cubes (`confusion_cubes` x 2) | {generation:.2f} s | {generation / (generation + total):.0%} |",
        f"| `prefers(a, b, metrics=<all {len(names)}>)` | {total:.2f} s | {total / (generation + total):.0%} |",
        f"| **whole job** | **{generation + total:.2f} s** | target <= 10 s: "
        f"{'met' if generation + total <= 10 else 'NOT met'} |",
        "",
        f"Scoring, per metric alone, on the {2 * args.pairs:,} matrices of both cubes (the sum, {scoring:.2f} s; "
        "`prefers` computes George's terms once for the five cost metrics and its reference, and the four rank "
        "statistics in one pass, then compares and counts):",
        "",
        "| metric | through the bridge | bare kernel | ratio |",
        "|---|---|---|---|",
    ]
    for name, bridged, kernel in sorted(rows, key=lambda r: -r[1]):
        out.append(f"| `{name}` | {bridged * 1000:.0f} ms | {kernel * 1000:.0f} ms | {bridged / kernel:.2f}x |")
    out += [
        "",
        "Reproduce with `python benchmarks/bench_simulate.py > benchmarks/results_simulate.md`.",
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main()
