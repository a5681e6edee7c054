"""Krippendorff's alpha (``ordframe.krippendorff_alpha``, ``df.ordinal.krippendorff_alpha``)."""

import warnings

import krippendorff
import numpy as np
import pandas as pd
import pytest

import ordframe

LEVELS = ["nominal", "ordinal", "interval"]


def ratings(seed, raters=4, items=25, k=5, missing=0.35):
    """A raters x items matrix of class indices with NaN for missing ratings, and the same as a long frame."""
    rng = np.random.default_rng(seed)
    truth = rng.integers(0, k, items)
    data = np.clip(truth + rng.integers(-1, 2, (raters, items)), 0, k - 1).astype(float)
    data[rng.random((raters, items)) < missing] = np.nan
    rater, item = np.nonzero(~np.isnan(data))
    long = pd.DataFrame({"item": item, "rater": rater, "rating": data[rater, item].astype(int)})
    return data, long


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("level", LEVELS)
def test_alpha_equals_the_krippendorff_package_with_missing_ratings(seed, level):
    data, long = ratings(seed, raters=3 + seed, k=3 + seed)
    k = 3 + seed
    want = krippendorff.alpha(reliability_data=data, value_domain=list(range(k)), level_of_measurement=level)
    got = ordframe.krippendorff_alpha(
        long["item"], long["rater"], long["rating"], labels=list(range(k)), level_of_measurement=level
    )
    assert abs(float(got["alpha"]) - want) < 1e-12
    assert int(got["n_pairable"]) == int(((~np.isnan(data)).sum(axis=0) * ((~np.isnan(data)).sum(axis=0) >= 2)).sum())


KRIPPENDORFF_2011 = [  # four observers (rows) rate twelve units (columns), values 1-5, NaN: not rated
    [1, 2, 3, 3, 2, 1, 4, 1, 2, np.nan, np.nan, np.nan],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, np.nan, 3],
    [np.nan, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, np.nan],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, np.nan],
]


@pytest.mark.parametrize(("level", "printed"), [("nominal", 0.743), ("ordinal", 0.815), ("interval", 0.849)])
def test_krippendorffs_2011_example(level, printed):
    data = np.array(KRIPPENDORFF_2011)
    observer, unit = np.nonzero(~np.isnan(data))
    got = ordframe.krippendorff_alpha(unit, observer, data[observer, unit], level_of_measurement=level)
    assert round(float(got["alpha"]), 3) == printed


def test_ordinal_alpha_uses_the_class_order_not_the_labels():
    """Text labels in a declared order give the package's value on their ranks; so do labels 1, 2, 10."""
    data, long = ratings(11, k=3)
    want = krippendorff.alpha(reliability_data=data, value_domain=[0, 1, 2], level_of_measurement="ordinal")
    names = np.array(["low", "mid", "high"])
    got = ordframe.krippendorff_alpha(long["item"], long["rater"], names[long["rating"]], labels=["low", "mid", "high"])
    assert abs(float(got["alpha"]) - want) < 1e-12
    spaced = np.array([1, 2, 10])[long["rating"]]
    for level in ("ordinal", "interval"):
        on_index = krippendorff.alpha(reliability_data=data, value_domain=[0, 1, 2], level_of_measurement=level)
        got = ordframe.krippendorff_alpha(
            long["item"], long["rater"], spaced, labels=[1, 2, 10], level_of_measurement=level
        )
        assert abs(float(got["alpha"]) - on_index) < 1e-12, level


def test_a_class_nobody_uses_changes_nothing_and_perfect_agreement_is_one():
    _, long = ratings(5, k=4)
    declared = ordframe.krippendorff_alpha(long["item"], long["rater"], long["rating"], labels=range(6))
    seen = ordframe.krippendorff_alpha(long["item"], long["rater"], long["rating"])
    assert abs(float(declared["alpha"]) - float(seen["alpha"])) < 1e-12
    same = pd.DataFrame({"item": [0, 0, 1, 1, 2, 2], "rater": [0, 1] * 3, "rating": [0, 0, 1, 1, 2, 2]})
    assert float(same.ordinal.krippendorff_alpha("item", "rater", "rating")["alpha"]) == 1.0


def test_a_group_value_without_ratings_is_left_out_and_one_without_pairs_is_nan():
    _, long = ratings(1)
    lone = pd.DataFrame({"item": [99], "rater": [0], "rating": [1], "wave": [5]})
    df = pd.concat([long.assign(wave=1), lone])  # waves 2-4 have no rows; wave 5 one rating
    with pytest.warns(RuntimeWarning, match=r"for 1 of 2 groups: 1 with fewer than 2 pairable ratings"):
        out = df.ordinal.krippendorff_alpha("item", "rater", "rating", by="wave", n_resamples=100, seed=0)
    assert out["alpha"]["wave"].values.tolist() == [1, 5]
    assert np.isnan(float(out["alpha"].sel(wave=5))) and np.isnan(out["interval"].sel(wave=5).values).all()


def test_by_gives_each_group_its_own_alpha():
    _, a = ratings(1)
    _, b = ratings(2)
    both = pd.concat([a.assign(task="a"), b.assign(task="b")])
    out = both.ordinal.krippendorff_alpha("item", "rater", "rating", by="task", labels=range(5))
    for name, part in (("a", a), ("b", b)):
        alone = part.ordinal.krippendorff_alpha("item", "rater", "rating", labels=range(5))
        assert float(out["alpha"].sel(task=name)) == pytest.approx(float(alone["alpha"]), abs=1e-12)
        assert int(out["n_pairable"].sel(task=name)) == int(alone["n_pairable"])


@pytest.mark.parametrize(
    "transform",
    [lambda d: d.iloc[::-1], lambda d: d.sample(frac=1, random_state=0), lambda d: d.set_index(d.index * 3 + 7)],
    ids=["reversed", "shuffled", "re-indexed"],
)
def test_the_row_order_and_index_do_not_matter(transform):
    _, long = ratings(3)
    want = float(long.ordinal.krippendorff_alpha("item", "rater", "rating")["alpha"])
    assert float(transform(long).ordinal.krippendorff_alpha("item", "rater", "rating")["alpha"]) == pytest.approx(
        want, abs=1e-12
    )


def test_missing_ratings_are_an_error_unless_dropped():
    data, long = ratings(4)
    with_nan = pd.concat(
        [long.astype({"rating": float}), pd.DataFrame({"item": [0], "rater": [9], "rating": [np.nan]})]
    )
    with pytest.raises(ValueError, match="'rating' has 1 missing value"):
        with_nan.ordinal.krippendorff_alpha("item", "rater", "rating")
    with pytest.warns(ordframe.DroppedRowsWarning):
        got = with_nan.ordinal.krippendorff_alpha("item", "rater", "rating", dropna=True, labels=[0.0, 1, 2, 3, 4])
    want = krippendorff.alpha(reliability_data=data, value_domain=list(range(5)), level_of_measurement="ordinal")
    assert abs(float(got["alpha"]) - want) < 1e-12


def test_undefined_alpha_is_nan_with_the_reason():
    one_class = pd.DataFrame({"item": [0, 0, 1, 1], "rater": [0, 1, 0, 1], "rating": [2, 2, 2, 2]})
    with pytest.warns(RuntimeWarning, match="all one class"):
        assert np.isnan(float(one_class.ordinal.krippendorff_alpha("item", "rater", "rating", labels=[1, 2])["alpha"]))
    alone = pd.DataFrame({"item": [0, 1, 2], "rater": [0, 1, 0], "rating": [1, 2, 1]})
    with pytest.warns(RuntimeWarning, match="fewer than 2 pairable ratings"):
        out = alone.ordinal.krippendorff_alpha("item", "rater", "rating", n_resamples=100, seed=0)
    assert np.isnan(float(out["alpha"])) and int(out["n_pairable"]) == 0
    assert np.isnan(out["interval"].values).all()


@pytest.mark.parametrize(
    ("kwargs", "error", "says"),
    [
        ({"level_of_measurement": "ratio"}, ValueError, "level_of_measurement='ratio' is not one of"),
        ({"seed": 1}, TypeError, r"seed= draws replicates: pass n_resamples="),
        ({"by": "item"}, ValueError, "must be different columns"),
    ],
)
def test_bad_arguments_are_errors(kwargs, error, says):
    _, long = ratings(0)
    with pytest.raises(error, match=says):
        long.ordinal.krippendorff_alpha("item", "rater", "rating", **kwargs)


def test_a_rater_who_rates_an_item_twice_is_an_error_naming_it():
    df = pd.DataFrame({"item": [1, 1, 1, 2, 2], "rater": ["a", "b", "a", "a", "b"], "rating": [1, 2, 1, 2, 2]})
    with pytest.raises(ValueError, match=r"1 \(item, rater\) pair\(s\) have more than one rating.*\(1, 'a'\)"):
        df.ordinal.krippendorff_alpha("item", "rater", "rating")


def brute_force_replicates(long, n_resamples, seed):
    """alpha on items drawn with replacement, one replicate at a time (the package on each)."""
    rng = np.random.default_rng(seed)
    wide = long.pivot(index="rater", columns="item", values="rating").to_numpy(float)
    out = []
    for _ in range(n_resamples):
        drawn = wide[:, rng.integers(0, wide.shape[1], wide.shape[1])]
        out.append(krippendorff.alpha(reliability_data=drawn, value_domain=range(5), level_of_measurement="ordinal"))
    return np.array(out)


def test_the_interval_draws_items_like_a_brute_force_bootstrap():
    _, long = ratings(8, raters=3, items=30)
    long = long[long.groupby("item")["rater"].transform("size") >= 2]  # items rated once are not drawn
    out = long.ordinal.krippendorff_alpha("item", "rater", "rating", labels=range(5), n_resamples=400, seed=2)
    brute = brute_force_replicates(long, 400, 3)
    low, high = np.quantile(brute, [0.025, 0.975])
    got = out["interval"].values
    spread = high - low
    assert abs(got[0] - low) < 0.15 * spread and abs(got[1] - high) < 0.15 * spread  # Monte-Carlo error of 400
    assert out["interval"].attrs["method"] == "clusters" and out["interval"].attrs["cluster"] == "item"
    again = long.ordinal.krippendorff_alpha("item", "rater", "rating", labels=range(5), n_resamples=400, seed=2)
    assert (again["interval"].values == got).all()


def test_groups_with_the_same_items_are_drawn_together():
    _, long = ratings(9)
    twice = pd.concat([long.assign(task="a"), long.assign(task="b")])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # fewer than 100 replicates
        out = twice.ordinal.krippendorff_alpha("item", "rater", "rating", by="task", n_resamples=60, seed=4)
    assert out["interval"].dims == ("bound", "task")
    assert (out["interval"].sel(task="a").values == out["interval"].sel(task="b").values).all()


def test_an_absent_column_is_named_by_its_argument():
    _, long = ratings(0)
    with pytest.raises(KeyError, match="rater column 'coder' is not in the DataFrame"):
        long.ordinal.krippendorff_alpha("item", "coder", "rating")


def test_a_filtered_frame_counts_only_its_rows():
    data, long = ratings(6)
    kept = long[(long["rater"] != 0) & (long["item"] % 3 > 0)]
    data = data.copy()
    data[0] = np.nan
    data[:, np.arange(data.shape[1]) % 3 == 0] = np.nan
    want = krippendorff.alpha(reliability_data=data, value_domain=range(5), level_of_measurement="ordinal")
    got = kept.ordinal.krippendorff_alpha("item", "rater", "rating", labels=range(5))
    assert abs(float(got["alpha"]) - want) < 1e-12
