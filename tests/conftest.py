"""Shared fixtures: the plugins loaded first, registry isolation, and the compiled kernels made ready once per run."""

import math

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
def numpy_routines(loaded_registry):
    """Every routine runs its numpy formulation, as in a process's first calls: numba compiles nothing here.

    Compiling every compiled twin with a cold cache costs about a minute of CPU, more than the rest of the run's
    metrics together. The tests marked ``compiled`` check each compiled routine against its numpy formulation
    (``tests/test_accelerate.py``, the compiled count, the string coder); ``.ci/run`` runs them with the slow tier.
    A test marked ``compiled`` runs them (``compiled_routines``); another that wants one sets the rule's budget
    (``compiling.COMPILED_SECONDS``) itself.
    """
    from ordframe._core import compiling

    saved, compiling.COMPILED_SECONDS = compiling.COMPILED_SECONDS, math.inf
    yield
    compiling.COMPILED_SECONDS = saved


@pytest.fixture(autouse=True)
def compiled_routines(request, monkeypatch):
    """A test marked ``compiled`` runs every compiled routine at every size (the budget spent, as in a process whose
    numpy work has paid for them); numba compiles each at its first call, or loads it from its cache."""
    if request.node.get_closest_marker("compiled") is not None:
        from ordframe._core import compiling

        monkeypatch.setattr(compiling, "COMPILED_SECONDS", 0.0)
        monkeypatch.setattr(compiling, "SPENT", {})
