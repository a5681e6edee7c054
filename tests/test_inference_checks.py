"""The inference layer refuses inputs that do not fit together and says so, instead of giving silent wrong numbers.

BCa's cube must be the one the replicates were drawn from (stack dims, coordinates, classes) and its
metric a confusion metric; degenerate BCa warns and gives a defined result; ``compare`` gives no p-value
without replicates, checks the estimate's labels and takes the direction from ``higher_is_better=`` where
the attrs may be stale (as ``friedman`` does); the jackknife respects ``max_cube_bytes``.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe
from ordframe import DegenerateIntervalWarning


def two_models(n=120, seed=0, **columns):
    """Long format: two models of the same samples, each one class off now and then."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frames = [
        pd.DataFrame({"y": y, "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 2), "model": m, **columns}) for m in "ab"
    ]
    return pd.concat(frames, ignore_index=True)


@pytest.fixture
def strict_warnings():
    """Every warning is an error, except the one that explains a degenerate interval (recorded)."""
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("error")
        warnings.simplefilter("always", DegenerateIntervalWarning)
        yield seen


# --------------------------------------------------------------------------- BCa: the cube must match (H5)


def test_bca_refuses_a_cube_without_a_dim_of_the_replicates():
    df = two_models()
    replicates = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=300, seed=0).ordinal.mae()
    only_a = df[df.model == "a"].ordinal.confusion("y", "yhat")
    with pytest.raises(ValueError, match=r"the replicates have the dims \['model'\] that the cube lacks"):
        ordframe.ci(replicates, method="bca", cube=only_a)


def test_bca_refuses_a_cube_that_keeps_a_dim_the_replicates_summed_out():
    df = two_models().assign(fold=lambda d: np.arange(len(d)) % 3)
    cube = df.ordinal.confusion("y", "yhat", by=["fold", "model"])
    replicates = cube.sum("fold").ordinal.bootstrap(200, seed=0).ordinal.mae()
    with pytest.raises(ValueError, match=r"the cube has the dims \['fold'\] that the replicates lack.*cube\.sum"):
        ordframe.ci(replicates, method="bca", cube=cube)
    pooled = ordframe.ci(replicates, method="bca", cube=cube.sum("fold"))
    assert pooled.dims == ("bound", "model")


def test_bca_refuses_other_labels_and_reorders_the_same_labels():
    df = two_models()
    replicates = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=300, seed=0).ordinal.mae()
    cube = df.ordinal.confusion("y", "yhat", by="model")
    right = ordframe.ci(replicates, method="bca", cube=cube)
    other = cube.assign_coords(model=["a", "x"])
    with pytest.raises(ValueError, match=r"'model' coordinate \('a', 'x'\).*lacks 'b' and has 'x' too"):
        ordframe.ci(replicates, method="bca", cube=other)
    with pytest.raises(ValueError, match="only the replicates label the dim 'model'"):
        ordframe.ci(replicates, method="bca", cube=cube.drop_vars("model"))
    reversed_models = cube.isel(model=[1, 0])
    xr.testing.assert_identical(ordframe.ci(replicates, method="bca", cube=reversed_models), right)


def test_bca_refuses_a_cube_with_another_class_order():
    labels = ["lo", "mid", "hi"]
    rng = np.random.default_rng(0)
    y = rng.choice(labels, 90)
    df = pd.concat(
        [pd.DataFrame({"y": y, "yhat": rng.choice(labels, 90), "model": m}) for m in "ab"], ignore_index=True
    )
    cost = pd.DataFrame([[0, 1, 9], [1, 0, 1], [1, 1, 0]], index=labels, columns=labels)
    replicates = df.ordinal.bootstrap("y", "yhat", model="model", labels=labels, n_resamples=500, seed=0)
    values = replicates.ordinal.expected_cost(cost=cost)
    assert json.loads(values.attrs["classes"]) == labels
    ordframe.ci(values, method="bca", cube=df.ordinal.confusion("y", "yhat", by="model", labels=labels))
    shuffled = df.ordinal.confusion("y", "yhat", by="model", labels=["hi", "lo", "mid"])
    with pytest.raises(ValueError, match=r"classes \['hi', 'lo', 'mid'\] are not those of .*\['lo', 'mid', 'hi'\]"):
        ordframe.ci(values, method="bca", cube=shuffled)
    unlabelled = shuffled.drop_vars(["true", "pred"])
    with pytest.raises(ValueError, match="the cube has no class labels"):
        ordframe.ci(values, method="bca", cube=unlabelled)


# --------------------------------------------------------------------------- BCa: confusion metrics only (M2)


def probabilities_of_two_models(n=150, seed=1):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frames = []
    for m in "ab":
        p = rng.dirichlet(np.ones(3), n)
        frames.append(pd.DataFrame({"y": y, "yhat": p.argmax(1), "model": m, **{f"p{i}": p[:, i] for i in range(3)}}))
    return pd.concat(frames, ignore_index=True)


def test_bca_on_a_probability_metric_says_which_variables_can_use_it():
    df = probabilities_of_two_models()
    ds = df.ordinal.evaluate(
        "y", "yhat", proba=["p0", "p1", "p2"], by="model", n_resamples=100, seed=0, metrics=["mae", "rps"]
    )
    cube = df.ordinal.confusion("y", "yhat", by="model")
    with pytest.raises(ValueError, match=r"variables 'rps' hold probability metrics.*percentile.*variables 'mae'"):
        ordframe.ci(ds, method="bca", cube=cube)
    with pytest.raises(ValueError, match="'rps' hold the probability metric 'rps'.*method='percentile'"):
        ordframe.ci(ds["rps"], method="bca", cube=cube)
    with pytest.raises(ValueError, match="the jackknife needs a confusion metric: 'rps'"):
        ordframe.jackknife(cube, "rps")
    assert ordframe.ci(ds[["mae"]], method="bca", cube=cube)["mae"].notnull().all()
    assert ordframe.ci(ds, method="percentile")["rps"].notnull().all()


# --------------------------------------------------------------------------- BCa: degenerate replicates (M3)


PERFECT = np.diag([30, 20, 10])
MATRIX = np.array([[30, 6, 2], [5, 25, 8], [1, 7, 20]])


def test_bca_of_replicates_that_do_not_vary_is_their_value_with_a_warning(strict_warnings):
    cube = xr.DataArray(PERFECT, dims=("true", "pred"))
    replicates = cube.ordinal.bootstrap(500, seed=0).ordinal.mae()
    bounds = ordframe.ci(replicates, method="bca", cube=cube)
    np.testing.assert_array_equal(bounds.values, [0.0, 0.0])
    np.testing.assert_array_equal(bounds.values, ordframe.ci(replicates).values)
    assert [w.category for w in strict_warnings] == [DegenerateIntervalWarning]
    assert "every replicate equals the estimate" in str(strict_warnings[0].message)


@pytest.mark.parametrize("method", ["bca", "basic", "calibrated", "jeffreys"])
def test_replicates_on_another_scale_than_the_cube_are_an_error_for_every_interval_that_uses_the_cube(method):
    cube = xr.DataArray(MATRIX, dims=("true", "pred"))
    percent = cube.ordinal.bootstrap(500, seed=0).ordinal.accuracy() * 100  # the attrs still say accuracy
    with pytest.raises(ValueError, match=r"accuracy' on the cube lies outside every one of .*different scales"):
        ordframe.ci(percent, method=method, cube=cube, seed=0)
    assert np.isfinite(ordframe.ci(percent, method="percentile").values).all()  # needs no cube: nothing to check


def test_a_degenerate_model_leaves_the_others_intervals_as_they_are(strict_warnings):
    cube = xr.DataArray(np.stack([MATRIX, PERFECT]), dims=("model", "true", "pred"), coords={"model": ["a", "b"]})
    replicates = cube.ordinal.bootstrap(1000, seed=3).ordinal.mae()
    both = ordframe.ci(replicates, method="bca", cube=cube)
    alone = ordframe.ci(replicates.sel(model="a"), method="bca", cube=cube.sel(model="a"))
    xr.testing.assert_allclose(both.sel(model="a"), alone)
    np.testing.assert_array_equal(both.sel(model="b").values, [0.0, 0.0])
    assert [w.category for w in strict_warnings] == [DegenerateIntervalWarning]
    assert "in 1 of 2 element(s)" in str(strict_warnings[0].message)


# --------------------------------------------------------------------------- compare: no valid replicate (H6)


def test_compare_gives_no_p_value_for_a_model_without_probabilities():
    df = probabilities_of_two_models(100)
    labels_only = df[df.model == "a"].assign(model="c", p0=np.nan, p1=np.nan, p2=np.nan)
    df = pd.concat([df, labels_only], ignore_index=True)
    with pytest.warns(RuntimeWarning, match="no class probabilities"):
        ds = df.ordinal.evaluate("y", "yhat", proba=["p0", "p1", "p2"], by="model", n_resamples=200, seed=0)
    ds = ds[["mae", "rps"]]
    with warnings.catch_warnings(record=True) as seen:
        warnings.simplefilter("always")
        result = ordframe.compare(ds, estimate="replicates")
    assert len(seen) == 1 and seen[0].category is RuntimeWarning
    message = str(seen[0].message)
    assert "'rps'" in message and "a-c, b-c" in message and "model 'c' is NaN in every replicate" in message
    rps = result.sel(metric="rps")
    for pair in ({"model": "a", "versus": "c"}, {"model": "c", "versus": "b"}, {"model": "c", "versus": "c"}):
        assert np.isnan(rps["p_value"].sel(pair)) and np.isnan(rps["bootstrap_share_better"].sel(pair))
        assert rps["interval"].sel(pair).isnull().all()
    assert rps["p_value"].sel(model="a", versus="b").notnull()
    assert result["p_value"].sel(metric="mae").notnull().all()  # the label metric is defined for c


# --------------------------------------------------------------------------- compare: the estimate's labels (L4)


def three_models():
    df = two_models(200)
    return pd.concat([df, df[df.model == "a"].assign(model="c")], ignore_index=True)


def test_compare_refuses_an_estimate_without_every_model():
    df = three_models()
    replicates = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=200, seed=0).ordinal.evaluate(
        metrics=["mae"]
    )
    estimate = df.ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])
    with pytest.raises(ValueError, match=r"lacks the 'model' label\(s\) 'c'"):
        ordframe.compare(replicates, estimate=estimate.isel(model=[0, 1]))
    with pytest.raises(ValueError, match=r"has the dims \['fold'\] that the replicates lack"):
        ordframe.compare(replicates, estimate=estimate.expand_dims(fold=2))
    with pytest.raises(ValueError, match="has no variable 'mae'"):
        ordframe.compare(replicates, estimate=estimate.rename(mae="oc"))
    exact = ordframe.compare(replicates, estimate=estimate)
    wider = xr.concat([estimate, estimate.isel(model=[0]).assign_coords(model=["d"])], dim="model")
    xr.testing.assert_identical(ordframe.compare(replicates, estimate=wider.isel(model=[3, 2, 1, 0])), exact)


# --------------------------------------------------------------------------- compare, friedman: direction (M6)


def error_rates():
    """Bootstrap replicates of 1 - accuracy, renamed: model a is perfect (error 0), b is not; attrs say accuracy."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 100)
    df = pd.concat(
        [
            pd.DataFrame({"y": y, "yhat": y, "model": "a"}),
            pd.DataFrame({"y": y, "yhat": rng.integers(0, 3, 100), "model": "b"}),
        ],
        ignore_index=True,
    )
    accuracy = df.ordinal.evaluate("y", "yhat", by="model", n_resamples=100, seed=0, metrics=["accuracy"])["accuracy"]
    return (1 - accuracy).rename("error_rate")


def test_compare_warns_when_the_name_disagrees_with_the_metric_attr_and_takes_the_direction_given():
    error = error_rates()
    assert error.attrs["metric"] == "accuracy" and error.attrs["higher_is_better"] == 1  # stale
    with pytest.warns(UserWarning, match="'error_rate' is named unlike the metric its attrs describe"):
        ordframe.compare(error, estimate="replicates")
    for given in (False, {"error_rate": False}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            result = ordframe.compare(error, higher_is_better=given, estimate="replicates")
        assert result["rank"].sel(metric="error_rate").values.tolist() == [1.0, 2.0]
        assert float(result["bootstrap_share_better"].sel(metric="error_rate", model="a", versus="b")) == 1.0
    with pytest.raises(ValueError, match="names 'error', which are not variables"):
        ordframe.compare(error, higher_is_better={"error": False}, estimate="replicates")
    with pytest.raises(TypeError, match="higher_is_better= must be None"):
        ordframe.compare(error, higher_is_better=0, estimate="replicates")


def test_friedman_warns_when_the_name_disagrees_with_the_metric_attr_and_takes_the_direction_given():
    error = error_rates().rename(bootstrap="dataset")
    with pytest.warns(UserWarning, match="'error_rate' is named unlike the metric"):
        friedman_default = ordframe.friedman(error)
    assert friedman_default["average_rank"].sel(metric="error_rate", model="a") > 1.5  # ranked by the stale attrs
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        given = ordframe.friedman(error, higher_is_better=False)
        mixed = ordframe.friedman(
            xr.Dataset(
                {"error_rate": error, "mae": error.assign_attrs(metric="mae", higher_is_better=0).rename("mae")}
            ),
            higher_is_better={"error_rate": False},
        )
    assert given["average_rank"].sel(metric="error_rate").values.tolist() == [1.0, 2.0]
    assert mixed["average_rank"].sel(metric="error_rate").values.tolist() == [1.0, 2.0]
    assert mixed["average_rank"].sel(metric="mae").values.tolist() == [1.0, 2.0]


def test_results_named_as_their_metric_do_not_warn():
    df = two_models(200)
    ds = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=100, seed=0).ordinal.evaluate(
        metrics=["mae", "qwk"]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ordframe.compare(ds, estimate="replicates")
        ordframe.friedman(ds, dim="bootstrap")


# --------------------------------------------------------------------------- the jackknife (M1)


def test_the_jackknife_refuses_more_than_max_cube_bytes_before_allocating():
    cube = xr.DataArray(np.full((6, 12, 12), 3), dims=("g", "true", "pred"))  # 6 x 12^4 x 8 x 2 bytes: 1.9 MiB
    with ordframe.set_options(max_cube_bytes=2**20):
        with pytest.raises(MemoryError, match=r"jackknife of 6 matrices of 12 classes.*max_cube_bytes = 1\.0 MiB"):
            ordframe.jackknife(cube, "mae")
        replicates = cube.ordinal.bootstrap(20, seed=0).ordinal.mae()
        with (
            pytest.raises(MemoryError, match="method='percentile'"),
            pytest.warns(RuntimeWarning, match="20 replicates"),
        ):
            ordframe.ci(replicates, method="bca", cube=cube)
    with ordframe.set_options(max_cube_bytes=4 * 2**20):
        values, weights = ordframe.jackknife(cube, "mae")
    assert values.dims == ("g", "cell") and int(weights.sum()) == 6 * 12 * 12 * 3


def test_jackknife_values_are_the_leave_one_sample_out_values():
    cube = xr.DataArray(MATRIX, dims=("true", "pred"))
    values, weights = ordframe.jackknife(cube, "qwk")
    k = MATRIX.shape[0]
    for cell in range(k * k):
        r, c = divmod(cell, k)
        assert int(weights[cell]) == MATRIX[r, c]
        if MATRIX[r, c]:
            less = MATRIX.copy()
            less[r, c] -= 1
            assert float(values[cell]) == pytest.approx(float(xr.DataArray(less, dims=("true", "pred")).ordinal.qwk()))


def test_bca_on_groups_stacked_by_observed_leaves_their_multiindex_alone():
    """A perfect model among groups stacked by observed=True (the CLI's --by): no xarray FutureWarning (an error
    under this suite's settings) for dropping a level of the group MultiIndex."""
    y = np.arange(60) % 3
    df = pd.concat(
        [
            pd.DataFrame({"y": y, "yhat": y, "model": "a", "g": 1}),
            pd.DataFrame({"y": y, "yhat": y[::-1], "model": "b", "g": 1}),
        ]
    )
    cube = df.ordinal.confusion("y", "yhat", by=["model", "g"], observed=True)
    with pytest.warns(DegenerateIntervalWarning, match="every replicate equals the estimate"):
        bounds = ordframe.ci(cube.ordinal.bootstrap(200, seed=0).ordinal.mae(), cube=cube, method="bca")
    assert bounds.sel(model="a", g=1).values.tolist() == [0.0, 0.0]
