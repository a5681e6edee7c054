"""Scoring rules for class probabilities (Galdran 2023): kernels, properties, validation and the accessors."""

import numpy as np
import pandas as pd
import properscoring
import pytest
import xarray as xr
import xskillscore as xs
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ordframe
from ordframe._papers import PROBA_CASES, iter_checks, metric_name
from ordframe.metrics.proba import brier, log_score, rps, sarps, unimodality

KERNELS = {"rps": rps, "sarps": sarps, "brier": brier, "log_score": log_score}

# The example shared by the dlordinal and skordinal test suites.
Y_EX = np.array([0, 0, 3, 2])
P_EX = np.array([[0.2, 0.4, 0.2, 0.2], [0.7, 0.1, 0.1, 0.1], [0.5, 0.05, 0.1, 0.35], [0.1, 0.05, 0.65, 0.2]])


def as_arrays(proba, true, classes=None):
    proba = np.asarray(proba, dtype=float)
    k = proba.shape[-1]
    dims = [f"d{i}" for i in range(proba.ndim - 1)]
    p = xr.DataArray(proba, dims=(*dims, "class"), coords={"class": list(range(k)) if classes is None else classes})
    return p, xr.DataArray(np.asarray(true), dims=dims)


@st.composite
def proba_rows(draw, k=None, n=None, min_k=2, max_k=7):
    """``(proba (n, K), true (n,))`` with rows on the simplex (exact sums up to rounding)."""
    k = draw(st.integers(min_k, max_k)) if k is None else k
    n = draw(st.integers(1, 20)) if n is None else n
    raw = draw(arrays(np.float64, (n, k), elements=st.floats(0, 1)))
    raw[raw.sum(axis=1) == 0, 0] = 1.0
    true = draw(arrays(np.int64, n, elements=st.integers(0, k - 1)))
    return raw / raw.sum(axis=1, keepdims=True), true


# ---------------------------------------------------------------------------- published values


@pytest.mark.parametrize("case, key", list(iter_checks(PROBA_CASES)), ids=lambda v: getattr(v, "id", v))
def test_galdran_2023_values(case, key):
    metric = ordframe.get_metric(metric_name(key))
    params = dict(case.params.get(key, {}))
    proba, true = as_arrays([case.proba], [case.true_index])
    got = getattr(proba.ordinal, metric.name)(true, **params)
    assert abs(got - case.values[key]) <= case.abs_tol(key)


def test_galdran_eq3_brier_and_log_agree_rps_does_not():
    # Galdran (2023), Sec. 2.2: for y = [1, 0, 0] "both the Brier and the Logarithmic scores produce the same penalty"
    # for p1 = [1/4, 3/4, 0] and p2 = [1/4, 0, 3/4], while a distance-sensitive score prefers p1.
    proba, true = as_arrays([[0.25, 0.75, 0.0], [0.25, 0.0, 0.75]], [0, 0])
    for name in ("brier", "log_score"):
        first, second = getattr(proba.ordinal, name)(true, dim=[]).values
        assert first == pytest.approx(second, abs=1e-15)
    for name in ("rps", "sarps"):
        first, second = getattr(proba.ordinal, name)(true, dim=[]).values
        assert first < second


def test_dlordinal_skordinal_example():
    proba, true = as_arrays(P_EX, Y_EX)
    assert proba.ordinal.rps(true, normalize=False) == pytest.approx(0.506875, abs=1e-12)
    assert abs(proba.ordinal.rps(true) - 0.168958) <= 5e-7  # printed to 6 decimals


def test_the_frame_and_array_forms_agree():
    df = pd.DataFrame(P_EX, columns=["p0", "p1", "p2", "p3"]).assign(y=Y_EX)
    proba, true = as_arrays(P_EX, Y_EX)
    for name in KERNELS:
        by_list = getattr(df.ordinal, name)("y", ["p0", "p1", "p2", "p3"], labels=[0, 1, 2, 3])
        by_dict = getattr(df.ordinal, name)("y", {3: "p3", 1: "p1", 0: "p0", 2: "p2"})
        assert by_list == pytest.approx(getattr(proba.ordinal, name)(true)) == pytest.approx(by_dict)


# ---------------------------------------------------------------------------- peers and brute force


@given(proba_rows())
@settings(max_examples=100, deadline=None)
def test_agrees_with_xskillscore(data):
    proba, true = data
    k = proba.shape[1]
    obs = xr.DataArray(np.eye(k)[true], dims=("sample", "category"))
    fct = xr.DataArray(proba, dims=("sample", "category"))
    expected = xs.rps(obs, fct, None, dim=[], input_distributions="p").values
    p, t = as_arrays(proba, true)
    np.testing.assert_allclose(p.ordinal.rps(t, dim=[], normalize=False).values, expected, atol=1e-12)


def _brute(name, p, y, eps=1e-15):
    """The definitions of Galdran (2023) eqs. 1, 2, 4 and 7, one sample at a time (properscoring style)."""
    k = len(p)
    onehot = [1.0 if i == y else 0.0 for i in range(k)]
    cum = [(sum(p[: i + 1]), sum(onehot[: i + 1])) for i in range(k)]
    if name == "rps":
        return sum((a - b) ** 2 for a, b in cum[:-1]) / (k - 1)
    if name == "sarps":
        return sum(abs(a - b) for a, b in cum) ** 2 / (k - 1)
    if name == "brier":
        return sum((a - b) ** 2 for a, b in zip(p, onehot))
    return -np.log(min(max(p[y], eps), 1.0))


@pytest.mark.parametrize("name", KERNELS)
@given(data=proba_rows())
@settings(max_examples=100, deadline=None)
def test_kernels_match_the_definitions(name, data):
    proba, true = data
    got = KERNELS[name](proba, true)
    expected = [_brute(name, list(p), y) for p, y in zip(proba, true)]
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)


@given(proba_rows(k=2))
@settings(max_examples=100, deadline=None)
def test_two_classes_rps_is_the_squared_error_of_p1(data):
    proba, true = data
    squared_error = properscoring.brier_score(true == 1, proba[:, 1])
    np.testing.assert_allclose(rps(proba, true), squared_error, atol=1e-15)
    np.testing.assert_allclose(sarps(proba, true), squared_error, atol=1e-15)
    np.testing.assert_allclose(brier(proba, true), 2 * squared_error, atol=1e-15)


# ---------------------------------------------------------------------------- properties


def _expected_score(kernel, q, proba):
    """E_{y ~ q} S(p, y) for each row p of ``proba``."""
    return sum(q[y] * kernel(proba, np.full(len(proba), y)) for y in range(len(q)))


@pytest.mark.parametrize("name", ["rps", "brier", "log_score"])
@given(q=proba_rows(n=1, min_k=2, max_k=6), others=st.integers(0, 2**32 - 1))
@settings(max_examples=60, deadline=None)
def test_proper(name, q, others):
    q = q[0][0]
    rng = np.random.default_rng(others)
    candidates = np.vstack([rng.dirichlet(np.ones(len(q)), 200), np.eye(len(q)), np.full(len(q), 1 / len(q))])
    at_truth = _expected_score(KERNELS[name], q, q[None])[0]
    assert at_truth <= _expected_score(KERNELS[name], q, candidates).min() + 1e-12


def test_sarps_is_not_proper():
    # With q = (1/3, 1/3, 1/3) the honest forecast expects 11/27, the middle class alone 1/3.
    q = np.full(3, 1 / 3)
    assert _expected_score(sarps, q, q[None])[0] == pytest.approx(11 / 27)
    assert _expected_score(sarps, q, np.array([[0.0, 1.0, 0.0]]))[0] == pytest.approx(1 / 3)


@given(proba_rows())
@settings(max_examples=100, deadline=None)
def test_bounds(data):
    proba, true = data
    k = proba.shape[1]
    assert ((rps(proba, true) >= 0) & (rps(proba, true) <= 1 + 1e-12)).all()
    assert (rps(proba, true, normalize=False) <= k - 1 + 1e-12).all()
    # eq. 7 as printed lies in [0, K - 1]: Galdran's "still varies in [0, 1]" holds for K = 2 only.
    assert ((sarps(proba, true) >= 0) & (sarps(proba, true) <= k - 1 + 1e-12)).all()
    assert ((brier(proba, true) >= 0) & (brier(proba, true) <= 2 + 1e-12)).all()
    assert (log_score(proba, true) >= 0).all()


@pytest.mark.parametrize("k", [2, 3, 5])
def test_bounds_are_reached(k):
    first, last = np.eye(k)[[0]], np.eye(k)[[-1]]
    assert rps(last, np.array([0]))[0] == 1
    assert sarps(last, np.array([0]))[0] == k - 1
    assert brier(last, np.array([0]))[0] == 2
    assert rps(first, np.array([0]))[0] == sarps(first, np.array([0]))[0] == brier(first, np.array([0]))[0] == 0


@st.composite
def moves(draw):
    """A sample, and the same sample with mass moved one class further from its true class."""
    proba, true = draw(proba_rows(n=1, min_k=3))
    p, y = proba[0], int(true[0])
    k = len(p)
    sources = [j for j in range(k) if p[j] > 0 and ((j >= y and j + 1 < k) or (j <= y and j > 0))]
    if not sources:
        p = np.full(k, 1 / k)
        sources = [j for j in range(k) if (j >= y and j + 1 < k) or (j <= y and j > 0)]
    j = draw(st.sampled_from(sources))
    to = j + 1 if j >= y and j + 1 < k else j - 1
    amount = draw(st.floats(0, 1)) * p[j]
    moved = p.copy()
    moved[j] -= amount
    moved[to] += amount
    return p, moved, y


@pytest.mark.parametrize("name", ["rps", "sarps"])
@given(moves())
@settings(max_examples=150, deadline=None)
def test_moving_mass_away_never_lowers_the_distance_sensitive_scores(name, move):
    p, moved, y = move
    before, after = (KERNELS[name](v[None], np.array([y]))[0] for v in (p, moved))
    assert after >= before - 1e-12


def test_brier_and_log_score_are_blind_to_distance():
    # y = class 1 of 4. Moving mass from class 2 to class 3 (further from the truth) lowers Brier,
    # leaves the log score unchanged, and raises RPS and sa-RPS.
    y = np.array([0])
    near, far = np.array([[0.4, 0.6, 0.0, 0.0]]), np.array([[0.4, 0.3, 0.3, 0.0]])
    assert brier(far, y) < brier(near, y)
    assert log_score(far, y) == log_score(near, y)
    assert rps(far, y) > rps(near, y) and sarps(far, y) > sarps(near, y)


def test_log_score_clip():
    assert log_score(np.array([[0.0, 1.0]]), np.array([0]))[0] == pytest.approx(-np.log(1e-15))
    assert log_score(np.array([[0.0, 1.0]]), np.array([0]), eps=1e-3)[0] == pytest.approx(-np.log(1e-3))
    with pytest.raises(ValueError, match="eps must be a number in"):
        log_score(np.array([[0.5, 0.5]]), np.array([0]), eps=0)


# ---------------------------------------------------------------------------- the bridge


def test_dim_and_per_sample_scores():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(4), size=(3, 50))
    true = rng.integers(0, 4, 50)
    p, _ = as_arrays(proba, np.zeros((3, 50), int))
    p = p.rename(d0="model", d1="sample").assign_coords(model=["a", "b", "c"])
    t = xr.DataArray(true, dims="sample")
    per_sample = p.ordinal.rps(t, dim=[])
    assert per_sample.dims == ("model", "sample")
    np.testing.assert_allclose(per_sample.values, rps(proba, np.broadcast_to(true, (3, 50))))
    per_model = p.ordinal.rps(t, dim="sample")
    np.testing.assert_allclose(per_model.values, per_sample.values.mean(axis=1))
    assert p.ordinal.rps(t) == pytest.approx(per_sample.values.mean())
    with pytest.raises(ValueError, match=r"dim \['fold'\] not found"):
        p.ordinal.rps(t, dim="fold")


def test_weights():
    rng = np.random.default_rng(2)
    proba = rng.dirichlet(np.ones(3), size=40)
    true = rng.integers(0, 3, 40)
    w = rng.random(40)
    p, t = as_arrays(proba, true)
    expected = np.average(rps(proba, true), weights=w)
    assert p.ordinal.rps(t, weights=xr.DataArray(w, dims="d0")) == pytest.approx(expected)
    df = pd.DataFrame(proba, columns=["a", "b", "c"]).assign(y=true, w=w)
    assert df.ordinal.rps("y", ["a", "b", "c"], weights="w") == pytest.approx(expected)
    assert df.ordinal.rps("y", ["a", "b", "c"], weights=w) == pytest.approx(expected)
    with pytest.raises(ValueError, match="weights must be finite and >= 0"):
        p.ordinal.rps(t, weights=xr.DataArray(-w, dims="d0"))


def test_frame_by_groups():
    rng = np.random.default_rng(3)
    proba = rng.dirichlet(np.ones(3), size=60)
    df = pd.DataFrame(proba, columns=["a", "b", "c"]).assign(
        y=rng.integers(0, 3, 60), model=rng.choice(["m1", "m2"], 60), fold=rng.integers(0, 3, 60)
    )
    result = df.ordinal.sarps("y", ["a", "b", "c"], by=["model", "fold"])
    assert result.dims == ("model", "fold")
    scores = sarps(proba, df["y"].to_numpy())
    for (model, fold), rows in df.groupby(["model", "fold"]):
        assert float(result.sel(model=model, fold=fold)) == pytest.approx(scores[rows.index].mean())


def test_empty_frame_is_nan_with_a_warning():
    df = pd.DataFrame({"y": pd.Series([], dtype=int), "a": [], "b": []})
    with pytest.warns(RuntimeWarning, match="rps is undefined for this input and is NaN: there are no samples"):
        assert np.isnan(df.ordinal.rps("y", {0: "a", 1: "b"}))


def test_third_party_proba_metric(restore_registry):
    def absolute_error(proba, true):
        return np.abs((proba * np.arange(proba.shape[-1])).sum(axis=-1) - true)

    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [
                ordframe.Metric("expected_class_error", "proba", absolute_error, False),
                ordframe.Metric("bad_shape", "proba", lambda proba, true: proba, False),
            ]

    ordframe.register(Plugin())
    proba, true = as_arrays(P_EX, Y_EX)
    assert proba.ordinal.expected_class_error(true) == pytest.approx(np.mean(absolute_error(P_EX, Y_EX)))
    with pytest.raises(ValueError, match="metric 'bad_shape': its kernel returned shape"):
        proba.ordinal.bad_shape(true)


# ---------------------------------------------------------------------------- validation errors


@pytest.fixture
def frame():
    return pd.DataFrame(P_EX, columns=["a", "b", "c", "d"], index=list("wxyz")).assign(y=Y_EX)


COLUMNS = ["a", "b", "c", "d"]
LABELS = [0, 1, 2, 3]


def test_nan_probabilities(frame):
    frame.loc["x", "b"] = np.nan
    with pytest.raises(ValueError, match=r"1 row\(s\) with NaN probabilities, first at rows \['x'\]"):
        frame.ordinal.rps("y", COLUMNS, labels=LABELS)
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 1 of 4 rows"):
        got = frame.ordinal.rps("y", COLUMNS, labels=LABELS, dropna=True)
    assert got == pytest.approx(rps(P_EX[[0, 2, 3]], Y_EX[[0, 2, 3]]).mean())


def mixed_models(seed=0, n=60):
    """Three models of the same samples and 3 folds; model "labels" has no probabilities (NaN columns)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    parts = []
    for model in ("a", "b", "labels"):
        p = rng.dirichlet(np.ones(3), n)
        part = pd.DataFrame(
            {"y": y, "yhat": p.argmax(1), "model": model, "fold": np.arange(n) % 3, "w": rng.uniform(1, 2, n)}
        )
        part[["p0", "p1", "p2"]] = np.nan if model == "labels" else p
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


PROBA_COLUMNS = ["p0", "p1", "p2"]


@pytest.mark.parametrize("shape", ["fresh", "shuffled", "filtered", "reindexed"])
def test_a_model_without_probabilities_keeps_its_label_metrics_in_one_evaluate(shape):
    df = mixed_models()
    if shape == "shuffled":
        df = df.sample(frac=1, random_state=1)
    elif shape == "filtered":
        df = df[df["y"] != 1]
    elif shape == "reindexed":
        df = df.set_index(pd.Index(np.arange(len(df))[::-1] * 7))
    metrics = ["mae", "qwk", "rps", "brier"]
    common = {"by": "model", "weights": "w", "labels": [0, 1, 2]}
    with pytest.warns(RuntimeWarning, match=r"1 group\(s\) have no class probabilities in any row \(model='labels'\)"):
        ds = df.ordinal.evaluate("y", "yhat", proba=PROBA_COLUMNS, metrics=metrics, **common)
    labels = df.ordinal.evaluate("y", "yhat", metrics=["mae", "qwk"], **common)
    scored = df[df["model"] != "labels"]
    scores = scored.ordinal.evaluate("y", proba=PROBA_COLUMNS, metrics=["rps", "brier"], **common)
    xr.testing.assert_allclose(ds[["mae", "qwk"]], labels)
    xr.testing.assert_allclose(ds[["rps", "brier"]].sel(model=["a", "b"]), scores)
    assert ds["rps"].sel(model="labels").isnull() and ds["brier"].sel(model="labels").isnull()


def test_the_group_without_probabilities_is_named_by_its_value_for_a_narrow_integer_column():
    df = mixed_models()
    df["model"] = df["model"].map({"a": -100, "b": 0, "labels": 100}).astype(np.int8)  # 100 + 100 wraps in int8
    with pytest.warns(RuntimeWarning, match=r"1 group\(s\) have no class probabilities in any row \(model=100\)"):
        df.ordinal.evaluate("y", "yhat", proba=PROBA_COLUMNS, metrics=["mae", "rps"], by="model", labels=[0, 1, 2])


@pytest.mark.filterwarnings("ignore:.*class probabilities:RuntimeWarning")
def test_groups_without_probabilities_are_the_by_groups():
    df = mixed_models()
    df.loc[(df["model"] == "a") & (df["fold"] == 1), PROBA_COLUMNS] = np.nan  # one fold of a has none
    ds = df.ordinal.evaluate("y", "yhat", proba=PROBA_COLUMNS, by=["model", "fold"], metrics=["mae", "rps"])
    missing = ds["rps"].isnull().to_pandas()
    assert missing.loc["labels"].all() and missing.loc["a", 1] and missing.sum().sum() == 4
    assert ds["mae"].notnull().all()


@pytest.mark.filterwarnings("ignore:.*class probabilities:RuntimeWarning")
def test_missing_probabilities_within_a_scored_group_are_an_error_or_dropped():
    df = mixed_models()
    df.loc[3, "p1"] = np.nan  # a row of model a
    message = (
        r"1 row\(s\) with NaN probabilities, first at rows \[3\] \(pass dropna=True .* is kept: only its probability"
    )
    with pytest.raises(ValueError, match=message):
        df.ordinal.evaluate("y", "yhat", proba=PROBA_COLUMNS, by="model", metrics=["mae", "rps"])
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 1 of 180 rows"):
        ds = df.ordinal.evaluate("y", "yhat", proba=PROBA_COLUMNS, by="model", metrics=["mae", "rps"], dropna=True)
    kept = df.drop(index=3)
    assert float(ds["mae"].sel(model="a")) == pytest.approx(kept[kept["model"] == "a"].ordinal.mae("y", "yhat"))
    assert ds["mae"].sel(model="labels").notnull() and ds["rps"].sel(model="labels").isnull()


@pytest.mark.filterwarnings("ignore:.*class probabilities:RuntimeWarning")
def test_without_labels_or_groups_missing_probabilities_stay_an_error():
    df = mixed_models()
    with pytest.raises(ValueError, match="with NaN probabilities"):  # no pred: nothing else to score
        df.ordinal.evaluate("y", proba=PROBA_COLUMNS, by="model", metrics=["rps"])
    with pytest.raises(ValueError, match="with NaN probabilities"):
        df.ordinal.rps("y", PROBA_COLUMNS, by="model")
    alone = df[df["model"] == "labels"]  # no by: the one group has no probabilities
    ds = alone.ordinal.evaluate("y", "yhat", proba=PROBA_COLUMNS, metrics=["mae", "rps"])
    assert float(ds["mae"]) == pytest.approx(alone.ordinal.mae("y", "yhat")) and ds["rps"].isnull()


@pytest.mark.filterwarnings("ignore:.*class probabilities:RuntimeWarning")
def test_a_model_without_probabilities_in_the_paired_bootstrap():
    df = mixed_models()
    boot = df.ordinal.evaluate(
        "y", "yhat", proba=PROBA_COLUMNS, by="model", metrics=["mae", "rps"], n_resamples=300, seed=0, strata="fold"
    )
    assert boot["rps"].sel(model="labels").isnull().all() and boot["mae"].notnull().all()
    assert boot["rps"].sel(model=["a", "b"]).notnull().all()
    value = df[df["model"] == "a"].ordinal.rps("y", PROBA_COLUMNS)
    assert float(boot["rps"].sel(model="a").mean()) == pytest.approx(value, abs=0.02)


def test_probabilities_outside_the_unit_interval(frame):
    frame.loc[["w", "y"], "a"] = [-0.1, 1.5]
    with pytest.raises(ValueError, match=r"2 row\(s\) with probabilities outside \[0, 1\], first at rows \['w', 'y'\]"):
        frame.ordinal.brier("y", COLUMNS, labels=LABELS)
    with pytest.raises(ValueError, match=r"outside \[0, 1\]"):
        frame.ordinal.brier("y", COLUMNS, labels=LABELS, renormalize=True)


def test_rows_that_do_not_sum_to_one(frame):
    frame[COLUMNS] = frame[COLUMNS] * 0.5
    frame.loc["z", COLUMNS] = 0.25 + 0.2e-5  # sums to 1 + 8e-6: within the tolerance
    message = r"3 row\(s\) whose probabilities do not sum to 1 \(tolerance 1e-05\), first at rows \['w', 'x', 'y'\] with sums 0.5, 0.5, 0.5; pass renormalize=True"
    with pytest.raises(ValueError, match=message):
        frame.ordinal.rps("y", COLUMNS, labels=LABELS)
    assert frame.ordinal.rps("y", COLUMNS, labels=LABELS, renormalize=True) == pytest.approx(
        rps(np.vstack([P_EX[:3], np.full(4, 0.25)]), Y_EX).mean(), abs=1e-12
    )
    frame.loc["w", COLUMNS] = 0.0
    with pytest.raises(
        ValueError, match=r"1 row\(s\) summing to 0, which cannot be renormalised, first at rows \['w'\]"
    ):
        frame.ordinal.rps("y", COLUMNS, labels=LABELS, renormalize=True)


def test_many_offending_rows_are_counted_and_the_first_shown():
    proba = np.full((20, 3), 0.5)
    p, t = as_arrays(proba, np.zeros(20, int))
    with pytest.raises(
        ValueError, match=r"20 row\(s\) whose probabilities do not sum to 1 .* first at rows \[0, 1, 2, 3, 4, \.\.\.\]"
    ):
        p.ordinal.rps(t)


def test_true_labels_outside_the_classes(frame):
    frame["y"] = [0, 7, 7, 2]
    with pytest.raises(
        ValueError, match=r"column 'y' has 2 value\(s\) outside the classes \[0, 1, 2, 3\]: 7 \(2 rows\)"
    ):
        frame.ordinal.rps("y", COLUMNS, labels=LABELS)
    p, _ = as_arrays(P_EX, Y_EX)
    t = xr.DataArray([0, 7, 7, 2], dims="d0", coords={"d0": list("wxyz")}, name="grade")
    with pytest.raises(ValueError, match=r"column 'grade' has 2 value\(s\) outside .* \(first at rows \['x', 'y'\]\)"):
        p.assign_coords(d0=list("wxyz")).ordinal.rps(t)


def test_missing_true_labels(frame):
    frame["y"] = [0.0, np.nan, 3.0, 2.0]
    with pytest.raises(ValueError, match=r"column 'y' has 1 missing value\(s\) \(NaN/None/NA\), first at rows \['x'\]"):
        frame.ordinal.rps("y", COLUMNS, labels=LABELS)
    p, _ = as_arrays(P_EX, Y_EX)
    t = xr.DataArray([0.0, np.nan, 3.0, 2.0], dims="d0")
    with pytest.raises(
        ValueError, match=r"column 'true' has 1 missing value\(s\) \(NaN/None/NA\), first at rows \[1\]"
    ):
        p.ordinal.rps(t)
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 1 of 4 samples"):
        got = p.ordinal.rps(t, dropna=True)
    assert got == pytest.approx(rps(P_EX[[0, 2, 3]], Y_EX[[0, 2, 3]]).mean())


def test_class_coordinate_and_labels():
    p, t = as_arrays(P_EX, Y_EX)
    with pytest.raises(ValueError, match=r"the 'class' coordinate \[0, 1, 2, 3\] disagrees with labels=\[3, 2, 1, 0\]"):
        p.ordinal.rps(t, labels=[3, 2, 1, 0])
    assert p.ordinal.rps(t, labels=[0, 1, 2, 3]) == pytest.approx(rps(P_EX, Y_EX).mean())
    bare = p.drop_vars("class")
    with pytest.raises(ValueError, match=r"the 'class' dim has no coordinate.*pass labels="):
        bare.ordinal.rps(t)
    assert bare.ordinal.rps(t, labels=LABELS) == pytest.approx(rps(P_EX, Y_EX).mean())
    with pytest.raises(ValueError, match=r"labels= names 3 classes but the 'class' dim has 4"):
        bare.ordinal.rps(t, labels=[0, 1, 2])
    with pytest.raises(ValueError, match=r"class probabilities need a 'class' dim"):
        p.rename({"class": "k"}).ordinal.rps(t)


def test_string_classes_follow_the_coordinate():
    grades = ["none", "mild", "severe", "extreme"]
    p, _ = as_arrays(P_EX, Y_EX, classes=grades)
    t = xr.DataArray(np.array(grades)[Y_EX], dims="d0")
    assert p.ordinal.rps(t) == pytest.approx(rps(P_EX, Y_EX).mean())


def test_frame_class_columns(frame):
    with pytest.raises(
        ValueError, match=r"proba lists 4 columns but column 'y' gives 3 classes \[0, 2, 3\]; pass labels="
    ):
        frame.ordinal.rps("y", COLUMNS)
    with pytest.raises(ValueError, match=r"proba lists 3 columns but labels= gives 4 classes"):
        frame.ordinal.rps("y", COLUMNS[:3], labels=LABELS)
    with pytest.raises(ValueError, match=r"proba must map every class \[0, 1, 2, 3\] to a column: no column for \[3\]"):
        frame.ordinal.rps("y", {0: "a", 1: "b", 2: "c"}, labels=LABELS)
    with pytest.raises(ValueError, match=r"\[9\] are not classes"):
        frame.ordinal.rps("y", {0: "a", 1: "b", 2: "c", 3: "d", 9: "d"}, labels=LABELS)
    with pytest.raises(KeyError, match=r"proba column 'e' is not in the DataFrame"):
        frame.ordinal.rps("y", ["a", "b", "c", "e"], labels=LABELS)
    ordered = frame.assign(y=pd.Categorical(Y_EX, categories=LABELS, ordered=True))
    assert ordered.ordinal.rps("y", COLUMNS) == pytest.approx(rps(P_EX, Y_EX).mean())


def test_a_proba_metric_needs_probabilities():
    pred = xr.DataArray([0, 1], dims="d0")
    with pytest.raises(ValueError, match="class probabilities need a 'class' dim"):
        pred.ordinal.rps(pred)


# ---------------------------------------------------------------------------- dask


def test_dask_is_lazy_and_agrees():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet(np.ones(5), size=(2, 1000))
    true = rng.integers(0, 5, 1000)
    p, _ = as_arrays(proba, np.zeros((2, 1000), int))
    t = xr.DataArray(true, dims="d1")
    lazy_p, lazy_t = p.chunk(d1=300), t.chunk(d1=300)
    for name in KERNELS:
        method = getattr(lazy_p.ordinal, name)
        per_sample = method(lazy_t, dim=[])
        mean = method(lazy_t, dim="d1")
        assert per_sample.chunks is not None and mean.chunks is not None
        np.testing.assert_allclose(per_sample.values, getattr(p.ordinal, name)(t, dim=[]).values)
        np.testing.assert_allclose(mean.values, getattr(p.ordinal, name)(t, dim="d1").values)
    # a 0-d result is a float (computed), as for confusion metrics
    assert lazy_p.ordinal.rps(lazy_t) == pytest.approx(float(p.ordinal.rps(t)))


def test_dask_errors_surface_on_compute():
    p, t = as_arrays(np.full((10, 2), 0.5), np.zeros(10, int))
    p[7] = [0.9, 0.9]
    lazy = p.chunk(d0=4).ordinal.rps(t.chunk(d0=4), dim=[])
    with pytest.raises(
        ValueError,
        match=r"1 row\(s\) whose probabilities do not sum to 1.*first at rows \[7\] with",  # the user's row, not the chunk's
    ):
        lazy.compute()


# ---------------------------------------------------------------------------- evaluate


def test_frame_evaluate_mixes_proba_and_confusion_metrics(frame):
    frame["yhat"] = [0, 1, 0, 2]
    argmax = P_EX.argmax(axis=1)
    result = frame.ordinal.evaluate("y", proba=COLUMNS, labels=LABELS, metrics=["rps", "mae", ("log_score")])
    assert list(result.data_vars) == ["rps", "mae", "log_score"]
    assert float(result["rps"]) == pytest.approx(rps(P_EX, Y_EX).mean())
    assert float(result["mae"]) == pytest.approx(np.abs(argmax - Y_EX).mean())
    named = frame.ordinal.evaluate(
        "y", "yhat", metrics={"acc": "accuracy", "raw": ("rps", {"normalize": False})}, proba=COLUMNS, labels=LABELS
    )
    assert float(named["acc"]) == pytest.approx(0.5)
    assert float(named["raw"]) == pytest.approx(0.506875)
    everything = frame.ordinal.evaluate("y", proba=COLUMNS, labels=LABELS)
    assert {"rps", "sarps", "brier", "log_score", "qwk", "mae"} <= set(everything.data_vars)
    hard = frame.ordinal.evaluate("y", "yhat", metrics=["mae"], labels=LABELS)  # the hard-label call is unchanged
    assert float(hard["mae"]) == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"\['rps'\] need class probabilities"):
        frame.ordinal.evaluate("y", "yhat", metrics=["rps"], labels=LABELS)
    with pytest.raises(TypeError, match="evaluate needs predicted labels"):
        frame.ordinal.evaluate("y")


def test_frame_evaluate_by_groups_aligns():
    rng = np.random.default_rng(5)
    proba = rng.dirichlet(np.ones(3), size=90)
    df = pd.DataFrame(proba, columns=["a", "b", "c"]).assign(y=rng.integers(0, 3, 90), fold=rng.integers(0, 3, 90))
    result = df.ordinal.evaluate("y", proba=["a", "b", "c"], metrics=["brier", "accuracy"], by="fold")
    for fold, rows in df.groupby("fold"):
        assert float(result["brier"].sel(fold=fold)) == pytest.approx(
            brier(proba[rows.index], rows["y"].to_numpy()).mean()
        )
        assert float(result["accuracy"].sel(fold=fold)) == pytest.approx(
            (proba[rows.index].argmax(1) == rows["y"]).mean()
        )


def test_array_evaluate_and_confusion_metrics_on_probabilities():
    rng = np.random.default_rng(6)
    proba = rng.dirichlet(np.ones(4), size=(2, 80))
    true = rng.integers(0, 4, 80)
    p, _ = as_arrays(proba, np.zeros((2, 80), int))
    p = p.rename(d0="model", d1="sample")
    t = xr.DataArray(true, dims="sample")
    result = p.ordinal.evaluate(t, metrics=["sarps", "qwk"], class_dim="class", dim="sample")
    assert result["sarps"].dims == result["qwk"].dims == ("model",)
    for m in range(2):
        cm = np.zeros((4, 4))
        np.add.at(cm, (true, proba[m].argmax(1)), 1)
        assert float(result["qwk"][m]) == pytest.approx(ordframe.get_metric("qwk").func(cm))
        assert float(p.ordinal.confusion(t, class_dim="class", dim="sample").ordinal.qwk()[m]) == pytest.approx(
            float(result["qwk"][m])
        )
    pred = xr.DataArray(np.zeros((2, 80), int), dims=("model", "sample"))
    given_pred = p.ordinal.evaluate(t, metrics=["accuracy"], class_dim="class", pred=pred, dim="sample")
    np.testing.assert_allclose(given_pred["accuracy"].values, (true == 0).mean())


# ---------------------------------------------------------------------------- worst


def _fig3_samples():
    # Three mistakes of the kind Galdran (2023) Fig. 3 describes (K = 5): A puts most mass four classes away from a
    # class-1 sample; B is sure of class 3 for a class-5 sample; C gives the true class 1 almost no probability.
    proba = np.array([[0.2, 0, 0, 0, 0.8], [0, 0, 0.98, 0.01, 0.01], [0.009, 0.6, 0.391, 0, 0]])
    return proba, np.array([0, 4, 0])


@pytest.mark.parametrize("score, worst_sample", [("rps", "A"), ("sarps", "A"), ("brier", "B"), ("log_score", "C")])
def test_worst_differs_by_score(score, worst_sample):
    proba, true = _fig3_samples()
    df = pd.DataFrame(proba, columns=list("12345"), index=list("ABC")).assign(grade=true + 1)
    table = ordframe.worst(df, "grade", list("12345"), score=score, top=3, labels=[1, 2, 3, 4, 5])
    assert table.index[0] == worst_sample
    assert list(table.columns) == ["true", 1, 2, 3, 4, 5, "argmax", score]
    assert table[score].is_monotonic_decreasing
    assert table.loc["B", "true"] == 5 and table.loc["B", "argmax"] == 3
    assert df.ordinal.worst("grade", list("12345"), score=score, top=1, labels=[1, 2, 3, 4, 5]).index[0] == worst_sample


def test_worst_on_arrays():
    proba, true = _fig3_samples()
    p = xr.DataArray(
        np.stack([proba, proba[::-1]]),
        dims=("model", "sample", "class"),
        coords={"model": ["m1", "m2"], "sample": [10, 11, 12], "class": [1, 2, 3, 4, 5]},
    )
    t = xr.DataArray(true + 1, dims="sample", coords={"sample": [10, 11, 12]})
    table = p.ordinal.worst(t, top=2)
    assert list(table.index) == [("m1", 10), ("m2", 12)]  # ties keep the input order
    assert table.index.names == ["model", "sample"]
    assert len(ordframe.worst(p, t, top=100)) == 6
    with pytest.raises(TypeError, match="top must be a whole number >= 0"):
        ordframe.worst(p, t, top=-1)
    with pytest.raises(ValueError, match="score= must name 'proba' metrics; 'qwk' is a 'confusion' metric"):
        ordframe.worst(p, t, score="qwk")


def test_worst_puts_first_the_samples_farthest_from_a_score_s_target_value(restore_registry):
    """A per-sample score best at 0.5 whose values sit on either side of it: the farthest first, whatever its sign."""

    def shift(proba, true):
        return proba[..., 0] - 0.5

    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [ordframe.Metric("first_shift", "proba", shift, bounds=(-0.5, 0.5), best=0.0)]

    ordframe.register(Plugin())
    proba, true = _fig3_samples()  # first_shift: A -0.3, B -0.5, C -0.491
    proba = np.vstack([proba, [[0.95, 0.05, 0, 0, 0]]])  # D +0.45
    df = pd.DataFrame(proba, columns=list("12345"), index=list("ABCD")).assign(grade=np.r_[true, 0] + 1)
    table = ordframe.worst(df, "grade", list("12345"), score="first_shift", top=4, labels=[1, 2, 3, 4, 5])
    assert list(table.index) == ["B", "C", "D", "A"]


def _two_models():
    """The Fig. 3 samples as model "m2" (rows A, B, C) and in reverse order as model "m1" (rows D, E, F)."""
    proba, true = _fig3_samples()
    return pd.DataFrame(np.vstack([proba, proba[::-1]]), columns=list("12345"), index=list("ABCDEF")).assign(
        grade=np.concatenate([true, true[::-1]]) + 1, model=["m2"] * 3 + ["m1"] * 3
    )


def test_worst_per_group_has_the_group_columns():
    df = _two_models()
    table = df.ordinal.worst("grade", list("12345"), top=2, by="model", labels=[1, 2, 3, 4, 5])
    assert list(table.columns) == ["model", "true", 1, 2, 3, 4, 5, "argmax", "rps"]
    assert list(table.index) == ["F", "E", "A", "B"]  # the groups in sorted order, each worst first
    assert list(table["model"]) == ["m1", "m1", "m2", "m2"]
    df["model"] = pd.Categorical(df["model"], categories=["m2", "m1"])
    df["half"] = [0, 0, 1, 0, 1, 1]
    table = ordframe.worst(df, "grade", list("12345"), top=5, by=["model", "half"], labels=[1, 2, 3, 4, 5])
    assert list(table.columns[:3]) == ["model", "half", "true"]
    assert list(table.index) == ["A", "B", "C", "D", "F", "E"]  # categorical order; n above a group's size: all of it
    assert table.loc["C", "half"] == 1 and table.loc["D", "model"] == "m1"


def test_worst_leaves_out_a_model_without_probabilities_with_dropna():
    df = _two_models()
    df.loc[["D", "E", "F"], list("12345")] = np.nan
    with pytest.raises(
        ValueError, match=r"3 row\(s\) with NaN probabilities, first at rows \['D', 'E', 'F'\] \(pass dropna=True"
    ):
        df.ordinal.worst("grade", list("12345"), by="model", labels=[1, 2, 3, 4, 5])
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 3 of 6 rows"):
        table = df.ordinal.worst("grade", list("12345"), by="model", labels=[1, 2, 3, 4, 5], dropna=True)
    assert list(table.index) == ["A", "B", "C"] and set(table["model"]) == {"m2"}


def test_worst_refuses_a_group_column_named_like_a_column_of_the_table():
    df = _two_models().rename(columns={"model": "argmax"})
    with pytest.raises(ValueError, match=r"by column 'argmax' has the name of a column of the worst\(\) table"):
        df.ordinal.worst("grade", list("12345"), by="argmax", labels=[1, 2, 3, 4, 5])


def test_worst_on_arrays_takes_dropna_but_not_by():
    proba, true = _fig3_samples()
    proba[1] = np.nan
    p = xr.DataArray(proba, dims=("sample", "class"), coords={"sample": [10, 11, 12], "class": [1, 2, 3, 4, 5]})
    t = xr.DataArray(true + 1, dims="sample", coords={"sample": [10, 11, 12]})
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 1 of 3 samples"):
        table = p.ordinal.worst(t, dropna=True)
    assert list(table.index) == [10, 12]
    with pytest.raises(TypeError, match=r"by= applies to a DataFrame, got by='model'"):
        ordframe.worst(p, t, by="model")


def test_a_probability_column_of_text_names_the_values_that_are_no_numbers():
    df = pd.DataFrame({"y": [0, 1, 2, 1], "p0": ["0.2", "x", "0.3", "x"], "p1": 0.3, "p2": 0.5})
    with pytest.raises(TypeError, match=r"probability column 'p0' has dtype \w+: 'x' \(2 rows\); probabilities must"):
        df.ordinal.rps("y", ["p0", "p1", "p2"])


@pytest.mark.parametrize("renormalize", [False, True])
def test_probability_checks_are_the_same_in_blocks(monkeypatch, renormalize):
    """The checks read the probabilities a block of rows at a time: blocks of one row or a few give the error that
    one block gives, with the same counts and first rows (a NaN, a value outside [0, 1], a sum off 1 or 0)."""
    from ordframe._inputs import probability

    proba = np.full((40, 3), 1 / 3)
    proba[[3, 17, 30]] = [np.nan, 0.5, 0.5]
    proba[[5, 21]] = [1.5, -0.25, -0.25]
    proba[[8, 9, 33]] = [0.0, 0.0, 0.0] if renormalize else [0.5, 0.5, 0.5]
    frame = pd.DataFrame({"y": np.arange(40) % 3, **{f"p{k}": proba[:, k] for k in range(3)}})

    def message():
        with pytest.raises(ValueError, match="invalid class probabilities") as error:
            frame.ordinal.rps("y", ["p0", "p1", "p2"], renormalize=renormalize)
        return str(error.value)

    whole = message()
    assert "3 row(s) with NaN" in whole and "2 row(s) with probabilities outside" in whole and "[8, 9, 33]" in whole
    for values in (1, 4, 7, 100):
        monkeypatch.setattr(probability, "BLOCK_VALUES", values)
        assert message() == whole


# unimodality


def unimodal_by_modes(p, tol=0.0):
    """Whether some mode m has p non-decreasing up to it and non-increasing after it (steps within tol ignored)."""
    k = len(p)
    return any(
        all(p[i + 1] >= p[i] - tol for i in range(m)) and all(p[i + 1] <= p[i] + tol for i in range(m, k - 1))
        for m in range(k)
    )


@settings(max_examples=100, deadline=None)
@given(
    st.integers(2, 7).flatmap(lambda k: arrays(np.float64, (5, k), elements=st.sampled_from([0.0, 0.1, 0.2, 0.5]))),
    st.sampled_from([0.0, 0.1, 0.25]),
)
def test_unimodality_equals_a_search_over_the_modes(proba, tol):
    scores = unimodality(proba, np.zeros(len(proba), dtype=np.int64), tol=tol)
    assert scores.tolist() == [float(unimodal_by_modes(p, tol)) for p in proba]


def test_unimodality_properties():
    rng = np.random.default_rng(4)
    proba = rng.dirichlet(np.ones(6), (3, 40))
    true = rng.integers(0, 6, (3, 40))
    scores = unimodality(proba, true)
    assert scores.shape == (3, 40) and set(np.unique(scores)) <= {0.0, 1.0}
    np.testing.assert_array_equal(unimodality(proba[..., ::-1], true), scores)  # reversing the class order
    np.testing.assert_array_equal(unimodality(proba, 5 - true), scores)  # the true class does not matter
    sorted_up = np.sort(proba, axis=-1)
    assert (unimodality(sorted_up, true) == 1).all() and (unimodality(sorted_up[..., ::-1], true) == 1).all()
    assert unimodality(np.array([0.4, 0.2, 0.4]), np.array(0)) == 0
    assert unimodality(np.array([0.4, 0.2, 0.4]), np.array(0), tol=0.25) == 1
    with pytest.raises(ValueError, match=r"unimodality: tol must be a number in \[0, 1\), got -0.1"):
        unimodality(proba, true, tol=-0.1)


def test_unimodality_is_registered_and_averaged_over_samples():
    metric = ordframe.get_metric("unimodality")
    assert metric.kind == "proba" and metric.higher_is_better and metric.bounds == (0.0, 1.0)
    proba = [[0.1, 0.6, 0.3], [0.5, 0.1, 0.4], [0.2, 0.3, 0.5], [0.3, 0.3, 0.4]]
    assert ordframe.unimodality([0, 1, 2, 2], proba) == 0.75


# calibration in the large


@settings(max_examples=60, deadline=None)
@given(proba_rows())
def test_calibration_in_the_large_is_the_mean_expected_minus_the_mean_true_class(rows):
    proba, true = rows
    expected = float(np.mean([sum(c * p[c] for c in range(len(p))) - t for p, t in zip(proba, true)]))
    got = ordframe.calibration_in_the_large(true, proba, labels=list(range(proba.shape[1])))
    assert got == pytest.approx(expected, rel=1e-12, abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(proba_rows(min_k=3))
def test_calibration_in_the_large_of_one_hot_probabilities_is_the_mean_signed_error(rows):
    """A probability 1 on the predicted class gives the bias of the hard labels; the truth's own one-hot 0."""
    proba, true = rows
    pred = proba.argmax(axis=1)
    k = proba.shape[1]
    one_hot = np.eye(k)[pred]
    labels = list(range(k))
    assert ordframe.calibration_in_the_large(true, one_hot, labels=labels) == pytest.approx(
        ordframe.mean_signed_error(true, pred, labels=labels), abs=1e-12
    )
    assert ordframe.calibration_in_the_large(true, np.eye(k)[true], labels=labels) == 0


def test_calibration_in_the_large_is_registered_with_its_best_value_and_ranked_by_its_distance():
    from ordframe.sklearn import make_scorer

    metric = ordframe.get_metric("calibration_in_the_large")
    assert metric.kind == "proba" and metric.best == 0 and metric.direction == "best at 0"
    true = np.array([0, 1, 2, 1])
    high = np.array([[0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.0, 0.0, 1.0], [0.0, 0.5, 0.5]])
    low = np.array([[1.0, 0.0, 0.0], [0.5, 0.5, 0.0], [0.0, 0.5, 0.5], [0.5, 0.5, 0.0]])
    assert ordframe.calibration_in_the_large(true, high) == 0.375 == -ordframe.calibration_in_the_large(true, low)

    class Fixed:
        classes_ = np.array([0, 1, 2])

        def __init__(self, proba):
            self.proba = proba

        def predict_proba(self, x):
            return self.proba

    scorer = make_scorer("calibration_in_the_large", labels=[0, 1, 2])
    assert scorer(Fixed(high), np.zeros((4, 1)), true) == scorer(Fixed(low), np.zeros((4, 1)), true) == -0.375
