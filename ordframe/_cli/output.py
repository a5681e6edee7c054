"""What ``ordframe score`` writes, in the format ``formats.output_format`` chose: text, Parquet or netCDF.

Every format but netCDF holds the table: the ``--by`` columns, then one
column per metric. netCDF keeps what a table cannot: each metric's attrs
(its parameters, direction, bounds and classes), as the Python API gives them.

Every file also records how its numbers were made (``file_record``): the
result's attrs (the comparison's level, method and adjustment, how the
replicates were drawn, the ordframe version) and each column's (its metric and
parameters, its interval's method and level, the replicates and their seed).
netCDF holds them as attrs, Parquet in its key-value metadata (pandas' ``attrs``,
which ``pd.read_parquet`` gives back), and a text file (CSV, JSON, Markdown, a
table) beside it, in ``<file>-metadata.json`` (the name CSV on the Web gives a
table's metadata), so the file itself reads as before.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._cli.files import PARQUET_HINT
from ordframe._cli.layout import fitted, with_cues
from ordframe._cli.wording import UsageError
from ordframe._core.dims import OBSERVED_DIM
from ordframe._core.version import VERSION_ATTR, ordframe_version
from ordframe._inference.results_section import markdown_cell

METADATA_SUFFIX = "-metadata.json"
"""The name of a text file's record beside it: ``scores.csv`` -> ``scores.csv-metadata.json``."""


def to_table(result: xr.Dataset) -> pd.DataFrame:
    """One row per group: the ``--by`` columns first, then one column per variable."""
    if not result.sizes:
        return pd.DataFrame({name: [float(v)] for name, v in result.data_vars.items()})
    return result.to_dataframe()[list(result.data_vars)].reset_index()


def render(result: xr.Dataset, fmt: str, width: int | None = None, cues: Mapping[str, str] | None = None) -> str:
    """The result's table (``by`` columns, then metrics) as text in ``fmt``; a ``table`` fits ``width``.

    A table and Markdown, which people read, show 4 decimals and each metric's direction (``cues``, by output
    name: ``layout.with_cues``); CSV and JSON, which programs read, every digit and the names alone.
    """
    table, cues = to_table(result), cues or {}
    if fmt == "csv":
        return table.to_csv(index=False)
    if fmt == "json":
        records = json.loads(table.to_json(orient="records", date_format="iso"))
        return json.dumps(records, indent=2, ensure_ascii=False) + "\n"
    floats = [c for c in table.columns if pd.api.types.is_float_dtype(table[c])]
    rounded = table.round(dict.fromkeys(floats, 4))
    rounded[floats] += 0.0  # a value that rounds to zero is shown 0, not -0 (-0.0 + 0.0 is 0.0)
    if fmt == "markdown":
        headed = with_cues(rounded, cues)
        header = "| " + " | ".join(map(markdown_cell, headed.columns)) + " |"
        rows = ["| " + " | ".join(map(markdown_cell, row)) + " |" for row in headed.itertuples(index=False)]
        return "\n".join([header, "|" + "---|" * len(headed.columns), *rows]) + "\n"
    return fitted(rounded, [c for c in table.columns if c not in result.data_vars], cues, width)


def file_record(result: xr.Dataset) -> dict:
    """How the numbers of ``result`` were made: ``{"attrs": {...}, "columns": {column: {...}}}``, JSON values.

    ``attrs`` are the result's (with the ``ordframe_version`` that wrote it), ``columns`` each variable's
    attrs; a bound that is not finite (``metric_bounds`` of an unbounded metric) is written ``"inf"``,
    which ``float()`` reads back.
    """
    attrs = {VERSION_ATTR: ordframe_version(), **result.attrs}
    columns = {str(name): _json_value(dict(v.attrs)) for name, v in result.data_vars.items() if v.attrs}
    return {"attrs": _json_value(attrs), "columns": columns}


def _json_value(value):
    if isinstance(value, dict):
        return {str(k): _json_value(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_json_value(v) for v in value]
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    return value


def write_file(result: xr.Dataset, fmt: str, path: str, cues: Mapping[str, str] | None = None) -> list[str]:
    """``result`` written to ``path`` in ``fmt`` (a table or Markdown with ``cues``, as ``render``), with its
    ``file_record``; the paths written (a text format's record beside it). A failure is a ``UsageError`` that
    names the file."""
    record = file_record(result)
    written = [path]
    try:
        if fmt == "netcdf":
            _netcdf(result).assign_attrs(record["attrs"]).to_netcdf(path)
        elif fmt == "parquet":
            table = to_table(result)
            table.attrs = record
            table.to_parquet(path, index=False)
        else:
            Path(path).write_text(render(result, fmt, cues=cues), encoding="utf-8")
            written.append(path + METADATA_SUFFIX)
            Path(written[-1]).write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    except ImportError:  # pandas names a missing engine so
        raise UsageError(f"cannot write {path}: writing Parquet needs pyarrow: {PARQUET_HINT}") from None
    except OSError as exc:
        raise UsageError(f"cannot write {path}: {exc.strerror or exc}") from None
    except (ValueError, TypeError) as exc:  # a column the format cannot store
        raise UsageError(f"cannot write {path} as {fmt}: {str(exc).splitlines()[0]}") from None
    return written


def _netcdf(result: xr.Dataset) -> xr.Dataset:
    """``result`` as netCDF can store it: the groups' MultiIndex (which it cannot) as one coordinate per column.

    One ``--by`` column becomes the dim itself, as the Python API gives it.
    """
    if OBSERVED_DIM not in result.indexes or not isinstance(result.indexes[OBSERVED_DIM], pd.MultiIndex):
        return result
    levels = list(result.indexes[OBSERVED_DIM].names)
    flat = result.reset_index(OBSERVED_DIM)
    if len(levels) == 1:
        (level,) = levels
        return flat.drop_vars(level).rename({OBSERVED_DIM: level}).assign_coords({level: flat[level].to_numpy()})
    return flat
