"""The constant baselines of cross-validation's training folds, and the flag on metrics that rank one above a model."""

import json
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe
from ordframe._bridge.baselines import NAMES, constant_predictions
from ordframe.sklearn import add_baselines, cross_val_frame

pytest.importorskip("sklearn")

from sklearn.dummy import DummyClassifier  # noqa: E402
from sklearn.model_selection import RepeatedStratifiedKFold, StratifiedKFold  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

LABELS = [0, 1, 2, 3]
PROBA = [f"proba_{c}" for c in LABELS]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(40, 2))
    y = np.digitize(X[:, 0] + 0.5 * rng.normal(size=40), [-0.8, 0.3, 1.2])
    return X, y


@settings(max_examples=20, deadline=None)
@given(st.lists(st.integers(0, 3), min_size=1, max_size=12))
def test_constant_predictions_are_dummy_classifiers_and_the_lower_median(codes):
    codes = np.array(codes)
    counts = np.bincount(codes, minlength=4)
    predicted, proba = constant_predictions(counts[None])
    dummy = DummyClassifier(strategy="prior").fit(np.zeros((len(codes), 1)), codes)
    prior = np.zeros(4)
    prior[dummy.classes_] = dummy.predict_proba(np.zeros((1, 1)))[0]
    assert predicted[0, 0] == predicted[0, 1] == dummy.predict(np.zeros((1, 1)))[0]  # ties: the lowest class
    np.testing.assert_allclose(proba[0, 1], prior)
    assert predicted[0, 2] == np.sort(codes)[(len(codes) - 1) // 2]  # the lower median
    np.testing.assert_array_equal(proba[0, [0, 2]], np.eye(4)[predicted[0, [0, 2]]])


def test_cross_val_baselines_are_dummy_classifiers_of_the_training_folds(data):
    X, y = data
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=2, random_state=0)
    dummies = {"most_frequent": DummyClassifier(strategy="most_frequent"), "prior": DummyClassifier()}
    frame = cross_val_frame(dummies, X, y, labels=LABELS, cv=cv, baselines=True)
    assert list(frame["model"].cat.categories) == [*dummies, *NAMES]
    for dummy, baseline in zip(dummies, NAMES):
        ours, theirs = frame[frame["model"] == baseline], frame[frame["model"] == dummy]
        assert (ours["pred"].to_numpy() == theirs["pred"].to_numpy()).all(), baseline
        np.testing.assert_allclose(ours[PROBA], theirs[PROBA], err_msg=baseline)
    median = frame[frame["model"] == "baseline: median"]
    for (repeat, fold), rows in median.groupby(["repeat", "fold"]):
        training = frame[(frame["model"] == "prior") & (frame["repeat"] == repeat) & (frame["fold"] != fold)]
        assert (rows["pred"] == np.sort(training["true"].astype(int))[(len(training) - 1) // 2]).all()


def test_add_baselines_derives_the_same_rows_from_a_shuffled_frame(data):
    """One implementation: the folds of a frame give the baselines of the splits that made it, in any row order."""
    X, y = data
    cv = RepeatedStratifiedKFold(n_splits=2, n_repeats=2, random_state=1)
    models = {"tree": DecisionTreeClassifier(max_depth=1), "dummy": DummyClassifier()}
    fitted = cross_val_frame(models, X, y, labels=LABELS, cv=cv, baselines=True)
    plain = cross_val_frame(models, X, y, labels=LABELS, cv=cv)
    shuffled = plain.sample(frac=1, random_state=0).set_axis(np.arange(len(plain))[::-1] * 3)
    derived = add_baselines(shuffled, proba=PROBA)
    assert (derived.iloc[: len(shuffled)].to_numpy() == shuffled.to_numpy()).all()  # the rows as they were
    assert list(derived["model"].cat.categories) == [*models, *NAMES]
    keys = ["model", "repeat", "sample"]
    ours = derived[derived["model"].isin(NAMES)].sort_values(keys).reset_index(drop=True)
    theirs = fitted[fitted["model"].isin(NAMES)].sort_values(keys).reset_index(drop=True)
    pd.testing.assert_frame_equal(ours[theirs.columns], theirs)


def test_add_baselines_keeps_the_columns_types_and_takes_a_proba_dict():
    frame = pd.DataFrame(
        {
            "id": [7, 8, 9, 7, 8, 9],
            "k": [0, 0, 1, 0, 0, 1],
            "clf": ["a"] * 6,
            "y": ["lo", "hi", "hi", "lo", "hi", "hi"],
            "yhat": ["lo", "lo", "hi", "hi", "hi", "hi"],
            "pl": 0.5,
            "ph": 0.5,
            "run": [0, 0, 0, 1, 1, 1],
        }
    )
    out = add_baselines(
        frame,
        "y",
        "yhat",
        proba={"hi": "ph", "lo": "pl"},
        labels=["lo", "hi"],
        model="clf",
        sample="id",
        fold="k",
        repeat="run",
    )
    prior = out[out["clf"] == "baseline: prior"]
    assert prior["id"].tolist() == [7, 8, 9, 7, 8, 9] and prior["yhat"].tolist() == ["hi", "hi", "lo"] * 2
    np.testing.assert_allclose(prior["ph"], [1, 1, 0.5, 1, 1, 0.5])  # fold 1 trains on fold 0: hi, lo
    assert out["clf"].dtype == frame["clf"].dtype and out["yhat"].dtype == frame["yhat"].dtype


def test_add_baselines_uses_the_classes_evaluate_infers():
    """Integer labels 1, 2, 10 are three classes (index distances), so three probability columns fit them."""
    frame = pd.DataFrame({"sample": [0, 1, 2, 3], "fold": [0, 0, 1, 1], "model": "m", "true": [1, 2, 10, 10]})
    frame = frame.assign(pred=[1, 10, 10, 2], p1=0.2, p2=0.3, p10=0.5)
    out = add_baselines(frame, proba=["p1", "p2", "p10"], repeat=None)
    prior = out[out["model"] == "baseline: prior"]
    np.testing.assert_allclose(prior[["p1", "p2", "p10"]], [[0, 0, 1], [0, 0, 1], [0.5, 0.5, 0], [0.5, 0.5, 0]])
    assert prior["pred"].tolist() == [10, 10, 1, 1]  # the majority of a tie: the lowest class


@pytest.mark.parametrize(
    ("change", "kwargs", "match"),
    [
        ({"fold": [0, 0, 0, 0]}, {}, r"repeat 0 has one fold \(0\): a fold's baselines are fitted on the other folds"),
        ({"repeat": [0, 0, 0, 0], "fold": [0, 1, 1, 0]}, {}, r"sample\(s\) have rows with different folds"),
        (
            {"true": [0, 1, 0, 0]},
            {},
            r"1 sample\(s\) have rows with different true labels within one repeat, first 0 \(row 1\)",
        ),
        ({"fold": [0, None, 1, 1]}, {}, r"fold column 'fold' has 1 missing value\(s\) of 4"),
        ({"model": NAMES[0]}, {}, r"has baselines already"),
        ({}, {"proba": ["p0"]}, r"proba names 1 columns for 2 classes"),
        ({}, {"sample": "id"}, r"sample column 'id' is not in the DataFrame"),
    ],
)
def test_add_baselines_errors(change, kwargs, match):
    frame = pd.DataFrame(
        {"sample": [0, 0, 1, 1], "repeat": 0, "fold": [0, 0, 1, 1], "model": ["a", "b", "a", "b"], "true": 0}
    )
    frame = frame.assign(pred=[0, 1, 1, 0]).assign(**change)
    with pytest.raises((ValueError, KeyError), match=match):
        add_baselines(frame, **kwargs)


def test_a_metric_that_ranks_a_baseline_above_a_model_is_flagged(data):
    X, y = data
    frame = cross_val_frame(
        {"stump": DecisionTreeClassifier(max_depth=1)}, X, y, labels=LABELS, cv=StratifiedKFold(2), baselines=True
    )
    mae = frame.ordinal.evaluate("true", "pred", by=["model", "fold"], metrics=["mae"]).mean("fold")["mae"]
    assert mae.sel(model="stump") < mae.sel(model=NAMES[0])  # the stump learns: no flag
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        frame.ordinal.evaluate("true", "pred", by=["model", "fold"], metrics=["mae", "qwk"])
    worse = frame.assign(pred=frame["pred"].where(frame["model"].isin(NAMES), 3))  # a model that always says 3
    with pytest.warns(ordframe.BaselineWarning) as caught:
        result = worse.ordinal.evaluate("true", "pred", by=["model", "fold"], metrics=["mae", "qwk", "rint"])
    (warning,) = caught
    pairs = json.loads(result["mae"].attrs["beaten_by_baseline"])
    assert pairs == [{"model": "stump", "baseline": b} for b in NAMES]
    text = str(warning.message)
    assert "mae ranks 'baseline: majority' (" in text and "above 'stump' (" in text and "means over fold" in text
    assert "beaten_by_baseline" not in result["qwk"].attrs  # 0 against 0: not ranked above
    assert "beaten_by_baseline" not in result["rint"].attrs  # NaN for constant predictions: not ranked
    # the names sort together, apart from the models
    assert sorted([*NAMES, "stump", "bagging", "cart"])[1:4] == sorted(NAMES)


@pytest.mark.parametrize("by", [["model"], ["model", "fold"]])
def test_the_groups_that_occur_are_flagged_like_the_dense_layout(by):
    """The command line's layout (one dim of the groups that occur, a MultiIndex) is flagged as evaluate's is."""
    from ordframe._bridge.baselines import FLAG, flag_baselines
    from ordframe._bridge.evaluate import evaluate_frame_rows
    from ordframe._inputs.selection import Selection

    y = np.repeat([0, 1, 2], [20, 5, 5])
    frame = pd.DataFrame({"sample": range(30), "fold": np.arange(30) % 3, "model": "reversed", "y": y, "p": 2 - y})
    frame = add_baselines(frame, "y", "p", repeat=None)
    with pytest.warns(ordframe.BaselineWarning):
        dense = frame.ordinal.evaluate("y", "p", by=by, metrics=["mae"])
    observed, _ = evaluate_frame_rows(frame, Selection("y", "p", by=by, observed=True), ["mae"])
    with pytest.warns(ordframe.BaselineWarning, match="reversed"):
        flag_baselines(observed)
    assert json.loads(observed["mae"].attrs[FLAG]) == json.loads(dense["mae"].attrs[FLAG])
