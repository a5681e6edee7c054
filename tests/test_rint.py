"""r_int (Pinto da Costa, Alonso & Cardoso 2008, corrected): brute force over pairs of observations, the quadruple sum, properties, cubes."""

import itertools
import math
import warnings

import numpy as np
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ordframe  # noqa: F401
from ordframe._papers import PINTO_DA_COSTA_EXAMPLES
from ordframe.metrics.rint import _rint_large_sample, _rint_numpy, rint

FAST = settings(max_examples=150, deadline=None)
# Kernels called directly (not through the accessors) let numpy report 0/0 for undefined matrices.
pytestmark = pytest.mark.filterwarnings("ignore:invalid value encountered:RuntimeWarning")


@st.composite
def count_matrices(draw, max_count=4, max_k=7):
    """K = 2..max_k count matrices, some rows and columns forced empty."""
    k = draw(st.integers(2, max_k))
    counts = draw(arrays(np.int64, (k, k), elements=st.integers(0, max_count)))
    counts[draw(arrays(bool, k)), :] = 0
    counts[:, draw(arrays(bool, k))] = 0
    return counts


def expand(counts):
    """The true and predicted label vectors of the observations a count matrix holds."""
    cells = np.argwhere(np.ones_like(counts, dtype=bool))
    obs = np.repeat(cells, counts.ravel(), axis=0)
    return obs[:, 0], obs[:, 1]


def pair_sets(v1, v2):
    """card(S1), card(S2), card(S1 n S2) by counting ordered pairs (a, b), a != b, with v(a) <= v(b)."""
    distinct = ~np.eye(len(v1), dtype=bool)
    s1 = (v1[:, None] <= v1[None, :]) & distinct
    s2 = (v2[:, None] <= v2[None, :]) & distinct
    return int(s1.sum()), int(s2.sum()), int((s1 & s2).sum())


def rint_brute_force(counts):
    true, pred = expand(counts)
    if len(set(true)) < 2 or len(set(pred)) < 2:
        return math.nan
    s1, s2, both = pair_sets(true, pred)
    return -1 + 2 * both / math.sqrt(s1 * s2)


def rint_quadruple_sum(counts):
    """The correction note's final expression, as written: O(K^4) loops on exact Python integers."""
    m = [[int(x) for x in row] for row in counts]
    k = len(m)
    n = sum(map(sum, m))
    rows = [sum(m[i]) for i in range(k)]
    cols = [sum(m[i][j] for i in range(k)) for j in range(k)]
    both = sum(m[i][j] * m[a][b] for i in range(k) for j in range(k) for a in range(i, k) for b in range(j, k)) - n
    s1 = sum(rows[i] * rows[j] for i in range(k) for j in range(i, k)) - n
    s2 = sum(cols[i] * cols[j] for i in range(k) for j in range(i, k)) - n
    return -1 + 2 * both / math.sqrt(s1 * s2)


def test_pinto_da_costa_note_example_sets_and_value():
    """The correction note's Table 1: it lists S1 and S2 (6 pairs each) and card(S1 n S2) = 3."""
    v1, v2 = np.array([3, 2, 1, 4]), np.array([1, 2, 3, 4])
    s1 = {(a + 1, b + 1) for a, b in itertools.permutations(range(4), 2) if v1[a] <= v1[b]}
    assert s1 == {(1, 4), (2, 1), (2, 4), (3, 1), (3, 2), (3, 4)}
    assert pair_sets(v1, v2) == (6, 6, 3)
    (case,) = PINTO_DA_COSTA_EXAMPLES
    assert rint(np.array(case.matrix, dtype=float)) == 0.0


@FAST
@given(count_matrices())
def test_equals_counting_pairs_of_observations(counts):
    expected = rint_brute_force(counts)
    got = rint(counts.astype(float))
    if math.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


@FAST
@given(count_matrices(max_count=10**9, max_k=6))
def test_equals_the_quadruple_sum_on_large_counts(counts):
    rows, cols = counts.sum(axis=1), counts.sum(axis=0)
    got = rint(counts.astype(float))
    if (rows > 0).sum() < 2 or (cols > 0).sum() < 2:
        assert np.isnan(got)
    else:
        assert got == pytest.approx(rint_quadruple_sum(counts), rel=1e-9, abs=1e-9)


@FAST
@given(count_matrices())
def test_bounds_and_symmetries(counts):
    value = rint(counts.astype(float))
    if np.isnan(value):
        return
    assert -1.0 - 1e-12 <= value <= 1.0 + 1e-12
    # Swapping true and predicted swaps S1 and S2; reversing both orders reverses every pair.
    assert rint(counts.T.astype(float)) == pytest.approx(value, abs=1e-12)
    assert rint(counts[::-1, ::-1].astype(float)) == pytest.approx(value, abs=1e-12)


@FAST
@given(count_matrices(), st.integers(0, 7))
def test_an_unused_class_changes_nothing(counts, where):
    """Only the order relation matters, not the labels: inserting an empty class leaves r_int unchanged."""
    where = min(where, len(counts))
    wider = np.insert(np.insert(counts, where, 0, axis=0), where, 0, axis=1)
    np.testing.assert_allclose(rint(wider.astype(float)), rint(counts.astype(float)), atol=1e-12)


@FAST
@given(arrays(np.int64, st.integers(2, 7), elements=st.integers(0, 50)).filter(lambda d: (d > 0).sum() >= 2))
def test_one_for_a_diagonal_matrix(diagonal):
    assert rint(np.diag(diagonal).astype(float)) == pytest.approx(1.0, abs=1e-12)


def test_minus_one_for_a_reversed_order_without_ties():
    assert rint(np.eye(5)[::-1]) == pytest.approx(-1.0, abs=1e-12)


def test_nan_where_a_variable_is_constant():
    cases = np.array(
        [
            [[0, 0, 3], [0, 0, 4], [0, 0, 2]],  # every prediction is class 3 (a constant column)
            [[0, 0, 0], [2, 5, 1], [0, 0, 0]],  # every sample is of true class 2
            [[0, 0, 0], [0, 1, 0], [0, 0, 0]],  # N = 1
            [[0, 0, 0], [0, 0, 0], [0, 0, 0]],  # N = 0
            [[2, 1, 0], [0, 3, 1], [1, 0, 2]],
        ],
        dtype=float,
    )
    got = rint(cases)
    assert np.isnan(got[:4]).all()
    assert np.isfinite(got[4])


def test_scalar_call_warns_and_returns_nan():
    cube = xr.DataArray([[0, 3], [0, 4]], dims=("true", "pred"))
    with pytest.warns(RuntimeWarning, match="rint is undefined.*same predicted class"):
        assert math.isnan(cube.ordinal.rint())


def test_matrix_stack_and_dask_cube_agree():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 6, size=(6, 4, 5, 5))
    counts[0, 0] = np.diag([3, 0, 0, 0, 0])  # undefined inside the stack
    cube = xr.DataArray(counts, dims=("model", "fold", "true", "pred"), coords={"model": list("abcdef")})
    expected = np.array([[rint(m.astype(float)) for m in row] for row in counts])

    stacked = cube.ordinal.rint()
    assert stacked.dims == ("model", "fold")
    np.testing.assert_allclose(stacked.values, expected, atol=1e-12)
    assert np.isnan(stacked.values[0, 0])

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a defined scalar gives no warning
        assert cube.isel(model=1, fold=2).ordinal.rint() == pytest.approx(expected[1, 2], abs=1e-12)

    lazy = cube.chunk({"model": 2, "fold": 3}).ordinal.rint()
    assert lazy.chunks is not None  # still dask-backed before compute
    np.testing.assert_allclose(lazy.compute().values, expected, atol=1e-12)


def test_from_labels_through_the_frame_accessor():
    import pandas as pd

    df = pd.DataFrame({"y": [3, 2, 1, 4, 1, 2], "p": [1, 2, 3, 4, 1, 3], "g": list("aaaabb")})
    counts = df.ordinal.confusion("y", "p").values.astype(float)
    assert df.ordinal.rint("y", "p") == pytest.approx(rint_brute_force(counts.astype(np.int64)), abs=1e-12)
    by = df.ordinal.rint("y", "p", by="g")
    assert by.sel(g="a") == pytest.approx(0.0, abs=1e-12)  # the correction note's example


def test_cache_blocks_give_the_one_pass_result():
    rng = np.random.default_rng(2)
    counts = rng.integers(0, 5, size=(50, 61, 5, 5)).astype(float)  # several blocks, the last one partial
    np.testing.assert_array_equal(_rint_numpy(counts), _rint_numpy.__wrapped__(counts))


# Non-integer counts (weights, proportions): the large-sample form


def varies(counts):
    """At least two classes observed in the rows and in the columns (r_int is defined)."""
    return (counts.sum(axis=1) > 0).sum() >= 2 and (counts.sum(axis=0) > 0).sum() >= 2


def test_half_weights_on_the_diagonal_give_one():
    """Two samples of weight 0.5, both right: the finite formula's "- N" terms would give -3."""
    assert rint(np.array([[0.5, 0.0], [0.0, 0.5]])) == 1.0


def test_weights_of_one_sixth_use_the_large_sample_form():
    """Six samples weighted 1/6 each: the finite formula would give -4; the large-sample form gives 5/7."""
    counts = np.array([[2.0, 2.0], [0.0, 2.0]])
    weighted = rint(counts / 6)
    assert -1.0 <= weighted <= 1.0
    assert weighted == pytest.approx(_rint_large_sample(counts), abs=1e-15)  # the same form, scaled
    assert weighted == pytest.approx(5 / 7, abs=1e-12)  # card(S1 n S2) = 2/3, card(S1) = card(S2) = 7/9
    assert rint(counts) == pytest.approx(rint_brute_force(counts.astype(np.int64)), abs=1e-12)  # integers: exact
    import pandas as pd

    df = pd.DataFrame({"y": [0, 0, 0, 0, 1, 1], "p": [0, 0, 1, 1, 1, 1]})
    assert df.ordinal.rint("y", "p", weights=np.full(6, 1 / 6)) == pytest.approx(5 / 7, abs=1e-12)


@st.composite
def weighted_matrices(draw, max_k=6):
    """K = 2..max_k matrices of non-negative floats with at least one non-integer count."""
    k = draw(st.integers(2, max_k))
    counts = draw(arrays(np.float64, (k, k), elements=st.floats(0, 1e3, allow_subnormal=False)))
    counts[draw(arrays(bool, k)), :] = 0
    counts[:, draw(arrays(bool, k))] = 0
    counts[draw(st.integers(0, k - 1)), draw(st.integers(0, k - 1))] = draw(st.sampled_from([0.5, 1 / 3, 1e-3, 2.75]))
    return counts


@FAST
@given(weighted_matrices())
def test_non_integer_counts_stay_in_bounds(counts):
    value = rint(counts)
    if not varies(counts):
        assert np.isnan(value)
        return
    assert value == _rint_large_sample(counts)
    assert -1.0 - 1e-12 <= value <= 1.0 + 1e-12
    assert rint(counts.T) == pytest.approx(value, abs=1e-12)
    assert rint(counts[::-1, ::-1]) == pytest.approx(value, abs=1e-12)


@FAST
@given(count_matrices().filter(varies))
def test_large_sample_form_is_the_limit_of_the_exact_formula(counts):
    """Scaling every count by 10^6 brings the exact formula within ~1/N of the large-sample form."""
    limit = _rint_large_sample(counts.astype(float))
    assert limit == pytest.approx(rint_quadruple_sum(counts * 10**6), abs=1e-5)
    assert -1.0 - 1e-12 <= limit <= 1.0 + 1e-12
    # Proportions are never all integer-valued on a defined matrix, so they take the large-sample form.
    assert rint(counts / counts.sum()) == pytest.approx(limit, abs=1e-12)


@FAST
@given(count_matrices().filter(varies))
def test_extreme_weight_scales(counts):
    """No product of two counts is formed: 1e160 (integer-valued floats) and 1e-160 weights stay finite."""
    limit = _rint_large_sample(counts.astype(float))
    huge = rint(counts * 1e160)  # integer-valued: the exact formula, whose 1/N terms are ~1e-160
    assert np.isfinite(huge)
    assert huge == pytest.approx(limit, abs=1e-12)
    assert rint(counts * 1e-160) == pytest.approx(limit, abs=1e-12)  # non-integer: the large-sample form
    np.testing.assert_allclose(_rint_large_sample(counts * np.array([[[1e-160]], [[1e160]]])), limit, atol=1e-12)


@pytest.mark.parametrize("scale", [1.0, 1 / 6, 1e-160, 1e160])
def test_degenerate_cubes_stay_nan_at_every_scale(scale):
    cases = np.array(
        [
            [[0, 0, 3], [0, 0, 4], [0, 0, 2]],  # a constant prediction
            [[0, 0, 0], [2, 5, 1], [0, 0, 0]],  # a constant true class
            [[0, 0, 0], [0, 1, 0], [0, 0, 0]],  # one sample
            [[0, 0, 0], [0, 0, 0], [0, 0, 0]],  # empty
        ],
        dtype=float,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NaN by rule, not from 0/0 or an overflow
        got = rint(cases * scale)
        large = _rint_large_sample(cases * scale)
    assert np.isnan(got).all() and np.isnan(large).all()
