"""The metrics of ``ordframe.metrics.classic`` equal their peers on the expanded label vectors, their definitions
computed by hand, and their published values; and they have their properties."""

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

import ordframe
from ordframe._papers import SILVA_2018_TABLES
from ordframe.metrics.classic import (
    accuracy,
    amae,
    amse,
    cem_ord,
    gerrity,
    kappa,
    kendall_tau_b,
    mae,
    mean_signed_error,
    mse,
    qwk,
    somers_d,
    spearman,
    within_k,
)

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


def close(a, b, rel=1e-9):
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
    assert close(quiet(kappa, counts.astype(float), weighting=weighting), expected)


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
    assert close(quiet(kappa, counts.astype(float), weighting=weights), expected, rel=1e-7)


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


# within_k


@settings(max_examples=60, deadline=None)
@given(matrices(), st.integers(0, 7))
def test_within_k_is_the_share_of_samples_at_most_k_classes_away(counts, k):
    true, pred = expand(counts)
    assert within_k(counts.astype(float), k=k) == pytest.approx(np.mean(np.abs(true - pred) <= k), rel=1e-12)


def test_within_k_properties():
    cube = cubes(5)
    values = [quiet(within_k, cube, k=k) for k in range(6)]
    np.testing.assert_array_equal(values[0], quiet(accuracy, cube))
    assert np.isnan(values[0][0, 0]) and (values[1][0, 1] == 1.0)
    finite = ~np.isnan(values[0])
    assert all((a[finite] <= b[finite]).all() for a, b in zip(values, values[1:]))  # grows with k
    assert (values[4][finite] == 1).all() and (values[5][finite] == 1).all()  # every error is at most K - 1 away
    np.testing.assert_array_equal(quiet(within_k, np.swapaxes(cube, -1, -2), k=2), values[2])  # symmetric in the roles
    stack_equals_each(within_k, cube[1:], k=1)
    for bad in (-1, 1.5, True, "1"):
        with pytest.raises(ValueError, match=rf"within_k: k must be an integer >= 0.*got {bad!r}"):
            within_k(cube, k=bad)


def test_within_k_is_registered():
    metric = ordframe.get_metric("within_k")
    assert metric.higher_is_better and metric.bounds == (0.0, 1.0) and dict(metric.defaults) == {"k": 1}
    assert ordframe.within_k([0, 1, 2, 3], [1, 1, 0, 0], k=1) == 0.5


# mean_signed_error


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_mean_signed_error_is_the_mean_of_predicted_minus_true_class(counts):
    true, pred = expand(counts)
    assert mean_signed_error(counts.astype(float)) == pytest.approx(np.mean(pred - true), rel=1e-12, abs=1e-12)


def test_mean_signed_error_properties():
    cube = cubes(5)
    values = quiet(mean_signed_error, cube)
    assert np.isnan(values[0, 0]) and values[0, 1] == 0.0  # empty; perfect
    finite = ~np.isnan(values)
    assert (np.abs(values[finite]) <= quiet(mae, cube)[finite] + 1e-12).all()
    np.testing.assert_allclose(quiet(mean_signed_error, np.swapaxes(cube, -1, -2))[finite], -values[finite])
    stack_equals_each(mean_signed_error, cube[1:])
    one_side = np.triu(np.ones((4, 4)))  # every mistake predicts too high: the bias is the MAE
    assert mean_signed_error(one_side) == pytest.approx(mae(one_side), rel=1e-12) and mean_signed_error(one_side) > 0


def test_mean_signed_error_is_registered_with_its_best_value():
    metric = ordframe.get_metric("mean_signed_error")
    assert (metric.best, metric.higher_is_better, metric.direction) == (0.0, None, "best at 0")
    assert ordframe.mean_signed_error(["a", "b", "c", "c"], ["b", "b", "c", "a"], labels=["a", "b", "c"]) == -0.25
    cube = xr.DataArray([[1, 2], [0, 1]], dims=("true", "pred"))
    assert cube.ordinal.mean_signed_error() == 0.5
    attrs = cube.ordinal.evaluate(metrics=["mean_signed_error"])["mean_signed_error"].attrs
    assert attrs["best"] == 0.0 and attrs["direction"] == "best at 0" and "higher_is_better" not in attrs


# amse


def per_class_loop(counts, power):
    """The per-class mean error |r - c| ** power over each true class with samples, by a loop over the samples."""
    true, pred = expand(counts)
    return [np.mean(np.abs(true[true == r] - pred[true == r]) ** power) for r in np.unique(true)]


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_amse_averages_the_mse_of_the_true_classes_that_occur(counts):
    # imbalanced-learn's macro_averaged_mean_absolute_error convention: the classes in np.unique(y_true)
    assert amse(counts.astype(float)) == pytest.approx(np.mean(per_class_loop(counts, 2)), rel=1e-12)
    assert amae(counts.astype(float)) == pytest.approx(np.mean(per_class_loop(counts, 1)), rel=1e-12)
    k = len(counts)
    assert amse(counts.astype(float), missing="zero") == pytest.approx(sum(per_class_loop(counts, 2)) / k, rel=1e-12)


def test_amse_properties():
    cube = cubes(4)
    values = quiet(amse, cube)
    assert np.isnan(values[0, 0]) and values[0, 1] == 0 and values[0, 2] == 0
    finite = ~np.isnan(values)
    assert (values[finite] >= quiet(amae, cube)[finite] ** 2 - 1e-12).all()  # Jensen, class by class
    # on a balanced cube (equal true class sizes) it is the MSE
    balanced = cube[1:] / cube[1:].sum(axis=-1, keepdims=True)
    np.testing.assert_allclose(amse(balanced), mse(balanced), rtol=1e-12)
    np.testing.assert_allclose(quiet(amse, cube[..., ::-1, ::-1]), values)  # reversing the class order
    stack_equals_each(amse, cube[1:])
    stack_equals_each(amse, cube[1:], missing="zero")
    with pytest.raises(ValueError, match="missing must be 'skip' or 'zero', got 'drop'"):
        amse(cube, missing="drop")


def test_amse_is_registered_and_warns_why_it_is_nan():
    metric = ordframe.get_metric("amse")
    assert not metric.higher_is_better and dict(metric.defaults) == {"missing": "skip"}
    with pytest.warns(RuntimeWarning, match="amse is undefined for this input and is NaN: there are no samples"):
        assert np.isnan(xr.DataArray(np.zeros((3, 3)), dims=("true", "pred")).ordinal.amse())


# somers_d


@settings(max_examples=80, deadline=None)
@given(matrices(min_total=2))
def test_somers_d_equals_scipy_on_the_expanded_samples(counts):
    true, pred = expand(counts)
    value = quiet(somers_d, counts.astype(float))
    if len(np.unique(true)) < 2:
        assert np.isnan(value)
    elif len(np.unique(pred)) < 2:
        # scipy returns NaN for a table with one column; the formula gives 0 (no pair is concordant or discordant)
        assert value == 0
    else:
        assert value == pytest.approx(scipy.stats.somersd(true, pred).statistic, rel=1e-9, abs=1e-12)


def test_somers_d_properties():
    cube = cubes(5)
    values = quiet(somers_d, cube)
    assert np.isnan(values[0, 0]) and np.isnan(values[0, 2]) and values[0, 1] == pytest.approx(1.0)
    finite = ~np.isnan(values)
    assert (np.abs(values[finite]) <= 1 + 1e-12).all()
    np.testing.assert_allclose(quiet(somers_d, cube[..., ::-1, ::-1]), values, atol=1e-14)  # reversing both orders
    np.testing.assert_allclose(quiet(somers_d, cube[..., ::-1]), -values, atol=1e-14)  # reversing the predictions
    # tau_b is the geometric mean of the two directions: tau_b^2 = D(pred | true) D(true | pred)
    both = quiet(somers_d, np.swapaxes(cube, -1, -2)) * values
    np.testing.assert_allclose(quiet(kendall_tau_b, cube)[finite] ** 2, both[finite], atol=1e-14)
    stack_equals_each(somers_d, cube[1:])


def test_somers_d_is_registered_and_warns_why_it_is_nan():
    metric = ordframe.get_metric("somers_d")
    assert metric.higher_is_better and metric.bounds == (-1.0, 1.0)
    with pytest.warns(RuntimeWarning, match="every sample has the same true class"):
        assert np.isnan(xr.DataArray([[0, 0], [3, 4]], dims=("true", "pred")).ordinal.somers_d())
    # a constant prediction is defined (0): the pairs tied on the prediction count in the denominator
    assert xr.DataArray([[0, 3], [0, 4]], dims=("true", "pred")).ordinal.somers_d() == 0


# gerrity


@settings(max_examples=30, deadline=None)
@given(matrices(min_total=2))
def test_gerrity_equals_xskillscore_with_the_truth_as_observations(counts):
    xskillscore = pytest.importorskip("xskillscore")
    true, pred = expand(counts)
    value = quiet(gerrity, counts.astype(float))
    if counts[0].sum() == 0 or counts[-1].sum() == 0:
        assert np.isnan(value)  # some a_i is 0 or infinite; xskillscore's NaN-skipping sum then gives a number
        return
    edges = np.arange(len(counts) + 1) - 0.5  # category i holds the label i
    table = xskillscore.Contingency(
        xr.DataArray(true, dims="sample"), xr.DataArray(pred, dims="sample"), edges, edges, dim="sample"
    )
    assert value == pytest.approx(float(table.gerrity_score()), rel=1e-9, abs=1e-12)


def gerrity_by_the_paper(counts):
    """Gerrity (1992) by loops: the scoring matrix s_ij from the observed (true) class shares, then sum p_ij s_ij."""
    k = len(counts)
    shares = counts.sum(axis=1) / counts.sum()
    a = [(1 - shares[: i + 1].sum()) / shares[: i + 1].sum() for i in range(k - 1)]
    s = np.empty((k, k))
    for i in range(k):
        for j in range(i, k):
            s[i, j] = s[j, i] = (sum(1 / a[r] for r in range(i)) - (j - i) + sum(a[r] for r in range(j, k - 1))) / (
                k - 1
            )
    return (counts / counts.sum() * s).sum()


def test_gerrity_properties():
    cube = cubes(5)
    cube[1:, :, 0, 0] += 1  # the first and the last true class have samples
    cube[1:, :, -1, -1] += 1
    values = quiet(gerrity, cube)
    assert np.isnan(values[0, 0]) and np.isnan(values[0, 2]) and values[0, 1] == pytest.approx(1.0)
    for counts, value in zip(cube[1:].reshape(-1, 5, 5), values[1:].ravel()):
        assert value == pytest.approx(gerrity_by_the_paper(counts), rel=1e-12)
    np.testing.assert_allclose(values[1:], quiet(gerrity, cube[1:, :, ::-1, ::-1]), rtol=1e-12)  # reversed order
    # equitable: a constant prediction, and a prediction independent of the truth, score 0
    rows = cube[1:].sum(axis=-1)
    for c in range(5):
        constant = np.zeros_like(cube[1:])
        constant[..., c] = rows
        np.testing.assert_allclose(gerrity(constant), 0, atol=1e-12)
    independent = rows[..., :, None] * np.array([1.0, 2, 0, 3, 1])
    np.testing.assert_allclose(gerrity(independent), 0, atol=1e-12)
    # two classes: the Peirce skill score, hit rate - false alarm rate
    two = np.random.default_rng(2).integers(1, 9, (20, 2, 2)).astype(float)
    peirce = two[:, 1, 1] / two[:, 1].sum(-1) - two[:, 0, 1] / two[:, 0].sum(-1)
    np.testing.assert_allclose(gerrity(two), peirce, rtol=1e-12)
    stack_equals_each(gerrity, cube)
    assert np.isnan(quiet(gerrity, np.ones((4, 1, 1)))).all()


def test_gerrity_is_registered_and_warns_why_it_is_nan():
    metric = ordframe.get_metric("gerrity")
    assert metric.higher_is_better and metric.bounds == (-np.inf, 1.0)
    with pytest.warns(RuntimeWarning, match="the first or the last true class has no samples"):
        assert np.isnan(xr.DataArray([[3, 1, 0], [1, 2, 1], [0, 0, 0]], dims=("true", "pred")).ordinal.gerrity())


# cem_ord


def cem_by_the_items(counts):
    """CEM-ORD by its definition (Amigó et al. 2020, eqs. 1-2), item by item.

    prox(a, b) = -log2((n_a / 2 + sum_{k between a and b, b included, a excluded} n_k) / N) with n_k the number of
    items whose true class is k; CEM = sum_d prox(pred(d), true(d)) / sum_d prox(true(d), true(d)).
    """
    true, pred = expand(counts)
    sizes = np.bincount(true, minlength=len(counts))

    def prox(a, b):
        between = range(a + 1, b + 1) if a < b else range(b, a)
        return -np.log2((sizes[a] / 2 + sum(sizes[k] for k in between)) / len(true))

    return sum(prox(p, t) for p, t in zip(pred, true)) / sum(prox(t, t) for t in true)


@settings(max_examples=60, deadline=None)
@given(matrices())
def test_cem_ord_equals_its_definition_item_by_item(counts):
    assert cem_ord(counts.astype(float)) == pytest.approx(cem_by_the_items(counts), rel=1e-9, abs=1e-12)


def test_cem_ord_properties():
    cube = cubes(5)
    values = quiet(cem_ord, cube)
    assert np.isnan(values[0, 0]) and values[0, 1] == pytest.approx(1.0) and values[0, 2] == pytest.approx(1.0)
    finite = ~np.isnan(values)
    assert ((values[finite] >= 0) & (values[finite] <= 1)).all()
    np.testing.assert_allclose(quiet(cem_ord, cube[..., ::-1, ::-1]), values, rtol=1e-12)  # reversed order
    np.testing.assert_allclose(quiet(cem_ord, cube * 1e-150), values, rtol=1e-12)  # any scale of the counts
    # a prediction one class farther from the truth scores lower (ordinal monotonicity)
    perfect = np.diag([5.0, 3.0, 6.0, 2.0])
    near, far = perfect.copy(), perfect.copy()
    near[0, 0] = far[0, 0] = 3.0
    near[0, 1] = far[0, 2] = 2.0
    assert cem_ord(perfect) == pytest.approx(1.0)
    assert 1 - 1e-12 > cem_ord(near) > cem_ord(far)
    stack_equals_each(cem_ord, cube[1:])


def test_cem_ord_is_registered():
    metric = ordframe.get_metric("cem_ord")
    assert metric.higher_is_better and metric.bounds == (0.0, 1.0)
    with pytest.warns(RuntimeWarning, match="cem_ord is undefined"):
        assert np.isnan(xr.DataArray(np.zeros((3, 3)), dims=("true", "pred")).ordinal.cem_ord())
