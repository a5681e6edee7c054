"""The compiled twins (the ``numba`` extra, ``Metric.compiled``) give the values of the numpy kernels."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from ordframe._core import options
from ordframe._registry.manager import BUILTIN_MODULES, get_metric, list_metrics
from ordframe.metrics import _accelerate

pytestmark = pytest.mark.compiled  # with the slow tier: numba compiles every twin
pytest.importorskip("numba")
if not options.COMPILED:
    pytest.skip("numba turned off by ORDFRAME_NUMBA=0", allow_module_level=True)

BUILTIN = sorted(
    name
    for name, kind, plugin in list_metrics()[["name", "kind", "plugin"]].itertuples(index=False)
    if kind == "confusion" and plugin in BUILTIN_MODULES
)
#: The built-in confusion metrics with a compiled twin (``bench_compiled.py`` measured the others' twins to buy
#: nothing: accuracy and mer).
NAMES = [name for name in BUILTIN if get_metric(name).compiled is not None]
# Non-default parameters of the metrics that take them (each also runs with its defaults).
PARAMS = {
    "within_k": [{"k": 0}, {"k": 2}],
    "kappa": [{"weighting": None}, {"weighting": "quadratic"}],
    "amae": [{"missing": "zero"}],
    "amse": [{"missing": "zero"}],
    "mmae": [{"missing": "zero"}],
    "oc": [{"beta": 0.0, "gamma": 2.0}, {"beta": 1.3, "gamma": 0.5}],
    "uoc": [{"beta": 0.0, "gamma": 2.0}, {"beta": 1.3, "gamma": 0.5}],
}
COSTS = ("expected_cost", "d", "mc", "tc", "max_tc", "chance_distance")


@st.composite
def stacks(draw):
    """A stack of 1-6 K x K matrices (K = 2..8): int64 counts with rows and columns emptied (an empty matrix
    among them), or the same scaled to non-integer weights."""
    k = draw(st.integers(2, 8))
    m = draw(st.integers(1, 6))
    counts = draw(arrays(np.int64, (m, k, k), elements=st.integers(0, 9)))
    for i in range(m):
        for axis in (1, 2):
            for j in draw(st.sets(st.integers(0, k - 1), max_size=k - 1)):
                index = [i, slice(None), slice(None)]
                index[axis] = j
                counts[tuple(index)] = 0
    if draw(st.booleans()):
        counts[draw(st.integers(0, m - 1))] = 0
    scale = draw(st.sampled_from([None, 0.37, 1e-150, 3e150]))
    return counts if scale is None else counts * scale


def both(name, counts, **params):
    """The metric's compiled twin on ``counts``, and its numpy kernel."""
    metric = get_metric(name)
    with np.errstate(all="ignore"):
        fast = np.asarray(metric.compiled(counts, **params), dtype=np.float64)
        slow = np.asarray(metric.func(counts, **params), dtype=np.float64)
    return fast, slow


def assert_same(fast, slow, what):
    assert fast.shape == slow.shape, what
    assert np.array_equal(np.isnan(fast), np.isnan(slow)), f"{what}: NaN at {np.isnan(fast)} vs {np.isnan(slow)}"
    ok = ~np.isnan(slow)
    np.testing.assert_allclose(fast[ok], slow[ok], rtol=1e-12, atol=1e-12, err_msg=what)


@settings(max_examples=40, deadline=None)
@given(stacks(), st.data())
def test_numba_equals_numpy(counts, data):
    k = counts.shape[-1]
    cost = data.draw(arrays(np.float64, (k, k), elements=st.floats(0, 5)))
    np.fill_diagonal(cost, 0.0)
    for name in NAMES:
        for params in [{}, *PARAMS.get(name, []), *([{"cost": cost}] if name in COSTS else [])]:
            fast, slow = both(name, counts, **params)
            assert_same(fast, slow, f"{name}{params} on {counts.tolist()}")


def test_large_stack_and_layouts():
    """Past the numpy path's cache blocks, on a transposed (non-contiguous) stack, int64 and float64 alike."""
    rng = np.random.default_rng(3)
    for k in (3, 5, 12):
        counts = rng.poisson(2.0, size=(5000, k, k))
        counts[:40] = 0
        counts[40:80, 0] = 0
        for stack in (counts, counts.astype(np.float64), np.swapaxes(counts, -1, -2)):
            for name in NAMES:
                fast, slow = both(name, stack)
                assert_same(fast, slow, f"{name}, K = {k}, dtype {stack.dtype}")


BY_BLOCKS = [
    ("oc", {}),
    ("oc", {"gamma": 2.0}),
    ("uoc", {}),
    ("uoc", {"beta": 0.5, "gamma": 0.5}),
    ("auoc", {}),
    ("gerrity", {}),
    ("spearman", {}),
    ("kendall_tau_b", {}),
    ("somers_d", {}),
    ("rint", {}),
]


@pytest.mark.parametrize("m", [_accelerate.LANES - 1, _accelerate.LANES, 2 * _accelerate.LANES + 3])
def test_kernels_by_blocks_score_each_matrix_as_alone_whatever_its_lane(m):
    """The path indices, Gerrity and the rank statistics read ``LANES`` matrices at a time: a matrix scores bit
    for bit as it does alone, in a full block or the last, short one, beside empty matrices and rows at the
    blocks' edges, and (float counts) beside a matrix whose N is outside ``SAFE_TOTAL``."""
    rng = np.random.default_rng(m)
    counts = rng.poisson(3.0, size=(m, 5, 5))
    lanes = _accelerate.LANES
    edges = [i for i in (0, lanes - 1, m - 1) if i < m]
    counts[edges] = 0
    counts[lanes - 2, 0] = 0
    counts[-2, :, 4] = 0
    weights = counts * 0.5
    weights[1] *= 1e-45
    for stack in (counts, weights):
        for name, params in BY_BLOCKS:
            func = get_metric(name).compiled
            with np.errstate(all="ignore"):
                stacked = func(stack, **params)
                alone = np.array([func(matrix, **params) for matrix in stack])
            np.testing.assert_array_equal(stacked, alone, err_msg=f"{name}{params}, {stack.dtype}")
            assert np.isnan(stacked[edges]).all()
            fast, slow = both(name, stack, **params)
            assert_same(fast, slow, f"{name}{params}, {m} matrices of {stack.dtype}")
        with np.errstate(all="ignore"):  # the five rank statistics of one pass, r_int's large-sample form with them
            stacked = _accelerate.pairs(stack, _accelerate.ALL_PAIRS)
            alone = np.stack([_accelerate.pairs(matrix, _accelerate.ALL_PAIRS) for matrix in stack], axis=-1)
        np.testing.assert_array_equal(stacked, alone)


def mixed_envelopes(m, k, seed):
    """``m`` matrices whose A_UOC searches need from no DP to a dozen: noisy (Poisson 20 in every cell), near-diagonal,
    exactly diagonal (the lines at beta = 0 and 1 are one) and empty ones, in runs and alone."""
    rng = np.random.default_rng(seed)
    kind = np.repeat(rng.integers(0, 4, m), rng.integers(1, 9, m))[:m]
    counts = rng.poisson(20.0, (m, k, k))
    near = rng.poisson(1.0, (m, k, k)) + 50 * np.eye(k, dtype=np.int64)
    counts[kind == 1] = near[kind == 1]
    counts[kind == 2] = 7 * np.eye(k, dtype=np.int64)
    counts[kind == 3] = 0
    return counts


@pytest.mark.parametrize("k, m, seed", [(5, 3 * _accelerate.LANES + 5, 0), (8, 2 * _accelerate.LANES + 1, 1)])
def test_auoc_lanes_take_the_next_matrix_when_theirs_is_done(k, m, seed):
    """A_UOC's lanes take the next matrix of the stack as their searches end, rounds apart: more matrices than
    lanes, a short last block, searches of very different lengths. Each matrix scores as the numpy search does,
    and bit for bit as it does alone, in whichever lane and round it ran."""
    counts = mixed_envelopes(m, k, seed)
    fast, slow = both("auoc", counts)
    assert_same(fast, slow, f"auoc, K = {k}, {m} matrices")
    alone = np.array([get_metric("auoc").compiled(matrix) for matrix in counts])
    np.testing.assert_array_equal(fast, alone)
    assert np.isnan(fast).any() and (fast == 0.0).any()


@settings(max_examples=25, deadline=None)
@given(
    st.integers(2, 9),
    st.integers(_accelerate.LANES + 1, 3 * _accelerate.LANES),
    st.sampled_from([0.3, 2.0, 20.0, 1e6]),
    st.integers(0, 2**32 - 1),
)
def test_auoc_on_dense_stacks_of_several_blocks(k, m, rate, seed):
    """Stacks of dense random matrices (their envelopes of many pieces, some rows empty at low rates), longer
    than a block: the compiled search equals the numpy one."""
    counts = np.random.default_rng(seed).poisson(rate, (m, k, k))
    fast, slow = both("auoc", counts)
    assert_same(fast, slow, f"auoc, K = {k}, {m} matrices of rate {rate}")


@pytest.mark.slow
def test_switch_reads_the_environment():
    """``ORDFRAME_NUMBA=0`` turns the numba kernels off in a fresh interpreter."""
    import os
    import subprocess
    import sys

    code = "from ordframe._core import options; print(options.COMPILED)"
    for value, expected in (("0", "False"), ("1", "True")):
        env = {**os.environ, "ORDFRAME_NUMBA": value}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == expected


@settings(max_examples=15, deadline=None)
@given(
    st.integers(2, 7),
    st.integers(1, 300),
    st.sampled_from([-1, np.nan, np.inf, -np.inf]),
    st.sampled_from(["int64", "float64"]),
    st.data(),
)
def test_kernels_refuse_invalid_counts_as_the_bridge_does(k, m, bad, dtype, data):
    """With numba, every compiled twin checks the counts as it reads them (the bridge then makes no pass
    of its own): one bad count anywhere in a stack raises a ValueError in the kernel, and through the
    bridge the cube's own error, with the same message as the bridge's check."""
    import xarray as xr

    from ordframe._bridge.apply import apply_confusion, check_counts, checks_itself

    if dtype == "int64" and not np.isfinite(bad):
        bad = -3
    counts = np.ones((m, k, k), dtype=dtype)
    where = tuple(data.draw(st.integers(0, n - 1)) for n in counts.shape)
    counts[where] = bad
    with pytest.raises(ValueError) as expected:
        check_counts(counts)
    cube = xr.DataArray(counts, dims=("replicate", "true", "pred"))
    for name in NAMES:
        metric = get_metric(name)
        assert checks_itself(metric, counts.size), f"{name}: its compiled twin must check its counts (checks_counts)"
        with pytest.raises(ValueError, match="negative, NaN or infinite"):
            metric.compiled(counts)
        with pytest.raises(ValueError) as raised:
            apply_confusion(metric, cube, {})
        assert str(raised.value) == str(expected.value), name


def test_gm_when_the_product_of_recalls_underflows():
    """gm multiplies the recalls; below 1e-290 it sums their logarithms: both agree with the numpy path."""
    k = 8
    counts = np.full((3, k, k), 1.0)
    np.fill_diagonal(counts[0], 1e-45)  # product of 8 recalls about 1e-360: the sum of logarithms
    np.fill_diagonal(counts[1], 1e-30)  # about 1e-240: one logarithm of the product
    counts[2, 0, 0] = 0.0  # a recall of 0: gm is 0
    fast, slow = both("gm", counts)
    assert fast[0] > 0 and fast[2] == 0.0
    assert_same(fast, slow, "gm")


def test_rank_statistics_on_counts_and_on_proportions():
    """A matrix whose N is outside SAFE_TOTAL is read as proportions, one inside as counts: the same statistic."""
    rng = np.random.default_rng(5)
    counts = rng.poisson(3.0, size=(200, 6, 6)).astype(np.float64)
    low, high = _accelerate.SAFE_TOTAL
    for scale in (low * 1e-3, 1.0, high * 1e3):
        for name in ("spearman", "kendall_tau_b", "somers_d", "rint"):
            fast, slow = both(name, counts * scale)
            assert_same(fast, slow, f"{name} x {scale}")
            if name != "rint":  # r_int's exact formula is for integer counts only
                assert_same(fast, both(name, counts)[0], f"{name} x {scale} against x 1")
        large = _accelerate.pairs(counts * scale, _accelerate.RINT_LARGE_SAMPLE)
        assert_same(
            large, _accelerate.pairs(counts, _accelerate.RINT_LARGE_SAMPLE), f"r_int's large-sample form x {scale}"
        )


RANK_STATISTICS = ["spearman", "kendall_tau_b", "somers_d", "rint"]


@settings(max_examples=40, deadline=None)
@given(stacks())
def test_rank_statistics_of_one_pass_are_each_statistic_alone(counts):
    """``evaluate`` gives Spearman's rho, Kendall's tau-b, Somers' D and r_int the five statistics of one
    compiled pass (``RANKS``): each, and r_int's large-sample form, equals the statistic computed alone, to
    the last bit."""
    import xarray as xr

    cube = xr.DataArray(counts, dims=("replicate", "true", "pred"))
    with np.errstate(all="ignore"):
        ranks = _accelerate.pairs(counts, _accelerate.ALL_PAIRS)
        together = cube.ordinal.evaluate(metrics=RANK_STATISTICS)
        for name in RANK_STATISTICS:
            alone = get_metric(name).compiled(counts)
            np.testing.assert_array_equal(get_metric(name).compiled(counts, ranks=ranks), alone, name)
            np.testing.assert_array_equal(together[name].values, np.asarray(getattr(cube.ordinal, name)()), name)
        large = _accelerate.pairs(counts, _accelerate.RINT_LARGE_SAMPLE)
    np.testing.assert_array_equal(ranks[_accelerate.RINT_LARGE_SAMPLE], large)


def test_the_metrics_of_one_cube_share_one_pass_of_the_rank_statistics():
    """The four rank statistics computed on one cube's counts get the same term, one pass for them all; a
    metric computed alone gets none (its twin computes its own statistic, at a fraction of the five)."""
    import xarray as xr

    from ordframe._bridge.apply import apply_confusion, confusion_counts, needed_terms

    cube = xr.DataArray(np.random.default_rng(1).poisson(2.0, size=(40, 5, 5)), dims=("replicate", "true", "pred"))
    counts = confusion_counts(cube)
    terms = [needed_terms(get_metric(name), {}, counts)["ranks"] for name in RANK_STATISTICS]
    assert all(term is terms[0] for term in terms)
    np.testing.assert_array_equal(terms[0], _accelerate.pairs(cube.values, _accelerate.ALL_PAIRS))
    assert needed_terms(get_metric("spearman"), {}, counts._replace(terms=None)) == {}
    computed = apply_confusion(get_metric("spearman"), cube, {}, counts)
    terms[0][:] = np.nan  # a metric's value is its own copy of its row, not a view of the shared term
    assert not np.isnan(computed.values).any()


@pytest.fixture
def fresh_process(monkeypatch):
    """No twin has run yet (as in a new process), and a twin takes over after 1 s of numpy work, a count of
    which is reckoned at 1 ms beforehand."""
    from ordframe._core import compiling
    from ordframe._registry import metric

    monkeypatch.setattr(compiling, "SPENT", {})
    monkeypatch.setattr(compiling, "COMPILED_SECONDS", 1.0)
    monkeypatch.setattr(metric, "NUMPY_SECONDS_PER_CELL", 1e-3)
    return compiling.SPENT


def test_the_numpy_kernel_runs_until_its_time_would_have_paid_for_the_twin(fresh_process):
    """Small stacks get the numpy kernel, timed; once its time, with what a stack would take it, reaches
    ``COMPILED_SECONDS`` (a stack that large at once, or the time of several calls) the twin runs, from then on
    at every size. A call's fixed cost counts: many calls on tiny stacks pay for the twin too."""
    oc, uoc, accuracy = get_metric("oc"), get_metric("uoc"), get_metric("accuracy")
    counts = np.ones((1, 5, 5))
    for _ in range(3):
        assert not oc.compiles(250)
        np.testing.assert_array_equal(oc.kernel(250)(counts), oc.func(counts))
    spent = fresh_process[oc.compiled]
    assert 0 < spent < 0.25 and not oc.compiles(250) and fresh_process[oc.compiled] == spent  # asking runs nothing
    assert uoc.kernel(999)(counts) is not None and uoc.kernel(1000) is uoc.compiled  # each twin its own time
    fresh_process[oc.compiled] = 0.995  # as after many calls on tiny stacks
    assert oc.compiles(10) and oc.kernel(10) is oc.compiled and oc.kernel(1) is oc.compiled and oc.compiles(1)
    assert accuracy.kernel(10**9) is accuracy.func and accuracy.func not in fresh_process  # no twin to pay for


def test_a_small_cube_runs_the_numpy_kernels_with_the_same_values_and_errors(fresh_process):
    """Through the bridge, below the threshold: the numpy kernel's values, equal to the twin's, and the
    cube's own error for an invalid count (the bridge checks the counts: the numpy kernel does not)."""
    import xarray as xr

    from ordframe._bridge.apply import apply_confusion, check_counts, checks_itself

    counts = np.random.default_rng(2).poisson(3.0, size=(3, 5, 5))
    cube = xr.DataArray(counts, dims=("replicate", "true", "pred"))
    bad = counts.copy()
    bad[1, 2, 3] = -1
    with pytest.raises(ValueError) as expected:
        check_counts(bad)
    for name in NAMES:
        metric = get_metric(name)
        assert not checks_itself(metric, cube.size), name
        got = apply_confusion(metric, cube, {}).values
        assert fresh_process[metric.compiled] > 0 and not metric.compiles(1), name
        assert_same(got, both(name, counts)[0], name)
        with pytest.raises(ValueError) as raised:
            apply_confusion(metric, cube.copy(data=bad), {})
        assert str(raised.value) == str(expected.value), name


@pytest.mark.slow
def test_a_first_small_call_imports_no_numba():
    """``ordframe.oc(y_true, y_pred)`` in a new process: the numpy kernel, without numba's import or a compilation."""
    import subprocess
    import sys

    code = "import sys, ordframe\nassert ordframe.oc([0, 1, 2], [0, 2, 2]) == 0.375\nprint('numba' in sys.modules)\n"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout.strip() == "False", done.stderr
