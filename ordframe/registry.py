"""The plugin registry: a pluggy manager that collects :class:`Metric` declarations.

Built-in metrics, entry-point plugins (group ``ordframe``) and plugins given to
:func:`register` all go through the same ``ordframe_metrics`` hook. The table of
metrics is built lazily on first use and rebuilt after every change.
"""

from __future__ import annotations

import difflib
import importlib
import os
import warnings
from importlib.metadata import entry_points

import pandas as pd
import pluggy

from . import hookspecs
from .metric import Metric

ENTRY_POINT_GROUP = "ordframe"
DISABLE_AUTOLOAD = "ORDFRAME_DISABLE_PLUGIN_AUTOLOAD"
BUILTIN_MODULES = ("ordframe.metrics.classic", "ordframe.metrics.rint", "ordframe.metrics.cost", "ordframe.metrics.oc", "ordframe.metrics.proba")


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded and was skipped."""


class _Registry:
    def __init__(self):
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs)
        self.failed: dict[str, str] = {}
        self._metrics: dict[str, tuple[Metric, str]] | None = None
        self._loaded = False

    def load(self):
        if self._loaded:
            return
        self._loaded = True
        for module in BUILTIN_MODULES:
            self.manager.register(importlib.import_module(module), name=module)
        if os.environ.get(DISABLE_AUTOLOAD, "").strip() not in ("", "0"):
            return
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if self.manager.has_plugin(ep.name):
                continue
            try:
                plugin = ep.load()
                self.manager.register(plugin, name=ep.name)
                self._collect()
            except Exception as exc:  # a broken third-party plugin must not break ordframe
                if self.manager.has_plugin(ep.name):
                    self.manager.unregister(name=ep.name)
                self.failed[ep.name] = f"{type(exc).__name__}: {exc}"
                warnings.warn(
                    f"ordframe skipped plugin {ep.name!r} ({ep.value}): {type(exc).__name__}: {exc}",
                    PluginLoadWarning,
                    stacklevel=2,
                )
            finally:
                self._metrics = None

    def _collect(self) -> dict[str, tuple[Metric, str]]:
        metrics: dict[str, tuple[Metric, str]] = {}
        for impl in reversed(self.manager.hook.ordframe_metrics.get_hookimpls()):
            declared = impl.function()
            if not isinstance(declared, (list, tuple)):
                raise TypeError(
                    f"plugin {impl.plugin_name!r}: ordframe_metrics() must return a list of ordframe.Metric, "
                    f"got {type(declared).__name__}"
                )
            for metric in declared:
                if not isinstance(metric, Metric):
                    raise TypeError(
                        f"plugin {impl.plugin_name!r}: ordframe_metrics() returned {metric!r}, not an ordframe.Metric"
                    )
                if metric.name in metrics:
                    raise ValueError(
                        f"metric {metric.name!r} is provided by two plugins: "
                        f"{metrics[metric.name][1]!r} and {impl.plugin_name!r}; unregister one of them"
                    )
                metrics[metric.name] = (metric, impl.plugin_name)
        return metrics

    @property
    def metrics(self) -> dict[str, tuple[Metric, str]]:
        self.load()
        if self._metrics is None:
            self._metrics = self._collect()
        return self._metrics


_registry = _Registry()


def register(plugin: object, name: str | None = None) -> str:
    """Register a plugin (a module or object with ``@hookimpl`` functions) at run time.

    Returns the plugin's name. Raises ``ValueError`` if one of its metric names
    is already taken, naming both plugins; the registry is then unchanged.
    """
    _registry.load()
    name = _registry.manager.register(plugin, name=name)
    try:
        _registry._metrics = _registry._collect()
    except Exception:
        _registry.manager.unregister(name=name)
        _registry._metrics = None
        raise
    return name


def unregister(plugin: object) -> object:
    """Remove a plugin given as the plugin object, its name, or a metric name it provides."""
    _registry.load()
    manager = _registry.manager
    if isinstance(plugin, str):
        if manager.has_plugin(plugin):
            plugin = manager.get_plugin(plugin)
        elif plugin in _registry.metrics:
            plugin = manager.get_plugin(_registry.metrics[plugin][1])
        else:
            known = [n for n, _ in manager.list_name_plugin()] + list(_registry.metrics)
            raise ValueError(f"no plugin or metric named {plugin!r}{_suggest(plugin, known)}")
    elif not manager.is_registered(plugin):
        raise ValueError(f"{plugin!r} is not a registered ordframe plugin")
    removed = manager.unregister(plugin)
    _registry._metrics = None
    return removed


def get_metric(name: str) -> Metric:
    """The registered metric called ``name``; ``KeyError`` lists close matches."""
    try:
        return _registry.metrics[name][0]
    except KeyError:
        raise KeyError(f"no metric named {name!r}{_suggest(name, _registry.metrics)}") from None


def metric_names(kind: str | None = None) -> list[str]:
    """Names of the registered metrics (of one ``kind`` if given), sorted."""
    return sorted(n for n, (m, _) in _registry.metrics.items() if kind in (None, m.kind))


def list_metrics() -> pd.DataFrame:
    """A table of every registered metric, plus one row per plugin that failed to load."""
    rows = [
        {
            "name": m.name,
            "kind": m.kind,
            "direction": m.direction,
            "bounds": m.bounds,
            "parameters": dict(m.defaults),
            "plugin": plugin,
            "reference": m.reference,
            "status": "ok",
        }
        for m, plugin in (_registry.metrics[n] for n in metric_names())
    ]
    rows += [
        {"name": None, "kind": None, "direction": None, "bounds": None, "parameters": None,
         "plugin": plugin, "reference": None, "status": f"failed: {error}"}
        for plugin, error in _registry.failed.items()
    ]
    columns = ["name", "kind", "direction", "bounds", "parameters", "plugin", "reference", "status"]
    return pd.DataFrame(rows, columns=columns)


def _suggest(name: str, candidates) -> str:
    close = difflib.get_close_matches(name, list(candidates), n=3)
    return f"; did you mean {', '.join(map(repr, close))}?" if close else ""
