"""The ``.ordinal`` namespace of ``polars.DataFrame`` and ``polars.LazyFrame``: the pandas accessor's methods.

Registered when polars is imported, before or after ordframe (``import
ordframe`` itself does not import polars). A call takes the columns its
arguments name (a LazyFrame is collected once, for those columns only), hands
them to the DataFrame front end without copying numbers, and returns what
``df.ordinal`` returns: row ``i`` of a message is polars' row ``i``.
"""

from __future__ import annotations

import functools
import inspect
import re
from typing import Any

from ordframe._accessors.base import _OrdinalAccessor
from ordframe._accessors.pandas import OrdinalFrameAccessor
from ordframe._inputs.polars_frame import (
    column_names,
    is_polars,
    label_columns,
    named_columns,
    pandas_frame,
    pandas_series,
)

_ABSENT = re.compile(r"(column .* is not in the DataFrame; its columns are) \[.*\]$")


class OrdinalPolarsAccessor(_OrdinalAccessor):
    """Ordinal evaluation of a polars DataFrame or LazyFrame: ``frame.ordinal.<metric>(true, pred, by=...)``.

    Every method is the pandas accessor's, with the same arguments and results.

    Examples
    --------
    >>> import polars as pl
    >>> grades = pl.Enum(["mild", "moderate", "severe"])
    >>> frame = pl.DataFrame({"y": ["mild", "severe", "moderate"], "yhat": ["mild", "moderate", "moderate"]},
    ...                      schema={"y": grades, "yhat": grades})
    >>> frame.ordinal.oc("y", "yhat")
    0.375
    >>> frame.lazy().ordinal.confusion("y", "yhat").values.tolist()
    [[1, 0, 0], [0, 1, 0], [0, 1, 0]]
    """

    def __init__(self, frame: Any):
        self._frame = frame

    def __dir__(self):
        return sorted(set(dir(OrdinalFrameAccessor)) | set(super().__dir__()))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        method = getattr(OrdinalFrameAccessor, name, None)
        if method is None:
            return super().__getattr__(name)  # a registered metric, or an error naming what exists
        return self._through_pandas(name, method)

    def _metric_method(self, metric):
        return self._through_pandas(metric.name, getattr(OrdinalFrameAccessor(None), metric.name))

    def _through_pandas(self, name: str, method):
        defaults = [p.default for p in inspect.signature(method).parameters.values() if p.default is not p.empty]
        accessor = OrdinalFrameAccessor(None)  # type: ignore[arg-type]  # read for its signatures (without self)
        signature = inspect.signature(getattr(accessor, name))

        @functools.wraps(method)
        def call(*args, **kwargs):
            columns = column_names(self._frame)
            named = named_columns([*args, *kwargs.values(), *defaults], set(columns))  # model="model" by default too
            try:
                bound = signature.bind(*args, **kwargs)
            except TypeError:  # the method says what is wrong
                arguments = {}
            else:
                bound.apply_defaults()
                arguments = bound.arguments
            df = pandas_frame(self._frame, named, arguments.get("labels"), label_columns(arguments, set(columns)))
            args = tuple(pandas_series(a, f"argument {i + 1}") if is_polars(a) else a for i, a in enumerate(args))
            kwargs = {k: pandas_series(v, f"{k}=") if is_polars(v) else v for k, v in kwargs.items()}
            try:
                return getattr(OrdinalFrameAccessor(df), name)(*args, **kwargs)
            except KeyError as exc:  # name every column of the polars frame, not only those taken
                message = str(exc.args[0]) if exc.args else ""
                if _ABSENT.search(message):
                    raise KeyError(_ABSENT.sub(lambda m: f"{m.group(1)} {columns}", message)) from None
                raise

        return call
