"""What a call reads of a frame, as one checked object: the columns, the class order and how rows are kept.

Every frame door (the pandas, dask and polars accessors, the command line,
the displays) builds one ``Selection`` from its keywords, and the layers
below take it whole, so that the keywords are spelled and checked in one
place instead of being passed on one by one.
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass, field, replace
from typing import Any

from ordframe._core.checks import by_names, check_flag


@dataclass(frozen=True)
class Selection:
    """The columns and row handling of one call.

    ``true`` names the true labels' column; ``pred`` a column or one predicted
    label per row; ``proba`` the probability columns (a list in class order,
    or a dict label -> column); ``by`` the grouping columns (a list, checked
    by ``by_names``; ``by_keyword`` is the keyword that named them, for the
    messages: ``"model"`` where they are the models compared); ``labels`` the
    class order; ``weights`` a column, Series or array; ``dropna``,
    ``renormalize`` and ``observed`` as every method documents them;
    ``marker`` the column of a continuous score that orders the samples (for
    the score metrics).
    """

    true: Hashable
    pred: Any = None
    proba: Any = None
    by: Any = field(default_factory=list)
    labels: Any = None
    weights: Any = None
    dropna: bool = False
    renormalize: bool = False
    observed: bool = False
    by_keyword: str = "by"
    marker: Hashable | None = None

    def __post_init__(self) -> None:
        for name in ("dropna", "renormalize", "observed"):
            object.__setattr__(self, name, check_flag(getattr(self, name), name))
        object.__setattr__(self, "by", tuple(by_names(self.by, self.by_keyword)))

    def but(self, **changes) -> Selection:
        """This selection with ``changes`` (checked again)."""
        return replace(self, **changes)
