"""Benchmark: bootstrap replicates drawn as cubes, and paired replicates from patterns.

Two measurements, each in one run (baselines measured beside ordframe):

1. **One model, N = 10^6 predictions, 10^4 replicates of every built-in
   confusion metric.** ``cube.ordinal.bootstrap(B)`` against the raw
   ``numpy.random.Generator.multinomial`` draw of the same counts (target:
   within 2x), and the whole job (replicates + every metric) against the
   strongest row-resampling baseline: per replicate, N row indices drawn with
   numpy and one ``numpy.bincount`` of the rows' precomputed cell codes,
   stacked into the same cube and given the same metrics (timed on a subset of
   replicates and scaled; target: at least 100x faster). Resampling rows and
   re-evaluating them with ordframe itself (``df.take(rows).ordinal.evaluate``,
   the baseline of earlier reports) is shown beside it. Checks: the row
   baseline's identity resample gives the cube, and the mean counts of both
   kinds of replicates agree with the cube within 5 standard errors.
2. **Paired bootstrap, 4 models x 10^6 samples x 2000 replicates**, confusion
   metrics (``df.ordinal.bootstrap``) and RPS with MAE on the same replicates
   (``df.ordinal.evaluate(..., n_resamples=2000)``): time and peak memory of a
   fresh process (target: at most 4 GiB).

The dask.distributed cube is measured by ``bench_dask.py``. Run::

    python benchmarks/bench_bootstrap.py > benchmarks/results_bootstrap.md
    python benchmarks/bench_bootstrap.py --smoke     # tiny sizes, the checks only (seconds)
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from machine_info import machine

import ordframe

K = 5


def best(func, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def labels(n: int, seed: int, noise: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    true = rng.integers(0, K, n)
    pred = np.where(rng.random(n) < noise, np.clip(true + rng.choice([-1, 1], n), 0, K - 1), true)
    return true, pred


def check_mean(replicates: np.ndarray, cube: np.ndarray, what: str) -> None:
    """The mean counts of multinomial replicates of ``cube`` agree with it within 5 standard errors."""
    n = cube.sum()
    p = cube.reshape(-1) / n
    error = np.sqrt(n * p * (1 - p) / len(replicates))
    gap = np.abs(replicates.reshape(len(replicates), -1).mean(axis=0) - cube.reshape(-1))
    assert (gap <= 5 * error + 1e-9).all(), (what, gap.max())


def one_model(rows: int, replicates: int, row_subset: int, repeat: int) -> list[str]:
    true, pred = labels(rows, 0)
    frame = pd.DataFrame({"y": true, "yhat": pred})
    cube = frame.ordinal.confusion("y", "yhat")
    p = cube.values.ravel() / rows
    rng = np.random.default_rng(1)
    t_draw = best(lambda: rng.multinomial(rows, p, size=replicates), repeat)
    t_boot = best(lambda: cube.ordinal.bootstrap(replicates, seed=2), repeat)
    boot = cube.ordinal.bootstrap(replicates, seed=2)
    check_mean(boot.values, cube.values, "cube.ordinal.bootstrap")
    t_metrics = best(lambda: boot.ordinal.evaluate(), repeat)
    # the rows' cells, computed before the timing, in the narrowest type (the gather then stays in cache)
    codes = (true * K + pred).astype(np.uint8 if K * K <= 256 else np.int64)
    index_type = np.int32 if rows < 2**31 else np.int64

    def rows_counted(count: int, picks: np.random.Generator) -> np.ndarray:
        out = np.empty((count, K * K), np.int64)
        for b in range(count):
            out[b] = np.bincount(codes[picks.integers(0, rows, rows, dtype=index_type)], minlength=K * K)
        return out

    np.testing.assert_array_equal(np.bincount(codes, minlength=K * K), cube.values.reshape(-1))
    counted = rows_counted(max(row_subset, 20), np.random.default_rng(4))
    check_mean(counted, cube.values, "rows resampled and counted")
    row_cube = cube.expand_dims(replicate=len(counted)).copy(data=counted.reshape(-1, K, K))
    row_cube.ordinal.evaluate()  # the same metrics run on the row baseline's replicates; on B of them they cost t_metrics
    picks = np.random.default_rng(3)
    t_counted = best(lambda: rows_counted(row_subset, picks), repeat) / row_subset * replicates
    t_rows = t_counted + t_metrics

    def by_ordframe():
        for _ in range(row_subset):
            frame.take(picks.integers(0, rows, rows)).ordinal.evaluate("y", "yhat", labels=range(K))

    t_ordframe_rows = best(by_ordframe, 1) / row_subset * replicates
    ours = t_boot + t_metrics
    metrics = len(ordframe.list_metrics().query("kind == 'confusion' and status == 'ok'"))
    return [
        f"## 1. One model: {rows:,} predictions, K = {K}, {replicates:,} replicates of all {metrics} confusion metrics",
        "",
        "| step | time | ratio | target |",
        "|---|---|---|---|",
        f"| raw `Generator.multinomial({rows:,}, p, size={replicates:,})` | {t_draw:.3f} s | 1 | |",
        f"| `cube.ordinal.bootstrap({replicates:,})` | {t_boot:.3f} s | **{t_boot / t_draw:.2f}** x the raw draw | "
        f"<= 2: {'met' if t_boot / t_draw <= 2 else 'NOT met'} |",
        f"| every confusion metric on the replicates (`.ordinal.evaluate()`) | {t_metrics:.3f} s | | |",
        f"| **baseline**: per replicate, {rows:,} int32 row indices drawn with numpy and one `numpy.bincount` of the "
        f"rows' precomputed uint8 cell codes, x {replicates:,} (timed on {row_subset}), then the same metrics on the "
        f"stacked cube | {t_rows:,.1f} s ({t_counted:,.1f} s + {t_metrics:.3f} s) | **{t_rows / ours:,.0f}** x ordframe's "
        f"{ours:.3f} s | >= 100: {'met' if t_rows / ours >= 100 else 'NOT met'} |",
        f"| older baseline: rows resampled and re-evaluated by ordframe (`df.take(rows).ordinal.evaluate`) "
        f"per replicate (timed on {row_subset}) | {t_ordframe_rows:,.0f} s | {t_ordframe_rows / ours:,.0f} x "
        "ordframe's | (not the verdict) |",
        "",
        "Checks: the row baseline's identity resample equals the cube; the mean counts of ordframe's replicates "
        "and of the row baseline's agree with the cube within 5 standard errors.",
        "",
    ]


def paired_job(kind: str, samples: int, models: int, replicates: int) -> dict:
    """Run in a fresh process: the paired bootstrap's time and the process's peak memory."""
    true, _ = labels(samples, 0)
    frames = []
    for m in range(models):
        _, pred = labels(samples, 10 + m)
        pred = np.where(np.random.default_rng(m).random(samples) < 0.7, true, pred)
        proba = np.full((samples, K), 0.1 / (K - 1))
        proba[np.arange(samples), pred] = 0.9
        frames.append(
            pd.DataFrame(
                {
                    "sample": np.arange(samples),
                    "y": true,
                    "yhat": pred,
                    "model": f"m{m}",
                    **{f"p{c}": proba[:, c] for c in range(K)},
                }
            )
        )
    frame = pd.concat(frames, ignore_index=True)
    del frames
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    start = time.perf_counter()
    if kind == "confusion":
        boot = frame.ordinal.bootstrap("y", "yhat", model="model", sample="sample", n_resamples=replicates, seed=0)
        boot.ordinal.evaluate()
    else:
        frame.ordinal.evaluate(
            "y",
            "yhat",
            proba=[f"p{c}" for c in range(K)],
            by="model",
            sample="sample",
            metrics=["rps", "mae"],
            n_resamples=replicates,
            seed=0,
        )
    elapsed = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return {
        "seconds": elapsed,
        "peak_gib": peak / 2**20,
        "above_data_gib": (peak - before) / 2**20,
        "data_gib": frame.memory_usage(deep=True).sum() / 2**30,
    }


def paired(samples: int, models: int, replicates: int) -> list[str]:
    out = [
        f"## 2. Paired bootstrap: {models} models x {samples:,} samples x {replicates:,} replicates",
        "",
        "| metrics | time | peak memory of the process | of which above the data's (before the call) | target |",
        "|---|---|---|---|---|",
    ]
    for kind, label in (
        ("confusion", "all confusion metrics (`df.ordinal.bootstrap` + `evaluate`)"),
        ("proba", "RPS and MAE on the same replicates (`evaluate(..., n_resamples=)`)"),
    ):
        args = [
            sys.executable,
            __file__,
            "--job",
            kind,
            "--paired-samples",
            str(samples),
            "--paired-models",
            str(models),
            "--paired-replicates",
            str(replicates),
        ]
        result = json.loads(subprocess.run(args, capture_output=True, text=True, check=True).stdout)
        out.append(
            f"| {label} | {result['seconds']:.1f} s | {result['peak_gib']:.2f} GiB | "
            f"{result['above_data_gib']:.2f} GiB | <= 4 GiB: {'met' if result['peak_gib'] <= 4 else 'NOT met'} |"
        )
    return [*out, ""]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**6)
    parser.add_argument("--replicates", type=int, default=10**4)
    parser.add_argument("--row-subset", type=int, default=20, help="row-resampled replicates timed (then scaled)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--paired-samples", type=int, default=10**6)
    parser.add_argument("--paired-models", type=int, default=4)
    parser.add_argument("--paired-replicates", type=int, default=2000)
    parser.add_argument("--job", choices=["confusion", "proba"], help=argparse.SUPPRESS)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat: the checks only (seconds)")
    args = parser.parse_args()
    if args.smoke:
        args.rows, args.replicates, args.row_subset, args.repeat = 10**4, 200, 2, 1
        args.paired_samples, args.paired_models, args.paired_replicates = 2000, 2, 20
    if args.job:
        print(json.dumps(paired_job(args.job, args.paired_samples, args.paired_models, args.paired_replicates)))
        return
    first = one_model(args.rows, args.replicates, args.row_subset, args.repeat)
    second = paired(args.paired_samples, args.paired_models, args.paired_replicates)
    if args.smoke:
        print("bench_bootstrap smoke: replicate means agree with the cube; the paired jobs ran in fresh processes")
        return
    out = ["# Benchmark: bootstrap replicates", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    out += ["", *first, *second]
    out += [
        'Reproduce with `pip install -e ".[bench]"` and '
        "`python benchmarks/bench_bootstrap.py > benchmarks/results_bootstrap.md` (`--help` for sizes)."
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main()
