"""ordframe: order-aware evaluation of ordinal classifiers on pandas and xarray.

Importing ordframe registers the ``.ordinal`` accessor on ``pandas.DataFrame``
and ``xarray.DataArray``.
"""

from . import accessors as _accessors  # noqa: F401  (registers the accessors)
from .confusion import DroppedRowsWarning
from .hookspecs import hookimpl
from .metric import Metric
from .paths import oc_path, uoc_path
from .proba import worst
from .registry import PluginLoadWarning, get_metric, list_metrics, register, unregister

__version__ = "0.1.0"

__all__ = [
    "DroppedRowsWarning",
    "Metric",
    "PluginLoadWarning",
    "get_metric",
    "hookimpl",
    "list_metrics",
    "oc_path",
    "register",
    "unregister",
    "uoc_path",
    "worst",
]
