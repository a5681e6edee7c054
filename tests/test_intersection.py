"""The intersection interval of a worst-class metric (MS, MMAE): ``Metric.per_class`` and ``method="intersection"``."""

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ordframe
from ordframe._inference.intervals import intersection_bounds
from ordframe._inference.worst_class import class_replicates
from ordframe._registry import manager as registry

WORST_CLASS = [m for m in registry.metric_names("confusion") if registry.get_metric(m).per_class is not None]
PARAMETERS = {"mmae": [{}, {"missing": "zero"}]}


def test_ms_and_mmae_are_worst_class_metrics_with_the_intersection_interval_by_default():
    assert {"ms", "mmae"} <= set(WORST_CLASS)
    assert all(registry.get_metric(m).interval == "intersection" for m in ("ms", "mmae"))


@settings(max_examples=150, deadline=None)
@given(
    counts=st.integers(2, 6).flatmap(
        lambda k: arrays(np.int64, (3, k, k), elements=st.sampled_from([0, 0, 1, 2, 7, 40]))
    ),
    metric=st.sampled_from(WORST_CLASS),
    choice=st.integers(0, 1),
)
def test_the_metric_is_the_worst_of_its_per_class_values(counts, metric, choice):
    """Also where classes have no samples (left out, or 0 with missing="zero") and on an empty matrix (NaN)."""
    m = registry.get_metric(metric)
    params = PARAMETERS.get(metric, [{}])[choice % len(PARAMETERS.get(metric, [{}]))]
    values = m.per_class(counts.astype(np.float64), **{**m.defaults, **params})
    assert values.shape == counts.shape[:-1]
    cube = xr.DataArray(counts, dims=("g", "true", "pred"))
    got = getattr(cube.ordinal, metric)(**params).values
    for i, row in enumerate(values):
        defined = row[~np.isnan(row)]
        expected = (min if m.higher_is_better else max)(defined) if defined.size else math.nan
        np.testing.assert_allclose(got[i], expected, rtol=1e-12, equal_nan=True)


def by_the_definition(theta, draws, n, alpha, higher_is_better):
    """Chernozhukov, Lee & Rosen's bound for one element, written out class by class from the definition."""
    sign = 1 if higher_is_better else -1
    theta, draws = sign * np.asarray(theta, float), sign * np.asarray(draws, float)  # (K,), (K, B)
    classes = [k for k in range(len(theta)) if not np.isnan(theta[k])]
    s = {k: np.std(draws[k], ddof=1) for k in classes}
    t = {k: (draws[k] - theta[k]) / s[k] if s[k] > 0 else np.zeros(draws.shape[1]) for k in classes}
    kappa = np.quantile([max(-t[k][b] for k in classes) for b in range(draws.shape[1])], 1 - 0.1 / math.log(n))
    floor = min(theta[j] + kappa * s[j] for j in classes)
    worst = [k for k in classes if theta[k] <= floor + 2 * kappa * s[k]]
    c = np.quantile([max(-t[k][b] for k in worst) for b in range(draws.shape[1])], 1 - alpha)
    high = min(theta[k] + c * s[k] for k in classes)
    low = min(np.quantile(draws[k], alpha) for k in classes)
    return (low, high) if higher_is_better else (-high, -low)


@pytest.mark.parametrize("higher_is_better", [True, False])
def test_the_bounds_follow_the_definition(higher_is_better):
    rng = np.random.default_rng(0)
    theta = np.array([[0.5, 0.52, 0.9, np.nan], [0.3, 0.7, 0.71, 0.72]])
    draws = theta[..., None] + rng.normal(0, 0.04, (2, 4, 300)) * rng.uniform(0.5, 2, (2, 4, 1))
    draws[1, 0, :] = 0.3  # a class that never varies: T* is 0
    n = np.array([400.0, 2500.0])
    estimates = xr.DataArray(theta, dims=("m", "true"))
    replicates = xr.DataArray(draws, dims=("m", "true", "bootstrap"))
    metric = ordframe.Metric("worst_cell", "confusion", lambda c: c[..., 0, 0], higher_is_better, (-np.inf, np.inf))
    low, high = intersection_bounds(estimates, replicates, xr.DataArray(n, dims="m"), 0.025, metric)
    for i in range(2):
        expected = by_the_definition(theta[i], draws[i], n[i], 0.025, higher_is_better)
        np.testing.assert_allclose([low[i], high[i]], expected, rtol=1e-12)


CUBE = xr.DataArray(
    [[[30, 6, 1], [5, 22, 6], [0, 4, 26]], [[40, 2, 0], [9, 12, 9], [0, 3, 23]]],
    dims=("model", "true", "pred"),
    coords={"model": ["a", "b"], "true": ["low", "mid", "high"], "pred": ["low", "mid", "high"]},
)


@pytest.mark.parametrize("metric", ["ms", "mmae"])
def test_ci_draws_the_per_class_values_of_as_many_replicates_and_is_reproducible(metric):
    values = getattr(CUBE.ordinal.bootstrap(400, seed=0).ordinal, metric)()
    got = ordframe.ci(values, method="intersection", cube=CUBE, seed=3)
    m = registry.get_metric(metric)
    estimates, draws = class_replicates(CUBE, m, {}, n_resamples=400, seed=3)
    assert draws.sizes["bootstrap"] == 400 and estimates.dims == ("model", "true")
    low, high = intersection_bounds(estimates, draws, CUBE.sum(("true", "pred")), 0.025, m)
    np.testing.assert_allclose(got.values, np.stack([low.values, high.values]), rtol=1e-12)
    assert got.attrs["ci_method"] == "intersection"
    xr.testing.assert_identical(got, ordframe.ci(values, cube=CUBE, seed=3))  # the default of both
    estimate = getattr(CUBE.ordinal, metric)()
    assert ((got.sel(bound="low") <= estimate) & (estimate <= got.sel(bound="high"))).all()
    assert not got.equals(ordframe.ci(values, method="intersection", cube=CUBE, seed=4))


def test_a_perfect_model_gets_its_value_and_an_empty_matrix_nan():
    cube = xr.DataArray(np.stack([np.diag([10, 20, 30]), np.zeros((3, 3), int)]), dims=("m", "true", "pred"))
    for metric, perfect in [("ms", 1.0), ("mmae", 0.0)]:
        values = getattr(cube.ordinal.bootstrap(200, seed=1).ordinal, metric)()
        bounds = ordframe.ci(values, method="intersection", cube=cube, seed=0)
        assert bounds.isel(m=0).values.tolist() == [perfect, perfect]
        assert not np.signbit(bounds.isel(m=0).values).any()  # 0.0, not -0.0
        assert bounds.isel(m=1).isnull().all()


def test_the_bounds_stay_within_the_metrics_range():
    cube = xr.DataArray([[3, 2, 0], [0, 2, 0], [0, 0, 1]], dims=("true", "pred"))  # tiny classes: wide spreads
    values = cube.ordinal.bootstrap(300, seed=0).ordinal.ms()
    bounds = ordframe.ci(values, method="intersection", cube=cube, seed=0, min_valid=0)
    assert 0 <= float(bounds.sel(bound="low")) <= float(bounds.sel(bound="high")) <= 1


def test_the_intersection_interval_refuses_what_it_cannot_use():
    values = CUBE.ordinal.bootstrap(200, seed=0).ordinal.mae()
    with pytest.raises(ValueError, match="worst of per-class values.*'mae' is not one"):
        ordframe.ci(values, method="intersection", cube=CUBE)
    ms = CUBE.ordinal.bootstrap(200, seed=0).ordinal.ms()
    with pytest.raises(ValueError, match="needs cube="):
        ordframe.ci(ms, method="intersection")
    with pytest.raises(ValueError, match="m-out-of-n replicates"):
        ordframe.ci(ordframe.bootstrap_cube(CUBE, 200, seed=0, size=30).ordinal.ms(), method="intersection", cube=CUBE)
    with pytest.raises(ValueError, match="needs the per-class values"):
        ordframe.Metric("worst_cell", "confusion", lambda c: c[..., 0, 0], True, interval="intersection")
    with pytest.raises(TypeError, match="per_class must be callable"):
        ordframe.Metric("worst_cell", "confusion", lambda c: c[..., 0, 0], True, per_class=3)


def frame(seed=0, subjects=60, size=4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, subjects * size)
    noisy = rng.random(subjects * size) < 0.3
    return pd.DataFrame(
        {
            "subject": np.repeat(np.arange(subjects), size),
            "y": y,
            "yhat": np.where(noisy, np.clip(y + rng.choice([-1, 1], y.size), 0, 2), y),
        }
    )


@pytest.mark.filterwarnings("ignore:column 'subject' looks like the ids")  # the rows alone, on purpose
def test_the_frame_gets_the_intersection_interval_of_its_cube_and_basic_with_clusters():
    df = frame()
    got = df.ordinal.ci("y", "yhat", metrics=["ms", "mae"], n_resamples=300, seed=2)
    assert got["ms"].attrs["ci_method"] == "intersection" and got["mae"].attrs["ci_method"] == "percentile"
    cube = df.ordinal.confusion("y", "yhat")
    stream = np.random.default_rng(2).spawn(1)[0]  # the cube's draws: a stream of their own
    m = registry.get_metric("ms")
    low, high = intersection_bounds(*class_replicates(cube, m, {}, n_resamples=300, seed=stream), cube.sum(), 0.025, m)
    np.testing.assert_allclose(got["ms"].values, [float(low), float(high)], rtol=1e-12)
    clustered = df.ordinal.ci("y", "yhat", metrics=["ms"], n_resamples=300, seed=2, cluster="subject")
    assert clustered["ms"].attrs["ci_method"] == "basic"
    with pytest.raises(ValueError, match="sample by sample, not cluster by cluster"):
        df.ordinal.ci("y", "yhat", metrics=["ms"], n_resamples=300, cluster="subject", method="intersection")


def test_every_front_end_and_a_handled_frame_give_the_same_interval():
    """A shuffled, sorted, re-indexed frame with a dropped missing row, and the same rows in polars: one interval."""
    polars = pytest.importorskip("polars")
    df = frame(seed=1)[["y", "yhat"]]
    expected = df.ordinal.ci("y", "yhat", metrics=["ms", "mmae"], n_resamples=300, seed=3)
    handled = pd.concat([df, pd.DataFrame({"y": [np.nan], "yhat": [1.0]})], ignore_index=True)
    handled = handled.sample(frac=1, random_state=2).dropna().astype(int).sort_values("yhat")
    handled.index = handled.index * 7 + 100
    for other in (
        handled.ordinal.ci("y", "yhat", metrics=["ms", "mmae"], n_resamples=300, seed=3),
        polars.from_pandas(df).ordinal.ci("y", "yhat", metrics=["ms", "mmae"], n_resamples=300, seed=3),
    ):
        for metric in ("ms", "mmae"):
            assert other[metric].attrs["ci_method"] == "intersection"
            np.testing.assert_allclose(other[metric].values, expected[metric].values, rtol=1e-12)
