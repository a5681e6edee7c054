"""Shared fixtures: registry isolation."""

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
