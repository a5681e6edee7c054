"""Classic metrics from the confusion matrix equal their peers on the expanded label vectors."""

import math
import warnings

import numpy as np
import pytest
import scipy.stats
import sklearn.metrics
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ordframe  # noqa: F401
from ordframe._papers import SILVA_2018_TABLES
from ordframe.metrics.classic import kendall_tau_b, qwk, spearman

CLASSIC = ["accuracy", "mer", "mae", "mse", "amae", "mmae", "spearman", "kendall_tau_b", "qwk", "expected_cost"]


@st.composite
def matrices(draw, min_total=1):
    """A K x K count matrix (K = 2..7) with some rows and columns emptied."""
    k = draw(st.integers(2, 7))
    counts = draw(arrays(np.int64, (k, k), elements=st.integers(0, 6)))
    for axis in (0, 1):
        for i in draw(st.sets(st.integers(0, k - 1), max_size=k - 1)):
            np.put_along_axis(counts, np.full((1, k) if axis == 0 else (k, 1), i), 0, axis=axis)
    if counts.sum() < min_total:
        counts[draw(st.integers(0, k - 1)), draw(st.integers(0, k - 1))] = min_total
    return counts


def expand(counts):
    """The label vectors (true, pred) of class indices that ``counts`` summarises."""
    k = counts.shape[0]
    cells = np.repeat(np.arange(k * k), counts.ravel())
    return cells // k, cells % k


def values(counts, names, **params):
    """Metric values through the public cube API (in a one-matrix stack, so NaN comes without a warning)."""
    cube = xr.DataArray(counts[None], dims=("case", "true", "pred"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return {name: getattr(cube.ordinal, name)(**params).item() for name in names}


def same(actual, expected):
    if math.isnan(expected):
        return math.isnan(actual)
    return actual == pytest.approx(expected, rel=1e-9, abs=1e-12)


@settings(max_examples=100, deadline=None)
@given(matrices())
def test_equal_to_scipy_and_sklearn(counts):
    y, p = expand(counts)
    k = counts.shape[0]
    got = values(counts, CLASSIC)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scipy/sklearn warn where the statistic is undefined
        expected = {
            "kendall_tau_b": scipy.stats.kendalltau(y, p, variant="b").statistic,
            "spearman": scipy.stats.spearmanr(y, p).statistic,
            "qwk": sklearn.metrics.cohen_kappa_score(y, p, weights="quadratic", labels=range(k)),
            "mae": sklearn.metrics.mean_absolute_error(y, p),
            "mse": sklearn.metrics.mean_squared_error(y, p),
            "accuracy": sklearn.metrics.accuracy_score(y, p),
            "mer": 1 - sklearn.metrics.accuracy_score(y, p),
            "expected_cost": sklearn.metrics.mean_absolute_error(y, p),
        }
    for name, value in expected.items():
        assert same(got[name], float(value)), (name, got[name], value)


def per_class_mae(counts):
    y, p = expand(counts)
    return {c: float(np.mean(np.abs(p[y == c] - c))) for c in range(counts.shape[0]) if (y == c).any()}


@settings(max_examples=100, deadline=None)
@given(matrices())
def test_amae_mmae_against_a_loop_over_classes(counts):
    k = counts.shape[0]
    errors = per_class_mae(counts)
    skip = values(counts, ["amae", "mmae"])
    zero = values(counts, ["amae", "mmae"], missing="zero")
    assert same(skip["amae"], sum(errors.values()) / len(errors))
    assert same(zero["amae"], sum(errors.values()) / k)
    assert same(skip["mmae"], max(errors.values()))
    assert same(zero["mmae"], max(errors.values()))


@settings(max_examples=50, deadline=None)
@given(matrices(), st.data())
def test_expected_cost_with_a_custom_cost_matrix(counts, data):
    k = counts.shape[0]
    cost = data.draw(arrays(np.float64, (k, k), elements=st.floats(0, 10)))
    y, p = expand(counts)
    assert same(values(counts, ["expected_cost"], cost=cost)["expected_cost"], float(np.mean(cost[y, p])))


@settings(max_examples=50, deadline=None)
@given(st.lists(matrices(min_total=0), min_size=1, max_size=6), st.integers(2, 7))
def test_a_stack_equals_its_matrices_one_by_one(matrices_, k):
    stack = np.zeros((len(matrices_), k, k), np.int64)
    for i, m in enumerate(matrices_):
        size = min(k, m.shape[0])
        stack[i, :size, :size] = m[:size, :size]
    cube = xr.DataArray(stack.reshape(len(matrices_), 1, k, k), dims=("a", "b", "true", "pred"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = cube.ordinal.evaluate(metrics=CLASSIC)
    for i in range(len(matrices_)):
        one = values(stack[i], CLASSIC)
        for name in CLASSIC:
            assert same(ds[name].values[i, 0], one[name]), name


def test_empty_matrix_is_nan_for_every_classic_metric():
    got = values(np.zeros((4, 4), np.int64), CLASSIC)
    assert all(math.isnan(v) for v in got.values()), got
    assert math.isnan(values(np.zeros((4, 4), np.int64), ["amae", "mmae"], missing="zero")["amae"])


@pytest.mark.parametrize("counts", [[[3, 2, 0], [0, 0, 0], [0, 0, 0]], [[0, 4, 0], [0, 3, 0], [0, 1, 0]]])
def test_rank_correlations_are_nan_where_scipy_is(counts):
    counts = np.array(counts)
    y, p = expand(counts)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert math.isnan(scipy.stats.spearmanr(y, p).statistic)
        assert math.isnan(scipy.stats.kendalltau(y, p).statistic)
    got = values(counts, ["spearman", "kendall_tau_b"])
    assert math.isnan(got["spearman"]) and math.isnan(got["kendall_tau_b"])


def test_perfect_and_reversed_predictions():
    eye = np.diag([3, 1, 4, 1])
    got = values(eye, CLASSIC)
    assert got["accuracy"] == 1 and got["mer"] == 0 and got["mae"] == 0 and got["mse"] == 0
    assert got["spearman"] == pytest.approx(1) and got["kendall_tau_b"] == pytest.approx(1)
    assert got["qwk"] == pytest.approx(1)
    reversed_ = values(np.fliplr(eye), ["spearman", "kendall_tau_b"])
    assert reversed_["spearman"] == pytest.approx(-1) and reversed_["kendall_tau_b"] == pytest.approx(-1)


def test_distances_are_index_distances_not_label_values():
    cube = xr.DataArray(
        [[0, 1, 1], [0, 0, 0], [0, 0, 0]], dims=("true", "pred"), coords={"true": [1, 2, 10], "pred": [1, 2, 10]}
    )
    assert cube.ordinal.mae() == pytest.approx(1.5)
    assert cube.ordinal.mse() == pytest.approx(2.5)


# amae / mmae: classes without true samples (Silva, Pinto & Cardoso 2018, Table I, classifier E)

SILVA_2018_E = next(case for case in SILVA_2018_TABLES if case.name == "E")


def test_amae_missing_zero_reproduces_silva_2018_classifier_e():
    cube = xr.DataArray(np.array(SILVA_2018_E.matrix), dims=("true", "pred"))
    published = SILVA_2018_E.values["amae[missing=zero]"]
    assert published == 0.50
    assert cube.ordinal.amae(missing="zero") == pytest.approx(published, abs=0.005)
    assert cube.ordinal.amae() == pytest.approx(2 / 3)  # the unobserved class 3 is skipped
    assert cube.ordinal.mmae() == cube.ordinal.mmae(missing="zero") == pytest.approx(SILVA_2018_E.values["mmae"])


def test_amae_missing_must_be_skip_or_zero():
    cube = xr.DataArray(np.eye(3), dims=("true", "pred"))
    with pytest.raises(ValueError, match=r"missing must be 'skip' or 'zero', got 'drop'"):
        cube.ordinal.amae(missing="drop")


# expected_cost


def test_expected_cost_defaults_to_index_distance_and_accepts_a_cost_matrix():
    counts = np.array([[5, 1, 0], [2, 3, 1], [0, 4, 4]])
    cube = xr.DataArray(counts, dims=("true", "pred"))
    assert cube.ordinal.expected_cost() == pytest.approx(cube.ordinal.mae())
    cost = np.array([[0, 1, 5], [2, 0, 1], [9, 3, 0]])  # asymmetric: rows = true class
    assert cube.ordinal.expected_cost(cost=cost) == pytest.approx((1 * 1 + 2 * 2 + 1 * 1 + 4 * 3) / counts.sum())
    assert cube.ordinal.expected_cost(cost=cost.tolist()) == pytest.approx(cube.ordinal.expected_cost(cost=cost))


@pytest.mark.parametrize("cost", [np.ones((2, 2)), np.ones((3, 4)), np.ones(9)])
def test_expected_cost_rejects_a_cost_matrix_of_the_wrong_shape(cost):
    cube = xr.DataArray(np.eye(3), dims=("true", "pred"))
    with pytest.raises(ValueError, match=rf"expected_cost.*3x3.*{re_shape(cost.shape)}"):
        cube.ordinal.expected_cost(cost=cost)


def re_shape(shape):
    return str(shape).replace("(", r"\(").replace(")", r"\)")


# Scale invariance: weights of any magnitude (products of counts would underflow or overflow)

SCALE_FREE = {"qwk": qwk, "kendall_tau_b": kendall_tau_b, "spearman": spearman}


def two_classes_in_both_margins(counts):
    return (counts.sum(axis=1) > 0).sum() >= 2 and (counts.sum(axis=0) > 0).sum() >= 2


@settings(max_examples=100, deadline=None)
@given(matrices(min_total=2).filter(two_classes_in_both_margins))
def test_scale_free_metrics_do_not_depend_on_the_weight_scale(counts):
    counts = counts.astype(float)
    for name, kernel in SCALE_FREE.items():
        value = kernel(counts)
        assert np.isfinite(value), name
        for scale in (1e-160, 1e160, 1 / 6, 0.1):
            assert kernel(counts * scale) == pytest.approx(value, rel=1e-12, abs=1e-12), (name, scale)
        stack = counts * np.array([1e-160, 1.0, 1e160])[:, None, None]
        np.testing.assert_allclose(kernel(stack), value, rtol=1e-12, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("scale", [1.0, 1 / 6, 1e-160, 1e160])
@pytest.mark.parametrize(
    ("counts", "undefined"),
    [
        ([[0, 0, 0], [0, 0, 0], [0, 0, 0]], ["qwk", "kendall_tau_b", "spearman"]),  # empty
        ([[0, 0, 0], [0, 4, 0], [0, 0, 0]], ["qwk", "kendall_tau_b", "spearman"]),  # one class in both margins
        ([[3, 2, 0], [0, 0, 0], [0, 0, 0]], ["kendall_tau_b", "spearman"]),  # a constant true class
        ([[0, 4, 0], [0, 3, 0], [0, 1, 0]], ["kendall_tau_b", "spearman"]),  # a constant prediction
    ],
)
def test_degenerate_cubes_stay_nan_at_every_scale(counts, undefined, scale):
    counts = np.array(counts, dtype=float) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NaN by rule, not from 0/0 or an overflow
        got = {name: kernel(counts) for name, kernel in SCALE_FREE.items()}
    for name, value in got.items():
        assert np.isnan(value) if name in undefined else np.isfinite(value), (name, value)
