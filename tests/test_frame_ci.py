"""``df.ordinal.ci``: intervals from a frame's paired bootstrap, with BCa for probability metrics and clusters."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe
from ordframe._inference.intervals import bca_bounds, mean_score_acceleration
from ordframe.metrics.proba import rps

PROBA = ["p0", "p1", "p2", "p3"]


def frame(n=240, seed=0, cluster_size=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    effect = np.repeat(rng.normal(0, 0.6, n // cluster_size + 1), cluster_size)[:n]
    parts = []
    for model, noise in (("a", 0.5), ("b", 0.9)):
        p = rng.dirichlet(np.ones(4), n)
        latent = y + effect + rng.normal(0, noise, n)
        parts.append(
            pd.DataFrame(
                {
                    "s": np.arange(n),
                    "c": np.arange(n) // cluster_size,
                    "y": y,
                    "yhat": np.clip(np.round(latent), 0, 3).astype(int),
                    "model": model,
                    **dict(zip(PROBA, p.T)),
                }
            )
        )
    return pd.concat(parts, ignore_index=True)


def test_bca_of_confusion_metrics_is_the_cube_bca_on_the_same_replicates():
    df = frame()
    got = df.ordinal.ci(
        "y", "yhat", metrics=["oc", "qwk"], by="model", sample="s", n_resamples=1000, seed=3, method="bca"
    )
    replicates = df.ordinal.evaluate(
        "y", "yhat", by="model", sample="s", n_resamples=1000, seed=3, metrics=["oc", "qwk"]
    )
    expected = ordframe.ci(replicates, method="bca", cube=df.ordinal.confusion("y", "yhat", by="model"))
    for name in ("oc", "qwk"):
        np.testing.assert_allclose(got[name].transpose(*expected[name].dims).values, expected[name].values, rtol=1e-12)
        assert got[name].attrs["ci_method"] == "bca"


def test_bca_of_a_probability_metric_uses_the_per_sample_jackknife():
    df = frame()
    got = df.ordinal.ci(
        "y", proba=PROBA, metrics=["rps"], by="model", sample="s", n_resamples=1000, seed=1, method="bca"
    )
    replicates = df.ordinal.evaluate(
        "y", proba=PROBA, by="model", sample="s", n_resamples=1000, seed=1, metrics=["rps"]
    )["rps"]
    scores = rps(df[PROBA].to_numpy(), df["y"].to_numpy())
    model = (df["model"] == "b").to_numpy().astype(int)
    acceleration = xr.DataArray(mean_score_acceleration(scores, model, 2), dims="model", coords={"model": ["a", "b"]})
    estimate = xr.DataArray(
        [scores[model == 0].mean(), scores[model == 1].mean()], dims="model", coords={"model": ["a", "b"]}
    )
    low, high = bca_bounds(replicates, estimate, acceleration, dim="bootstrap", alpha=0.025)
    np.testing.assert_allclose(got["rps"].sel(bound="low").values, low.values, rtol=1e-12)
    np.testing.assert_allclose(got["rps"].sel(bound="high").values, high.values, rtol=1e-12)


def test_bca_with_clusters_leaves_one_cluster_out():
    df = frame(n=90)
    got = df.ordinal.ci(
        "y", "yhat", metrics=["mae"], by="model", sample="s", cluster="c", n_resamples=800, seed=2, method="bca"
    )
    replicates = df.ordinal.evaluate(
        "y", "yhat", by="model", sample="s", cluster="c", n_resamples=800, seed=2, metrics=["mae"]
    )
    left_out = np.array(
        [
            df[df["c"] != c].ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])["mae"].values
            for c in df["c"].unique()
        ]
    )  # (clusters, models), by brute force
    deviation = left_out.mean(axis=0) - left_out
    acceleration = (deviation**3).sum(axis=0) / (6 * ((deviation**2).sum(axis=0)) ** 1.5)
    estimate = df.ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])["mae"].drop_attrs()
    low, high = bca_bounds(replicates["mae"], estimate, estimate.copy(data=acceleration), dim="bootstrap", alpha=0.025)
    np.testing.assert_allclose(got["mae"].sel(bound="low").values, low.values, rtol=1e-12)
    np.testing.assert_allclose(got["mae"].sel(bound="high").values, high.values, rtol=1e-12)


def test_basic_reflects_the_percentile_interval_about_the_estimate():
    df = frame()
    kwargs = {"metrics": ["oc"], "by": "model", "sample": "s", "n_resamples": 500, "seed": 0}
    basic = df.ordinal.ci("y", "yhat", method="basic", **kwargs)["oc"]
    percentile = df.ordinal.ci("y", "yhat", method="percentile", **kwargs)["oc"]
    estimate = df.ordinal.evaluate("y", "yhat", by="model", metrics=["oc"])["oc"]
    np.testing.assert_allclose(basic.sel(bound="low").values, (2 * estimate - percentile.sel(bound="high")).values)
    np.testing.assert_allclose(basic.sel(bound="high").values, (2 * estimate - percentile.sel(bound="low")).values)


def test_each_metric_gets_its_default_interval():
    df = frame()
    bounds = df.ordinal.ci(
        "y", "yhat", proba=PROBA, metrics=["oc", "mae", "rps"], by="model", sample="s", n_resamples=200, seed=0
    )
    methods = {name: bounds[name].attrs["ci_method"] for name in bounds}
    registry = {name: ordframe.get_metric(name).interval for name in methods}
    assert methods == registry


def test_with_clusters_the_calibrated_default_becomes_basic_and_asking_for_it_is_refused():
    df = frame()
    kwargs = {"metrics": ["oc"], "by": "model", "sample": "s", "n_resamples": 200, "seed": 0}
    assert ordframe.get_metric("oc").interval == "calibrated"
    assert df.ordinal.ci("y", "yhat", **kwargs)["oc"].attrs["ci_method"] == "calibrated"
    clustered = df.ordinal.ci("y", "yhat", cluster="c", **kwargs)["oc"]
    xr.testing.assert_identical(clustered, df.ordinal.ci("y", "yhat", cluster="c", method="basic", **kwargs)["oc"])
    with pytest.raises(ValueError, match="cluster by cluster"):
        df.ordinal.ci("y", "yhat", cluster="c", method="calibrated", **kwargs)


@pytest.mark.filterwarnings("ignore:column 'c' looks like the ids")  # the rows alone, on purpose
def test_the_frames_calibrated_interval_is_reproducible_and_lies_within_the_replicates():
    df = frame()
    kwargs = {"metrics": ["oc", "uoc"], "by": "model", "n_resamples": 300, "method": "calibrated"}
    first = df.ordinal.ci("y", "yhat", seed=3, **kwargs)
    xr.testing.assert_identical(first, df.ordinal.ci("y", "yhat", seed=3, **kwargs))
    replicates = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=300, seed=3).ordinal.oc()
    assert (first["oc"].sel(bound="low") >= replicates.min("bootstrap")).all()
    assert (first["oc"].sel(bound="high") <= replicates.max("bootstrap")).all()


@pytest.mark.filterwarnings("ignore:column 'c' looks like the ids")  # the rows alone, on purpose
def test_calibrated_and_jeffreys_defaults_together_on_one_frame():
    df = frame()
    bounds = df.ordinal.ci("y", "yhat", metrics=["oc", "within_k", "mae"], by="model", n_resamples=200, seed=1)
    methods = {name: bounds[name].attrs["ci_method"] for name in bounds}
    assert methods == {"oc": "calibrated", "within_k": "jeffreys", "mae": "percentile"}
    assert bounds.to_array().notnull().all()


def test_m_out_of_n_is_refused_with_where_it_lives():
    df = frame()
    with pytest.raises(ValueError, match="bootstrap_cube"):
        df.ordinal.ci("y", "yhat", by="model", method="m_out_of_n", n_resamples=100)


@pytest.mark.slow
def test_cluster_intervals_cover_where_row_intervals_do_not():
    """Strongly clustered data: the cluster bootstrap's percentile interval covers about 95%, the rows' far less."""
    rng = np.random.default_rng(11)
    covered = {"cluster": 0, "rows": 0}
    truth, sets = 0.5, 150  # P(wrong) of every row: the cluster's error tendency averages to 1/2
    for _ in range(sets):
        clusters, size = 30, 6
        wrong = np.repeat(rng.random(clusters) < 0.5, size) ^ (rng.random(clusters * size) < 0.1)
        # each row is wrong with probability 0.5 * 0.9 + 0.5 * 0.1 = 0.5: MAE (errors of 1) has mean 0.5
        y = rng.integers(0, 2, clusters * size)
        df = pd.DataFrame({"c": np.repeat(np.arange(clusters), size), "s": np.arange(clusters * size), "y": y})
        df["yhat"] = np.where(wrong, 1 - y, y)
        for kind, cluster in (("cluster", "c"), ("rows", None)):
            bounds = df.ordinal.ci(
                "y", "yhat", metrics=["mae"], sample="s", cluster=cluster, n_resamples=300, seed=0, method="percentile"
            )
            low, high = bounds["mae"].values
            covered[kind] += low <= truth <= high
    share = {kind: count / sets for kind, count in covered.items()}
    error = np.sqrt(0.95 * 0.05 / sets)
    assert abs(share["cluster"] - 0.95) < 4 * error + 0.03  # percentile intervals of 30 clusters are a bit short
    assert share["rows"] < 0.8


def test_filtered_sorted_reindexed_frames_give_the_same_intervals_and_comparisons():
    df = frame()
    kwargs = {"sample": "s", "cluster": "c", "n_resamples": 200, "seed": 5}
    expected_ci = df.ordinal.ci("y", "yhat", proba=PROBA, metrics=["oc", "rps"], by="model", method="bca", **kwargs)
    expected_compare = df.ordinal.compare("y", "yhat", metrics=["oc", "mae"], method="bca", **kwargs)
    extra = df.iloc[:5].assign(y=np.nan)  # rows that dropna removes
    messy = pd.concat([df, extra]).sample(frac=1, random_state=3)
    messy.index = np.arange(len(messy))[::-1] * 7
    clean = messy.dropna(subset=["y"]).astype({"y": int})
    xr.testing.assert_allclose(
        clean.ordinal.ci("y", "yhat", proba=PROBA, metrics=["oc", "rps"], by="model", method="bca", **kwargs),
        expected_ci,
    )
    xr.testing.assert_allclose(
        clean.ordinal.compare("y", "yhat", metrics=["oc", "mae"], method="bca", **kwargs), expected_compare
    )
    with pytest.warns(UserWarning, match="dropped"):
        dropped = messy.ordinal.ci("y", "yhat", metrics=["oc"], by="model", dropna=True, method="bca", **kwargs)
    np.testing.assert_allclose(dropped["oc"].transpose(*expected_ci["oc"].dims).values, expected_ci["oc"].values)
