"""The Bayesian correlated t-test and signed-rank test against baycomp (Benavoli et al. 2017).

The correlated t-test has a closed form: it must equal baycomp's ``CorrelatedTTest`` to 1e-9. The signed-rank
test is Monte-Carlo: its draws of theta equal baycomp's given the same Dirichlet weights, and its probabilities
from ordframe's own draws are within Monte-Carlo error of baycomp's.
"""

import baycomp
import numpy as np
import pytest
import scipy.stats
import xarray as xr

from ordframe import bayesian_correlated_ttest, bayesian_signed_rank, corrected_ttest
from ordframe._inference.bayesian import _signed_rank_theta

REGIONS = ["p_model_better", "p_equivalent", "p_versus_better"]


def fold_values(rng, models=3, runs=2, folds=5, higher=1, name="accuracy"):
    values = 0.7 + 0.01 * rng.normal(size=(models, 1, 1)) + rng.normal(0, 0.02, (models, runs, folds))
    return xr.DataArray(
        values,
        dims=("model", "repeat", "fold"),
        coords={"model": [f"m{i}" for i in range(models)]},
        name=name,
        attrs={"metric": name, "higher_is_better": higher},
    )


@pytest.mark.parametrize("seed", range(12))
def test_correlated_ttest_equals_baycomp(seed):
    rng = np.random.default_rng(seed)
    runs, folds = [(1, 5), (1, 10), (3, 3), (10, 10), (5, 2), (2, 4)][seed % 6]
    higher = seed % 2
    rope = [0.0, 0.005, 0.01, 0.05][seed % 4]
    values = fold_values(rng, runs=runs, folds=folds, higher=higher)
    result = bayesian_correlated_ttest(  # baycomp's df: J - 1
        values, dim=["repeat", "fold"], test_train_ratio=1 / (folds - 1), rope=rope, df=runs * folds - 1
    ).sel(metric="accuracy")
    for a in values["model"].values:
        for b in values["model"].values:
            if a == b:
                continue
            part = result.sel(model=a, versus=b)
            x, y = values.sel(model=b).values.ravel(), values.sel(model=a).values.ravel()
            if not higher:  # baycomp's right is y - x > rope: higher is better
                x, y = -x, -y
            posterior = baycomp.CorrelatedTTest(x, y, rope=rope, runs=runs)
            probs = posterior.probs()
            left, right = probs[0], probs[-1]
            equivalent = probs[1] if rope > 0 else 0.0
            assert float(part["p_model_better"]) == pytest.approx(right, abs=1e-9)
            assert float(part["p_versus_better"]) == pytest.approx(left, abs=1e-9)
            assert float(part["p_equivalent"]) == pytest.approx(equivalent, abs=1e-9)
            sign = 1 if higher else -1
            assert sign * float(part["location"]) == pytest.approx(posterior.mean, abs=1e-12)
            assert float(part["scale"]) == pytest.approx(np.sqrt(posterior.var), rel=1e-12)
            assert float(part["df"]) == posterior.df


def test_correlated_ttest_is_a_coherent_posterior():
    rng = np.random.default_rng(5)
    values = xr.merge(
        [fold_values(rng), (1 - fold_values(rng)).rename("mer").assign_attrs(metric="mer", higher_is_better=0)]
    )
    result = bayesian_correlated_ttest(
        values, dim=["repeat", "fold"], test_train_ratio=0.25, rope={"accuracy": 0.01, "mer": 0.02}
    )
    total = sum(result[p] for p in REGIONS)
    np.testing.assert_allclose(total.values, 1.0)
    # (a, b) mirrors (b, a)
    mirrored = result.rename({"model": "versus", "versus": "model"}).transpose(*result["p_model_better"].dims)
    np.testing.assert_allclose(result["p_model_better"], mirrored["p_versus_better"])
    np.testing.assert_allclose(result["location"], -mirrored["location"])
    # a model against itself is a point mass at 0: equivalent
    diagonal = result.sel(versus="m1", model="m1")
    assert diagonal["p_equivalent"].values.tolist() == [1.0, 1.0] and float(diagonal["scale"].max()) == 0
    assert result["rope"].values.tolist() == [0.01, 0.02] and result["higher_is_better"].values.tolist() == [1, 0]
    # the posterior is the corrected t: P(model better) with rope 0 is one minus the one-sided p-value
    plain = bayesian_correlated_ttest(values["accuracy"], dim=["repeat", "fold"], test_train_ratio=0.25)
    tested = corrected_ttest(values["accuracy"], dim=["repeat", "fold"], test_train_ratio=0.25)
    one_sided = scipy.stats.t.sf(tested["t"], plain["df"])
    off = ~np.eye(3, dtype=bool)[None]  # the diagonal is a point mass at 0 (t = 0): equivalent
    np.testing.assert_allclose(plain["p_versus_better"].values[off], one_sided[off], atol=1e-12)
    assert (plain["p_equivalent"].values[off] == 0).all()


def test_correlated_ttest_degrees_of_freedom_and_missing_folds():
    values = fold_values(np.random.default_rng(3), runs=3, folds=4)
    folds = ["repeat", "fold"]
    k_minus_1 = bayesian_correlated_ttest(values, dim=folds, test_train_ratio=1 / 3, df="fold", rope=0.01)
    assert (k_minus_1["df"].sel(metric="accuracy") == 3).all() and k_minus_1.attrs["df"] == "len(fold) - 1"
    location, scale = k_minus_1["location"].isel(model=0, versus=1), k_minus_1["scale"].isel(model=0, versus=1)
    expected = scipy.stats.t.cdf((-0.01 - location) / scale, 3)
    np.testing.assert_allclose(k_minus_1["p_versus_better"].isel(model=0, versus=1), expected)
    default = bayesian_correlated_ttest(values, dim=folds, test_train_ratio=1 / 3)
    assert default.identical(bayesian_correlated_ttest(values, dim=folds, test_train_ratio=1 / 3, df="fold"))
    holed = values.copy()
    holed[0, 0, :3] = np.nan  # m0: 9 of 12 fold values; m1 against m2 keeps 12
    result = bayesian_correlated_ttest(holed, dim=folds, test_train_ratio=1 / 3).sel(metric="accuracy")
    assert (result["df"] == 3).all()  # the default with repeats: k - 1
    flat = holed.stack(split=folds).drop_vars(["split", "repeat", "fold"])  # one fold dim: J - 1, NaN left out
    result = bayesian_correlated_ttest(flat, dim="split", test_train_ratio=1 / 3).sel(metric="accuracy")
    assert float(result["df"].sel(model="m0", versus="m1")) == 8
    assert float(result["df"].sel(model="m1", versus="m2")) == 11
    single = bayesian_correlated_ttest(values.isel(fold=[0]), dim=folds, test_train_ratio=1 / 3)  # 3 values
    assert single["p_model_better"].notnull().all()
    few = values.copy()
    few[0, :, 1:] = np.nan
    few[0, 1:, 0] = np.nan
    lonely = bayesian_correlated_ttest(few, dim=folds, test_train_ratio=1 / 3).sel(metric="accuracy", model="m0")
    assert lonely["p_model_better"].sel(versus="m1").isnull()  # one valid fold value: no posterior


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"rope": -0.1}, "rope must be a number >= 0"),
        ({"rope": {"accuracy": 0.1, "qwk": 0.1}}, r"it names 'qwk'"),
        ({"rope": {}}, r"it lacks 'accuracy'"),
        ({"rope": {"accuracy": "wide"}}, r"rope\['accuracy'\] must be"),
        ({"df": 0}, "df must be None"),
        ({"test_train_ratio": -1}, "test_train_ratio must be"),
    ],
)
def test_correlated_ttest_arguments(kwargs, error):
    arguments = {"dim": ["repeat", "fold"], "test_train_ratio": 0.25, **kwargs}
    with pytest.raises(ValueError, match=error):
        bayesian_correlated_ttest(fold_values(np.random.default_rng(0)), **arguments)


def test_correlated_ttest_needs_a_direction():
    with pytest.raises(ValueError, match="higher_is_better"):
        bayesian_correlated_ttest(fold_values(np.random.default_rng(0)).drop_attrs(), dim="fold", test_train_ratio=1)
    given = bayesian_correlated_ttest(
        fold_values(np.random.default_rng(0)).drop_attrs(), dim="fold", test_train_ratio=1, higher_is_better=False
    )
    assert given["higher_is_better"].values.tolist() == [0]


def test_both_tests_compare_a_metric_with_a_target_value_by_its_distance_from_it():
    """Mirrored biases (+x and -x on every fold or data set) are equivalent; the model nearer to 0 is better."""
    size = 0.2 + np.random.default_rng(7).random(10) * 0.1
    values = xr.DataArray(
        np.stack([size, -size, size / 4]),
        dims=("model", "fold"),
        coords={"model": ["up", "down", "near"]},
        name="bias",
        attrs={"best": 0.0},
    )
    ttest = bayesian_correlated_ttest(values, dim="fold", test_train_ratio=0.25, rope=0.01).squeeze()
    signed_rank = bayesian_signed_rank(values.rename(fold="dataset"), rope=0.01, seed=0).squeeze()
    for result in (ttest, signed_rank):
        assert float(result["p_equivalent"].sel(model="up", versus="down")) == 1.0
        assert float(result["p_model_better"].sel(model="near", versus="down")) > 0.99
        assert result["higher_is_better"].item() == 0


# --------------------------------------------------------------------------- signed-rank test


def data_set_values(rng, n=12, models=3, ties=False, higher=1):
    values = rng.normal(0.7, 0.05, (n, models)) + rng.normal(0, 0.02, models)
    if ties:
        values = np.round(values, 2)
    return xr.DataArray(
        values,
        dims=("dataset", "model"),
        coords={"model": [f"m{i}" for i in range(models)]},
        name="accuracy",
        attrs={"higher_is_better": higher},
    )


@pytest.mark.parametrize("rope", [0.0, 0.01, 0.03])
@pytest.mark.parametrize("ties", [False, True])
def test_signed_rank_draws_equal_baycomps_for_the_same_dirichlet_weights(rope, ties):
    rng = np.random.default_rng(int(rope * 100) + 7 * ties)
    values = data_set_values(rng, n=9, ties=ties).values
    x, y = values[:, 0], values[:, 1]
    n_samples = 500
    reference = baycomp.SignedRankTest.sample(x, y, rope, nsamples=n_samples, random_state=3)
    weights = np.random.RandomState(3).dirichlet(np.r_[0.5, np.ones(len(x))], n_samples)
    theta = _signed_rank_theta((y - x)[None], weights=weights, rope=rope)[0]
    np.testing.assert_allclose(theta[:, ::-1], reference, atol=1e-12)  # baycomp: (left, rope, right)


@pytest.mark.parametrize("seed", range(6))
def test_signed_rank_is_within_monte_carlo_error_of_baycomp(seed):
    rng = np.random.default_rng(100 + seed)
    n_resamples = 20_000
    rope = [0.0, 0.01, 0.02][seed % 3]
    higher = seed % 2
    values = data_set_values(rng, n=[6, 15, 30][seed % 3], ties=seed >= 3, higher=higher)
    result = bayesian_signed_rank(values, rope=rope, n_resamples=n_resamples, seed=seed).sel(metric="accuracy")
    for a, b in [("m0", "m1"), ("m1", "m2"), ("m2", "m0")]:
        x, y = values.sel(model=b).values, values.sel(model=a).values
        if not higher:
            x, y = -x, -y
        probs = baycomp.SignedRankTest.probs(x, y, rope, nsamples=n_resamples, random_state=seed)
        left, right = probs[0], probs[-1]
        equivalent = probs[1] if rope > 0 else 0.0
        part = result.sel(model=a, versus=b)
        for ours, theirs in [
            (part["p_model_better"], right),
            (part["p_versus_better"], left),
            (part["p_equivalent"], equivalent),
        ]:
            # two independent shares of n_resamples draws: sd of their difference sqrt(2 p (1 - p) / n_resamples)
            p = (float(ours) + theirs) / 2
            assert abs(float(ours) - theirs) <= 5 * np.sqrt(2 * p * (1 - p) / n_resamples)


def test_signed_rank_posterior_is_coherent_and_seeded():
    rng = np.random.default_rng(8)
    values = xr.merge([data_set_values(rng), (1 - data_set_values(rng)).rename("mer").assign_attrs(higher_is_better=0)])
    result = bayesian_signed_rank(values, rope={"accuracy": 0.01, "mer": 0.005}, n_resamples=2000, seed=1)
    np.testing.assert_allclose(sum(result[p] for p in REGIONS).values, 1.0)
    mirrored = result.rename({"model": "versus", "versus": "model"}).transpose(*result["p_model_better"].dims)
    np.testing.assert_array_equal(result["p_model_better"].values, mirrored["p_versus_better"].values)
    diagonal = result.sel(model="m2", versus="m2")
    assert diagonal["p_equivalent"].values.tolist() == [1.0, 1.0]
    xr.testing.assert_identical(
        result, bayesian_signed_rank(values, rope={"accuracy": 0.01, "mer": 0.005}, n_resamples=2000, seed=1)
    )
    no_rope = bayesian_signed_rank(values["accuracy"], n_resamples=2000, seed=1).sel(metric="accuracy")
    assert (no_rope["p_equivalent"] == 0).all()
    assert float(no_rope["p_model_better"].sel(model="m0", versus="m0")) == 0.5  # a tie, split evenly


def test_signed_rank_keeps_samples_and_other_dims():
    rng = np.random.default_rng(9)
    values = xr.concat([data_set_values(rng), data_set_values(rng)], dim="repeat")
    result = bayesian_signed_rank(values, rope=0.01, n_resamples=300, seed=0, keep_samples=True)
    assert result["p_model_better"].dims == ("metric", "model", "versus", "repeat")
    assert result["samples"].dims == ("metric", "model", "versus", "repeat", "draw", "region")
    assert result["region"].values.tolist() == ["model_better", "equivalent", "versus_better"]
    np.testing.assert_allclose(result["samples"].sum("region"), 1.0)
    winner = result["samples"].argmax("region")
    share = (winner == 0).mean("draw")
    np.testing.assert_allclose(share.isel(model=0, versus=1), result["p_model_better"].isel(model=0, versus=1))
    one = bayesian_signed_rank(values.isel(repeat=1), rope=0.01, n_resamples=300, seed=0)
    assert one["p_model_better"].dims == ("metric", "model", "versus")


def test_signed_rank_arguments():
    values = data_set_values(np.random.default_rng(0))
    holed = values.copy()
    holed[3, 1] = np.nan
    with pytest.raises(ValueError, match=r"1 missing \(NaN\) values out of 36"):
        bayesian_signed_rank(holed)
    with pytest.raises(ValueError, match="at least 2 data sets"):
        bayesian_signed_rank(values.isel(dataset=[0]))
    with pytest.raises(ValueError, match="prior must be a number > 0"):
        bayesian_signed_rank(values, prior=0)
    with pytest.raises(TypeError, match="n_resamples must be a whole number"):
        bayesian_signed_rank(values, n_resamples=0)
    with pytest.raises(ValueError, match="has no dim 'data_set'"):
        bayesian_signed_rank(values, dim="data_set")
    with pytest.raises(MemoryError, match="keep_samples"):
        import ordframe

        with ordframe.set_options(max_cube_bytes=1000):
            bayesian_signed_rank(values, n_resamples=100, keep_samples=True)
