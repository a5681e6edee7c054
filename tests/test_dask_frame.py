"""The dask DataFrame accessor: lazy cubes from partitions, equal to pandas, also on a dask.distributed cluster."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe  # noqa: F401

dd = pytest.importorskip("dask.dataframe")
dsa = pytest.importorskip("dask.array")


@pytest.fixture
def frame():
    rng = np.random.default_rng(4)
    n = 600
    y = rng.integers(0, 5, n)
    return pd.DataFrame(
        {
            "y": y,
            "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 4),
            "model": rng.choice(["lr", "rf", "svm"], n),
            "fold": rng.integers(0, 4, n),
            "w": rng.random(n),
        }
    )


@pytest.mark.parametrize(
    "kwargs", [{}, {"by": ["model", "fold"]}, {"by": "fold", "weights": "w"}, {"labels": range(6)}]
)
def test_lazy_cubes_equal_pandas(frame, kwargs):
    ddf = dd.from_pandas(frame, npartitions=5)
    cube = ddf.ordinal.confusion("y", "yhat", **kwargs)
    assert isinstance(cube.data, dsa.Array)
    xr.testing.assert_allclose(cube.compute(), frame.ordinal.confusion("y", "yhat", **kwargs))


def test_metrics_and_evaluate_are_lazy_and_equal_pandas(frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    ds = ddf.ordinal.evaluate("y", "yhat", by="model", metrics=["oc", "mae", "qwk"])
    assert all(isinstance(v.data, dsa.Array) for v in ds.data_vars.values())
    xr.testing.assert_allclose(
        ds.compute(), frame.ordinal.evaluate("y", "yhat", by="model", metrics=["oc", "mae", "qwk"])
    )
    assert ddf.ordinal.mae("y", "yhat") == pytest.approx(frame.ordinal.mae("y", "yhat"))
    assert ddf.ordinal.uoc("y", "yhat", by="fold").dims == ("fold",)


def test_categorical_and_string_labels(frame):
    grades = ["low", "mid", "high", "top", "max"]
    named = frame.assign(y=np.array(grades)[frame["y"]], yhat=np.array(grades)[frame["yhat"]])
    ddf = dd.from_pandas(named, npartitions=4)
    with pytest.raises(TypeError, match="pass labels="):
        ddf.ordinal.confusion("y", "yhat")
    cube = ddf.ordinal.confusion("y", "yhat", labels=grades, by="model").compute()
    xr.testing.assert_equal(cube, named.ordinal.confusion("y", "yhat", labels=grades, by="model"))


def test_errors_name_the_column(frame):
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(KeyError, match="'nope'"):
        ddf.ordinal.confusion("y", "nope")
    with pytest.raises(AttributeError, match="scores class probabilities"):
        ddf.ordinal.rps("y", ["a"])


def test_on_a_distributed_local_cluster(frame):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            ddf = dd.from_pandas(frame, npartitions=6)
            cube = ddf.ordinal.confusion("y", "yhat", by=["model", "fold"])
            result = cube.ordinal.oc().compute()
    expected = frame.ordinal.oc("y", "yhat", by=["model", "fold"])
    xr.testing.assert_allclose(result, expected)
