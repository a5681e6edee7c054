"""Significance tests over folds and data sets, and George et al.'s selection rule.

The corrected resampled t-test and interval are checked against the formula of Nadeau & Bengio (2003)
computed directly and against ``scipy.stats.ttest_rel`` / ``ttest_1samp``; the Friedman test against ``scipy.stats.friedmanchisquare``
and the worked example of Demšar (2006, section 3.2.4 and Table 6); the post-hoc p-values against
scikit-posthocs.
"""

import itertools
import warnings

import numpy as np
import pytest
import scikit_posthocs
import scipy.stats
import xarray as xr

from ordframe import corrected_ci, corrected_ttest, friedman, george_rank, wilcoxon

# --------------------------------------------------------------------------- corrected resampled t-test


def fold_values(seed=0, models=3, repeats=2, folds=5):
    rng = np.random.default_rng(seed)
    shift = np.arange(models)[:, None, None] * 0.01
    values = 0.5 + shift + rng.normal(0, 0.02, (models, repeats, folds))
    return xr.DataArray(
        values,
        dims=("model", "repeat", "fold"),
        coords={"model": [f"m{i}" for i in range(models)]},
        name="mae",
        attrs={"metric": "mae", "higher_is_better": 0},
    )


def test_corrected_ttest_is_nadeau_and_bengios_formula():
    values = fold_values()
    ratio = 1 / 4
    result = corrected_ttest(values, dim=["repeat", "fold"], test_train_ratio=ratio, level=0.9)
    assert result["difference"].dims == ("metric", "model", "versus")
    assert result["interval"].dims == ("metric", "bound", "model", "versus")
    flat = values.values.reshape(3, -1)
    j, nu = flat.shape[1], values.sizes["fold"] - 1  # the default df: k - 1 of r x k cross-validation
    for a, b in itertools.product(range(3), repeat=2):
        if a == b:
            continue
        d = flat[a] - flat[b]
        se = np.sqrt((1 / j + ratio) * d.var(ddof=1))
        t = d.mean() / se
        part = result.sel(metric="mae").isel(model=a, versus=b)
        assert float(part["difference"]) == pytest.approx(d.mean())
        assert float(part["t"]) == pytest.approx(t)
        assert float(part["p_value"]) == pytest.approx(2 * scipy.stats.t.sf(abs(t), nu))
        half = scipy.stats.t.ppf(0.95, nu) * se
        np.testing.assert_allclose(part["interval"].values, [d.mean() - half, d.mean() + half])
    assert result.attrs["test_train_ratio"] == ratio and result.attrs["fold_dims"] == "repeat, fold"


def test_a_model_against_itself_has_no_difference_and_p_one():
    values = xr.concat([fold_values(models=2), fold_values(models=1).assign_coords(model=["copy"])], "model")
    result = corrected_ttest(values, dim=["repeat", "fold"], test_train_ratio=1 / 4).sel(metric="mae")
    for a, b in (("m0", "m0"), ("m1", "m1"), ("m0", "copy"), ("copy", "m0")):  # var 0 and mean 0: t = 0, p = 1
        part = result.sel(model=a, versus=b)
        assert float(part["difference"]) == 0 and float(part["t"]) == 0 and float(part["p_value"]) == 1
        assert part["interval"].values.tolist() == [0.0, 0.0]
    assert not result["p_value"].isnull().any()


def test_a_constant_nonzero_difference_is_certain():
    values = xr.DataArray([[1.5, 2.5, 3.5], [1.0, 2.0, 3.0]], dims=("model", "fold"), name="mae")
    part = corrected_ttest(values, test_train_ratio=0.5).sel(metric="mae").isel(model=0, versus=1)
    assert float(part["t"]) == np.inf and float(part["p_value"]) == 0
    assert part["interval"].values.tolist() == [0.5, 0.5]


@pytest.mark.parametrize("ratio", [0, 1 / 9, 1 / 4, 0.5])
def test_the_correction_widens_the_paired_t_interval_by_sqrt_1_plus_j_ratio(ratio):
    values = fold_values(seed=3, models=2, repeats=1, folds=10).squeeze("repeat", drop=True)
    result = corrected_ttest(values, test_train_ratio=ratio).sel(metric="mae", model="m1", versus="m0")
    naive = scipy.stats.ttest_rel(values.sel(model="m1").values, values.sel(model="m0").values)
    naive_interval = naive.confidence_interval(0.95)
    low, high = result["interval"].values
    assert (high - low) / (naive_interval.high - naive_interval.low) == pytest.approx(np.sqrt(1 + 10 * ratio))
    assert float(result["t"]) == pytest.approx(naive.statistic / np.sqrt(1 + 10 * ratio))
    if ratio:
        assert float(result["p_value"]) > naive.pvalue
    else:  # no correction: the paired t-test itself
        assert float(result["p_value"]) == pytest.approx(naive.pvalue)


def test_corrected_ttest_leaves_out_nan_folds_pair_by_pair_and_keeps_other_dims():
    values = fold_values(models=3, repeats=1, folds=8).squeeze("repeat", drop=True)
    values = xr.concat([values, values + 0.01], dim=xr.DataArray(["x", "y"], dims="dataset"))
    holed = values.copy()
    holed[0, 2, 3] = np.nan  # dataset x, model m2, fold 3
    result = corrected_ttest(holed, test_train_ratio=1 / 7)
    assert result["difference"].dims == ("metric", "model", "versus", "dataset")
    kept = corrected_ttest(values.drop_isel(fold=3), test_train_ratio=1 / 7)
    pair = {"metric": "mae", "model": "m2", "versus": "m0", "dataset": "x"}
    xr.testing.assert_allclose(result["p_value"].sel(pair), kept["p_value"].sel(pair))
    other = {"metric": "mae", "model": "m1", "versus": "m0", "dataset": "x"}  # all 8 folds
    assert float(result["p_value"].sel(other)) != pytest.approx(float(kept["p_value"].sel(other)))


def test_corrected_ttest_on_ordframe_metrics_of_per_fold_cubes():
    rng = np.random.default_rng(0)
    counts = rng.integers(0, 10, (2, 5, 3, 3)) + 15 * np.eye(3, dtype=int)
    cube = xr.DataArray(counts, dims=("model", "fold", "true", "pred"), coords={"model": ["a", "b"]})
    result = corrected_ttest(cube.ordinal.evaluate(metrics=["mae", "qwk"]), test_train_ratio=1 / 4)
    assert list(result["metric"].values) == ["mae", "qwk"]
    mae = cube.ordinal.mae()
    assert float(result["difference"].sel(metric="mae", model="a", versus="b")) == pytest.approx(
        float((mae.sel(model="a") - mae.sel(model="b")).mean())
    )
    unnamed = corrected_ttest(mae.rename(None), test_train_ratio=1 / 4)
    assert list(unnamed["metric"].values) == ["mae"]  # named after the metric attr


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"test_train_ratio": -0.2}, "test_train_ratio must be a number >= 0"),
        ({"test_train_ratio": np.nan}, "test_train_ratio must be a number >= 0"),
        ({"test_train_ratio": True}, "test_train_ratio must be a number >= 0"),
        ({"test_train_ratio": 0.25, "level": 95}, "level must be"),
        ({"test_train_ratio": 0.25, "dim": "split"}, "has no dim 'split'"),
        ({"test_train_ratio": 0.25, "dim": "model"}, "other than the model dim"),
    ],
)
def test_corrected_ttest_arguments(kwargs, error):
    with pytest.raises(ValueError, match=error):
        corrected_ttest(fold_values().isel(repeat=0), **kwargs)


def test_corrected_ttest_needs_two_fold_values_and_xarray():
    with pytest.raises(ValueError, match="at least 2 are needed"):
        corrected_ttest(fold_values().isel(repeat=0, fold=[0]), test_train_ratio=0.25)
    with pytest.raises(TypeError, match="DataArray or Dataset"):
        corrected_ttest(np.zeros((2, 5)), test_train_ratio=0.25)


def test_corrected_ci_is_nadeau_and_bengios_interval_of_one_model():
    values = fold_values()
    result = corrected_ci(values, dim=["repeat", "fold"], test_train_ratio=1 / 4, level=0.9)
    assert result.dims == ("bound", "model") and list(result["bound"].values) == ["low", "high"]
    assert result.name == "mae" and result.attrs["metric"] == "mae" and result.attrs["ci_level"] == 0.9
    for m, v in enumerate(values.values.reshape(3, -1)):
        half = scipy.stats.t.ppf(0.95, values.sizes["fold"] - 1) * np.sqrt((1 / v.size + 1 / 4) * v.var(ddof=1))
        np.testing.assert_allclose(result.isel(model=m).values, [v.mean() - half, v.mean() + half])


def test_corrected_ci_without_correction_is_the_t_interval_and_matches_the_pairwise_test():
    values = fold_values().isel(repeat=0)
    plain = corrected_ci(values, test_train_ratio=0)
    for m, v in enumerate(values.values):
        low, high = scipy.stats.ttest_1samp(v, 0).confidence_interval(0.95)
        np.testing.assert_allclose(plain.isel(model=m).values, [low, high])
    difference = (values.sel(model="m1") - values.sel(model="m0")).rename("mae")
    pairwise = corrected_ttest(values, test_train_ratio=0.25)["interval"].sel(metric="mae", model="m1", versus="m0")
    np.testing.assert_allclose(corrected_ci(difference, test_train_ratio=0.25).values, pairwise.values)


def test_corrected_ci_on_a_dataset_leaves_out_nan_folds():
    values = fold_values().isel(repeat=0)
    holed = values.where(values["fold"] != 3)
    ds = xr.Dataset({"mae": holed, "other": values}, attrs={"note": "kept"})
    result = corrected_ci(ds, test_train_ratio=1 / 7)
    assert set(result.data_vars) == {"mae", "other"} and result.attrs["note"] == "kept"
    xr.testing.assert_allclose(result["mae"], corrected_ci(values.drop_isel(fold=3), test_train_ratio=1 / 7))
    lonely = values.where(values["fold"] == 0)  # one valid value: no interval
    assert corrected_ci(lonely, test_train_ratio=0.25).isnull().all()


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"test_train_ratio": -1}, "test_train_ratio must be a number >= 0"),
        ({"test_train_ratio": 0.25, "level": 0}, "level must be"),
        ({"test_train_ratio": 0.25, "dim": "split"}, "has no dim 'split'"),
        ({"test_train_ratio": 0.25, "dim": []}, "dim must name one or more different fold dims"),
        ({"test_train_ratio": 0.25, "dim": ["fold", "fold"]}, "dim must name one or more different fold dims"),
        ({"test_train_ratio": 0.25, "dim": None}, "dim must name one or more different fold dims"),
    ],
)
def test_corrected_ci_arguments(kwargs, error):
    with pytest.raises(ValueError, match=error):
        corrected_ci(fold_values().isel(repeat=0), **kwargs)
    with pytest.raises(ValueError, match="at least 2 are needed"):
        corrected_ci(fold_values().isel(repeat=0, fold=[0]), test_train_ratio=0.25)


def test_corrected_ci_refuses_what_it_cannot_use_and_says_why():
    values = fold_values().isel(repeat=0)
    with pytest.raises(ValueError, match="already has a dim 'bound'"):
        corrected_ci(values.expand_dims(bound=2), test_train_ratio=0.25)
    with pytest.raises(TypeError, match="must be real numbers"):
        corrected_ci(values.astype(str), test_train_ratio=0.25)
    stacked = values.stack(group=["model"])
    with pytest.raises(ValueError, match=r"has no dim 'run'.*unstack\('group'\)"):
        corrected_ci(stacked, dim="run", test_train_ratio=0.25)
    infinite = values.where(values["fold"] != 0, np.inf)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # NaN bounds, without numpy's warnings
        assert corrected_ci(infinite, test_train_ratio=0.25).isnull().all()


def test_degrees_of_freedom_widen_or_narrow_only_the_t_quantile():
    """df="fold" gives k - 1 for r x k cross-validation (Bouckaert 2003); an int gives itself."""
    values = fold_values(repeats=3, folds=5)
    folds = ["repeat", "fold"]
    default = corrected_ttest(values, dim=folds, test_train_ratio=1 / 4)
    for df, nu in [("fold", 4), ("repeat", 2), (7, 7), (14, 14)]:
        given = corrected_ttest(values, dim=folds, test_train_ratio=1 / 4, df=df)
        xr.testing.assert_equal(given["t"], default["t"])
        t = default["t"].sel(metric="mae").isel(model=0, versus=2)
        assert float(given["p_value"].sel(metric="mae").isel(model=0, versus=2)) == pytest.approx(
            2 * scipy.stats.t.sf(abs(float(t)), nu)
        )
        low, high = given["interval"].sel(metric="mae").isel(model=0, versus=2).values
        se = float(default["difference"].sel(metric="mae").isel(model=0, versus=2)) / float(t)
        assert high - low == pytest.approx(2 * scipy.stats.t.ppf(0.975, nu) * se)
        one = corrected_ci(values.isel(model=0), dim=folds, test_train_ratio=1 / 4, df=df)
        flat = values.isel(model=0).values.ravel()
        half = scipy.stats.t.ppf(0.975, nu) * np.sqrt((1 / 15 + 1 / 4) * flat.var(ddof=1))
        np.testing.assert_allclose(one.values, [flat.mean() - half, flat.mean() + half])
    assert given.attrs["df"] == "14"
    # more degrees of freedom than the default k - 1 = 4: smaller p-values
    assert (given["p_value"] <= default["p_value"]).all()


def test_the_default_degrees_of_freedom_are_k_minus_1_and_j_minus_1_for_one_fold_dim():
    """Several fold dims: the last one's length minus 1 (k - 1 of r x k cross-validation); one: J - 1."""
    values = fold_values(repeats=3, folds=5)
    for dims, nu, text in [(["repeat", "fold"], 4, "len(fold) - 1"), (["fold", "repeat"], 2, "len(repeat) - 1")]:
        default = corrected_ttest(values, dim=dims, test_train_ratio=1 / 4)
        xr.testing.assert_equal(default, corrected_ttest(values, dim=dims, test_train_ratio=1 / 4, df=nu))
        one = corrected_ci(values, dim=dims, test_train_ratio=1 / 4)
        xr.testing.assert_equal(
            one.drop_attrs(), corrected_ci(values, dim=dims, test_train_ratio=1 / 4, df=nu).drop_attrs()
        )
        assert default.attrs["df"] == one.attrs["ci_df"] == text
    # one fold dim, or a last one of length 1 (one k-fold cross-validation): J - 1
    for one_dim, dims in [(values.isel(repeat=0), "fold"), (values.isel(repeat=[0]), ["fold", "repeat"])]:
        single = corrected_ttest(one_dim, dim=dims, test_train_ratio=1 / 4)
        given = corrected_ttest(one_dim, dim=dims, test_train_ratio=1 / 4, df=4)
        xr.testing.assert_equal(single.drop_attrs(), given.drop_attrs())
        assert single.attrs["df"] == "J - 1"


@pytest.mark.parametrize("df", [0, 2.5, True, "model", "seed"])
def test_degrees_of_freedom_must_be_a_count_or_a_fold_dim(df):
    with pytest.raises(ValueError, match="df must be None"):
        corrected_ttest(fold_values(), dim=["repeat", "fold"], test_train_ratio=1 / 4, df=df)
    with pytest.raises(ValueError, match="df must be None"):
        corrected_ci(fold_values(), dim=["repeat", "fold"], test_train_ratio=1 / 4, df=df)


def test_degrees_of_freedom_of_a_dim_of_length_one_is_an_error():
    with pytest.raises(ValueError, match="df='repeat' names a dim of length 1"):
        corrected_ttest(fold_values(repeats=1), dim=["repeat", "fold"], test_train_ratio=1 / 4, df="repeat")


# --------------------------------------------------------------------------- Friedman and post-hoc tests

# Demšar (2006), Table 6: AUC of C4.5 with m = 0 and cf = 0.25, and with m, cf or both tuned, on 14 UCI
# data sets, as printed (three decimals). The paper's rank columns were computed before rounding: on
# "voting" C4.5+cf and C4.5+m+cf both print 0.975 but are ranked 2 and 3, which gives the published
# average ranks 2.893 and 1.964 (a tie would give 2.929 and 1.929). VOTING_CF keeps that order.
DEMSAR_MODELS = ["C4.5", "C4.5+m", "C4.5+cf", "C4.5+m+cf"]
DEMSAR_DATASETS = [
    "adult (sample)",
    "breast cancer",
    "breast cancer wisconsin",
    "cmc",
    "ionosphere",
    "iris",
    "liver disorders",
    "lung cancer",
    "lymphography",
    "mushroom",
    "primary tumor",
    "rheum",
    "voting",
    "wine",
]
DEMSAR_AUC = [
    [0.763, 0.768, 0.771, 0.798],
    [0.599, 0.591, 0.590, 0.569],
    [0.954, 0.971, 0.968, 0.967],
    [0.628, 0.661, 0.654, 0.657],
    [0.882, 0.888, 0.886, 0.898],
    [0.936, 0.931, 0.916, 0.931],
    [0.661, 0.668, 0.609, 0.685],
    [0.583, 0.583, 0.563, 0.625],
    [0.775, 0.838, 0.866, 0.875],
    [1.000, 1.000, 1.000, 1.000],
    [0.940, 0.962, 0.965, 0.962],
    [0.619, 0.666, 0.614, 0.669],
    [0.972, 0.981, 0.975, 0.975],
    [0.957, 0.978, 0.946, 0.970],
]
VOTING_CF = 0.9751


def demsar_table(paper_ranks=True):
    auc = np.array(DEMSAR_AUC)
    if paper_ranks:
        auc[DEMSAR_DATASETS.index("voting"), DEMSAR_MODELS.index("C4.5+cf")] = VOTING_CF
    return xr.DataArray(
        auc,
        dims=("dataset", "model"),
        coords={"dataset": DEMSAR_DATASETS, "model": DEMSAR_MODELS},
        name="auc",
        attrs={"higher_is_better": 1},
    )


def test_demsars_worked_example():
    """Demšar (2006), section 3.2.4: chi2_F = 9.28, F_F = 3.69 (> F(3, 39) = 2.85 at 0.05), CD = 1.25."""
    result = friedman(demsar_table(), tie_correction=False).sel(metric="auc")
    np.testing.assert_allclose(result["average_rank"].values, [3.143, 2.000, 2.893, 1.964], atol=5e-4)
    assert float(result["statistic"]) == pytest.approx(9.28, abs=0.005)
    assert float(result["iman_davenport"]) == pytest.approx(3.69, abs=0.005)
    assert scipy.stats.f.ppf(0.95, 3, 39) == pytest.approx(2.85, abs=0.005)
    assert float(result["iman_davenport_p_value"]) < 0.05
    assert float(result["critical_difference"]) == pytest.approx(1.25, abs=0.005)
    # the largest difference of average ranks, 3.143 - 1.964 = 1.179, is below CD: no pair differs at 0.05
    assert (result["nemenyi_p_value"] > 0.05).all()
    at_10 = friedman(demsar_table(), level=0.90).sel(metric="auc")
    assert float(at_10["critical_difference"]) == pytest.approx(1.12, abs=0.005)  # q_0.10 = 2.291 for k = 4
    worse = at_10["nemenyi_p_value"].sel(model="C4.5") < 0.10  # C4.5 against C4.5+m (1.143) and C4.5+m+cf (1.179)
    assert worse.values.tolist() == [False, True, False, True]
    printed = friedman(demsar_table(paper_ranks=False), tie_correction=False).sel(metric="auc")
    np.testing.assert_allclose(printed["average_rank"].values, [44 / 14, 2.0, 41 / 14, 27 / 14])


def test_demsars_comparison_with_a_control():
    """Demšar (2006), section 3.2.4: C4.5 against its three tuned versions, Holm and Bonferroni-Dunn."""
    result = friedman(demsar_table(), tie_correction=False, control="C4.5").sel(metric="auc")
    p = result["control_p_value"]
    assert float(p.sel(model="C4.5+m+cf")) == pytest.approx(0.0157, abs=5e-5)
    assert float(p.sel(model="C4.5+m")) == pytest.approx(0.0192, abs=5e-5)
    assert float(p.sel(model="C4.5+m+cf")) < 0.05 / 3 and float(p.sel(model="C4.5+m")) < 0.05 / 2
    assert float(p.sel(model="C4.5+cf")) > 0.05
    rejected = result["control_holm_p_value"] <= 0.05
    assert rejected.values.tolist() == [False, True, False, True]  # the control itself: 1
    assert float(result["bonferroni_dunn_cd"]) == pytest.approx(1.168, abs=5e-4)  # q_0.05 = 2.394 for k = 4
    # Bonferroni-Dunn: C4.5+m (1.143 ranks from C4.5) is below CD_BD, C4.5+m+cf (1.179) above
    assert float(result["bonferroni_dunn_cd"]) == pytest.approx(2.394 * np.sqrt(4 * 5 / (6 * 14)), abs=5e-4)
    assert result.attrs["control"] == "C4.5"
    assert "report" in result["iman_davenport_p_value"].attrs["long_name"]
    assert "conservative" in result["p_value"].attrs["long_name"]


def test_control_comparisons_equal_scikit_posthocs_and_holm_by_hand():
    rng = np.random.default_rng(11)
    data = rng.normal(size=(2, 16, 5)) + np.arange(5) * 0.3
    values = xr.DataArray(
        data, dims=("repeat", "dataset", "model"), coords={"model": list("abcde")}, attrs={"higher_is_better": 1}
    ).rename("x")
    result = friedman(values, control="c").sel(metric="x")
    assert result["control_holm_p_value"].dims == ("model", "repeat")
    for r in range(2):
        part = result.isel(repeat=r)
        z = (part["average_rank"] - part["average_rank"].sel(model="c")) / np.sqrt(5 * 6 / (6 * 16))
        np.testing.assert_allclose(part["control_p_value"], 2 * scipy.stats.norm.sf(np.abs(z)))
        others = part["control_p_value"].drop_sel(model="c").values
        order = np.argsort(others)
        stepped = np.maximum.accumulate((4 - np.arange(4)) * others[order])
        expected = np.empty(4)
        expected[order] = np.minimum(1, stepped)
        np.testing.assert_allclose(part["control_holm_p_value"].drop_sel(model="c"), expected)
        assert float(part["control_holm_p_value"].sel(model="c")) == 1
    unadjusted = scikit_posthocs.posthoc_siegel_friedman(data[0]).values[2]
    np.testing.assert_allclose(result["control_p_value"].isel(repeat=0).drop_sel(model="c"), np.delete(unadjusted, 2))


def test_control_must_be_a_model_label():
    with pytest.raises(ValueError, match=r"control='J48' is not a label along 'model'.*'C4.5'"):
        friedman(demsar_table(), control="J48")
    with pytest.raises(ValueError, match="has no coordinate"):
        friedman(demsar_table().drop_vars("model"), control=0)


@pytest.mark.parametrize("k, q", [(2, 1.960), (3, 2.343), (4, 2.569), (5, 2.728), (6, 2.850), (7, 2.949), (10, 3.164)])
def test_nemenyi_critical_values_of_demsar_table_5(k, q):
    values = xr.DataArray(
        np.random.default_rng(k).random((14, k)), dims=("dataset", "model"), attrs={"higher_is_better": 1}
    )
    cd = float(friedman(values)["critical_difference"].squeeze())
    assert cd / np.sqrt(k * (k + 1) / (6 * 14)) == pytest.approx(q, abs=1e-3)  # the paper's from 3-decimal tables of q


@pytest.mark.parametrize("ties", [False, True])
def test_friedman_statistic_and_p_value_equal_scipy(ties):
    rng = np.random.default_rng(1)
    data = rng.normal(size=(3, 12, 5))  # (repeat, dataset, model): one test per repeat
    if ties:
        data = np.round(data)  # many ties within data sets
    values = xr.DataArray(data, dims=("repeat", "dataset", "model"), name="x", attrs={"higher_is_better": 0})
    result = friedman(values).sel(metric="x")
    assert result["statistic"].dims == ("repeat",) and result["nemenyi_p_value"].dims == ("model", "versus", "repeat")
    for r in range(3):
        reference = scipy.stats.friedmanchisquare(*data[r].T)
        assert float(result["statistic"][r]) == pytest.approx(reference.statistic)
        assert float(result["p_value"][r]) == pytest.approx(reference.pvalue)
        n, k = data[r].shape
        chi2 = reference.statistic
        f = (n - 1) * chi2 / (n * (k - 1) - chi2)
        assert float(result["iman_davenport"][r]) == pytest.approx(f)
        assert float(result["iman_davenport_p_value"][r]) == pytest.approx(
            scipy.stats.f.sf(f, k - 1, (k - 1) * (n - 1))
        )


def test_the_tie_correction_divides_demsars_statistic():
    corrected = friedman(demsar_table()).sel(metric="auc")
    plain = friedman(demsar_table(), tie_correction=False).sel(metric="auc")
    # ties: mushroom (4 models: 4^3 - 4), iris, lung cancer, primary tumor (2 each: 2^3 - 2)
    factor = 1 - (60 + 3 * 6) / (14 * 4 * 15)
    assert float(corrected["statistic"]) == pytest.approx(float(plain["statistic"]) / factor)
    assert float(corrected["statistic"]) == pytest.approx(scipy.stats.friedmanchisquare(*demsar_table().values.T)[0])


def test_pairwise_p_values_match_scikit_posthocs():
    # from 0.11 on scikit-posthocs uses scipy's studentized range (before: statsmodels' psturng, clipped to [0.001, 0.9])
    sp = scikit_posthocs
    for data in (demsar_table().values, np.random.default_rng(4).normal(size=(20, 6))):
        k = data.shape[1]
        values = xr.DataArray(data, dims=("dataset", "model"), name="x", attrs={"higher_is_better": 1})
        result = friedman(values).sel(metric="x")
        np.testing.assert_allclose(result["nemenyi_p_value"].values, sp.posthoc_nemenyi_friedman(data).values)
        holm = sp.posthoc_siegel_friedman(data, p_adjust="holm").values
        np.testing.assert_allclose(result["holm_p_value"].values, holm)
        assert result["holm_p_value"].values.shape == (k, k)


def test_holm_step_down_by_hand():
    # k = 3, N = 10; ranks 1, 2, 3 in every data set: z = 1 / sqrt(3 * 4 / 60) per step of average rank
    values = xr.DataArray(
        np.tile([3.0, 2.0, 1.0], (10, 1)), dims=("dataset", "model"), name="x", attrs={"higher_is_better": 1}
    )
    result = friedman(values).sel(metric="x")
    z = 1 / np.sqrt(0.2)
    p1, p2 = 2 * scipy.stats.norm.sf(z), 2 * scipy.stats.norm.sf(2 * z)  # the 1-2 and 2-3 pairs, and 1-3
    holm = result["holm_p_value"].values
    assert holm[0, 2] == pytest.approx(3 * p2)
    assert holm[0, 1] == pytest.approx(max(3 * p2, 2 * p1)) and holm[1, 2] == pytest.approx(max(3 * p2, 2 * p1))
    np.testing.assert_array_equal(np.diag(holm), 1.0)
    assert float(result["iman_davenport"]) == np.inf and float(result["iman_davenport_p_value"]) == 0


def test_ranks_follow_each_metrics_direction():
    diagonal = 40 * np.eye(3, dtype=int)
    off = np.array([[0, 8, 2], [8, 0, 8], [2, 8, 0]])
    rng = np.random.default_rng(2)
    # per data set: "good" makes fewest errors, "bad" most; a little noise so the values differ between data sets
    cubes = [diagonal + np.diag(rng.integers(0, 5, 3)) + s * off for s in (0, 1, 3)]
    cube = xr.DataArray(
        np.stack([cubes] * 4), dims=("dataset", "model", "true", "pred"), coords={"model": ["good", "fair", "bad"]}
    )
    values = cube.ordinal.evaluate(metrics=["mae", "qwk"])
    assert values["mae"].attrs["higher_is_better"] == 0 and values["qwk"].attrs["higher_is_better"] == 1
    result = friedman(values)
    for metric in ("mae", "qwk"):  # lower mae first, higher qwk first: the same models win
        assert result["average_rank"].sel(metric=metric).values.tolist() == [1.0, 2.0, 3.0]
    flipped = friedman(values["mae"].assign_attrs(higher_is_better=1))
    assert flipped["average_rank"].sel(metric="mae").values.tolist() == [3.0, 2.0, 1.0]


def test_all_ties_give_no_evidence():
    values = xr.DataArray(np.ones((5, 4)), dims=("dataset", "model"), name="x", attrs={"higher_is_better": 1})
    result = friedman(values).sel(metric="x")
    assert float(result["statistic"]) == 0 and float(result["p_value"]) == 1
    assert float(result["iman_davenport"]) == 0 and float(result["iman_davenport_p_value"]) == 1
    assert (result["nemenyi_p_value"] == 1).all() and (result["holm_p_value"] == 1).all()


def test_friedman_needs_complete_blocks_a_direction_and_the_dims():
    values = demsar_table()
    holed = values.copy()
    holed[[2, 5], 1] = np.nan
    with pytest.raises(ValueError, match=r"'auc' has 2 missing \(NaN\) values out of 56.*complete blocks"):
        friedman(holed)
    with pytest.raises(ValueError, match="higher_is_better"):
        friedman(values.drop_attrs())
    with pytest.raises(ValueError, match="has no dim 'data_set'"):
        friedman(values, dim="data_set")
    with pytest.raises(ValueError, match="level must be"):
        friedman(values, level=5)
    with pytest.raises(ValueError, match="the Friedman test needs at least 2 models and 2 data sets"):
        friedman(values.isel(dataset=[0]))


def test_friedman_ranks_a_metric_with_a_target_value_by_its_distance_from_it():
    """Biases of +x and -x tie; the model nearer to 0 ranks first on every data set. ``higher_is_better=``, given,
    replaces the target: the signed values are then ranked as they are."""
    rng = np.random.default_rng(4)
    size = 0.2 + rng.random(6) * 0.1
    values = xr.DataArray(
        np.stack([size, -size, size / 4]),
        dims=("model", "dataset"),
        coords={"model": ["up", "down", "near"]},
        name="bias",
        attrs={"best": 0.0, "direction": "best at 0"},
    )
    ranks = friedman(values)["average_rank"].sel(metric="bias")
    assert ranks.values.tolist() == [2.5, 2.5, 1.0]
    signed = friedman(values, higher_is_better=False)["average_rank"].sel(metric="bias")
    assert signed.values.tolist() == [3.0, 1.0, 2.0]


# --------------------------------------------------------------------------- George et al.'s selection rule


def test_george_rank_breaks_ties_in_d_by_the_larger_chance_distance():
    models = ["a", "b", "c", "d", "e"]
    d = xr.DataArray([0.30, 0.20, 0.20, 0.10, 0.20], dims="model", coords={"model": models})
    distance = xr.DataArray([0.50, 0.05, 0.15, 0.01, 0.10], dims="model", coords={"model": models})
    assert george_rank(d, distance).values.tolist() == [5.0, 4.0, 2.0, 1.0, 3.0]
    assert george_rank(d, distance.where(distance.model != "e", 0.05)).values.tolist() == [5.0, 3.5, 2.0, 1.0, 3.5]
    # d equal up to rounding error is a tie; beyond tol it is not
    nearly = d - xr.DataArray([0, 1e-15, 0, 0, 0], dims="model", coords={"model": models})
    assert george_rank(nearly, distance).values.tolist() == [5.0, 4.0, 2.0, 1.0, 3.0]
    assert george_rank(nearly, distance, tol=0).values.tolist() == [5.0, 2.0, 3.0, 1.0, 4.0]
    # a tolerance as coarse as the printed d values (George et al. print two or three decimals)
    printed = d + xr.DataArray([0, -0.002, 0.004, 0, 0.002], dims="model", coords={"model": models})
    assert george_rank(printed, distance).values.tolist() == [5.0, 2.0, 4.0, 1.0, 3.0]
    chained = george_rank(printed, distance, tol=0.005)  # 0.198, 0.202, 0.204: neighbours within tol
    assert chained.values.tolist() == [5.0, 4.0, 2.0, 1.0, 3.0]


def test_george_rank_on_the_papers_table_4b_and_over_other_dims():
    acc70 = [[539, 53, 33, 52], [19, 3, 24, 0], [42, 2, 3, 0], [0, 8, 7, 15]]
    acc80 = [[589, 4, 3, 1], [0, 4, 25, 17], [4, 14, 6, 8], [7, 44, 33, 41]]
    cube = xr.DataArray(np.transpose([acc70, acc80], (0, 2, 1)), dims=("model", "true", "pred"))
    twice = xr.concat([cube, cube[::-1]], dim="trial")  # (trial, model, true, pred)
    rank = george_rank(twice.ordinal.d(), twice.ordinal.chance_distance(), tol=0.01)
    assert rank.dims == ("trial", "model") and rank.values.tolist() == [[1.0, 2.0], [2.0, 1.0]]


def test_george_rank_leaves_out_nan_and_checks_its_inputs():
    d = xr.DataArray([0.2, np.nan, 0.1], dims="model")
    distance = xr.DataArray([0.1, 0.2, 0.3], dims="model")
    np.testing.assert_array_equal(george_rank(d, distance).values, [2.0, np.nan, 1.0])
    cube = xr.DataArray(np.eye(3, dtype=int)[None] * 5 + 1, dims=("model", "true", "pred"))
    with pytest.raises(ValueError, match="metric 'chance_distance', expected 'd'"):
        george_rank(cube.ordinal.chance_distance(), cube.ordinal.d())
    cost = np.array([[0, 1, 4], [1, 0, 1], [4, 1, 0]])
    with pytest.raises(ValueError, match="different parameters"):
        george_rank(cube.ordinal.d(), cube.ordinal.chance_distance(cost=cost))
    with pytest.raises(ValueError, match="has no dim 'clf'"):
        george_rank(d, distance, model_dim="clf")
    with pytest.raises(ValueError, match="tol must be"):
        george_rank(d, distance, tol=-1)


# --------------------------------------------------------------------------- Wilcoxon signed-rank and Holm


# scipy decides method="auto" per pair: exact without ties or zeros, a permutation test with them for N <= 13,
# the normal approximation above
@pytest.mark.parametrize("n, ties", [(14, False), (7, True), (20, True)])
@pytest.mark.parametrize("zero_method, correction", [("wilcox", False), ("pratt", True), ("zsplit", False)])
def test_wilcoxon_equals_scipy_and_scikit_posthocs(n, ties, zero_method, correction):
    rng = np.random.default_rng(3 + n)
    data = rng.normal(size=(2, n, 4)) + np.arange(4) * 0.4  # (repeat, dataset, model)
    if ties:
        data = np.round(data, 1)  # zero differences and tied ranks in some pairs
    values = xr.DataArray(data, dims=("repeat", "dataset", "model"), coords={"model": list("abcd")}, name="x")
    result = wilcoxon(values, zero_method=zero_method, correction=correction).sel(metric="x")
    assert result["p_value"].dims == ("model", "versus", "repeat")
    for r in range(2):
        for i, j in itertools.combinations(range(4), 2):
            reference = scipy.stats.wilcoxon(
                data[r, :, i], data[r, :, j], zero_method=zero_method, correction=correction
            )
            for a, b in [(i, j), (j, i)]:
                part = result.isel(repeat=r, model=a, versus=b)
                assert float(part["statistic"]) == pytest.approx(reference.statistic)
                assert float(part["p_value"]) == pytest.approx(reference.pvalue)
        holm = scikit_posthocs.posthoc_wilcoxon(
            data[r].T.tolist(), zero_method=zero_method, correction=correction, p_adjust="holm"
        ).values
        np.testing.assert_allclose(result["holm_p_value"].isel(repeat=r).values, holm)


def test_wilcoxon_against_a_control_is_holm_over_its_comparisons():
    rng = np.random.default_rng(12)
    values = xr.DataArray(
        rng.normal(size=(10, 5)) + np.arange(5) * 0.5, dims=("dataset", "model"), coords={"model": list("abcde")}
    ).rename("x")
    result = wilcoxon(values, control="b").sel(metric="x")
    p = result["p_value"].sel(versus="b").drop_sel(model="b").values
    order = np.argsort(p)
    expected = np.empty(4)
    expected[order] = np.minimum(1, np.maximum.accumulate((4 - np.arange(4)) * p[order]))
    np.testing.assert_allclose(result["control_holm_p_value"].drop_sel(model="b"), expected)
    assert float(result["control_holm_p_value"].sel(model="b")) == 1
    np.testing.assert_array_equal(np.diag(result["p_value"]), 1.0)
    # fewer hypotheses than all 10 pairs: never larger than the all-pairs adjustment
    assert (result["control_holm_p_value"] <= result["holm_p_value"].sel(versus="b") + 1e-15).all()
    assert result.attrs["control"] == "b"


def test_wilcoxon_arguments():
    values = demsar_table()
    holed = values.copy()
    holed[1, 2] = np.nan
    with pytest.raises(
        ValueError, match=r"'auc' has 1 missing \(NaN\) values .*Wilcoxon signed-rank test needs complete"
    ):
        wilcoxon(holed)
    with pytest.raises(ValueError, match="control='J48' is not a label"):
        wilcoxon(values, control="J48")
    with pytest.raises(ValueError, match="zero_method must be one of"):
        wilcoxon(values, zero_method="drop")
    with pytest.raises(ValueError, match="method must be one of"):
        wilcoxon(values, method="permutation")
    with pytest.raises(
        ValueError, match="has 1 models along 'model' .*; the Wilcoxon signed-rank test needs at least 2 models"
    ):
        wilcoxon(values.isel(model=[0]))
