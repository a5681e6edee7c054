"""Benchmark: r_int and George's d on stacks of confusion matrices.

Compares ordframe's vectorised kernels with per-matrix Python loop ports of
the published formulas (r_int: the corrected quadruple sum of Pinto da Costa,
Alonso & Cardoso as written; d: the cost matrix, TC, max TC and d of George,
Lu & Chang (2016), computed matrix by matrix), then reports the time per
matrix against the stack size and against K.

    python benchmarks/bench_rint_d.py                  # print the report
    python benchmarks/bench_rint_d.py --out FILE.md    # also write it
    python benchmarks/bench_rint_d.py --smoke          # tiny sizes, the checks only (seconds)

The ratio that counts is against the strongest loop: for r_int an O(K^2) loop
(the quadruple sum through 2-D suffix sums), beside the quadruple sum as
written (O(K^4), the baseline of earlier reports); d's loop is O(K^2) already.

The loops are timed on a subset of the stack and scaled per matrix (they run
in the same process, on the same matrices, interleaved with the kernels).
Every time is the minimum over several rounds, and each round times every
variant once, because other jobs may share the machine.
"""

from __future__ import annotations

import argparse
import datetime
import math
import os
import platform
import subprocess
import time

import numpy as np
import xarray as xr
from machine_info import emit

import ordframe  # noqa: F401  (registers the accessors)
from ordframe._core import options
from ordframe._registry.manager import get_metric

# The kernels that run on large stacks: the compiled twins with the numba extra, else the numpy ones.
d, rint = (get_metric(name).kernel(math.inf) for name in ("d", "rint"))


def rint_loop(m):
    """Pinto da Costa, Alonso & Cardoso's corrected final expression, four nested loops per matrix."""
    k = len(m)
    n = sum(map(sum, m))
    rows = [sum(m[i]) for i in range(k)]
    cols = [sum(m[i][j] for i in range(k)) for j in range(k)]
    both = 0.0
    for i in range(k):
        for j in range(k):
            for a in range(i, k):
                for b in range(j, k):
                    both += m[i][j] * m[a][b]
    s1 = sum(rows[i] * rows[j] for i in range(k) for j in range(i, k)) - n
    s2 = sum(cols[i] * cols[j] for i in range(k) for j in range(i, k)) - n
    return -1.0 + 2.0 * (both - n) / math.sqrt(s1 * s2)


def rint_suffix_loop(m):
    """The same r_int with the quadruple sum as sum m[i][j] * S[i][j], S the 2-D suffix sums: O(K^2) per matrix."""
    k = len(m)
    n = sum(map(sum, m))
    rows = [sum(m[i]) for i in range(k)]
    cols = [sum(m[i][j] for i in range(k)) for j in range(k)]
    suffix = [0.0] * (k + 1)  # S of the row below, one extra column of zeros
    both = 0.0
    for i in range(k - 1, -1, -1):
        row = [0.0] * (k + 1)
        for j in range(k - 1, -1, -1):
            row[j] = m[i][j] + row[j + 1] + suffix[j] - suffix[j + 1]
            both += m[i][j] * row[j]
        suffix = row
    s1 = sum(rows[i] * rows[j] for i in range(k) for j in range(i, k)) - n
    s2 = sum(cols[i] * cols[j] for i in range(k) for j in range(i, k)) - n
    return -1.0 + 2.0 * (both - n) / math.sqrt(s1 * s2)


def d_loop(m):
    """George, Lu & Chang (2016) eqs. 4-7 for one matrix (rows = true): cost, TC, max TC, MC, d."""
    k = len(m)
    sizes = [sum(row) for row in m]
    n = sum(sizes)
    cost = [[(n - sizes[t]) / sizes[p] * abs(t - p) for p in range(k)] for t in range(k)]
    tc = sum(cost[t][p] * m[t][p] for t in range(k) for p in range(k))
    max_tc = sum(sizes[t] * max(cost[t][p] for p in range(k) if p != t) for t in range(k))
    acc = sum(m[t][t] for t in range(k)) / n
    return math.hypot(1.0 - acc, tc / max_tc)


def loop(port, counts):
    return np.array([port(matrix.tolist()) for matrix in counts])


def best(fns, repeat):
    """The minimum time of each function over ``repeat`` rounds; each round runs every function once,
    so a change in the machine's load affects all of them alike."""
    times = [math.inf] * len(fns)
    for _ in range(repeat):
        for i, fn in enumerate(fns):
            start = time.perf_counter()
            fn()
            times[i] = min(times[i], time.perf_counter() - start)
    return times


def stack(n, k, rng):
    """Random count matrices with every true class observed (d's default cost needs it)."""
    counts = rng.poisson(4.0, size=(n, k, k)).astype(np.float64)
    counts[..., np.arange(k), np.arange(k)] += 1.0
    return counts


def machine() -> str:
    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout.splitlines()[:15]
    except (OSError, subprocess.CalledProcessError):
        lscpu = [platform.processor() or "lscpu unavailable"]
    return "\n".join(
        [
            f"date: {datetime.datetime.now().isoformat(timespec='seconds')}",
            f"python {platform.python_version()}, numpy {np.__version__}, xarray {xr.__version__}",
            *lscpu,
        ]
    )


def run(n_matrices=10**5, loop_subset=2000, repeat=5, smoke=False) -> str:
    rng = np.random.default_rng(0)
    out = [
        "# r_int and George's d: benchmark results",
        "",
        "Produced by `python benchmarks/bench_rint_d.py > benchmarks/results_rint_d.md`.",
        "",
        "```",
        machine(),
        f"load average at start: {os.getloadavg()[0]:.2f}",
        "```",
        "",
        "Every time is the minimum over rounds that time each variant once, so ratios compare",
        "measurements taken under the same load. With the `numba` extra the kernels are compiled",
        "(`ordframe.metrics._accelerate`, one pass per matrix); without it they process the stack in",
        "cache-sized blocks (`ordframe.metrics._matrix.in_blocks`) with the class axes first",
        "(`classes_first`). Either way the time per matrix stays flat as the stack grows.",
        f"Kernels: {'numba' if options.COMPILED else 'numpy only'}.",
        "",
    ]

    counts = stack(n_matrices, 5, rng)
    subset = counts[:loop_subset]
    cube = xr.DataArray(counts, dims=("replicate", "true", "pred"))
    out += [
        f"## Vectorised kernels vs per-matrix Python loops ({n_matrices:,} matrices, K = 5)",
        "",
        f"The loops run on the first {loop_subset:,} matrices and are scaled per matrix to the full stack; "
        "both give the same values there (checked).",
        "",
        "| index | loop port (s, scaled) | kernel (s) | `cube.ordinal.<index>()` (s) | kernel speed-up | accessor speed-up |",
        "|---|---|---|---|---|---|",
    ]
    for name, kernel, port, label in (
        ("rint", rint, rint_suffix_loop, "O(K^2) loop, suffix sums"),
        ("rint", rint, rint_loop, "quadruple sum as written, O(K^4) (older baseline)"),
        ("d", d, d_loop, "O(K^2) loop"),
    ):
        np.testing.assert_allclose(kernel(subset), loop(port, subset), rtol=1e-10)
        t_loop, t_kernel, t_cube = best(
            [lambda: loop(port, subset), lambda: kernel(counts), lambda: getattr(cube.ordinal, name)()], repeat
        )
        t_loop *= n_matrices / loop_subset
        out.append(
            f"| {name}: {label} | {t_loop:.2f} | {t_kernel:.4f} | {t_cube:.4f} | **{t_loop / t_kernel:,.0f}x** | "
            f"{t_loop / t_cube:,.0f}x |"
        )

    sizes = (10**3, 10**4) if smoke else (10**3, 10**4, 10**5, 10**6)
    blocks = {n: stack(n, 5, rng) for n in sizes}
    times = best([lambda b=blocks[n], f=kernel: f(b) for n in sizes for kernel in (rint, d)], repeat)
    out += [
        "",
        "## Time per matrix vs stack size (K = 5, kernel)",
        "",
        "| matrices | rint (ns / matrix) | d (ns / matrix) |",
        "|---|---|---|",
    ]
    for i, n in enumerate(sizes):
        out.append(f"| {n:,} | {times[2 * i] / n * 1e9:.0f} | {times[2 * i + 1] / n * 1e9:.0f} |")
    del blocks

    n_k, ks = (10**3, (3, 10)) if smoke else (10**4, (3, 5, 7, 10, 15, 20, 30, 40, 50))
    blocks = {k: stack(n_k, k, rng) for k in ks}
    times = best([lambda b=blocks[k], f=kernel: f(b) for k in ks for kernel in (rint, d)], repeat)
    out += [
        "",
        f"## Time per matrix vs K ({n_k:,} matrices, kernel)",
        "",
        "Per-cell time (time / K^2) staying roughly constant is the O(K^2) cost.",
        "",
        "| K | rint (us / matrix) | rint (ns / cell) | d (us / matrix) | d (ns / cell) |",
        "|---|---|---|---|---|",
    ]
    for i, k in enumerate(ks):
        per = [times[2 * i] / n_k, times[2 * i + 1] / n_k]
        out.append(
            f"| {k} | {per[0] * 1e6:.2f} | {per[0] / k**2 * 1e9:.1f} | {per[1] * 1e6:.2f} | {per[1] / k**2 * 1e9:.1f} |"
        )
    return "\n".join(out) + "\n"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", help="also write the markdown report to this file")
    parser.add_argument("--matrices", type=int, default=10**5)
    parser.add_argument("--loop-subset", type=int, default=2000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat: the checks only (seconds)")
    args = parser.parse_args()
    if args.smoke:
        run(2000, 50, 1, smoke=True)
        print("bench_rint_d smoke: the kernels equal the O(K^2) and O(K^4) loops")
        return
    report = run(args.matrices, args.loop_subset, args.repeat)
    emit(report, args.out)


if __name__ == "__main__":
    main()
