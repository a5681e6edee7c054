"""Benchmark: the dask DataFrame confusion cube on a 2-worker LocalCluster, against generating the rows and dask's groupby.

The rows are generated inside the graph (``dask.dataframe.from_map``, one
seeded function call per partition), so every job regenerates them and no
job profits from data another left in memory. Columns: int64 ``y`` and
``yhat`` (K = 5 classes), ``model`` (0..3) and ``fold`` (0..24), i.e. 100
groups. Jobs, each the minimum of ``--repeats`` runs, interleaved:

* floor: generate the rows and sum one column (``ddf["y"].sum()``);
* floor': generate and count each partition with one ``numpy.bincount`` of
  combined codes, summed (the cube's counts by hand: every other result is
  checked equal to these);
* ``ddf.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=range(5))``
  (each partition through the pandas front end, partial cubes merged by label);
* the same with the classes inferred (no ``labels=``: one pass, the classes
  are the union of the partitions');
* dask's own ``ddf.groupby(["model", "fold", "y", "yhat"]).size()``.

Target: ordframe no slower than dask's groupby (both cases). The steady state: the client and every worker run
ordframe's compiled routines at every size (``compiling.steady_state``), as once their numpy work has paid for them.

    python benchmarks/bench_dask.py > benchmarks/results_dask.md
    python benchmarks/bench_dask.py --smoke      # 2 x 10^4 rows, the checks only
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time

import numpy as np
import pandas as pd
from machine_info import machine

import ordframe  # noqa: F401  (registers the accessors)
from ordframe._core import compiling

compiling.steady_state()  # every compiled routine at every size, as once a process's numpy work paid for it

K, MODELS, FOLDS = 5, 4, 25
CELLS = MODELS * FOLDS * K * K


def partition(index: int, rows: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng([seed, index])
    y = rng.integers(0, K, rows)
    yhat = np.clip(y + rng.integers(-1, 2, rows), 0, K - 1)
    return pd.DataFrame(
        {"y": y, "yhat": yhat, "model": rng.integers(0, MODELS, rows), "fold": rng.integers(0, FOLDS, rows)}
    )


def partition_counts(part: pd.DataFrame) -> np.ndarray:
    code = ((part["model"].to_numpy() * FOLDS + part["fold"].to_numpy()) * K + part["y"].to_numpy()) * K
    return np.bincount(code + part["yhat"].to_numpy(), minlength=CELLS)


def warm() -> None:
    import importlib

    for module in ("dask.dataframe", "ordframe"):
        importlib.import_module(module)


def sum_arrays(*arrays):
    return np.sum(arrays, axis=0)


def check_cube(cube, expected: np.ndarray) -> None:
    assert cube.dims == ("model", "fold", "true", "pred"), cube.dims
    assert list(cube.coords["model"].values) == list(range(MODELS))
    assert list(cube.coords["fold"].values) == list(range(FOLDS))
    assert list(cube.coords["true"].values) == list(range(K))
    np.testing.assert_array_equal(np.asarray(cube.values).reshape(-1), expected)


def check_sizes(sizes: pd.Series, expected: np.ndarray) -> None:
    index = sizes.index
    model, fold, y, yhat = (index.get_level_values(i).to_numpy() for i in range(4))
    cells = np.zeros(CELLS, np.int64)
    cells[((model * FOLDS + fold) * K + y) * K + yhat] = sizes.to_numpy()
    np.testing.assert_array_equal(cells, expected)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10**8)
    parser.add_argument("--partitions", type=int, default=100)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="2 x 10^4 rows, one run of each: the checks only")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows, args.partitions, args.repeats = 20_000, 2, 1
    assert args.rows % args.partitions == 0, "--partitions must divide --rows"

    import dask
    import dask.dataframe as dd
    from distributed import Client, LocalCluster

    per = args.rows // args.partitions
    load_before = os.getloadavg()
    with (
        LocalCluster(
            n_workers=args.workers, threads_per_worker=1, dashboard_address=None, memory_limit="8GiB"
        ) as cluster,
        Client(cluster) as client,
    ):
        client.run(compiling.steady_state)  # on the workers too
        client.run(warm)  # imports on the workers are not timed
        ddf = dd.from_map(partition, range(args.partitions), rows=per, seed=args.seed, enforce_metadata=False)

        def floor_counts():
            parts = [dask.delayed(partition_counts)(p) for p in ddf.to_delayed()]
            return dask.delayed(sum_arrays)(*parts).compute()

        jobs = {
            "floor: generate + `ddf['y'].sum()`": lambda: ddf["y"].sum().compute(),
            "floor': generate + one `numpy.bincount` per partition, summed": floor_counts,
            '`ddf.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=range(5))`': lambda: (
                ddf.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=range(K)).compute()
            ),
            '`ddf.ordinal.confusion("y", "yhat", by=["model", "fold"])`, classes inferred': lambda: (
                ddf.ordinal.confusion("y", "yhat", by=["model", "fold"])
            ),
            'dask `ddf.groupby(["model", "fold", "y", "yhat"]).size()`': lambda: (
                ddf.groupby(["model", "fold", "y", "yhat"]).size().compute()
            ),
        }
        times: dict[str, list[float]] = {name: [] for name in jobs}
        results: dict[str, object] = {}
        for _ in range(args.repeats):
            for name, job in jobs.items():
                start = time.perf_counter()
                results[name] = job()
                times[name].append(time.perf_counter() - start)
        peaks = client.run(lambda: resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20)
    load_after = os.getloadavg()

    names = list(jobs)
    expected = results[names[1]]
    assert int(results[names[0]]) == int(sum(np.arange(K) * expected.reshape(-1, K, K).sum(axis=(0, 2))))
    assert expected.sum() == args.rows
    check_cube(results[names[2]], expected)
    check_cube(results[names[3]], expected)
    check_sizes(results[names[4]], expected)
    if args.smoke:
        print("bench_dask smoke: both cubes and dask's groupby sizes equal the per-partition bincount counts")
        return 0

    best = {name: min(t) for name, t in times.items()}
    floor, floor2, groupby = best[names[0]], best[names[1]], best[names[4]]
    out = ["# Benchmark: dask DataFrame confusion cubes on a LocalCluster", ""]
    import distributed

    out += ["| machine | |", "|---|---|"] + [
        f"| {k} | {v} |"
        for k, v in machine([("dask / distributed", f"{dask.__version__} / {distributed.__version__}")])
    ]
    out += [
        f"| load average (1 min) before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |",
        "",
        f"Case: {args.rows:,} rows generated inside the graph in {args.partitions} partitions of {per:,} "
        f"(`dask.dataframe.from_map`), int64 `y` / `yhat` (K = {K}), `model` 0..{MODELS - 1}, `fold` 0..{FOLDS - 1} "
        f"({MODELS * FOLDS} groups); `LocalCluster` of {args.workers} worker processes x 1 thread. Wall time, "
        f"minimum (all runs) of {args.repeats} interleaved runs; every job regenerates the rows. Every cube and "
        "dask's group sizes were checked equal to the per-partition bincount counts.",
        "",
        "| job | time | / floor (generate + sum) | / floor' (generate + bincount) | / dask groupby.size (target <= 1) |",
        "|---|---|---|---|---|",
    ]
    for name in names:
        t = best[name]
        verdict = f"**{t / groupby:.2f}**" + (
            f" ({'met' if t <= groupby else 'NOT met'})" if name.startswith("`ddf.ordinal") else ""
        )
        shown = ", ".join(f"{x:.2f}" for x in times[name])
        out.append(f"| {name} | {t:.2f} s ({shown}) | {t / floor:.2f} | {t / floor2:.2f} | {verdict} |")
    out += [
        "",
        f"Peak RSS of each worker process over the whole run: {', '.join(f'{p:.2f} GiB' for p in peaks.values())}.",
        "",
        "Reproduce with `python benchmarks/bench_dask.py > benchmarks/results_dask.md` (`--rows`, `--partitions`, "
        "`--workers`, `--repeats`).",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
