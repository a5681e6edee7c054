"""The plugin registry: built-ins through the hook, run-time and entry-point plugins, and their failures."""

import copy
import inspect
import pickle
import subprocess
import sys
import textwrap
import threading
import warnings
from importlib.metadata import EntryPoint, distributions
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe
from ordframe._accessors.pandas import OrdinalFrameAccessor
from ordframe._accessors.xarray import OrdinalArrayAccessor
from ordframe._core.checks import Orientation
from ordframe._registry import manager as registry
from ordframe._registry.metric import RESERVED_NAMES
from ordframe.metrics import oc as oc_module

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
    return dict(registry._registry.metrics), registry._registry.manager.list_name_plugin()


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
        "name",
        "kind",
        "direction",
        "bounds",
        "parameters",
        "plugin",
        "description",
        "reference",
        "status",
    ]


def test_list_metrics_shows_the_description(restore_registry):
    ordframe.register(Plugin(metric("described", description="Share of the diagonal.")), name="described")
    table = ordframe.list_metrics().set_index("name")
    assert table.loc["described", "description"] == "Share of the diagonal."
    assert table.loc["mae", "description"] == ordframe.get_metric("mae").description != ""


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


def mean_recall(counts):
    """Mean recall over the true classes with samples, as a sum over a count: 0 / 0 on an empty matrix."""
    recall = np.diagonal(counts, axis1=-2, axis2=-1) / counts.sum(axis=-1)
    return np.nansum(recall, axis=-1) / (~np.isnan(recall)).sum(axis=-1)


def nan_mean_recall(counts):
    """The same with np.nanmean, which warns through Python's warnings module on an empty matrix."""
    return np.nanmean(np.diagonal(counts, axis1=-2, axis2=-1) / counts.sum(axis=-1), axis=-1)


def test_floating_point_warnings_of_kernels_are_silenced(restore_registry):
    with np.errstate(all="warn"), pytest.warns(RuntimeWarning):
        mean_recall(np.zeros((1, 2, 2)))  # what numpy says when the kernel is called directly
    cube = xr.DataArray([[[3, 1], [0, 2]], [[0, 0], [0, 0]]], dims=("model", "true", "pred"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither registration nor any call may warn
        ordframe.register(Plugin(metric("recall_mean", func=mean_recall)))
        for _ in range(2):
            np.testing.assert_allclose(cube.ordinal.recall_mean().values, [0.875, np.nan])
            np.testing.assert_allclose(cube.chunk({"model": 1}).ordinal.recall_mean().values, [0.875, np.nan])
            assert float(cube.ordinal.evaluate(metrics=["recall_mean"])["recall_mean"][0]) == 0.875
            assert cube[0].ordinal.recall_mean() == 0.875


def test_warnings_a_kernel_issues_itself_reach_the_user(restore_registry):
    """Hiding them would change the process's warning filters, which threads share."""
    ordframe.register(Plugin(metric("nan_recall", func=nan_mean_recall)))
    cube = xr.DataArray([[[3, 1], [0, 2]], [[0, 0], [0, 0]]], dims=("model", "true", "pred"))
    with pytest.warns(RuntimeWarning, match="Mean of empty slice"):
        np.testing.assert_allclose(cube.ordinal.nan_recall().values, [0.875, np.nan])


def fragile(counts):
    raise RuntimeError("internal failure")


def fragile_on_stacks(counts):
    """Fine on the one-matrix probe, fails on a stack of matrices: the error shows in the real computation."""
    if counts.ndim > 2 and counts.shape[0] > 1:
        raise IndexError("only one matrix at a time")
    return kernel(counts)


FRAGILE = (
    r"the kernel of metric 'fragile_idx' \(plugin 'fragile_plugin'\) failed with {}; this is a fault of the plugin"
)


def test_a_kernel_that_raises_names_the_metric_and_the_plugin(restore_registry):
    ordframe.register(Plugin(metric("fragile_idx", fragile)), "fragile_plugin")
    frame = __import__("pandas").DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]})
    with pytest.raises(ordframe.PluginError, match=FRAGILE.format("RuntimeError: internal failure")) as error:
        frame.ordinal.evaluate("y", "yhat")  # every registered metric: the probe run in prepare fails
    assert (error.value.metric, error.value.plugin) == ("fragile_idx", "fragile_plugin")
    assert isinstance(error.value.__cause__, RuntimeError) and str(error.value.__cause__) == "internal failure"
    assert "ordframe.unregister('fragile_plugin')" in str(error.value) and "leaving 'fragile_idx' out" in str(
        error.value
    )
    assert list(frame.ordinal.evaluate("y", "yhat", metrics=["mae"])) == ["mae"]  # the way out works


def test_a_kernel_that_fails_after_the_probe_is_named_too_also_lazily(restore_registry):
    ordframe.register(Plugin(metric("fragile_idx", fragile_on_stacks)), "fragile_plugin")
    assert CUBE[0].ordinal.fragile_idx() == 5 / 6  # one matrix: fine
    with pytest.raises(ordframe.PluginError, match=FRAGILE.format("IndexError: only one matrix at a time")):
        CUBE.ordinal.fragile_idx()
    lazy = CUBE.chunk({"model": 2}).ordinal.fragile_idx()  # built without error: the probe passes
    with pytest.raises(ordframe.PluginError, match=FRAGILE.format("IndexError: only one matrix at a time")) as error:
        lazy.compute()
    assert isinstance(error.value.__cause__, IndexError)


def test_a_plugin_kernel_s_value_or_type_error_keeps_its_type_and_names_the_metric(restore_registry):
    def picky(counts, width=1):
        if width < 0:
            raise ValueError("width must be >= 0")
        if not isinstance(width, int):
            raise TypeError("width must be an int")
        return kernel(counts)

    ordframe.register(Plugin(metric("picky", picky)), "picky_plugin")
    with pytest.raises(ValueError, match=r"^metric 'picky' \(plugin 'picky_plugin'\): width must be >= 0$") as error:
        CUBE.ordinal.picky(width=-1)
    assert type(error.value) is ValueError and str(error.value.__cause__) == "width must be >= 0"
    with pytest.raises(TypeError, match=r"^metric 'picky' \(plugin 'picky_plugin'\): width must be an int$"):
        CUBE.ordinal.picky(width=0.5)


def test_a_builtin_kernel_s_parameter_error_names_its_metric_and_nothing_else():
    with pytest.raises(ValueError, match=r"^metric 'uoc': beta must be a finite number >= 0, got -1$") as error:
        CUBE.ordinal.uoc(beta=-1)  # several metrics take a beta: the message says which one refused it
    assert error.value.__cause__ is None


def test_keyboard_interrupt_in_a_kernel_is_not_wrapped(restore_registry):
    def interrupted(counts):
        raise KeyboardInterrupt

    ordframe.register(Plugin(metric("interrupted", interrupted)), "ctrl_c")
    with pytest.raises(KeyboardInterrupt):
        CUBE.ordinal.interrupted()


def test_a_plugin_error_pickles_with_its_names():
    error = pickle.loads(pickle.dumps(ordframe.PluginError("failed", "fragile_idx", "fragile_plugin")))
    assert (str(error), error.metric, error.plugin) == ("failed", "fragile_idx", "fragile_plugin")


def test_unknown_parameter_names_the_metric_and_its_parameters():
    unknown = r"metric '{}' got unknown parameter\(s\) \['{}'\]; its parameters are: {}"
    with pytest.raises(TypeError, match=unknown.format("amae", "beta", "missing")):
        CUBE.ordinal.amae(beta=0.5)
    with pytest.raises(TypeError, match=unknown.format("mae", "gamma", "none")):
        CUBE.ordinal.mae(gamma=2)


# Metric validation


@pytest.mark.parametrize("name", ["1st", "my index", "class", "_hidden", "my-index", ""])
def test_metric_name_must_be_a_public_identifier(name):
    with pytest.raises(ValueError, match="must be a public Python identifier"):
        metric(name)


def test_metric_kind_bounds_and_func_are_checked():
    with pytest.raises(
        ValueError, match=r"metric 'x': kind must be one of \('confusion', 'proba', 'score'\), got 'matrix'"
    ):
        ordframe.Metric("x", "matrix", kernel, True)
    with pytest.raises(ValueError, match=r"metric 'x': bounds \(1, 0\) are not ordered"):
        ordframe.Metric("x", "confusion", kernel, True, (1, 0))
    with pytest.raises(TypeError, match=r"metric 'x': func must be callable, got str"):
        ordframe.Metric("x", "confusion", "kernel", True)


def weighted_kernel(counts, beta=0.5):
    return beta * kernel(counts)


def test_metric_is_frozen_and_its_defaults_read_only():
    m = metric("x", func=weighted_kernel)
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
    __import__(name)  # fails for the broken one: that is checked by the caller
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


def test_a_plugin_load_warning_points_at_the_user_s_line(fresh_registry, monkeypatch, tmp_path):
    fake_entry_points(monkeypatch, tmp_path, {"gpuplug": BROKEN_PLUGIN})
    with pytest.warns(ordframe.PluginLoadWarning) as record:
        CUBE.ordinal.mae()  # the first use loads the plugins
    assert len(record) == 1 and record[0].filename == __file__


def test_ordframe_metrics_lists_plugin_metrics_and_failed_plugins(fresh_registry, monkeypatch, tmp_path, capsys):
    from ordframe._cli.main import main

    fake_entry_points(monkeypatch, tmp_path, {"gpuplug": BROKEN_PLUGIN, "goodplug": GOOD_PLUGIN})
    assert main(["metrics"]) == 0
    out, err = capsys.readouterr()
    assert "(plugin goodplug)" in [line for line in out.splitlines() if line.startswith("ep_index ")][0]
    assert "plugin gpuplug failed: RuntimeError: this plugin needs a GPU" in out
    assert err.startswith("ordframe metrics: warning: ordframe skipped plugin 'gpuplug'") and err.count("\n") == 1


def test_ordframe_metrics_wraps_a_failed_plugin_to_the_terminal(fresh_registry, monkeypatch, tmp_path, capsys):
    from ordframe._cli.main import main

    fake_entry_points(monkeypatch, tmp_path, {"shadow": SHADOWING_PLUGIN})
    monkeypatch.setenv("COLUMNS", "90")
    assert main(["metrics"]) == 0
    out = capsys.readouterr().out
    assert max(len(line) for line in out.splitlines()) <= 90
    assert "plugin shadow failed: ValueError: metric 'mae' is provided by two plugins" in " ".join(out.split())


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


# plugins that exit, or interrupt


EXITING_PLUGIN = """
    import sys

    sys.exit("no licence server")
"""
EXITING_HOOK = """
    import ordframe

    @ordframe.hookimpl
    def ordframe_metrics():
        raise SystemExit(3)
"""
ABORTING_HOOK = """
    import ordframe

    class Abort(BaseException):
        pass

    @ordframe.hookimpl
    def ordframe_metrics():
        raise Abort("gave up")
"""
INTERRUPTED_PLUGIN = """
    raise KeyboardInterrupt
"""


@pytest.mark.parametrize(
    "source, error",
    [
        pytest.param(EXITING_PLUGIN, "SystemExit: no licence server", id="exit-on-import"),
        pytest.param(EXITING_HOOK, "SystemExit: 3", id="exit-in-hook"),
        pytest.param(ABORTING_HOOK, "Abort: gave up", id="base-exception-in-hook"),
    ],
)
def test_plugin_that_exits_is_skipped_and_listed_as_failed(source, error, fresh_registry, monkeypatch, tmp_path):
    fake_entry_points(monkeypatch, tmp_path, {"exitplug": source, "goodplug": GOOD_PLUGIN})
    with pytest.warns(ordframe.PluginLoadWarning, match=rf"skipped plugin 'exitplug'.*{error}"):
        table = ordframe.list_metrics()
    assert table.set_index("plugin").loc["exitplug", "status"] == f"failed: {error}"
    assert {"ep_index", "mae"} <= set(table["name"].dropna())
    assert not registry._registry.manager.has_plugin("exitplug")
    assert CUBE.ordinal.ep_index().values.tolist() == [5 / 6, 0.5]


def test_keyboard_interrupt_propagates_and_loading_is_retried(fresh_registry, monkeypatch, tmp_path):
    fake_entry_points(monkeypatch, tmp_path, {"goodplug": GOOD_PLUGIN, "ctrlc": INTERRUPTED_PLUGIN})
    with pytest.raises(KeyboardInterrupt):
        registry.metric_names()
    assert fresh_registry.manager.list_name_plugin() == []  # all or nothing
    fake_entry_points(monkeypatch, tmp_path, {"goodplug": GOOD_PLUGIN})
    assert {"ep_index", "mae"} <= set(registry.metric_names())


# entry points that share a name (distributions are real metadata directories)

OTHER_PLUGIN = GOOD_PLUGIN.replace("ep_index", "ep_other")


def fake_distributions(monkeypatch, tmp_path, plugins):
    """Install one distribution per ``{distribution name: module source}``, each with an entry point ``shared``."""
    for dist, source in plugins.items():
        module = f"{dist}_{tmp_path.name}".replace("-", "_")
        (tmp_path / f"{module}.py").write_text(textwrap.dedent(source))
        info = tmp_path / "site" / f"{dist.replace('-', '_')}-1.0.dist-info"
        info.mkdir(parents=True)
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(f"[{registry.ENTRY_POINT_GROUP}]\nshared = {module}\n")
        monkeypatch.delitem(sys.modules, module, raising=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    found = sorted(distributions(path=[str(tmp_path / "site")]), key=lambda d: d.name)

    def entry_points(*, group):
        return [ep for d in found for ep in d.entry_points if ep.group == group]

    monkeypatch.setattr(registry, "entry_points", entry_points)


def test_entry_points_sharing_a_name_are_both_loaded(fresh_registry, monkeypatch, tmp_path):
    fake_distributions(monkeypatch, tmp_path, {"ordframe-alpha": GOOD_PLUGIN, "ordframe-beta": OTHER_PLUGIN})
    with pytest.warns(ordframe.PluginLoadWarning) as record:
        table = ordframe.list_metrics().set_index("name")
    assert len(record) == 1
    assert str(record[0].message) == (
        f"ordframe plugin entry-point name 'shared' is shared by two installed plugins; the second one "
        f"(ordframe_beta_{tmp_path.name}) is registered as 'shared (ordframe-beta)'"
    )
    assert table.loc["ep_index", "plugin"] == "shared"
    assert table.loc["ep_other", "plugin"] == "shared (ordframe-beta)"
    assert (table["status"] == "ok").all()
    assert CUBE.ordinal.ep_other().values.tolist() == [5 / 6, 0.5]


@pytest.mark.parametrize(
    "second, error",
    [
        pytest.param(GOOD_PLUGIN, "ValueError: metric 'ep_index' is provided by two plugins", id="same-metric"),
        pytest.param(BROKEN_PLUGIN, "RuntimeError: this plugin needs a GPU", id="broken"),
    ],
)
def test_a_failing_second_plugin_under_a_shared_name_is_listed(second, error, fresh_registry, monkeypatch, tmp_path):
    fake_distributions(monkeypatch, tmp_path, {"ordframe-alpha": GOOD_PLUGIN, "ordframe-beta": second})
    with pytest.warns(ordframe.PluginLoadWarning, match=r"skipped plugin 'shared \(ordframe-beta\)'"):
        table = ordframe.list_metrics()
    assert table.set_index("plugin").loc["shared (ordframe-beta)", "status"].startswith(f"failed: {error}")
    assert table.set_index("name").loc["ep_index", "plugin"] == "shared"


# threads

CONCURRENT_FIRST_USE = """
import sys
import threading

import pandas as pd

import ordframe

sys.setswitchinterval(1e-6)  # switch threads often, to make a race show
df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]})
barrier = threading.Barrier(8)
errors = []


def use():
    barrier.wait()
    try:
        assert df.ordinal.mae("y", "yhat") == 0.5
        assert "mae" in set(ordframe.list_metrics()["name"])
    except BaseException as exc:
        errors.append(repr(exc))


threads = [threading.Thread(target=use) for _ in range(8)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(errors)
"""


@pytest.mark.slow
def test_concurrent_first_use_in_a_fresh_process():
    root = Path(__file__).resolve().parent.parent
    command = [sys.executable, "-c", CONCURRENT_FIRST_USE]
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]"


def test_reads_while_another_thread_registers_and_unregisters(restore_registry):
    plugin = Plugin(metric("churn"), metric("churn_too"))
    done = threading.Event()
    errors = []

    def write():
        try:
            for _ in range(100):
                ordframe.register(plugin, name="churner")
                ordframe.unregister("churner")
        except Exception as exc:
            errors.append(exc)
        finally:
            done.set()

    def read():
        try:
            while not done.is_set():
                table = ordframe.list_metrics()
                assert "mae" in set(table["name"])
                assert ordframe.get_metric("mae").name == "mae"
                assert {"qwk", "mae"} <= set(registry.metric_names("confusion"))
                dir(CUBE.ordinal)
        except Exception as exc:
            errors.append(exc)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        threads = [threading.Thread(target=write)] + [threading.Thread(target=read) for _ in range(3)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    finally:
        sys.setswitchinterval(interval)
    assert errors == []
    assert "churn" not in registry.metric_names()


# reserved names


@pytest.mark.parametrize("name", sorted(RESERVED_NAMES))
def test_a_reserved_name_is_refused(name):
    with pytest.raises(
        ValueError,
        match=rf"metric name '{name}' is reserved: ordframe has a function or .ordinal accessor method of that "
        rf"name; choose another name, e.g. 'my_{name}'",
    ):
        metric(name)


def test_registering_a_reserved_name_names_the_metric_and_the_plugin(restore_registry):
    class Scorer:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [metric("score")]

    before = snapshot()
    with pytest.raises(ValueError, match=r"plugin 'scorer': metric name 'score' is reserved: ordframe has a function"):
        ordframe.register(Scorer(), name="scorer")
    assert snapshot() == before


@pytest.mark.parametrize("accessor", [OrdinalFrameAccessor, OrdinalArrayAccessor])
def test_every_accessor_method_is_a_reserved_name(accessor):
    public = {name for name in dir(accessor) if not name.startswith("_")}
    assert public - RESERVED_NAMES == set(), "add new accessor methods to ordframe._registry.metric.RESERVED_NAMES"


def test_every_function_and_submodule_of_ordframe_is_a_reserved_name():
    public = {name for name in ordframe.__all__ if name.islower()} | {"metrics", "plot", "sklearn", "datasets"}
    assert public - RESERVED_NAMES == set(), "add new functions to ordframe._registry.metric.RESERVED_NAMES"


# Metric fields: checks and pickling


@pytest.mark.parametrize(
    "changes, error, pattern",
    [
        ({"name": 1}, TypeError, r"metric name must be a str \(a public Python identifier\), got int"),
        ({"higher_is_better": "yes"}, TypeError, r"metric 'x': higher_is_better must be True or False, got 'yes'"),
        ({"higher_is_better": None}, TypeError, r"higher_is_better must be True or False, got None; .* give best="),
        (
            {"best": 0.5},
            TypeError,
            r"metric 'x': give higher_is_better \(a direction\) or best \(a target value\), not",
        ),
        ({"higher_is_better": None, "best": "0"}, TypeError, r"metric 'x': best must be a number .*got '0'"),
        ({"higher_is_better": None, "best": True}, TypeError, r"metric 'x': best must be a number .*got True"),
        (
            {"higher_is_better": None, "best": 2, "bounds": (0, 1)},
            ValueError,
            r"metric 'x': best must be a finite number within the bounds \(0.0, 1.0\) .*got 2",
        ),
        ({"higher_is_better": None, "best": float("inf")}, ValueError, r"metric 'x': best must be a finite number"),
        (
            {"higher_is_better": None, "best": 0, "per_class": kernel},
            ValueError,
            r"metric 'x': per_class is for the worst of per-class values, .* a metric with a target value",
        ),
        ({"higher_is_better": 1}, TypeError, r"higher_is_better must be True or False, got 1"),
        ({"bounds": (0.0,)}, TypeError, r"metric 'x': bounds must be a pair \(low, high\) of real numbers, got \(0.0,"),
        ({"bounds": (0, "1")}, TypeError, r"bounds must be a pair \(low, high\) of real numbers, got \(0, '1'\)"),
        ({"bounds": (False, True)}, TypeError, r"bounds must be a pair"),
        ({"bounds": None}, TypeError, r"bounds must be a pair"),
        ({"bounds": (float("nan"), 1.0)}, ValueError, r"metric 'x': bounds \(nan, 1.0\) contain NaN; an open end is"),
        ({"defaults": [("b", 1)]}, TypeError, r"defaults must be a mapping \{parameter: default\}, got list"),
        ({"defaults": {1: 2}}, ValueError, r"metric 'x': defaults keys must be parameter names .*got \[1\]"),
        ({"defaults": {"not ok": 2}}, ValueError, r"defaults keys must be parameter names .*got \['not ok'\]"),
        ({"defaults": {"class": 2}}, ValueError, r"defaults keys must be parameter names .*got \['class'\]"),
        ({"description": None}, TypeError, r"metric 'x': description must be a str, got NoneType"),
        ({"reference": 1}, TypeError, r"metric 'x': reference must be a str, got int"),
        ({"undefined": b"never"}, TypeError, r"metric 'x': undefined must be a str, got bytes"),
    ],
    ids=lambda v: "" if isinstance(v, (str, type)) else "-".join(f"{k}={v!r}" for k, v in v.items()),
)
def test_metric_fields_are_checked(changes, error, pattern):
    fields = {"name": "x", "kind": "confusion", "func": kernel, "higher_is_better": True, **changes}
    with pytest.raises(error, match=pattern):
        ordframe.Metric(**fields)


def test_metric_fields_are_normalised():
    m = ordframe.Metric("x", "confusion", kernel, np.bool_(False), [np.int64(0), np.float32(2)])
    assert m.higher_is_better is False
    assert m.bounds == (0.0, 2.0) and type(m.bounds) is tuple and type(m.bounds[0]) is float
    assert ordframe.Metric("x", "confusion", kernel, True, (0, float("inf"))).bounds == (0.0, float("inf"))


def test_a_metric_declares_a_direction_or_a_target_value():
    target = ordframe.Metric("x", "confusion", kernel, bounds=(-1, 1), best=np.int64(0))
    assert (target.higher_is_better, target.best, type(target.best)) == (None, 0.0, float)
    assert target.direction == "best at 0" and target.orientation == Orientation(-1.0, 0.0)
    assert pickle.loads(pickle.dumps(target)) == target
    assert ordframe.Metric("x", "confusion", kernel, bounds=(0, 2), best=1.5).direction == "best at 1.5"
    assert metric("x").orientation == Orientation(1.0) and metric("x").direction == "higher is better"
    assert ordframe.get_metric("mae").orientation == Orientation(-1.0)


@pytest.mark.parametrize("name", ["oc", "amae", "rps", "log_score", "mae"])
def test_metric_pickles_and_copies_to_an_equal_object(name):
    m = ordframe.get_metric(name)
    for twin in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m), copy.copy(m)):
        assert twin == m and twin.func is m.func
        with pytest.raises(TypeError):
            twin.defaults["x"] = 1
    mine = metric("mine", func=weighted_kernel, description="d", reference="r", undefined="u")
    assert pickle.loads(pickle.dumps(mine)) == mine


# parameter defaults: one source, the kernel's signature


def two_params(counts, width=1, *, power=2.0):
    return kernel(counts)


def proba_kernel(proba, true, eps=1e-3):
    return proba[..., 0]


def flexible(counts, width=1, **options):
    return kernel(counts)


def test_defaults_are_read_from_the_kernel():
    assert dict(metric("x", func=two_params).defaults) == {"width": 1, "power": 2.0}
    assert dict(ordframe.Metric("x", "proba", proba_kernel, False).defaults) == {"eps": 1e-3}
    assert dict(metric("x", func=flexible).defaults) == {"width": 1}
    assert dict(metric("x").defaults) == {}
    assert dict(metric("x", func=max).defaults) == {}  # a builtin without a signature
    assert dict(metric("x", func=oc_module.oc).defaults) == {"beta": 0.75, "gamma": 1.0}  # through functools.wraps


def builtin_metrics():
    """The built-in metrics, without those of the plugins installed beside ordframe."""
    return [m for m, plugin in registry._registry.metrics.values() if plugin in registry.BUILTIN_MODULES]


def test_builtin_metrics_declare_the_defaults_of_their_kernels():
    for m in builtin_metrics():
        declared = ordframe.Metric(m.name, m.kind, m.func, m.higher_is_better, needs=m.needs, best=m.best)
        assert declared.defaults == m.defaults, m.name


def test_builtin_metrics_pickle_with_their_twins_and_terms():
    """A Metric travels to other processes (dask workers, a pickled Accumulator): its compiled twin and terms too."""
    for m in builtin_metrics():
        assert pickle.loads(pickle.dumps(m)) == m, m.name


def test_compiled_twins_and_terms_are_declared_and_checked():
    """A compiled twin must take the numpy kernel's parameters with the same defaults; the keyword arguments
    named after the terms a metric ``needs`` are not parameters; both are for confusion metrics."""
    from ordframe._registry.metric import Term

    def twin(counts, width=2, power=1):
        return counts.sum(axis=(-2, -1))

    def sharing(counts, width=1, *, shared=None):
        return counts.sum(axis=(-2, -1))

    term = Term("shared", sharing)
    assert dict(metric("x", func=sharing).defaults) == {"width": 1, "shared": None}
    assert dict(metric("x", func=sharing, needs=(term,)).defaults) == {"width": 1}
    assert metric("x", func=two_params, compiled=lambda counts, width=1, power=2: 0).compiled is not None
    with pytest.raises(
        ValueError, match=r"'x' \(compiled\): defaults gives width=1 but its kernel's default is width=2"
    ):
        metric("x", func=two_params, compiled=twin)
    with pytest.raises(ValueError, match="kernel does not accept"):
        metric("x", func=two_params, compiled=lambda counts: 0)
    with pytest.raises(TypeError, match="compiled must be callable"):
        metric("x", func=two_params, compiled=1)
    with pytest.raises(TypeError, match="needs must be a tuple of ordframe Term"):
        metric("x", func=sharing, needs=("shared",))
    with pytest.raises(TypeError, match="give func or compiled"):
        Term("shared", None)
    with pytest.raises(ValueError, match="compiled and needs are for a confusion metric"):
        ordframe.Metric("x", "proba", lambda proba, true: proba[..., 0], True, compiled=lambda proba, true: 0)


def test_explicit_defaults_must_match_the_kernel():
    assert dict(metric("x", func=two_params, defaults={"width": 1}).defaults) == {"width": 1}
    assert dict(metric("x", func=two_params, defaults={"width": 1.0, "power": 2}).defaults) == {"width": 1, "power": 2}
    assert dict(metric("x", func=flexible, defaults={"width": 1, "alpha": 0.5}).defaults) == {"width": 1, "alpha": 0.5}
    with pytest.raises(
        ValueError,
        match=r"metric 'x': defaults name \['beta'\], which its kernel does not accept; "
        r"the kernel's parameters are: width, power",
    ):
        metric("x", func=two_params, defaults={"width": 1, "beta": 0.5})
    with pytest.raises(ValueError, match=r"the kernel's parameters are: none"):
        metric("x", defaults={"beta": 0.5})
    with pytest.raises(ValueError, match=r"metric 'x': defaults gives power=3.0 but its kernel's default is power=2.0"):
        metric("x", func=two_params, defaults={"power": 3.0})
    with pytest.raises(ValueError, match=r"defaults gives width=2 but its kernel's default is width=1"):
        metric("x", func=flexible, defaults={"width": 2})


def test_a_kernel_parameter_without_a_default_needs_one_in_defaults():
    def needs_width(counts, width):
        return kernel(counts)

    with pytest.raises(
        TypeError,
        match=r"metric 'x': its kernel cannot be called as func\(counts, \*\*params\) "
        r"with params \{\}: missing a required argument: 'width'",
    ):
        metric("x", func=needs_width)
    assert dict(metric("x", func=needs_width, defaults={"width": 2}).defaults) == {"width": 2}


def test_a_kernel_that_cannot_take_its_inputs():
    with pytest.raises(
        TypeError,
        match=r"metric 'x': a proba kernel is called as func\(proba, true, \*\*params\), "
        r"but its signature is \(counts\)",
    ):
        ordframe.Metric("x", "proba", kernel, False)
    with pytest.raises(TypeError, match=r"a confusion kernel is called as func\(counts, \*\*params\)"):
        metric("x", func=lambda: 0.0)


def test_parameters_give_a_signature():
    m = metric("x", func=two_params)
    keyword = inspect.Parameter.KEYWORD_ONLY
    width, power = inspect.Parameter("width", keyword, default=1), inspect.Parameter("power", keyword, default=2.0)
    assert m.parameters == [width, power]
    assert str(inspect.Signature(m.parameters)) == "(*, width=1, power=2.0)"
    assert metric("x").parameters == []


# Metrics named with their parameters: "oc[beta=0.25]", as ordframe reproduce prints them


def test_a_metric_named_with_parameters_is_computed_with_them_and_called_so():
    result = CUBE.ordinal.evaluate(metrics=["oc[beta=0.25]", "oc[beta=0.75, gamma=2]", "amae[missing=zero]", "oc"])
    assert list(result.data_vars) == ["oc[beta=0.25]", "oc[beta=0.75, gamma=2]", "amae[missing=zero]", "oc"]
    xr.testing.assert_equal(result["oc[beta=0.25]"], CUBE.ordinal.oc(beta=0.25).rename("oc[beta=0.25]"))
    xr.testing.assert_equal(result["oc[beta=0.75, gamma=2]"].variable, CUBE.ordinal.oc(gamma=2).variable)
    xr.testing.assert_equal(result["amae[missing=zero]"].variable, CUBE.ordinal.amae(missing="zero").variable)
    renamed = CUBE.ordinal.evaluate(metrics={"oc_25": "oc[beta=0.25]"})["oc_25"]
    xr.testing.assert_equal(renamed.variable, result["oc[beta=0.25]"].variable)


@pytest.mark.parametrize(
    ("text", "name", "params", "label"),
    [
        ("oc", "oc", {}, "oc"),
        (" oc [ beta = .25 , gamma=2 ] ", "oc", {"beta": 0.25, "gamma": 2}, "oc[beta=0.25, gamma=2]"),
        ("amae[missing='zero']", "amae", {"missing": "zero"}, "amae[missing=zero]"),
        ("d[cost=[[0, 1], [2, 0]]]", "d", {"cost": [[0, 1], [2, 0]]}, "d[cost=[[0, 1], [2, 0]]]"),
        ("x[text='a, b]', flag=True, none=None]", "x", {"text": "a, b]", "flag": True, "none": None}, None),
        ("oc[]", "oc", {}, "oc"),
    ],
)
def test_parse_metric(text, name, params, label):
    from ordframe._registry.request import parse_metric

    spec = parse_metric(text)
    assert (spec.name, spec.params) == (name, params)
    assert spec.label == (label or spec.label) and parse_metric(spec.label) == spec  # the label reads back


@pytest.mark.parametrize(
    ("metrics", "error", "message"),
    [
        (["oc[beta]"], ValueError, r"metrics= 'oc\[beta\]': 'beta' is not parameter=value; write name\[parameter"),
        (["oc[beta=0.25"], ValueError, r"a quote or bracket is not closed|write a metric as"),
        (["oc[beta=1]]"], ValueError, r"write a metric as|closes a bracket that was not opened"),
        (["oc[beta=__import__('os')]"], ValueError, r"cannot read the value of beta, .__import__\('os'\).: give a"),
        (["oc[beta=1, beta=2]"], ValueError, r"gives beta more than once"),
        (["oc[beta=0.25]", "oc[beta=.25]"], ValueError, r"names \['oc\[beta=0.25\]'\] more than once"),
        (
            ["oc[bta=1]"],
            TypeError,
            r"metric 'oc' got unknown parameter\(s\) \['bta'\]; its parameters are: beta, gamma",
        ),
        (["ocx[beta=1]"], KeyError, r"no metric named 'ocx'"),
        (["d[cost=@costs.json]"], ValueError, r"a value read from a file \(@costs.json\) is for the command line"),
    ],
)
def test_a_metric_named_with_parameters_that_cannot_be_read(metrics, error, message):
    with pytest.raises(error, match=message):
        CUBE.ordinal.evaluate(metrics=metrics)


def test_all_names_every_metric_as_the_command_line_does():
    df = pd.DataFrame({"y": [0, 1, 2, 2, 1], "yhat": [0, 1, 1, 2, 2], "p0": 0.2, "p1": 0.3, "p2": 0.5})
    xr.testing.assert_identical(df.ordinal.evaluate("y", "yhat", metrics="all"), df.ordinal.evaluate("y", "yhat"))
    both = df.ordinal.evaluate("y", "yhat", proba=["p0", "p1", "p2"], metrics="all")
    xr.testing.assert_identical(both, df.ordinal.evaluate("y", "yhat", proba=["p0", "p1", "p2"]))
    cube = df.ordinal.confusion("y", "yhat")
    assert list(cube.ordinal.evaluate(metrics="all")) == registry.metric_names("confusion")
