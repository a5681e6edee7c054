"""What every benchmark's report shares: the machine and library versions it ran on (its header), and where it
goes (printed, and written to the file its ``--out``/``--output`` names)."""

from __future__ import annotations

import datetime
import os
import platform
import subprocess


def source() -> str:
    """The commit the library was measured at, and whether ``ordframe/`` differed from it (read-only git calls)."""
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env = {**os.environ, "GIT_OPTIONAL_LOCKS": "0"}
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=root, env=env, capture_output=True, text=True, check=True
        ).stdout.strip()
        dirty = subprocess.run(["git", "diff", "--quiet", "HEAD", "--", "ordframe"], cwd=root, env=env).returncode
    except (OSError, subprocess.CalledProcessError):
        return "unknown (not a git checkout)"
    return f"commit {head}" + (" with uncommitted changes in `ordframe/`" if dirty else "")


def machine(extra: list[tuple[str, str]] | None = None) -> list[tuple[str, str]]:
    """``(name, value)`` rows: date, CPU, RAM, OS, Python, library versions, ``extra`` rows, ordframe's source."""
    import importlib.metadata

    import numpy as np
    import pandas as pd
    import xarray as xr

    import ordframe

    try:
        lscpu = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        info = dict(line.split(":", 1) for line in lscpu.splitlines() if ":" in line)
        cpu = f"{info['Model name'].strip()}, {info['CPU(s)'].strip()} logical CPUs"
    except (OSError, subprocess.CalledProcessError, KeyError):
        cpu = f"{platform.processor() or platform.machine()}, {os.cpu_count()} logical CPUs"
    try:
        with open("/proc/meminfo") as f:
            kib = int(next(line for line in f if line.startswith("MemTotal")).split()[1])
        ram = f"{kib / 2**20:.1f} GiB"
    except (OSError, StopIteration):
        ram = "unknown"
    return [
        ("date (UTC)", datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M")),
        ("CPU", cpu),
        ("RAM", ram),
        ("OS", platform.platform()),
        ("Python", platform.python_version()),
        ("numpy / pandas / xarray", f"{np.__version__} / {pd.__version__} / {xr.__version__}"),
        ("pyarrow (pandas' string storage)", _version(importlib.metadata, "pyarrow")),
        *(extra or []),
        ("ordframe", ordframe.__version__),
        ("ordframe source", source()),
    ]


def _version(metadata, package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "not installed"


def emit(report: str, path: str | None) -> None:
    """Print ``report``, and write it to ``path`` too where one is given."""
    print(report)
    if path:
        with open(path, "w") as f:
            f.write(report)
