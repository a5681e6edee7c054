"""The tables people read (``ordframe score``'s table and Markdown): direction cues, and blocks that fit a terminal.

Every metric is shown with the arrow of its direction (``oc ↓``, ``qwk ↑``,
``mean_signed_error →0``): in its column's header, or beside its name in a
comparison's ``metric`` column. A table wider than the terminal is cut into
blocks of whole metrics (a metric with its ``_low`` and ``_high`` bounds, a
comparison's difference with its interval), each block with the row labels
(the ``--by`` columns, or metric and models) repeated, so that no value is
shown without its row.
"""

from __future__ import annotations

from collections.abc import Mapping

import pandas as pd

from ordframe._core.dims import METRIC_DIM

#: The columns of an interval, after the column whose interval they are.
BOUNDS = ("low", "high")


def with_cues(table: pd.DataFrame, cues: Mapping[str, str]) -> pd.DataFrame:
    """``table`` with each metric's cue (``{output name: arrow}``) in its header, or beside its name in a
    ``metric`` column."""
    headed = table.rename(columns={column: f"{column} {cues[column]}" for column in table.columns if column in cues})
    if METRIC_DIM in headed.columns:
        headed[METRIC_DIM] = [f"{name} {cues[name]}" if name in cues else name for name in headed[METRIC_DIM]]
    return headed


def fitted(table: pd.DataFrame, labels: list, cues: Mapping[str, str], width: int | None) -> str:
    """The table as text within ``width`` characters (``None``: one block), in blocks of whole metrics, each with
    the ``labels`` columns."""
    headed = with_cues(table, cues)
    names = dict(zip(table.columns, headed.columns))
    blocks: list[list] = [[]]
    for unit in _units([column for column in table.columns if column not in labels]):
        trial = [names[column] for column in [*labels, *blocks[-1], *unit]]
        if width is not None and blocks[-1] and _widest(headed[trial]) > width:
            blocks.append([])
        blocks[-1].extend(unit)
    return "\n\n".join(headed[[names[c] for c in [*labels, *block]]].to_string(index=False) for block in blocks) + "\n"


def _units(columns: list) -> list[list]:
    """The value columns in runs that stay together: a column, then its bounds (``oc_low``, ``oc_high``; after a
    comparison's ``difference``, ``low`` and ``high``)."""
    units: list[list] = []
    for column in columns:
        if units and column in [*BOUNDS, *(f"{units[-1][0]}_{bound}" for bound in BOUNDS)]:
            units[-1].append(column)
        else:
            units.append([column])
    return units


def _widest(table: pd.DataFrame) -> int:
    return max(map(len, table.to_string(index=False).splitlines()))
