"""Dask-backed label arrays and cubes: lazy until compute, equal to the numpy results."""

import numpy as np
import pytest
import xarray as xr

import ordframe

pytest.importorskip("dask")
import dask.array as dsa


def is_lazy(a: xr.DataArray) -> bool:
    return isinstance(a.data, dsa.Array)


@pytest.fixture
def labels():
    rng = np.random.default_rng(7)
    coords = {"model": ["a", "b", "c"], "fold": np.arange(4)}
    true = xr.DataArray(rng.integers(0, 5, (4, 300)), dims=("fold", "sample"), coords={"fold": coords["fold"]})
    pred = xr.DataArray(rng.integers(0, 5, (3, 4, 300)), dims=("model", "fold", "sample"), coords=coords)
    weights = xr.DataArray(rng.random(300), dims="sample")
    return true, pred, weights


@pytest.mark.parametrize(
    "chunks",
    [
        pytest.param({"sample": 70}, id="core"),
        pytest.param({"model": 1, "fold": 3}, id="outer"),
        pytest.param({"model": 2, "fold": 1, "sample": 100}, id="both"),
    ],
)
@pytest.mark.parametrize("dim", [["sample"], ["fold", "sample"], None])
def test_lazy_cube_equals_numpy(labels, chunks, dim):
    true, pred, _ = labels
    eager = pred.ordinal.confusion(true, dim=dim)
    lazy = pred.chunk(chunks).ordinal.confusion(
        true.chunk({k: v for k, v in chunks.items() if k in true.dims}), dim=dim
    )
    assert is_lazy(lazy)
    assert lazy.dims == eager.dims
    xr.testing.assert_identical(lazy.compute(), eager)


@pytest.mark.parametrize("which", ["true", "pred"])
def test_one_chunked_array_and_one_numpy_array(labels, which):
    true, pred, _ = labels
    if which == "true":
        true = true.chunk({"sample": 64})
    else:
        pred = pred.chunk({"sample": 64, "model": 1})
    lazy = pred.ordinal.confusion(true, dim="sample")
    assert is_lazy(lazy)
    xr.testing.assert_identical(lazy.compute(), labels[1].ordinal.confusion(labels[0], dim="sample"))


def test_lazy_weights_and_labels(labels):
    true, pred, weights = labels
    eager = pred.ordinal.confusion(true, dim="sample", weights=weights, labels=[4, 3, 2, 1, 0, -1])
    lazy = pred.chunk({"sample": 50}).ordinal.confusion(
        true, dim="sample", weights=weights.chunk({"sample": 50}), labels=[4, 3, 2, 1, 0, -1]
    )
    assert is_lazy(lazy) and lazy.dtype == np.float64
    xr.testing.assert_allclose(lazy.compute(), eager)
    assert list(eager.true.values) == [4, 3, 2, 1, 0, -1]


def test_metrics_on_a_lazy_cube_stay_lazy(labels):
    true, pred, _ = labels
    eager_cube = pred.ordinal.confusion(true, dim="sample")
    cube = pred.chunk({"model": 1, "sample": 100}).ordinal.confusion(true, dim="sample")
    result = cube.ordinal.kendall_tau_b()
    assert is_lazy(result) and result.dims == ("model", "fold")
    xr.testing.assert_allclose(result.compute(), eager_cube.ordinal.kendall_tau_b())
    dataset = cube.ordinal.evaluate(metrics=["mae", "qwk"])
    assert all(is_lazy(v) for v in dataset.data_vars.values())
    xr.testing.assert_allclose(dataset.compute(), eager_cube.ordinal.evaluate(metrics=["mae", "qwk"]))


def test_metric_straight_from_lazy_label_arrays(labels):
    true, pred, _ = labels
    result = pred.chunk({"sample": 100}).ordinal.mae(true.chunk({"sample": 100}), dim="sample")
    assert is_lazy(result)
    xr.testing.assert_allclose(result.compute(), pred.ordinal.mae(true, dim="sample"))


def test_lazy_scalar_is_a_float(labels):
    true, pred, _ = labels
    value = pred.chunk({"sample": 100}).ordinal.accuracy(true)
    assert isinstance(value, float)
    assert value == pytest.approx(float((pred == true).mean()))


def test_bad_kernel_output_on_a_lazy_cube_names_the_metric(labels, restore_registry):
    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [ordframe.Metric("row_sums", "confusion", lambda c: c.sum(-1), False)]

    ordframe.register(Plugin())
    true, pred, _ = labels
    cube = pred.chunk({"model": 1}).ordinal.confusion(true, dim="sample")
    with pytest.raises(ValueError, match="metric 'row_sums'"):
        cube.ordinal.row_sums().compute()


def test_a_cube_chunked_along_true_and_pred(labels):
    true, pred, _ = labels
    cube = pred.ordinal.confusion(true, dim="sample")
    result = cube.chunk(2).ordinal.qwk()
    assert is_lazy(result)
    xr.testing.assert_allclose(result.compute(), cube.ordinal.qwk())
