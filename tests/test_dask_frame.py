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


def long_predictions(n=300):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, n)
    a = np.clip(y + rng.choice([-1, 0, 0, 1], n), 0, 3)
    b = np.where(rng.random(n) < 0.2, rng.integers(0, 4, n), a)
    parts = [
        pd.DataFrame({"sample": np.arange(n), "y": y, "yhat": p, "model": m}) for m, p in (("a", a), ("b", b), ("c", a))
    ]
    return pd.concat(parts, ignore_index=True).assign(fold=lambda d: d["sample"] % 3)


def test_paired_bootstrap_of_a_dask_frame_matches_pandas():
    import scipy.stats

    frame = long_predictions()
    ddf = dd.from_pandas(frame.sample(frac=1.0, random_state=1), npartitions=4)
    lazy = ddf.ordinal.bootstrap("y", "yhat", by="model", sample="sample", strata="fold", n=2000, seed=0)
    eager = frame.ordinal.bootstrap("y", "yhat", by="model", sample="sample", strata="fold", n=2000, seed=5)
    assert lazy.dims == eager.dims == ("bootstrap", "fold", "model", "true", "pred")
    assert (lazy.sum(("true", "pred")) == 100).all()
    mae = lazy.sum("fold").ordinal.mae()
    np.testing.assert_array_equal(mae.sel(model="a"), mae.sel(model="c"))
    difference = (mae.sel(model="b") - mae.sel(model="a")).values
    reference = eager.sum("fold").ordinal.mae()
    assert scipy.stats.ks_2samp(difference, (reference.sel(model="b") - reference.sel(model="a")).values).pvalue > 0.001


def test_paired_bootstrap_of_a_dask_frame_checks_the_pairs():
    frame = long_predictions(30)
    with pytest.raises(ValueError, match="sample="):
        dd.from_pandas(frame, npartitions=2).ordinal.bootstrap("y", "yhat", by="model", n=10)
    with pytest.raises(ValueError, match="exactly once"):
        dd.from_pandas(frame.iloc[1:], npartitions=2).ordinal.bootstrap("y", "yhat", by="model", sample="sample", n=10)
    bad = frame.copy()
    bad.loc[0, "y"] = (bad.loc[0, "y"] + 1) % 4
    with pytest.raises(ValueError, match="different true labels"):
        dd.from_pandas(bad, npartitions=2).ordinal.bootstrap("y", "yhat", by="model", sample="sample", n=10)
