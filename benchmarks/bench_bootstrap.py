"""Benchmark: bootstrap replicates drawn as cubes, paired replicates from patterns, and dask.distributed cubes.

Three measurements, each in one run (baselines measured beside ordframe):

1. **One model, N = 10^6 predictions, 10^4 replicates of every built-in
   confusion metric.** ``cube.ordinal.bootstrap(B)`` against the raw
   ``numpy.random.Generator.multinomial`` draw of the same counts (target:
   within 2x), and the whole job (replicates + every metric) against resampling
   rows and recomputing with the library's own cube building,
   ``df.take(rows).ordinal.evaluate(...)`` per replicate (timed on a subset of
   replicates and scaled; target: at least 100x faster).
2. **Paired bootstrap, 4 models x 10^6 samples x 2000 replicates**, confusion
   metrics (``df.ordinal.bootstrap``) and RPS with MAE on the same replicates
   (``df.ordinal.evaluate(..., bootstrap=2000)``): time and peak memory of a
   fresh process (target: at most 4 GiB).
3. **dask.distributed, 10^8 rows**: ``ddf.ordinal.confusion`` on a
   ``LocalCluster`` of 2 worker processes against ``df.ordinal.confusion`` in
   memory: time, and the peak memory of each worker.

Run::

    python benchmarks/bench_bootstrap.py > benchmarks/results_bootstrap.md
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
import xarray as xr
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


def one_model(rows: int, replicates: int, row_subset: int, repeat: int) -> list[str]:
    true, pred = labels(rows, 0)
    frame = pd.DataFrame({"y": true, "yhat": pred})
    cube = frame.ordinal.confusion("y", "yhat")
    p = cube.values.ravel() / rows
    rng = np.random.default_rng(1)
    t_draw = best(lambda: rng.multinomial(rows, p, size=replicates), repeat)
    t_boot = best(lambda: cube.ordinal.bootstrap(replicates, seed=2), repeat)
    boot = cube.ordinal.bootstrap(replicates, seed=2)
    t_metrics = best(lambda: boot.ordinal.evaluate(), repeat)
    picks = np.random.default_rng(3)

    def by_rows():
        for _ in range(row_subset):
            frame.take(picks.integers(0, rows, rows)).ordinal.evaluate("y", "yhat", labels=range(K))

    t_rows = best(by_rows, 1) / row_subset * replicates
    ours = t_boot + t_metrics
    metrics = len(ordframe.list_metrics().query("kind == 'confusion' and status == 'ok'"))
    return [
        f"## 1. One model: {rows:,} predictions, K = {K}, {replicates:,} replicates of all {metrics} confusion metrics",
        "",
        "| step | time | ratio | target |",
        "|---|---|---|---|",
        f"| raw `Generator.multinomial({rows:,}, p, size={replicates:,})` | {t_draw:.3f} s | 1 | |",
        f"| `cube.ordinal.bootstrap({replicates:,})` | {t_boot:.3f} s | {t_boot / t_draw:.2f} x the raw draw | "
        f"<= 2: {'met' if t_boot / t_draw <= 2 else 'NOT met'} |",
        f"| every confusion metric on the replicates (`.ordinal.evaluate()`) | {t_metrics:.3f} s | | |",
        f"| rows resampled and re-evaluated, per replicate x {replicates:,} (timed on {row_subset}) | "
        f"{t_rows:,.0f} s | {t_rows / ours:,.0f} x ordframe's {ours:.2f} s | >= 100: "
        f"{'met' if t_rows / ours >= 100 else 'NOT met'} |",
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
        boot = frame.ordinal.bootstrap("y", "yhat", by="model", sample="sample", n=replicates, seed=0)
        boot.ordinal.evaluate()
    else:
        frame.ordinal.evaluate(
            "y",
            "yhat",
            proba=[f"p{c}" for c in range(K)],
            by="model",
            sample="sample",
            metrics=["rps", "mae"],
            bootstrap=replicates,
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
        ("proba", "RPS and MAE on the same replicates (`evaluate(..., bootstrap=)`)"),
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


def distributed_cube(rows: int, partitions: int) -> list[str]:
    import dask.array as da
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None, memory_limit="8GiB") as cluster,
        Client(cluster) as client,
    ):
        true = da.random.default_rng(0).integers(0, K, rows, chunks=rows // partitions)
        pred = da.random.default_rng(1).integers(0, K, rows, chunks=rows // partitions)
        fold = da.random.default_rng(2).integers(0, 10, rows, chunks=rows // partitions)
        ddf = dd.from_dask_array(da.stack([true, pred, fold], axis=1), columns=["y", "yhat", "fold"])
        start = time.perf_counter()
        cube = ddf.ordinal.confusion("y", "yhat", by="fold", labels=range(K)).compute()
        t_dask = time.perf_counter() - start
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
    frame = pd.DataFrame({"y": np.asarray(true), "yhat": np.asarray(pred), "fold": np.asarray(fold)})
    t_memory = best(lambda: frame.ordinal.confusion("y", "yhat", by="fold", labels=range(K)), 1)
    xr.testing.assert_equal(cube, frame.ordinal.confusion("y", "yhat", by="fold", labels=range(K)))
    shown = ", ".join(f"{p:.2f} GiB" for p in peaks.values())
    return [
        f"## 3. dask.distributed: {rows:,} rows in {partitions} partitions, 2 worker processes, 10 folds",
        "",
        "| path | time | peak memory |",
        "|---|---|---|",
        f"| `ddf.ordinal.confusion` on a LocalCluster (includes generating the rows) | {t_dask:.1f} s | "
        f"per worker: {shown} |",
        f"| `df.ordinal.confusion` in memory (rows already in memory: {frame.memory_usage().sum() / 2**30:.1f} GiB) "
        f"| {t_memory:.1f} s | |",
        "",
        "Both cubes are equal (checked).",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10**6)
    parser.add_argument("--replicates", type=int, default=10**4)
    parser.add_argument("--row-subset", type=int, default=5, help="row-resampled replicates timed (then scaled)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--paired-samples", type=int, default=10**6)
    parser.add_argument("--paired-models", type=int, default=4)
    parser.add_argument("--paired-replicates", type=int, default=2000)
    parser.add_argument("--dask-rows", type=int, default=10**8)
    parser.add_argument("--dask-partitions", type=int, default=100)
    parser.add_argument("--job", choices=["confusion", "proba"], help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.job:
        print(json.dumps(paired_job(args.job, args.paired_samples, args.paired_models, args.paired_replicates)))
        return
    out = ["# Benchmark: bootstrap and distributed cubes", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    out += ["", *one_model(args.rows, args.replicates, args.row_subset, args.repeat)]
    out += paired(args.paired_samples, args.paired_models, args.paired_replicates)
    out += distributed_cube(args.dask_rows, args.dask_partitions)
    out += [
        'Reproduce with `pip install -e ".[bench]"` and '
        "`python benchmarks/bench_bootstrap.py > benchmarks/results_bootstrap.md` (`--help` for sizes)."
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main()
