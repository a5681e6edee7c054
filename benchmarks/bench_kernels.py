"""Benchmark: every built-in confusion metric on a stack of matrices, per call, against one pass over the cube.

The stack is an int64 cube of 10^5 stacked 5 x 5 matrices (20 MB), and stacks
of the same number of cells for K = 10, 30 and 100 (25,000, 2,777 and 250 matrices),
Poisson counts of about 1000 per matrix, heavier on the diagonal; ``--cube dense``
gives every cell a mean of 20 instead (a noisy classifier). Times:

* one pass: ``cube.values.sum()``, one read of the int64 cube (the review's floor);
* each metric: ``cube.ordinal.<metric>()``, the whole accessor call
  (validation, conversion, kernel, labelled result);
* ``cube.ordinal.evaluate(metrics=every built-in confusion metric)``, against
  the sum of the separate calls.

The ratio is a metric's time over one pass in the same run. Each time is the
minimum over ``--repeat`` rounds of process CPU time; every round times every
variant once (a change of the machine's load hits all alike).

``--baseline DIR`` also runs this script on the ordframe source in DIR (e.g.
``git archive 25188fd | tar -x -C DIR``), in a subprocess with ``PYTHONPATH=DIR``,
on the same matrices, and reports its times beside these; every metric's values
must agree with the baseline's to 1e-12 (relative), or the script fails.
``--rounds N`` times this tree and the baseline in turn, each in a fresh
process, N times, and keeps each cell's minimum: on a shared machine a slow
spell of a minute otherwise lands on one of the two only.
Without a numba install, or with ``ORDFRAME_NUMBA=0``, the kernels run in numpy;
``--smoke`` checks that both paths agree where numba is installed.

    python benchmarks/bench_kernels.py                          # print the report
    python benchmarks/bench_kernels.py --baseline DIR --out FILE.md
    python benchmarks/bench_kernels.py --baseline DIR --rounds 3   # alternated, fresh processes
    python benchmarks/bench_kernels.py --cube dense --baseline DIR --out FILE.md
    python benchmarks/bench_kernels.py --smoke                  # tiny sizes, the checks only (seconds)
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time

import numpy as np
import xarray as xr
from machine_info import emit, machine

import ordframe
from ordframe._core import compiling

compiling.steady_state()  # every compiled routine at every size, as once a process's numpy work paid for it
CELLS = 2_500_000  # 10^5 matrices of 5 x 5
BUILTIN = (
    "ordframe.metrics.classic",
    "ordframe.metrics.rint",
    "ordframe.metrics.cost",
    "ordframe.metrics.oc",
)
TOLERANCE = 1e-12
CUBES = {
    "diagonal": "Poisson counts, about 1000 per matrix, half of them on the diagonal",
    "dense": "Poisson counts of mean 20 in every cell",
}


def builtin_metrics() -> list[str]:
    table = ordframe.list_metrics()
    return sorted(table.loc[(table["kind"] == "confusion") & table["plugin"].isin(BUILTIN), "name"])


def cube(k: int, cells: int, seed: int = 0, kind: str = "diagonal") -> xr.DataArray:
    """``cells / K^2`` int64 matrices of Poisson counts: ``diagonal``, about 1000 per matrix, half of them on the
    diagonal; ``dense``, a mean of 20 in every cell (a noisy classifier: OC's paths cross many cells, A_UOC's
    envelope has many pieces)."""
    rng = np.random.default_rng(seed + k)
    m = max(1, cells // (k * k))
    if kind == "dense":
        rate = np.full((k, k), 20.0)
    else:
        rate = np.full((k, k), 500.0 / (k * k - k))
        rate[np.arange(k), np.arange(k)] = 500.0 / k
    counts = rng.poisson(rate, size=(m, k, k)).astype(np.int64)
    return xr.DataArray(counts, dims=("replicate", "true", "pred"))


def timed(fn) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def measure(ks, cells, repeat, values_dir=None, kind="diagonal"):
    """Per K: the minimum CPU time of one pass, of every metric's accessor call and of ``evaluate``."""
    names = builtin_metrics()
    times = {}
    for k in ks:
        c = cube(k, cells, kind=kind)
        acc = c.ordinal
        calls = {"one pass: cube.values.sum()": lambda c=c: c.values.sum()}
        calls |= {name: (lambda name=name: getattr(acc, name)()) for name in names}
        calls["evaluate (all of them)"] = lambda: acc.evaluate(metrics=names)
        best = dict.fromkeys(calls, math.inf)
        for call in calls.values():  # warm-up: first-call costs (imports, JIT) are not what is measured
            call()
        for _ in range(repeat):
            for label, call in calls.items():
                best[label] = min(best[label], timed(call))
        times[k] = best
        if values_dir is not None:
            together = acc.evaluate(metrics=names)
            np.savez(
                os.path.join(values_dir, f"values_{k}.npz"),
                **{n: np.asarray(getattr(acc, n)()) for n in names},
                **{f"evaluate:{n}": together[n].values for n in names},
            )
    return names, times


def agree(a, b) -> bool:
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    same_nan = np.array_equal(np.isnan(a), np.isnan(b))
    ok = ~np.isnan(a)
    return same_nan and bool(np.all(np.abs(a[ok] - b[ok]) <= TOLERANCE * np.maximum(1.0, np.abs(b[ok]))))


def check_values(ks, names, mine_dir, other_dir, what) -> list[str]:
    """Every metric's values (separate calls and ``evaluate``) in ``mine_dir`` against ``other_dir``."""
    failed = []
    for k in ks:
        mine, other = (
            np.load(os.path.join(mine_dir, f"values_{k}.npz")),
            np.load(os.path.join(other_dir, f"values_{k}.npz")),
        )
        for name in names:
            for key in (name, f"evaluate:{name}"):
                if not agree(mine[key], other[key]):
                    failed.append(f"K={k} {key}: differs from {what} by more than {TOLERANCE} (relative)")
    return failed


def run_elsewhere(env_update, ks, cells, repeat, values_dir, kind):
    """This script's measurements in a subprocess with ``env_update`` (another source tree, or numba off)."""
    with tempfile.NamedTemporaryFile("r", suffix=".json") as out:
        cmd = [sys.executable, os.path.abspath(__file__), "--json", out.name, "--values", values_dir]
        cmd += ["--ks", ",".join(map(str, ks)), "--cells", str(cells), "--repeat", str(repeat), "--cube", kind]
        subprocess.run(cmd, env={**os.environ, **env_update}, check=True)
        result = json.load(out)
    return result["names"], {int(k): v for k, v in result["times"].items()}, result["source"]


def fastest(times, more):
    """The minimum per K and label of two measurements (``None``: none yet)."""
    if times is None:
        return more
    return {k: {label: min(t, more[k][label]) for label, t in times[k].items()} for k in times}


def numba_state() -> str:
    from ordframe._core import options
    from ordframe.metrics import _accelerate

    return "numba " + _accelerate.numba_version() if options.COMPILED else "numpy only"


def report(ks, cells, names, after, before, before_source, numpy_only, load, rounds=1, kind="diagonal") -> str:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

    lines = ["# Confusion metric kernels: time per call against one pass over the int64 cube", ""]
    rows = machine([("kernels", numba_state()), ("load average (1, 5, 15 min) before / after", load)])
    lines += ["| | |", "|---|---|", *(f"| {a} | {b} |" for a, b in rows), ""]
    floor = "one pass: cube.values.sum()"
    what = CUBES[kind]
    lines.append(
        f"Stacks of {cells:,} int64 cells ({what}): "
        + ", ".join(f"K = {k}: {max(1, cells // (k * k)):,} matrices" for k in ks)
        + ". Process CPU time, minimum over the repeats"
        + (
            f" and over {rounds} rounds (this tree and the baseline in turn, each in a fresh process)"
            if rounds > 1
            else ""
        )
        + "; ratio = time / one pass in the same run."
    )
    lines.append("")
    head = "| metric |"
    rule = "|---|"
    for k in ks:
        head += f" K={k} ms | K={k} / pass |"
        rule += "---|---|"
        if numpy_only is not None:
            head += f" K={k} numpy only / pass |"
            rule += "---|"
        if before is not None:
            head += f" K={k} before / pass |"
            rule += "---|"
    lines += [head, rule]
    worst = dict.fromkeys(ks, 0.0)
    for label in [floor, *names, "evaluate (all of them)"]:
        row = f"| {label} |"
        for k in ks:
            t = after[k][label]
            ratio = t / after[k][floor]
            if label in names:
                worst[k] = max(worst[k], ratio)
            row += f" {t * 1e3:.2f} | {ratio:.1f} |"
            if numpy_only is not None:
                row += f" {numpy_only[k][label] / numpy_only[k][floor]:.1f} |"
            if before is not None:
                row += f" {before[k][label] / before[k][floor]:.1f} |" if label in before[k] else " – |"
        lines.append(row)
    lines.append("")
    separate = {k: sum(after[k][n] for n in names) for k in ks}
    lines.append(
        "Worst metric / pass: "
        + ", ".join(f"K = {k}: {worst[k]:.1f}x" for k in ks)
        + ". `evaluate` of all of them / the sum of the separate calls: "
        + ", ".join(f"K = {k}: {after[k]['evaluate (all of them)'] / separate[k]:.2f}" for k in ks)
        + "."
    )
    if before is not None:
        lines += ["", f"Before: {before_source}, run by this script in a subprocess on the same matrices."]
        lines.append("Every metric's values (separate calls and `evaluate`) agree with before's to 1e-12 (relative).")
    if numpy_only is not None:
        lines.append("The numpy-only column ran in a subprocess with `ORDFRAME_NUMBA=0`; its values agree to 1e-12.")
    return "\n".join(lines) + "\n"


def load_average() -> str:
    return "{:.2f}, {:.2f}, {:.2f}".format(*os.getloadavg())


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ks", default="5,10,30,100")
    parser.add_argument("--cube", choices=sorted(CUBES), default="diagonal", help="the matrices (see ``cube``)")
    parser.add_argument("--cells", type=int, default=CELLS)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--baseline", help="an ordframe source tree to time on the same matrices (before)")
    parser.add_argument("--out", help="also write the report to this file")
    parser.add_argument(
        "--rounds",
        type=int,
        default=1,
        help="with more than 1, time this tree and the baseline in turn, each in a fresh process, this many times: "
        "the minimum per cell over the rounds (a shared machine's slow spells then hit both alike)",
    )
    parser.add_argument("--smoke", action="store_true", help="tiny stacks, one repeat: the checks only (seconds)")
    parser.add_argument("--json", help=argparse.SUPPRESS)
    parser.add_argument("--values", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    ks = [int(k) for k in args.ks.split(",")]
    cells, repeat = (2_000, 1) if args.smoke else (args.cells, args.repeat)
    if args.json:  # a subprocess of this script: measure, save, no report
        names, times = measure(ks, cells, repeat, args.values, args.cube)
        where = os.path.dirname(os.path.dirname(os.path.abspath(ordframe.__file__)))
        with open(args.json, "w") as f:
            json.dump({"names": names, "times": times, "source": f"ordframe {ordframe.__version__} from `{where}`"}, f)
        return 0
    load_before = load_average()
    with tempfile.TemporaryDirectory() as tmp:
        dirs = {w: os.path.join(tmp, w) for w in ("after", "before", "numpy")}
        for path in dirs.values():
            os.mkdir(path)
        before = before_source = numpy_only = after = None
        failed = []
        from ordframe._core import options

        if options.COMPILED:
            _, numpy_only, _ = run_elsewhere({"ORDFRAME_NUMBA": "0"}, ks, cells, repeat, dirs["numpy"], args.cube)
        for _ in range(args.rounds):
            if args.baseline:
                path = os.path.abspath(args.baseline)
                _, times, before_source = run_elsewhere(
                    {"PYTHONPATH": path}, ks, cells, repeat, dirs["before"], args.cube
                )
                before = fastest(before, times)
            if args.rounds > 1:
                names, times, _ = run_elsewhere({}, ks, cells, repeat, dirs["after"], args.cube)
            else:
                names, times = measure(ks, cells, repeat, dirs["after"], args.cube)
            after = fastest(after, times)
        for k in ks:
            values = np.load(os.path.join(dirs["after"], f"values_{k}.npz"))
            failed += [
                f"K={k} {n}: evaluate differs from the call"
                for n in names
                if not agree(values[f"evaluate:{n}"], values[n])
            ]
        if before is not None:
            failed += check_values(ks, names, dirs["after"], dirs["before"], "the baseline")
        if numpy_only is not None:
            failed += check_values(ks, names, dirs["after"], dirs["numpy"], "the numpy-only path")
    load = f"{load_before} / {load_average()}"
    text = report(ks, cells, names, after, before, before_source, numpy_only, load, args.rounds, args.cube)
    emit(text, args.out)
    for line in failed:
        print("FAILED:", line, file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
