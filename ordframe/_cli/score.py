"""``ordframe score``: read a prediction file, score it (per group), print or write the table."""

from __future__ import annotations

import json
import shutil
import sys
import warnings
from pathlib import Path

import pandas as pd
import xarray as xr

from ordframe._bridge.evaluate import evaluate_cube, evaluate_frame
from ordframe._cli.wording import UsageError
from ordframe._core.dims import OBSERVED_DIM
from ordframe._inference.intervals import ci
from ordframe._inputs.frame import frame_rows
from ordframe._registry.request import METRIC_SETS
from ordframe._resampling.cubes import bootstrap_cube

FORMATS = ("table", "csv", "json", "markdown")


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
        core, proba = list(METRIC_SETS["core"]), list(METRIC_SETS["core_proba"])
        return core + (proba if args.proba else []) if args.pred else proba
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
        ds = evaluate_frame(
            df, args.true, args.pred, proba=args.proba, metrics=metrics, renormalize=args.renormalize, **common
        )
        return _to_frame(ds, by)
    if args.proba:
        raise UsageError("--bootstrap resamples confusion matrices: score --proba columns without it")
    cube = frame_rows(df, args.true, args.pred, **common).cube()
    values = evaluate_cube(cube, metrics)
    bounds = ci(evaluate_cube(bootstrap_cube(cube, args.bootstrap, seed=args.seed), metrics))
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
