"""ordframe: order-aware evaluation of ordinal classifiers on pandas, xarray and dask.

Importing ordframe registers the ``.ordinal`` accessor on ``pandas.DataFrame``
and ``xarray.DataArray``, on ``dask.dataframe.DataFrame`` once dask's
DataFrame support is imported, and on ``polars.DataFrame`` and
``polars.LazyFrame`` once polars is (before or after ordframe).

The layers live in private subpackages (see the architecture page of the
docs); their public names are re-exported here, and every registered metric
is a function like ``sklearn.metrics``: ``ordframe.oc(y_true, y_pred)``.
Public submodules:
``ordframe.metrics`` (the numpy kernels), ``ordframe.plot``,
``ordframe.sklearn``, ``ordframe.datasets`` and ``ordframe.simulate``.
"""

import wrapt as _wrapt

from ordframe import datasets, simulate
from ordframe._accessors import pandas as _pandas_accessor  # noqa: F401  (registers df.ordinal)
from ordframe._accessors import xarray as _xarray_accessor  # noqa: F401  (registers da.ordinal)
from ordframe._accessors.accumulator import Accumulator
from ordframe._accessors.dask import register as _register_dask
from ordframe._accessors.functions import metric_function as _metric_function
from ordframe._accessors.polars import register as _register_polars
from ordframe._core.messages import DroppedRowsWarning, LabelWarning
from ordframe._core.options import set_options
from ordframe._diagnostics.oc_paths import oc_path, uoc_path
from ordframe._diagnostics.report import format_report, report_cube
from ordframe._diagnostics.worst import worst
from ordframe._inference.bayesian import bayesian_correlated_ttest, bayesian_signed_rank
from ordframe._inference.compare import compare
from ordframe._inference.friedman import friedman
from ordframe._inference.george import george_rank
from ordframe._inference.intervals import DegenerateIntervalWarning, ci
from ordframe._inference.ttest import corrected_ci, corrected_ttest
from ordframe._inference.wilcoxon import wilcoxon
from ordframe._registry import manager as _registry
from ordframe._registry.hookspecs import hookimpl
from ordframe._registry.manager import PluginError, PluginLoadWarning, get_metric, list_metrics, register, unregister
from ordframe._registry.metric import Metric
from ordframe._registry.request import METRIC_SETS
from ordframe._resampling.cubes import bootstrap_cube, jackknife
from ordframe.metrics.cost import george_cost

_wrapt.register_post_import_hook(_register_dask, "dask.dataframe")
_wrapt.register_post_import_hook(_register_polars, "polars")


def __getattr__(name: str):
    """``__version__``, and every registered metric as a function like ``sklearn.metrics`` (``ordframe.oc``)."""
    if name == "__version__":  # read from the installed package's metadata: one source
        from importlib.metadata import version

        return version("ordframe")
    if not name.startswith("_") and name in _registry.metric_names():
        return _metric_function(get_metric(name))
    raise AttributeError(f"module 'ordframe' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_registry.metric_names()))


__all__ = [
    "METRIC_SETS",
    "Accumulator",
    "DegenerateIntervalWarning",
    "DroppedRowsWarning",
    "LabelWarning",
    "Metric",
    "PluginError",
    "PluginLoadWarning",
    "bayesian_correlated_ttest",
    "bayesian_signed_rank",
    "bootstrap_cube",
    "ci",
    "compare",
    "corrected_ci",
    "corrected_ttest",
    "datasets",
    "format_report",
    "friedman",
    "george_cost",
    "george_rank",
    "get_metric",
    "hookimpl",
    "jackknife",
    "list_metrics",
    "oc_path",
    "register",
    "report_cube",
    "set_options",
    "simulate",
    "unregister",
    "uoc_path",
    "wilcoxon",
    "worst",
]
