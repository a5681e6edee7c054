"""``compare`` says what it means: estimates on the data, p-values adjusted over the pairs, a named bootstrap share."""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from statsmodels.stats.multitest import multipletests

import ordframe
from ordframe._core.drawing import Resampling
from ordframe._inference.intervals import DegenerateIntervalWarning, bca_bounds
from ordframe._inference.multiplicity import adjusted
from ordframe._inputs.selection import Selection
from ordframe._resampling.paired import bootstrap_evaluate, paired_replicates

PROBA = ["p0", "p1", "p2"]


def models_frame(n=150, models="abcd", seed=0, folds=3):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    parts = []
    for i, m in enumerate(models):
        noise = rng.integers(-1, 2, n) * (rng.random(n) < 0.2 + 0.1 * i)
        part = pd.DataFrame({"s": np.arange(n), "y": y, "yhat": np.clip(y + noise, 0, 2), "model": m})
        part["fold"] = np.arange(n) % folds
        part[PROBA] = rng.dirichlet(np.ones(3), n)
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


@pytest.mark.parametrize(("adjust", "reference"), [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_are_statsmodels_over_the_pairs(adjust, reference):
    df = models_frame()
    result = df.ordinal.compare(
        "y", "yhat", model="model", sample="s", metrics=["mae", "qwk"], n_resamples=400, seed=1, adjust=adjust
    )
    assert result.attrs["adjust"] == adjust
    rows, cols = np.triu_indices(4, 1)
    for metric in ("mae", "qwk"):
        p = result["p_value"].sel(metric=metric).transpose("model", "versus").values
        got = result["adjusted_p_value"].sel(metric=metric).transpose("model", "versus").values
        expected = multipletests(p[rows, cols], method=reference)[1]
        np.testing.assert_allclose(got[rows, cols], expected, atol=1e-15)
        np.testing.assert_allclose(got[cols, rows], expected, atol=1e-15)  # symmetric


def test_no_variable_carries_one_metric_attrs_across_every_metric():
    df = models_frame(models="ab")
    result = df.ordinal.compare("y", "yhat", model="model", sample="s", metrics=["mae", "qwk"], n_resamples=100, seed=1)
    assert {name: result[name].attrs for name in result.data_vars} == dict.fromkeys(result.data_vars, {})


def test_no_adjustment_keeps_the_p_values():
    df = models_frame(models="ab")
    result = df.ordinal.compare(
        "y", "yhat", model="model", sample="s", metrics=["mae"], n_resamples=200, seed=1, adjust=None
    )
    xr.testing.assert_equal(result["adjusted_p_value"], result["p_value"])
    assert result.attrs["adjust"] == "none"


def test_adjustment_leaves_nan_p_values_out_of_the_family():
    p = np.array([0.01, np.nan, 0.04, 0.03])
    for method, reference in (("holm", "holm"), ("bh", "fdr_bh")):
        got = adjusted(p, method)
        assert np.isnan(got[1])
        np.testing.assert_allclose(got[[0, 2, 3]], multipletests(p[[0, 2, 3]], method=reference)[1])


def test_frame_compare_reports_the_estimates_on_the_data():
    df = models_frame()
    result = df.ordinal.compare(
        "y", "yhat", model="model", sample="s", strata="fold", metrics=["mae", "oc"], n_resamples=300, seed=2
    )
    assert result.attrs["estimate"] == "data"
    observed = df.ordinal.evaluate("y", "yhat", by="model", metrics=["mae", "oc"])
    for metric in ("mae", "oc"):
        mean = result["mean"].sel(metric=metric)
        np.testing.assert_allclose(mean.values, observed[metric].sel(model=mean["model"]).values)
        difference = result["difference"].sel(metric=metric, model="a", versus="c")
        assert float(difference) == pytest.approx(
            float(observed[metric].sel(model="a") - observed[metric].sel(model="c"))
        )
    lowest = observed["mae"].to_series().idxmin()
    assert float(result["rank"].sel(metric="mae", model=lowest)) == 1.0


def test_pooled_replicates_are_the_strata_replicates_summed():
    """The strata are drawn apart and scored together: the same draws as df.ordinal.bootstrap(...).sum(strata)."""
    df = models_frame()
    draws = Resampling(200, 3, sample="s", strata="fold")
    pooled = paired_replicates(df, Selection("y", "yhat", by="model"), draws, ["mae"], pool=True)[0]
    cubes = df.ordinal.bootstrap("y", "yhat", model="model", sample="s", strata="fold", n_resamples=200, seed=3)
    np.testing.assert_array_equal(
        pooled["mae"].transpose("bootstrap", "model").values,
        cubes.sum("fold").ordinal.mae().transpose("bootstrap", "model").values,
    )


def test_pooled_probability_means_are_the_mean_over_every_sample_drawn():
    df = models_frame(models="ab", folds=4)
    selection, draws = Selection("y", "yhat", PROBA, by="model"), Resampling(300, 3, sample="s", strata="fold")
    pooled = paired_replicates(df, selection, draws, ["rps"], pool=True)[0]
    per_fold = bootstrap_evaluate(df, selection, draws, ["rps"])
    sizes = xr.DataArray(df[df["model"] == "a"].groupby("fold").size().to_numpy(), dims="fold")
    expected = (per_fold["rps"] * sizes).sum("fold") / sizes.sum()
    np.testing.assert_allclose(pooled["rps"].values, expected.transpose(*pooled["rps"].dims).values, rtol=1e-12)


def test_frame_compare_with_clusters_and_probabilities():
    df = models_frame(models="ab")
    df["patient"] = df["s"] // 3
    result = df.ordinal.compare(
        "y", proba=PROBA, model="model", sample="s", cluster="patient", metrics=["rps", "mae"], n_resamples=200, seed=0
    )
    assert set(result["metric"].values) == {"rps", "mae"}
    assert result["p_value"].notnull().all()


def test_compare_without_an_estimate_warns_and_says_so():
    df = models_frame(models="ab")
    values = df.ordinal.evaluate("y", "yhat", by="model", sample="s", n_resamples=100, seed=0, metrics=["mae"])
    with pytest.warns(UserWarning, match="compare\\(\\) without estimate="):
        result = ordframe.compare(values)
    assert result.attrs["estimate"] == "replicate mean"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        quiet = ordframe.compare(values, estimate="replicates")
    xr.testing.assert_identical(quiet, result)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [({"adjust": "bonferroni"}, "adjust must be one of"), ({"estimate": "mean"}, "estimate= must be")],
)
def test_compare_argument_errors(kwargs, match):
    values = models_frame(models="ab").ordinal.evaluate(
        "y", "yhat", by="model", sample="s", n_resamples=20, seed=0, metrics=["mae"]
    )
    with pytest.raises(ValueError, match=match):
        ordframe.compare(values, **kwargs)


def test_frame_compare_needs_one_model_column():
    df = models_frame(models="ab")
    with pytest.raises(ValueError, match="model= must name the one column of the models"):
        df.ordinal.compare("y", "yhat", model=["model", "fold"], n_resamples=10)


def test_the_share_better_of_equal_models_is_a_bootstrap_proportion_not_a_probability():
    """Under an exact null the share is about uniform: one of two equal models often looks 'sure' to be better."""
    rng = np.random.default_rng(0)
    shares = []
    for _ in range(60):
        n = 100
        y = rng.integers(0, 3, n)
        frame = pd.concat(
            [
                pd.DataFrame({"s": np.arange(n), "y": y, "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 2), "model": m})
                for m in "ab"
            ]
        )
        result = frame.ordinal.compare("y", "yhat", model="model", sample="s", metrics=["mae"], n_resamples=200, seed=1)
        shares.append(float(result["bootstrap_share_better"].sel(metric="mae", model="a", versus="b")))
    shares = np.array(shares)
    # uniform on (0, 1): a sizeable share of data sets beyond 0.9 either way, and a mean near 1/2
    assert 0.05 < np.mean((shares > 0.9) | (shares < 0.1)) < 0.45
    assert abs(shares.mean() - 0.5) < 0.15


def test_bca_intervals_of_differences_use_the_paired_jackknife():
    df = models_frame(n=60, models="ab")
    result = df.ordinal.compare(
        "y", "yhat", model="model", sample="s", metrics=["qwk"], n_resamples=800, seed=4, method="bca"
    )
    assert result.attrs["ci_method"] == "bca"
    replicates = df.ordinal.evaluate("y", "yhat", by="model", sample="s", n_resamples=800, seed=4, metrics=["qwk"])[
        "qwk"
    ]
    difference = replicates.sel(model="a") - replicates.sel(model="b")

    def qwk_difference(rows):
        values = rows.ordinal.evaluate("y", "yhat", by="model", metrics=["qwk"], labels=[0, 1, 2])["qwk"]
        return float(values.sel(model="a") - values.sel(model="b"))

    left_out = np.array([qwk_difference(df[df["s"] != s]) for s in range(60)])  # brute force: each sample out
    deviation = left_out.mean() - left_out
    acceleration = (deviation**3).sum() / (6 * (deviation**2).sum() ** 1.5)
    observed = qwk_difference(df)
    low, high = bca_bounds(difference, xr.DataArray(observed), xr.DataArray(acceleration), dim="bootstrap", alpha=0.025)
    got = result["interval"].sel(metric="qwk", model="a", versus="b")
    np.testing.assert_allclose(got.values, [float(low), float(high)], rtol=1e-10)
    itself = result["interval"].sel(metric="qwk", model="a", versus="a")
    assert itself.values.tolist() == [0.0, 0.0]


def test_basic_intervals_of_differences_reflect_about_the_observed_difference():
    df = models_frame(models="ab")
    kwargs = {"model": "model", "sample": "s", "metrics": ["oc"], "n_resamples": 300, "seed": 2}
    basic = df.ordinal.compare("y", "yhat", method="basic", **kwargs)
    plain = df.ordinal.compare("y", "yhat", **kwargs)
    observed = basic["difference"].sel(metric="oc", model="a", versus="b")
    low, high = plain["interval"].sel(metric="oc", model="a", versus="b").values
    np.testing.assert_allclose(
        basic["interval"].sel(metric="oc", model="a", versus="b").values, [2 * observed - high, 2 * observed - low]
    )


def test_compare_methods_need_what_they_use():
    values = models_frame(models="ab").ordinal.evaluate(
        "y", "yhat", by="model", sample="s", n_resamples=100, seed=0, metrics=["mae"]
    )
    with pytest.raises(ValueError, match="pass estimate="):
        ordframe.compare(values, estimate="replicates", method="basic")
    with pytest.raises(ValueError, match=r"method must be one of \('percentile', 'basic'\)"):
        ordframe.compare(values, estimate="replicates", method="bca")


def test_frame_compare_knows_the_direction_of_the_metrics_it_names():
    """Output names of metrics={...} are the caller's: no stale-direction warning, each ranked its own way."""
    df = models_frame(models="ab")
    metrics = {"oc25": ("oc", {"beta": 0.25}), "hits": "accuracy"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = df.ordinal.compare("y", "yhat", sample="s", metrics=metrics, n_resamples=100, seed=0)
    observed = df.ordinal.evaluate("y", "yhat", by="model", metrics=metrics)
    assert result["rank"].sel(metric="oc25", model=str(observed["oc25"].idxmin().values)) == 1
    assert result["rank"].sel(metric="hits", model=str(observed["hits"].idxmax().values)) == 1


def test_compare_ranks_a_metric_with_a_target_value_by_its_distance_from_it():
    """Biases of +x and -x (each replicate mirrored) are alike: difference 0 on the data and in every replicate,
    rank 1.5 each, a share better of one half; the model nearer to 0 ranks first. ``mean`` keeps the sign."""
    attrs = xr.DataArray([[1, 0], [0, 1]], dims=("true", "pred")).ordinal.evaluate(metrics=["mean_signed_error"])
    attrs = attrs["mean_signed_error"].attrs
    size = 0.3 + np.random.default_rng(5).normal(0, 0.02, 300)
    replicates = xr.DataArray(
        np.stack([size, -size, size / 3]),
        dims=("model", "bootstrap"),
        coords={"model": ["up", "down", "near"]},
        name="mean_signed_error",
        attrs=attrs,
    )
    estimate = xr.DataArray([0.3, -0.3, 0.1], dims="model", coords=replicates.model.coords, attrs=attrs)
    result = ordframe.compare(replicates, estimate=estimate.rename("mean_signed_error"), method="basic").squeeze()
    assert result["rank"].values.tolist() == [2.5, 2.5, 1.0]
    assert result["mean"].values.tolist() == [0.3, -0.3, 0.1]
    pair = result.sel(model="up", versus="down")
    assert float(pair["difference"]) == 0 and pair["interval"].values.tolist() == [0, 0]
    assert float(pair["bootstrap_share_better"]) == 0.5 and float(pair["p_value"]) == 1
    near = result.sel(model="near", versus="down")
    assert float(near["difference"]) == pytest.approx(-0.2) and float(near["bootstrap_share_better"]) == 1


def test_frame_compare_ranks_opposite_biases_of_one_size_alike():
    """Two models that predict one class too high and one class too low on the same rows: their biases have one
    size in every paired replicate, with BCa's jackknife too."""
    y = np.tile([0, 1, 2, 1, 1], 20)
    up, down = y.copy(), y.copy()
    rows = np.arange(len(y)) % 5 == 3
    up[rows], down[rows] = 2, 0
    df = pd.DataFrame({"s": np.r_[np.arange(len(y)), np.arange(len(y))], "y": np.r_[y, y], "yhat": np.r_[up, down]})
    df["model"] = ["up"] * len(y) + ["down"] * len(y)
    metrics = {"bias": "mean_signed_error", "mae": "mae"}
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no stale-direction warning for the output name "bias"
        warnings.simplefilter("ignore", DegenerateIntervalWarning)  # up - down is 0 in every replicate
        result = df.ordinal.compare("y", "yhat", sample="s", metrics=metrics, n_resamples=200, seed=0, method="bca")
    bias = result.sel(metric="bias")
    assert bias["rank"].values.tolist() == [1.5, 1.5] and bias["mean"].values.tolist() == [-0.2, 0.2]
    assert float(bias["bootstrap_share_better"].sel(model="up", versus="down")) == 0.5
    assert bias["interval"].sel(model="up", versus="down").values.tolist() == [0, 0]


# --------------------------------------------------------------------------- review round 3: M4, M5, L7


def test_an_unnamed_dataarray_is_compared_as_value_like_the_other_tests():
    v = xr.DataArray(
        np.random.default_rng(15).normal(0.3, 0.05, (2, 200)), dims=("model", "bootstrap"), coords={"model": ["a", "b"]}
    )
    result = ordframe.compare(v, higher_is_better=False, estimate="replicates")
    assert result["metric"].values.tolist() == ["value"]  # the name friedman, wilcoxon and the t-tests give it


def test_duplicate_model_labels_are_refused_with_their_name():
    # an error, not a result: a pair a-a with a non-zero difference compares two runs that share a name
    v = xr.DataArray(
        np.random.default_rng(0).normal(0.3, 0.05, (2, 200)),
        dims=("model", "bootstrap"),
        coords={"model": ["a", "a"]},
        name="mae",
        attrs={"higher_is_better": 0},
    )
    with pytest.raises(ValueError, match=r"'mae': the 'model' label\(s\) 'a' occur more than once"):
        ordframe.compare(v, estimate="replicates")


def test_too_few_valid_replicates_give_advice_that_compare_can_take():
    values = np.full((2, 200), np.nan)
    values[:, :50] = np.random.default_rng(1).normal(0.3, 0.05, (2, 50))
    v = xr.DataArray(values, dims=("model", "bootstrap"), coords={"model": ["a", "b"]}, name="mae")
    with pytest.raises(ValueError, match="only 50 of 200 replicates") as error:
        ordframe.compare(v, higher_is_better=False, estimate="replicates")
    assert "min_valid" not in str(error.value)
    with pytest.raises(ValueError, match="or pass a lower min_valid"):  # ci takes it
        ordframe.ci(v)


def test_the_comparison_keeps_the_replicates_record():
    df = pd.DataFrame({"y": [0, 1, 2, 2] * 25, "yhat": [0, 1, 2, 1] * 25, "model": "a"})
    both = pd.concat([df, df.assign(yhat=0, model="b")]).assign(s=lambda d: np.tile(np.arange(100), 2))
    result = both.ordinal.compare("y", "yhat", model="model", sample="s", metrics=["mae"], n_resamples=200, seed=3)
    assert {k: result.attrs[k] for k in ("n_resamples", "seed", "method", "sample")} == {
        "n_resamples": 200,
        "seed": 3,
        "method": "samples",
        "sample": "s",
    }
