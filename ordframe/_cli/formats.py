"""Which format ``ordframe score`` writes: ``--format``, else the ``--out`` file's extension, else a table.

Parquet and netCDF are binary: written only to a file named for them. This
module is light (no pandas), so the command's parser can list the formats.
"""

from __future__ import annotations

import warnings
from pathlib import Path

from ordframe._cli.wording import UsageError

FORMATS = ("table", "csv", "json", "markdown", "parquet", "netcdf")
#: The output formats named by an ``--out`` file's extension; another extension needs ``--format``.
EXTENSIONS = {
    ".csv": "csv",
    ".json": "json",
    ".md": "markdown",
    ".markdown": "markdown",
    ".parquet": "parquet",
    ".pq": "parquet",
    ".nc": "netcdf",
    ".txt": "table",
}
#: Binary formats and the extensions of their files.
BINARY = {"parquet": (".parquet", ".pq"), "netcdf": (".nc",)}
NAMES = {"parquet": "Parquet", "netcdf": "netCDF"}
WRITES = ".csv, .json, .md, .parquet, .nc and .txt (a table)"


def output_format(out: str | None, given: str | None) -> str:
    """The format to write to the file ``out`` (``None``: standard output): ``given``, else the extension's.

    An extension the command does not write is an error unless ``given``
    says what to write. A binary format goes only to a file named for it,
    and such a file gets nothing else.
    """
    suffix = Path(out).suffix.lower() if out is not None else ""
    implied = EXTENSIONS.get(suffix)
    if given is None and suffix and implied is None:
        raise UsageError(
            f"--out {out}: ordframe does not write {suffix} files; it writes {WRITES}: "
            "change the extension, or give --format"
        )
    fmt = given or implied or "table"
    if fmt in BINARY and out is None:
        raise UsageError(f"--format {fmt} writes a binary file: give it a name with --out FILE{BINARY[fmt][0]}")
    binary = fmt if fmt in BINARY else implied if implied in BINARY else None
    if out is not None and binary is not None and fmt != implied:
        names = " (or ".join(BINARY[binary]) + ")" * (len(BINARY[binary]) - 1)
        raise UsageError(
            f"--out {out} with --format {fmt}: a {NAMES[binary]} file is named {names} and holds {NAMES[binary]} only; "
            "leave --format out to write the format the extension names, or change the extension"
        )
    if implied is not None and fmt != implied:
        warnings.warn(f"writing {fmt} to {out}, as --format says", UserWarning, stacklevel=1)
    return fmt
