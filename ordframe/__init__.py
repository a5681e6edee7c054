"""ordframe: order-aware evaluation of ordinal classifiers on pandas and xarray.

Importing ordframe registers the ``.ordinal`` accessor on ``pandas.DataFrame``
and ``xarray.DataArray``.
"""

from importlib.metadata import version as _version

from . import accessors as _accessors  # noqa: F401  (registers the accessors)
from . import dask_frame as _dask_frame
from . import datasets
from .compare import compare
from .evaluate import worst
from .hookspecs import hookimpl
from .intervals import ci
from .messages import DroppedRowsWarning, LabelWarning
from .metric import Metric
from .options import set_options
from .paths import oc_path, uoc_path
from .registry import PluginLoadWarning, get_metric, list_metrics, register, unregister
from .report import format_report
from .stats import corrected_ci, corrected_ttest, friedman, george_rank

_dask_frame.register()  # the dask DataFrame accessor, when dask's DataFrame support is installed

__version__ = _version("ordframe")

__all__ = [
    "DroppedRowsWarning",
    "LabelWarning",
    "Metric",
    "ci",
    "compare",
    "corrected_ci",
    "corrected_ttest",
    "datasets",
    "format_report",
    "friedman",
    "george_rank",
    "PluginLoadWarning",
    "get_metric",
    "hookimpl",
    "list_metrics",
    "oc_path",
    "register",
    "set_options",
    "unregister",
    "uoc_path",
    "worst",
]
