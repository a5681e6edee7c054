"""The ``.ordinal`` accessors: metric methods from the registry, evaluate(), and their errors."""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe
from ordframe._registry import manager as registry


@pytest.fixture
def df():
    rng = np.random.default_rng(3)
    n = 200
    y = rng.integers(0, 4, n)
    return pd.DataFrame(
        {
            "y": y,
            "p": np.clip(y + rng.integers(-1, 2, n), 0, 3),
            "model": rng.choice(["lr", "rf"], n),
            "fold": rng.integers(0, 3, n),
            "w": rng.random(n),
        }
    )


def test_every_registered_metric_is_a_method(df):
    names = registry.metric_names()
    assert names
    for name in names:
        for accessor in (df.ordinal, xr.DataArray([0]).ordinal):
            method = getattr(accessor, name)
            assert callable(method) and method.__name__ == name, name
            assert name in dir(accessor), name
            assert ordframe.get_metric(name).description in method.__doc__, name


def test_every_confusion_metric_runs_on_frames_and_cubes(df):
    cube = df.ordinal.confusion("y", "p", by=["model", "fold"])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # some metrics are undefined on some inputs
        for name in registry.metric_names("confusion"):
            assert isinstance(getattr(df.ordinal, name)("y", "p"), float), name
            result = getattr(cube.ordinal, name)()
            assert isinstance(result, xr.DataArray) and result.dims == ("model", "fold"), name
            assert result.name == name, name


def test_frame_method_float_without_by_and_dataarray_with_by(df):
    value = df.ordinal.mae("y", "p")
    assert isinstance(value, float)
    assert value == pytest.approx(np.abs(df["y"] - df["p"]).mean())
    result = df.ordinal.mae("y", "p", by=["model", "fold"])
    assert result.dims == ("model", "fold")
    assert list(result.model.values) == ["lr", "rf"] and list(result.fold.values) == [0, 1, 2]
    expected = df.assign(e=np.abs(df["y"] - df["p"])).groupby(["model", "fold"])["e"].mean()
    for (m, f), v in expected.items():
        assert result.sel(model=m, fold=f).item() == pytest.approx(v)
    one = df.ordinal.mae("y", "p", by="model")
    assert one.dims == ("model",)


def test_frame_method_passes_labels_weights_and_params(df):
    weighted = df.ordinal.mae("y", "p", weights="w")
    assert weighted == pytest.approx(np.average(np.abs(df["y"] - df["p"]), weights=df["w"]))
    wide = df.ordinal.mae("y", "p", labels=[0, 1, 2, 3, 4])
    assert wide == pytest.approx(df.ordinal.mae("y", "p"))
    assert df.ordinal.amae("y", "p", labels=range(5), missing="zero") < df.ordinal.amae("y", "p", labels=range(5))


def test_cube_method_dataarray_over_other_dims_and_float_for_0d(df):
    cube = df.ordinal.confusion("y", "p", by=["model", "fold"])
    result = cube.ordinal.accuracy()
    assert result.dims == ("model", "fold")
    xr.testing.assert_identical(result.model, cube.model)
    matrix = cube.sel(model="rf", fold=2)
    value = matrix.ordinal.accuracy()
    assert isinstance(value, float) and value == result.sel(model="rf", fold=2).item()


def test_cube_with_true_pred_not_last(df):
    cube = df.ordinal.confusion("y", "p", by="model")
    moved = cube.transpose("true", "model", "pred")
    xr.testing.assert_allclose(moved.ordinal.qwk(), cube.ordinal.qwk())


def test_label_array_methods(df):
    true = xr.DataArray(df["y"].to_numpy(), dims="sample")
    pred = xr.DataArray(
        np.stack([df["p"].to_numpy(), df["y"].to_numpy()]),
        dims=("model", "sample"),
        coords={"model": ["noisy", "perfect"]},
    )
    result = pred.ordinal.mae(true, dim="sample")
    assert result.dims == ("model",)
    assert result.sel(model="perfect").item() == 0.0
    assert result.sel(model="noisy").item() == pytest.approx(df.ordinal.mae("y", "p"))
    weights = xr.DataArray(df["w"].to_numpy(), dims="sample")
    assert pred.sel(model="noisy").ordinal.mae(true, weights=weights, labels=np.arange(4)) == pytest.approx(
        df.ordinal.mae("y", "p", weights="w")
    )


# evaluate


def test_evaluate_defaults_to_every_confusion_metric(df):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ds = df.ordinal.evaluate("y", "p", by="model")
    assert isinstance(ds, xr.Dataset)
    assert sorted(ds.data_vars) == registry.metric_names("confusion")
    assert all(v.dims == ("model",) for v in ds.data_vars.values())
    assert ds["mae"].sel(model="lr").item() == pytest.approx(df[df.model == "lr"].ordinal.mae("y", "p"))


def test_evaluate_with_a_list_and_a_dict(df):
    ds = df.ordinal.evaluate("y", "p", metrics=["mae", "qwk"])
    assert set(ds.data_vars) == {"mae", "qwk"} and ds["mae"].dims == ()
    assert ds["qwk"].item() == pytest.approx(df.ordinal.qwk("y", "p"))
    cube = df.ordinal.confusion("y", "p", by="fold", labels=range(5))
    spec = {
        "amae_skip": "amae",
        "amae_zero": ("amae", {"missing": "zero"}),
        "cost": ("expected_cost", {"cost": np.ones((5, 5))}),
    }
    ds = cube.ordinal.evaluate(metrics=spec)
    assert set(ds.data_vars) == set(spec)
    assert ds["amae_zero"].dims == ("fold",)
    xr.testing.assert_allclose(ds["amae_zero"], cube.ordinal.amae(missing="zero").rename("amae_zero"))
    np.testing.assert_allclose(ds["cost"].values, 1.0)
    assert cube.ordinal.evaluate(metrics="mer")["mer"].dims == ("fold",)


def test_evaluate_on_label_arrays(df):
    true = xr.DataArray(df["y"].to_numpy(), dims="sample")
    pred = xr.DataArray(df["p"].to_numpy(), dims="sample")
    ds = pred.ordinal.evaluate(true, metrics=["mae", "accuracy"])
    assert ds["mae"].item() == pytest.approx(df.ordinal.mae("y", "p"))
    xr.testing.assert_identical(ds, pred.ordinal.evaluate(metrics=["mae", "accuracy"], true=true))


def test_evaluate_errors(df):
    with pytest.raises(KeyError, match=r"'mea'.*'mae'"):
        df.ordinal.evaluate("y", "p", metrics=["mea"])
    with pytest.raises(TypeError, match=r"metric 'qwk' got unknown parameter"):
        df.ordinal.evaluate("y", "p", metrics={"q": ("qwk", {"weights": "linear"})})


# errors and discovery


def test_dir_lists_metrics_and_methods(df):
    listing = dir(df.ordinal)
    assert {"confusion", "evaluate", "mae", "kendall_tau_b"} <= set(listing)
    assert set(registry.metric_names()) <= set(listing)


def test_unknown_method_lists_close_matches(df):
    with pytest.raises(AttributeError, match=r"no method or metric 'kendal_tau'; did you mean 'kendall_tau_b'"):
        getattr(df.ordinal, "kendal_tau")  # noqa: B009
    with pytest.raises(AttributeError, match=r"'evalute'; did you mean 'evaluate'"):
        getattr(xr.DataArray([1]).ordinal, "evalute")  # noqa: B009
    with pytest.raises(AttributeError, match=r"'zzzz'$"):
        getattr(df.ordinal, "zzzz")  # noqa: B009
    assert not hasattr(df.ordinal, "_private")


def test_array_without_true_pred_dims_says_which_dims_it_has():
    a = xr.DataArray(np.ones((2, 3, 3)), dims=("model", "row", "col"))
    with pytest.raises(ValueError, match=r"needs dims 'true' and 'pred'.*\('model', 'row', 'col'\)"):
        a.ordinal.mae()
    with pytest.raises(ValueError, match=r"\('model', 'row', 'col'\)"):
        a.ordinal.evaluate()


def test_bad_cubes():
    with pytest.raises(ValueError, match=r"must be square, got true=2 and pred=3"):
        xr.DataArray(np.ones((2, 3)), dims=("true", "pred")).ordinal.mae()
    with pytest.raises(ValueError, match=r"at least two classes; this cube has 1"):
        xr.DataArray(np.ones((1, 1)), dims=("true", "pred")).ordinal.mae()


def test_mixing_cube_and_label_arguments():
    cube = xr.DataArray(np.eye(3), dims=("true", "pred"))
    with pytest.raises(TypeError, match="already a confusion cube"):
        cube.ordinal.mae(labels=[1, 2, 3])
    with pytest.raises(TypeError, match="call its metrics without true labels"):
        cube.ordinal.mae(xr.DataArray([1, 2]))


# undefined values: NaN with one warning for a scalar, silent NaN cells in a stack


def test_scalar_nan_comes_with_exactly_one_warning_saying_why():
    df = pd.DataFrame({"y": [2, 2, 2], "p": [1, 2, 3]})
    with pytest.warns(RuntimeWarning) as record:
        value = df.ordinal.spearman("y", "p", labels=[1, 2, 3])
    assert np.isnan(value)
    assert len(record) == 1
    message = str(record[0].message)
    assert "spearman is undefined" in message and "same true class" in message


def test_scalar_nan_on_an_empty_matrix_says_it_is_empty():
    cube = xr.DataArray(np.zeros((3, 3), int), dims=("true", "pred"))
    with pytest.warns(RuntimeWarning, match=r"mae is undefined.*no samples") as record:
        assert np.isnan(cube.ordinal.mae())
    assert len(record) == 1


def test_nan_cells_in_a_stack_raise_and_warn_nothing():
    df = pd.DataFrame(
        {
            "y": [2, 2, 1, 3, 1],
            "p": [1, 3, 1, 3, 2],
            "g": [0, 0, 1, 1, 1],
            "m": pd.Categorical(["a"] * 5, categories=["a", "b"]),
        }
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = df.ordinal.spearman("y", "p", by=["m", "g"])
        ds = df.ordinal.evaluate("y", "p", metrics=["kendall_tau_b", "qwk", "mae", "amae"], by=["m", "g"])
    assert np.isnan(result.sel(m="a", g=0).item()) and not np.isnan(result.sel(m="a", g=1).item())
    assert np.isnan(result.sel(m="b")).all()  # empty matrices
    assert np.isnan(ds["mae"].sel(m="b")).all() and not np.isnan(ds["mae"].sel(m="a")).any()
    assert float(result.mean(skipna=True)) == result.sel(m="a", g=1).item()


def test_accessor_sees_metrics_registered_after_it_was_created(df, restore_registry):
    accessor = df.ordinal

    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [ordframe.Metric("late_index", "confusion", lambda c: c.sum(axis=(-2, -1)), False)]

    ordframe.register(Plugin())
    assert "late_index" in dir(accessor)
    assert accessor.late_index("y", "p") == len(df)
