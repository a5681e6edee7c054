"""George, Lu & Chang's (2016) d family: cost matrix, max TC against an LP solve, properties, cubes."""

import math

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy.optimize import linprog

import ordframe
from ordframe._papers import GEORGE_2016_COST_EXAMPLE, GEORGE_2016_TABLES
from ordframe.metrics.classic import accuracy, amae
from ordframe.metrics.cost import _terms, _terms_numpy, chance_distance, d, george_cost, max_tc, mc, tc

FAST = settings(max_examples=100, deadline=None)
# Kernels called directly (not through the accessors) let numpy report 0/0 for undefined matrices.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")


@st.composite
def count_matrices(draw, every_class=True):
    """K = 2..7 count matrices with tiny to huge counts; with ``every_class`` each true class has samples
    (the default cost needs it), otherwise some rows are empty."""
    k = draw(st.integers(2, 7))
    max_count = draw(st.sampled_from([1, 20, 10**9]))
    counts = draw(arrays(np.int64, (k, k), elements=st.integers(0, max_count)))
    if every_class:
        empty = counts.sum(axis=1) == 0
        counts[empty, draw(st.integers(0, k - 1))] = 1
    else:
        counts[draw(arrays(bool, k)), :] = 0
    return counts


@st.composite
def costs(draw, k):
    # No tiny positive costs: the LP solver treats coefficients below ~1e-9 as zero.
    cost = draw(arrays(np.float64, (k, k), elements=st.just(0.0) | st.floats(1e-3, 100)))
    np.fill_diagonal(cost, 0.0)
    return cost


def max_tc_lp(counts, cost):
    """George et al. eq. 6 solved as a linear programme over the K x K matrix F (rows = true here).

    maximise sum C f subject to sum f = N, each true class keeps its size n_t, f >= 0, f_tt = 0.
    """
    k = len(counts)
    sizes = counts.sum(axis=1)
    a_eq = np.vstack([np.ones(k * k), np.kron(np.eye(k), np.ones(k))])
    b_eq = np.concatenate([[sizes.sum()], sizes])
    bounds = [(0, 0) if t == p else (0, None) for t in range(k) for p in range(k)]
    result = linprog(-np.asarray(cost).ravel(), A_eq=a_eq, b_eq=b_eq, bounds=bounds, method="highs")
    assert result.status == 0, result.message
    return -result.fun


def test_default_cost_is_the_paper_example():
    """George et al. Sec. 2.2: classes of size 10, 20 and 70 (stored rows = true, the transpose of the paper)."""
    example = GEORGE_2016_COST_EXAMPLE
    cost = george_cost(np.array(example.class_sizes))
    np.testing.assert_allclose(cost, example.cost, rtol=1e-15)
    np.testing.assert_array_equal(np.round(cost, example.precision), example.cost_printed)
    # "entry c_{1,2} is attributed highest cost": predicting class 1 for a class-2 sample.
    assert np.unravel_index(cost.argmax(), cost.shape) == (1, 0)


def test_tc_charges_the_paper_cost_per_sample():
    """One class-2 sample predicted as class 1 costs c_{1,2} = 8 with class sizes 10/20/70."""
    counts = np.diag([10.0, 20.0, 70.0])
    counts[1, 1], counts[1, 0] = 19, 1
    assert tc(counts) == pytest.approx(8.0)


@FAST
@given(count_matrices())
def test_max_tc_solves_the_papers_linear_programme(counts):
    expected = max_tc_lp(counts, george_cost(counts.sum(axis=1)))
    assert max_tc(counts.astype(float)) == pytest.approx(expected, rel=1e-9)


@FAST
@given(count_matrices(every_class=False).flatmap(lambda m: st.tuples(st.just(m), costs(len(m)))))
def test_max_tc_solves_the_linear_programme_for_a_user_cost(pair):
    counts, cost = pair
    assert max_tc(counts.astype(float), cost) == pytest.approx(max_tc_lp(counts, cost), rel=1e-9, abs=1e-9)


@FAST
@given(count_matrices())
def test_tc_at_most_max_tc_and_bounds(counts):
    counts = counts.astype(float)
    assert 0 <= tc(counts) <= max_tc(counts) * (1 + 1e-12)
    assert 0 <= mc(counts) <= 1 + 1e-12
    assert 0 <= d(counts) <= math.sqrt(2) + 1e-12
    assert 0 <= chance_distance(counts) <= 1 / math.sqrt(2) + 1e-12
    assert d(counts) == pytest.approx(math.hypot(1 - accuracy(counts), mc(counts)))


@FAST
@given(arrays(np.int64, st.integers(2, 7), elements=st.integers(1, 1000)))
def test_zero_for_a_perfect_classifier(sizes):
    counts = np.diag(sizes).astype(float)
    assert tc(counts) == 0 and mc(counts) == 0 and d(counts) == 0


@FAST
@given(count_matrices(), st.integers(2, 50))
def test_replicating_the_test_set_changes_only_tc(counts, factor):
    """The default cost depends on class proportions only: MC and d are unchanged, TC scales."""
    counts = counts.astype(float)
    more = factor * counts
    assert mc(more) == pytest.approx(mc(counts), rel=1e-12, abs=1e-15)
    assert d(more) == pytest.approx(d(counts), rel=1e-12, abs=1e-15)
    assert tc(more) == pytest.approx(factor * tc(counts), rel=1e-12)


@FAST
@given(count_matrices())
def test_reversing_the_class_order_changes_nothing(counts):
    counts = counts.astype(float)
    flipped = counts[::-1, ::-1]
    for kernel in (tc, max_tc, mc, d, chance_distance):
        assert kernel(flipped) == pytest.approx(kernel(counts), rel=1e-12, abs=1e-15)


@FAST
@given(st.integers(2, 7), st.integers(1, 30), st.data())
def test_balanced_classes_make_tc_a_multiple_of_amae(k, size, data):
    """George et al. Sec. 3.2: with balanced classes the cost is a scalar times AMAE's loss, C = (K - 1)|t - p|."""
    counts = data.draw(arrays(np.int64, (k, k), elements=st.integers(0, size // (k - 1))))
    np.fill_diagonal(counts, 0)
    np.fill_diagonal(counts, size - counts.sum(axis=1))  # every true class has `size` samples
    counts = counts.astype(float)
    assert tc(counts) == pytest.approx((k - 1) * counts.sum() * amae(counts), rel=1e-12)


@FAST
@given(count_matrices(every_class=False).flatmap(lambda m: st.tuples(st.just(m), costs(len(m)))), st.floats(0.01, 100))
def test_user_cost(pair, scale):
    counts, cost = pair
    counts = counts.astype(float)
    assert tc(counts, cost) == pytest.approx((counts * cost).sum(), rel=1e-12)
    if max_tc(counts, cost) > 0:
        assert 0 <= mc(counts, cost) <= 1 + 1e-12
        assert mc(counts, scale * cost) == pytest.approx(mc(counts, cost), rel=1e-9)


@FAST
@given(count_matrices())
def test_the_default_cost_given_explicitly_gives_the_same_values(counts):
    counts = counts.astype(float)
    cost = george_cost(counts.sum(axis=1))
    for kernel in (tc, max_tc, mc, d, chance_distance):
        assert kernel(counts, cost) == pytest.approx(kernel(counts), rel=1e-12, abs=1e-15)


def test_chance_distance_direction_follows_the_paper():
    """George et al. Table 4(b): equal d, and the classifier farther from the chance line (Acc 0.70) is the superior one."""
    acc70, acc80 = (np.array(c.matrix, float) for c in GEORGE_2016_TABLES if c.source.endswith("Table 4(b)"))
    assert abs(d(acc70) - d(acc80)) < 0.005
    assert chance_distance(acc70) > chance_distance(acc80)
    assert ordframe.get_metric("chance_distance").higher_is_better
    assert not any(ordframe.get_metric(name).higher_is_better for name in ("d", "mc", "tc"))


def test_an_empty_true_class_makes_the_default_cost_undefined():
    counts = np.array(
        [
            [[5, 1, 0], [0, 0, 0], [0, 2, 4]],  # class 2 has no true samples
            [[5, 1, 0], [1, 3, 0], [0, 2, 4]],
            [[0, 0, 0], [0, 0, 0], [0, 0, 0]],
        ],
        dtype=float,
    )
    for kernel in (tc, max_tc, mc, d, chance_distance):
        got = kernel(counts)
        assert np.isnan(got[[0, 2]]).all() and np.isfinite(got[1])
    # A user cost does not divide by class sizes: defined as long as max TC > 0.
    assert np.isfinite(d(counts[0], np.abs(np.subtract.outer(range(3), range(3)))))


def test_zero_max_tc_is_undefined():
    counts = np.array([[3.0, 0], [0, 2]])
    assert np.isnan(mc(counts, np.zeros((2, 2))))


def test_scalar_call_warns_and_returns_nan():
    cube = xr.DataArray([[5, 1, 0], [0, 0, 0], [0, 2, 4]], dims=("true", "pred"))
    with pytest.warns(RuntimeWarning, match="d is undefined.*every class to have true samples"):
        assert math.isnan(cube.ordinal.d())


@pytest.mark.parametrize(
    "cost, message",
    [
        (np.ones((3, 3)), "zero diagonal"),
        (-np.abs(np.subtract.outer(range(3), range(3))), ">= 0"),
        (np.zeros((2, 3)), "3x3"),
        ([[0, np.inf, 1], [1, 0, 1], [1, 1, 0]], "finite"),
    ],
)
def test_bad_cost_matrices_are_errors(cost, message):
    cube = xr.DataArray([[5, 1, 0], [1, 3, 0], [0, 2, 4]], dims=("true", "pred"))
    with pytest.raises(ValueError, match=message):
        cube.ordinal.mc(cost=cost)


def test_cost_orientation_of_a_labelled_cost():
    """A cost DataArray is read by its dim names, so (pred, true) order cannot be mistaken for (true, pred)."""
    cube = xr.DataArray([[5, 1, 0], [1, 3, 0], [0, 2, 4]], dims=("true", "pred"))
    cost = np.array([[0, 1, 5], [2, 0, 1], [9, 3, 0]], dtype=float)
    as_is = cube.ordinal.tc(cost=xr.DataArray(cost, dims=("true", "pred")))
    swapped = cube.ordinal.tc(cost=xr.DataArray(cost.T, dims=("pred", "true")))
    assert as_is == swapped == pytest.approx((cube.values * cost).sum())


@pytest.mark.parametrize("name", ["d", "mc", "tc", "max_tc", "chance_distance"])
def test_matrix_stack_and_dask_cube_agree(name):
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 30, size=(6, 4, 5, 5))
    counts[0, 0, 2] = 0  # an empty true class inside the stack
    cube = xr.DataArray(counts, dims=("model", "fold", "true", "pred"), coords={"model": list("abcdef")})
    kernel = {"d": d, "mc": mc, "tc": tc, "max_tc": max_tc, "chance_distance": chance_distance}[name]
    expected = np.array([[kernel(m.astype(float)) for m in row] for row in counts])

    stacked = getattr(cube.ordinal, name)()
    assert stacked.dims == ("model", "fold")
    np.testing.assert_allclose(stacked.values, expected, rtol=1e-12)
    assert np.isnan(stacked.values[0, 0])
    assert getattr(cube.isel(model=1, fold=2).ordinal, name)() == pytest.approx(expected[1, 2], rel=1e-12)

    lazy = getattr(cube.chunk({"model": 2, "fold": 3}).ordinal, name)()
    assert lazy.chunks is not None  # still dask-backed before compute
    np.testing.assert_allclose(lazy.compute().values, expected, rtol=1e-12)

    cost = np.abs(np.subtract.outer(range(5), range(5))) ** 2.0
    np.testing.assert_allclose(
        getattr(cube.chunk({"model": 3}).ordinal, name)(cost=cost).values,
        [[kernel(m.astype(float), cost) for m in row] for row in counts],
        rtol=1e-12,
    )


def test_cache_blocks_give_the_one_pass_result():
    """The numpy path (no numba) in cache blocks: accuracy, TC and max TC as in one pass over the stack."""
    rng = np.random.default_rng(3)
    counts = rng.integers(0, 5, size=(50, 61, 5, 5)).astype(float)  # several blocks, the last one partial
    cost = np.abs(np.subtract.outer(range(5), range(5)))
    for matrix in (None, cost):
        np.testing.assert_array_equal(_terms_numpy(counts, matrix), _terms_numpy.__wrapped__(counts, matrix))


@settings(max_examples=30, deadline=None)
@given(
    arrays(np.int64, st.tuples(st.integers(1, 5), st.integers(2, 6)).map(lambda s: (s[0], s[1], s[1])),
           elements=st.integers(0, 30)),
    st.sampled_from(["int64", "int32", "uint8", "float64"]),
    st.data(),
)  # fmt: skip
def test_evaluate_shares_the_cost_terms_and_gives_each_metrics_own_value(counts, dtype, data):
    """evaluate computes TC, max TC and the accuracy once for d, MC, TC, max TC and the chance distance
    (``Metric.needs``): every value equals the metric computed alone, for the default cost and a given one."""
    k = counts.shape[-1]
    cost = data.draw(arrays(np.float64, (k, k), elements=st.floats(0, 5)))
    np.fill_diagonal(cost, 0.0)
    cube = xr.DataArray(counts.astype(dtype), dims=("replicate", "true", "pred"))
    names = ["d", "mc", "tc", "max_tc", "chance_distance", "accuracy"]
    specs = {**{n: (n, {}) for n in names}, **{f"{n}_cost": (n, {"cost": cost}) for n in names[:5]}}
    with np.errstate(all="ignore"):
        together = cube.ordinal.evaluate(metrics=specs)
        for out, (name, params) in specs.items():
            alone = getattr(cube.ordinal, name)(**params)
            np.testing.assert_array_equal(together[out].values, np.asarray(alone), err_msg=out)


@pytest.mark.parametrize(
    "compiled", [pytest.param(False, id="numpy"), pytest.param(True, id="compiled", marks=pytest.mark.compiled)]
)
def test_the_metrics_of_one_cube_share_george_s_terms_per_cost(compiled, monkeypatch):
    """George's accuracy, TC and max TC (``GEORGE``) are computed once for the metrics of one cube's counts
    that use the same cost, by the numpy kernel or the compiled one as the metrics; another cost, or another
    cube's counts, get their own; a metric computed alone gets none (its kernel computes them)."""
    from ordframe._bridge.apply import confusion_counts, needed_terms
    from ordframe._core import options
    from ordframe._registry.manager import get_metric
    from ordframe.metrics.cost import GEORGE

    if compiled and not options.COMPILED:
        pytest.skip("numba is not installed or is turned off")
    monkeypatch.setattr(options, "COMPILED", compiled)
    rng = np.random.default_rng(0)
    cube = xr.DataArray(rng.integers(1, 50, size=(3, 4, 4)), dims=("replicate", "true", "pred"))
    other = xr.DataArray(rng.integers(1, 50, size=(3, 4, 4)), dims=("replicate", "true", "pred"))
    cost = rng.uniform(0, 3, size=(4, 4))
    np.fill_diagonal(cost, 0)
    counts, other_counts = confusion_counts(cube), confusion_counts(other)

    def term(name, params, on=counts):
        return needed_terms(get_metric(name), {"cost": None, **params}, on)["george"]

    default = term("d", {})
    assert all(term(name, {}) is default for name in ("mc", "tc", "max_tc", "chance_distance"))
    given = term("d", {"cost": cost})
    assert given is not default and term("tc", {"cost": cost.copy()}) is given
    for value, expected in ((default, GEORGE.kernel(compiled)(cube.values)), (given, _terms(cube.values, cost))):
        for got, want in zip(value, expected, strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-12)
    assert term("d", {}, other_counts) is not default
    assert needed_terms(get_metric("d"), {"cost": None}, counts._replace(terms=None)) == {}
    tc_value = tc(cube.values, george=default)
    tc_value[:] = -1  # the caller's copy: the shared term is not changed
    assert (default[1] >= 0).all()
