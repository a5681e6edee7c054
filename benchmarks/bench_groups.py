"""Benchmark: grouping with ``observed=True`` (the group combinations that occur), against a bincount and pandas.

``by=["a", "b"]`` over int64 columns, K = 5 int64 labels. Cases:

* 10^5 groups (a: 1000 values x b: 100), 10^6 groups (1000 x 1000), and 10^6
  groups that occur out of 10^12 combinations (a and b: 10^6 wide-spread values
  each), on ``--rows`` rows;
* 100 groups (10 x 10) on ``--big-rows`` rows (the case that took 21 s and
  +4.7 GB when the combinations were sorted).

Per case, interleaved, minimum of ``--repeats`` (process CPU time; wall time
beside it):

* grouping: ordframe's ``Groups(..., observed=True)`` over the coded columns
  (the ``group_column`` coding is timed apart) against one ``numpy.bincount``
  of a precomputed group code (the floor; target: at most 6x), pandas
  ``groupby(["a", "b"]).size()``, and the sort-based coding it replaced
  (``np.unique`` with inverse; not on the big case);
* the cube: ``df.ordinal.confusion("y", "yhat", by=["a", "b"], observed=True)``
  (classes inferred, and with ``labels=``) against one ``numpy.bincount`` of
  precomputed cell codes and pandas ``groupby(["a", "b", "y", "yhat"]).size()``.

Memory: the tracemalloc peak (numpy reports its buffers) of the grouping and
of the cube call, against one int64 column (8 bytes a row). Checks: the group
positions, the combinations, the cubes and pandas' sizes all equal the
bincount counts.

    python benchmarks/bench_groups.py > benchmarks/results_groups.md
    python benchmarks/bench_groups.py --smoke      # tiny sizes, the checks only
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import time
import tracemalloc
import warnings

import numpy as np
import pandas as pd
from machine_info import machine

import ordframe  # noqa: F401  (registers the accessors)
from ordframe._core import compiling
from ordframe._inputs.groups import Groups, group_column

compiling.steady_state()  # every compiled routine at every size, as once a process's numpy work paid for it

K = 5
TARGET = 6


def sorted_coding(columns):
    """The sort-based coding that ``observed=True`` used before (``np.unique`` with inverse), for comparison."""
    flat, size = np.zeros(len(columns[0].codes), np.int64), 1
    for column in columns:
        n = len(column.coord)
        if size * n >= 2**62:
            uniques, flat = np.unique(flat, return_inverse=True)
            size = len(uniques)
        flat = flat * n + (column.codes - column.offset)
        size *= n
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    return inverse.reshape(-1), np.stack([c.codes[first] - c.offset for c in columns], axis=1)


def make_case(kind: str, rows: int, seed: int):
    """(frame, group code 0..G-1 in the order of (a, b), G)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, rows)
    yhat = np.clip(y + rng.integers(-1, 2, rows), 0, K - 1)
    if kind == "sparse":  # 10^6 groups; a and b each 10^6 values far apart: 10^12 combinations
        groups = 10**6
        g = rng.integers(0, groups, rows)
        a, b = g * 3_000_017 + 10**9, (g * 7919) % groups * 1_000_003
    else:
        na, nb = {"1e5": (1000, 100), "1e6": (1000, 1000), "100": (10, 10)}[kind]
        a, b = rng.integers(0, na, rows), rng.integers(0, nb, rows)
        g, groups = a * nb + b, na * nb
    return pd.DataFrame({"y": y, "yhat": yhat, "a": a, "b": b}), g, groups


def cpu_wall(func, repeats: int):
    best_cpu, best_wall, result = np.inf, np.inf, None
    for _ in range(repeats):
        result = None
        gc.collect()
        cpu, wall = time.process_time(), time.perf_counter()
        result = func()
        best_cpu, best_wall = min(best_cpu, time.process_time() - cpu), min(best_wall, time.perf_counter() - wall)
    return best_cpu, best_wall, result


def hashing_floor(columns, rows: int, repeats: int):
    """``cpu_wall`` of one ``pandas.factorize`` of the precomputed combined group code (its result dropped)."""
    combined = Groups(columns).flat_index(rows)
    cpu, wall, _ = cpu_wall(lambda: pd.factorize(combined), repeats)
    return cpu, wall, None


def traced_peak(func) -> int:
    gc.collect()
    tracemalloc.start()
    try:
        func()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def check_groups(groups: Groups, floor: np.ndarray, occurring: np.ndarray, groups_total: int, kind: str) -> None:
    (inverse,), sizes, _ = groups.counting()
    assert sizes == [len(occurring)]
    np.testing.assert_array_equal(np.bincount(inverse, minlength=len(occurring)), floor[occurring])
    a, b = (np.asarray(c.coord)[codes] for c, codes in zip(groups.columns, groups._combos.T))
    if kind == "sparse":
        np.testing.assert_array_equal(a, occurring * 3_000_017 + 10**9)
        np.testing.assert_array_equal(b, (occurring * 7919) % groups_total * 1_000_003)
    else:
        np.testing.assert_array_equal(a * (groups_total // (a.max() + 1)) + b, occurring)


def check_cube(cube, cells: np.ndarray, occurring: np.ndarray) -> None:
    assert cube.dims == ("group", "true", "pred"), cube.dims
    np.testing.assert_array_equal(cube.values, cells.reshape(-1, K, K)[occurring])


def check_pandas(sizes: pd.Series, floor: np.ndarray, occurring: np.ndarray) -> None:
    np.testing.assert_array_equal(sizes.to_numpy(), floor[occurring])


def check_pandas_cube(sizes: pd.Series, cells: np.ndarray, kind: str, total: int) -> None:
    a, b, y, yhat = (sizes.index.get_level_values(i).to_numpy() for i in range(4))
    g = (a - 10**9) // 3_000_017 if kind == "sparse" else a * (total // (a.max() + 1)) + b
    found = np.zeros_like(cells)
    found[(g * K + y) * K + yhat] = sizes.to_numpy()
    np.testing.assert_array_equal(found, cells)


def run_case(kind: str, rows: int, repeats: int, seed: int, before: bool) -> dict:
    df, g, total = make_case(kind, rows, seed)
    cells = (g * K + df["y"].to_numpy()) * K + df["yhat"].to_numpy()
    t = {}
    t["floor"] = cpu_wall(lambda: np.bincount(g, minlength=total), repeats)
    floor = t["floor"][2]
    occurring = np.flatnonzero(floor)
    t["cell floor"] = cpu_wall(lambda: np.bincount(cells, minlength=total * K * K), repeats)
    cell_counts = t["cell floor"][2]
    t["coding"] = cpu_wall(lambda: [group_column(c, df[c]) for c in ("a", "b")], repeats)
    columns = t["coding"][2]
    t["factorize"] = hashing_floor(columns, rows, repeats)
    t["groups"] = cpu_wall(lambda: Groups(columns, observed=True), repeats)
    check_groups(t["groups"][2], floor, occurring, total, kind)
    if before:
        t["sorted"] = cpu_wall(lambda: sorted_coding(columns), 1)
        inverse, _ = t["sorted"][2]
        np.testing.assert_array_equal(inverse, t["groups"][2].counting()[0][0])
    t["pandas groups"] = cpu_wall(lambda: df.groupby(["a", "b"]).size(), repeats)
    check_pandas(t["pandas groups"][2], floor, occurring)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # groups lacking a class: the data are random
        t["cube"] = cpu_wall(lambda: df.ordinal.confusion("y", "yhat", by=["a", "b"], observed=True), repeats)
        check_cube(t["cube"][2], cell_counts, occurring)
        labelled = lambda: df.ordinal.confusion("y", "yhat", by=["a", "b"], labels=range(K), observed=True)  # noqa: E731
        t["cube labels"] = cpu_wall(labelled, repeats)
        check_cube(t["cube labels"][2], cell_counts, occurring)
        t["pandas cube"] = cpu_wall(lambda: df.groupby(["a", "b", "y", "yhat"]).size(), repeats)
        check_pandas_cube(t["pandas cube"][2], cell_counts, kind, total)
        memory = {
            "groups": traced_peak(lambda: Groups(columns, observed=True)),
            "cube": traced_peak(labelled),
        }
    return {"kind": kind, "rows": rows, "groups": len(occurring), "space": _space(columns), "t": t, "memory": memory}


def _space(columns) -> int:
    out = 1
    for c in columns:
        out *= len(c.coord)
    return out


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--big-rows", type=int, default=10**8, help="rows of the 100-group case")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run: the checks only")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows, args.big_rows, args.repeats = 20_000, 50_000, 1

    load_before = os.getloadavg()
    results = [run_case(kind, args.rows, args.repeats, args.seed, True) for kind in ("1e5", "1e6", "sparse")]
    results.append(run_case("100", args.big_rows, args.repeats, args.seed, args.smoke))
    load_after = os.getloadavg()
    if args.smoke:
        print("bench_groups smoke: group positions, combinations, cubes and pandas' sizes equal the bincount counts")
        return 0

    out = ["# Benchmark: grouping with `observed=True`", ""]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine()]
    out += [
        f"| load average (1 min) before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |",
        "",
        f'`by=["a", "b"]` over int64 columns, K = {K} int64 labels. Process CPU time, minimum of {args.repeats} '
        "runs (wall time in brackets); the sort-based coding ran once. Every result was checked equal to the "
        "bincount counts.",
        "",
        "## Grouping: the combinations that occur, and each row's position among them",
        "",
        f"Floor: one `numpy.bincount` of a precomputed int64 group code. Target: `Groups(observed=True)` <= {TARGET}x "
        "the floor at any group count; its memory (tracemalloc peak, the per-row positions included) <= one int64 "
        "column. Beside it, the cost of hashing alone: one `pandas.factorize` of the combined group code (precomputed, "
        "as for the floor). Where the product of the columns' sizes exceeds the rows, the combinations are hashed, "
        "and no grouping can be faster than that hash.",
        "",
        "| case | rows | floor | `Groups(observed=True)` | / floor | memory / one int64 column | "
        "`pandas.factorize` of the combined code | / floor | "
        "`group_column` coding of a, b | sort-based (before) | / floor | pandas `groupby([a, b]).size()` | / floor |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    names = {
        "1e5": "10^5 groups (1000 x 100)",
        "1e6": "10^6 groups (1000 x 1000)",
        "sparse": "10^6 groups of 10^12 combinations (hashed)",
        "100": "100 groups (10 x 10)",
    }
    for r in results:
        t, floor = r["t"], r["t"]["floor"][0]
        ratio = t["groups"][0] / floor
        memory = r["memory"]["groups"] / (8 * r["rows"])
        before = (
            (f"{fmt(t['sorted'][0])} ({fmt(t['sorted'][1])})", f"{t['sorted'][0] / floor:.1f}")
            if "sorted" in t
            else ("not run", "")
        )
        out.append(
            f"| {names[r['kind']]} | {r['rows']:,} | {fmt(floor)} ({fmt(t['floor'][1])}) | "
            f"{fmt(t['groups'][0])} ({fmt(t['groups'][1])}) | **{ratio:.1f}** ({'met' if ratio <= TARGET else 'NOT met'}) | "
            f"{memory:.2f} ({'met' if memory <= 1 else 'NOT met'}) | {fmt(t['factorize'][0])} | "
            f"{t['factorize'][0] / floor:.1f} | {fmt(t['coding'][0])} | {before[0]} | {before[1]} | "
            f"{fmt(t['pandas groups'][0])} | {t['pandas groups'][0] / floor:.1f} |"
        )
    out += [
        "",
        '## The cube: `df.ordinal.confusion("y", "yhat", by=["a", "b"], observed=True)`',
        "",
        "Floor: one `numpy.bincount` of precomputed int64 cell codes. Memory: the tracemalloc peak of the call "
        "with `labels=`.",
        "",
        "| case | rows | floor | classes inferred | / floor | `labels=range(5)` | / floor | memory / one int64 column | "
        "pandas `groupby([a, b, y, yhat]).size()` | / floor |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        t, floor = r["t"], r["t"]["cell floor"][0]
        out.append(
            f"| {names[r['kind']]} | {r['rows']:,} | {fmt(floor)} ({fmt(t['cell floor'][1])}) | "
            f"{fmt(t['cube'][0])} ({fmt(t['cube'][1])}) | **{t['cube'][0] / floor:.1f}** | "
            f"{fmt(t['cube labels'][0])} ({fmt(t['cube labels'][1])}) | **{t['cube labels'][0] / floor:.1f}** | "
            f"{r['memory']['cube'] / (8 * r['rows']):.2f} | {fmt(t['pandas cube'][0])} | "
            f"{t['pandas cube'][0] / floor:.1f} |"
        )
    out += [
        "",
        "Reproduce with `python benchmarks/bench_groups.py > benchmarks/results_groups.md` (`--rows`, `--big-rows`, "
        "`--repeats`, `--seed`).",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
