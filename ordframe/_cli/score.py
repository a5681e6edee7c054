"""``ordframe score``: read a prediction file, score it (per group), print or write the table."""

from __future__ import annotations

import io
import json
import shutil
import sys
import warnings
from pathlib import Path
from typing import IO

import pandas as pd
import xarray as xr

from ordframe._bridge.evaluate import evaluate_cube, evaluate_frame
from ordframe._cli.wording import UsageError
from ordframe._core.dims import BOOTSTRAP_DIM, BOUND_DIM, CUBE_DIMS, OBSERVED_DIM
from ordframe._inference.intervals import ci
from ordframe._inputs.frame import frame_rows
from ordframe._registry.manager import get_metric, metric_names
from ordframe._registry.request import METRIC_SETS
from ordframe._resampling.cubes import bootstrap_cube

FORMATS = ("table", "csv", "json", "markdown", "parquet")
#: The output formats named by an ``--out`` file's extension; another extension needs ``--format``.
EXTENSIONS = {
    ".csv": "csv",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".txt": "table",
}
PARQUET_MAGIC = b"PAR1"
STDIN = "-"


def read_predictions(path: str) -> pd.DataFrame:
    """A prediction file: Parquet (by its ``.parquet``/``.pq`` extension or its content) or CSV.

    ``-`` is standard input; a pipe, ``/dev/stdin`` or a process substitution
    (``<(...)``) is read like a file, its format told by its first bytes.
    """
    if path == STDIN:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError(
                "the file '-' is standard input, but nothing is piped in: "
                "pipe the predictions in (cat predictions.csv | ordframe score - ...) or name the file"
            )
        frame = _read_stream(sys.stdin.buffer, "standard input")
    else:
        file = Path(path)
        if file.is_dir():
            raise UsageError(f"{path} is a directory, not a prediction file")
        if not file.exists():
            raise UsageError(f"no such file: {path}")
        try:
            if file.is_file():  # Parquet by its extension or its first bytes, else CSV
                with open(file, "rb") as stream:
                    parquet = file.suffix.lower() in (".parquet", ".pq") or stream.read(4) == PARQUET_MAGIC
                frame = _parse(file, path, parquet=parquet)
            else:  # a pipe (/dev/stdin, <(...)): read once, front to back
                with open(file, "rb") as stream:
                    frame = _read_stream(stream, path)
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(frame.columns) == 1:  # one column: perhaps another separator than the comma
        header = str(frame.columns[0])
        separator = next((sep for sep in (";", "\t", "|") if sep in header), None)
        if separator is not None:
            raise UsageError(
                f"{path} has one column, {header[:60]!r}: ordframe reads comma-separated files; "
                f"it looks {separator!r}-separated: convert it to commas (or to Parquet)"
            )
    if len(frame) == 0:
        where = "standard input" if path == STDIN else path
        raise UsageError(
            f"{where} has no rows, only the columns {', '.join(map(str, frame.columns))}: there is nothing to score"
        )
    return frame


def _read_stream(stream: IO[bytes], name: str) -> pd.DataFrame:
    """A CSV or Parquet file from a stream that cannot seek (a pipe): read whole, its format told by its first bytes."""
    data = stream.read()
    return _parse(io.BytesIO(data), name, parquet=data.startswith(PARQUET_MAGIC))


def _parse(source: IO[bytes] | Path, name: str, *, parquet: bool) -> pd.DataFrame:
    try:
        if parquet:
            return pd.read_parquet(source)
        return pd.read_csv(source, low_memory=False)  # one type per column, not one per chunk
    except ImportError as exc:
        raise UsageError(f"cannot read {name}: {exc}") from None
    except (ValueError, OSError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise UsageError(
            f"cannot read {name} as {'Parquet' if parquet else 'CSV'}: {str(exc).splitlines()[0]}"
        ) from None


def typed_labels(tokens: list[str] | None, column: pd.Series):
    """``--labels`` tokens as the label column's type: numbers for a numeric column, booleans for a True/False one."""
    if tokens is None:
        return None
    if len(tokens) < 2:
        raise UsageError(f"--labels {' '.join(tokens)}: give every class (at least two), in order, lowest first")
    if _is_boolean(column):
        words = {"false": False, "true": True}
        if not all(t.lower() in words for t in tokens):
            raise UsageError(
                f"--labels {' '.join(tokens)}: column {column.name!r} holds True and False, so its classes are "
                "False and True: give --labels False True (or True False), lowest first"
            )
        typed: list[object] = [words[t.lower()] for t in tokens]
    elif pd.api.types.is_numeric_dtype(column.dtype):
        try:
            values = [float(t) for t in tokens]
        except ValueError:
            raise UsageError(
                f"--labels {' '.join(tokens)}: column {column.name!r} is numeric, so its labels must be numbers"
            ) from None
        typed = [int(v) if v.is_integer() and pd.api.types.is_integer_dtype(column.dtype) else v for v in values]
    else:
        typed = list(tokens)
    repeated = [tokens[i] for i, v in enumerate(typed) if typed.index(v) < i]
    if repeated:
        raise UsageError(
            f"--labels {' '.join(tokens)}: {', '.join(repeated)} names a class already given; name each class once"
        )
    return typed


def _is_boolean(column: pd.Series) -> bool:
    """A True/False column: a bool dtype, or objects that are booleans and missing values (a CSV with gaps)."""
    if pd.api.types.is_bool_dtype(column.dtype):
        return True
    return column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) == "boolean"


def requested_metrics(args) -> list[str] | None:
    """``--metrics``: the names given, ``None`` for ``all`` (every metric), or the core set by default."""
    if args.metrics is None:
        core, proba = list(METRIC_SETS["core"]), list(METRIC_SETS["core_proba"])
        return core + (proba if args.proba else []) if args.pred else proba
    if "all" in args.metrics:
        if len(args.metrics) > 1:
            raise UsageError(f"--metrics all means every metric: give it alone, or names only (got {args.metrics})")
        return None
    repeated = _repeated(args.metrics)
    if repeated:
        raise UsageError(f"--metrics names {', '.join(repeated)} more than once: name each metric once")
    if not args.proba:
        needs = [name for name in args.metrics if get_metric(name).kind == "proba"]
        if needs:
            raise UsageError(
                f"--metrics {' '.join(needs)}: {'these score' if len(needs) > 1 else 'it scores'} class "
                "probabilities: pass the probability columns with --proba"
            )
    return args.metrics


def _repeated(names: list) -> list:
    """The names that occur more than once, in order of first occurrence."""
    return [n for i, n in enumerate(names) if names.count(n) > 1 and names.index(n) == i]


def check_options(df: pd.DataFrame, args, metrics: list[str] | None) -> None:
    """The options' own mistakes, said in their words before the library sees them."""
    if args.seed < 0:
        raise UsageError(f"--seed must be a whole number >= 0, got {args.seed}")
    if args.bootstrap is not None and args.bootstrap < 1:
        raise UsageError(f"--bootstrap must be a whole number of replicates >= 1, got {args.bootstrap}")
    for option, names in (("--by", args.by), ("--proba", args.proba)):
        repeated = _repeated(names or [])
        if repeated:
            raise UsageError(f"{option} names {', '.join(repeated)} more than once: name each column once")
    for column in [args.true, args.pred, *(args.proba or []), *(args.by or [])]:
        if column is not None and column not in df.columns:
            raise UsageError(
                f"column {column!r} is not in the file; its columns are: {', '.join(map(str, df.columns))}"
            )
    if args.proba and args.labels and len(args.proba) != len(args.labels):
        raise UsageError(
            f"--proba names {len(args.proba)} columns but --labels {len(args.labels)} classes: pass --labels "
            "naming the class of each --proba column, in the same order"
        )
    for column in args.by or []:
        if column in CUBE_DIMS:
            raise UsageError(
                f"--by column {column!r} has the name of a dim of the confusion matrices ({', '.join(CUBE_DIMS)}); "
                "rename that column in the file"
            )
    if args.by:  # the result has one column per --by column and per metric: they need different names
        outputs = metric_names(None if args.proba else "confusion") if metrics is None else metrics
        if args.bootstrap is not None:
            outputs = [f"{name}{end}" for name in outputs for end in ("", "_low", "_high")]
        clash = [column for column in args.by if column in outputs]
        if clash:
            raise UsageError(
                f"--by column {clash[0]!r} has the name of a column of the result (a metric); "
                "rename that column in the file"
            )


def score_table(df: pd.DataFrame, args) -> pd.DataFrame:
    """One row per group (or one row), one column per metric (with ``_low``/``_high`` for a bootstrap)."""
    metrics = requested_metrics(args)
    check_options(df, args, metrics)
    labels = typed_labels(args.labels, df[args.true])
    by = args.by or None
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
    # the replicates and the intervals add dims named bootstrap and bound: a --by column may have either name
    hidden = {name: f"__by_{i}__" for i, name in enumerate(by or []) if name in (BOOTSTRAP_DIM, BOUND_DIM)}
    cube = cube.rename(hidden)
    values = evaluate_cube(cube, metrics)
    bounds = ci(evaluate_cube(bootstrap_cube(cube, args.bootstrap, seed=args.seed), metrics))
    table = _to_frame(values, by)
    keys = [c for c in table.columns if c not in values.data_vars]
    for name in values.data_vars:
        for bound in ("low", "high"):
            table[f"{name}_{bound}"] = _to_frame(bounds[name].sel(bound=bound, drop=True).to_dataset(), by)[name]
    table = table[keys + [c for name in values.data_vars for c in (name, f"{name}_low", f"{name}_high")]]
    return table.rename(columns={inside: name for name, inside in hidden.items()})


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
        header = "| " + " | ".join(map(markdown_cell, rounded.columns)) + " |"
        rows = ["| " + " | ".join(map(markdown_cell, row)) + " |" for row in rounded.itertuples(index=False)]
        return "\n".join([header, "|" + "---|" * len(rounded.columns), *rows]) + "\n"
    return rounded.to_string(index=False, line_width=width) + "\n"


def markdown_cell(value) -> str:
    """A value as the text of a Markdown table cell: ``\\`` and ``|`` escaped, line breaks as ``<br>``."""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|")
    return text.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


def output_format(args, to_file: bool) -> str:
    """The format to write: ``--format``, else the ``--out`` file's extension, else a table.

    Parquet is binary: only to a file named ``.parquet`` or ``.pq``, and such a
    file gets nothing else. An extension the command does not write is an
    error unless ``--format`` says what to write.
    """
    suffix = Path(args.out).suffix.lower() if to_file else ""
    implied = EXTENSIONS.get(suffix)
    if args.format is None and suffix and implied is None:
        raise UsageError(
            f"--out {args.out}: ordframe does not write {suffix} files; it writes .csv, .json, .md, .parquet "
            "and .txt (a table): change the extension, or give --format"
        )
    fmt = args.format or implied or "table"
    if fmt == "parquet" and not to_file:
        raise UsageError("--format parquet writes a binary file: give it a name with --out FILE.parquet")
    if (fmt == "parquet") != (implied == "parquet") and to_file:
        raise UsageError(
            f"--out {args.out} with --format {fmt}: a Parquet file is named .parquet (or .pq) and holds Parquet "
            "only; leave --format out to write the format the extension names, or change the extension"
        )
    if implied is not None and fmt != implied:
        warnings.warn(f"writing {fmt} to {args.out}, as --format says", UserWarning, stacklevel=1)
    return fmt


def write_parquet(table: pd.DataFrame, path: str) -> None:
    """The table as a Parquet file (needs pyarrow)."""
    try:
        table.to_parquet(path, index=False)
    except ImportError:
        raise UsageError(f"cannot write {path}: writing Parquet needs pyarrow (pip install pyarrow)") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    except (ValueError, TypeError) as exc:  # what pyarrow says of a column it cannot store
        raise UsageError(f"cannot write {path} as Parquet: {str(exc).splitlines()[0]}") from None


def score(args, out) -> int:
    """Score a prediction file (``ordframe score``) and print or write the table."""
    if args.true is None or (args.pred is None and not args.proba):
        raise UsageError("score needs --true COL and --pred COL (or --proba COLS)")
    to_file = args.out is not None and args.out != "-"  # "-": standard output
    fmt = output_format(args, to_file)
    df = read_predictions(args.file)
    table = score_table(df, args)
    if fmt == "parquet":
        write_parquet(table, args.out)
        print(f"wrote {args.out}", file=sys.stderr)
    elif to_file:
        text = render(table, fmt)
        try:
            Path(args.out).write_text(text)
        except OSError as exc:
            raise UsageError(f"cannot write {args.out}: {exc.strerror or exc}") from None
        print(f"wrote {args.out}", file=sys.stderr)
    else:
        out.write(render(table, fmt, width=shutil.get_terminal_size().columns if out.isatty() else None))
    if not args.by:
        _hint_groups(df, [args.true, args.pred, *(args.proba or [])])
    return 0
