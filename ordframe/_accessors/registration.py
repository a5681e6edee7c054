"""When the ``.ordinal`` accessors are registered: as each frame library is imported, before or after ordframe.

``import ordframe`` imports none of pandas, xarray, dask or polars. A
finder on ``sys.meta_path`` lets each library be found and loaded as
usual, then gives its frames an ``ordinal`` attribute (at once, if the
library is imported already); the accessor's own module, with the layers it
calls, is imported on its first use, like the package's public names. So
registering never imports ordframe's layers while one of them may be half
imported (an ordframe module importing pandas for the first time).
"""

from __future__ import annotations

import importlib
import sys
from types import ModuleType
from typing import Any


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


# the libraries whose import registers an accessor, until it does
_WAITING = {"pandas": _pandas, "xarray": _xarray, "dask.dataframe": _dask, "polars": _polars}


class _Finder:
    """On ``sys.meta_path``: a library of ``_WAITING`` is found and loaded by its own finder and loader, then registered."""

    def find_spec(self, name: str, path=None, target=None):
        if name not in _WAITING:
            return None
        for finder in sys.meta_path:
            spec = None if finder is self else finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _Loader(spec.loader)  # type: ignore[assignment]  # a loader by its methods
                return spec
        return None


class _Loader:
    """The library's own loader, then its accessor registered."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        module.__loader__ = self.loader  # the library sees its own loader (its resources)
        if module.__spec__ is not None:
            module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        register = _WAITING.pop(module.__name__, None)
        if register is not None:
            register(module)


def register_accessors() -> None:
    """Register every accessor now if its library is imported, else when it is (``pandas``, ``xarray``, ``dask.dataframe``, ``polars``)."""
    for name in [name for name in _WAITING if sys.modules.get(name) is not None]:  # None: an import blocked
        _WAITING.pop(name)(sys.modules[name])
    if _WAITING and not any(isinstance(finder, _Finder) for finder in sys.meta_path):
        sys.meta_path.insert(0, _Finder())
