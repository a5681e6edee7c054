"""Type aliases of the public API's arguments."""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

Column = Hashable
"""A DataFrame column name."""

ClassLabels = Sequence[Hashable] | pd.Index | np.ndarray | range
"""The classes in order (``labels=``): a list, tuple, range, array or Index."""

By = Hashable | Sequence[Hashable] | None
"""One group column name, or a list of them."""

Weights = Column | pd.Series | np.ndarray | Sequence[float] | None
"""A weights column name, a Series matched by row label, or one weight per row."""

ProbaColumns = Sequence[Column] | Mapping[Hashable, Column]
"""Probability columns: a list in class order, or a dict class label -> column."""

MetricSpec = str | Sequence[str] | Mapping[str, str | tuple[str, Mapping[str, Any]]] | None
"""``evaluate(metrics=...)``: a name, a list of names, or ``{output: name | (name, {params})}``."""

Dims = str | Sequence[str] | None
"""One dim name or a list of them."""

ArrayWeights = xr.DataArray | None
"""Weights broadcastable against label or probability arrays."""
