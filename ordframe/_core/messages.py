"""How ordframe talks to users: values in error messages, and warnings that point at the user's line."""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from types import FrameType

import numpy as np

MAX_SHOWN = 5
_PACKAGE = str(Path(__file__).resolve().parent.parent)  # the ordframe package


class DroppedRowsWarning(UserWarning):
    """Rows with missing labels were dropped because ``dropna=True`` was given."""


class LabelWarning(UserWarning):
    """Labels that are probably a mistake, e.g. predicted values that no true label has (unrounded outputs)."""


def show(values) -> str:
    """``'a', 'b', 'c', ...``: at most ``MAX_SHOWN`` values, as Python literals."""
    values = list(values)
    shown = ", ".join(repr(v.item() if isinstance(v, np.generic) else v) for v in values[:MAX_SHOWN])
    return shown + (", ..." if len(values) > MAX_SHOWN else "")


def show_counts(counts) -> str:
    """``'a' (3 rows), 'b' (1 row) and 2 more`` from a ``pandas.Series`` of counts indexed by value."""
    shown = ", ".join(f"{show([v])} ({c} row{'s' if c != 1 else ''})" for v, c in counts.head(MAX_SHOWN).items())
    more = f" and {len(counts) - MAX_SHOWN} more" if len(counts) > MAX_SHOWN else ""
    return shown + more


def first_rows(index, mask: np.ndarray) -> str:
    """``[r1, r2, ...]``: the labels in ``index`` of the first few positions where ``mask`` holds."""
    rows = [repr(r) for r in index[np.asarray(mask)][:MAX_SHOWN]]
    if int(np.count_nonzero(mask)) > MAX_SHOWN:
        rows.append("...")
    return f"[{', '.join(rows)}]"


def user_stacklevel() -> int:
    """The ``stacklevel`` that makes a warning issued by its caller point at the first frame outside ordframe."""
    frame: FrameType | None = sys._getframe(1)
    level = 1
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame, level = frame.f_back, level + 1
    return level


def warn(message: str, category: type[Warning] = UserWarning) -> None:
    """Issue a warning attributed to the user's line (the first caller outside ordframe)."""
    warnings.warn(message, category, stacklevel=user_stacklevel())
