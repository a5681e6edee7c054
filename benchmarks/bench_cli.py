"""Benchmark: the start-up time of ``ordframe --help`` against ``python -c "import pandas"``, in fresh processes.

Each run starts a new process and takes its CPU time (user + system, from
``getrusage`` of the finished child, which other jobs on a shared machine
disturb far less than wall time) and its wall time, interpreter start-up
included: that is what a user waits for. The cases alternate run by run, so
a change in the machine's load hits all of them alike, and the minimum over
``--runs`` is compared. Target:
``ordframe --help`` at most 1.2x ``python -c "import pandas"``.

The cases: the interpreter alone; ``import pandas`` (the baseline);
``ordframe --help`` and ``ordframe --version`` as installed (the console
script); ``import ordframe``, which imports none of pandas, xarray or the
layers (its public names load on first use, the accessors when their library
is imported); the parser run in-process, to check which heavy modules it
loaded (none); and ``import pandas, ordframe`` with the accessor's first
use, what a script that scores a frame pays before its first metric.
Every ordframe case runs this tree's ``ordframe/`` (on ``PYTHONPATH``, from
the tree's root); with ``--baseline REV`` each also runs the ``ordframe/`` of
that git revision, unpacked to a temporary folder, in the same rounds (a
change measured before and after under the same load).

    python benchmarks/bench_cli.py > benchmarks/results_cli.md
    python benchmarks/bench_cli.py --baseline main > benchmarks/results_cli.md
    python benchmarks/bench_cli.py --smoke      # a few runs, the checks only
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

from machine_info import machine

TARGET = 1.2
PARSER = """
import sys
from ordframe._cli.main import main
try:
    main(["--help"])
finally:
    print("loaded:", [m for m in ("numpy", "pandas", "xarray") if m in sys.modules])
"""
FIRST_USE = "import pandas, ordframe; pandas.DataFrame().ordinal"


ROOT = Path(__file__).resolve().parent.parent  # this tree: its ordframe/ is measured
BEFORE = ", before"  # the end of a baseline case's name


def console_script() -> list[str]:
    """The installed ``ordframe`` command beside this interpreter, else ``python -m ordframe``."""
    script = Path(sys.executable).with_name("ordframe")
    return [str(script)] if script.exists() else [sys.executable, "-m", "ordframe"]


def cases() -> dict[str, list[str]]:
    ordframe = console_script()
    return {
        "`python -c pass` (interpreter only)": [sys.executable, "-c", "pass"],
        '`python -c "import pandas"`': [sys.executable, "-c", "import pandas"],
        "`ordframe --help`": [*ordframe, "--help"],
        "`ordframe --version`": [*ordframe, "--version"],
        '`python -c "import ordframe"`': [sys.executable, "-c", "import ordframe"],
        "`ordframe --help` in-process (which heavy modules it loaded)": [sys.executable, "-c", PARSER],
        FIRST: [sys.executable, "-c", FIRST_USE],
    }


BASE = '`python -c "import pandas"`'
HELP = "`ordframe --help`"
FIRST = '`python -c "import pandas, ordframe"` and a first `df.ordinal`'
PARSED = "`ordframe --help` in-process (which heavy modules it loaded)"


def unpack(revision: str, folder: str) -> str:
    """The ``ordframe/`` of a git ``revision`` unpacked in ``folder``; its short commit hash."""
    commit = subprocess.run(
        ["git", "rev-parse", "--short", revision], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout.strip()
    archive = Path(folder) / "ordframe.tar"
    subprocess.run(["git", "archive", "-o", str(archive), commit, "ordframe"], cwd=ROOT, check=True)
    with tarfile.open(archive) as tar:
        tar.extractall(folder, filter="data")
    return commit


def run_once(argv: list[str], tree: Path | str) -> tuple[float, float, str]:
    """(CPU seconds, wall seconds, standard output) of one fresh process that imports the ``ordframe/`` of ``tree``."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tree), os.environ.get("PYTHONPATH", "")])}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, capture_output=True, text=True, check=True, cwd=tree, env=env)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall, done.stdout


def check(outputs: dict[str, str], end: str = "") -> None:
    """The commands did what they say: help, the version, and a parser that loaded no heavy module."""
    if not outputs[HELP + end].startswith("usage: ordframe"):
        raise SystemExit(f"ordframe --help{end} printed {outputs[HELP + end][:80]!r}")
    if not outputs["`ordframe --version`" + end].startswith("ordframe "):
        raise SystemExit(f"ordframe --version{end} printed {outputs['`ordframe --version`' + end]!r}")
    if not outputs[PARSED + end].startswith("usage: ordframe") or "loaded: []" not in outputs[PARSED + end]:
        raise SystemExit(f"ordframe --help{end} loaded heavy modules: {outputs[PARSED + end][-80:]!r}")


def ms(seconds: float) -> str:
    return f"{seconds * 1e3:.0f} ms"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=30, help="fresh processes per case (the minimum is compared)")
    parser.add_argument("--smoke", action="store_true", help="3 runs per case and the checks, no report")
    parser.add_argument("--baseline", metavar="REV", help="a git revision whose ordframe/ is timed too (before)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        before = unpack(args.baseline, folder) if args.baseline else None
        return measure(args, folder if before else None, before)


def measure(args, baseline: str | None, before: str | None) -> int:
    """Run the cases (with ``baseline``, the tree of commit ``before``, its ordframe cases too) and report."""
    runs = 3 if args.smoke else args.runs
    load_before = os.getloadavg()
    commands = {name: (command, ROOT) for name, command in cases().items()}
    if baseline is not None:
        ours = [name for name in commands if "ordframe" in name]
        commands.update({name + BEFORE: (commands[name][0], baseline) for name in ours})
    times: dict[str, list[tuple[float, float]]] = {name: [] for name in commands}
    outputs: dict[str, str] = {}
    for _ in range(runs):
        for name, (command, tree) in commands.items():
            cpu, wall, outputs[name] = run_once(command, tree)
            times[name].append((cpu, wall))
    load_after = os.getloadavg()
    check(outputs)
    if baseline is not None:
        check(outputs, BEFORE)

    base = min(c for c, _ in times[BASE])
    ratio = min(c for c, _ in times[HELP]) / base
    paired = statistics.median(h[0] / p[0] for h, p in zip(times[HELP], times[BASE]))
    wall_ratio = min(w for _, w in times[HELP]) / min(w for _, w in times[BASE])
    first_use = min(c for c, _ in times[FIRST]) / base
    verdict = "met" if ratio <= TARGET else "NOT met"
    if args.smoke:
        was = "" if before is None else f" (before, {before}: {min(c for c, _ in times[HELP + BEFORE]) / base:.2f}x)"
        print(
            f"bench_cli smoke: ordframe --help {ratio:.2f}x import pandas in CPU time ({verdict}){was}; "
            "loading none of numpy, pandas, xarray"
        )
        return 0

    out = ['# Benchmark: start-up of `ordframe --help` (against `python -c "import pandas"`)', ""]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine()]
    out += [
        f"| load average (1 min) before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |",
        "",
        f"{runs} fresh processes per case, alternating case by case; each whole process is timed, interpreter "
        "start-up included, in CPU time (user + system of the finished child) and in wall time. Minimum (median) "
        f"over the runs. The verdict uses the minimum CPU times (other jobs share the machine); the ratio of the "
        f"minimum wall times is {wall_ratio:.2f}, and the median over the rounds of the round's own CPU ratio is "
        f"{paired:.2f}."
        + ("" if before is None else f' A case marked "before" runs the `ordframe/` of commit {before}.'),
        "",
        f"| case | CPU | wall | CPU / `import pandas` (target `ordframe --help` <= {TARGET}) |",
        "|---|---|---|---|",
    ]
    for name, pairs in times.items():
        cpu = sorted(c for c, _ in pairs)
        wall = sorted(w for _, w in pairs)
        share = "" if name.startswith("`python -c pass") else f"**{cpu[0] / base:.2f}**"
        if name == HELP:
            share += f" ({verdict})"
        mid = len(cpu) // 2
        out.append(f"| {name} | {ms(cpu[0])} ({ms(cpu[mid])}) | {ms(wall[0])} ({ms(wall[mid])}) | {share} |")
    out += [
        "",
        "`import ordframe` imports none of numpy, pandas or xarray: its public names are imported on first use "
        "(the package's `__getattr__`, from the names listed in `ordframe/__init__.pyi`), and each `.ordinal` "
        "accessor is registered when its library is imported, before or after ordframe. The command "
        "builds its parser from light modules (argparse, its own wording, the formats, the named metric sets) "
        "and imports pandas, xarray and the metrics only in the command that runs; every run checks that "
        f"`--help` loaded none of numpy, pandas or xarray. A script that scores a frame pays {first_use:.2f}x "
        "`import pandas` before its first metric (pandas, xarray and the accessor's layers).",
        "",
        "Reproduce with `python benchmarks/bench_cli.py > benchmarks/results_cli.md` (`--runs`, `--baseline`).",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
