"""The plugin registry: built-ins through the hook, run-time and entry-point plugins, and their failures."""

import sys
import textwrap
import warnings
from importlib.metadata import EntryPoint

import numpy as np
import pytest
import xarray as xr

import ordframe
from ordframe import registry

CUBE = xr.DataArray([[[3, 1], [0, 2]], [[1, 1], [1, 1]]], dims=("model", "true", "pred"))
CLASSIC = "ordframe.metrics.classic"


def kernel(counts):
    return np.trace(counts, axis1=-2, axis2=-1) / counts.sum(axis=(-2, -1))


def metric(name, func=kernel, **kwargs):
    return ordframe.Metric(name, "confusion", func, True, (0.0, 1.0), **kwargs)


class Plugin:
    """A run-time plugin providing the given metrics."""

    def __init__(self, *metrics):
        self.metrics = list(metrics)

    @ordframe.hookimpl
    def ordframe_metrics(self):
        return self.metrics


def snapshot():
    return {n: (m, p) for n, (m, p) in registry._registry.metrics.items()}, registry._registry.manager.list_name_plugin()


# built-ins


def test_builtins_come_through_the_hook():
    registry.metric_names()  # the registry loads lazily
    manager = registry._registry.manager
    assert manager.has_plugin(CLASSIC)
    assert CLASSIC in [impl.plugin_name for impl in manager.hook.ordframe_metrics.get_hookimpls()]
    table = ordframe.list_metrics().set_index("name")
    classic = ["accuracy", "mer", "mae", "mse", "amae", "mmae", "spearman", "kendall_tau_b", "qwk", "expected_cost"]
    assert set(classic) <= set(table.index)
    assert (table.loc[classic, "plugin"] == CLASSIC).all()
    assert (table.loc[classic, "status"] == "ok").all()
    assert table.loc["qwk", "direction"] == "higher is better"
    assert table.loc["mae", "direction"] == "lower is better"
    assert table.loc["amae", "parameters"] == {"missing": "skip"}
    assert table.loc["spearman", "bounds"] == (-1.0, 1.0)
    assert list(ordframe.list_metrics().columns) == [
        "name", "kind", "direction", "bounds", "parameters", "plugin", "reference", "status"
    ]


def test_metric_names_by_kind():
    names = registry.metric_names()
    assert names == sorted(names)
    assert "mae" in registry.metric_names("confusion")
    assert "mae" not in registry.metric_names("proba")


def test_get_metric_unknown_lists_close_matches():
    assert ordframe.get_metric("qwk").name == "qwk"
    with pytest.raises(KeyError, match=r"no metric named 'kendal_tau'.*'kendall_tau_b'"):
        ordframe.get_metric("kendal_tau")


# register / unregister


@pytest.mark.parametrize("how", ["object", "plugin-name", "metric-name"])
def test_register_then_unregister(how, restore_registry):
    plugin = Plugin(metric("my_index"), metric("my_other_index"))
    name = ordframe.register(plugin, name="my_plugin")
    assert name == "my_plugin"
    assert ordframe.list_metrics().set_index("name").loc["my_index", "plugin"] == "my_plugin"
    assert CUBE.ordinal.my_index().values.tolist() == [5 / 6, 0.5]
    assert "my_other_index" in dir(CUBE.ordinal)
    key = {"object": plugin, "plugin-name": "my_plugin", "metric-name": "my_other_index"}[how]
    assert ordframe.unregister(key) is plugin
    assert "my_index" not in registry.metric_names()
    assert "my_other_index" not in dir(CUBE.ordinal)
    with pytest.raises(AttributeError, match="my_index"):
        CUBE.ordinal.my_index()


def test_register_a_module(restore_registry, tmp_path, monkeypatch):
    module = write_module(tmp_path, monkeypatch, "plugin_module", GOOD_PLUGIN)
    name = ordframe.register(module)
    assert ordframe.get_metric("ep_index").func(np.eye(2)) == 1.0
    assert ordframe.list_metrics().set_index("name").loc["ep_index", "plugin"] == name
    ordframe.unregister(module)
    assert "ep_index" not in registry.metric_names()


def test_unregister_unknown_names_close_matches():
    with pytest.raises(ValueError, match=r"no plugin or metric named 'spearmn'.*'spearman'"):
        ordframe.unregister("spearmn")
    with pytest.raises(ValueError, match="is not a registered ordframe plugin"):
        ordframe.unregister(Plugin())


def test_unregister_a_builtin_by_metric_name_removes_its_family(restore_registry):
    ordframe.unregister("qwk")
    assert not {"qwk", "mae", "accuracy"} & set(registry.metric_names())
    with pytest.raises(AttributeError):
        CUBE.ordinal.qwk()


def test_restore_registry_fixture_put_the_builtins_back():
    # runs after the test above in file order; also guards against a leaking fixture
    assert {"qwk", "mae", "accuracy"} <= set(registry.metric_names())
    assert "my_index" not in registry.metric_names()


def test_duplicate_metric_name_names_both_plugins_and_changes_nothing(restore_registry):
    before = snapshot()
    with pytest.raises(ValueError) as info:
        ordframe.register(Plugin(metric("fresh_name"), metric("mae")), name="copycat")
    message = str(info.value)
    assert "'mae'" in message and "'copycat'" in message and repr(CLASSIC) in message
    assert snapshot() == before
    assert "fresh_name" not in dir(CUBE.ordinal)
    assert not registry._registry.manager.has_plugin("copycat")


def test_duplicate_names_inside_one_plugin(restore_registry):
    with pytest.raises(ValueError, match=r"metric 'twice' is provided by two plugins: 'selfish' and 'selfish'"):
        ordframe.register(Plugin(metric("twice"), metric("twice")), name="selfish")


@pytest.mark.parametrize(
    "returned, pattern",
    [
        pytest.param(metric("lonely"), r"must return a list of ordframe.Metric, got Metric", id="not-a-list"),
        pytest.param(["mae"], r"returned 'mae', not an ordframe.Metric", id="not-a-metric"),
    ],
)
def test_a_plugin_returning_the_wrong_thing(returned, pattern, restore_registry):
    class Bad:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return returned

    before = snapshot()
    with pytest.raises(TypeError, match=r"plugin 'bad'.*" + pattern):
        ordframe.register(Bad(), name="bad")
    assert snapshot() == before


# kernels that break the contract


def test_kernel_output_of_the_wrong_shape_names_the_metric(restore_registry):
    ordframe.register(Plugin(metric("row_rate", lambda c: c.sum(axis=-1))))
    with pytest.raises(ValueError, match=r"metric 'row_rate'.*returned shape \(1, 2\).*must return shape \(1,\)"):
        CUBE.ordinal.row_rate()


def test_kernel_output_of_the_wrong_dtype_names_the_metric(restore_registry):
    ordframe.register(Plugin(metric("wordy", lambda c: np.full(c.shape[:-2], "good"))))
    with pytest.raises(TypeError, match=r"metric 'wordy'.*dtype <U4"):
        CUBE.ordinal.wordy()


def test_kernel_returning_ints_or_bools_gives_floats(restore_registry):
    ordframe.register(Plugin(metric("diag_any", lambda c: np.trace(c, axis1=-2, axis2=-1) > 3)))
    result = CUBE.ordinal.diag_any()
    assert result.dtype == np.float64 and result.values.tolist() == [1.0, 0.0]


def test_unknown_parameter_names_the_metric_and_its_parameters():
    with pytest.raises(TypeError, match=r"metric 'amae' got unknown parameter\(s\) \['beta'\]; its parameters are: missing"):
        CUBE.ordinal.amae(beta=0.5)
    with pytest.raises(TypeError, match=r"metric 'mae' got unknown parameter\(s\) \['gamma'\]; its parameters are: none"):
        CUBE.ordinal.mae(gamma=2)


# Metric validation


@pytest.mark.parametrize("name", ["1st", "my index", "class", "_hidden", "my-index", ""])
def test_metric_name_must_be_a_public_identifier(name):
    with pytest.raises(ValueError, match="must be a public Python identifier"):
        metric(name)


def test_metric_kind_bounds_and_func_are_checked():
    with pytest.raises(ValueError, match=r"metric 'x': kind must be one of \('confusion', 'proba'\), got 'matrix'"):
        ordframe.Metric("x", "matrix", kernel, True)
    with pytest.raises(ValueError, match=r"metric 'x': bounds \(1, 0\) are not ordered"):
        ordframe.Metric("x", "confusion", kernel, True, (1, 0))
    with pytest.raises(TypeError, match=r"metric 'x': func must be callable, got str"):
        ordframe.Metric("x", "confusion", "kernel", True)


def test_metric_is_frozen_and_its_defaults_read_only():
    m = metric("x", defaults={"beta": 0.5})
    with pytest.raises(AttributeError):
        m.name = "y"
    with pytest.raises(TypeError):
        m.defaults["beta"] = 1.0
    assert m.params({}) == {"beta": 0.5} and m.params({"beta": 1.0}) == {"beta": 1.0}
    assert m.bounds == (0.0, 1.0) and m.direction == "higher is better"


# entry-point plugins (entry points are faked; modules are real files on sys.path)

GOOD_PLUGIN = """
    import numpy as np
    import ordframe

    def ep_index(counts):
        return np.trace(counts, axis1=-2, axis2=-1) / counts.sum(axis=(-2, -1))

    @ordframe.hookimpl
    def ordframe_metrics():
        return [ordframe.Metric("ep_index", "confusion", ep_index, True, (0.0, 1.0))]
"""
BROKEN_PLUGIN = """
    raise RuntimeError("this plugin needs a GPU")
"""
SHADOWING_PLUGIN = """
    import ordframe

    @ordframe.hookimpl
    def ordframe_metrics():
        return [ordframe.Metric("mae", "confusion", len, False)]
"""


def write_module(tmp_path, monkeypatch, stem, source):
    name = f"{stem}_{tmp_path.name}".replace("-", "_")
    (tmp_path / f"{name}.py").write_text(textwrap.dedent(source))
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, name, raising=False)
    __import__(name)  # noqa: F401  (fails for the broken one: that is checked by the caller)
    return sys.modules[name]


def fake_entry_points(monkeypatch, tmp_path, plugins):
    """Make ``registry.entry_points`` return one entry point per ``{ep name: module source}``."""
    eps = []
    for ep_name, source in plugins.items():
        module = f"{ep_name}_{tmp_path.name}".replace("-", "_")
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        eps.append(EntryPoint(name=ep_name, value=module, group=registry.ENTRY_POINT_GROUP))
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    calls = []

    def entry_points(*, group):
        calls.append(group)
        return [ep for ep in eps if ep.group == group]

    monkeypatch.setattr(registry, "entry_points", entry_points)
    return calls


def test_entry_point_plugin_is_discovered(fresh_registry, monkeypatch, tmp_path):
    calls = fake_entry_points(monkeypatch, tmp_path, {"goodplug": GOOD_PLUGIN})
    table = ordframe.list_metrics().set_index("name")
    assert calls == ["ordframe"]
    assert table.loc["ep_index", "plugin"] == "goodplug"
    assert table.loc["ep_index", "status"] == "ok"
    assert CUBE.ordinal.ep_index().values.tolist() == [5 / 6, 0.5]
    assert "mae" in table.index  # the built-ins are still there


def test_plugin_that_raises_on_import_is_skipped_and_listed_as_failed(fresh_registry, monkeypatch, tmp_path):
    fake_entry_points(monkeypatch, tmp_path, {"gpuplug": BROKEN_PLUGIN, "goodplug": GOOD_PLUGIN})
    with pytest.warns(ordframe.PluginLoadWarning) as record:
        table = ordframe.list_metrics()
    assert len(record) == 1
    message = str(record[0].message)
    assert "'gpuplug'" in message and "RuntimeError: this plugin needs a GPU" in message
    failed = table[table["plugin"] == "gpuplug"]
    assert len(failed) == 1 and failed["name"].isna().all()
    assert failed["status"].iloc[0] == "failed: RuntimeError: this plugin needs a GPU"
    assert {"ep_index", "mae", "qwk"} <= set(table["name"].dropna())
    assert (table.dropna(subset=["name"])["status"] == "ok").all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once, not on every use
        assert ordframe.get_metric("ep_index").name == "ep_index"
        ordframe.list_metrics()


def test_entry_point_plugin_that_shadows_a_builtin_is_skipped(fresh_registry, monkeypatch, tmp_path):
    fake_entry_points(monkeypatch, tmp_path, {"shadow": SHADOWING_PLUGIN})
    with pytest.warns(ordframe.PluginLoadWarning, match=r"'shadow'.*'mae' is provided by two plugins"):
        table = ordframe.list_metrics()
    assert table.set_index("plugin").loc["shadow", "status"].startswith("failed: ValueError")
    assert ordframe.get_metric("mae").func is sys.modules[CLASSIC].mae
    assert not registry._registry.manager.has_plugin("shadow")


@pytest.mark.parametrize("value, loaded", [("1", False), ("true", False), ("0", True), ("", True)])
def test_disable_autoload_switch(value, loaded, fresh_registry, monkeypatch, tmp_path):
    calls = fake_entry_points(monkeypatch, tmp_path, {"goodplug": GOOD_PLUGIN})
    monkeypatch.setenv(registry.DISABLE_AUTOLOAD, value)
    names = registry.metric_names()
    assert ("ep_index" in names) is loaded
    assert bool(calls) is loaded
    assert "mae" in names  # built-ins are not entry points
    if not loaded:  # a plugin can still be registered by hand
        ordframe.register(Plugin(metric("by_hand")))
        assert "by_hand" in registry.metric_names()
