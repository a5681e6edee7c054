"""Brier and RPS decompositions (Murphy 1973; Dimitriadis, Gneiting & Jordan 2021), ordinal ECE, reliability curves."""

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import isotonic_regression

import ordframe  # noqa: F401  (registers the accessors)
from ordframe.metrics.calibration import COMPONENTS, decompose

COLUMNS = ["p0", "p1", "p2", "p3"]


def _frame(n, seed, *, decimals=None, groups=3):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(4), n)
    if decimals is not None:  # ties among the forecasts
        proba = np.round(proba, decimals)
        proba[:, -1] = 1 - proba[:, :-1].sum(axis=1)
        proba = np.clip(proba, 0, 1)
        proba /= proba.sum(axis=1, keepdims=True)
    df = pd.DataFrame(proba, columns=COLUMNS)
    df["y"] = rng.integers(0, 4, n)
    df["g"] = rng.integers(0, groups, n)
    df["w"] = rng.random(n) + 0.1
    return df


def _reference(x, y, w, method):
    """The decomposition of one threshold and group: textbook formulas on the distinct forecasts, one loop each."""
    total = w.sum()
    base = (w * y).sum() / total
    score = (w * (x - y) ** 2).sum() / total
    values, inverse = np.unique(x, return_inverse=True)
    n = np.bincount(inverse, w)
    freq = np.bincount(inverse, w * y) / n
    if method == "binned":  # Murphy (1973)
        rel = sum(n[j] * (values[j] - freq[j]) ** 2 for j in range(len(values))) / total
        res = sum(n[j] * (freq[j] - base) ** 2 for j in range(len(values))) / total
        ece = sum(abs(n[j] * (values[j] - freq[j])) for j in range(len(values))) / total
        return [score, rel, res, base * (1 - base)], ece
    fitted = isotonic_regression(freq, weights=n).x[inverse]  # PAV on the distinct forecasts
    recalibrated = (w * (fitted - y) ** 2).sum() / total
    unc = base * (1 - base)
    pools = np.unique(fitted)
    ece = sum(abs((w * (x - y))[fitted == v].sum()) for v in pools) / total
    return [score, score - recalibrated, unc - recalibrated, unc], ece


def _loop(df, method, *, by=None, weights=None):
    groups = [df] if by is None else [df[df[by] == g] for g in sorted(df[by].unique())]
    components, eces = [], []
    for part in groups:
        w = np.ones(len(part)) if weights is None else part[weights].to_numpy()
        rows = []
        row_ece = []
        for k in range(3):
            x = part[COLUMNS[: k + 1]].to_numpy().sum(axis=1)
            y = (part["y"].to_numpy() <= k).astype(float)
            c, e = _reference(x, y, w, method)
            rows.append(c)
            row_ece.append(e)
        components.append(rows)
        eces.append(row_ece)
    return np.array(components), np.array(eces)


@pytest.mark.parametrize("method", ["corp", "binned"])
@pytest.mark.parametrize("by", [None, "g"])
@pytest.mark.parametrize("weights", [None, "w"])
@pytest.mark.parametrize("decimals", [None, 1])
def test_against_a_loop_per_threshold_and_group(method, by, weights, decimals):
    df = _frame(400, seed=1, decimals=decimals)
    ds = df.ordinal.calibration("y", COLUMNS, method=method, by=by, weights=weights)
    expected, ece = _loop(df, method, by=by, weights=weights)
    got = ds["brier"].values.reshape(expected.shape)
    np.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ds["ece"].values.reshape(ece.shape), ece, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ds["ordinal_ece"].values.reshape(-1), ece.mean(axis=1), rtol=0, atol=1e-12)


@pytest.mark.parametrize("method", ["corp", "binned"])
def test_identity_and_rps(method):
    df = _frame(1000, seed=2, decimals=2)
    ds = df.ordinal.calibration("y", COLUMNS, method=method, by="g")
    for name in ("brier", "rps"):
        score, cal, res, unc = (ds[name].isel(component=i) for i in range(4))
        assert float(abs(score - (cal - res + unc)).max()) <= 1e-12
    rps = df.ordinal.rps("y", COLUMNS, by="g")
    np.testing.assert_allclose(ds["rps"].sel(component="score"), rps, rtol=0, atol=1e-12)
    plain = df.ordinal.calibration("y", COLUMNS, method=method, by="g", normalize=False)
    np.testing.assert_allclose(plain["rps"], ds["rps"] * 3, rtol=0, atol=1e-12)
    np.testing.assert_allclose(ds["brier"].sum("threshold") / 3, ds["rps"], rtol=0, atol=1e-12)


probabilities = st.lists(
    st.tuples(
        st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.6, 0.75, 1.0, 1 / 3]), min_size=3, max_size=3),
        st.integers(0, 3),
        st.floats(0.01, 10.0),
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(rows=probabilities, method=st.sampled_from(["corp", "binned"]), weighted=st.booleans())
def test_brier_components_against_the_textbook_formula(rows, method, weighted):
    raw = np.array([r[0] for r in rows])
    proba = np.concatenate([raw, np.ones((len(rows), 1))], axis=1)
    proba /= proba.sum(axis=1, keepdims=True)
    true = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows]) if weighted else None
    components, ece = decompose(proba, true, weights=w, method=method)
    for k in range(3):
        x = proba[:, : k + 1].sum(axis=1)
        expected, expected_ece = _reference(x, (true <= k).astype(float), np.ones(len(x)) if w is None else w, method)
        np.testing.assert_allclose(components[0, k], expected, rtol=0, atol=1e-12)
        assert abs(ece[0, k] - expected_ece) <= 1e-12
    assert np.all(components[0, :, 1:] >= 0)  # every term is >= 0 (REL, RES, MCB, DSC, UNC), rounding too


def test_fast_path_equals_the_general_one():
    """Without weights and groups the forecasts are sorted with their outcomes packed into one key."""
    df = _frame(2000, seed=3, decimals=3)
    proba, true = df[COLUMNS].to_numpy(), df["y"].to_numpy()
    for method in ("corp", "binned"):
        fast, fast_ece = decompose(proba, true, method=method)
        general, general_ece = decompose(proba, true, weights=np.ones(len(df)), method=method)
        np.testing.assert_allclose(fast, general, rtol=0, atol=1e-14)
        np.testing.assert_allclose(fast_ece, general_ece, rtol=0, atol=1e-14)


def test_perfect_calibration_and_climatology():
    rng = np.random.default_rng(4)
    # the forecast is the true conditional distribution of y given a discrete feature: calibrated in the limit
    feature = rng.integers(0, 5, 200_000)
    table = rng.dirichlet(np.ones(4), 5)
    true = (rng.random(len(feature))[:, None] > np.cumsum(table[feature], axis=1)).sum(axis=1)
    df = pd.DataFrame(table[feature], columns=COLUMNS).assign(y=true)
    ds = df.ordinal.calibration("y", COLUMNS, method="binned")
    assert float(ds["brier"].sel(component="reliability").max()) < 1e-4
    assert float(ds["ordinal_ece"]) < 5e-3
    # a forecast that is its own observed frequency is calibrated exactly (in-sample): REL = MCB = ECE = 0
    observed = np.stack([np.bincount(feature, true == c, minlength=5) / np.bincount(feature) for c in range(4)], 1)
    exact = pd.DataFrame(observed[feature], columns=COLUMNS).assign(y=true)
    for method in ("corp", "binned"):
        ds = exact.ordinal.calibration("y", COLUMNS, method=method)
        assert float(abs(ds["brier"].isel(component=1)).max()) < 1e-12
        assert float(ds["ordinal_ece"]) < 1e-12
    # climatology: no resolution, no discrimination
    clim = pd.DataFrame(np.tile(np.bincount(true, minlength=4) / len(true), (len(true), 1)), columns=COLUMNS)
    ds = clim.assign(y=true).ordinal.calibration("y", COLUMNS)
    assert float(abs(ds["brier"].isel(component=[1, 2])).max()) < 1e-12


def test_array_accessor_equals_the_frame():
    df = _frame(600, seed=5)
    df["g"] = np.repeat([0, 1, 2], 200)
    proba = xr.DataArray(
        df[COLUMNS].to_numpy().reshape(3, 200, 4),
        dims=("g", "sample", "class"),
        coords={"g": [0, 1, 2], "class": [0, 1, 2, 3]},
    )
    true = xr.DataArray(df["y"].to_numpy().reshape(3, 200), dims=("g", "sample"), coords={"g": [0, 1, 2]})
    for method in ("corp", "binned"):
        by_array = proba.ordinal.calibration(true, dim="sample", method=method)
        by_frame = df.ordinal.calibration("y", COLUMNS, by="g", method=method)
        xr.testing.assert_allclose(by_array, by_frame)


def test_empty_group_is_nan_with_a_warning():
    df = _frame(50, seed=6)
    df["g"] = pd.Categorical(np.zeros(len(df), int), categories=[0, 1])
    with pytest.warns(RuntimeWarning, match="1 of 2 groups have no sample"):
        ds = df.ordinal.calibration("y", COLUMNS, by="g")
    assert bool(ds["rps"].sel(g=1).isnull().all()) and bool(ds["rps"].sel(g=0).notnull().all())


def test_bad_method():
    with pytest.raises(ValueError, match="method must be 'corp'.*got 'pav'"):
        _frame(10, seed=0).ordinal.calibration("y", COLUMNS, method="pav")


def test_reliability_curves_and_bands():
    df = _frame(300, seed=7, decimals=2)
    r = df.ordinal.reliability("y", COLUMNS, by="g", seed=0, n_resamples=50)
    again = df.ordinal.reliability("y", COLUMNS, by="g", seed=0, n_resamples=50)
    xr.testing.assert_identical(r, again)
    for g in range(3):
        part = df[df["g"] == g]
        for k in range(3):
            x = part[COLUMNS[: k + 1]].to_numpy().sum(axis=1)
            y = (part["y"].to_numpy() <= k).astype(float)
            values, inverse = np.unique(x, return_inverse=True)
            n = np.bincount(inverse)
            fitted = isotonic_regression(np.bincount(inverse, y) / n, weights=n.astype(float)).x
            curve = r.sel(g=g, threshold=k)
            keep = curve["forecast"].notnull().values
            np.testing.assert_array_equal(curve["forecast"].values[keep], values)
            np.testing.assert_allclose(curve["observed"].values[keep], fitted, atol=1e-12)
            np.testing.assert_allclose(curve["weight"].values[keep], n / n.sum(), atol=1e-15)
            lower, upper = curve["lower"].values[keep], curve["upper"].values[keep]
            assert np.all(lower <= upper)
            # the bands of calibrated outcomes drawn from the forecasts straddle the diagonal for most forecasts
            assert np.mean((lower <= values + 1e-12) & (values <= upper + 1e-12)) > 0.8


def test_plotted_data():
    pytest.importorskip("matplotlib")
    import matplotlib

    matplotlib.use("Agg")
    import ordframe.plot

    df = _frame(200, seed=8, decimals=1)
    r = df.ordinal.reliability("y", COLUMNS, seed=0, n_resamples=30)
    fig = ordframe.plot.reliability(r)
    assert len(fig.axes) == 3
    for k, ax in enumerate(fig.axes):
        (curve,) = [line for line in ax.get_lines() if line.get_gid() == "curve"]
        keep = r["forecast"].sel(threshold=k).notnull().values
        np.testing.assert_allclose(curve.get_xdata(), r["forecast"].sel(threshold=k).values[keep])
        np.testing.assert_allclose(curve.get_ydata(), r["observed"].sel(threshold=k).values[keep])
        assert f"{float(r['brier'].sel(threshold=k, component='score')):.3f}" in ax.texts[0].get_text()
    with pytest.raises(TypeError, match="reliability plots the Dataset"):
        ordframe.plot.reliability(df.ordinal.calibration("y", COLUMNS))


@settings(max_examples=60, deadline=None)
@given(
    rows=probabilities,
    method=st.sampled_from(["corp", "binned"]),
    weighted=st.booleans(),
    groups=st.integers(0, 3),
    data=st.data(),
)
def test_compiled_kernels_equal_numpy(rows, method, weighted, groups, data):
    """With numba (the ``numba`` extra) the keys, bins and PAV pools are compiled; numpy alone gives the same
    decomposition and ECE (the pools of the compiled PAV are the runs of equal values of scipy's isotonic
    regression), with and without weights and groups."""
    from ordframe._core import options

    if not options.COMPILED:
        pytest.skip("numba not installed, or turned off by ORDFRAME_NUMBA=0")
    raw = np.array([r[0] for r in rows])
    proba = np.concatenate([raw, np.ones((len(rows), 1))], axis=1)
    proba /= proba.sum(axis=1, keepdims=True)
    true = np.array([r[1] for r in rows])
    w = np.array([r[2] for r in rows]) if weighted else None
    group = (
        np.array(data.draw(st.lists(st.integers(0, groups - 1), min_size=len(rows), max_size=len(rows))))
        if groups
        else None
    )
    args = (proba, true, group, max(groups, 1), w, method)
    with np.errstate(invalid="ignore"):
        compiled = decompose(*args)
        options.COMPILED = False
        try:
            plain = decompose(*args)
        finally:
            options.COMPILED = True
    for fast, slow in zip(compiled, plain, strict=True):
        np.testing.assert_allclose(fast, slow, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=pytest.mark.compiled), False])
def test_corp_components_of_a_constant_forecast_are_not_negative_by_rounding(compiled):
    """PAV pools a constant forecast into one bin whose recalibrated score is UNC computed another way: 1 ulp
    above it gave DSC = -5.6e-17. MCB and DSC are clipped at 0 and the identity still holds to rounding."""
    from ordframe._core import options

    if compiled and not options.COMPILED:
        pytest.skip("numba not installed, or turned off by ORDFRAME_NUMBA=0")
    df = pd.DataFrame({"y": [0, 1, 2, 2, 1], "p0": 0.2, "p1": 0.3, "p2": 0.5})
    enabled = options.COMPILED
    options.COMPILED = compiled
    try:
        ds = df.ordinal.calibration("y", ["p0", "p1", "p2"])
    finally:
        options.COMPILED = enabled
    for name in ("brier", "rps"):
        score, mcb, dsc, unc = (ds[name].sel(component=c) for c in COMPONENTS["corp"])
        assert (mcb >= 0).all() and (dsc >= 0).all()
        assert float(abs(score - (mcb - dsc + unc)).max()) <= 1e-15
    np.testing.assert_allclose(ds["brier"].sel(component="discrimination"), 0, atol=1e-15)  # no discrimination


@pytest.mark.parametrize("compiled", [pytest.param(True, marks=pytest.mark.compiled), False])
def test_pools_of_equal_frequency_are_one_pool(compiled):
    """Two forecasts (0.2 and 0.8) with the same observed frequency 1/2 have one isotonic value: one PAV pool,
    so the CORP ECE is |sum (x - y)| / N = 0 over it, not the sum over the two forecasts (0.3)."""
    from ordframe._core import options

    if compiled and not options.COMPILED:
        pytest.skip("numba not installed, or turned off by ORDFRAME_NUMBA=0")
    proba = np.array([[0.2, 0.8], [0.2, 0.8], [0.8, 0.2], [0.8, 0.2]])
    true = np.array([0, 1, 0, 1])
    enabled = options.COMPILED
    options.COMPILED = compiled
    try:
        components, ece = decompose(proba, true)
    finally:
        options.COMPILED = enabled
    expected, expected_ece = _reference(proba[:, 0], (true == 0).astype(float), np.ones(4), "corp")
    np.testing.assert_allclose(components[0, 0], expected, rtol=0, atol=1e-15)
    assert expected_ece == 0 and ece[0, 0] == 0


@pytest.mark.parametrize("method", ["corp", "binned"])
def test_no_samples_is_nan_in_both_paths(method):
    from ordframe._core import options

    enabled = options.COMPILED
    for compiled in {False, enabled}:
        options.COMPILED = compiled
        try:
            with np.errstate(invalid="ignore", divide="ignore"):
                components, ece = decompose(np.zeros((0, 4)), np.zeros(0, np.int64), method=method)
        finally:
            options.COMPILED = enabled
        assert components.shape == (1, 3, 4) and np.isnan(components).all() and np.isnan(ece).all()
