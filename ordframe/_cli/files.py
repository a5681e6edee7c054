"""The files the command reads: prediction files (CSV with its separator, or Parquet) and parameter files.

A prediction file is read once, front to back, so standard input (``-``), a
pipe, ``/dev/stdin`` or a process substitution ``<(...)`` work like a file.
The separator of a CSV file is ``--sep``, or else found in its first lines:
the one of ``,``, ``;`` and tab that splits every line into the same number
(more than one) of columns. A file where that is not one separator is an
error that asks for ``--sep``, never a guess. Every row has one field per
column of the header (a row may end with a separator, as pandas reads it
with ``index_col=False``); another count is an error that names the line.

Missing values: in the label columns (``--true``, ``--pred``, ``--by``,
``--sample``, ``--strata``, ``--cluster``) only an empty field, so that a
class called ``None``, ``NA`` or ``null`` stays a class; in the other
columns (numbers: ``--proba``) pandas' usual spellings too (``NA``, ``NaN``,
``null``, ...). ``--na-values`` adds strings that mean missing in every column.
"""

from __future__ import annotations

import csv
import io
import json
import sys
import warnings
from collections import Counter
from pathlib import Path
from typing import IO, Any

import pandas as pd
from pandas._libs.parsers import STR_NA_VALUES  # the spellings of a missing value that read_csv knows by default

from ordframe._cli.wording import UsageError
from ordframe._core.messages import show_counts

STDIN = "-"
PARQUET_MAGIC = b"PAR1"
GZIP_MAGIC = b"\x1f\x8b"
PARQUET_EXTENSIONS = (".parquet", ".pq")
PARQUET_HINT = 'pip install "ordframe[parquet]"'
#: The separators found without ``--sep``, with their names in messages.
SEPARATORS = {",": "','", ";": "';'", "\t": "tab"}
#: ``--sep`` words for the characters a shell makes awkward to type.
SEPARATOR_WORDS = {"tab": "\t", "\\t": "\t", "comma": ",", "semicolon": ";", "space": " "}
#: How much of a file the separator is read from: whole lines, at most this many bytes and rows.
SAMPLE_BYTES = 1 << 16
SAMPLE_ROWS = 200
#: What pandas reads as missing besides an empty field; in a label column, a value like any other.
PANDAS_NA = sorted(STR_NA_VALUES - {""})


def decimal_mark(option: str | None) -> str:
    """``--decimal``: the character before the decimals of a CSV file's numbers (``.`` by default)."""
    if option is None:
        return "."
    if len(option) != 1 or option.isdigit() or option in "\r\n-+":
        raise UsageError(f"--decimal {option!r}: give the one character that starts the decimals, e.g. --decimal ','")
    return option


def separator(option: str | None) -> str | None:
    """``--sep`` as one character: ``,``, ``;``, ``tab`` (or ``\\t``), any other single character."""
    if option is None:
        return None
    sep = SEPARATOR_WORDS.get(option.lower(), option)
    if len(sep) != 1 or sep in '\r\n"':
        raise UsageError(
            f"--sep {option!r}: give one character, e.g. --sep ';' or --sep tab (leave it out to detect ',', ';' or tab)"
        )
    return sep


def read_predictions(
    path: str,
    *,
    sep: str | None = None,
    decimal: str = ".",
    na_values: tuple = (),
    columns: tuple = (),
    labels: tuple = (),
    classes: tuple = (),
) -> pd.DataFrame:
    """A prediction file: Parquet (by its ``.parquet``/``.pq`` extension or its first bytes) or CSV.

    ``-`` is standard input. ``sep`` is the CSV separator (found when
    ``None``), ``decimal`` its decimal mark, ``na_values`` the strings that
    mean a missing value besides an empty field; ``columns`` are the columns
    the command needs, which tell apart two separators that both split the
    file evenly; of them, ``labels`` are the label columns, whose values are
    read as written (a warning names a value that pandas would read as missing,
    unless it is one of ``classes``).
    """
    csv_options = {"sep": sep, "decimal": decimal, "na_values": tuple(na_values)}
    named = {"needed": tuple(columns), "labels": tuple(labels), "classes": tuple(classes)}
    name = "standard input" if path == STDIN else path
    if path == STDIN:
        if sys.stdin is None or sys.stdin.isatty():
            raise UsageError(
                "the file '-' is standard input, but nothing is piped in: "
                "pipe the predictions in (cat predictions.csv | ordframe score - ...) or name the file"
            )
        frame = _read_stream(sys.stdin.buffer, name, csv_options, named)
    else:
        file = Path(path)
        if file.is_dir():
            raise UsageError(f"{path} is a directory, not a prediction file")
        if not file.exists():
            raise UsageError(f"no such file: {path}")
        try:
            if file.is_file():  # read the start for the format and the separator, then the whole from the path
                with open(file, "rb") as stream:
                    start = stream.read(SAMPLE_BYTES)
                parquet = file.suffix.lower() in PARQUET_EXTENSIONS or start.startswith(PARQUET_MAGIC)
                frame = _parse(file, name, start, parquet, csv_options, named)
            else:  # a pipe (/dev/stdin, <(...)): read once, front to back
                with open(file, "rb") as stream:
                    frame = _read_stream(stream, name, csv_options, named)
        except OSError as exc:
            raise UsageError(f"cannot read {path}: {exc.strerror or exc}") from None
    if len(frame) == 0:
        raise UsageError(
            f"{name} has no rows, only the columns {', '.join(map(str, frame.columns))}: there is nothing to score"
        )
    return frame


def _read_stream(stream: IO[bytes], name: str, options: dict, columns: dict) -> pd.DataFrame:
    """A CSV or Parquet file from a stream that cannot seek (a pipe): read whole once, its format told by its first bytes."""
    data = stream.read()
    return _parse(data, name, data[:SAMPLE_BYTES], data.startswith(PARQUET_MAGIC), options, columns)


def _parse(source: bytes | Path, name: str, start: bytes, parquet: bool, options: dict, columns: dict):
    """The file as a DataFrame; ``start``, its first bytes, tells the CSV separator when ``options`` has none."""
    if not start.strip():
        raise UsageError(f"{name} is empty: there is nothing to score")
    if start.startswith(GZIP_MAGIC):
        raise UsageError(f"{name} is gzip-compressed: decompress it first (zcat FILE | ordframe score - ...)")
    if parquet:
        defaults = {"sep": None, "decimal": ".", "na_values": ()}
        given = [f"--{option.replace('_', '-')}" for option, default in defaults.items() if options[option] != default]
        if given:
            raise UsageError(f"{' and '.join(given)} are for CSV files; {name} is Parquet: leave them out")
        try:
            return pd.read_parquet(io.BytesIO(source) if isinstance(source, bytes) else source)
        except ImportError:
            raise UsageError(f"cannot read {name}: reading Parquet needs pyarrow: {PARQUET_HINT}") from None
        except (ValueError, OSError) as exc:
            raise UsageError(f"cannot read {name} as Parquet: {str(exc).splitlines()[0]}") from None
    sep = options["sep"] or detect_separator(start, name, columns["needed"], whole=len(start) < SAMPLE_BYTES)
    if options["decimal"] == sep:
        raise UsageError(
            f"--decimal {sep!r} is also the separator of {name}: a file with decimal commas is separated by "
            "something else (give it with --sep, e.g. --sep ';')"
        )
    try:
        fields = _header(source, name, sep)
        missing = ["", *options["na_values"]]
        na_values = {
            i: missing if field in columns["labels"] else [*PANDAS_NA, *missing] for i, field in enumerate(fields)
        }
        frame = pd.read_csv(
            io.BytesIO(source) if isinstance(source, bytes) else source,
            sep=sep,
            decimal=options["decimal"],
            keep_default_na=False,
            na_values=na_values,  # type: ignore[arg-type]  # by position (pandas takes it; not its stubs)
            usecols=range(len(fields)),  # not the empty field after a trailing separator, checked by _header
            index_col=False,
            low_memory=False,  # one type per column
        )
    except (ValueError, OSError, pd.errors.ParserError, UnicodeDecodeError, csv.Error) as exc:
        raise UsageError(
            f"cannot read {name} as CSV separated by {SEPARATORS.get(sep, repr(sep))}: {str(exc).splitlines()[0]}"
        ) from None
    header = str(frame.columns[0])
    other = next((s for s in (*SEPARATORS, "|", ":", " ") if s != sep and s in header.strip()), None)
    if len(frame.columns) == 1 and other is not None:  # not one of the separators looked for, or a wrong --sep
        shown = "tab" if other == "\t" else repr(other)
        instead = " (or leave --sep out)" if options["sep"] and other in SEPARATORS else ""
        raise UsageError(
            f"{name} has one column, {header[:60]!r}, when split at {SEPARATORS.get(sep, repr(sep))}: "
            f"it looks {shown}-separated: give --sep {shown}{instead}"
        )
    _warn_missing_spellings(frame, columns, options["na_values"])
    return frame


def _text(source: bytes | Path) -> IO[str]:
    """The CSV file as text, as pandas reads it (UTF-8, a byte order mark left out), its line ends kept for csv."""
    if isinstance(source, bytes):
        return io.TextIOWrapper(io.BytesIO(source), encoding="utf-8-sig", newline="")
    return open(source, encoding="utf-8-sig", newline="")


def _blank(row: list[str]) -> bool:
    """A line that pandas skips: nothing on it but spaces."""
    return len(row) < 2 and not "".join(row).strip()


def _header(source: bytes | Path, name: str, sep: str) -> list[str]:
    """The header's fields; an error naming the first row with another number of fields.

    pandas would take a first column of extra fields as the index (every
    column shifted) and fill a short row with missing values. A row may end
    with a separator (one empty field more), as pandas reads it with
    ``index_col=False``: the reader leaves that field out.
    """
    with _text(source) as text:
        rows = csv.reader(text, delimiter=sep)
        header = next((row for row in rows if not _blank(row)), [])
        counts = Counter(map(len, rows))  # the common case in one pass at C speed
    n = len(header)
    if not set(counts) - {0, n}:
        return header
    with _text(source) as text:
        rows = csv.reader(text, delimiter=sep)
        lines = ((rows.line_num, row) for row in rows if not _blank(row))
        header_line = next(lines)[0]
        for line, row in lines:
            if len(row) != n and (len(row) != n + 1 or row[-1]):
                fix = (
                    "write an empty field for a missing value"
                    if len(row) < n
                    else "a field without a column name would shift every column: name every column in the "
                    "header, or remove the extra fields"
                )
                raise UsageError(
                    f"{name}: line {line} has {len(row)} field{'s' if len(row) != 1 else ''} but the header "
                    f"(line {header_line}) has {n}: give every row one field per column ({fix})"
                )
    return header


def _warn_missing_spellings(frame: pd.DataFrame, columns: dict, na_values: tuple) -> None:
    """A warning for each label column that holds a value pandas would read as missing, and no class of that name."""
    kept = set(PANDAS_NA) - set(columns["classes"]) - set(na_values)
    for column in columns["labels"]:
        if column not in frame.columns or pd.api.types.is_numeric_dtype(frame[column]):
            continue
        values = frame[column]
        counts = values[values.isin(kept)].value_counts()
        if len(counts):
            tokens = " ".join(map(str, counts.index))
            warnings.warn(
                f"column {column!r} holds {show_counts(counts)}, read as a value: in a label column only an "
                f"empty field is missing; if {'they mean' if len(counts) > 1 else 'it means'} a missing value, "
                f"pass --na-values {tokens}",
                UserWarning,
                stacklevel=1,
            )


def detect_separator(start: bytes, name: str, columns: tuple = (), *, whole: bool = True) -> str:
    """The separator of a CSV file from its first bytes: ``,``, ``;`` or tab.

    The one that splits every line of the sample into the same number of
    columns (more than one); if several do, the one whose header has all of
    ``columns``. If none does (a line with a field too many), the one that
    splits the header, so that the reader names the bad line. A header that
    none splits is one column (``,``). Two candidates left: an error asking
    for ``--sep``. ``whole``: ``start`` is the whole file (else its last,
    perhaps cut, line is left out).
    """
    text = start.decode("utf-8", errors="replace")
    if not whole and "\n" in text:
        text = text[: text.rindex("\n") + 1]
    rows = {sep: _sample_rows(text, sep) for sep in SEPARATORS}
    even = [sep for sep, r in rows.items() if r and len({len(row) for row in r}) == 1 and len(r[0]) > 1]
    found = even or [sep for sep, r in rows.items() if r and len(r[0]) > 1]
    if len(found) > 1 and columns:
        named = [sep for sep in found if set(map(str, columns)) <= set(rows[sep][0])]
        found = named or found
    if not found:
        return ","
    if len(found) == 1:
        return found[0]
    splits = " and ".join(f"at {SEPARATORS[sep]} into {len(rows[sep][0])}" for sep in found)
    option = "tab" if found[0] == "\t" else repr(found[0])
    raise UsageError(
        f"cannot tell the separator of {name}: its header splits {splits} columns"
        f"{', and so does every line' if even else ''}: give it, e.g. --sep {option}"
    )


def _sample_rows(text: str, sep: str) -> list[list[str]]:
    """The non-blank rows of the sample split at ``sep`` (quotes respected, as pandas reads them)."""
    rows = []
    try:
        for row in csv.reader(io.StringIO(text, newline=None), delimiter=sep):  # \n, \r\n and \r end lines
            if row:
                rows.append(row)
                if len(rows) == SAMPLE_ROWS:
                    break
    except csv.Error:  # not text that splits into rows at sep (a binary file): the reader says what it is
        return []
    return rows


def read_parameter(path: str, parameter: str) -> Any:
    """A metric parameter's value from a file (``d[cost=@costs.json]``).

    A ``.json`` file holds the value itself (a cost matrix: ``[[0, 1], [1, 0]]``) or an object with the
    parameter's name as its one key (``{"cost": [[0, 1], [1, 0]]}``); a ``.toml`` file gives it under the
    parameter's name (``cost = [[0, 1], [1, 0]]``).
    """
    file = Path(path)
    suffix = file.suffix.lower()
    example = "[[0, 1], [1, 0]]"
    if suffix not in (".json", ".toml"):
        raise UsageError(
            f"@{path}: a parameter file is .json (the value: {example}) or .toml ({parameter} = {example})"
        )
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"cannot read @{path}: {getattr(exc, 'strerror', None) or exc}") from None
    if suffix == ".json":
        try:
            value = json.loads(text)
        except json.JSONDecodeError as exc:
            raise UsageError(f"cannot read @{path} as JSON: {exc}") from None
        if isinstance(value, dict) and list(value) == [parameter]:  # {"cost": [[...]]}, as a TOML file gives it
            return value[parameter]
        return value
    toml = _toml(path)
    try:
        table = toml.loads(text)
    except toml.TOMLDecodeError as exc:
        raise UsageError(f"cannot read @{path} as TOML: {exc}") from None
    if parameter not in table:
        keys = ", ".join(table) or "nothing"
        raise UsageError(
            f"@{path} does not set {parameter}: a TOML file gives the value by the parameter's name, "
            f"e.g. {parameter} = {example}; it sets {keys}"
        )
    return table[parameter]


def _toml(path: str):
    """The TOML reader: the standard library's (Python 3.11+) or tomli."""
    try:
        import tomllib
    except ImportError:
        try:
            import tomli as tomllib  # type: ignore[no-redef]
        except ImportError:
            raise UsageError(
                f"cannot read @{path}: reading TOML on Python 3.10 needs tomli (pip install tomli), or give the value "
                "in a .json file"
            ) from None
    return tomllib
