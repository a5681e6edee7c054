"""Shared fixtures: the plugins loaded first, registry isolation, and the compiled kernels made ready once per run."""

import math
import warnings

import pandas as pd
import pytest

from ordframe._registry import manager as registry


@pytest.fixture
def restore_registry():
    """Put the global registry back as it was: drop plugins a test added, re-add ones it removed."""
    registry._registry.load()
    manager = registry._registry.manager
    before = dict(manager.list_name_plugin())
    yield
    with registry._registry.lock:
        after = dict(manager.list_name_plugin())
        for name in after.keys() - before.keys():
            manager.unregister(name=name)
        for name in before.keys() - after.keys():
            manager.register(before[name], name=name)
        registry._registry.refresh()


@pytest.fixture
def fresh_registry(monkeypatch):
    """A new, not yet loaded registry in place of the global one (entry points can then be faked)."""
    fresh = registry._Registry()
    monkeypatch.setattr(registry, "_registry", fresh)
    return fresh


@pytest.fixture(scope="session", autouse=True)
def loaded_registry():
    """The plugins installed beside ordframe are loaded once, before the first test.

    A plugin that fails to load (one whose metric takes a built-in's name, say) is then one ``PluginLoadWarning``
    in the run's summary, raised where no test is running: inside a test's ``warnings.simplefilter("error")``
    block, which overrides any filter of the configuration, it would fail that unrelated test instead.
    """
    registry._registry.load()


@pytest.fixture(scope="session", autouse=True)
def compiled_kernels(loaded_registry):
    """numba compiles the kernels (or loads them from its on-disk cache) here, once per run.

    Every built-in confusion metric's twin on int64 and float64 (weighted) counts: a test's duration is then its
    own, not the compilation of whatever kernels it happens to call first. The twins then run at every size
    (``Metric.kernel``), on the tests' small cubes too; rows are counted by numpy, as in a process's first calls
    (``tests/test_counting.py`` runs both counts).
    """
    import ordframe
    from ordframe._core import compiling

    table = ordframe.list_metrics()
    confusion = list(table.loc[(table["kind"] == "confusion") & table["plugin"].isin(registry.BUILTIN_MODULES), "name"])
    for name in confusion:
        twin = ordframe.get_metric(name).compiled
        if twin is not None:
            compiling.SPENT[twin] = math.inf  # paid for
    df = pd.DataFrame({"y": [0, 1, 2, 2, 1], "yhat": [0, 2, 2, 1, 1], "w": [1.0, 2.0, 1.0, 1.0, 0.5]})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for weights in (None, "w"):
            df.ordinal.confusion("y", "yhat", weights=weights).ordinal.evaluate(metrics=confusion)
