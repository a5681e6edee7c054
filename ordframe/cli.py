"""The ``ordframe`` command: ``score`` a prediction file, ``demo``, ``reproduce`` the papers' values, list ``metrics``.

Errors are one line on standard error and a non-zero exit code, never a
traceback; a closed output pipe (``ordframe score ... | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import shutil
import sys
import textwrap
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from . import __version__, papers, registry
from .apply import apply_confusion
from .dims import CUBE_DIMS
from .intervals import ci

FORMATS = ("table", "csv", "json", "markdown")


class UsageError(Exception):
    """A mistake in the command line or the input file: reported in one line, exit code 2."""


# --------------------------------------------------------------------------- score


def read_predictions(path: str) -> pd.DataFrame:
    """A prediction file: CSV (any extension but Parquet's) or Parquet (``.parquet``, ``.pq``)."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"no such file: {path}")
    try:
        if file.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(file)
        return pd.read_csv(file)
    except ImportError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    except (ValueError, OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read {path} as {'Parquet' if file.suffix.lower() in ('.parquet', '.pq') else 'CSV'}: "
            f"{str(exc).splitlines()[0]}"
        ) from None


def typed_labels(tokens: list[str] | None, column: pd.Series):
    """``--labels`` tokens as the label column's type (numbers for a numeric column)."""
    if tokens is None:
        return None
    if pd.api.types.is_numeric_dtype(column.dtype) and not pd.api.types.is_bool_dtype(column.dtype):
        try:
            values = [float(t) for t in tokens]
        except ValueError:
            raise UsageError(f"--labels {' '.join(tokens)}: the labels of a numeric column must be numbers") from None
        return [int(v) if v.is_integer() and pd.api.types.is_integer_dtype(column.dtype) else v for v in values]
    return tokens


def score_table(df: pd.DataFrame, args) -> pd.DataFrame:
    """One row per group (or one row), one column per metric (with ``_low``/``_high`` for a bootstrap)."""
    for column in [args.true, args.pred, *(args.proba or []), *(args.by or [])]:
        if column is not None and column not in df.columns:
            raise UsageError(f"column {column!r} is not in the file; its columns are {list(df.columns)}")
    labels = typed_labels(args.labels, df[args.true])
    by = args.by or None
    if args.bootstrap is None:
        ds = df.ordinal.evaluate(
            args.true, args.pred, proba=args.proba, metrics=args.metrics, by=by, labels=labels, dropna=args.dropna
        )
        return _to_frame(ds, by)
    if args.proba:
        raise UsageError("--bootstrap resamples confusion matrices: score --proba columns without it")
    cube = df.ordinal.confusion(args.true, args.pred, by=by, labels=labels, dropna=args.dropna)
    values = cube.ordinal.evaluate(metrics=args.metrics)
    bounds = ci(cube.ordinal.bootstrap(args.bootstrap, seed=args.seed).ordinal.evaluate(metrics=args.metrics))
    table = _to_frame(values, by)
    for name in values.data_vars:
        for bound in ("low", "high"):
            table[f"{name}_{bound}"] = _to_frame(bounds[name].sel(bound=bound, drop=True).to_dataset(), by)[name]
    return table[[c for name in values.data_vars for c in (name, f"{name}_low", f"{name}_high")]]


def _to_frame(ds: xr.Dataset, by) -> pd.DataFrame:
    if not by:
        return pd.DataFrame({name: [float(v)] for name, v in ds.data_vars.items()})
    return ds.to_dataframe()[list(ds.data_vars)]


def render(table: pd.DataFrame, fmt: str) -> str:
    """The table as text in ``fmt``."""
    show_index = not isinstance(table.index, pd.RangeIndex)
    if fmt == "csv":
        return table.to_csv(index=show_index)
    if fmt == "json":
        records = table.reset_index() if show_index else table
        return json.dumps(json.loads(records.to_json(orient="records")), indent=2) + "\n"
    rounded = table.round(4)
    if fmt == "markdown":
        frame = rounded.reset_index() if show_index else rounded
        header = "| " + " | ".join(map(str, frame.columns)) + " |"
        rows = ["| " + " | ".join(map(str, row)) + " |" for row in frame.itertuples(index=False)]
        return "\n".join([header, "|" + "---|" * len(frame.columns), *rows]) + "\n"
    return rounded.to_string(index=show_index, line_width=shutil.get_terminal_size().columns) + "\n"


def score(args, out) -> int:
    if args.true is None or (args.pred is None and not args.proba):
        raise UsageError("score needs --true COL and --pred COL (or --proba COLS)")
    table = score_table(read_predictions(args.file), args)
    text = render(table, args.format)
    if args.out:
        Path(args.out).write_text(text)
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        out.write(text)
    return 0


# --------------------------------------------------------------------------- reproduce


def _published_rows(cases, compute) -> pd.DataFrame:
    rows = []
    for case in cases:
        for key, published in case.values.items():
            name = papers.metric_name(key)
            if name not in registry.metric_names():
                continue
            value = compute(case, name, dict(case.params.get(key, {})))
            ok = (math.isnan(value) and math.isnan(published)) or abs(value - published) <= case.abs_tol(key)
            rows.append(
                {
                    "source": case.source,
                    "case": case.name,
                    "value": key,
                    "published": case.printed[key],
                    "ordframe": round(value, 4),
                    "agrees": "skipped" if key in case.skip else ("yes" if ok else "NO"),
                    "note": case.skip.get(key, ""),
                }
            )
    return pd.DataFrame(rows)


def _confusion_value(case, name, params):
    cube = xr.DataArray(np.array(case.matrix), dims=CUBE_DIMS)
    return float(apply_confusion(registry.get_metric(name), cube, params))


def _proba_value(case, name, params):
    proba = xr.DataArray([case.proba], dims=("sample", "class"), coords={"class": range(len(case.proba))})
    true = xr.DataArray([case.true_index], dims="sample")
    return getattr(proba.ordinal, name)(true, **params)


def reproduce(args, out) -> int:
    """Print every built-in metric on the papers' worked examples next to the published values."""
    tables = [
        _published_rows(papers.CONFUSION_CASES, _confusion_value),
        _published_rows(papers.PROBA_CASES, _proba_value),
    ]
    table = pd.concat([t for t in tables if len(t)], ignore_index=True)
    with pd.option_context("display.max_rows", None, "display.width", 250, "display.max_colwidth", 80):
        for source, part in table.groupby("source", sort=False):
            print(f"\n== {source} ==", file=out)
            shown = part.drop(columns="source")
            if not shown["note"].astype(bool).any():
                shown = shown.drop(columns="note")
            print(shown.to_string(index=False), file=out)
    counts = table["agrees"].value_counts()
    print(
        f"\n{counts.get('yes', 0)} published values reproduced, {counts.get('NO', 0)} not, "
        f"{counts.get('skipped', 0)} skipped as misprints in the papers (the note beside each says why).",
        file=out,
    )
    return 1 if counts.get("NO", 0) else 0


# --------------------------------------------------------------------------- main


def demo(args, out) -> int:
    """Run the demo (``ordframe.demo``)."""
    from .demo import run

    if args.reps < 2:
        raise UsageError("--reps must be at least 2")
    return run(args.out, reps=args.reps, quick=args.quick, stream=out)


def metrics(args, out) -> int:
    """Print the registered metrics (name, kind, direction, description; wrapped to the terminal) and failed plugins."""
    table = registry.list_metrics()
    failed, table = table[table["status"] != "ok"], table[table["status"] == "ok"]
    table = table.assign(direction=table["direction"].str.replace(" is better", "", regex=False))
    columns = ["name", "kind", "direction"]
    widths = [max(len(c), table[c].str.len().max()) for c in columns]
    indent = sum(widths) + 2 * len(columns)
    width = max(shutil.get_terminal_size().columns, indent + 30)
    print("  ".join(c.ljust(w) for c, w in zip(columns, widths)) + "  description", file=out)
    for row in table.itertuples(index=False):
        first = "  ".join(getattr(row, c).ljust(w) for c, w in zip(columns, widths)) + "  "
        description = row.description + ("" if row.plugin.startswith("ordframe.") else f" (plugin {row.plugin})")
        print(textwrap.fill(description, width, initial_indent=first, subsequent_indent=" " * indent), file=out)
    for row in failed.itertuples(index=False):
        print(f"plugin {row.plugin} {row.status}", file=out)
    print("\nParameters, bounds and references: ordframe.list_metrics() in Python.", file=out)
    return 0


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(prog="ordframe", description="Order-aware evaluation of ordinal classifiers.")
    main_parser.add_argument("--version", action="version", version=f"ordframe {__version__}")
    commands = main_parser.add_subparsers(dest="command", required=True)
    scorer = commands.add_parser("score", help="score a prediction file (CSV or Parquet)")
    scorer.add_argument("file", help="a CSV or Parquet file with one row per prediction")
    scorer.add_argument("--true", help="the column of true labels")
    scorer.add_argument("--pred", help="the column of predicted labels")
    scorer.add_argument("--proba", nargs="+", metavar="COL", help="probability columns, in class order")
    scorer.add_argument("--by", nargs="+", metavar="COL", help="one result per combination of these columns")
    scorer.add_argument("--metrics", nargs="+", metavar="NAME", help="metric names (default: all that apply)")
    scorer.add_argument("--labels", nargs="+", metavar="LABEL", help="the classes in order, lowest first")
    scorer.add_argument("--bootstrap", type=int, metavar="N", help="add 95%% percentile intervals from N replicates")
    scorer.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    scorer.add_argument("--dropna", action="store_true", help="drop rows with missing labels (reported)")
    scorer.add_argument("--format", choices=FORMATS, default="table")
    scorer.add_argument("--out", metavar="FILE", help="write the result to FILE instead of standard output")
    commands.add_parser("reproduce", help="reproduce the published values of the papers ordframe implements")
    demo_parser = commands.add_parser("demo", help="three ordinal models on the bundled data sets, evaluated")
    demo_parser.add_argument("--reps", type=int, default=5, help="train/test splits per data set (default 5)")
    demo_parser.add_argument("--out", default="ordframe-demo", help="folder for the results (default ordframe-demo)")
    demo_parser.add_argument("--quick", action="store_true", help="three data sets, three splits")
    commands.add_parser("metrics", help="list the registered metrics and plugins")
    return main_parser


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    run = {"score": score, "reproduce": reproduce, "demo": demo, "metrics": metrics}[args.command]
    out = sys.stdout
    try:
        return run(args, out)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (UsageError, KeyError, ValueError, TypeError, MemoryError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"ordframe {args.command}: error: {message}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
