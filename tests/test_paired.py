"""The paired bootstrap of several models: what the hostile review found (M1, M5, M7, L1-L3, L9) stays fixed."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe

PROBA = ["p0", "p1", "p2"]


def models_frame(n=120, models="ab", seed=0, **columns):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    parts = [
        pd.DataFrame({"y": y, "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 2), "model": m, **columns}) for m in models
    ]
    df = pd.concat(parts, ignore_index=True)
    df[PROBA] = rng.dirichlet(np.ones(3), len(df))
    return df


def test_label_replicates_do_not_depend_on_probabilities_being_scored_too():
    """L3: the same seed gives the same label replicates with and without probability metrics."""
    df = models_frame()
    labels = df.ordinal.evaluate("y", "yhat", by="model", n_resamples=300, seed=5, metrics=["mae", "qwk"])
    both = df.ordinal.evaluate("y", "yhat", proba=PROBA, by="model", n_resamples=300, seed=5, metrics=["mae", "rps"])
    xr.testing.assert_identical(both["mae"], labels["mae"])
    cubes = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=300, seed=5)
    xr.testing.assert_identical(cubes.ordinal.mae().rename("mae"), labels["mae"])


def test_probability_replicates_resample_samples():
    """Their spread is that of resampling the rows themselves (pairs kept), and their mean the estimate's."""
    df = models_frame(n=150, seed=2)
    boot = df.ordinal.evaluate("y", "yhat", proba=PROBA, by="model", n_resamples=3000, seed=1, metrics=["rps"])["rps"]
    from ordframe.metrics.proba import rps

    scores = rps(df[PROBA].to_numpy(), df["y"].to_numpy()).reshape(2, -1)
    rows = np.random.default_rng(7).integers(0, scores.shape[1], (3000, scores.shape[1]))
    loop = scores[:, rows].mean(axis=2)  # (model, replicate): explicit row resampling
    assert boot.std("bootstrap").values == pytest.approx(loop.std(axis=1), rel=0.08)
    difference = boot.sel(model="b") - boot.sel(model="a")
    assert float(difference.std()) == pytest.approx((loop[1] - loop[0]).std(), rel=0.08)
    estimate = df.ordinal.rps("y", PROBA, by="model")
    assert boot.mean("bootstrap").values == pytest.approx(estimate.values, abs=4 * loop.std(axis=1).max() / 50)


def test_many_small_strata_beside_a_large_one():
    """M7: strata are drawn through their patterns, so one large stratum does not make every small one dense."""
    sizes = [400] + [3] * 50
    fold = np.repeat(np.arange(len(sizes)), sizes)
    df = models_frame(n=len(fold), fold=fold)
    boot = df.ordinal.evaluate("y", "yhat", proba=PROBA, by="model", strata="fold", n_resamples=50, seed=0)
    assert boot.sizes == {"bootstrap": 50, "fold": 51, "model": 2}
    counts = df.ordinal.bootstrap("y", "yhat", model="model", strata="fold", n_resamples=50, seed=0)
    assert (counts.sum(("true", "pred")).isel(bootstrap=0).values == np.array(sizes)[:, None]).all()


def test_the_replicates_are_refused_when_larger_than_max_cube_bytes():
    """M1: the paired bootstrap honours the memory guard, as the cube bootstrap does."""
    df = models_frame(n=40, models="abcde", fold=np.arange(40) % 20)
    with ordframe.set_options(max_cube_bytes=2**16):
        with pytest.raises(MemoryError, match="2000 bootstrap replicates of 100 matrices"):
            df.ordinal.bootstrap("y", "yhat", model="model", strata="fold", n_resamples=2000, seed=0)
        with pytest.raises(MemoryError, match="max_cube_bytes"):
            df.ordinal.evaluate("y", "yhat", proba=PROBA, by="model", strata="fold", n_resamples=2000, seed=0)


def test_an_unused_category_is_named():
    """M5: a model without a single row is named, with the way out, instead of 'pairs have no prediction'."""
    df = models_frame(models="abc")
    df["model"] = df["model"].astype("category")
    subset = df[df.model != "c"]
    with pytest.raises(ValueError, match=r"model='c'.*remove_unused_categories"):
        subset.ordinal.evaluate("y", "yhat", by="model", n_resamples=10, seed=0, metrics=["mae"])


def test_integer_model_and_stratum_values_with_gaps():
    df = models_frame(models="ab", fold=np.arange(120) % 2 * 2)  # folds 0 and 2
    df["model"] = df["model"].map({"a": 0, "b": 2})  # models 0 and 2
    boot = df.ordinal.bootstrap("y", "yhat", model="model", strata="fold", n_resamples=20, seed=0)
    assert boot["model"].values.tolist() == [0, 2] and boot["fold"].values.tolist() == [0, 2]
    assert (boot.sum(("true", "pred")) == 60).all()


@pytest.mark.parametrize("name", ["model", "true", "fold"])
def test_the_replicate_dim_must_be_new(name):
    df = models_frame(fold=np.arange(120) % 3)
    with pytest.raises(ValueError, match="names a dim the result already has"):
        df.ordinal.bootstrap("y", "yhat", model="model", strata="fold", n_resamples=5, replicate_dim=name)
    with pytest.raises(TypeError, match="non-empty str"):
        df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=5, replicate_dim=5)
    renamed = df.rename(columns={"model": "bootstrap"})
    with pytest.raises(ValueError, match="names a dim the result already has"):
        renamed.ordinal.evaluate("y", "yhat", by="bootstrap", n_resamples=5, seed=0)


def test_cube_bootstrap_arguments_and_counts():
    """L1, L2: stratify is a flag; counts too large to be samples are refused with a reason."""
    cube = xr.DataArray([[50, 1], [1, 50]], dims=("true", "pred"))
    with pytest.raises(TypeError, match="stratify= must be True or False"):
        cube.ordinal.bootstrap(10, stratify="no")
    for huge in ([[2**62, 1], [1, 2**62]], [[1e300, 1.0], [1.0, 1e300]]):
        with pytest.raises(ValueError, match="more than a bootstrap can draw"):
            xr.DataArray(huge, dims=("true", "pred")).ordinal.bootstrap(5)


def test_weights_that_overflow_their_sum_are_refused():
    """L9: weights whose sum is infinite are refused, naming the weights (not the cube)."""
    df = pd.DataFrame({"y": [0, 1, 1], "yhat": [0, 1, 0], "w": [1e308, 1e308, 1.0]})
    with pytest.raises(ValueError, match="weights 'w' sum to more than a float can hold"):
        df.ordinal.mae("y", "yhat", weights="w")
    assert df.assign(w=df["w"] / 1e308).ordinal.mae("y", "yhat", weights="w") == pytest.approx(0.0, abs=1e-300)


def test_one_model_needs_no_by_column():
    """Review L5: evaluate(n_resamples=) of a single model without by= resamples its rows."""
    df = models_frame(models="a")
    alone = df.ordinal.evaluate("y", "yhat", n_resamples=200, seed=3, metrics=["mae"])
    assert alone["mae"].dims == ("bootstrap",)
    by_model = df.ordinal.evaluate("y", "yhat", by="model", n_resamples=200, seed=3, metrics=["mae"])
    np.testing.assert_array_equal(alone["mae"].values, by_model["mae"].sel(model="a").values)
