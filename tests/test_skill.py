"""Skill scores: RPSS and BSS as xskillscore computes them, the climatological references by their formulas,
the properties (perfect model 1, reference 0, any plugin), pairing, and the interval's coverage."""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
import xskillscore as xs
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe
from ordframe._inference.skill import reference_cube

PROBA = ["p0", "p1", "p2"]


def proba_frame(n, k, seed, prior=None):
    rng = np.random.default_rng(seed)
    y = rng.choice(k, n, p=prior)
    proba = rng.dirichlet(np.ones(k), n)
    columns = [f"p{c}" for c in range(k)]
    return pd.DataFrame(proba, columns=columns).assign(y=y), columns


def xs_rps(true, proba, k):
    """The mean RPS of xskillscore (unnormalised, as Weigel et al. 2007) of forecasts ``proba`` (n, k) or (k,)."""
    obs = xr.DataArray(np.eye(k)[true], dims=("sample", "category"))
    fct = xr.DataArray(np.broadcast_to(proba, (len(true), k)), dims=("sample", "category"))
    return float(xs.rps(obs, fct, None, dim="sample", input_distributions="p"))


# ---------------------------------------------------------------------------- RPSS and BSS against xskillscore


@given(
    n=st.integers(5, 80),
    k=st.integers(2, 6),
    seed=st.integers(0, 2**32 - 1),
    normalize=st.booleans(),
    fixed=st.booleans(),
)
@settings(max_examples=60, deadline=None)
def test_rpss_is_one_minus_rps_over_the_climatological_rps_of_xskillscore(n, k, seed, normalize, fixed):
    df, columns = proba_frame(n, k, seed)
    labels = list(range(k))
    if fixed:
        prior = np.random.default_rng(seed + 1).dirichlet(np.ones(k))
        reference = {"distribution": prior}
    else:
        prior = np.bincount(df["y"], minlength=k) / n  # the sample climatology
        reference = "climatology"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ordframe.UndefinedSkillWarning)  # one class drawn: undefined, checked below
        result = df.ordinal.skill(
            "y", proba=columns, metric=("rps", {"normalize": normalize}), reference=reference, labels=labels
        )
    model, climatology = xs_rps(df["y"].to_numpy(), df[columns].to_numpy(), k), xs_rps(df["y"].to_numpy(), prior, k)
    scale = 1 / (k - 1) if normalize else 1.0
    assert float(result["score"]) == pytest.approx(model * scale, rel=1e-12, abs=1e-14)
    assert float(result["reference_score"]) == pytest.approx(climatology * scale, rel=1e-12, abs=1e-14)
    if climatology > 1e-12:
        assert float(result["skill"]) == pytest.approx(1 - model / climatology, rel=1e-9, abs=1e-12)
    else:
        assert np.isnan(float(result["skill"]))


@given(n=st.integers(5, 80), seed=st.integers(0, 2**32 - 1))
@settings(max_examples=40, deadline=None)
def test_bss_of_two_classes_is_xskillscores_brier_score_against_climatology(n, seed):
    df, columns = proba_frame(n, 2, seed)
    y, p = df["y"].to_numpy(), df["p1"].to_numpy()
    base_rate = y.mean()
    observations = xr.DataArray(y.astype(bool), dims="sample")
    model = float(xs.brier_score(observations, xr.DataArray(p, dims="sample"), dim="sample"))
    climatology = float(xs.brier_score(observations, xr.DataArray(np.full(n, base_rate), dims="sample"), dim="sample"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ordframe.UndefinedSkillWarning)
        result = df.ordinal.skill("y", proba=columns, metric="brier", labels=[0, 1])
    # ordframe's multi-class Brier score sums both classes' squared errors: twice the binary one
    assert float(result["score"]) == pytest.approx(2 * model, rel=1e-12)
    assert float(result["reference_score"]) == pytest.approx(2 * base_rate * (1 - base_rate), abs=1e-14)
    if 0 < base_rate < 1:
        assert float(result["skill"]) == pytest.approx(1 - model / climatology, rel=1e-9)
    else:
        assert np.isnan(float(result["skill"]))


# ---------------------------------------------------------------------------- the confusion reference


@given(
    counts=st.lists(st.integers(0, 30), min_size=9, max_size=9),
    prior=st.lists(st.floats(0.0, 1.0), min_size=3, max_size=3).filter(lambda q: sum(q) > 0.1),
)
@settings(max_examples=60, deadline=None)
def test_the_climatological_cube_scores_the_expected_error_of_a_forecaster_drawing_from_the_prior(counts, prior):
    """For metrics linear in the cube, the expected cube's value is the random forecaster's expected value."""
    matrix = np.array(counts).reshape(3, 3)
    if matrix.sum() == 0:
        return
    q = np.array(prior) / sum(prior)
    f = matrix.sum(axis=1) / matrix.sum()
    distance = np.abs(np.subtract.outer(np.arange(3), np.arange(3)))
    cube = xr.DataArray(matrix, dims=("true", "pred"), coords={"true": [0, 1, 2], "pred": [0, 1, 2]})
    expected = {"accuracy": f @ q, "mae": f @ distance @ q, "mse": f @ distance**2 @ q}
    reference = reference_cube(cube.sum("pred"), q)
    assert float(reference.sum()) == pytest.approx(matrix.sum())
    for name, value in expected.items():
        assert float(getattr(reference.ordinal, name)()) == pytest.approx(value, abs=1e-12)


def test_climatology_is_each_groups_own_prior():
    rng = np.random.default_rng(3)
    a = pd.DataFrame({"y": rng.choice(3, 200, p=[0.6, 0.3, 0.1]), "site": "a"})
    b = pd.DataFrame({"y": rng.choice(3, 100, p=[0.1, 0.2, 0.7]), "site": "b"})
    df = pd.concat([a, b], ignore_index=True)
    df["yhat"] = np.clip(df["y"] + rng.integers(-1, 2, len(df)), 0, 2)
    result = df.ordinal.skill("y", "yhat", metric="accuracy", by="site")
    for site, part in df.groupby("site"):
        q = np.bincount(part["y"], minlength=3) / len(part)
        assert float(result["reference_score"].sel(site=site)) == pytest.approx(q @ q, abs=1e-15)
        accuracy = (part["y"] == part["yhat"]).mean()
        assert float(result["skill"].sel(site=site)) == pytest.approx((accuracy - q @ q) / (1 - q @ q), abs=1e-12)


def test_a_training_prior_and_a_one_hot_distribution():
    df = pd.DataFrame({"y": [0, 1, 2, 2, 1, 0, 2, 2], "yhat": [0, 1, 2, 1, 1, 1, 2, 2]})
    training = ["low", "mid", "mid", "high"]
    frame = df.assign(
        y=df["y"].map({0: "low", 1: "mid", 2: "high"}), yhat=df["yhat"].map({0: "low", 1: "mid", 2: "high"})
    )
    labels = ["low", "mid", "high"]
    prior = frame.ordinal.skill("y", "yhat", metric="mae", reference={"prior": training}, labels=labels)
    f = np.array([2, 2, 4]) / 8
    q = np.array([1, 2, 1]) / 4
    distance = np.abs(np.subtract.outer(np.arange(3), np.arange(3)))
    assert float(prior["reference_score"]) == pytest.approx(f @ distance @ q, abs=1e-15)
    assert "training labels" in prior.attrs["reference"]
    # always predicting the middle class: the constant forecast's own matrix
    constant = frame.ordinal.skill("y", "yhat", metric="mae", reference={"distribution": {"mid": 1}}, labels=labels)
    always = frame.assign(yhat="mid").ordinal.mae("y", "yhat", labels=labels)
    assert float(constant["reference_score"]) == pytest.approx(always, abs=1e-15)


# ---------------------------------------------------------------------------- properties


# Confusion metrics whose value on a diagonal matrix is their perfect bound (max_tc depends on the class sizes
# only, and chance_distance is a tie-break distance that a perfect model puts at 0).
PERFECT_CONFUSION = [
    "accuracy", "mae", "mse", "amae", "mmae", "amse", "qwk", "kappa", "kendall_tau_b", "spearman", "somers_d",
    "rint", "oc", "uoc", "auoc", "d", "mc", "tc", "gerrity", "gm", "ms", "within_k", "mer", "cem_ord",
    "expected_cost",
]  # fmt: skip


def perfect_and_baseline(n=60, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.choice(3, n, p=[0.3, 0.3, 0.4])
    proba = np.eye(3)[y]
    perfect = pd.DataFrame({"y": y, "yhat": y, "model": "perfect", **dict(zip(PROBA, proba.T))})
    noisy = rng.dirichlet(np.ones(3), n)
    baseline = pd.DataFrame(
        {"y": y, "yhat": np.clip(y + rng.integers(-2, 3, n), 0, 2), "model": "baseline", **dict(zip(PROBA, noisy.T))}
    )
    return pd.concat([perfect, baseline], ignore_index=True)


@pytest.mark.parametrize("name", [*PERFECT_CONFUSION, "rps", "brier", "log_score", "sarps"])
def test_a_perfect_model_has_skill_one_and_the_reference_model_zero(name):
    df = perfect_and_baseline()
    predicted = {"pred": "yhat"} if ordframe.get_metric(name).kind == "confusion" else {"proba": PROBA}
    result = df.ordinal.skill("y", **predicted, metric=name, by="model", reference={"model": "baseline"})
    assert float(result["skill"].sel(model="perfect")) == pytest.approx(1.0, abs=1e-12)
    assert float(result["skill"].sel(model="baseline")) == 0.0
    climatology = df.ordinal.skill("y", **predicted, metric=name, by="model")
    assert float(climatology["skill"].sel(model="perfect")) == pytest.approx(1.0, abs=1e-12)


@pytest.mark.parametrize("name", PERFECT_CONFUSION)
def test_the_climatological_forecast_itself_has_skill_zero(name):
    """A cube equal to the climatological cube (n_ij = n_i q_j, integer here) scores the reference exactly."""
    true_counts = np.array([8, 4, 12])
    q = np.array([0.25, 0.25, 0.5])
    matrix = np.outer(true_counts, q).astype(np.int64)
    cube = xr.DataArray(matrix, dims=("true", "pred"), coords={"true": list("abc"), "pred": list("abc")})
    cube = cube.expand_dims(model=["m"])
    values = getattr(cube.ordinal, name)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ordframe.UndefinedSkillWarning)  # correlations of the independence table
        fixed = ordframe.skill(values, {"distribution": q}, cube=cube)
    if np.isnan(values).all():
        assert np.isnan(fixed).all()  # the metric is undefined on the independence table: so is its skill
    else:
        assert float(fixed.sel(model="m")) == pytest.approx(0.0, abs=1e-12)


def test_a_forecast_of_the_sample_prior_has_skill_zero_for_every_probability_metric():
    df, columns = proba_frame(90, 3, seed=4)
    q = np.bincount(df["y"], minlength=3) / len(df)
    df[columns] = np.broadcast_to(q, (len(df), 3))
    for name in ("rps", "brier", "log_score", "sarps"):
        assert float(df.ordinal.skill("y", proba=columns, metric=name)["skill"]) == pytest.approx(0.0, abs=1e-12)


def within_one(counts):
    k = counts.shape[-1]
    near = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) <= 1
    return (counts * near).sum(axis=(-2, -1)) / counts.sum(axis=(-2, -1))


def test_a_plugin_metric_has_a_skill_score(restore_registry):
    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [
                ordframe.Metric("near_rate", "confusion", within_one, higher_is_better=True, bounds=(0.0, 1.0)),
                ordframe.Metric("near_gain", "confusion", within_one, higher_is_better=True, bounds=(0.0, np.inf)),
            ]

    ordframe.register(Plugin(), "skill-test")
    df = pd.DataFrame({"y": [0, 1, 2, 3, 3, 0] * 10, "yhat": [0, 2, 2, 0, 3, 3] * 10})
    labels = [0, 1, 2, 3]
    result = df.ordinal.skill("y", "yhat", metric="near_rate", labels=labels)
    f = np.bincount(df["y"], minlength=4) / len(df)
    near = np.abs(np.subtract.outer(np.arange(4), np.arange(4))) <= 1
    reference = f @ near @ f
    score = (np.abs(df["y"] - df["yhat"]) <= 1).mean()
    assert float(result["skill"]) == pytest.approx((score - reference) / (1 - reference), abs=1e-12)
    with pytest.warns(ordframe.UndefinedSkillWarning, match="perfect value is inf"):
        unbounded = df.ordinal.skill("y", "yhat", metric="near_gain", labels=labels)
    assert np.isnan(float(unbounded["skill"]))
    assert float(unbounded["score"]) == pytest.approx(score)


def test_a_perfect_reference_makes_the_skill_undefined():
    df = pd.DataFrame({"y": [0] * 20, "yhat": [0] * 15 + [1] * 5})
    with pytest.warns(ordframe.UndefinedSkillWarning, match="reference scores the perfect value"):
        result = df.ordinal.skill("y", "yhat", metric="accuracy", labels=[0, 1, 2])
    assert float(result["reference_score"]) == 1.0
    assert np.isnan(float(result["skill"]))


# ---------------------------------------------------------------------------- pairing


def two_models(n=120, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    a = pd.DataFrame(
        {"s": np.arange(n), "y": y, "yhat": np.clip(y + rng.integers(-1, 2, n) * (rng.random(n) < 0.3), 0, 2)}
    )
    b = a.assign(yhat=np.clip(y + rng.integers(-1, 2, n), 0, 2))
    frame = pd.concat([a.assign(model="a"), b.assign(model="b")], ignore_index=True)
    frame[PROBA] = rng.dirichlet(np.ones(3), len(frame))
    return frame


@pytest.mark.parametrize(("name", "predicted"), [("mae", "yhat"), ("rps", PROBA)])
def test_every_replicates_skill_comes_from_the_same_replicate_of_model_and_reference(name, predicted):
    df = two_models()
    kind = {"pred": predicted} if name == "mae" else {"proba": predicted}
    replicates = df.ordinal.evaluate("y", **kind, by="model", sample="s", metrics=[name], n_resamples=300, seed=5)
    skills = ordframe.skill(replicates, {"model": "b"})[name]
    expected = ordframe.ci(skills, level=0.9)
    result = df.ordinal.skill(
        "y", **kind, metric=name, by="model", sample="s", reference={"model": "b"}, n_resamples=300, seed=5, level=0.9
    )
    np.testing.assert_allclose(result["interval"].transpose("bound", "model"), expected.transpose("bound", "model"))
    assert (skills.sel(model="b") == 0).all()  # the reference against itself, replicate by replicate


def test_the_climatological_reference_of_a_replicate_is_the_replicates_own():
    df = two_models().query("model == 'a'")
    cubes = df.ordinal.bootstrap("y", "yhat", model=None, n_resamples=300, seed=2)
    skills = ordframe.skill(cubes.ordinal.accuracy(), "climatology", cube=cubes)
    counts = cubes.values
    f = counts.sum(axis=2) / counts.sum(axis=(1, 2))[:, None]
    accuracy = np.trace(counts, axis1=1, axis2=2) / counts.sum(axis=(1, 2))
    reference = (f * f).sum(axis=1)
    np.testing.assert_allclose(skills.values, (accuracy - reference) / (1 - reference), atol=1e-12)
    result = df.ordinal.skill("y", "yhat", metric="accuracy", n_resamples=300, seed=2)
    np.testing.assert_allclose(result["interval"].values, ordframe.ci(skills).values)


def test_basic_interval_reflects_the_percentile_one_about_the_skill_on_the_data():
    df = two_models()
    common = {"by": "model", "sample": "s", "n_resamples": 200, "seed": 1}
    percentile = df.ordinal.skill("y", "yhat", metric="mae", **common)
    basic = df.ordinal.skill("y", "yhat", metric="mae", method="basic", **common)
    np.testing.assert_allclose(
        basic["interval"].sel(bound="low"), 2 * basic["skill"] - percentile["interval"].sel(bound="high")
    )
    assert basic.attrs["ci_method"] == "basic"


# ---------------------------------------------------------------------------- coverage


def test_the_percentile_interval_of_a_climatological_skill_covers_its_population_value():
    """MAE skill against climatology: 60 test sets of 300 samples, 95% intervals of 200 replicates each."""
    prior = np.array([0.3, 0.4, 0.3])
    confusion = np.array([[0.7, 0.25, 0.05], [0.15, 0.7, 0.15], [0.05, 0.25, 0.7]])  # P(pred | true)
    distance = np.abs(np.subtract.outer(np.arange(3), np.arange(3)))
    truth = 1 - (prior @ (confusion * distance).sum(axis=1)) / (prior @ distance @ prior)
    rng = np.random.default_rng(11)
    covered = 0
    sets = 60
    for i in range(sets):
        y = rng.choice(3, 300, p=prior)
        yhat = (rng.random(300)[:, None] > np.cumsum(confusion[y], axis=1)).sum(axis=1)
        df = pd.DataFrame({"y": y, "yhat": yhat})
        low, high = df.ordinal.skill("y", "yhat", metric="mae", labels=[0, 1, 2], n_resamples=200, seed=i)[
            "interval"
        ].values
        covered += low <= truth <= high
    assert 0.85 <= covered / sets <= 1.0


# ---------------------------------------------------------------------------- arguments


@pytest.mark.parametrize(
    ("reference", "error", "match"),
    [
        ("persistence", ValueError, "'persistence' is not known"),
        ({"model": "c"}, ValueError, "'c' is not a label along 'model'"),
        ({"fold": 1}, ValueError, "'fold' is not 'prior', 'distribution' or a dim of the models"),
        ({"distribution": [0.5, 0.6, 0.0]}, ValueError, "summing to 1"),
        ({"distribution": [0.5, 0.5]}, ValueError, "one probability per class"),
        ({"distribution": {7: 1.0}}, ValueError, "names 7, which are not classes"),
        ({"prior": [0, 1, 5]}, ValueError, "outside the classes"),
        ({"prior": "y"}, TypeError, "training set's labels"),
        (["climatology"], TypeError, "one entry"),
    ],
)
def test_a_bad_reference_says_what_to_give(reference, error, match):
    df = two_models()
    with pytest.raises(error, match=match):
        df.ordinal.skill("y", "yhat", metric="mae", by="model", reference=reference)


def test_bootstrap_arguments_need_a_bootstrap_and_methods_are_checked():
    df = two_models()
    for draws in ({"seed": 1}, {"cluster": "s"}):
        with pytest.raises(TypeError, match="shape a bootstrap's draws and mean nothing without one"):
            df.ordinal.skill("y", "yhat", metric="mae", by="model", **draws)
    with pytest.raises(ValueError, match="method must be one of"):
        df.ordinal.skill("y", "yhat", metric="mae", by="model", n_resamples=10, method="bca")
    with pytest.raises(ValueError, match="names one metric"):
        df.ordinal.skill("y", "yhat", metric=["mae", "qwk"], by="model")
    for zero in (0, False):  # no replicates is an error, not the default number of them
        with pytest.raises(TypeError, match="n_resamples must be a whole number of replicates >= 1"):
            df.ordinal.skill("y", "yhat", metric="mae", by="model", n_resamples=zero)


def test_skill_of_values_needs_a_cube_for_climatology_and_a_perfect_value():
    values = two_models().ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])["mae"]
    with pytest.raises(ValueError, match="pass cube="):
        ordframe.skill(values)
    with pytest.raises(ValueError, match="does not say its perfect value"):
        ordframe.skill(values.drop_attrs(), {"model": "b"})
    given = ordframe.skill(values.drop_attrs(), {"model": "b"}, perfect=0.0)
    xr.testing.assert_allclose(given, ordframe.skill(values, {"model": "b"}).drop_attrs())
    scores = ordframe.skill(values, 1.0)  # reference scores given as they are
    xr.testing.assert_allclose(scores, (1 - values / 1.0).drop_attrs(), check_dim_order=False)
    assert scores.attrs["skill_of"] == "mae" and scores.attrs["higher_is_better"] == 1


def test_a_metric_with_a_target_value_has_no_skill_score_unless_told_how_to_read_it():
    """Refused, naming the metric (or the output name) and saying what to do, in both doors; ``perfect=`` or
    ``higher_is_better=`` take the values as they are, as for any metric."""
    df = two_models()
    refusal = r"has no skill score: its best value is a target, 0, .* ordframe.compare, df.ordinal.compare or"
    with pytest.raises(ValueError, match="'mean_signed_error' " + refusal):
        df.ordinal.skill("y", "yhat", metric="mean_signed_error", by="model", reference={"model": "b"})
    values = df.ordinal.evaluate("y", "yhat", by="model", metrics={"bias": "mean_signed_error", "mae": "mae"})
    with pytest.raises(ValueError, match="'bias' " + refusal):
        ordframe.skill(values, {"model": "b"})
    given = ordframe.skill(values["bias"], {"model": "b"}, perfect=0.0)
    reference = values["bias"].sel(model="b")
    xr.testing.assert_allclose(given.drop_attrs(), ((values["bias"] - reference) / (0.0 - reference)).drop_attrs())


def test_sample_without_a_bootstrap_checks_the_pairing_of_a_model_reference():
    # sample= names the pairing, as with a bootstrap: accepted and checked, the point estimate unchanged
    df = two_models()
    common = {"by": "model", "reference": {"model": "b"}}
    expected = df.ordinal.skill("y", "yhat", metric="mae", **common)
    xr.testing.assert_identical(df.ordinal.skill("y", "yhat", metric="mae", sample="s", **common), expected)
    folds = df.assign(fold=df["s"] % 2)  # strata= too: the samples are paired within each fold
    xr.testing.assert_identical(
        folds.ordinal.skill("y", "yhat", metric="mae", sample="s", strata="fold", **common), expected
    )
    with pytest.raises(ValueError, match="1 \\(sample, model\\) pair\\(s\\) have no prediction"):
        df.iloc[:-1].ordinal.skill("y", "yhat", metric="mae", sample="s", **common)
    with pytest.raises(ValueError, match="different true labels"):
        df.assign(y=np.r_[df["y"].values[:-1], (df["y"].values[-1] + 1) % 3]).ordinal.skill(
            "y", "yhat", metric="mae", sample="s", **common
        )


def test_the_skill_of_a_transformed_metric_refuses_stale_attrs_and_takes_the_direction_given():
    df = pd.DataFrame({"y": [0, 1, 2, 2] * 25, "yhat": [0, 1, 2, 1] * 25, "model": "a"})
    both = pd.concat([df, df.assign(yhat=df.y, model="perfect"), df.assign(yhat=1, model="baseline")])
    accuracy = both.ordinal.evaluate("y", "yhat", by="model", metrics=["accuracy"])["accuracy"]
    error = (1 - accuracy).rename("error_rate")  # xarray keeps accuracy's attrs: higher is better, perfect 1
    # an error, not compare's warning: a skill also takes its perfect value from the attrs, so a stale direction
    # gives a wrong number (-3 for the perfect model); names given by metrics= are recorded and pass
    with pytest.raises(ValueError, match="'error_rate' is named unlike the metric its attrs describe"):
        ordframe.skill(error, {"model": "baseline"})
    named = both.ordinal.evaluate("y", "yhat", by="model", metrics={"hits": "accuracy"})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        xr.testing.assert_allclose(
            ordframe.skill(named, {"model": "baseline"})["hits"].drop_attrs(),
            ordframe.skill(accuracy, {"model": "baseline"}).drop_attrs().rename("hits"),
        )
    expected = ordframe.skill(accuracy, {"model": "baseline"})  # a skill score is invariant under 1 - x
    for direction in (False, {"error_rate": False}):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            skills = ordframe.skill(error, {"model": "baseline"}, higher_is_better=direction)
            in_dataset = ordframe.skill(error.to_dataset(), {"model": "baseline"}, higher_is_better=direction)
        xr.testing.assert_allclose(skills.drop_attrs(), expected.drop_attrs().rename("error_rate"))
        xr.testing.assert_allclose(in_dataset["error_rate"], skills)
    assert float(skills.sel(model="perfect")) == 1.0
    assert skills.attrs["skill_of"] == "error_rate" and skills.attrs["perfect_score"] == 0.0
    with pytest.raises(TypeError, match="perfect= and higher_is_better= are both given for 'error_rate'"):
        ordframe.skill(error, {"model": "baseline"}, perfect=0.0, higher_is_better=False)
    with pytest.raises(ValueError, match="names 'error', which are not variables"):
        ordframe.skill(error, {"model": "baseline"}, higher_is_better={"error": False})


def test_a_nan_reference_is_refused_and_an_undefined_skill_counts_the_results_elements():
    values = two_models().ordinal.evaluate("y", "yhat", by="model", metrics=["accuracy"])["accuracy"]
    # refused, as scikit-learn refuses NaN input: it can only give NaN everywhere, which hides the mistake
    for reference in (np.nan, float("inf"), np.float32("nan")):
        with pytest.raises(ValueError, match=re.escape(f"reference={reference!r} is not a finite score")):
            ordframe.skill(values, reference)
    with pytest.warns(ordframe.UndefinedSkillWarning, match=r"in 2 of 2 element\(s\)"):
        perfect = ordframe.skill(values, 1.0)  # accuracy's perfect value: no model can improve on it
    assert perfect.isnull().all()


def test_label_warnings_are_given_once():
    df = pd.DataFrame({"y": [0, 1, 2, 2, 1, 0], "yhat": [0, 1, 2, 3, 1, 0]})
    with pytest.warns(ordframe.LabelWarning) as record:
        df.ordinal.skill("y", "yhat", metric="mae")
    assert len([w for w in record if issubclass(w.category, ordframe.LabelWarning)]) == 1


def test_the_skill_of_probability_values_from_their_cube_is_the_frames():
    df = two_models()
    values = df.ordinal.evaluate("y", proba=PROBA, by="model", metrics=["rps", "log_score"])
    cube = df.ordinal.confusion("y", "yhat", by="model")  # any predictions: the reference needs the true counts
    skills = ordframe.skill(values, {"distribution": [0.2, 0.3, 0.5]}, cube=cube)
    for name in ("rps", "log_score"):
        frame = df.ordinal.skill("y", proba=PROBA, metric=name, by="model", reference={"distribution": [0.2, 0.3, 0.5]})
        xr.testing.assert_allclose(skills[name].drop_attrs(), frame["skill"].drop_attrs().rename(name))


@given(
    counts=st.lists(st.integers(0, 20), min_size=16, max_size=16),
    prior=st.lists(st.floats(0.01, 1.0), min_size=4, max_size=4),
)
@settings(max_examples=40, deadline=None)
def test_kappas_are_their_own_skill_against_any_independent_reference(counts, prior):
    """The reference cube n_i. q_j has the agreement that kappa expects by chance, so its kappa is 0."""
    matrix = np.array(counts).reshape(4, 4)
    cube = xr.DataArray(matrix, dims=("true", "pred"), coords={"true": list("abcd"), "pred": list("abcd")})
    cube = cube.expand_dims(model=["m"])
    q = np.array(prior) / sum(prior)
    for name in ("qwk", "kappa"):
        values = getattr(cube.ordinal, name)()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ordframe.UndefinedSkillWarning)
            skills = ordframe.skill(values, {"distribution": q}, cube=cube)
        np.testing.assert_allclose(skills.values, values.values, atol=1e-12)


def test_skill_takes_its_arguments_as_evaluate_does():
    """true, pred (or proba=) first, the metric by keyword; the wrong kind of prediction for the metric says so."""
    df = two_models()
    with pytest.raises(TypeError, match="'rps' scores class probabilities: pass proba="):
        df.ordinal.skill("y", "yhat", metric="rps")
    with pytest.raises(TypeError, match="'mae' scores predicted labels: pass pred="):
        df.ordinal.skill("y", metric="mae")
