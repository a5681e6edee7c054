"""ordframe: order-aware evaluation of ordinal classifiers on pandas, xarray and dask.

Importing ordframe registers the ``.ordinal`` accessor on ``pandas.DataFrame``
and ``xarray.DataArray``, on ``dask.dataframe.DataFrame`` and on
``polars.DataFrame`` and ``polars.LazyFrame``, each when its library is
imported (before or after ordframe): ``import ordframe`` itself imports none
of them, and its public names are imported on first use.

The layers live in private subpackages (see the architecture page of the
docs); their public names are re-exported here (listed in ``__init__.pyi``),
and every registered metric is a function like ``sklearn.metrics``:
``ordframe.oc(y_true, y_pred)``. Public submodules: ``ordframe.metrics`` (the
numpy kernels), ``ordframe.plot``, ``ordframe.simulate``, ``ordframe.sklearn`` and
``ordframe.datasets``.
"""

import importlib as _importlib

from ordframe._accessors.registration import register_accessors as _register_accessors


def _stub() -> dict[str, tuple[str, str | None]]:
    """Each public name listed in ``__init__.pyi`` -> (the module it is imported from, its name there or None)."""
    import ast
    import os

    with open(os.path.join(os.path.dirname(__file__), "__init__.pyi"), encoding="utf-8") as stub:
        tree = ast.parse(stub.read())
    names = {}
    for node in tree.body:
        if isinstance(node, ast.ImportFrom):  # from ._inference.compare import compare as compare; from . import plot
            for alias in node.names:
                module = f"{__name__}.{node.module or alias.name}"
                names[alias.asname or alias.name] = (module, alias.name if node.module else None)
    return names


_PUBLIC = _stub()
__all__ = sorted(_PUBLIC)
_register_accessors()


def __getattr__(name: str):
    """The public names, ``__version__``, and every registered metric as a function (``ordframe.oc``)."""
    if name in _PUBLIC:  # imported on first use (PEP 562), then kept here
        module, attribute = _PUBLIC[name]
        value = _importlib.import_module(module)
        if attribute is not None:
            value = getattr(value, attribute)
        globals()[name] = value
        return value
    if name == "__version__":  # read from the installed package's metadata: one source
        from ordframe._core.version import ordframe_version

        return ordframe_version()
    from ordframe._registry import manager

    if not name.startswith("_") and name in manager.metric_names():
        from ordframe._accessors.functions import metric_function

        return metric_function(manager.get_metric(name))
    hint = ""
    if not name.startswith("_"):
        from ordframe._accessors.pandas import OrdinalFrameAccessor

        if hasattr(OrdinalFrameAccessor, name):
            hint = (
                f"; {name} is a method of the .ordinal accessor: df.ordinal.{name}(...) on a DataFrame of labels "
                "(ordframe.Accumulator gathers them batch by batch)"
            )
    raise AttributeError(f"module 'ordframe' has no attribute {name!r}{hint}")


def __dir__() -> list[str]:
    from ordframe._registry import manager

    return sorted(set(globals()) | set(__all__) | set(manager.metric_names()))
