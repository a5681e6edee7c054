"""The ``ordframe`` command: ``score`` a prediction file, ``demo``, ``reproduce`` the papers' values, list ``metrics``.

Errors are one line on standard error and a non-zero exit code, never a
traceback; a closed output pipe (``ordframe score ... | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import re
import shutil
import sys
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from . import __version__, papers, registry
from .apply import apply_confusion
from .dims import CUBE_DIMS, OBSERVED_DIM
from .intervals import ci

FORMATS = ("table", "csv", "json", "markdown")
# ``score``'s default: the common indices and the order-aware ones of the papers (``--metrics all``: every metric)
CORE_METRICS = ["accuracy", "mae", "amae", "qwk", "kendall_tau_b", "rint", "oc", "uoc", "d"]
CORE_PROBA_METRICS = ["rps", "brier", "log_score"]
# library words -> command-line words, for the messages of errors and warnings
OPTIONS = [
    (
        r"Pass labels=\[\.\.\.\] in order \(lowest first\), or make the columns pandas ordered Categoricals",
        "Pass --labels with the classes in order, lowest first",
    ),
    (
        r"pass labels=\[\.\.\.\] naming the class of each column, in order \(or a dict label -> column\)",
        "pass --labels naming the class of each --proba column, in the same order",
    ),
    (
        r"pass the probability columns \(proba=\) or, for a DataArray, class_dim= naming its class dim",
        "pass the probability columns with --proba",
    ),
    (r"n must be a whole number of replicates", "--bootstrap must be a whole number of replicates"),
    (r"in evaluate with pred=, a by group", "with --pred, a --by group"),
    (r"labels=\[\.\.\.\]", "--labels"),
    (r"\blabels=", "--labels"),
    (r"dropna=True", "--dropna"),
    (r"\bproba=", "--proba"),
    (r"\bpred=", "--pred"),
    (r"first at rows (\[[^\]]*\])", r"first at rows \1 (counted from 0, after the header)"),
    (r"renormalize=True", "--renormalize"),
    (r"\bby= names", "--by names"),
    (r"\bproba lists", "--proba lists"),
    (r"rename it, e\.g\. df\.rename\(columns=\{.*?\}\)", "rename that column in the file"),
]


class UsageError(Exception):
    """A mistake in the command line or the input file: reported in one line, exit code 2."""


# --------------------------------------------------------------------------- score


def read_predictions(path: str) -> pd.DataFrame:
    """A prediction file: CSV (any extension but Parquet's) or Parquet (``.parquet``, ``.pq``)."""
    file = Path(path)
    if not file.is_file():
        raise UsageError(f"{path} is a directory, not a prediction file" if file.is_dir() else f"no such file: {path}")
    try:
        if file.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(file)
        frame = pd.read_csv(file, low_memory=False)  # one type per column, not one per chunk
    except ImportError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    except (ValueError, OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read {path} as {'Parquet' if file.suffix.lower() in ('.parquet', '.pq') else 'CSV'}: "
            f"{str(exc).splitlines()[0]}"
        ) from None
    if len(frame.columns) == 1:  # one column: perhaps another separator than the comma
        header = str(frame.columns[0])
        separator = next((sep for sep in (";", "\t", "|") if sep in header), None)
        if separator is not None:
            raise UsageError(
                f"{path} has one column, {header[:60]!r}: ordframe reads comma-separated files; "
                f"it looks {separator!r}-separated: convert it to commas (or to Parquet)"
            )
    return frame


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


def requested_metrics(args) -> list[str] | None:
    """``--metrics``: the names given, ``None`` for ``all`` (every metric), or the core set by default."""
    if args.metrics is None:
        return CORE_METRICS + (CORE_PROBA_METRICS if args.proba else []) if args.pred else CORE_PROBA_METRICS
    if "all" in args.metrics:
        if len(args.metrics) > 1:
            raise UsageError(f"--metrics all means every metric: give it alone, or names only (got {args.metrics})")
        return None
    return args.metrics


def score_table(df: pd.DataFrame, args) -> pd.DataFrame:
    """One row per group (or one row), one column per metric (with ``_low``/``_high`` for a bootstrap)."""
    for column in [args.true, args.pred, *(args.proba or []), *(args.by or [])]:
        if column is not None and column not in df.columns:
            raise UsageError(f"column {column!r} is not in the file; its columns are {list(df.columns)}")
    labels = typed_labels(args.labels, df[args.true])
    by = args.by or None
    metrics = requested_metrics(args)
    # like pandas' groupby: only the --by combinations that occur (the dense layout if a column is named like its dim)
    observed = by is not None and OBSERVED_DIM not in map(str, by)
    common = {"by": by, "labels": labels, "dropna": args.dropna, "observed": observed}
    if args.bootstrap is None:
        ds = df.ordinal.evaluate(
            args.true, args.pred, proba=args.proba, metrics=metrics, renormalize=args.renormalize, **common
        )
        return _to_frame(ds, by)
    if args.proba:
        raise UsageError("--bootstrap resamples confusion matrices: score --proba columns without it")
    cube = df.ordinal.confusion(args.true, args.pred, **common)
    values = cube.ordinal.evaluate(metrics=metrics)
    bounds = ci(cube.ordinal.bootstrap(args.bootstrap, seed=args.seed).ordinal.evaluate(metrics=metrics))
    table = _to_frame(values, by)
    for name in values.data_vars:
        for bound in ("low", "high"):
            table[f"{name}_{bound}"] = _to_frame(bounds[name].sel(bound=bound, drop=True).to_dataset(), by)[name]
    keys = [c for c in table.columns if c not in values.data_vars and not c.endswith(("_low", "_high"))]
    return table[keys + [c for name in values.data_vars for c in (name, f"{name}_low", f"{name}_high")]]


def _hint_groups(df: pd.DataFrame, used: list) -> None:
    """Without ``--by`` every row is pooled: say so when the file has columns that look like models or folds."""
    small = [
        str(c)
        for c in df.columns
        if c not in used and not pd.api.types.is_float_dtype(df[c]) and 1 < df[c].nunique() <= 50
    ]
    if small:
        warnings.warn(
            f"the file's rows are scored as one group; to score each model or fold, add --by with some of "
            f"{', '.join(small[:5])}{', ...' if len(small) > 5 else ''}",
            UserWarning,
            stacklevel=1,
        )


def _to_frame(ds: xr.Dataset, by) -> pd.DataFrame:
    """One row per group: the ``by`` columns first, then one column per variable."""
    if not by:
        return pd.DataFrame({name: [float(v)] for name, v in ds.data_vars.items()})
    return ds.to_dataframe()[list(ds.data_vars)].reset_index()


def render(table: pd.DataFrame, fmt: str, width: int | None = None) -> str:
    """The table (``by`` columns, then metrics) as text in ``fmt``; a ``table`` is wrapped at ``width``."""
    if fmt == "csv":
        return table.to_csv(index=False)
    if fmt == "json":
        records = json.loads(table.to_json(orient="records", date_format="iso"))
        return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
    rounded = table.round({c: 4 for c in table.columns if pd.api.types.is_float_dtype(table[c])})
    if fmt == "markdown":
        header = "| " + " | ".join(map(str, rounded.columns)) + " |"
        rows = ["| " + " | ".join(map(str, row)) + " |" for row in rounded.itertuples(index=False)]
        return "\n".join([header, "|" + "---|" * len(rounded.columns), *rows]) + "\n"
    return rounded.to_string(index=False, line_width=width) + "\n"


def format_of(path: str | None) -> str | None:
    """The format an output file's extension names, if any."""
    suffix = Path(path).suffix.lower() if path else ""
    return {".csv": "csv", ".json": "json", ".md": "markdown", ".markdown": "markdown"}.get(suffix)


def score(args, out) -> int:
    if args.true is None or (args.pred is None and not args.proba):
        raise UsageError("score needs --true COL and --pred COL (or --proba COLS)")
    df = read_predictions(args.file)
    table = score_table(df, args)
    to_file = args.out is not None and args.out != "-"  # "-": standard output
    implied = format_of(args.out) if to_file else None
    fmt = args.format or implied or "table"
    if implied is not None and fmt != implied:
        warnings.warn(f"writing {fmt} to {args.out}, as --format says", UserWarning, stacklevel=1)
    terminal = not to_file and out.isatty()
    text = render(table, fmt, width=shutil.get_terminal_size().columns if terminal else None)
    if to_file:
        try:
            Path(args.out).write_text(text)
        except OSError as exc:
            raise UsageError(f"cannot write {args.out}: {exc.strerror or exc}") from None
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        out.write(text)
    if not args.by:
        _hint_groups(df, [args.true, args.pred, *(args.proba or [])])
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
    width = shutil.get_terminal_size().columns
    if width < indent + 30:  # a narrow terminal: each description on its own lines
        indent, width = 4, max(width, 34)
    header = "  ".join(c.ljust(w) for c, w in zip(columns, widths))
    print(header + ("  description" if indent > 4 else "\n    description"), file=out)
    for row in table.itertuples(index=False):
        first = "  ".join(getattr(row, c).ljust(w) for c, w in zip(columns, widths)) + "  "
        description = row.description + ("" if row.plugin.startswith("ordframe.") else f" (plugin {row.plugin})")
        if indent == 4:
            print(first.rstrip(), file=out)
            first = " " * indent
        print(textwrap.fill(description, width, initial_indent=first, subsequent_indent=" " * indent), file=out)
    for row in failed.itertuples(index=False):
        print(f"plugin {row.plugin} {row.status}", file=out)
    print(
        "\n" + textwrap.fill("Parameters, bounds and references: ordframe.list_metrics() in Python.", width), file=out
    )
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
    scorer.add_argument(
        "--metrics",
        nargs="+",
        metavar="NAME",
        help=f"metric names, or 'all' (default: {' '.join(CORE_METRICS)}, and {' '.join(CORE_PROBA_METRICS)} with --proba)",
    )
    scorer.add_argument("--labels", nargs="+", metavar="LABEL", help="the classes in order, lowest first")
    scorer.add_argument("--bootstrap", type=int, metavar="N", help="add 95%% percentile intervals from N replicates")
    scorer.add_argument("--seed", type=int, default=0, help="random seed of the bootstrap (default 0)")
    scorer.add_argument(
        "--renormalize", action="store_true", help="divide each row of --proba values by its sum instead of requiring 1"
    )
    scorer.add_argument(
        "--dropna",
        action="store_true",
        help="drop rows with a missing label, group value or probability from every metric (the count is reported)",
    )
    scorer.add_argument(
        "--format", choices=FORMATS, help="output format (default: from the --out extension .csv/.json/.md, else table)"
    )
    scorer.add_argument("--out", metavar="FILE", help="write the result to FILE instead of standard output")
    commands.add_parser("reproduce", help="reproduce the published values of the papers ordframe implements")
    demo_parser = commands.add_parser("demo", help="three ordinal models on the bundled data sets, evaluated")
    demo_parser.add_argument("--reps", type=int, default=5, help="train/test splits per data set (default 5)")
    demo_parser.add_argument("--out", default="ordframe-demo", help="folder for the results (default ordframe-demo)")
    demo_parser.add_argument("--quick", action="store_true", help="three data sets, three splits")
    commands.add_parser("metrics", help="list the registered metrics and plugins")
    return main_parser


def for_the_command_line(message: str) -> str:
    """A library message with the command's options in place of Python arguments (``labels=`` -> ``--labels``)."""
    for pattern, words in OPTIONS:
        message = re.sub(pattern, words, message)
    return message


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    run = {"score": score, "reproduce": reproduce, "demo": demo, "metrics": metrics}[args.command]
    out = sys.stdout

    def show_warning(message, category, *_, **__):
        print(f"ordframe {args.command}: warning: {for_the_command_line(str(message))}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show_warning
            return run(args, out)
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except (UsageError, KeyError, ValueError, TypeError, MemoryError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        print(f"ordframe {args.command}: error: {for_the_command_line(str(message))}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
