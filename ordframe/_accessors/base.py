"""What every ``.ordinal`` accessor shares: each registered metric is a method, found in the registry at call time.

The accessors only parse arguments and call the layers below; they hold no
metric logic, and nothing inside ordframe calls them.
"""

from __future__ import annotations

import difflib
import inspect

from ordframe._registry import manager as registry
from ordframe._registry.metric import Metric

FRONT_END = "(the front-end arguments are those of ``confusion``/``evaluate``)"
GROUPED = (
    "float or xarray.DataArray\n    A float for one matrix or sample set (NaN with a RuntimeWarning when "
    "undefined), else one value per group"
)


def _method(func, metric: Metric, call: str, arguments: str = FRONT_END, returns: str = GROUPED):
    """``func`` named, documented and signed as the accessor method (or function) of ``metric``: its
    ``**params`` become the metric's own keyword parameters with their defaults. ``arguments`` documents
    the others, ``returns`` the result. The signature and text are made once per metric and front end."""
    key = (func.__code__, metric.name, call, arguments, returns)
    made = _SIGNED.get(key)
    if made is None or made[0] is not metric:  # a metric registered again under its name is a new object
        made = _SIGNED[key] = (metric, *_signature_and_doc(func, metric, call, arguments, returns))
    func.__name__ = func.__qualname__ = metric.name
    func.__signature__, func.__doc__ = made[1:]
    return func


_SIGNED: dict = {}


def _signature_and_doc(func, metric: Metric, call: str, arguments: str, returns: str):
    signature = inspect.signature(func)
    given = [p for p in signature.parameters.values() if p.kind is not inspect.Parameter.VAR_KEYWORD]
    clash = sorted(set(metric.defaults) & {p.name for p in given})
    if clash:
        raise TypeError(
            f"metric {metric.name!r} has parameter(s) {clash} with the name of an accessor argument; "
            "its plugin must rename them"
        )
    params = "".join(f"\n{k} : default {v!r}\n    A parameter of {metric.name}." for k, v in metric.defaults.items())
    doc = (
        f"{metric.description}\n\n{call}\n\n"
        f"Parameters\n----------\n{arguments}{params}\n\n"
        f"Returns\n-------\n{returns}; {metric.direction}, bounds {metric.bounds}.\n\n"
        f"References\n----------\n{metric.reference or 'none given'}"
    )
    return signature.replace(parameters=[*given, *metric.parameters]), doc


class _OrdinalAccessor:
    def __dir__(self):
        return sorted(set(super().__dir__()) | set(registry.metric_names()))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        try:
            metric = registry.get_metric(name)
        except KeyError:
            close = difflib.get_close_matches(name, dir(self), n=3)
            hint = f"; did you mean {', '.join(map(repr, close))}?" if close else ""
            raise AttributeError(f"'.ordinal' has no method or metric {name!r}{hint}") from None
        return self._metric_method(metric)

    def _metric_method(self, metric: Metric):
        if metric.kind == "confusion":
            return self._confusion_method(metric)
        if metric.kind == "score":
            return self._score_method(metric)
        return self._proba_method(metric)

    def _confusion_method(self, metric: Metric):
        raise NotImplementedError

    def _proba_method(self, metric: Metric):
        raise NotImplementedError

    def _score_method(self, metric: Metric):
        raise NotImplementedError
