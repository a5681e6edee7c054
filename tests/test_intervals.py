"""``ci`` refuses nonsense (NaN replicates, too few, the wrong dim, other parameters) and BCa's core takes an
estimate and an acceleration from any source, checked against a leave-one-out loop and ``scipy.stats.bootstrap``.
"""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe
from ordframe._inference.double_bootstrap import calibration_shares
from ordframe._inference.intervals import acceleration_of, bca_bounds, mean_score_acceleration, percentile
from ordframe._registry import manager as registry

RARE_CLASS = np.array([[40, 5, 0], [3, 30, 2], [0, 1, 1]])  # George's d is NaN where class 2 is not drawn


def d_replicates(n=2000, seed=0):
    cube = xr.DataArray(RARE_CLASS, dims=("true", "pred"))
    return cube, cube.ordinal.bootstrap(n, seed=seed).ordinal.d()


# --------------------------------------------------------------------------- NaN replicates


def test_nan_replicates_are_counted_in_a_warning_and_their_share_recorded():
    _, replicates = d_replicates()
    nan = int(replicates.isnull().sum())
    assert 0 < nan < 1000
    with pytest.warns(RuntimeWarning, match=rf"^{nan} of 2000 replicates of 'd' are NaN"):
        bounds = ordframe.ci(replicates, method="percentile")
    assert bounds.attrs["ci_valid_share"] == (2000 - nan) / 2000
    valid = replicates.dropna("bootstrap")
    np.testing.assert_allclose(bounds.values, valid.quantile([0.025, 0.975], "bootstrap").values)


def test_a_valid_share_below_min_valid_is_an_error_unless_lowered():
    replicates = xr.DataArray(np.r_[0.2, 0.3, np.full(1998, np.nan)], dims="bootstrap", name="d")
    with pytest.raises(ValueError, match=r"only 2 of 2000 replicates of 'd' are valid.*min_valid=0.5"):
        ordframe.ci(replicates, method="percentile")
    _, d = d_replicates()
    share = float(d.notnull().mean())
    with pytest.raises(ValueError, match="below min_valid"):
        ordframe.ci(d, method="percentile", min_valid=share + 0.01)
    with pytest.warns(RuntimeWarning, match="1998 of 2000 replicates of 'd' are NaN"):
        assert ordframe.ci(replicates, method="percentile", min_valid=0).attrs["ci_valid_share"] == 0.001
    with pytest.raises(ValueError, match="min_valid must be a share in"):
        ordframe.ci(replicates, min_valid=50)


def test_an_element_without_valid_replicates_is_nan_and_the_others_are_kept():
    values = np.stack([np.linspace(0, 1, 500), np.full(500, np.nan)])
    replicates = xr.DataArray(values, dims=("model", "bootstrap"), coords={"model": ["a", "b"]}, name="mae")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        bounds = ordframe.ci(replicates, method="percentile")
    assert bounds.sel(model="b").isnull().all() and bounds.sel(model="a").notnull().all()
    assert bounds.attrs["ci_valid_share"] == 1.0


def test_few_replicates_or_a_dim_named_for_something_else_warn():
    folds = xr.DataArray(np.linspace(0.2, 0.4, 5), dims="fold")
    with pytest.warns(RuntimeWarning) as seen:
        ordframe.ci(folds, dim="fold", method="percentile")
    messages = " ".join(str(w.message) for w in seen)
    assert "only 5 replicates along 'fold'" in messages and "corrected_ci" in messages
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ordframe.ci(xr.DataArray(np.linspace(0, 1, 100), dims="bootstrap"), method="percentile")


# --------------------------------------------------------------------------- BCa: the metric's parameters


def test_bca_refuses_replicates_whose_recorded_parameters_are_not_the_metrics():
    cube = xr.DataArray(RARE_CLASS + 3, dims=("true", "pred"))
    replicates = cube.ordinal.bootstrap(500, seed=0).ordinal.oc(beta=0.25)
    right = ordframe.ci(replicates, method="bca", cube=cube)
    by_hand = bca_bounds(
        replicates,
        cube.ordinal.oc(beta=0.25),
        acceleration_of(*ordframe.jackknife(cube, "oc", beta=0.25), "cell"),
        name="oc",
    )
    np.testing.assert_array_equal(right.values, [b.values for b in by_hand])
    wrong = replicates.copy()
    wrong.attrs["parameters"] = json.dumps({"beta": 0.25, "gamma": 1.0, "delta": 2})
    with pytest.raises(ValueError, match=r"names \['delta'\], which 'oc' does not take"):
        ordframe.ci(wrong, method="bca", cube=cube)
    wrong.attrs["parameters"] = json.dumps({"beta": 0.25})
    with pytest.raises(ValueError, match=r"lacks \['gamma'\]"):
        ordframe.ci(wrong, method="bca", cube=cube)
    del wrong.attrs["parameters"]
    with pytest.raises(ValueError, match="do not record the parameters of 'oc'"):
        ordframe.ci(wrong, method="bca", cube=cube)


# --------------------------------------------------------------------------- BCa's core from any source


def leave_one_out_acceleration(scores):
    """Efron & Tibshirani (1993), eq. 14.15, by an explicit loop over the left-out sample."""
    theta = np.array([np.delete(scores, i).mean() for i in range(len(scores))])
    deviation = theta.mean() - theta
    return (deviation**3).sum() / (6 * (deviation**2).sum() ** 1.5)


@settings(max_examples=50, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 4))
def test_the_mean_score_acceleration_is_the_leave_one_out_loops(seed, n_elements):
    rng = np.random.default_rng(seed)
    element = rng.integers(0, n_elements, rng.integers(2 * n_elements, 60))
    scores = rng.gamma(rng.uniform(0.3, 3), size=element.size)
    ours = mean_score_acceleration(scores, element, n_elements)
    for e in range(n_elements):
        mine = scores[element == e]
        expected = leave_one_out_acceleration(mine) if mine.size >= 2 else np.nan
        np.testing.assert_allclose(ours[e], expected, rtol=1e-9, atol=1e-12)


def test_the_mean_score_acceleration_is_nan_for_constant_or_single_scores():
    a = mean_score_acceleration(np.array([0.3, 0.3, 0.3, 0.5]), np.array([0, 0, 0, 1]), 3)
    assert np.isnan(a).all()


@pytest.mark.parametrize("seed", range(4))
def test_bca_bounds_from_scipys_own_replicates_are_scipys_interval(seed):
    """scipy's bootstrap distribution, the mean on the data and the per-sample jackknife give scipy's BCa bounds."""
    rng = np.random.default_rng(seed)
    scores = rng.gamma(0.7, size=80)  # skewed per-sample scores, as RPS's are
    result = scipy.stats.bootstrap(
        (scores,), np.mean, method="BCa", n_resamples=3000, confidence_level=0.9, random_state=seed
    )
    values = xr.DataArray(result.bootstrap_distribution, dims="bootstrap")
    acceleration = xr.DataArray(mean_score_acceleration(scores, np.zeros(scores.size, int), 1)[0])
    low, high = bca_bounds(values, xr.DataArray(scores.mean()), acceleration, alpha=0.05)
    np.testing.assert_allclose(
        [float(low), float(high)], [result.confidence_interval.low, result.confidence_interval.high], rtol=1e-12
    )


def test_the_cubes_acceleration_is_the_row_jackknifes():
    """The cell-weighted jackknife of a cube is the N-row jackknife of its samples (here of the accuracy)."""
    cube = xr.DataArray(RARE_CLASS, dims=("true", "pred"))
    theta, weights = ordframe.jackknife(cube, "accuracy")
    correct = np.repeat(np.eye(3).ravel(), RARE_CLASS.ravel())
    a = acceleration_of(theta, weights, "cell")
    np.testing.assert_allclose(float(a), leave_one_out_acceleration(correct), rtol=1e-12)
    np.testing.assert_allclose(float(a), mean_score_acceleration(correct, np.zeros(correct.size, int), 1)[0])


# --------------------------------------------------------------------------- each metric's default method


def test_method_none_is_each_metrics_default_and_falls_back_to_percentile_without_a_cube():
    cube = xr.DataArray(RARE_CLASS + 4, dims=("true", "pred"))
    ds = cube.ordinal.bootstrap(500, seed=0).ordinal.evaluate(metrics=["oc", "mae"])
    chosen = {m: ordframe.get_metric(m).interval for m in ("oc", "mae")}
    assert chosen["oc"] != "percentile"  # the coverage suite chose another method for OC
    bounds = ordframe.ci(ds, cube=cube, seed=0)
    for m, method in chosen.items():
        assert bounds[m].attrs["ci_method"] == method
        xr.testing.assert_identical(bounds[m], ordframe.ci(ds[m], method=method, cube=cube, seed=0))
    with pytest.warns(UserWarning, match=rf"percentile interval, not the default of 'oc', '{chosen['oc']}'.*cube="):
        fallback = ordframe.ci(ds["oc"])
    xr.testing.assert_identical(fallback, ordframe.ci(ds["oc"], method="percentile"))


def test_a_metrics_interval_is_declared_and_checked():
    def within_one(counts):
        return counts.sum(axis=(-2, -1))

    assert ordframe.Metric("within_one", "confusion", within_one, True).interval == "percentile"
    assert ordframe.Metric("within_one", "confusion", within_one, True, interval="bca").interval == "bca"
    with pytest.raises(ValueError, match="interval must be one of"):
        ordframe.Metric("within_one", "confusion", within_one, True, interval="normal")
    share = ordframe.Metric("within_one", "confusion", within_one, True, (0, 1), share=True, interval="jeffreys")
    assert share.share and share.interval == "jeffreys"
    with pytest.raises(ValueError, match="set share=True"):
        ordframe.Metric("within_one", "confusion", within_one, True, (0, 1), interval="jeffreys")
    with pytest.raises(ValueError, match="bounded by 0 and 1"):
        ordframe.Metric("within_one", "confusion", within_one, True, share=True)
    with pytest.raises(TypeError, match="share must be True or False"):
        ordframe.Metric("within_one", "confusion", within_one, True, (0, 1), share="yes")
    assert {m for m in registry.metric_names("confusion") if registry.get_metric(m).share} >= {
        "accuracy",
        "mer",
        "within_k",
    }


# --------------------------------------------------------------------------- basic and m-out-of-n intervals


def test_the_basic_and_m_out_of_n_intervals_are_their_formulas():
    cube = xr.DataArray(RARE_CLASS + 4, dims=("true", "pred"))
    theta = float(cube.ordinal.oc())
    values = cube.ordinal.bootstrap(800, seed=1).ordinal.oc()
    q = np.quantile(values.values, [0.05, 0.95])
    np.testing.assert_allclose(
        ordframe.ci(values, method="basic", cube=cube, level=0.9).values, 2 * theta - q[::-1], rtol=1e-12
    )
    small = ordframe.bootstrap_cube(cube, 800, seed=1, size=30)
    assert int(small["bootstrap_size"]) == 30 and (small.sum(("true", "pred")) == 30).all()
    m_values = small.ordinal.oc()
    q = np.quantile(m_values.values, [0.05, 0.95])
    scale = np.sqrt(30 / int(cube.sum()))
    np.testing.assert_allclose(
        ordframe.ci(m_values, method="m_out_of_n", cube=cube, level=0.9).values,
        theta - scale * (q[::-1] - theta),
        rtol=1e-12,
    )
    with pytest.raises(ValueError, match="m-out-of-n replicates"):
        ordframe.ci(m_values, method="basic", cube=cube)
    with pytest.raises(ValueError, match="m-out-of-n replicates"):
        ordframe.ci(m_values, method="bca", cube=cube)
    with pytest.raises(ValueError, match=r"bootstrap_cube\(cube, n_resamples, size=m\)"):
        ordframe.ci(values, method="m_out_of_n", cube=cube)
    with pytest.raises(ValueError, match="needs cube="):
        ordframe.ci(values, method="basic")
    with pytest.raises(ValueError, match="more samples than the smallest matrix"):
        ordframe.bootstrap_cube(cube, 10, size=10**6)
    with pytest.raises(ValueError, match="stratify"):
        ordframe.bootstrap_cube(cube, 10, size=20, stratify=True)


# --------------------------------------------------------------------------- the calibrated (double bootstrap) interval


def double_bootstrap_loop(counts, outer, inner, rng):
    """Hall's calibration written plainly: per outer replicate, the mid-rank share of its inner OC values below OC."""
    counts = np.asarray(counts)
    k, n = counts.shape[0], int(counts.sum())
    theta = float(
        ordframe.oc(
            np.repeat(np.arange(k), counts.sum(1)), np.concatenate([np.repeat(np.arange(k), row) for row in counts])
        )
    )
    shares = []
    for _ in range(outer):
        star = rng.multinomial(n, counts.ravel() / n)
        stars = rng.multinomial(n, star / n, size=inner).reshape(inner, k, k)
        values = xr.DataArray(stars, dims=("inner", "true", "pred")).ordinal.oc().values
        shares.append(((values < theta - 1e-12).sum() + (abs(values - theta) <= 1e-12).sum() / 2) / inner)
    return np.array(shares)


def test_the_double_bootstraps_shares_follow_halls_definition():
    counts = np.array([[20, 6, 1], [5, 18, 5], [1, 6, 20]])  # symmetric: OC's two best paths tie
    cube = xr.DataArray(counts, dims=("true", "pred"))
    metric = ordframe.get_metric("oc")
    ours = calibration_shares(
        cube, {"oc": (metric, {}, xr.DataArray(cube.ordinal.oc()))}, n_resamples=600, n_inner=100, seed=0
    )["oc"]
    loop = double_bootstrap_loop(counts, 600, 100, np.random.default_rng(1))
    # two independent Monte-Carlo estimates of the same law: its mean and its tails agree within their error
    assert abs(float(ours.mean()) - loop.mean()) < 4 * loop.std() / np.sqrt(600) * np.sqrt(2)
    levels = [float(x) for x in percentile(ours, "bootstrap", 0.05)]
    np.testing.assert_allclose(levels, np.quantile(loop, [0.05, 0.95]), atol=0.06)
    assert levels[0] > 0.05  # OC's bootstrap is biased downward at the tie: the calibration raises both levels


def test_the_calibrated_interval_is_the_replicates_quantiles_at_the_calibrated_levels():
    cube = xr.DataArray(RARE_CLASS + 4, dims=("true", "pred"))
    values = cube.ordinal.bootstrap(500, seed=1).ordinal.oc()
    metric = ordframe.get_metric("oc")
    shares = calibration_shares(
        cube, {"oc": (metric, {}, xr.DataArray(cube.ordinal.oc()))}, n_resamples=500, n_inner=100, seed=2
    )["oc"]
    levels = np.quantile(shares.values, [0.025, 0.975])
    bounds = ordframe.ci(values, method="calibrated", cube=cube, seed=2)
    np.testing.assert_allclose(bounds.values, np.quantile(values.values, levels), rtol=1e-12)
    assert bounds.attrs["ci_method"] == "calibrated"


def test_the_calibrated_interval_shares_one_double_bootstrap_across_metrics_and_is_reproducible():
    cube = xr.DataArray(
        np.stack([RARE_CLASS + 4, RARE_CLASS.T + 2]), dims=("model", "true", "pred"), coords={"model": ["a", "b"]}
    )
    ds = cube.ordinal.bootstrap(300, seed=0).ordinal.evaluate(metrics=["oc", "uoc", "mae"])
    both = ordframe.ci(ds, method="calibrated", cube=cube, seed=5)
    for m in ds:
        xr.testing.assert_identical(both[m], ordframe.ci(ds[m], method="calibrated", cube=cube, seed=5))
    assert not both["oc"].equals(ordframe.ci(ds["oc"], method="calibrated", cube=cube, seed=6))


def test_a_constant_statistic_gets_the_constant_and_an_undefined_one_nan():
    perfect = xr.DataArray(np.diag([30, 20, 10]), dims=("true", "pred"))
    values = perfect.ordinal.bootstrap(200, seed=0).ordinal.accuracy()
    np.testing.assert_array_equal(ordframe.ci(values, method="calibrated", cube=perfect, n_inner=20, seed=0), [1, 1])
    cube = xr.DataArray([RARE_CLASS, np.zeros((3, 3), int)], dims=("m", "true", "pred"))
    values = cube.ordinal.bootstrap(200, seed=0).ordinal.oc()  # OC is undefined on an empty matrix
    bounds = ordframe.ci(values, method="calibrated", cube=cube, n_inner=20, seed=0)
    assert np.isfinite(bounds.isel(m=0)).all() and bounds.isel(m=1).isnull().all()


def test_the_calibrated_interval_refuses_what_it_cannot_use():
    cube = xr.DataArray(RARE_CLASS + 4, dims=("true", "pred"))
    values = cube.ordinal.bootstrap(200, seed=1).ordinal.oc()
    with pytest.raises(ValueError, match="needs cube="):
        ordframe.ci(values, method="calibrated")
    with pytest.raises(TypeError, match="n_inner must be a whole number >= 2"):
        ordframe.ci(values, method="calibrated", cube=cube, n_inner=1)
    small = ordframe.bootstrap_cube(cube, 200, seed=1, size=30).ordinal.oc()
    with pytest.raises(ValueError, match="m-out-of-n replicates"):
        ordframe.ci(small, method="calibrated", cube=cube)
    with pytest.raises(ValueError, match="the cube does not match"):
        ordframe.ci(values, method="calibrated", cube=cube.expand_dims(model=["a"]))


# --------------------------------------------------------------------------- the Jeffreys interval of a share of samples


def test_the_jeffreys_interval_at_a_bound_is_statsmodels_jeffreys_interval_of_the_cube():
    from statsmodels.stats.proportion import proportion_confint

    cube = xr.DataArray(
        [[[30, 2, 0], [1, 25, 1], [0, 3, 18]], [[30, 0, 0], [0, 25, 0], [0, 0, 20]]], dims=("m", "true", "pred")
    )
    values = cube.ordinal.bootstrap(400, seed=0).ordinal.within_k()  # every replicate of both is 1: no spread
    bounds = ordframe.ci(values, method="jeffreys", cube=cube)
    for i, n in enumerate(cube.sum(("true", "pred")).values):
        # the lower bound is statsmodels'; the upper is 1 at p = 1 (Brown, Cai & DasGupta's modification)
        np.testing.assert_allclose(
            bounds.isel(m=i, bound=0), proportion_confint(n, n, method="jeffreys")[0], rtol=1e-12
        )
        assert float(bounds.isel(m=i, bound=1)) == 1 and float(bounds.isel(m=i, bound=0)) < 1  # percentile: [1, 1]


def test_the_jeffreys_interval_uses_the_replicates_effective_sample_size():
    cube = xr.DataArray(RARE_CLASS + 4, dims=("true", "pred"))
    values = cube.ordinal.bootstrap(2000, seed=0).ordinal.accuracy()
    p, n = float(cube.ordinal.accuracy()), int(cube.sum())
    effective = min(n, p * (1 - p) / float(values.var()))
    expected = scipy.stats.beta.ppf([0.025, 0.975], p * effective + 0.5, (1 - p) * effective + 0.5)
    np.testing.assert_allclose(ordframe.ci(values, method="jeffreys", cube=cube).values, expected, rtol=1e-12)
    assert abs(effective - n) < 0.1 * n  # resampling the samples: about N


@pytest.mark.filterwarnings("ignore:column 'c' looks like the ids")  # the rows alone, on purpose
def test_the_jeffreys_interval_widens_with_a_cluster_bootstrap_and_refuses_other_metrics():
    rng = np.random.default_rng(3)
    clusters, size = 40, 5
    wrong = np.repeat(rng.random(clusters) < 0.3, size) ^ (rng.random(clusters * size) < 0.05)
    y = rng.integers(0, 3, clusters * size)
    df = pd.DataFrame({"c": np.repeat(np.arange(clusters), size), "y": y, "yhat": np.where(wrong, (y + 1) % 3, y)})
    kwargs = {"metrics": ["accuracy"], "n_resamples": 500, "seed": 0, "method": "jeffreys"}
    rows = df.ordinal.ci("y", "yhat", **kwargs)["accuracy"]
    whole = df.ordinal.ci("y", "yhat", cluster="c", **kwargs)["accuracy"]
    width = {name: float(b.sel(bound="high") - b.sel(bound="low")) for name, b in (("rows", rows), ("whole", whole))}
    assert width["whole"] > 1.5 * width["rows"]
    with pytest.raises(ValueError, match="share of samples"):
        df.ordinal.ci("y", "yhat", metrics=["mae"], n_resamples=100, method="jeffreys")
    cube = xr.DataArray(RARE_CLASS + 4, dims=("true", "pred"))
    with pytest.raises(ValueError, match="share of samples"):
        ordframe.ci(cube.ordinal.bootstrap(100, seed=0).ordinal.oc(), method="jeffreys", cube=cube)


# --------------------------------------------------------------------------- coverage (benchmarks/bench_coverage.py)


def tied_population(k, rho=0.9):
    """A discretised bivariate normal cut at the same equal-probability thresholds: symmetric, so an optimal
    OC path ties with its mirror image."""
    cuts = np.r_[-8.0, scipy.stats.norm.ppf(np.arange(1, k) / k), 8.0]
    mvn = scipy.stats.multivariate_normal([0.0, 0.0], [[1.0, rho], [rho, 1.0]])
    grid = np.array([[mvn.cdf([a, b]) for b in cuts] for a in cuts])
    p = np.diff(np.diff(grid, axis=0), axis=1)
    return p / p.sum()


def coverage(metric, method, k=5, n=1000, r=300, b=400, seed=0, n_inner=100):
    p = tied_population(k)
    truth = float(getattr(xr.DataArray(p * n, dims=("true", "pred")).ordinal, metric)())
    rng = np.random.default_rng(seed)
    cubes = xr.DataArray(rng.multinomial(n, p.ravel(), size=r).reshape(r, k, k), dims=("sim", "true", "pred"))
    values = getattr(cubes.ordinal.bootstrap(b, seed=rng).ordinal, metric)()
    bounds = ordframe.ci(values, method=method, cube=cubes, n_inner=n_inner, seed=rng)
    return float(((bounds.sel(bound="low") <= truth) & (truth <= bounds.sel(bound="high"))).mean())


# 300 test sets: a coverage of 0.95 has a Monte-Carlo SE of 0.0126; the bounds are 0.95 -/+ 3 SE, widened by 0.01
# for B = 400 replicates (the suite uses B = 1000).
LOOSE = (0.95 - 3 * 0.0126 - 0.01, 0.95 + 3 * 0.0126 + 0.01)


@pytest.mark.slow
def test_oc_on_a_tied_population_covers_with_its_default_and_not_with_the_percentile_interval():
    default = ordframe.get_metric("oc").interval
    assert default == "calibrated"
    # 200 test sets of a double bootstrap with 50 inner replicates (the suite: 500 and 100): SE 0.0154
    loose = (0.95 - 3 * 0.0154 - 0.01, 0.95 + 3 * 0.0154 + 0.01)
    assert loose[0] <= coverage("oc", default, k=5, r=200, b=300, n_inner=50) <= loose[1]
    assert coverage("oc", "percentile", k=8) < LOOSE[0]  # the test tells a method that under-covers


@pytest.mark.parametrize("metric", ["ms", "mmae"])
@pytest.mark.slow
def test_a_worst_class_metric_with_tied_classes_covers_with_its_default_and_not_with_the_percentile_interval(metric):
    """At K = 8 the two middle classes tie for the worst: the intersection interval covers at least its level (it
    is conservative there by construction), the percentile interval of the biased minimum or maximum does not."""
    default = ordframe.get_metric(metric).interval
    assert default == "intersection"
    assert coverage(metric, default, k=8) >= LOOSE[0]
    assert coverage(metric, "percentile", k=8) < LOOSE[0]


def test_a_smooth_metric_covers_with_its_default():
    assert LOOSE[0] <= coverage("mae", ordframe.get_metric("mae").interval) <= LOOSE[1]
