"""ordframe.simulate: agreement between metrics, discriminative power, and sample-size planning.

References: scipy.stats.kendalltau (tau-b) for the agreement; the normal theory of two independent
proportions for the bootstrap ASL of accuracies; the binomial normal approximation n = z^2 p (1 - p) / h^2
and Connor's (1987) sample size of McNemar's test for the planning; statsmodels' Wilson interval.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe
from ordframe.simulate import _agreement, _planning

Z = scipy.stats.norm.ppf


def random_cubes(rng, n, k, samples=30, dims=("replicate",)):
    """n cubes of ``samples`` counts each, every one with its own random cell probabilities."""
    counts = rng.multinomial(samples, rng.dirichlet(np.ones(k * k), size=n)).reshape(n, k, k)
    return xr.DataArray(counts, dims=(*dims, "true", "pred"))


def oriented(values: xr.Dataset, name: str) -> np.ndarray:
    return (1 if values[name].attrs["higher_is_better"] else -1) * values[name].values


# --------------------------------------------------------------------------- agreement

METRICS = ["accuracy", "mae", "amae", "qwk", "oc", "rint", "d", "kendall_tau_b"]


@settings(max_examples=8, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(3, 40), k=st.integers(2, 4), samples=st.integers(3, 40))
def test_agreement_is_scipys_kendall_tau_b_of_the_oriented_metrics(seed, n, k, samples):
    cubes = random_cubes(np.random.default_rng(seed), n, k, samples)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # d undefined on a cube without some class, ...
        tau = ordframe.simulate.agreement(cubes, metrics=METRICS)
        values = ordframe._bridge.evaluate.evaluate_cube(cubes, METRICS)
        for a in METRICS:
            for b in METRICS:
                expected = scipy.stats.kendalltau(oriented(values, a), oriented(values, b), nan_policy="omit")
                assert float(tau.sel(metric=a, versus=b)) == pytest.approx(expected.statistic, abs=1e-12, nan_ok=True)


def test_agreement_is_oriented_symmetric_and_one_on_the_diagonal():
    cubes = random_cubes(np.random.default_rng(3), 200, 4)
    tau = ordframe.simulate.agreement(cubes, metrics=["accuracy", "mer", "mae", "mse", "qwk"])
    assert tau.dims == ("metric", "versus")
    np.testing.assert_allclose(tau.values, tau.values.T)
    np.testing.assert_allclose(np.diag(tau.values), 1.0)
    # accuracy (higher is better) and the error rate (lower is better) order every cube alike once oriented
    assert float(tau.sel(metric="accuracy", versus="mer")) == 1.0
    assert float(tau.sel(metric="mae", versus="accuracy")) > 0


def test_agreement_keeps_the_other_stack_dims():
    rng = np.random.default_rng(4)
    cubes = random_cubes(rng, 2 * 60, 3).data.reshape(2, 60, 3, 3)
    cubes = xr.DataArray(cubes, dims=("model", "replicate", "true", "pred"), coords={"model": ["a", "b"]})
    tau = ordframe.simulate.agreement(cubes, metrics=["mae", "qwk", "oc"])
    assert tau.dims == ("metric", "versus", "model")
    for model in ("a", "b"):
        alone = ordframe.simulate.agreement(cubes.sel(model=model), metrics=["mae", "qwk", "oc"])
        np.testing.assert_allclose(tau.sel(model=model).values, alone.values, atol=1e-12)


def test_agreement_of_a_metric_constant_over_the_stack_is_nan_with_a_warning():
    cubes = xr.DataArray(np.tile([[5, 1], [2, 6]], (10, 1, 1)), dims=("replicate", "true", "pred"))
    with pytest.warns(RuntimeWarning, match="single value"):
        tau = ordframe.simulate.agreement(cubes, metrics=["accuracy", "mae"])
    assert np.isnan(tau.values).all()


def test_agreement_leaves_out_the_cubes_where_a_metric_is_undefined_and_says_so():
    cubes = random_cubes(np.random.default_rng(5), 50, 3, samples=200)
    cubes[:7, 0, :] = 0  # no sample of the first class: George's d is undefined
    with pytest.warns(RuntimeWarning, match=r"d 7"):
        tau = ordframe.simulate.agreement(cubes, metrics=["d", "mae"])
    values = ordframe._bridge.evaluate.evaluate_cube(cubes[7:], ["d", "mae"])
    expected = scipy.stats.kendalltau(oriented(values, "d"), oriented(values, "mae")).statistic
    assert float(tau.sel(metric="d", versus="mae")) == pytest.approx(expected)


def test_agreement_of_a_large_stack_is_scipys():
    """Knight's merge count against scipy on 3000 cubes: ties, NaN and long runs of equal values."""
    rng = np.random.default_rng(12)
    cubes = random_cubes(rng, 3000, 3, samples=12)
    cubes[:40, 2, :] = 0  # d undefined on 40 cubes
    metrics = ["accuracy", "mae", "d", "kendall_tau_b"]
    with pytest.warns(RuntimeWarning, match=r"d \d+"):
        tau = ordframe.simulate.agreement(cubes, metrics=metrics)
    values = ordframe._bridge.evaluate.evaluate_cube(cubes, metrics)
    for a in metrics:
        for b in metrics:
            expected = scipy.stats.kendalltau(oriented(values, a), oriented(values, b), nan_policy="omit").statistic
            assert float(tau.sel(metric=a, versus=b)) == pytest.approx(expected, abs=1e-12)


def test_the_discordant_pairs_are_counted_by_merging():
    rng = np.random.default_rng(13)
    y = rng.integers(0, 5, (50, 37))
    brute = (y[:, :, None] > y[:, None, :]) & np.triu(np.ones((37, 37), bool), 1)
    np.testing.assert_array_equal(_agreement._discordant(y, 4), brute.sum(axis=(1, 2)))


def test_agreement_errors_name_the_argument():
    cubes = random_cubes(np.random.default_rng(6), 20, 3)
    with pytest.raises(ValueError, match="dim='fold' is not a stack dim"):
        ordframe.simulate.agreement(cubes, dim="fold")


# --------------------------------------------------------------------------- discriminative power


def test_discriminative_power_is_the_share_of_pairs_with_asl_below_one_minus_level():
    rng = np.random.default_rng(7)
    cubes = random_cubes(rng, 5, 3, samples=150, dims=("model",)).assign_coords(model=list("abcde"))
    result = ordframe.simulate.discriminative_power(cubes, metrics=["mae", "qwk"], level=0.9, n_resamples=300, seed=1)
    for metric in ("mae", "qwk"):
        asl = result["asl"].sel(metric=metric).values
        pairs = [asl[i, j] for i in range(5) for j in range(i + 1, 5)]
        assert int(result["pairs"].sel(metric=metric)) == 10
        assert float(result["discriminative_power"].sel(metric=metric)) == np.mean(np.array(pairs) < 0.1)
        np.testing.assert_array_equal(result["asl_curve"].sel(metric=metric).values, np.sort(pairs))


def test_the_asl_of_two_accuracies_is_the_normal_theory_p_value():
    """Independent test sets of 400: the bootstrap ASL of the accuracy difference is about 2 Phi(-|z|)."""
    cubes = xr.DataArray([[[160, 40], [40, 160]], [[148, 52], [52, 148]]], dims=("model", "true", "pred"))
    result = ordframe.simulate.discriminative_power(cubes, metrics=["accuracy"], n_resamples=4000, seed=2)
    p, q, n = 0.80, 0.74, 400
    z = (p - q) / np.sqrt(p * (1 - p) / n + q * (1 - q) / n)
    assert float(result["asl"].sel(metric="accuracy")[0, 1]) == pytest.approx(2 * scipy.stats.norm.sf(z), abs=0.012)


def test_equal_models_are_never_separated_and_distant_ones_always():
    same = xr.DataArray(np.tile([[90, 10], [10, 90]], (3, 1, 1)), dims=("model", "true", "pred"))
    result = ordframe.simulate.discriminative_power(same, metrics=["accuracy", "mae"], n_resamples=500, seed=3)
    np.testing.assert_array_equal(result["discriminative_power"].values, 0.0)
    far = xr.DataArray([[[95, 5], [5, 95]], [[60, 40], [40, 60]]], dims=("model", "true", "pred"))
    result = ordframe.simulate.discriminative_power(far, metrics=["accuracy", "mae"], n_resamples=500, seed=3)
    np.testing.assert_array_equal(result["discriminative_power"].values, 1.0)


def test_discriminative_power_pools_a_dim_of_simulated_pairs():
    rng = np.random.default_rng(8)
    cubes = random_cubes(rng, 6 * 2, 3, samples=100).data.reshape(6, 2, 3, 3)
    cubes = xr.DataArray(cubes, dims=("replicate", "model", "true", "pred"))
    pooled = ordframe.simulate.discriminative_power(cubes, metrics=["mae"], dim="replicate", n_resamples=200, seed=4)
    assert int(pooled["pairs"].sel(metric="mae")) == 6
    asl = pooled["asl"].sel(metric="mae").isel(model=0, versus=1)
    assert float(pooled["discriminative_power"].sel(metric="mae")) == float((asl < 0.05).mean())


def test_an_asl_equal_to_one_minus_level_does_not_separate_the_pair():
    # separated means ASL < 1 - level, strictly, as a test rejects at p < alpha: 1 - 0.95 must not be 0.050000000000000044
    asl = xr.DataArray([[[1.0, 0.05], [0.05, 1.0]]], dims=("metric", "model", "versus"), coords={"metric": ["mae"]})
    result = ordframe.simulate.discriminative_power(xr.Dataset({"p_value": asl}), level=0.95)
    assert float(result["discriminative_power"].sel(metric="mae")) == 0.0
    assert result.attrs["level"] == 0.95


def test_discriminative_power_of_a_paired_comparison_reads_its_p_values():
    rng = np.random.default_rng(9)
    y = rng.integers(0, 4, 300)
    noise = {m: rng.integers(-s, s + 1, 300) for m, s in (("a", 0), ("b", 1), ("c", 2))}
    df = pd.concat(
        [
            pd.DataFrame({"y": y, "yhat": np.clip(y + e, 0, 3), "model": m, "id": np.arange(300)})
            for m, e in noise.items()
        ]
    )
    comparison = df.ordinal.compare(
        "y", "yhat", model="model", sample="id", metrics=["mae", "qwk"], n_resamples=300, seed=0
    )
    result = ordframe.simulate.discriminative_power(comparison)
    xr.testing.assert_equal(result["asl"], comparison["p_value"].drop_attrs())
    with pytest.raises(ValueError, match="metrics, n_resamples apply to a cube"):
        ordframe.simulate.discriminative_power(comparison, metrics=["mae"], n_resamples=10)


def test_discriminative_power_errors():
    cube = xr.DataArray([[[5, 1], [1, 5]]], dims=("model", "true", "pred"))
    with pytest.raises(ValueError, match="level must be"):
        ordframe.simulate.discriminative_power(cube, level=5)
    with pytest.raises(ValueError, match="two models or more"):
        ordframe.simulate.discriminative_power(cube, metrics=["mae"])
    with pytest.raises(ValueError, match="no dim model_dim='system'"):
        ordframe.simulate.discriminative_power(cube, model_dim="system")
    with pytest.raises(ValueError, match="without 'p_value'"):
        ordframe.simulate.discriminative_power(xr.Dataset({"x": 1.0}))


# --------------------------------------------------------------------------- planning


@pytest.mark.parametrize(
    ("pilot", "h"),
    [([[40, 8, 2], [6, 30, 4], [1, 5, 24]], 0.05), ([[90, 5], [5, 0]], 0.03)],
)
def test_sample_size_of_accuracy_is_the_binomial_normal_approximation(pilot, h):
    pilot = np.array(pilot)
    p = np.trace(pilot) / pilot.sum()
    plan = ordframe.simulate.sample_size(pilot, "accuracy", halfwidth=h, seed=0)
    assert int(plan["sample_size"]) == pytest.approx(Z(0.975) ** 2 * p * (1 - p) / h**2, rel=0.08)
    low, high = plan["sample_size_mc"].values
    assert low <= plan["sample_size"] <= high
    assert float(plan["estimate"]) == pytest.approx(p)


def mcnemar_joint(a_only, b_only, both=0.4, k=2):
    """A joint table in which a alone is right on ``a_only`` of the samples and b alone on ``b_only``."""
    joint = np.zeros((k, k, k))
    for t in range(k):
        other = (t + 1) % k
        joint[t, t, t] = both * 2 / k
        joint[t, t, other] = a_only / k
        joint[t, other, t] = b_only / k
        joint[t, other, other] = (1 - 2 * both - a_only - b_only) / k
    return joint * 1000


@pytest.mark.parametrize(("a_only", "b_only", "delta"), [(0.13, 0.07, None), (0.13, 0.07, 0.1), (0.2, 0.1, None)])
def test_power_of_an_accuracy_difference_is_connors_mcnemar_sample_size(a_only, b_only, delta):
    plan = ordframe.simulate.power(mcnemar_joint(a_only, b_only, both=0.3), "accuracy", delta=delta, seed=1)
    psi, d = a_only + b_only, a_only - b_only if delta is None else delta
    connor = (Z(0.975) * np.sqrt(psi) + Z(0.8) * np.sqrt(psi - d**2)) ** 2 / d**2
    assert int(plan["sample_size"]) == pytest.approx(connor, rel=0.08)
    assert float(plan["difference"]) == pytest.approx(a_only - b_only)
    assert float(plan["delta"]) == pytest.approx(d)


def test_power_under_exchangeable_models_is_the_tests_size():
    rng = np.random.default_rng(10)
    joint = rng.dirichlet(np.ones(27)).reshape(3, 3, 3) * 500
    joint = joint + joint.transpose(0, 2, 1)
    with pytest.warns(RuntimeWarning, match="no size evaluated"), pytest.warns(RuntimeWarning, match="is 0"):
        plan = ordframe.simulate.power(joint, "mae", sizes=[100, 1000], n_resamples=4000, seed=2)
    assert np.isnan(float(plan["sample_size"]))
    assert (plan["power"].values > 0.03).all() and (plan["power"].values < 0.06).all()


def test_power_of_two_models_that_predict_alike_is_0_or_1_and_the_warning_says_so():
    joint = np.zeros((3, 3, 3))
    joint[[0, 1, 2], [0, 1, 2], [0, 1, 2]] = 10
    joint[0, 1, 1], joint[2, 1, 1] = 3, 2  # wrong alike
    alike = r"predict every sample of the pilot alike.*\(power 0\)"
    with pytest.warns(RuntimeWarning, match=alike), pytest.warns(RuntimeWarning, match="no size evaluated"):
        plan = ordframe.simulate.power(joint, "accuracy", sizes=[10, 100], n_resamples=50, seed=0)
    assert (plan["power"].values == 0).all()  # every difference is 0: never outside the critical values [0, 0]
    with pytest.warns(RuntimeWarning, match=r"always rejects any other \(power 1\)"):
        shifted = ordframe.simulate.power(joint, "accuracy", delta=0.01, sizes=[10, 100], n_resamples=50, seed=0)
    assert (shifted["power"].values == 1).all()


def test_sample_size_from_a_perfect_pilot_warns_that_no_spread_is_no_certainty():
    # the simulation's answer is kept (it is right for a population that makes no error), with the warning
    # that BCa gives for replicates that do not vary, and the rule of three's size
    with pytest.warns(RuntimeWarning, match=r"half-width is 0.*3/N.*about 60 samples"):
        plan = ordframe.simulate.sample_size(np.diag([10, 10, 10]), "accuracy", halfwidth=0.05, n_resamples=200, seed=0)
    assert float(plan["sample_size"]) == 1.0 and (plan["halfwidth"].values == 0).all()


def test_curves_are_monotone_in_n_and_carry_their_monte_carlo_intervals():
    pilot = np.array([[40, 8, 2], [6, 30, 4], [1, 5, 24]])
    curve = ordframe.simulate.sample_size(pilot, "mae", halfwidth=0.05, sizes=[25, 100, 400, 1600], seed=3)
    assert (np.diff(curve["halfwidth"].values) < 0).all()
    low, high = curve["halfwidth_mc"].sel(bound="low"), curve["halfwidth_mc"].sel(bound="high")
    assert ((low <= curve["halfwidth"]) & (curve["halfwidth"] <= high)).all()
    joint = mcnemar_joint(0.15, 0.05, both=0.3, k=3)
    curve = ordframe.simulate.power(joint, "mae", sizes=[25, 100, 400, 1600], seed=3)
    assert (np.diff(curve["power"].values) > 0).all()
    low, high = curve["power_mc"].sel(bound="low"), curve["power_mc"].sel(bound="high")
    assert ((low <= curve["power"]) & (curve["power"] <= high)).all()


def test_planning_is_seeded_and_reads_labelled_pilots_by_class():
    counts = np.array([[40, 8, 2], [6, 30, 4], [1, 5, 24]])
    labels = ["lo", "mid", "hi"]
    pilot = xr.DataArray(counts, dims=("true", "pred"), coords={"true": labels, "pred": labels})
    shuffled = pilot.isel(pred=[2, 0, 1])
    first = ordframe.simulate.sample_size(pilot, "oc", halfwidth=0.04, n_resamples=500, seed=4)
    again = ordframe.simulate.sample_size(shuffled, "oc", halfwidth=0.04, n_resamples=500, seed=4)
    xr.testing.assert_identical(first, again)
    joint = xr.DataArray(mcnemar_joint(0.15, 0.05, both=0.3, k=3), dims=("true", "pred", "pred_versus"))
    a = ordframe.simulate.power(joint, "qwk", sizes=[50, 200], n_resamples=300, seed=5)
    b = ordframe.simulate.power(
        joint.transpose("pred_versus", "true", "pred"), "qwk", sizes=[50, 200], n_resamples=300, seed=5
    )
    xr.testing.assert_identical(a, b)


def test_the_wilson_interval_is_statsmodels():
    from statsmodels.stats.proportion import proportion_confint

    successes, trials = np.array([0, 3, 50, 99, 100]), np.array([10, 10, 100, 100, 100])
    low, high = proportion_confint(successes, trials, alpha=0.05, method="wilson")
    np.testing.assert_allclose(_planning._wilson(successes, trials), np.stack([low, high], -1), atol=1e-12)


def test_the_quantiles_are_numpys_and_their_intervals_bracket_them():
    values = np.sort(np.random.default_rng(11).normal(size=(3, 500)), axis=-1)
    valid = np.array([500, 500, 500])
    for q in (0.025, 0.5, 0.975):
        quantile = _planning._quantiles(values, valid, q)
        np.testing.assert_allclose(quantile, np.quantile(values, q, axis=-1))
        low, high = _planning._quantile_mc(values, valid, q)
        assert (low <= quantile).all() and (quantile <= high).all()


def test_planning_errors_name_the_argument():
    pilot = np.array([[5, 1], [1, 5]])
    with pytest.raises(ValueError, match="halfwidth must be a number > 0"):
        ordframe.simulate.sample_size(pilot, "mae", halfwidth=0)
    with pytest.raises(ValueError, match="one confusion metric"):
        ordframe.simulate.sample_size(pilot, ["mae", "oc"], halfwidth=0.1)
    with pytest.raises(ValueError, match="confusion"):
        ordframe.simulate.sample_size(pilot, "rps", halfwidth=0.1)
    with pytest.raises(ValueError, match="K x K x K array"):
        ordframe.simulate.power(pilot, "mae")
    with pytest.raises(ValueError, match="no other"):
        ordframe.simulate.sample_size(xr.DataArray([pilot], dims=("model", "true", "pred")), "mae", halfwidth=0.1)
    with pytest.raises(ValueError, match="negative"):
        ordframe.simulate.sample_size(-pilot, "mae", halfwidth=0.1)
    with pytest.raises(TypeError, match="sizes= must be"):
        ordframe.simulate.sample_size(pilot, "mae", halfwidth=0.1, sizes=[0.5])
    with pytest.raises(ValueError, match=r"power must be a number in \(0, 1\)"):
        ordframe.simulate.power(mcnemar_joint(0.1, 0.05), "mae", power=80)
    with pytest.raises(ValueError, match="level must be"):
        ordframe.simulate.power(mcnemar_joint(0.1, 0.05), "mae", level=1)
    with pytest.raises(ValueError, match="beta"):
        ordframe.simulate.sample_size(pilot, "oc[beta=-1]", halfwidth=0.1)


def test_an_unreachable_target_is_nan_with_a_warning():
    with pytest.warns(RuntimeWarning, match="no size evaluated"):
        plan = ordframe.simulate.sample_size([[5, 1], [1, 5]], "mae", halfwidth=1e-4, max_n=1000, seed=0)
    assert np.isnan(float(plan["sample_size"]))
    assert int(plan["n"].max()) == 1000
