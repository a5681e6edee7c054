"""Benchmark: building confusion cubes with ``df.ordinal.confusion``.

The main case: 10^7 rows, true/predicted labels with K = 5 ordered
classes, grouped by ``model`` (a categorical of 4 levels) and ``fold`` (an
int64 column 0..24), i.e. 100 confusion matrices. In one run it times

* ``df.ordinal.confusion("y", "yhat", by=["model", "fold"])`` (ordframe),
* one ``numpy.bincount`` over combined int64 codes of the same rows, computed
  before the timing (the floor: counting alone, no label handling), and
* ``sklearn.metrics.confusion_matrix`` called once per group of a pandas
  ``groupby(["model", "fold"], observed=True)`` with ``labels=`` the 5 classes,

for ordered Categorical labels and for string labels (``labels=`` given).

The integer-label case,
runs on the same class codes: int64 ``y``/``yhat`` columns (class order
inferred, and with ``labels=[0, ..., 4]``; ``model`` categorical, and ``model``
as int64 codes too), and int64 xarray label arrays of the same 10^7 rows laid
out as 100 groups of 10^5 samples (dims ``("model", "fold", "sample")``,
``("group", "sample")`` and ``("sample", "group")``), counted with
``pred.ordinal.confusion(true, dim="sample")``. A label array's floor is a
bincount over its own rows, which lie in group order (a bincount over rows in
group order is faster than over the frame's shuffled rows). Peers for context:
pandas ``value_counts`` and ``groupby(...).size()`` over the four columns, and
``xskillscore.Contingency`` over the label arrays.

Every cube (and every peer's table) is checked equal to the bincount counts.
Times are process CPU time (``time.process_time``: every timed call is
single-threaded, and other jobs on a shared machine disturb it far less than
wall time). Fast timings are the minimum of ``--repeats`` runs, peers of ``--peer-repeats``;
scikit-learn is slow and runs ``--sklearn-repeats`` times. Needs the ``bench``
extra (scikit-learn); xskillscore is optional (its peer row is left out
without it)::

    pip install -e ".[bench]" xskillscore
    python benchmarks/bench_confusion.py > benchmarks/results_confusion.md
    python benchmarks/bench_confusion.py --smoke     # tiny sizes, the checks only (seconds)
"""

from __future__ import annotations

import argparse
import gc
import os
import statistics
import sys
import time

import numpy as np
import pandas as pd
import sklearn
import xarray as xr
from machine_info import machine
from sklearn.metrics import confusion_matrix

import ordframe  # noqa: F401  (registers the .ordinal accessor)
from ordframe._core import compiling

compiling.steady_state()  # every compiled routine at every size, as once a process's numpy work paid for it

try:  # a peer for context only; its row is left out without it
    import xskillscore
except ImportError:
    xskillscore = None

K = 5
LABELS = [f"grade_{i}" for i in range(1, K + 1)]
MODELS = ["model_a", "model_b", "model_c", "model_d"]
FOLDS = 25
CELLS = len(MODELS) * FOLDS * K * K


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


def make_int_frames(codes: dict[str, np.ndarray]) -> dict[str, tuple[pd.DataFrame, list | None]]:
    """Integer-label frames (int64 class codes 0..K-1) and the ``labels=`` each case passes."""
    model = pd.Categorical.from_codes(codes["model"], categories=MODELS)
    ints = {c: codes[c].astype(np.int64) for c in ("y", "yhat", "fold")}
    frame = pd.DataFrame({"y": ints["y"], "yhat": ints["yhat"], "model": model, "fold": ints["fold"]})
    all_int = pd.DataFrame({"y": ints["y"], "yhat": ints["yhat"], "model": codes["model"].astype(np.int64)})
    all_int["fold"] = ints["fold"]
    return {
        "int64, class order inferred": (frame, None),
        f"int64, `labels=[0, ..., {K - 1}]`": (frame, list(range(K))),
        "int64, class order inferred, `model` as int64 codes too": (all_int, None),
    }


def make_label_arrays(codes: dict[str, np.ndarray]) -> dict[str, tuple[xr.DataArray, xr.DataArray]]:
    """int64 true/pred label arrays of the same class codes, 100 groups of n / 100 samples (group-major)."""
    n = len(codes["y"])
    y, yhat = codes["y"].astype(np.int64), codes["yhat"].astype(np.int64)
    coords = {"model": MODELS, "fold": np.arange(FOLDS)}
    by_model = [
        xr.DataArray(
            v.reshape(len(MODELS), FOLDS, n // (len(MODELS) * FOLDS)), dims=("model", "fold", "sample"), coords=coords
        )
        for v in (y, yhat)
    ]
    by_group = [xr.DataArray(v.reshape(len(MODELS) * FOLDS, -1), dims=("group", "sample")) for v in (y, yhat)]
    return {
        '`("model", "fold", "sample")`': tuple(by_model),
        '`("group", "sample")`': tuple(by_group),
        '`("sample", "group")` (transposed views: samples not contiguous)': tuple(a.T for a in by_group),
    }


def timed(func, repeats: int) -> tuple[list[float], object]:
    times, result = [], None
    for _ in range(repeats):
        result = None
        gc.collect()
        start = time.process_time()
        result = func()
        times.append(time.process_time() - start)
    return times, result


def sklearn_cube(df: pd.DataFrame, labels=LABELS) -> dict:
    return {
        key: confusion_matrix(g["y"], g["yhat"], labels=labels)
        for key, g in df.groupby(["model", "fold"], observed=True)
    }


def check_cube(cube: xr.DataArray, expected: np.ndarray, classes=LABELS, models=MODELS) -> None:
    assert cube.dims == ("model", "fold", "true", "pred"), cube.dims
    assert list(cube.coords["model"].values) == list(models)
    assert list(cube.coords["fold"].values) == list(range(FOLDS))
    assert list(cube.coords["true"].values) == list(classes) == list(cube.coords["pred"].values)
    assert cube.dtype == np.int64
    np.testing.assert_array_equal(cube.values.reshape(-1), expected)


def check_array_cube(cube: xr.DataArray, expected: np.ndarray) -> None:
    assert cube.dims[-2:] == ("true", "pred") and cube.dims[:-2] in (("model", "fold"), ("group",)), cube.dims
    if cube.dims[0] == "model":
        assert list(cube.coords["model"].values) == MODELS
        assert list(cube.coords["fold"].values) == list(range(FOLDS))
    assert list(cube.coords["true"].values) == list(range(K)) == list(cube.coords["pred"].values)
    assert cube.dtype == np.int64
    np.testing.assert_array_equal(cube.values.reshape(-1), expected)


def check_sklearn(result: dict, expected: np.ndarray, models=MODELS) -> None:
    counts = expected.reshape(len(MODELS), FOLDS, K, K)
    assert len(result) == len(MODELS) * FOLDS
    for (model, fold), matrix in result.items():
        np.testing.assert_array_equal(matrix, counts[list(models).index(model), fold])


def check_value_counts(result: pd.Series, expected: np.ndarray) -> None:
    """pandas' counts of the (model, fold, y, yhat) combinations that occur, against the bincount counts."""
    model, fold, y, yhat = (result.index.get_level_values(i).to_numpy() for i in range(4))
    cells = np.zeros(CELLS, np.int64)
    cells[((model.astype(np.int64) * FOLDS + fold) * K + y) * K + yhat] = result.to_numpy()
    assert result.to_numpy().sum() == expected.sum()
    np.testing.assert_array_equal(cells, expected)


def check_contingency(table: xr.DataArray, expected: np.ndarray) -> None:
    assert table.dims == ("model", "fold", "observations_category", "forecasts_category"), table.dims
    np.testing.assert_array_equal(table.values.reshape(-1), expected)


def fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--repeats", type=int, default=7, help="runs of each fast timing (the minimum is reported)")
    parser.add_argument("--sklearn-repeats", type=int, default=1, help="runs of the scikit-learn loop")
    parser.add_argument("--peer-repeats", type=int, default=3, help="runs of each pandas and xskillscore peer")
    parser.add_argument("--seed", type=int, default=0, help="random number generator seed of the data")
    parser.add_argument("--smoke", action="store_true", help="20,000 rows, one run of each: the checks only")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows, args.repeats, args.sklearn_repeats, args.peer_repeats = 20_000, 1, 1, 1
    assert args.repeats >= 1 and args.sklearn_repeats >= 1 and args.peer_repeats >= 1
    assert args.rows % (len(MODELS) * FOLDS) == 0, f"--rows must be a multiple of {len(MODELS) * FOLDS}"

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
    del frames

    # Integer labels, DataFrame front end (same rows, same floor). The scikit-learn loop on the first
    # frame (class codes 0..K-1 instead of names) is also its strongest baseline.
    int_frames = make_int_frames(codes)
    int_rows = []
    for kind, (df, labels) in int_frames.items():
        models = MODELS if isinstance(df["model"].dtype, pd.CategoricalDtype) else list(range(len(MODELS)))
        build = lambda: df.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=labels)  # noqa: E731
        t_cold, cube = timed(build, 1)
        check_cube(cube, expected, range(K), models)
        t_ours, cube = timed(build, args.repeats)
        check_cube(cube, expected, range(K), models)
        t_sklearn, result = timed(lambda: sklearn_cube(df, range(K)), args.sklearn_repeats)
        check_sklearn(result, expected, models)
        int_rows.append((kind, t_cold[0], t_ours, t_sklearn))

    # Peers over the four integer columns: pandas counts the combinations that occur.
    all_int = int_frames["int64, class order inferred, `model` as int64 codes too"][0]
    columns = ["model", "fold", "y", "yhat"]
    peers = []
    for name, func in (
        (f"pandas `df.value_counts({columns}, sort=False)`", lambda: all_int.value_counts(columns, sort=False)),
        (f"pandas `df.groupby({columns}).size()`", lambda: all_int.groupby(columns).size()),
    ):
        t_peer, result = timed(func, args.peer_repeats)
        check_value_counts(result, expected)
        peers.append((name, "frame", t_peer))

    # Integer labels, label-array front end: the same class codes, 100 groups of n / 100 samples each.
    group_codes = np.repeat(np.arange(len(MODELS) * FOLDS, dtype=np.int64), args.rows // (len(MODELS) * FOLDS))
    combined_arrays = (group_codes * K + codes["y"]) * K + codes["yhat"]
    del group_codes
    t_bincount_arrays, expected_arrays = timed(lambda: np.bincount(combined_arrays, minlength=CELLS), args.repeats)
    arrays = make_label_arrays(codes)
    array_rows = []
    for kind, (true, pred) in arrays.items():
        build = lambda: pred.ordinal.confusion(true, dim="sample")  # noqa: E731
        t_cold, cube = timed(build, 1)
        check_array_cube(cube, expected_arrays)
        t_ours, cube = timed(build, args.repeats)
        check_array_cube(cube, expected_arrays)
        array_rows.append((kind, t_cold[0], t_ours))
    if xskillscore is not None:
        true, pred = arrays['`("model", "fold", "sample")`']
        edges = np.arange(K + 1) - 0.5
        t_peer, table = timed(
            lambda: xskillscore.Contingency(true, pred, edges, edges, dim="sample").table, args.peer_repeats
        )
        check_contingency(table, expected_arrays)
        peers.append(('xskillscore `Contingency(true, pred, edges, edges, dim="sample").table`', "arrays", t_peer))
    load_after = os.getloadavg()

    if args.smoke:
        print("bench_confusion smoke: every cube equals the bincount counts, scikit-learn's matrices and the peers'")
        return
    best_bincount = min(t_bincount)
    out = ["# Benchmark: confusion cubes (`df.ordinal.confusion`)", ""]
    out += ["| machine | |", "|---|---|"] + [
        f"| {k} | {v} |" for k, v in machine([("scikit-learn", sklearn.__version__)])
    ]
    out += [
        f"| load average (1 min) before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |",
        "",
        f'Case: {args.rows:,} rows, K = {K} classes, `by=["model", "fold"]` with `model` a categorical of '
        f"{len(MODELS)} levels and `fold` an int64 column 0..{FOLDS - 1} ({len(MODELS) * FOLDS} groups). "
        f"Process CPU time (every timed call is single-threaded). Fast timings: minimum (median) of {args.repeats} runs; scikit-learn: minimum of {args.sklearn_repeats} run(s). "
        "Every cube was checked equal to the bincount counts and to scikit-learn's matrices "
        "(the integer-label cases below as well).",
        "",
        f"t_bincount (one `numpy.bincount` over precomputed combined int64 codes, `minlength={CELLS}`): "
        f"**{fmt(best_bincount)}** (median {fmt(statistics.median(t_bincount))}).",
        "",
        "Targets: the ordered-Categorical case <= 3; pandas' default string dtype (arrow strings): "
        "t_ours / t_bincount <= 6. Python strings of object dtype are reported.",
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
            else ("met (<= 6)" if floor <= 6 else "NOT met (<= 6)", "reported")
            if "default dtype" in kind
            else ("reported", "reported")
        )
        out.append(
            f"| {kind} | {fmt(ours)} ({fmt(statistics.median(t_ours))}) | {fmt(cold)} | {fmt(min(t_sklearn))} | "
            f"**{floor:.2f}** ({floor_note}) | **{speedup:.0f}** ({speedup_note}) |"
        )
    t_cat = min(rows[0][2])
    t_sklearn_int = int_rows[0][3]
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

    cat_floor = t_cat / best_bincount
    best_arrays = min(t_bincount_arrays)
    out += [
        "",
        "## Integer labels",
        "",
        f"Target: t_ours / t_bincount <= 5 for integer labels in both front ends; the ordered-Categorical case "
        f"above keeps its <= 3 (**{cat_floor:.2f}**, {'met' if cat_floor <= 3 else 'NOT met'}). The class codes "
        f"are those of the cases above (int64 0..{K - 1}), so every floor counts the same rows.",
        "",
        '### DataFrame front end: `df.ordinal.confusion("y", "yhat", by=["model", "fold"])`',
        "",
        f"Same frame layout as above (`model` categorical, `fold` int64) with int64 `y` / `yhat`; floor: "
        f"t_bincount = {fmt(best_bincount)}. `t_sklearn` is the same groupby loop with `labels=range({K})`.",
        "",
        "| labels | t_ours | first call | t_sklearn | t_ours / t_bincount (target <= 5) | t_sklearn / t_ours |",
        "|---|---|---|---|---|---|",
    ]
    for kind, cold, t_ours, t_sklearn in int_rows:
        ours = min(t_ours)
        floor = ours / best_bincount
        out.append(
            f"| {kind} | {fmt(ours)} ({fmt(statistics.median(t_ours))}) | {fmt(cold)} | {fmt(min(t_sklearn))} | "
            f"**{floor:.2f}** ({'met' if floor <= 5 else 'NOT met'}) | {min(t_sklearn) / ours:.0f} |"
        )
    out += [
        "",
        '### Label-array front end: `pred.ordinal.confusion(true, dim="sample")`',
        "",
        f"`true` and `pred`: numpy-backed int64 `xarray.DataArray`s holding the same class codes as the frame, "
        f"reshaped to {len(MODELS) * FOLDS} groups of {args.rows // (len(MODELS) * FOLDS):,} samples (no `labels=`; "
        f"the `model` / `fold` layout carries the coordinates {MODELS} and 0..{FOLDS - 1}). Their floor is one "
        f"`numpy.bincount` over precomputed combined int64 codes of these rows, which lie in group order: "
        f"t_bincount(arrays) = **{fmt(best_arrays)}** (median {fmt(statistics.median(t_bincount_arrays))}), "
        f"against {fmt(best_bincount)} for the frame's rows in shuffled group order. The verdict uses the "
        "stricter floor (the arrays' own rows); the ratio to the frame's floor is given beside it.",
        "",
        "| dims of `true` / `pred` | t_ours | first call | t_ours / t_bincount(arrays) (target <= 5) | "
        "t_ours / t_bincount(frame rows) |",
        "|---|---|---|---|---|",
    ]
    for kind, cold, t_ours in array_rows:
        ours = min(t_ours)
        floor = ours / best_arrays
        out.append(
            f"| {kind} | {fmt(ours)} ({fmt(statistics.median(t_ours))}) | {fmt(cold)} | "
            f"**{floor:.2f}** ({'met' if floor <= 5 else 'NOT met'}) | {ours / best_bincount:.2f} |"
        )
    ours_by_data = {"frame": min(int_rows[2][2]), "arrays": min(array_rows[0][2])}
    floor_by_data = {"frame": best_bincount, "arrays": best_arrays}
    out += [
        "",
        "### Peers (context, same run)",
        "",
        f"Minimum (median) of {args.peer_repeats} run(s); each result was checked equal to the bincount counts. "
        "pandas runs on the all-int64 frame (`model` as int64 codes) and counts only the combinations that occur; "
        f'xskillscore on the `("model", "fold", "sample")` label arrays with bin edges -0.5, 0.5, ..., '
        f"{K - 0.5}. The last column compares with ordframe on the same input (the all-int64 frame, or those label "
        "arrays).",
        "",
        "| peer | time | / t_bincount of its rows | / ordframe on the same input |",
        "|---|---|---|---|",
    ]
    for name, data, t_peer in peers:
        best_peer = min(t_peer)
        out.append(
            f"| {name} | {fmt(best_peer)} ({fmt(statistics.median(t_peer))}) | "
            f"{best_peer / floor_by_data[data]:.1f} | {best_peer / ours_by_data[data]:.1f} |"
        )
    out += [
        "",
        'Reproduce with `pip install -e ".[bench]"` (scikit-learn for the baseline) and `pip install xskillscore`, '
        "then `python benchmarks/bench_confusion.py > benchmarks/results_confusion.md`; `--help` lists `--rows`, "
        "`--repeats`, `--sklearn-repeats`, `--peer-repeats` and `--seed` (of the random number generator). The peak "
        "memory of 10^8-row label arrays is measured by `benchmarks/bench_memory.py` (`results_memory.md`).",
    ]
    print("\n".join(out))


if __name__ == "__main__":
    sys.exit(main())
