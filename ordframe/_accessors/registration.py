"""When the ``.ordinal`` accessors are registered: as each frame library is imported, before or after ordframe.

``import ordframe`` imports none of pandas, xarray, dask or polars. A
post-import hook gives each library's frame an ``ordinal`` attribute the
moment the library is imported (or at once, if it already is); the
accessor's own module, with the layers it calls, is imported on its first
use. So a hook never imports ordframe's layers while one of them may be
half imported (an ordframe module importing pandas for the first time).
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Any

import wrapt


class DeferredAccessor:
    """An accessor class imported on first use: called with the frame, it returns the real accessor."""

    def __init__(self, module: str, name: str):
        self._module = module
        self._name = name

    def _class(self) -> type:
        return getattr(importlib.import_module(self._module), self._name)

    def __call__(self, obj: Any) -> Any:
        return self._class()(obj)

    def __getattr__(self, attr: str) -> Any:  # pd.DataFrame.ordinal.evaluate: the class's own attributes
        if attr.startswith("__"):
            raise AttributeError(attr)
        return getattr(self._class(), attr)

    @property
    def __doc__(self) -> str | None:  # type: ignore[override]  # help(pd.DataFrame.ordinal)
        return self._class().__doc__

    def __repr__(self) -> str:
        return f"<ordframe accessor {self._module}.{self._name}>"


_PANDAS = DeferredAccessor("ordframe._accessors.pandas", "OrdinalFrameAccessor")
_XARRAY = DeferredAccessor("ordframe._accessors.xarray", "OrdinalArrayAccessor")
_DASK = DeferredAccessor("ordframe._accessors.dask", "OrdinalDaskFrameAccessor")
_POLARS = DeferredAccessor("ordframe._accessors.polars", "OrdinalPolarsAccessor")


def _pandas(module: ModuleType) -> None:
    module.api.extensions.register_dataframe_accessor("ordinal")(_PANDAS)


def _xarray(module: ModuleType) -> None:
    module.register_dataarray_accessor("ordinal")(_XARRAY)


def _dask(module: ModuleType) -> None:
    importlib.import_module("dask.dataframe.extensions").register_dataframe_accessor("ordinal")(_DASK)


def _polars(module: ModuleType) -> None:
    module.api.register_dataframe_namespace("ordinal")(_POLARS)
    module.api.register_lazyframe_namespace("ordinal")(_POLARS)


def register_hooks() -> None:
    """Register every accessor when its library is imported (``pandas``, ``xarray``, ``dask.dataframe``, ``polars``)."""
    for name, hook in (("pandas", _pandas), ("xarray", _xarray), ("dask.dataframe", _dask), ("polars", _polars)):
        wrapt.register_post_import_hook(hook, name)
