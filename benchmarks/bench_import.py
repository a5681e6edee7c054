"""Benchmark: the time ordframe takes to be ready against ``import pandas, xarray``, in fresh interpreters.

Each run starts a new Python process that times its own import, in wall
time (``time.perf_counter``) and in process CPU time (``time.process_time``,
which other jobs on a shared machine disturb far less); interpreter start-up
is not counted (the process's whole wall time is reported beside it). The cases alternate run by run
(``pass``, ``import pandas, xarray``, ``import ordframe``, ...), so a change
in the machine's load hits all of them alike, and the minimum over
``--runs`` is compared. Target (import
time): ordframe ready at most 1.3x ``import pandas, xarray``. ``import
ordframe`` itself imports neither (its names load on first use, its
accessors when their library is imported), so "ready" is ``import ordframe,
pandas`` and a first ``df.ordinal``, which imports xarray and every layer
the accessor calls; ``import ordframe`` alone is reported beside it.

The "ready" process also lists which heavy modules it loaded:
``dask.dataframe``, ``matplotlib`` and ``scipy.stats`` must not be (checked:
the script fails otherwise), ``scipy.sparse`` and ``scipy.special`` are
reported. ``-X importtime`` of one more process gives the ordframe modules
and the imports they pull in that take longest (cumulative, above pandas and
xarray, which are imported first there).

    python benchmarks/bench_import.py > benchmarks/results_import.md
    python benchmarks/bench_import.py --smoke      # a few runs, the checks only
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

from machine_info import machine

CASES = {
    "`python -c pass` (interpreter only)": "pass",
    "`import pandas, xarray`": "import pandas, xarray",
    "`import ordframe`": "import ordframe",
    "ordframe ready: `import ordframe, pandas` and a first `df.ordinal`": "import ordframe, pandas\npandas.DataFrame().ordinal",
}
READY = "ordframe ready: `import ordframe, pandas` and a first `df.ordinal`"
MUST_NOT_LOAD = ["dask.dataframe", "matplotlib", "scipy.stats"]
REPORTED = ["dask", "scipy", "scipy.sparse", "scipy.special", "pluggy", "sklearn", "pyarrow"]
TARGET = 1.3

CHILD = """
import sys, time, json
start, cpu = time.perf_counter(), time.process_time()
{code}
elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
print(json.dumps({{"seconds": elapsed, "cpu": cpu, "modules": [m for m in {names!r} if m in sys.modules]}}))
"""


def run_once(code: str) -> tuple[float, float, float, list[str]]:
    """(import wall and CPU seconds measured inside the process, wall seconds of the whole process, heavy modules)."""
    script = CHILD.format(code=code, names=MUST_NOT_LOAD + REPORTED)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    result = json.loads(done.stdout.strip().splitlines()[-1])
    return result["seconds"], result["cpu"], wall, result["modules"]


def importtime_top(count: int) -> list[tuple[int, int, str]]:
    """The slowest imports of a ready ordframe (after pandas and xarray): (cumulative us, self us, module)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import pandas, xarray, ordframe; pandas.DataFrame().ordinal"],
        capture_output=True,
        text=True,
        check=True,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("import time:") and "|" in line]
    rows = []
    for line in lines[1:]:
        own, cumulative, name = line.split(":", 1)[1].split("|")
        rows.append((int(cumulative), int(own), name.rstrip()))
    after = max(i for i, row in enumerate(rows) if row[2].strip() == "xarray") + 1
    return sorted(rows[after:], reverse=True)[:count]


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="fresh processes per case (the minimum is compared)")
    parser.add_argument("--top", type=int, default=15, help="rows of the -X importtime table")
    parser.add_argument("--smoke", action="store_true", help="3 runs per case and the module checks, no report")
    args = parser.parse_args(argv)
    runs = 3 if args.smoke else args.runs

    load_before = os.getloadavg()
    times: dict[str, list[tuple[float, float, float]]] = {name: [] for name in CASES}
    modules: dict[str, list[str]] = {}
    for _ in range(runs):
        for name, code in CASES.items():
            inside, cpu, wall, loaded = run_once(code)
            times[name].append((inside, cpu, wall))
            modules[name] = loaded
    load_after = os.getloadavg()

    loaded = modules[READY]
    bad = [m for m in MUST_NOT_LOAD if m in loaded]
    if bad:
        raise SystemExit(f"ordframe ready loaded {bad}")
    base = min(c for _, c, _ in times["`import pandas, xarray`"])
    ours = min(c for _, c, _ in times[READY])
    ratio = ours / base
    rounds = zip(times[READY], times["`import pandas, xarray`"])
    paired = statistics.median(o[1] / p[1] for o, p in rounds)
    wall_ratio = min(t for t, _, _ in times[READY]) / min(t for t, _, _ in times["`import pandas, xarray`"])
    if args.smoke:
        print(
            f"bench_import smoke: ordframe ready {ms(ours)} CPU, pandas + xarray {ms(base)} ({ratio:.2f}x); "
            f"not loaded: {MUST_NOT_LOAD}"
        )
        return 0

    out = ["# Benchmark: import time (ordframe ready against `import pandas, xarray`)", ""]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine()]
    out += [
        f"| load average (1 min) before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |",
        "",
        f"{runs} fresh processes per case, alternating case by case; each process times its own import "
        "(interpreter start-up excluded) in CPU time and in wall time; the whole process's wall time is given "
        "beside them. Minimum (median) over the runs. The verdict uses the minimum CPU times (other jobs share the "
        f"machine); the ratio of the minimum wall times is {wall_ratio:.2f}, and the median over the rounds of the "
        f"round's own CPU ratio (each round runs every case once, back to back) is {paired:.2f}.",
        "",
        f"| case | import, CPU | import, wall | whole process, wall | CPU / `import pandas, xarray` "
        f"(target: ordframe ready <= {TARGET}) |",
        "|---|---|---|---|---|",
    ]
    for name, triples in times.items():
        inside = sorted(t for t, _, _ in triples)
        cpu = sorted(c for _, c, _ in triples)
        wall = sorted(w for _, _, w in triples)
        share = "" if name.startswith("`python") else f"**{cpu[0] / base:.2f}**"
        if name == READY:
            share += f" ({'met' if ratio <= TARGET else 'NOT met'})"
        mid = len(cpu) // 2
        out.append(
            f"| {name} | {ms(cpu[0])} ({ms(cpu[mid])}) | {ms(inside[0])} ({ms(inside[mid])}) | "
            f"{ms(wall[0])} ({ms(wall[mid])}) | {share} |"
        )
    out += [
        "",
        "`import ordframe` alone imports none of numpy, pandas or xarray. Ready, ordframe loads none of "
        f"{', '.join(f'`{m}`' for m in MUST_NOT_LOAD)} (checked in every run). "
        f"Of the other heavy modules it loads: {', '.join(f'`{m}`' for m in loaded) or 'none'} "
        f"(looked for: {', '.join(f'`{m}`' for m in REPORTED)}). `import pandas, xarray` loads: "
        f"{', '.join(f'`{m}`' for m in modules['`import pandas, xarray`']) or 'none'}.",
        "",
        "## Where the rest goes (`python -X importtime -c 'import pandas, xarray, ordframe; "
        "pandas.DataFrame().ordinal'`, one process)",
        "",
        "The slowest imports after pandas and xarray; `-X importtime` itself slows imports, so compare rows, not totals "
        "with the table above.",
        "",
        "| module | cumulative | self |",
        "|---|---|---|",
    ]
    for cumulative, own, name in importtime_top(args.top):
        depth = (len(name) - len(name.lstrip())) // 2
        out.append(f"| {'&nbsp;' * 2 * depth}`{name.strip()}` | {cumulative / 1e3:.1f} ms | {own / 1e3:.1f} ms |")
    out += [
        "",
        "scipy (`sparse` for the paired bootstrap, `special` for BCa intervals, `stats` for the tests), dask's "
        "DataFrame accessor, matplotlib (plots) and scikit-learn (the demo) are imported where they are used.",
        "",
        "Reproduce with `python benchmarks/bench_import.py > benchmarks/results_import.md` (`--runs`, `--top`).",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
