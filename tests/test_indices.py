"""The indices people compute by hand (issue 15, item 4) equal their reference implementations."""

import warnings

import numpy as np
import pytest
import sklearn.metrics
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from test_classic import expand, matrices

import ordframe
from ordframe.metrics.classic import kappa, qwk


def same(a, b, rel=1e-9):
    return np.isnan(a) and np.isnan(b) or a == pytest.approx(b, rel=rel, abs=1e-12)


def quiet(func, *args, **kwargs):
    """The reference libraries warn where a statistic is undefined; the comparison covers those cases too."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def stack_equals_each(kernel, cubes, **params):
    stacked = kernel(cubes, **params)
    assert stacked.shape == cubes.shape[:-2]
    each = np.array([kernel(c, **params) for c in cubes.reshape(-1, *cubes.shape[-2:])]).reshape(cubes.shape[:-2])
    np.testing.assert_array_equal(np.isnan(stacked), np.isnan(each))
    np.testing.assert_allclose(stacked[~np.isnan(each)], each[~np.isnan(each)], rtol=1e-12)


def cubes(k, shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    cube = rng.integers(0, 5, (*shape, k, k)).astype(float)
    cube[0, 0] = 0  # empty
    cube[0, 1] = np.diag(rng.integers(1, 5, k))  # perfect
    cube[0, 2] = 0
    cube[0, 2, 1, 1] = 7  # a single class in both margins
    return cube


# kappa


@settings(max_examples=80, deadline=None)
@given(matrices(min_total=2), st.sampled_from([None, "linear", "quadratic"]))
def test_kappa_equals_scikit_learn(counts, weighting):
    true, pred = expand(counts)
    expected = quiet(sklearn.metrics.cohen_kappa_score, true, pred, weights=weighting, labels=range(len(counts)))
    assert same(quiet(kappa, counts.astype(float), weighting=weighting), expected)


@settings(max_examples=60, deadline=None)
@given(matrices(), st.data())
def test_kappa_with_a_weight_matrix_equals_cohen_s_formula(counts, data):
    k = len(counts)
    weights = data.draw(arrays(np.float64, (k, k), elements=st.floats(0, 10)))
    np.fill_diagonal(weights, 0)
    # Cohen (1968): kappa_w = 1 - sum w_rc p_o,rc / sum w_rc p_c,rc with the chance proportions p_c = N_r M_c / N^2
    n = counts.sum()
    observed = sum(weights[r, c] * counts[r, c] / n for r in range(k) for c in range(k))
    chance = sum(weights[r, c] * counts[r].sum() * counts[:, c].sum() / n**2 for r in range(k) for c in range(k))
    expected = 1 - observed / chance if chance > 0 else np.nan
    assert same(quiet(kappa, counts.astype(float), weighting=weights), expected, rel=1e-7)


def test_kappa_s_weightings_are_qwk_and_agreement_weights_give_the_same_value():
    rng = np.random.default_rng(1)
    cube = rng.integers(0, 9, (50, 5, 5)).astype(float)
    np.testing.assert_allclose(kappa(cube, weighting="quadratic"), qwk(cube), rtol=1e-14)
    np.testing.assert_allclose(kappa(cube, weighting=np.subtract.outer(range(5), range(5)) ** 2.0), qwk(cube))
    # a constant factor on the weights does not change kappa
    np.testing.assert_allclose(kappa(cube, weighting=3 * np.abs(np.subtract.outer(range(5), range(5)))), kappa(cube))


def test_kappa_properties():
    for k in (2, 3, 6):
        cube = cubes(k)
        for weighting in (None, "linear", "quadratic"):
            values = quiet(kappa, cube, weighting=weighting)
            assert np.isnan(values[0, 0]) and np.isnan(values[0, 2])  # empty; a single class in both margins
            assert values[0, 1] == pytest.approx(1.0)
            assert (values[~np.isnan(values)] <= 1 + 1e-12).all()
            # swapping true and predicted (transposing) does not change a symmetric weighting
            np.testing.assert_allclose(quiet(kappa, np.swapaxes(cube, -1, -2), weighting=weighting), values, atol=1e-14)
            # neither does reversing the class order
            np.testing.assert_allclose(quiet(kappa, cube[..., ::-1, ::-1], weighting=weighting), values, atol=1e-14)
            stack_equals_each(kappa, cube[1:], weighting=weighting)
    # full reversal of two equal classes: -1
    assert kappa(np.array([[0.0, 5.0], [5.0, 0.0]])) == pytest.approx(-1.0)


def test_kappa_rejects_a_bad_weighting_by_name():
    cube = np.ones((3, 3))
    with pytest.raises(ValueError, match="weighting must be 'linear', 'quadratic', None or a 3x3 matrix, got 'cubic'"):
        kappa(cube, weighting="cubic")
    with pytest.raises(ValueError, match="weighting must be a 3x3 matrix"):
        kappa(cube, weighting=np.ones((2, 2)))
    with pytest.raises(ValueError, match=r"zero diagonal.*pass 1 - a"):
        kappa(cube, weighting=np.ones((3, 3)))
    with pytest.raises(ValueError, match="weighting must hold finite numbers >= 0"):
        kappa(cube, weighting=-np.ones((3, 3)) + np.eye(3))


def test_kappa_is_registered_and_warns_why_it_is_nan():
    metric = ordframe.get_metric("kappa")
    assert (
        metric.higher_is_better and metric.bounds == (-np.inf, 1.0) and dict(metric.defaults) == {"weighting": "linear"}
    )
    cube = xr.DataArray([[4, 0], [0, 0]], dims=("true", "pred"))
    with pytest.warns(RuntimeWarning, match="chance-expected disagreement is zero"):
        assert np.isnan(cube.ordinal.kappa())
    true, pred = [0, 1, 2, 2, 1, 0, 2], [0, 2, 2, 1, 1, 0, 0]
    assert ordframe.kappa(true, pred) == pytest.approx(sklearn.metrics.cohen_kappa_score(true, pred, weights="linear"))
