"""OC, UOC and A_UOC: brute force over every path, exact envelope and quadrature, properties, front ends."""

import functools
import math
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from scipy import integrate

import ordframe
from ordframe.metrics.oc import auoc, oc, uoc

FAST = settings(max_examples=100, deadline=None)
BETAS = (0.0, 0.25, 0.75, 1.0, 2.5)
# Kernels called directly (not through the accessors) let numpy report 0/0 for empty matrices.
pytestmark = pytest.mark.filterwarnings(
    "ignore:invalid value encountered:RuntimeWarning", "ignore:divide by zero encountered:RuntimeWarning"
)


@st.composite
def count_matrices(draw, max_k=6):
    """K = 2..max_k count matrices: zeros, tiny and huge (up to 1e9) counts, some rows and columns empty."""
    k = draw(st.integers(2, max_k))
    cell = st.one_of(st.just(0), st.integers(1, 3), st.integers(0, 10**9))
    counts = draw(arrays(np.int64, (k, k), elements=cell))
    counts[draw(arrays(bool, k)), :] = 0
    counts[:, draw(arrays(bool, k))] = 0
    return counts


# ---------------------------------------------------------------- brute force


@functools.cache
def every_path(k):
    """Incidence matrix (paths x cells) of every path (0,0) -> (K-1,K-1) with steps down, right, diagonal."""
    paths = []

    def walk(r, c, cells):
        if (r, c) == (k - 1, k - 1):
            paths.append(cells)
            return
        for dr, dc in ((1, 1), (1, 0), (0, 1)):
            if r + dr < k and c + dc < k:
                walk(r + dr, c + dc, cells + [(r + dr) * k + c + dc])

    walk(0, 0, [0])
    incidence = np.zeros((len(paths), k * k), np.int64)
    for i, cells in enumerate(paths):
        incidence[i, cells] = 1
    return incidence


def exact_lines(counts, index):
    """Every path's index value as an exact line A + beta * B in Fractions (gamma = 1); None if undefined.

    "oc": A = 1 - S/(N + M), B = T/(N (K-1)) with S, T the path's sums of n and
    n|r-c| (relative beta, docs/architecture.md). "uoc": the same on p = n/N_r over the K'
    observed rows: A = 1 - S/(K' + sum p d), B = T/K' (Silva, Pinto & Cardoso eq. 28). The
    benefits are integers over a common denominator ``scale`` (1 for OC).
    """
    k = len(counts)
    dist = np.abs(np.subtract.outer(np.arange(k), np.arange(k))).ravel()
    rows = [int(r) for r in counts.sum(axis=1)]
    if index == "oc":
        total, scale = sum(rows), 1
        v = counts.ravel().astype(object)
        slope = total * (k - 1)
    else:
        total = sum(r > 0 for r in rows)
        scale = math.lcm(*[r for r in rows if r]) if total else 1
        v = np.array(
            [[int(x) * (scale // rows[r]) if rows[r] else 0 for x in counts[r]] for r in range(k)], dtype=object
        ).ravel()
        slope = total * scale
    if total == 0:
        return None
    denominator = total * scale + int((v * dist).sum())
    paths = every_path(k).astype(object)
    sums = set(zip(paths.dot(v), paths.dot(v * dist)))
    return {(1 - Fraction(int(s), denominator), Fraction(int(t), slope)) for s, t in sums}


def brute(counts, index, beta):
    lines = exact_lines(counts, index)
    return math.nan if lines is None else float(min(a + Fraction(beta) * b for a, b in lines))


def brute_float(counts, index, beta, gamma):
    """Any gamma: every path's value in float64 (S, T per path by an incidence product)."""
    k = len(counts)
    counts = counts.astype(float)
    dist = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) ** gamma
    rows = counts.sum(axis=1, keepdims=True)
    if rows.sum() == 0:
        return math.nan
    if index == "oc":
        v, n = counts, counts.sum()
        disp, mu = (counts * dist).sum() ** (1 / gamma), beta / (n * (k - 1) ** gamma)
    else:
        v = np.divide(counts, rows, out=np.zeros_like(counts), where=rows > 0)
        n = float((rows > 0).sum())
        disp, mu = n ** (1 - 1 / gamma) * (v * dist).sum() ** (1 / gamma), beta / n
    paths = every_path(k)
    s, t = paths @ v.ravel(), paths @ (v * dist).ravel()
    return float(np.min(1 - s / (n + disp) + mu * t))


def exact_envelope(lines):
    """Pieces (x0, x1, A, B) of min over lines on [0, 1], walking left to right (at a tie, the flattest line)."""
    x, line = Fraction(0), min(lines)
    pieces = []
    while True:
        crossings = [((a - line[0]) / (line[1] - b), b, (a, b)) for a, b in lines if b < line[1]]
        ahead = [c for c in crossings if x < c[0] < 1]
        if not ahead:
            return pieces + [(x, Fraction(1), *line)]
        nxt, _, new = min(ahead)
        pieces.append((x, nxt, *line))
        x, line = nxt, new


def exact_auoc(counts):
    lines = exact_lines(counts, "uoc")
    if lines is None:
        return math.nan, []
    pieces = exact_envelope(lines)
    area = sum(a * (x1 - x0) + b * (x1 * x1 - x0 * x0) / 2 for x0, x1, a, b in pieces)
    return float(area), [float(p[0]) for p in pieces[1:]]


def close(got, expected, rtol=1e-12):
    """Equal to rtol; NaN matches NaN. An absolute 1e-15 covers values that are exactly 0 up to one rounding."""
    if math.isnan(expected):
        return math.isnan(got)
    return math.isclose(got, expected, rel_tol=rtol, abs_tol=1e-15)


# ---------------------------------------------------------------- against brute force


@FAST
@given(count_matrices())
def test_oc_and_uoc_equal_the_best_of_every_path(counts):
    for index, kernel in (("oc", oc), ("uoc", uoc)):
        for beta in BETAS:
            got = float(kernel(counts.astype(float), beta=beta))
            assert close(got, brute(counts, index, beta)), (index, beta, got)


@pytest.mark.parametrize("seed", range(3))
def test_k7_against_every_path(seed):
    counts = np.random.default_rng(seed).integers(0, 5, (7, 7))
    counts[seed] = 0
    for index, kernel in (("oc", oc), ("uoc", uoc)):
        for beta in BETAS:
            assert close(float(kernel(counts.astype(float), beta=beta)), brute(counts, index, beta))


@FAST
@given(count_matrices(max_k=5), st.sampled_from([0.5, 2.0, 3.0]), st.sampled_from([0.0, 0.25, 0.75]))
def test_other_gammas_against_every_path(counts, gamma, beta):
    for index, kernel in (("oc", oc), ("uoc", uoc)):
        got = float(kernel(counts.astype(float), beta=beta, gamma=gamma))
        assert close(got, brute_float(counts, index, beta, gamma), rtol=1e-11), (index, got)


@FAST
@given(count_matrices())
def test_auoc_is_the_exact_area_under_the_envelope(counts):
    expected, _ = exact_auoc(counts)
    got = float(auoc(counts.astype(float)))
    assert close(got, expected) if math.isnan(expected) else abs(got - expected) <= 1e-12


@settings(max_examples=25, deadline=None)
@given(count_matrices(max_k=5))
def test_auoc_agrees_with_adaptive_quadrature_of_uoc(counts):
    expected, breakpoints = exact_auoc(counts)
    if math.isnan(expected):
        return
    quad, _ = integrate.quad(
        lambda b: float(uoc(counts.astype(float), beta=b, gamma=1.0)),
        0,
        1,
        points=breakpoints or None,
        epsabs=1e-12,
        epsrel=0,
        limit=200,
    )
    assert abs(float(auoc(counts.astype(float))) - quad) <= 1e-9


def test_auoc_of_silva_2018_classifier_b_by_hand():
    """p has rows e2, e3, e3, e4; K' = 4, sum p d = 2. The diagonal path gives 1 - 2/6 = 2/3; the path
    (0,1), (1,2), (2,2), (3,3) gives 1 - 4/6 + beta * 2/4. They cross at beta = 2/3, so
    A_UOC = int_0^(2/3) (1/3 + b/2) db + (1/3)(2/3) = 5/9 (printed 0.56)."""
    b = np.array([[0, 4, 0, 0], [0, 0, 6, 0], [0, 0, 5, 0], [0, 0, 0, 3]], float)
    assert float(uoc(b, beta=0.25)) == pytest.approx(1 / 3 + 0.25 / 2, abs=1e-15)
    assert float(uoc(b, beta=0.75)) == pytest.approx(2 / 3, abs=1e-15)
    assert float(auoc(b)) == pytest.approx(5 / 9, abs=1e-15)


# ---------------------------------------------------------------- properties


@FAST
@given(count_matrices())
def test_oc_is_symmetric(counts):
    for beta in BETAS:
        assert close(float(oc(counts.T.astype(float), beta=beta)), float(oc(counts.astype(float), beta=beta)))


@FAST
@given(count_matrices())
def test_bounds(counts):
    values = [oc(counts.astype(float), beta=b) for b in BETAS] + [uoc(counts.astype(float), beta=b) for b in BETAS]
    values = np.array(values + [auoc(counts.astype(float))])
    if counts.sum() == 0:
        assert np.isnan(values).all()
    else:
        assert ((values >= 0) & (values <= 1)).all(), values


@FAST
@given(arrays(np.int64, st.integers(2, 10), elements=st.integers(0, 10**9)), st.sampled_from([0.5, 1.0, 2.0]))
def test_zero_exactly_on_a_diagonal_matrix(diagonal, gamma):
    if diagonal.sum() == 0:
        return
    for counts in (np.diag(diagonal), np.diag(diagonal).astype(float)):  # int64 and float64 counts alike
        for beta in BETAS:
            assert oc(counts, beta=beta, gamma=gamma) == 0.0
            assert uoc(counts, beta=beta, gamma=gamma) == 0.0
        assert auoc(counts) == 0.0


@FAST
@given(count_matrices(max_k=10), st.data())
def test_uoc_and_auoc_ignore_class_sizes(counts, data):
    """Scaling a true class's row by a positive integer changes nothing (Silva, Pinto & Cardoso 2018, classifiers D and F)."""
    row = data.draw(st.integers(0, len(counts) - 1))
    factor = data.draw(st.integers(1, 1000))
    for dtype in (np.int64, np.float64):
        scaled = counts.astype(dtype)
        scaled[row] *= factor
        for beta in BETAS:
            assert close(float(uoc(scaled, beta=beta)), float(uoc(counts.astype(dtype), beta=beta)), rtol=1e-15)
        assert close(float(auoc(scaled)), float(auoc(counts.astype(dtype))), rtol=1e-15)


def test_silva_2018_classifiers_d_and_f_score_the_same():
    d = np.array([[0, 4, 0, 0], [6, 0, 0, 0], [0, 0, 5, 0], [0, 0, 0, 3]], float)
    f = d.copy()
    f[0] *= 10
    assert uoc(f) == uoc(d) and uoc(f, beta=0.25) == uoc(d, beta=0.25) and auoc(f) == auoc(d)
    assert oc(f) != oc(d)  # OC is sensitive to the imbalance


@FAST
@given(count_matrices(), st.sampled_from([1.0, 2.0]))
def test_oc_closed_form_when_the_diagonal_is_optimal(counts, gamma):
    """Cardoso & Sousa Appendix A: for beta_raw >= 1/(N+1) OC = (M + H)/(M + N), H = N - trace, M the Minkowski distance."""
    n, k = counts.sum(), len(counts)
    if n == 0:
        return
    dist = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) ** gamma
    minkowski = float((counts * dist).sum()) ** (1 / gamma)
    hamming = float(n - np.trace(counts))
    beta = n * (k - 1) ** gamma / (n + 1)  # beta_raw = 1 / (N + 1) in ordframe's relative beta
    for factor in (1.0, 3.0):
        got = float(oc(counts.astype(float), beta=beta * factor, gamma=gamma))
        assert close(got, (minkowski + hamming) / (minkowski + n))


@pytest.mark.parametrize("k", [2, 3, 6])
@pytest.mark.parametrize("raw_beta", [0.0, 0.0313, 0.125, 0.5])
def test_oc_single_sample_formula(k, raw_beta):
    """Cardoso & Sousa Sec. 3.2: one sample at (r, c) gives OC = min(1, 1 - 1/(1+|r-c|) + beta_raw |r-c|)."""
    for r in range(k):
        for c in range(k):
            counts = np.zeros((k, k))
            counts[r, c] = 1
            gap = abs(r - c)
            expected = min(1.0, 1 - 1 / (1 + gap) + raw_beta * gap)
            assert close(float(oc(counts, beta=raw_beta * (k - 1))), expected)


@pytest.mark.parametrize("k", [2, 4, 7])
def test_auoc_of_a_single_sample(k):
    """One sample at distance g >= 1: UOC(beta) = min(1, g/(1+g) + beta g), so A_UOC = 1 - 1/(2 g (1+g)^2)."""
    for gap in range(k):
        counts = np.zeros((k, k))
        counts[k - 1 - gap, k - 1] = 1
        expected = 0.0 if gap == 0 else 1 - 1 / (2 * gap * (1 + gap) ** 2)
        assert float(auoc(counts)) == pytest.approx(expected, abs=1e-15)


@FAST
@given(count_matrices(), st.sampled_from([0.5, 1.0, 2.0]))
def test_uoc_stops_changing_at_beta_one(counts, gamma):
    """Silva, Pinto & Cardoso Sec. III-A: for beta >= 1 the optimal path is the diagonal."""
    at_one = float(uoc(counts.astype(float), beta=1.0, gamma=gamma))
    assert close(float(uoc(counts.astype(float), beta=7.5, gamma=gamma)), at_one)


def test_unobserved_rows_are_ignored_not_removed():
    """Silva, Pinto & Cardoso eq. 28: the path stays on the K x K grid with the original |r - c|; K' only normalises.

    Removing the empty row (and renumbering) would move class 4's correct
    predictions off the diagonal; eq. 28 keeps them on it.
    """
    counts = np.array([[3, 1, 0, 0], [0, 2, 0, 0], [0, 0, 0, 4], [0, 0, 0, 5]], float)
    counts[2] = 0  # class 3 never observed, but predicted
    counts[0, 2] = 2
    for beta in BETAS:
        assert close(float(uoc(counts, beta=beta)), brute(counts.astype(np.int64), "uoc", beta))
    assert close(float(uoc(np.diag([1.0, 2.0, 0.0, 4.0]))), 0.0)


# ---------------------------------------------------------------- degenerate input and parameters


def test_undefined_matrices_are_nan_inside_a_stack():
    stack = np.array([np.zeros((3, 3)), np.eye(3), [[0, 1, 0], [0, 0, 0], [0, 0, 0]]])
    for kernel in (oc, uoc, auoc):
        values = kernel(stack)
        assert np.isnan(values[0]) and values[1] == 0 and 0 < values[2] <= 1


@pytest.mark.parametrize("name", ["oc", "uoc", "auoc"])
def test_scalar_on_an_empty_matrix_warns_and_is_nan(name):
    cube = xr.DataArray(np.zeros((3, 3), np.int64), dims=("true", "pred"))
    with pytest.warns(RuntimeWarning, match=f"{name} is undefined"):
        assert math.isnan(getattr(cube.ordinal, name)())


@pytest.mark.parametrize("kernel", [oc, uoc])
@pytest.mark.parametrize(
    "beta, gamma, bad",
    [
        (-0.1, 1.0, -0.1),
        (math.nan, 1.0, math.nan),
        (math.inf, 1.0, math.inf),
        ("0.5", 1.0, "0.5"),
        (0.5, 0.0, 0.0),
        (0.5, -1.0, -1.0),
        (0.5, math.inf, math.inf),
        (True, 1.0, True),
        (0.5, 1e-300, 1e-300),
        (0.5, 1e300, 1e300),
        (0.5, 0.05, 0.05),
        (0.5, 11.0, 11.0),
    ],
)
def test_invalid_parameters_are_rejected(kernel, beta, gamma, bad):
    with pytest.raises(ValueError, match="beta" if bad is beta else "gamma") as info:
        kernel(np.eye(3), beta=beta, gamma=gamma)
    assert repr(bad) in str(info.value)


def test_empty_stack():
    for kernel in (oc, uoc, auoc):
        assert kernel(np.zeros((0, 4, 4))).shape == (0,)


# ---------------------------------------------------------------- registry and front ends


def test_declared_metrics():
    for name in ("oc", "uoc", "auoc"):
        metric = ordframe.get_metric(name)
        assert metric.kind == "confusion" and not metric.higher_is_better and metric.bounds == (0.0, 1.0)
        assert metric.undefined and metric.reference
    assert dict(ordframe.get_metric("oc").defaults) == {"beta": 0.75, "gamma": 1.0}
    assert dict(ordframe.get_metric("uoc").defaults) == {"beta": 0.75, "gamma": 1.0}
    assert dict(ordframe.get_metric("auoc").defaults) == {}


@pytest.fixture
def stacked():
    rng = np.random.default_rng(7)
    counts = rng.integers(0, 6, (3, 4, 5, 5))
    counts[0, 0] = 0  # empty: NaN
    counts[1, 2, 3] = 0  # an unobserved true class
    return xr.DataArray(
        counts,
        dims=("model", "fold", "true", "pred"),
        coords={"model": ["a", "b", "c"], "true": list("vwxyz"), "pred": list("vwxyz")},
    )


def _scalar(matrix: xr.DataArray, name, params):
    if not matrix.sum():
        with pytest.warns(RuntimeWarning, match="undefined"):
            return getattr(matrix.ordinal, name)(**params)
    return getattr(matrix.ordinal, name)(**params)


@pytest.mark.parametrize(
    "name, params",
    [("oc", {}), ("oc", {"beta": 0.25, "gamma": 2.0}), ("uoc", {}), ("uoc", {"beta": 0.1}), ("auoc", {})],
)
def test_single_matrix_stacked_and_dask_agree(stacked, name, params):
    cube = getattr(stacked.ordinal, name)(**params)
    assert cube.dims == ("model", "fold") and list(cube.model.values) == ["a", "b", "c"]
    single = [[_scalar(stacked.isel(model=i, fold=j), name, params) for j in range(4)] for i in range(3)]
    np.testing.assert_array_equal(cube.values, single)
    lazy = getattr(stacked.chunk({"model": 1, "fold": 2}).ordinal, name)(**params)
    assert lazy.chunks is not None  # still dask-backed before compute
    np.testing.assert_array_equal(lazy.compute().values, cube.values)
    kernel = ordframe.get_metric(name).kernel(stacked.size)  # the one that runs on it
    np.testing.assert_array_equal(kernel(stacked.values.astype(float), **params), cube.values)


def test_dataframe_front_end():
    rng = np.random.default_rng(3)
    df = pd.DataFrame({"y": rng.integers(0, 4, 400), "yhat": rng.integers(0, 4, 400), "model": rng.integers(0, 3, 400)})
    by_model = df.ordinal.uoc("y", "yhat", by="model", labels=[0, 1, 2, 3], beta=0.3)
    for model, group in df.groupby("model"):
        assert by_model.sel(model=model).item() == group.ordinal.uoc("y", "yhat", labels=[0, 1, 2, 3], beta=0.3)


def noisy_stack(k, m, seed):
    """Matrices of Poisson counts of mean 20 in every cell (an envelope of many pieces), some with empty rows, one
    empty: the lanes of a block end their searches after different numbers of rounds."""
    counts = np.random.default_rng(seed).poisson(20.0, (m, k, k))
    counts[::5, seed % k] = 0
    counts[3] = 0
    return counts


@pytest.mark.parametrize("k, seed", [(3, 0), (4, 1), (5, 2)])
def test_auoc_that_runs_is_the_exact_envelope_on_noisy_stacks(k, seed):
    """The kernel that runs (the compiled search, block by block, where numba is on) against the envelope of every
    path's line in exact arithmetic."""
    counts = noisy_stack(k, 40, seed)
    got = ordframe.get_metric("auoc").kernel(counts.size)(counts)
    exact = [exact_auoc(matrix) for matrix in counts]
    assert max(len(breakpoints) for _, breakpoints in exact) >= k - 1  # several rounds of DPs
    for value, (expected, _) in zip(got, exact):
        assert close(value, expected) if math.isnan(expected) else abs(value - expected) <= 1e-12


def test_auoc_that_runs_equals_the_numpy_search_where_its_stacks_grow():
    """At K = 60 a noisy matrix's search keeps more intervals pending than a lane's first stack holds."""
    counts = noisy_stack(60, 8, 0)
    got = ordframe.get_metric("auoc").kernel(counts.size)(counts)
    np.testing.assert_allclose(got, auoc(counts.astype(float)), rtol=1e-12, atol=1e-15)
