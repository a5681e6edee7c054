"""Benchmark: each built-in confusion metric's numpy kernel against its compiled one, and one pass over the cube.

The compiled kernels (the ``numba`` extra) are twins of the numpy formulations; a twin earns its place only
if it is clearly faster, since its first call also pays numba's compilation (once per machine: the
compiled code is cached on disk). For every built-in confusion metric that declares a compiled kernel
(``Metric.compiled``) this times, on int64 cubes:

* one pass: ``counts.sum()``, one read of the cube (the floor);
* numpy: the metric's kernel as the bridge runs it on counts already validated (``confusion_kernel``):
  the counts converted to float64, then the numpy formulation;
* compiled: the same with the compiled kernel, which reads the int64 counts as they are and checks them
  in the same pass.

Cubes: 1000 stacked matrices at K = 5 and K = 30, and 100,000 at K = 5; counts *sparse*, about 100 per
matrix on the diagonal and its two neighbours (most cells 0), or *dense*, about 1000 per matrix spread over
every cell, heavier on the diagonal. Each time is the minimum over ``--repeat`` rounds of process CPU time
per call (each round loops a call enough times to take at least 20 ms); every round times every variant
once. Ratios: numpy / compiled, and each over one pass in the same run.

``--compile`` also measures what the first call costs: per metric, in a fresh process with an empty
numba cache (``NUMBA_CACHE_DIR``), the CPU time of the bridge's first call on a small int64 cube less a
second call (numba's import excluded): the compilation of the twin and of the kernels it calls.

Every metric's compiled values must equal its numpy values to 1e-12 (relative), or the script fails.

    python benchmarks/bench_compiled.py                      # print the report
    python benchmarks/bench_compiled.py --compile --out benchmarks/results_compiled.md
    python benchmarks/bench_compiled.py --smoke              # tiny sizes, the checks only (seconds)
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
from machine_info import emit, machine

from ordframe._bridge.apply import confusion_kernel, prepare
from ordframe._core import compiling, options
from ordframe._registry.manager import BUILTIN_MODULES, get_metric, list_metrics
from ordframe.metrics import _accelerate

SIZES = ((5, 1000), (30, 1000), (5, 100_000))
SMOKE_SIZES = ((5, 40), (30, 3))
DENSITIES = ("sparse", "dense")
TOLERANCE = 1e-12
PASS = "one pass: counts.sum()"
# A twin is kept when it is at least this much faster, at K = 5 or at K = 30 (1000 matrices, either density).
KEEP = 1.5
DECIDING = ((5, 1000), (30, 1000))


def twins() -> list[str]:
    """The built-in confusion metrics that declare a compiled kernel."""
    table = list_metrics()
    names = table.loc[(table["kind"] == "confusion") & table["plugin"].isin(BUILTIN_MODULES), "name"]
    return sorted(n for n in names if get_metric(n).compiled is not None)


def cube(k: int, m: int, density: str, seed: int = 0) -> np.ndarray:
    """``m`` int64 K x K matrices of Poisson counts: ``sparse`` near the diagonal, or ``dense``."""
    rng = np.random.default_rng(seed + k + m)
    distance = np.abs(np.subtract.outer(np.arange(k), np.arange(k)))
    if density == "sparse":
        rate = np.where(distance == 0, 80.0 / k, np.where(distance == 1, 10.0 / k, 0.0))
    else:
        rate = np.where(distance == 0, 500.0 / k, 500.0 / (k * k - k))
    return rng.poisson(rate, size=(m, k, k)).astype(np.int64)


@contextlib.contextmanager
def compiled_kernels(on: bool):
    """The compiled twins on or off (``options.COMPILED``) inside the block, on at every size."""
    was = options.COMPILED, compiling.COMPILED_SECONDS
    options.COMPILED, compiling.COMPILED_SECONDS = on, 0
    try:
        yield
    finally:
        options.COMPILED, compiling.COMPILED_SECONDS = was


def kernel(name: str, counts: np.ndarray, compiled: bool):
    """The metric's kernel as the bridge runs it on validated counts (it picks the kernel when built)."""
    metric = get_metric(name)
    with compiled_kernels(compiled):
        params = prepare(metric, {}, counts.shape[-1])
        run = confusion_kernel(metric, params, checked=True, cells=counts.size)
    return lambda: run(counts)


def per_call(fn) -> float:
    """Process CPU time of one call, from a loop of at least 20 ms."""
    number = 1
    while True:
        start = time.process_time()
        for _ in range(number):
            fn()
        spent = time.process_time() - start
        if spent >= 0.02:
            return spent / number
        number *= 2 if spent <= 0.002 else max(2, math.ceil(0.025 / max(spent, 1e-9)))


def agree(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    ok = ~np.isnan(b)
    close = np.abs(a[ok] - b[ok]) <= TOLERANCE * np.maximum(1.0, np.abs(b[ok]))
    return np.array_equal(np.isnan(a), np.isnan(b)) and bool(close.all())


def measure(names, sizes, repeat):
    """Per (K, M, density): the minimum time per call of one pass and of each metric, numpy and compiled;
    and the metrics whose two kernels disagree."""
    times, failed = {}, []
    for k, m in sizes:
        for density in DENSITIES:
            counts = cube(k, m, density)
            calls = {PASS: lambda counts=counts: counts.sum()}
            for name in names:
                calls[(name, "numpy")] = kernel(name, counts, False)
                calls[(name, "compiled")] = kernel(name, counts, True)
                if not agree(calls[(name, "compiled")](), calls[(name, "numpy")]()):  # also the warm-up
                    failed.append(f"{name}, K = {k}, {m} {density} matrices: compiled differs from numpy")
            best = dict.fromkeys(calls, math.inf)
            for _ in range(repeat):
                for label, call in calls.items():
                    best[label] = min(best[label], per_call(call))
            times[(k, m, density)] = best
    return times, failed


FIRST_CALL = """
import json, sys, time
import numba  # imported before the clock starts: its import is paid once, whatever is compiled
from ordframe._bridge.apply import confusion_kernel, prepare
from ordframe._core import compiling
from ordframe._registry.manager import get_metric
compiling.steady_state()  # the twin at every size
counts = (__import__("numpy").arange(250) % 7).reshape(10, 5, 5)
metric = get_metric(sys.argv[1])
def call():  # as the bridge does: a probe run on one matrix (prepare), then the stack
    confusion_kernel(metric, prepare(metric, {}, 5), checked=True, cells=counts.size)(counts)
start = time.process_time(); call(); first = time.process_time() - start
start = time.process_time(); call(); again = time.process_time() - start
print(json.dumps(first - again))
"""


def compile_times(names) -> dict[str, float]:
    """Per metric, the seconds its first compiled call costs in a fresh process with an empty numba cache."""
    out = {}
    for name in names:
        with tempfile.TemporaryDirectory() as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache}
            run = subprocess.run([sys.executable, "-c", FIRST_CALL, name], env=env, capture_output=True, text=True)
            if run.returncode:
                raise RuntimeError(f"first call of {name}: {run.stderr}")
            out[name] = json.loads(run.stdout)
    return out


def verdict(name, times) -> str:
    """``keep`` if the compiled kernel is at least ``KEEP`` times faster in one of the ``DECIDING`` cells."""
    cells = [(k, m, d) for k, m in DECIDING for d in DENSITIES if (k, m, d) in times]
    best = max(times[c][(name, "numpy")] / times[c][(name, "compiled")] for c in cells)
    return "keep" if best >= KEEP else "remove"


def report(names, sizes, times, first_calls, load) -> str:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

    lines = ["# Compiled kernels against their numpy twins, and one pass over the cube", ""]
    rows = machine([("kernels", f"numba {_accelerate.numba_version()}"), ("load average before / after", load)])
    lines += ["| | |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows), ""]
    lines.append(
        "int64 cubes; sparse: about 100 counts per matrix on the diagonal and its neighbours, dense: about 1000 "
        "over every cell. Process CPU time per call, minimum over the repeats; numpy/compiled is the speed-up "
        "of the compiled kernel, `/ pass` a time over one pass (`counts.sum()`) in the same run. A twin is kept "
        f"if it is at least {KEEP}x faster at K = 5 or at K = 30 (1000 matrices, either density)."
    )
    lines.append("")
    cells = [(k, m, d) for k, m in sizes for d in DENSITIES]
    head = "| metric |" + "".join(f" K={k}, {m:,} {d}: numpy/compiled (numpy, compiled / pass) |" for k, m, d in cells)
    lines += [head + " verdict |", "|---|" + "---|" * (len(cells) + 1)]
    pass_row = "| one pass (us) |" + "".join(f" {times[c][PASS] * 1e6:.1f} |" for c in cells) + " |"
    lines.append(pass_row)
    for name in names:
        row = f"| {name} |"
        for c in cells:
            t, floor = times[c], times[c][PASS]
            fast, slow = t[(name, "compiled")], t[(name, "numpy")]
            row += f" **{slow / fast:.2f}x** ({slow / floor:.1f}, {fast / floor:.1f}) |"
        lines.append(row + f" {verdict(name, times)} |")
    lines.append("")
    if first_calls:
        lines += [
            "First call of each twin in a fresh process with an empty numba cache (CPU seconds, numba's import "
            "excluded; twins that share a compiled kernel each pay it here, once in a process):",
            "",
        ]
        lines += ["| metric | first call (s) |", "|---|---|"]
        lines += [f"| {n} | {first_calls[n]:.2f} |" for n in names]
        lines.append("")
    return "\n".join(lines) + "\n"


def load_average() -> str:
    return "{:.2f}, {:.2f}, {:.2f}".format(*os.getloadavg())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--compile", action="store_true", help="also time each metric's first call (fresh cache)")
    parser.add_argument("--out", help="also write the report to this file")
    parser.add_argument("--smoke", action="store_true", help="tiny stacks, one repeat: the checks only (seconds)")
    args = parser.parse_args(argv)
    if not options.COMPILED:
        print("bench_compiled: numba is not installed (or ORDFRAME_NUMBA=0): nothing to compare")
        return 0
    names = twins()
    sizes, repeat = (SMOKE_SIZES, 1) if args.smoke else (SIZES, args.repeat)
    load_before = load_average()
    times, failed = measure(names, sizes, repeat)
    first_calls = compile_times(names) if args.compile and not args.smoke else {}
    for line in failed:
        print("FAILED:", line, file=sys.stderr)
    if args.smoke:
        print(f"bench_compiled smoke: {len(names)} compiled kernels agree with their numpy twins")
        return 1 if failed else 0
    text = report(names, sizes, times, first_calls, f"{load_before} / {load_average()}")
    emit(text, args.out)
    return 1 if failed else 0


if __name__ == "__main__":
    with contextlib.suppress(BrokenPipeError):
        sys.exit(main())
