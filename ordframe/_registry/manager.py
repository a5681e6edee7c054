"""The plugin registry: a pluggy manager that collects ``Metric`` declarations.

Built-in metrics, entry-point plugins (group ``ordframe``) and plugins given to
``register`` all go through the same ``ordframe_metrics`` hook. The plugins
are loaded once, on first use. The table of metrics is then rebuilt after every
change and published whole, as a read-only mapping, under a lock: a reader
takes the current table once and so never sees a half-built or changing one.
"""

from __future__ import annotations

import importlib
import os
import threading
from collections.abc import Mapping
from importlib.metadata import entry_points
from types import MappingProxyType

import pandas as pd
import pluggy

from ordframe._core.messages import did_you_mean, warn
from ordframe._registry import hookspecs
from ordframe._registry.metric import Metric

ENTRY_POINT_GROUP = "ordframe"
DISABLE_AUTOLOAD = "ORDFRAME_DISABLE_PLUGIN_AUTOLOAD"
BUILTIN_MODULES = (
    "ordframe.metrics.classic",
    "ordframe.metrics.rint",
    "ordframe.metrics.cost",
    "ordframe.metrics.oc",
    "ordframe.metrics.proba",
    "ordframe.metrics.score",
)


class PluginLoadWarning(UserWarning):
    """A plugin could not be loaded and was skipped, or was loaded under another name."""


class PluginError(RuntimeError):
    """A metric's kernel failed: the error names the metric and the plugin that registered it.

    The kernel's own exception is chained (``__cause__``). A kernel's
    ``ValueError`` or ``TypeError`` (how a kernel rejects bad parameters) stays
    a ``ValueError`` or ``TypeError`` that names the metric and the plugin; any
    other exception (a bug in the kernel, such as an ``IndexError``) becomes a
    ``PluginError``. ``metric`` and ``plugin`` hold the two names
    (``plugin`` is None if the metric is no longer registered).
    """

    def __init__(self, message: str, metric: str | None = None, plugin: str | None = None) -> None:
        super().__init__(message)
        self.metric = metric
        self.plugin = plugin

    def __reduce__(self):  # pickles (for dask's worker processes) with its names
        return type(self), (str(self), self.metric, self.plugin)


PluginError.__module__ = "ordframe"  # shown, and pickled, under its public name


class _Registry:
    """The plugin manager and the published table ``{metric name: (Metric, plugin name)}``."""

    def __init__(self) -> None:
        self.manager = pluggy.PluginManager(hookspecs.PROJECT)
        self.manager.add_hookspecs(hookspecs)
        self.lock = threading.RLock()
        self.failed: Mapping[str, str] = MappingProxyType({})
        self._metrics: Mapping[str, tuple[Metric, str]] | None = None  # None until loaded

    @property
    def metrics(self) -> Mapping[str, tuple[Metric, str]]:
        """The current table (read-only); the first use loads the plugins."""
        metrics = self._metrics
        return self.load() if metrics is None else metrics

    def load(self) -> Mapping[str, tuple[Metric, str]]:
        """Load the plugins, once (other threads wait for it), and return the table."""
        with self.lock:
            if self._metrics is None:
                self._load()
            assert self._metrics is not None  # _load publishes or raises
            return self._metrics

    def _load(self):
        """Register the built-ins and the entry-point plugins, then publish. All or nothing; caller holds the lock."""
        try:
            for module in BUILTIN_MODULES:
                self.manager.register(importlib.import_module(module), name=module)
            failed = {}
            if os.environ.get(DISABLE_AUTOLOAD, "").strip() in ("", "0"):
                for ep in entry_points(group=ENTRY_POINT_GROUP):
                    self._load_entry_point(ep, failed)
        except BaseException:
            for name, _ in self.manager.list_name_plugin():
                self.manager.unregister(name=name)
            raise
        self.failed = MappingProxyType(failed)
        self.refresh()

    def _load_entry_point(self, ep, failed: dict[str, str]):
        """Register one entry-point plugin; a failure is a warning and an entry in ``failed``."""
        name = ep.name
        if self.manager.has_plugin(name) or name in failed:  # another distribution's entry point has this name
            name = f"{ep.name} ({ep.dist.name if ep.dist else ep.value})"
        registered = False
        try:
            self.manager.register(ep.load(), name=name)
            registered = True
            self._collect()
        except KeyboardInterrupt:
            raise
        except BaseException as exc:
            if registered:
                self.manager.unregister(name=name)
            failed[name] = f"{type(exc).__name__}: {exc}"
            warn(f"ordframe skipped plugin {name!r} ({ep.value}): {failed[name]}", PluginLoadWarning)
            return
        if name != ep.name:
            message = (
                f"ordframe plugin entry-point name {ep.name!r} is shared by two installed plugins; "
                f"the second one ({ep.value}) is registered as {name!r}"
            )
            warn(message, PluginLoadWarning)

    def refresh(self):
        """Rebuild the table from the registered plugins and publish it."""
        with self.lock:
            self._metrics = MappingProxyType(self._collect())

    def _collect(self) -> dict[str, tuple[Metric, str]]:
        metrics: dict[str, tuple[Metric, str]] = {}
        for impl in reversed(self.manager.hook.ordframe_metrics.get_hookimpls()):
            try:
                declared = impl.function()
            except (TypeError, ValueError) as exc:
                if type(exc) in (TypeError, ValueError):  # what a bad Metric declaration raises: say whose it is
                    raise type(exc)(f"plugin {impl.plugin_name!r}: {exc}") from exc
                raise
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

    def register(self, plugin: object, name: str | None) -> str:
        with self.lock:
            self.load()
            if self.manager.is_registered(plugin):
                raise ValueError(f"{plugin!r} is already registered as {self.manager.get_name(plugin)!r}")
            if name is not None and self.manager.has_plugin(name):
                raise ValueError(f"a plugin named {name!r} is already registered; choose another name")
            registered = self.manager.register(plugin, name=name)
            if registered is None:  # pluggy: the plugin is blocked
                raise ValueError(f"plugin {name or plugin!r} is blocked and cannot be registered")
            if not self.manager.get_hookcallers(plugin):
                self.manager.unregister(name=registered)
                raise TypeError(
                    f"{plugin!r} has no @ordframe.hookimpl functions (such as ordframe_metrics); "
                    "a plugin is a module or object that implements ordframe's hooks"
                )
            try:
                self.refresh()
            except BaseException:
                self.manager.unregister(name=registered)
                raise
            return registered

    def unregister(self, plugin: object) -> object:
        with self.lock:
            metrics = self.load()
            if isinstance(plugin, str):
                if self.manager.has_plugin(plugin):
                    plugin = self.manager.get_plugin(plugin)
                elif plugin in metrics:
                    plugin = self.manager.get_plugin(metrics[plugin][1])
                else:
                    known = [n for n, _ in self.manager.list_name_plugin()] + list(metrics)
                    raise ValueError(f"no plugin or metric named {plugin!r}{did_you_mean(plugin, known)}")
            elif not self.manager.is_registered(plugin):
                raise ValueError(f"{plugin!r} is not a registered ordframe plugin")
            removed = self.manager.unregister(plugin)
            self.refresh()
            return removed


_registry = _Registry()


def register(plugin: object, name: str | None = None) -> str:
    """Register a plugin (a module or object with ``@ordframe.hookimpl`` functions) at run time.

    Parameters
    ----------
    plugin : module or object
        Implements the ``ordframe_metrics`` hook, which returns a list of [`ordframe.Metric`][ordframe.Metric].
    name : str, optional
        The plugin's name (default: chosen by pluggy from the object).

    Returns
    -------
    str
        The name the plugin was registered under.

    Raises
    ------
    ValueError
        If one of its metric names is already taken (both plugins are named; the
        registry is then unchanged), or the plugin (or its name) is already registered.
    TypeError
        If it implements no ordframe hook, or its hook does not return a list of ``Metric``.

    Examples
    --------
    >>> import types, ordframe
    >>> plugin = types.SimpleNamespace(ordframe_metrics=ordframe.hookimpl(lambda: []))
    >>> ordframe.register(plugin, "empty")
    'empty'
    >>> ordframe.unregister("empty") is plugin
    True
    """
    return _registry.register(plugin, name)


def unregister(plugin: object) -> object:
    """Remove a plugin given as the plugin object, its name, or a metric name it provides.

    Parameters
    ----------
    plugin : object or str
        The plugin object, the name it was registered under, or the name of one of its metrics.

    Returns
    -------
    object
        The plugin removed.

    Raises
    ------
    ValueError
        If no such plugin is registered (close names are suggested).
    """
    return _registry.unregister(plugin)


def plugin_of(metric: Metric) -> str | None:
    """The name of the plugin that registered ``metric`` (None if it is not registered, e.g. no longer)."""
    entry = _registry.metrics.get(metric.name)
    return entry[1] if entry is not None and (entry[0] is metric or entry[0] == metric) else None


def get_metric(name: str) -> Metric:
    """The registered metric called ``name``.

    Parameters
    ----------
    name : str
        A metric name, as listed by [`list_metrics`][list_metrics].

    Returns
    -------
    Metric

    Raises
    ------
    KeyError
        If no metric has that name; close matches are suggested.

    Examples
    --------
    >>> import ordframe
    >>> ordframe.get_metric("oc").defaults["beta"]
    0.75
    """
    metrics = _registry.metrics
    if name not in metrics:
        raise KeyError(f"no metric named {name!r}{did_you_mean(name, metrics)}")
    return metrics[name][0]


def metric_names(kind: str | None = None) -> list[str]:
    """Names of the registered metrics (of one ``kind`` if given), sorted."""
    return sorted(n for n, (m, _) in _registry.metrics.items() if kind in (None, m.kind))


def list_metrics() -> pd.DataFrame:
    """A table of every registered metric, plus one row per plugin that failed to load.

    Returns
    -------
    pandas.DataFrame
        Columns ``name``, ``kind``, ``direction``, ``bounds``, ``parameters``,
        ``plugin``, ``description``, ``reference`` and ``status`` (``"ok"`` or
        ``"failed: <error>"``).

    Examples
    --------
    >>> import ordframe
    >>> ordframe.list_metrics().set_index("name").loc["oc", "direction"]
    'lower is better'
    """
    metrics = _registry.metrics
    rows: list[dict[str, object]] = [
        {
            "name": m.name,
            "kind": m.kind,
            "direction": m.direction,
            "bounds": m.bounds,
            "parameters": dict(m.defaults),
            "plugin": plugin,
            "description": m.description,
            "reference": m.reference,
            "status": "ok",
        }
        for m, plugin in (metrics[n] for n in sorted(metrics))
    ]
    rows += [
        {
            "name": None,
            "kind": None,
            "direction": None,
            "bounds": None,
            "parameters": None,
            "plugin": plugin,
            "description": None,
            "reference": None,
            "status": f"failed: {error}",
        }
        for plugin, error in _registry.failed.items()
    ]
    columns = ["name", "kind", "direction", "bounds", "parameters", "plugin", "description", "reference", "status"]
    return pd.DataFrame(rows, columns=columns)
