"""How ordframe talks to users: values and sample names in error messages, and warnings that point at the user's line."""

from __future__ import annotations

import difflib
import sys
import warnings
from pathlib import Path
from types import FrameType

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.arguments import Rows

MAX_SHOWN = 5
_PACKAGE = str(Path(__file__).resolve().parent.parent)  # the ordframe package


class DroppedRowsWarning(UserWarning):
    """Rows with missing labels were dropped because ``dropna=True`` was given."""


class LabelWarning(UserWarning):
    """Labels that are probably a mistake, e.g. predicted values that no true label has (unrounded outputs)."""


def number_text(value: float, digits: int) -> str:
    """``value`` with ``digits`` decimals; one that rounds to zero is ``0.000``, not ``-0.000`` (-0.0 + 0.0 is 0.0)."""
    return "nan" if np.isnan(value) else f"{round(value, digits) + 0.0:.{digits}f}"


class BaselineWarning(UserWarning):
    """A metric ranks a constant baseline (``"baseline: majority"``, ...) above a model: the model has learnt less
    than the class frequencies, or the metric rewards the class imbalance more than skill. The result's metric
    carries the pairs in its ``beaten_by_baseline`` attr (JSON)."""


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


def did_you_mean(name, candidates) -> str:
    """``"; did you mean 'oc', 'uoc'?"``: the candidates closest to a mistyped ``name`` (``""`` if none is close)."""
    close = difflib.get_close_matches(str(name), [str(c) for c in candidates], n=3)
    return f"; did you mean {', '.join(map(repr, close))}?" if close else ""


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


def warn(message: str | Warning, category: type[Warning] = UserWarning) -> None:
    """Issue a warning (a message, or a warning that carries its argument) attributed to the user's line."""
    warnings.warn(message, category, stacklevel=user_stacklevel())


class RowNames:
    """Names sample positions in error messages: DataFrame row labels or DataArray coordinates."""

    def __init__(self, dims, indexes):
        self.dims = tuple(dims)
        self.indexes = [i if isinstance(i, pd.Index) else pd.Index(i) for i in indexes]
        self.shape = tuple(len(i) for i in self.indexes)

    @classmethod
    def of(cls, obj: xr.DataArray) -> RowNames:
        return cls(obj.dims, [obj.indexes[d] if d in obj.indexes else pd.RangeIndex(obj.sizes[d]) for d in obj.dims])

    def index(self, flat, shape, positions=None) -> pd.Index:
        """Labels of the samples at ``flat`` positions of an array of sample shape ``shape``.

        ``positions`` (the flat position in the whole array of every sample of a
        dask chunk) turns positions within a chunk into the user's samples.
        """
        flat = np.asarray(flat, dtype=np.intp)
        if positions is not None:
            flat, shape = np.asarray(positions).reshape(-1)[flat], self.shape
        if tuple(shape) == self.shape:
            labels = [i[p] for i, p in zip(self.indexes, np.unravel_index(flat, shape))]
        else:  # a dask chunk: only positions within it are known
            labels = [pd.Index(p) for p in np.unravel_index(flat, shape)]
        return labels[0] if len(labels) == 1 else pd.MultiIndex.from_arrays(labels, names=self.dims)

    def first(self, flat, shape, positions=None) -> Rows:
        """``[a, b, ...]``: the first offending rows, for a message that already gives the count."""
        shown = np.asarray(flat)[: MAX_SHOWN + 1]
        text = first_rows(self.index(shown, shape, positions), np.ones(len(shown), bool))
        return Rows(
            text if positions is not None or tuple(shape) == self.shape else f"{text} (positions within one dask chunk)"
        )


def array_name(array: xr.DataArray, default: str) -> str:
    """The name a user gave ``array``, or ``default``: xarray names a DataArray after its dask array's token."""
    name = array.name
    if name is None or (array.chunks is not None and name == getattr(array.data, "name", None)):
        return default
    return str(name)
