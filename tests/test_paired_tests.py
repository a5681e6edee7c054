"""df.ordinal.paired_tests: McNemar, Stuart-Maxwell, Bowker, sign and signed-rank tests of paired predictions.

Every statistic is checked against the live reference on the expanded samples
(statsmodels' ``mcnemar`` and ``SquareTable``, scipy's ``binomtest`` and
``wilcoxon``) on random frames, against Stuart's (1955) published value, and
against the properties of paired tests.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from statsmodels.stats.contingency_tables import SquareTable, mcnemar

import ordframe  # noqa: F401  (registers the accessor)
from ordframe._core.messages import DroppedRowsWarning
from ordframe._inference.paired_tests import TESTS

TOL = {"rtol": 1e-10, "atol": 1e-12}


def long_frame(seed: int, n: int, k: int, models: int, strata: int = 1, copy: bool = False) -> pd.DataFrame:
    """``models`` models' predictions of ``n`` samples of ``k`` classes: one row per (sample, model)."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    fold = rng.integers(0, strata, n)
    parts = []
    for m in range(models):
        noise = rng.integers(0, k, n)
        spread = rng.uniform(0, 1)
        pred = np.where(rng.uniform(size=n) < spread, noise, np.clip(y + rng.integers(-1, 2, n), 0, k - 1))
        parts.append(pd.DataFrame({"s": np.arange(n), "y": y, "yhat": pred, "model": f"m{m}", "fold": fold}))
    if copy:  # the last model again, under another name
        parts.append(parts[-1].assign(model="copy"))
    return pd.concat(parts, ignore_index=True)


def _pairs(df, result, strata=None):
    """Every (a, b, stratum value, the samples' y, a's predictions, b's predictions, the result's element)."""
    names = sorted(df["model"].unique())
    groups = [(None, df)] if strata is None else list(df.groupby(strata))
    for value, part in groups:
        wide = part.pivot(index="s", columns="model", values="yhat")
        y = part.drop_duplicates("s").set_index("s")["y"].reindex(wide.index).to_numpy()
        for a in names:
            for b in names:
                element = result.sel(model=a, versus=b)
                if strata is not None:
                    element = element.sel({strata: value})
                yield a, b, y, wide[a].to_numpy(), wide[b].to_numpy(), element


def _check_against_references(df, result, strata=None):
    for _, _, y, pa, pb, r in _pairs(df, result, strata):
        ca, cb = pa == y, pb == y
        table = [[0, int((ca & ~cb).sum())], [int((~ca & cb).sum()), 0]]
        discordant = table[0][1] + table[1][0]
        stat = r["statistic"]
        if discordant:
            ref = mcnemar(table, exact=True)
            np.testing.assert_allclose(stat.sel(test="mcnemar_exact"), ref.statistic, **TOL)
            np.testing.assert_allclose(r["p_value"].sel(test="mcnemar_exact"), ref.pvalue, **TOL)
            for name, correction in [("mcnemar_chi2", False), ("mcnemar_chi2_corrected", True)]:
                ref = mcnemar(table, exact=False, correction=correction)
                np.testing.assert_allclose(stat.sel(test=name), ref.statistic, **TOL)
                np.testing.assert_allclose(r["p_value"].sel(test=name), ref.pvalue, **TOL)
        else:  # no discordant pair: statistic 0, p = 1 (statsmodels' chi-square divides 0 by 0)
            assert (stat.sel(test=list(TESTS[:3])) == 0).all() and (r["p_value"].sel(test=list(TESTS[:3])) == 1).all()
        assert int(r["only_correct"]) == table[0][1]

        square = SquareTable(pd.crosstab(pa, pb), shift_zeros=False)  # the classes either model predicts
        disagree = int((pa != pb).sum())
        assert int(r["disagreements"]) == disagree
        symmetry = square.symmetry()
        sm = r.sel(test="stuart_maxwell")
        bw = r.sel(test="bowker")
        assert float(bw["df"]) == symmetry.df
        np.testing.assert_allclose(bw["statistic"], symmetry.statistic, **TOL)
        if disagree:
            np.testing.assert_allclose(bw["p_value"], symmetry.pvalue, **TOL)
        else:
            assert float(bw["statistic"]) == 0 and float(bw["p_value"]) == 1 and float(sm["p_value"]) == 1
        k = square.table.shape[0]
        laplacian = square.table + square.table.T
        np.fill_diagonal(laplacian, 0)
        laplacian = np.diag(laplacian.sum(1)) - laplacian
        singular = np.linalg.matrix_rank(laplacian[:-1, :-1]) < k - 1
        assert float(sm["df"]) == k - 1
        if disagree and singular:
            assert np.isnan(float(sm["statistic"])) and np.isnan(float(sm["p_value"]))
        elif disagree:
            with warnings.catch_warnings():
                warnings.simplefilter("error")  # statsmodels inverts V without complaint
                homogeneity = square.homogeneity()
            assert homogeneity.df == sm["df"]
            np.testing.assert_allclose(sm["statistic"], homogeneity.statistic, **TOL)
            np.testing.assert_allclose(sm["p_value"], homogeneity.pvalue, **TOL)

        ea, eb = np.abs(pa - y), np.abs(pb - y)
        better, worse = int((ea < eb).sum()), int((ea > eb).sum())
        assert int(r["smaller_error"]) == better
        if better + worse:
            ref = scipy.stats.binomtest(better, better + worse)
            np.testing.assert_allclose(r["statistic"].sel(test="sign"), min(better, worse), **TOL)
            np.testing.assert_allclose(r["p_value"].sel(test="sign"), ref.pvalue, **TOL)
            ref = scipy.stats.wilcoxon(ea, eb, zero_method="wilcox", method="asymptotic")
            np.testing.assert_allclose(r["statistic"].sel(test="wilcoxon"), ref.statistic, **TOL)
            np.testing.assert_allclose(r["p_value"].sel(test="wilcoxon"), ref.pvalue, **TOL)
        else:
            assert (r["statistic"].sel(test=["sign", "wilcoxon"]) == 0).all()
            assert (r["p_value"].sel(test=["sign", "wilcoxon"]) == 1).all()


def _tests(df, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # Stuart-Maxwell's singular tables, checked above
        return df.ordinal.paired_tests("y", "yhat", sample="s", **kwargs)


@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 2**32 - 1),
    n=st.integers(1, 60),
    k=st.integers(2, 6),
    models=st.integers(2, 3),
)
def test_equal_to_statsmodels_and_scipy_on_random_frames(seed, n, k, models):
    df = long_frame(seed, n, k, models)
    _check_against_references(df, _tests(df, labels=list(range(k))))  # declared classes: some may not occur


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(2, 80), k=st.integers(2, 5))
def test_every_stratum_is_tested_on_its_own_samples(seed, n, k):
    df = long_frame(seed, n, k, 2, strata=3)
    result = _tests(df, strata="fold", labels=list(range(k)))
    assert result["statistic"].dims == ("test", "model", "versus", "fold")
    _check_against_references(df, result, strata="fold")
    np.testing.assert_array_equal(result["n"], df[df.model == "m0"].groupby("fold").size())


def test_large_samples_agree_too():
    df = long_frame(7, 3000, 7, 3)
    _check_against_references(df, _tests(df))


def test_stuarts_published_statistic():
    """Stuart (1955): unaided distance vision of 7477 women, right eye by left eye; statistic 11.96 on 3 df."""
    table = np.array([[1520, 266, 124, 66], [234, 1512, 432, 78], [117, 362, 1772, 205], [36, 82, 179, 492]])
    right, left = np.divmod(np.repeat(np.arange(16), table.ravel()), 4)
    s = np.arange(len(right))
    df = pd.concat(
        [
            pd.DataFrame({"s": s, "y": right, "yhat": right, "model": "right"}),
            pd.DataFrame({"s": s, "y": right, "yhat": left, "model": "left"}),
        ]
    )
    result = df.ordinal.paired_tests("y", "yhat", sample="s", tests="stuart_maxwell").sel(model="right", versus="left")
    assert round(float(result["statistic"].squeeze()), 2) == 11.96
    assert float(result["df"].squeeze()) == 3


# --------------------------------------------------------------------------- properties


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 50), k=st.integers(2, 6))
def test_swapping_the_models_keeps_every_statistic_and_p_value(seed, n, k):
    result = _tests(long_frame(seed, n, k, 3), labels=list(range(k)))
    swapped = result.rename({"model": "versus", "versus": "model"}).transpose(*result["statistic"].dims)
    for name in ("statistic", "p_value", "df"):
        xr.testing.assert_allclose(result[name], swapped[name], rtol=1e-12, atol=0)
    xr.testing.assert_equal(result["disagreements"], swapped["disagreements"].transpose(*result["n"].dims, ...))


def test_a_model_against_a_copy_of_itself_is_no_difference():
    result = _tests(long_frame(3, 200, 5, 2, copy=True))
    for a, b in [("m1", "copy"), ("copy", "m1"), ("m0", "m0")]:
        pair = result.sel(model=a, versus=b)
        assert (pair["statistic"] == 0).all() and (pair["p_value"] == 1).all()
        assert int(pair["only_correct"]) == int(pair["disagreements"]) == int(pair["smaller_error"]) == 0


def test_the_counts_add_up():
    result = _tests(long_frame(5, 300, 4, 3))
    assert result["only_correct"].dims == ("model", "versus")
    smaller = result["smaller_error"]
    assert ((smaller + smaller.rename({"model": "versus", "versus": "model"})) <= result["disagreements"]).all()
    assert (result["disagreements"] <= result["n"]).all()


def test_row_order_index_filtering_and_dropna_change_nothing():
    df = long_frame(11, 120, 5, 3)
    expected = _tests(df)
    shuffled = df.sample(frac=1, random_state=0)
    xr.testing.assert_identical(_tests(shuffled), expected)
    xr.testing.assert_identical(_tests(shuffled.set_index(np.arange(len(df))[::-1] * 3 + 1000)), expected)
    xr.testing.assert_identical(_tests(df.sort_values(["y", "yhat", "model"])), expected)
    extra = pd.concat([df, df[df.model == "m0"].assign(model="other", yhat=0)])
    xr.testing.assert_identical(_tests(extra[extra.model != "other"]), expected)
    missing = pd.concat([df, pd.DataFrame({"s": [999] * 3, "y": [np.nan] * 3, "yhat": 1, "model": ["m0", "m1", "m2"]})])
    with pytest.warns(DroppedRowsWarning):
        after = _tests(missing, dropna=True)
    xr.testing.assert_identical(after, expected)


def test_labels_are_classes_in_order_and_the_result_follows_them():
    df = long_frame(2, 150, 4, 2)
    names = np.array(["none", "mild", "moderate", "severe"])
    labelled = df.assign(y=names[df["y"]], yhat=names[df["yhat"]])
    xr.testing.assert_identical(_tests(labelled, labels=list(names)), _tests(df))


def test_one_test_is_chosen_by_name_and_its_counts_come_with_it():
    df = long_frame(4, 80, 4, 2)
    full = _tests(df)
    part = _tests(df, tests=["wilcoxon", "mcnemar_exact"])
    assert list(part["test"].values) == ["mcnemar_exact", "wilcoxon"]  # in the order of every result
    assert set(part.data_vars) == {"statistic", "p_value", "df", "only_correct", "smaller_error", "n"}
    xr.testing.assert_identical(part["statistic"], full["statistic"].sel(test=["mcnemar_exact", "wilcoxon"]))
    assert set(_tests(df, tests="bowker").data_vars) == {"statistic", "p_value", "df", "disagreements", "n"}


# --------------------------------------------------------------------------- undefined results and errors


def test_a_singular_stuart_maxwell_table_is_nan_with_a_warning_saying_why():
    y = np.array([0, 0, 1, 1, 2, 2, 3, 3] * 3)
    a = np.array([0, 0, 1, 1, 2, 3, 3, 3] * 3)  # classes {0} and {1} only ever agree; 2 and 3 disagree
    b = np.array([0, 0, 1, 1, 3, 2, 3, 2] * 3)
    s = np.arange(len(y))
    df = pd.concat(
        [
            pd.DataFrame({"s": s, "y": y, "yhat": a, "model": "a"}),
            pd.DataFrame({"s": s, "y": y, "yhat": b, "model": "b"}),
        ]
    )
    with pytest.warns(RuntimeWarning, match="stuart_maxwell is NaN for 1 pair.*no disagreement between them"):
        result = df.ordinal.paired_tests("y", "yhat", sample="s")
    pair = result.sel(model="a", versus="b")
    assert np.isnan(pair["statistic"].sel(test="stuart_maxwell")) and np.isnan(
        pair["p_value"].sel(test="stuart_maxwell")
    )
    assert np.isfinite(pair["statistic"].drop_sel(test="stuart_maxwell")).all()


def test_a_stratum_without_samples_is_nan_with_a_warning():
    df = long_frame(1, 40, 3, 2, strata=2)
    df["fold"] = pd.Categorical(df["fold"], categories=[0, 1, 2])
    with pytest.warns(RuntimeWarning, match="1 of 3 strata have no sample"):
        result = df.ordinal.paired_tests("y", "yhat", sample="s", strata="fold", tests=["sign", "bowker"])
    assert result["p_value"].sel(fold=2).isnull().all()
    assert result["p_value"].sel(fold=[0, 1]).notnull().all()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (lambda df: df.drop(index=df.index[(df.model == "m1") & (df.s == 3)]), "have no prediction"),
        (lambda df: pd.concat([df, df[(df.model == "m0") & (df.s == 3)]]), "appear more than once"),
        (lambda df: df.assign(y=np.where((df.model == "m1") & (df.s == 3), df.y + 1, df.y)), "different true labels"),
    ],
)
def test_the_pairing_errors_are_those_of_the_paired_bootstrap(change, message):
    with pytest.raises(ValueError, match=message):
        change(long_frame(0, 20, 3, 2)).ordinal.paired_tests("y", "yhat", sample="s")


def test_argument_errors_name_the_argument():
    df = long_frame(0, 20, 3, 2)
    with pytest.raises(ValueError, match=r"tests= takes names among .*, wilcoxon \(None: all\), got 'mcnemar'"):
        df.ordinal.paired_tests("y", "yhat", sample="s", tests=["mcnemar"])
    with pytest.raises(ValueError, match="model= must name one column of models"):
        df.ordinal.paired_tests("y", "yhat", sample="s", model=["model", "fold"])
    with pytest.raises(ValueError, match="strata= column 'test' has the name of a result dim"):
        df.rename(columns={"fold": "test"}).ordinal.paired_tests("y", "yhat", sample="s", strata="test")
    with pytest.raises(KeyError):
        df.ordinal.paired_tests("y", "prediction", sample="s")


def test_patterns_counted_in_chunks_give_the_same_result(monkeypatch):
    from ordframe._inference import paired_tests

    df = long_frame(8, 200, 5, 3, strata=2)
    expected = _tests(df, strata="fold")
    monkeypatch.setattr(paired_tests, "CHUNK_CELLS", 20)  # two patterns of 3 x 3 pairs per chunk
    xr.testing.assert_identical(_tests(df, strata="fold"), expected)


def test_the_tables_obey_max_cube_bytes():
    df = long_frame(8, 50, 5, 3)
    with ordframe.set_options(max_cube_bytes=1000):
        with pytest.raises(MemoryError, match="5 x 5 tables of 9 pairs"):
            df.ordinal.paired_tests("y", "yhat", sample="s", tests="bowker")
        assert df.ordinal.paired_tests("y", "yhat", sample="s", tests="sign")["p_value"].notnull().all()  # no table


def test_size_under_exchangeable_models():
    """300 test sets of two models with the same error distribution: each test rejects at 5% about 5% of the
    time (exact and table tests may be conservative), counted in one call with the sets as strata."""
    rng = np.random.default_rng(0)
    sets, n, k = 300, 200, 4
    y = rng.integers(0, k, (sets, n))
    parts = [
        pd.DataFrame(
            {
                "set": np.repeat(np.arange(sets), n),
                "s": np.tile(np.arange(n), sets),  # ids restart in every set: no warning, nothing is resampled
                "y": y.ravel(),
                "yhat": np.clip(y + rng.choice([-1, 0, 0, 0, 1], (sets, n)), 0, k - 1).ravel(),
                "model": m,
            }
        )
        for m in "ab"
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        result = pd.concat(parts).ordinal.paired_tests("y", "yhat", sample="s", strata="set", labels=list(range(k)))
    rate = (result["p_value"].sel(model="a", versus="b") <= 0.05).mean("set")
    error = np.sqrt(0.05 * 0.95 / sets)
    assert (rate <= 0.05 + 3 * error).all(), rate.to_series()
    assert (rate.drop_sel(test="bowker") >= 0.05 - 3 * error).all(), (
        rate.to_series()
    )  # bowker: sparse cells, conservative
