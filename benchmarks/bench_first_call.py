"""Benchmark: the first call of each built-in metric in a fresh environment, against ``import pandas, xarray``.

A new user, CI runner or container starts with an empty numba cache. This times, in fresh processes:

* the baseline: ``python -c "import pandas, xarray"``;
* per built-in metric: ``import ordframe`` and a first ``ordframe.<name>(y_true, y_pred)`` (``y_proba`` for a
  probability metric) on 100 samples of 5 classes, with an empty numba cache (a new ``NUMBA_CACHE_DIR``
  each time): what the first call costs, compilation included.

Each is the minimum over ``--repeat`` rounds of the child's CPU time (user + system, interpreter start-up
included); every round runs every case once, the baseline first. ``--baseline DIR`` also runs the
metrics on the ``ordframe/`` in DIR (e.g. ``git archive main ordframe | tar -x -C DIR``) in the same rounds.

``--threshold`` measures what the rule of ``_core/compiling.py`` rests on (``COMPILED_SECONDS``, and each
routine's cost per unit: ``NUMPY_SECONDS_PER_CELL``, ``NUMPY_SECONDS_PER_ROW``, ``STRING_SECONDS``): per family of
compiled twins, the twin's first call in a fresh process with numba's cache warm (numba's import and the load,
less a second call), and, in this process, the numpy kernel and the twin per count on 10^5 stacked 5 x 5
matrices; the same for the count of rows (numpy's and the compiled one per row, on ``ROWS`` rows of a group, a
fold and two label columns, as ``bench_small``'s cube) and for the coder of arrow strings (pyarrow's lookup and
the compiled coder per row); the work that would pay for each first call (the break-even).

Every first call's value must equal this process's value of the same call to 1e-12, or the script fails.

    python benchmarks/bench_first_call.py --threshold --baseline DIR --out benchmarks/results_first_call.md
    python benchmarks/bench_first_call.py --smoke     # two metrics, one round: the checks only
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time
import timeit

import numpy as np
from machine_info import emit, machine

from ordframe._core import compiling, options
from ordframe._inputs import classes, counting
from ordframe._registry import metric as declaration
from ordframe._registry.manager import BUILTIN_MODULES, get_metric, list_metrics

BASELINE = "import pandas, xarray"
N, K = 100, 5
TOLERANCE = 1e-12
CALL = f"""
import json, sys
import ordframe
y_true = [(i * 3) % {K} for i in range({N})]
y_pred = [(i * 3 + (i % 7 == 0) - (i % 11 == 0)) % {K} for i in range({N})]
y_proba = [[0.6 if c == t else 0.4 / ({K} - 1) for c in range({K})] for t in y_pred]
metric = ordframe.get_metric(sys.argv[1])
print(json.dumps(float(getattr(ordframe, sys.argv[1])(y_true, y_pred if metric.kind == "confusion" else y_proba))))
"""
# One metric per compiled kernel of ``metrics/_accelerate.py`` (the others share it).
FAMILIES = ("mae", "oc", "rint", "gerrity", "cem_ord", "amae", "d")
WARM_FIRST = """
import json, sys, time
import numpy as np
from ordframe._registry.manager import get_metric
twin = get_metric(sys.argv[1]).compiled
counts = np.ones((1, 5, 5), np.int64)
start = time.process_time(); twin(counts); first = time.process_time() - start
start = time.process_time(); twin(counts); again = time.process_time() - start
print(json.dumps(first - again))
"""

# The count's and the coder's first compiled call, less a second one (numba imported inside the clock, as for a
# twin: whichever compiled routine runs first in a process pays for it).
ROUTINE_FIRST = """
import json, sys, time
import numpy as np, pandas as pd, pyarrow as pa, pyarrow.compute
from ordframe._core import compiling
from ordframe._inputs import classes, counting
compiling.steady_state()
if sys.argv[1] == "count":
    codes = [np.zeros(8, np.int64)] * 4
    call = lambda: counting.count_cells(codes, [1, 1, 1, 1])
else:
    column = classes.labels_of("y", pd.Series(["lo", "hi"] * 4, dtype=pd.ArrowDtype(pa.string())))
    call = lambda: classes._arrow_string_codes(column, pd.Index(["lo", "hi"]), np.int8)
start = time.process_time(); call(); first = time.process_time() - start
start = time.process_time(); call(); again = time.process_time() - start
print(json.dumps(first - again))
"""
ROWS = 100_000


def builtin() -> list[str]:
    table = list_metrics()
    return sorted(table.loc[table["plugin"].isin(BUILTIN_MODULES), "name"])


def child(args: list[str], env: dict | None = None) -> tuple[float, str]:
    """A fresh interpreter's CPU time (user + system) and its standard output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run([sys.executable, *args], env=env, capture_output=True, text=True, cwd=tempfile.gettempdir())
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode:
        raise SystemExit(f"{args} failed:\n{done.stderr}")
    spent = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return spent, done.stdout


def first_call(name: str, tree: str) -> tuple[float, float]:
    """CPU time of a fresh process's import and first call of ``name`` with an empty numba cache; its value."""
    with tempfile.TemporaryDirectory() as cache:
        env = {**os.environ, "NUMBA_CACHE_DIR": cache, "PYTHONPATH": tree}
        spent, out = child(["-c", CALL, name], env)
    return spent, json.loads(out)


def expected(name: str) -> float:
    scope: dict = {}
    exec(CALL.replace("print(", "value = (").replace("sys.argv[1]", repr(name)), scope)
    return json.loads(scope["value"])


def least_cpu(run, repeat: int) -> float:
    """The least CPU time of ``repeat`` calls of ``run``, after one not timed."""
    run()
    return min(timeit.repeat(run, timer=time.process_time, repeat=repeat, number=1))


def routines(repeat: int) -> list[tuple[str, float, float, float]]:
    """The count and the string coder: the first compiled call with a warm cache (s), the numpy (pyarrow)
    formulation and the compiled one per row (ns)."""
    import pandas as pd
    import pyarrow as pa

    rng = np.random.default_rng(0)
    codes = [rng.integers(0, n, ROWS) for n in (4, 25, 5, 5)]
    texts = pd.Series(rng.choice(["lo", "low", "mid", "high", "very high"], ROWS), dtype=pd.ArrowDtype(pa.string()))
    column = classes.labels_of("y", texts)
    order = pd.Index(["lo", "low", "mid", "high", "very high"])
    calls = {
        "count (`NUMPY_SECONDS_PER_ROW`)": lambda: counting.count_cells(codes, [4, 25, 5, 5]),
        "string coder (`STRING_SECONDS`)": lambda: classes._arrow_string_codes(column, order, np.int8),
    }
    env = {**os.environ, "PYTHONPATH": os.path.dirname(os.path.dirname(os.path.abspath(__file__)))}
    rows = []
    for (name, call), which in zip(calls.items(), ("count", "coder")):
        child(["-c", ROUTINE_FIRST, which], env)  # numba's cache filled
        first = min(json.loads(child(["-c", ROUTINE_FIRST, which], env)[1]) for _ in range(repeat))
        per = []
        for seconds in (math.inf, 0):  # numpy's formulation (a budget never reached), then the compiled one
            saved = compiling.COMPILED_SECONDS, compiling.SPENT
            compiling.COMPILED_SECONDS, compiling.SPENT = seconds, {}
            try:
                per.append(least_cpu(call, repeat) / ROWS * 1e9)
            finally:
                compiling.COMPILED_SECONDS, compiling.SPENT = saved
        rows.append((name, first, per[0], per[1]))
    return rows


def threshold(repeat: int) -> list[tuple[str, float, float, float]]:
    """Per family: the twin's first call with a warm cache (s), the numpy kernel and the twin per count (ns)."""
    from ordframe._bridge.apply import confusion_kernel, prepare

    rows = []
    counts = np.random.default_rng(0).poisson(40.0, size=(100_000, 5, 5))
    tree = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "PYTHONPATH": tree}
    child(["-c", WARM_FIRST, FAMILIES[0]], env)  # numba's cache filled (as on a machine that ran them once)
    for name in FAMILIES:
        child(["-c", WARM_FIRST, name], env)
        first = min(json.loads(child(["-c", WARM_FIRST, name], env)[1]) for _ in range(repeat))
        metric = get_metric(name)
        params = prepare(metric, {}, 5)
        per = []
        for seconds in (math.inf, 0):  # the numpy kernel (a threshold never reached), then the twin
            saved, compiling.COMPILED_SECONDS = compiling.COMPILED_SECONDS, seconds
            try:
                run = confusion_kernel(metric, params, checked=True, cells=counts.size)
            finally:
                compiling.COMPILED_SECONDS = saved
            per.append(least_cpu(lambda run=run: run(counts), repeat) / counts.size * 1e9)
        rows.append((name, first, per[0], per[1]))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--baseline", help="an ordframe source tree (its parent directory) to time beside this one")
    parser.add_argument("--threshold", action="store_true", help="also measure the break-even of the compiled twins")
    parser.add_argument("--out", help="also write the report to this file")
    parser.add_argument("--smoke", action="store_true", help="two metrics, one round: the checks only")
    args = parser.parse_args()
    names = ["mae", "rps"] if args.smoke else builtin()
    repeat = 1 if args.smoke else args.repeat
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    trees = {"this tree": here, **({"before": os.path.abspath(args.baseline)} if args.baseline else {})}
    load = os.getloadavg()
    best: dict = {}
    for _ in range(repeat):
        best[BASELINE] = min(best.get(BASELINE, math.inf), child(["-c", BASELINE])[0])
        for label, tree in trees.items():
            for name in names:
                spent, value = first_call(name, tree)
                want = expected(name)
                if not (math.isnan(want) and math.isnan(value)) and abs(value - want) > TOLERANCE * max(1, abs(want)):
                    raise SystemExit(f"{name} ({label}): the first call gave {value!r}, this process {want!r}")
                best[(label, name)] = min(best.get((label, name), math.inf), spent)
    if args.smoke:
        print(f"bench_first_call smoke: {names} in fresh processes equal this process's values")
        return
    rows = threshold(repeat) if args.threshold else []
    others = routines(repeat) if args.threshold else []
    kernels = ("numba " + __import__("numba").__version__) if options.COMPILED else "numpy only"
    loads = " / ".join(", ".join(f"{x:.2f}" for x in avg) for avg in (load, os.getloadavg()))
    extra = [("kernels", kernels), ("load average before / after", loads)]
    lines = ["# The first call of each built-in metric in a fresh environment", "", "| | |", "|---|---|"]
    lines += [f"| {k} | {v} |" for k, v in machine(extra)]
    base = best[BASELINE]
    lines += [
        "",
        f"Fresh processes, an empty numba cache each; CPU time (user + system) of the child, interpreter start-up "
        f"included, minimum of {repeat} rounds. `{BASELINE}`: **{base:.2f} s**. A metric's first call: "
        f"`import ordframe` and `ordframe.<name>(y_true, y_pred)` on {N} samples of {K} classes.",
        "",
        "| metric | " + " | ".join(f"{label}: s (/ baseline)" for label in trees) + " |",
        "|---|" + "---|" * len(trees),
    ]
    for name in names:
        cells = " | ".join(f"{best[(label, name)]:.2f} ({best[(label, name)] / base:.1f}x)" for label in trees)
        lines.append(f"| {name} | {cells} |")
    worst = {label: max(best[(label, n)] for n in names) / base for label in trees}
    lines += ["", "Worst first call over the baseline: " + ", ".join(f"{k} {v:.1f}x" for k, v in worst.items()) + "."]
    if rows:
        lines += [
            "",
            "## What the rule of the compiled routines rests on (`COMPILED_SECONDS`, the costs per unit)",
            "",
            "Per compiled kernel: its twin's first call in a fresh process with numba's cache warm (numba's import "
            "and the load of the kernel, less a second call; CPU s), and per count, on 10^5 stacked 5 x 5 int64 "
            "matrices, the numpy kernel and the twin (CPU ns, as the bridge runs them on validated counts); the "
            "break-even: the counts on which the numpy kernel's extra time equals that first call.",
            "",
            "| kernel (metric) | first call, warm cache (s) | numpy (ns per count) | twin (ns per count) | break-even |",
            "|---|---|---|---|---|",
        ]
        even = []
        for name, first, numpy_ns, twin_ns in rows:
            even.append(first / ((numpy_ns - twin_ns) * 1e-9))
            lines.append(f"| {name} | {first:.2f} | {numpy_ns:.1f} | {twin_ns:.1f} | {even[-1]:.2e} |")
        lines += [
            "",
            f"Medians: first call {np.median([r[1] for r in rows]):.2f} s (`COMPILED_SECONDS` = "
            f"{compiling.COMPILED_SECONDS} s), numpy {np.median([r[2] for r in rows]):.1f} ns per count "
            f"(`NUMPY_SECONDS_PER_CELL` = {declaration.NUMPY_SECONDS_PER_CELL * 1e9:.0f} ns), break-even "
            f"{np.median(even):.2e} counts. A numpy kernel's calls are timed, so its fixed cost per call counts "
            "too: the twin takes over once that time reaches `COMPILED_SECONDS`.",
            "",
            f"The count of rows and the coder of arrow strings, on {ROWS:,} rows (the count: a model, a fold and two "
            "label columns, int64; the coder: five labels of 2-9 bytes): the first compiled call in a fresh process "
            "with numba's cache warm (numba's import included), and per row numpy's count (pyarrow's `index_in` for "
            "the coder) and the compiled one; the break-even in rows. "
            f"Set: `NUMPY_SECONDS_PER_ROW` = {counting.NUMPY_SECONDS_PER_ROW * 1e9:.0f} ns, `STRING_SECONDS` = "
            f"{classes.STRING_SECONDS * 1e9:.0f} ns.",
            "",
            "| routine (its cost per row) | first call, warm cache (s) | numpy (ns per row) | compiled (ns per row) | "
            "break-even (rows) |",
            "|---|---|---|---|---|",
        ]
        for name, first, numpy_ns, compiled_ns in others:
            rows_even = first / ((numpy_ns - compiled_ns) * 1e-9)
            lines.append(f"| {name} | {first:.2f} | {numpy_ns:.1f} | {compiled_ns:.1f} | {rows_even:.2e} |")
    report = "\n".join(lines) + "\n"
    emit(report, args.out)


if __name__ == "__main__":
    main()
