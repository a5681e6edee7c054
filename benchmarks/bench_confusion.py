"""Benchmark: building confusion cubes with ``df.ordinal.confusion``.

The case of issue 2: 10^7 rows, true/predicted labels with K = 5 ordered
classes, grouped by ``model`` (a categorical of 4 levels) and ``fold`` (an
int64 column 0..24), i.e. 100 confusion matrices. In one run it times

* ``df.ordinal.confusion("y", "yhat", by=["model", "fold"])`` (ordframe),
* one ``numpy.bincount`` over combined int64 codes of the same rows, computed
  before the timing (the floor: counting alone, no label handling), and
* ``sklearn.metrics.confusion_matrix`` called once per group of a pandas
  ``groupby(["model", "fold"], observed=True)`` with ``labels=`` the 5 classes,

for ordered Categorical labels and for string labels (``labels=`` given), and
checks that every cube equals the bincount counts. Fast timings are the
minimum of ``--repeats`` runs; scikit-learn is slow and runs ``--sklearn-repeats``
times. Needs the ``bench`` extra (scikit-learn)::

    pip install -e ".[bench]"
    python benchmarks/bench_confusion.py > benchmarks/results_confusion.md
"""

from __future__ import annotations

import argparse
import datetime
import gc
import os
import platform
import statistics
import subprocess
import sys
import time

import numpy as np
import pandas as pd
import sklearn
import xarray as xr
from sklearn.metrics import confusion_matrix

import ordframe

K = 5
LABELS = [f"grade_{i}" for i in range(1, K + 1)]
MODELS = ["model_a", "model_b", "model_c", "model_d"]
FOLDS = 25
CELLS = len(MODELS) * FOLDS * K * K


def machine() -> list[tuple[str, str]]:
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
        ("scikit-learn / ordframe", f"{sklearn.__version__} / {ordframe.__version__}"),
    ]


def make_codes(n: int, seed: int) -> dict[str, np.ndarray]:
    """Class codes of true and predicted labels (mostly within one class), model and fold codes."""
    rng = np.random.default_rng(seed)
    true = rng.integers(0, K, n)
    pred = np.clip(true + rng.choice([-2, -1, 0, 0, 0, 1, 2], n), 0, K - 1)
    return {"y": true, "yhat": pred, "model": rng.integers(0, len(MODELS), n), "fold": rng.integers(0, FOLDS, n)}


def make_frames(codes: dict[str, np.ndarray]) -> dict[str, pd.DataFrame]:
    classes = pd.CategoricalDtype(LABELS, ordered=True)
    names = np.array(LABELS, dtype=object)
    groups = {
        "model": pd.Categorical.from_codes(codes["model"], categories=MODELS),
        "fold": codes["fold"].astype(np.int64),
    }
    categorical = {c: pd.Categorical.from_codes(codes[c], dtype=classes) for c in ("y", "yhat")}
    objects = {c: pd.Series(names[codes[c]], dtype=object) for c in ("y", "yhat")}
    # pandas' own string dtype for Python strings ("str" from pandas 3 on; object before)
    strings = {c: pd.Series(names[codes[c]].tolist()) for c in ("y", "yhat")}
    return {
        "ordered Categorical": pd.DataFrame({**categorical, **groups}),
        "Python str, object dtype": pd.DataFrame({**objects, **groups}),
        f"Python str, pandas default dtype ({strings['y'].dtype})": pd.DataFrame({**strings, **groups}),
    }


def timed(func, repeats: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeats):
        result = None
        gc.collect()
        start = time.perf_counter()
        result = func()
        times.append(time.perf_counter() - start)
    return times, result


def sklearn_cube(df: pd.DataFrame) -> dict:
    return {
        key: confusion_matrix(g["y"], g["yhat"], labels=LABELS)
        for key, g in df.groupby(["model", "fold"], observed=True)
    }


def check_cube(cube: xr.DataArray, expected: np.ndarray) -> None:
    assert cube.dims == ("model", "fold", "true", "pred"), cube.dims
    assert list(cube.coords["model"].values) == MODELS
    assert list(cube.coords["fold"].values) == list(range(FOLDS))
    assert list(cube.coords["true"].values) == LABELS == list(cube.coords["pred"].values)
    assert cube.dtype == np.int64
    np.testing.assert_array_equal(cube.values.reshape(-1), expected)


def check_sklearn(result: dict, expected: np.ndarray) -> None:
    counts = expected.reshape(len(MODELS), FOLDS, K, K)
    assert len(result) == len(MODELS) * FOLDS
    for (model, fold), matrix in result.items():
        np.testing.assert_array_equal(matrix, counts[MODELS.index(model), fold])


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--repeats", type=int, default=7, help="runs of each fast timing (the minimum is reported)")
    parser.add_argument("--sklearn-repeats", type=int, default=1, help="runs of the scikit-learn loop")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    assert args.repeats >= 1 and args.sklearn_repeats >= 1

    load_before = os.getloadavg()
    codes = make_codes(args.rows, args.seed)
    frames = make_frames(codes)
    combined = (((codes["model"] * FOLDS + codes["fold"]) * K + codes["y"]) * K + codes["yhat"]).astype(np.int64)
    t_bincount, expected = timed(lambda: np.bincount(combined, minlength=CELLS), args.repeats)
    assert expected.shape == (CELLS,) and expected.sum() == args.rows

    rows = []
    for kind, df in frames.items():
        labels = None if kind == "ordered Categorical" else LABELS
        build = lambda: df.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=labels)  # noqa: E731
        t_cold, cube = timed(build, 1)
        check_cube(cube, expected)
        t_ours, cube = timed(build, args.repeats)
        check_cube(cube, expected)
        t_sklearn, result = timed(lambda: sklearn_cube(df), args.sklearn_repeats)
        check_sklearn(result, expected)
        rows.append((kind, t_cold[0], t_ours, t_sklearn))
    # The strongest scikit-learn baseline: integer codes instead of label strings.
    int_frame = pd.DataFrame(
        {"y": codes["y"], "yhat": codes["yhat"], "model": frames["ordered Categorical"]["model"], "fold": codes["fold"]}
    )
    t_sklearn_int, _ = timed(
        lambda: [
            confusion_matrix(g["y"], g["yhat"], labels=range(K))
            for _, g in int_frame.groupby(["model", "fold"], observed=True)
        ],
        args.sklearn_repeats,
    )
    load_after = os.getloadavg()

    best_bincount = min(t_bincount)
    out = ["# Benchmark: confusion cubes (`df.ordinal.confusion`)", ""]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine()]
    out += [
        f"| load average (1 min) before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |",
        "",
        f'Case: {args.rows:,} rows, K = {K} classes, `by=["model", "fold"]` with `model` a categorical of '
        f"{len(MODELS)} levels and `fold` an int64 column 0..{FOLDS - 1} ({len(MODELS) * FOLDS} groups). "
        f"Fast timings: minimum (median) of {args.repeats} runs; scikit-learn: minimum of {args.sklearn_repeats} run(s). "
        "Every cube was checked equal to the bincount counts and to scikit-learn's matrices.",
        "",
        f"t_bincount (one `numpy.bincount` over precomputed combined int64 codes, `minlength={CELLS}`): "
        f"**{fmt(best_bincount)}** (median {fmt(statistics.median(t_bincount))}).",
        "",
        "Targets (issue #2) apply to the ordered-Categorical case; the string cases are reported.",
        "",
        "| labels | t_ours | first call | t_sklearn | t_ours / t_bincount (target <= 3) | t_sklearn / t_ours (target >= 40) |",
        "|---|---|---|---|---|---|",
    ]
    for i, (kind, cold, t_ours, t_sklearn) in enumerate(rows):
        ours = min(t_ours)
        floor, speedup = ours / best_bincount, min(t_sklearn) / ours
        floor_note, speedup_note = (
            ("met" if floor <= 3 else "NOT met", "met" if speedup >= 40 else "NOT met")
            if i == 0
            else ("reported", "reported")
        )
        out.append(
            f"| {kind} | {fmt(ours)} ({fmt(statistics.median(t_ours))}) | {fmt(cold)} | {fmt(min(t_sklearn))} | "
            f"**{floor:.2f}** ({floor_note}) | **{speedup:.0f}** ({speedup_note}) |"
        )
    t_cat = min(rows[0][2])
    out += [
        "",
        'Columns: `t_ours` = `df.ordinal.confusion("y", "yhat", by=["model", "fold"])` (with `labels=` for strings); '
        "`first call` = the first call in the process (includes lazy imports); `t_sklearn` = "
        "`sklearn.metrics.confusion_matrix(g.y, g.yhat, labels=<the 5 class names>)` for each group `g` of "
        '`df.groupby(["model", "fold"], observed=True)`.',
        "",
        f"Strongest scikit-learn baseline (integer class codes 0..{K - 1} instead of names, same groupby loop): "
        f"{fmt(min(t_sklearn_int))}, i.e. {min(t_sklearn_int) / t_cat:.0f}x the ordered-Categorical t_ours.",
    ]
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
