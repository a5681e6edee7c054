"""Benchmark: confusion cubes of polars DataFrames and LazyFrames (``frame.ordinal.confusion``), against a bincount.

``--rows`` rows, K = 5 classes, ``by=["model", "fold"]`` (4 models x 25 folds).
Cases: labels as a polars ``Enum`` (``model`` an ``Enum`` too, ``fold`` Int64),
as Int64 (all four columns Int64) and as String (``labels=`` given; ``model``
an ``Enum``); each on an eager DataFrame and on a LazyFrame of it. Floor: one ``numpy.bincount`` of precomputed int64 cell codes.
Peer: polars' own ``group_by([...]).len()`` of the same columns. Process CPU
time, minimum of ``--repeats``; every cube (and polars' counts) is checked
equal to the bincount counts. Targets: ``frame.ordinal.confusion`` at most 3x
the floor (6x for string labels, as for pandas' arrow strings). The count is compiled with
the ``numba`` extra; each DataFrame is also timed with numpy's count (the
fallback, as with ``ORDFRAME_NUMBA=0``), for the record. For string labels, where the time of a label
column goes: coded from polars' string views (as a call does), and the copy into arrow's contiguous strings
that this replaced, with the coding of those.

    python benchmarks/bench_polars.py > benchmarks/results_polars.md
    python benchmarks/bench_polars.py --smoke      # tiny sizes, the checks only
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import sys
import time

import numpy as np
import pandas as pd
import polars as pl
from machine_info import machine

import ordframe  # noqa: F401  (registers the namespace)
from ordframe._core import compiling, options
from ordframe._inputs import classes, counting, polars_frame

compiling.steady_state()  # every compiled routine at every size, as once a process's numpy work paid for it

K, MODELS, FOLDS = 5, 4, 25
TARGET, STRING_TARGET = 3, 6
GRADES = [f"grade_{i}" for i in range(K)]
MODEL_NAMES = [f"model_{i}" for i in range(MODELS)]


def codes(n: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    return {
        "y": y,
        "yhat": np.clip(y + rng.integers(-1, 2, n), 0, K - 1),
        "model": rng.integers(0, MODELS, n),
        "fold": rng.integers(0, FOLDS, n),
    }


def frames(c: dict[str, np.ndarray]) -> dict[str, pl.DataFrame]:
    grades, models = pl.Enum(GRADES), pl.Enum(MODEL_NAMES)
    text = pl.DataFrame(
        {
            "y": pl.Series(np.array(GRADES)[c["y"]]),
            "yhat": pl.Series(np.array(GRADES)[c["yhat"]]),
            "model": pl.Series(np.array(MODEL_NAMES)[c["model"]]).cast(models),
            "fold": c["fold"],
        }
    )
    enum = text.with_columns(pl.col("y", "yhat").cast(grades))
    return {
        "Enum labels (`model` an Enum)": enum,
        "Int64 labels (all Int64)": pl.DataFrame(c),
        "String labels (`model` an Enum)": text,
    }


def cpu(func, repeats: int):
    best, result = np.inf, None
    for _ in range(repeats):
        start = time.process_time()
        result = func()
        best = min(best, time.process_time() - start)
    return best, result


def string_split(column: pl.Series, repeats: int) -> list[tuple[str, float]]:
    """Where the time of one string label column goes: its coding from polars' views, and the copy and coding
    of the arrow strings it replaced; each coding checked equal to the codes of the Python strings."""
    import pyarrow as pa

    expected = pd.Index(GRADES).get_indexer(column.to_numpy())
    t_views, declared = cpu(
        lambda: polars_frame.declared_labels(column, pd.CategoricalDtype(GRADES, ordered=True)), repeats
    )
    np.testing.assert_array_equal(declared.cat.codes, expected)
    t_copy, copied = cpu(lambda: column.to_arrow().cast(pa.large_string()), repeats)
    strings = classes.labels_of("y", pd.Series(pd.arrays.ArrowExtensionArray(copied)))
    t_lookup, codes = cpu(lambda: classes.encode(strings, pd.Index(GRADES)), repeats)
    np.testing.assert_array_equal(codes, expected)
    return [
        ("coded from polars' string views, as a call does (`polars_frame.declared_labels`)", t_views),
        ("the copy this avoids (the path before): polars' `to_arrow()` into arrow's contiguous strings", t_copy),
        ("then those arrow strings coded, as pandas' arrow strings are (`classes.encode`)", t_lookup),
    ]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rows", type=int, default=10**7)
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--smoke", action="store_true", help="small sizes, one run: the checks only")
    args = parser.parse_args(argv)
    if args.smoke:
        args.rows, args.repeats = counting.CHECKED_ROWS, 1  # the compiled count and sampled spans run
    load = os.getloadavg()
    c = codes(args.rows, args.seed)
    cells = ((c["model"] * FOLDS + c["fold"]) * K + c["y"]) * K + c["yhat"]
    floor, expected = cpu(lambda: np.bincount(cells, minlength=MODELS * FOLDS * K * K), args.repeats)
    expected = expected.reshape(MODELS, FOLDS, K, K)
    rows, reads = [], {}
    for name, frame in frames(c).items():
        text = frame.schema["y"] == pl.String
        labels = GRADES if text else None
        if not text:  # strings have no such read of fixed-width codes
            columns = [frame.get_column(n).to_physical().to_numpy() for n in ("y", "yhat", "model", "fold")]
            reads[name], _ = cpu(lambda: [np.minimum.reduce(a) for a in columns], args.repeats)
        runs = [("DataFrame", frame, True), ("LazyFrame", frame.lazy(), True)]
        runs += [("DataFrame, numpy's count (without numba: the fallback)", frame, False)] if options.COMPILED else []
        for kind, source, compiled in runs:
            options.COMPILED = compiled
            try:
                t, cube = cpu(
                    lambda: source.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=labels), args.repeats
                )
            finally:
                options.COMPILED = runs[0][2]
            np.testing.assert_array_equal(cube.values, expected)
            rows.append((name, kind, t, STRING_TARGET if text else TARGET))
        if text:
            split = string_split(frame.get_column("y"), args.repeats)
        t_peer, counts = cpu(lambda: frame.group_by(["model", "fold", "y", "yhat"]).len(), args.repeats)
        assert counts["len"].sum() == args.rows and len(counts) == np.count_nonzero(expected)
        rows.append((name, "polars `group_by([model, fold, y, yhat]).len()` (peer)", t_peer, None))
    if args.smoke:
        print("bench_polars smoke: every cube (numba's count and numpy's) and polars' counts equal the bincount counts")
        return 0
    out = ["# Benchmark: polars confusion cubes (`frame.ordinal.confusion`)", ""]
    count = f"compiled (numba {importlib.metadata.version('numba')})" if options.COMPILED else "numpy only"
    extra = [("polars", pl.__version__), ("count", count)]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine(extra)]
    out += [
        f"| load average (1 min) before / after | {load[0]:.2f} / {os.getloadavg()[0]:.2f} |",
        "",
        f'{args.rows:,} rows, K = {K}, `by=["model", "fold"]` ({MODELS} x {FOLDS} groups). Process CPU time, '
        f"minimum of {args.repeats} runs. Floor: one `numpy.bincount` of precomputed int64 cell codes, "
        f"**{floor * 1e3:.1f} ms**. Target: at most {TARGET}x the floor ({STRING_TARGET}x for string labels).",
        "",
        "| labels | input | time | / floor |",
        "|---|---|---|---|",
    ]
    for name, t in reads.items():
        out.append(
            f"| {name} | reference: the floor plus one read of the four columns (numpy's `min` of each) | "
            f"{(floor + t) * 1e3:.1f} ms | **{(floor + t) / floor:.2f}** |"
        )
    for name, kind, t, target in rows:
        ratio = t / floor
        verdict = "" if target is None or "fallback" in kind else f" ({'met' if ratio <= target else 'NOT met'})"
        out.append(f"| {name} | {kind} | {t * 1e3:.1f} ms | **{ratio:.2f}**{verdict} |")
    out += [
        "",
        f"String labels, where the time of one {args.rows:,}-row label column goes (minimum of {args.repeats} runs, "
        "the codes checked):",
        "",
        "| step | time | / floor |",
        "|---|---|---|",
    ]
    out += [f"| {step} | {t * 1e3:.1f} ms | {t / floor:.2f} |" for step, t in split]
    out += [
        "",
        "The columns a call names leave polars as numpy arrays without a copy (an `Enum` as its physical codes, "
        "read as pandas' signed codes) and are counted by ordframe's one front end; polars' own `group_by` (a hash "
        "aggregation) is given as the peer it would have been. The reference is what a counting of these rows "
        "that reads every named column once (as polars holds it: an `Enum` as 1-byte codes, an Int64 column as "
        "8 bytes) and then counts as the floor does would cost; the read is timed as numpy's `min` of each column, "
        "which the compiled count's own pass over the columns can beat, so it is no strict lower bound. ordframe "
        "reads each column once: the spans of "
        "integer labels and `by` columns (which decide the class order and the groups) are read from a sample of "
        "the rows, and the count checks every row's codes against them while it counts (a row outside makes the "
        "spans exact and the rows counted again): the compiled count (the `numba` extra) as it combines them, "
        "numpy's count (the fallback without numba) by each block's lowest and highest code while the block is in "
        "the CPU cache. A String label column with `labels=` is read as the ordered Categorical of the classes, as "
        "if it were their `Enum`: the compiled coder reads polars' string views where polars holds them (16 bytes "
        "a row, a string of up to 12 bytes inside its view) and looks each up in the classes' perfect hash, the "
        "lookup pandas' arrow strings take; polars' `to_arrow()` copied the views into arrow's contiguous strings "
        "first, which pandas' own kernels need (pyarrow has none for views). A value outside the classes keeps the "
        "column as arrow strings, so that the error names it as before.",
        "",
        "Reproduce with `python benchmarks/bench_polars.py > benchmarks/results_polars.md` (`--rows`, `--repeats`, "
        "`--seed`).",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
