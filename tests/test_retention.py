"""Retained-samples curves and AURSC (Galdran 2023, Sec. 2.4) against a direct loop over fractions."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe
from ordframe._diagnostics.retention import DEFAULT_FRACTIONS, retention_counts
from ordframe.metrics.classic import expected_cost, mae, qwk
from ordframe.metrics.proba import brier, log_score, rps, sarps

SCORES = {"rps": rps, "sarps": sarps, "brier": brier, "log_score": log_score}
CONFUSION = {"qwk": qwk, "expected_cost": expected_cost, "mae": mae}


def predictions(seed, n=150, k=4, models=2):
    """Softmax outputs that lean towards the true class, with a few far-off mistakes."""
    rng = np.random.default_rng(seed)
    true = rng.integers(0, k, n)
    logits = rng.normal(size=(models, n, k)) + 1.5 * np.eye(k)[true]
    proba = np.exp(logits)
    return proba / proba.sum(axis=-1, keepdims=True), true


def direct_curve(proba, true, score, metric, fractions, weights=None):
    """The definition: sort best first (ties in input order), keep the best round(r n), recompute the metric."""
    k = proba.shape[-1]
    order = np.argsort(SCORES[score](proba, true), kind="stable")
    w = np.ones(len(true)) if weights is None else weights
    values = []
    for r in fractions:
        keep = order[: int(np.floor(r * len(true) + 0.5))]
        counts = np.zeros((k, k))
        np.add.at(counts, (true[keep], proba[keep].argmax(axis=1)), w[keep])
        with np.errstate(all="ignore"):
            values.append(CONFUSION[metric](counts))
    return np.array(values)


def as_arrays(proba, true):
    p = xr.DataArray(
        proba,
        dims=("model", "sample", "class"),
        coords={"model": [f"m{i}" for i in range(len(proba))], "class": list(range(proba.shape[-1]))},
    )
    return p, xr.DataArray(true, dims="sample")


@pytest.mark.parametrize("score", SCORES)
@pytest.mark.parametrize("metric", CONFUSION)
def test_array_curves_match_the_definition(score, metric):
    proba, true = predictions(0)
    p, t = as_arrays(proba, true)
    fractions = [1.0, 0.97, 0.9, 0.75, 0.6, 0.5, 0.31]
    result = p.ordinal.aursc(t, score=score, metric=metric, fractions=fractions, dim="sample")
    assert result["curve"].dims == ("model", "retained")
    assert list(result["retained"].values) == fractions  # descending: the dropped share grows along the dim
    for m in range(len(proba)):
        np.testing.assert_allclose(
            result["curve"][m].values, direct_curve(proba[m], true, score, metric, fractions), atol=1e-12
        )
    np.testing.assert_array_equal(result["n_retained"][0].values, np.floor(np.array(fractions) * 150 + 0.5))
    assert result.attrs == {"metric": metric, "score": score}


@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 40),
    k=st.integers(2, 5),
    fractions=st.lists(st.floats(0.01, 1.0), min_size=2, max_size=6, unique=True),
)
@settings(max_examples=60, deadline=None)
def test_random_curves_match_the_definition(seed, n, k, fractions):
    proba, true = predictions(seed, n=n, k=k, models=1)
    rng = np.random.default_rng(seed)
    w = rng.random(n)
    p, t = as_arrays(proba, true)
    result = p.ordinal.aursc(
        t,
        score="sarps",
        metric="expected_cost",
        fractions=fractions,
        dim="sample",
        weights=xr.DataArray(w, dims="sample"),
    )
    expected = direct_curve(proba[0], true, "sarps", "expected_cost", sorted(fractions, reverse=True), w)
    np.testing.assert_allclose(result["curve"][0].values, expected, atol=1e-12)


def test_area_normalisation():
    proba, true = predictions(1, n=200, models=1)
    p, t = as_arrays(proba, true)
    fractions = [1.0, 0.8, 0.7, 0.5]
    result = p.ordinal.aursc(t, fractions=fractions)
    curve = result["curve"].values
    r = np.array(fractions)
    trapezoids = (curve[:-1] + curve[1:]) / 2 * (r[:-1] - r[1:])
    assert float(result["aursc"]) == pytest.approx(trapezoids.sum() / (1.0 - 0.5))
    assert result["aursc"].dims == ()  # dim=None: every sample dim, one curve over both models


def test_area_of_a_constant_curve_is_the_constant():
    # all predictions right: qwk is 1 at every fraction, so the normalised area is 1
    true = np.arange(40) % 4
    proba = np.eye(4)[true][None] * 0.7 + 0.075
    p, t = as_arrays(proba, true)
    result = p.ordinal.aursc(t, fractions=[1.0, 0.75, 0.5])
    np.testing.assert_allclose(result["curve"].values, 1.0)
    assert float(result["aursc"]) == pytest.approx(1.0)


def test_nan_on_a_curve_makes_the_area_nan():
    true = np.array([0, 0, 0, 1])
    proba = np.array([[[0.9, 0.1], [0.8, 0.2], [0.7, 0.3], [0.2, 0.8]]])
    p, t = as_arrays(proba, true)
    result = p.ordinal.aursc(t, score="log_score", fractions=[1.0, 0.5])
    assert np.isnan(result["curve"].values[-1])  # two samples of class 0 left: qwk undefined
    assert np.isnan(float(result["aursc"]))


def test_several_scores_stack_along_a_score_dim():
    proba, true = predictions(2)
    p, t = as_arrays(proba, true)
    result = p.ordinal.aursc(t, score=["brier", "log_score", "rps", "sarps"], dim="sample", fractions=DEFAULT_FRACTIONS)
    assert result["curve"].dims == ("score", "model", "retained")
    assert list(result["score"].values) == ["brier", "log_score", "rps", "sarps"]
    assert (
        result["retained"].size == 51 and float(result["retained"][0]) == 1.0 and float(result["retained"][-1]) == 0.5
    )
    for score in ("rps", "brier"):
        single = p.ordinal.aursc(t, score=score, dim="sample")
        xr.testing.assert_allclose(result["aursc"].sel(score=score, drop=True), single["aursc"])


def test_frame_by_groups_matches_per_group_curves():
    proba, true = predictions(3, n=300, models=1)
    rng = np.random.default_rng(3)
    df = pd.DataFrame(proba[0], columns=list("abcd")).assign(
        y=true, fold=rng.integers(0, 3, 300), model=rng.choice(["x", "y"], 300)
    )
    fractions = [1.0, 0.9, 0.5]
    result = df.ordinal.aursc("y", list("abcd"), metric="mae", fractions=fractions, by=["model", "fold"])
    assert result["curve"].dims == ("model", "fold", "retained")
    for (model, fold), rows in df.groupby(["model", "fold"]):
        expected = direct_curve(proba[0][rows.index], true[rows.index], "rps", "mae", fractions)
        np.testing.assert_allclose(result["curve"].sel(model=model, fold=fold).values, expected, atol=1e-12)
    single = df.ordinal.aursc("y", list("abcd"), score="brier", fractions=fractions, by="fold")
    assert single["curve"].dims == ("fold", "retained")
    whole = df.ordinal.aursc("y", list("abcd"), fractions=fractions)
    np.testing.assert_allclose(whole["curve"].values, direct_curve(proba[0], true, "rps", "qwk", fractions), atol=1e-12)


def test_given_predictions_and_metric_parameters():
    proba, true = predictions(4, models=1)
    df = pd.DataFrame(proba[0], columns=list("abcd")).assign(y=true, yhat=0)
    cost = np.ones((4, 4)) - np.eye(4)
    result = df.ordinal.aursc(
        "y", list("abcd"), pred="yhat", metric=("expected_cost", {"cost": cost}), fractions=[1.0, 0.5]
    )
    order = np.argsort(rps(proba[0], true), kind="stable")
    assert float(result["curve"][0]) == pytest.approx((true != 0).mean())
    assert float(result["curve"][1]) == pytest.approx((true[order[:75]] != 0).mean())


def test_a_higher_is_better_score_drops_its_lowest_samples(restore_registry):
    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [ordframe.Metric("neg_rps", "proba", lambda proba, true: -rps(proba, true), True)]

    ordframe.register(Plugin())
    proba, true = predictions(5)
    p, t = as_arrays(proba, true)
    ours = p.ordinal.aursc(t, score="neg_rps", dim="sample", fractions=[1, 0.8, 0.6])
    reference = p.ordinal.aursc(t, score="rps", dim="sample", fractions=[1, 0.8, 0.6])
    xr.testing.assert_allclose(ours["curve"], reference["curve"])


def test_dask_is_lazy_and_agrees():
    proba, true = predictions(6, n=400)
    p, t = as_arrays(proba, true)
    lazy = p.chunk(sample=100).ordinal.aursc(t.chunk(sample=100), dim="sample", fractions=[1, 0.9, 0.7])
    assert lazy["curve"].chunks is not None
    xr.testing.assert_allclose(lazy.compute(), p.ordinal.aursc(t, dim="sample", fractions=[1, 0.9, 0.7]))


def test_several_sample_dims_and_dropped_samples():
    proba, true = predictions(7, n=60, models=1)
    p = xr.DataArray(proba[0].reshape(3, 20, 4), dims=("fold", "sample", "class"), coords={"class": [0, 1, 2, 3]})
    t = xr.DataArray(true.reshape(3, 20), dims=("fold", "sample"))
    both = p.ordinal.aursc(t, dim=["fold", "sample"], fractions=[1, 0.5])
    np.testing.assert_allclose(both["curve"].values, direct_curve(proba[0], true, "rps", "qwk", [1, 0.5]), atol=1e-12)
    padded = t.astype(float).where(t.sample < 15)  # folds padded to a common length
    with pytest.warns(ordframe.DroppedRowsWarning):
        dropped = p.ordinal.aursc(padded, dim=["fold", "sample"], fractions=[1, 0.5], dropna=True)
    keep = (np.arange(60) % 20) < 15
    np.testing.assert_allclose(
        dropped["curve"].values, direct_curve(proba[0][keep], true[keep], "rps", "qwk", [1, 0.5]), atol=1e-12
    )
    assert list(dropped["n_retained"].values) == [45, 23]


def test_retention_counts_is_a_prefix_count():
    # group 0: keys 3, 1, 2 (best first: positions 1, 2, 0); group 1: one sample
    counts = retention_counts(
        np.array([3.0, 1.0, 2.0, 5.0]),
        np.array([0, 0, 0, 1]),
        np.array([0, 1, 2, 3]),
        n_groups=2,
        retained=np.array([0.34, 0.67, 1.0]),
        n_cells=4,
    )
    np.testing.assert_array_equal(counts[0], [[0, 1, 0, 0], [0, 1, 1, 0], [1, 1, 1, 0]])
    np.testing.assert_array_equal(counts[1], [[0, 0, 0, 0], [0, 0, 0, 1], [0, 0, 0, 1]])


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"fractions": [1.0]}, ValueError, "at least two retained fractions in"),
        ({"fractions": [1.0, 0.0]}, ValueError, r"in \(0, 1\]"),
        ({"fractions": [1.0, 1.2]}, ValueError, r"in \(0, 1\]"),
        ({"fractions": [1.0, 0.5, 0.5]}, ValueError, "must be distinct"),
        ({"score": "qwk"}, ValueError, "score= must name 'proba' metrics; 'qwk' is a 'confusion' metric"),
        ({"metric": "rps"}, ValueError, "metric= must name 'confusion' metrics; 'rps' is a 'proba' metric"),
        ({"metric": ["qwk", "mae"]}, ValueError, "metric must name one confusion metric"),
        ({"dim": "fold"}, ValueError, "dim must name one or more sample dims"),
        ({"dim": ["sample", "sample"]}, ValueError, r"dim= names 'sample' more than once"),
        ({"score": "rsp"}, KeyError, "did you mean 'rps'"),
    ],
)
def test_argument_errors(kwargs, error, message):
    proba, true = predictions(8, n=20)
    p, t = as_arrays(proba, true)
    with pytest.raises(error, match=message):
        p.ordinal.aursc(t, **kwargs)


def test_a_score_with_a_target_value_drops_the_samples_farthest_from_it(restore_registry):
    """A per-sample score best at 2 (``rps + 2``, or ``2 - rps``: each as far from 2 as the RPS is from 0) orders the
    samples as the RPS does; a set-level metric best at 0 has the area of its distance from 0, not of its signed
    values, which would cancel."""

    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [
                ordframe.Metric("rps_above", "proba", lambda proba, true: rps(proba, true) + 2, bounds=(0, 4), best=2),
                ordframe.Metric("rps_below", "proba", lambda proba, true: 2 - rps(proba, true), bounds=(0, 4), best=2),
            ]

    ordframe.register(Plugin())
    proba, true = predictions(3)
    p, t = as_arrays(proba, true)
    reference = p.ordinal.aursc(t, score="rps", dim="sample", fractions=[1, 0.8, 0.6])
    for score in ("rps_above", "rps_below"):
        ours = p.ordinal.aursc(t, score=score, dim="sample", fractions=[1, 0.8, 0.6])
        xr.testing.assert_allclose(ours["curve"], reference["curve"])
    fractions = [1.0, 0.75, 0.5]
    result = p.ordinal.aursc(t, metric="mean_signed_error", dim="sample", fractions=fractions)
    curve, r = np.abs(result["curve"].values), np.array(fractions)
    area = ((curve[..., :-1] + curve[..., 1:]) / 2 * (r[:-1] - r[1:])).sum(axis=-1) / 0.5
    np.testing.assert_allclose(result["aursc"].values, area, rtol=1e-12)
    assert (result["curve"].values < 0).any()  # signed values, which the area's |.| does not let cancel
