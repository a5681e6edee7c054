"""ordframe.sklearn.cross_val_frame: cross-validated predictions as the long frame every other call takes."""

import warnings

import numpy as np
import pandas as pd
import pytest

import ordframe
from ordframe.sklearn import cross_val_frame, make_scorer

pytest.importorskip("sklearn")

from joblib import parallel_config  # noqa: E402
from sklearn.base import clone  # noqa: E402
from sklearn.dummy import DummyClassifier  # noqa: E402
from sklearn.linear_model import LinearRegression, LogisticRegression  # noqa: E402
from sklearn.model_selection import (  # noqa: E402
    GroupKFold,
    KFold,
    PredefinedSplit,
    RepeatedStratifiedKFold,
    ShuffleSplit,
)
from sklearn.naive_bayes import GaussianNB  # noqa: E402
from sklearn.tree import DecisionTreeClassifier  # noqa: E402

GRADES = ["low", "mid", "high"]  # scikit-learn sorts classes_ alphabetically: high, low, mid
PROBA = [f"proba_{g}" for g in GRADES]


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(36, 2))
    codes = np.digitize(X[:, 0] + 0.4 * rng.normal(size=36), [-0.4, 0.4])
    return X, np.array(GRADES, dtype=object)[codes]


class LabelsOnly:
    """A classifier without predict_proba: the training fold's first label, everywhere."""

    def __init__(self, shift=0):
        self.shift = shift

    def get_params(self, deep=True):
        return {"shift": self.shift}

    def set_params(self, **params):
        self.shift = params.get("shift", self.shift)
        return self

    def fit(self, X, y):
        self.first_ = np.asarray(y)[0]
        return self

    def predict(self, X):
        return np.full(len(X), self.first_, dtype=object)


def test_the_frame_is_a_loop_over_the_splits(data):
    """Each row is what a clone fitted on the training fold predicts, the probabilities matched by classes_."""
    X, y = data
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    model = DecisionTreeClassifier(max_depth=3, random_state=0)
    frame = cross_val_frame({"tree": model}, X, y, labels=GRADES, cv=cv)
    assert not hasattr(model, "classes_")  # cloned, never fitted itself
    assert list(frame.columns) == ["sample", "repeat", "fold", "model", "true", "pred", *PROBA]
    expected = []
    for s, (train, test) in enumerate(cv.split(X, y)):
        fitted = clone(model).fit(X[train], y[train])
        proba = pd.DataFrame(fitted.predict_proba(X[test]), columns=fitted.classes_)[GRADES].to_numpy()
        part = {"sample": test, "repeat": s // 3, "fold": s % 3, "true": y[test], "pred": fitted.predict(X[test])}
        expected.append(pd.DataFrame(part).join(pd.DataFrame(proba, columns=PROBA)))
    expected = pd.concat(expected, ignore_index=True)
    for column in ["sample", "repeat", "fold", *PROBA]:
        np.testing.assert_allclose(frame[column].to_numpy(float), expected[column].to_numpy(float), err_msg=column)
    assert (frame["true"].astype(object) == expected["true"]).all()
    assert (frame["pred"].astype(object) == expected["pred"]).all()
    assert list(frame["true"].cat.categories) == GRADES and frame["true"].cat.ordered


def test_the_frame_feeds_evaluate_ci_proba_metrics_and_comparisons(data):
    X, y = data
    cv = RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0)
    models = {"stump": DecisionTreeClassifier(max_depth=1), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    frame = cross_val_frame(models, X, y, labels=GRADES, cv=cv)
    result = frame.ordinal.evaluate("true", "pred", proba=PROBA, by=["model", "repeat", "fold"], metrics=["mae", "rps"])
    assert dict(result.sizes) == {"model": 2, "repeat": 2, "fold": 3}
    one = frame[(frame["model"] == "tree") & (frame["repeat"] == 1) & (frame["fold"] == 2)]
    codes = {g: i for i, g in enumerate(GRADES)}
    by_hand = np.mean(np.abs(one["true"].map(codes).astype(int) - one["pred"].map(codes).astype(int)))
    assert float(result["mae"].sel(model="tree", repeat=1, fold=2)) == pytest.approx(by_hand)
    tests = ordframe.corrected_ttest(result, dim=["repeat", "fold"], test_train_ratio=0.5)
    assert np.isfinite(tests["p_value"].sel(metric="mae")).all()
    intervals = frame.ordinal.ci("true", "pred", by="model", cluster="sample", metrics=["mae"], n_resamples=100, seed=0)
    assert intervals["mae"].sizes == {"bound": 2, "model": 2}
    compared = frame.ordinal.compare(
        "true", "pred", sample="sample", strata=["repeat", "fold"], cluster="sample", metrics=["mae"], n_resamples=100
    )
    assert "tree" in compared["model"].values.tolist() + compared["versus"].values.tolist()


@pytest.mark.parametrize(
    ("cv", "repeats", "folds"),
    [
        (RepeatedStratifiedKFold(n_splits=3, n_repeats=2, random_state=0), 2, 3),
        (KFold(4), 1, 4),
        (3, 1, 3),
        (ShuffleSplit(n_splits=3, test_size=0.25, random_state=0), 3, 1),  # overlapping test sets: a repeat each
    ],
)
def test_a_repeat_ends_when_a_sample_is_tested_again(data, cv, repeats, folds):
    X, y = data
    frame = cross_val_frame({"m": DummyClassifier()}, X, y, labels=GRADES, cv=cv)
    assert frame["repeat"].nunique() == repeats and frame["fold"].max() + 1 == folds
    assert not frame.duplicated(["repeat", "sample"]).any()


def test_grouped_and_predefined_splits(data):
    X, y = data
    groups = np.arange(len(y)) // 4
    frame = cross_val_frame({"m": DummyClassifier()}, X, y, labels=GRADES, cv=GroupKFold(3), groups=groups)
    assert (frame.groupby(groups[frame["sample"]])["fold"].nunique() == 1).all()  # a group stays in one fold
    test_fold = np.r_[np.full(6, -1), np.repeat([0, 1], 15)]  # the first 6 samples only ever train
    frame = cross_val_frame({"m": DummyClassifier()}, X, y, labels=GRADES, cv=PredefinedSplit(test_fold))
    assert sorted(frame["sample"]) == list(range(6, 36))


def test_a_class_absent_from_a_training_fold_gets_probability_zero():
    X = np.arange(9.0).reshape(-1, 1)
    y = np.array(["low", "low", "low", "mid", "mid", "mid", "high", "high", "high"], dtype=object)
    split = PredefinedSplit([1, 0, 0, 1, 0, 0, 1, 1, 1])  # fold 1 trains on low and mid only
    frame = cross_val_frame({"m": GaussianNB()}, X, y, labels=GRADES, cv=split)
    fold = frame[frame["fold"] == 0]  # the test fold of test_fold == 0 comes first
    assert (frame[frame["fold"] == 1]["proba_high"] == 0).all() and (fold["proba_high"] > 0).all()
    np.testing.assert_allclose(frame[PROBA].sum(axis=1), 1)


def test_a_model_without_predict_proba_gets_nan_and_one_warning(data):
    X, y = data
    with pytest.warns(UserWarning, match=r"model 'labels' has no predict_proba") as caught:
        frame = cross_val_frame({"labels": LabelsOnly(), "p": DummyClassifier()}, X, y, labels=GRADES, cv=3)
    assert len([w for w in caught if "predict_proba" in str(w.message)]) == 1
    assert frame.loc[frame["model"] == "labels", PROBA].isna().all().all()
    assert frame.loc[frame["model"] == "p", PROBA].notna().all().all()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no model with probabilities: no columns, nothing to say
        alone = cross_val_frame({"labels": LabelsOnly()}, X, y, labels=GRADES, cv=3)
    assert list(alone.columns) == ["sample", "repeat", "fold", "model", "true", "pred"]


def test_sample_ids_come_from_the_index_of_a_filtered_sorted_frame(data):
    X, y = data
    df = pd.DataFrame(X, columns=["a", "b"], index=np.arange(100, 136)).assign(y=y)
    df = df[df["a"] > -1.5].sort_values("b")
    frame = cross_val_frame({"m": DummyClassifier()}, df[["a", "b"]], df["y"], labels=GRADES, cv=KFold(3))
    assert sorted(frame["sample"]) == sorted(df.index)
    assert (df.loc[frame["sample"], "y"].to_numpy() == frame["true"].astype(object).to_numpy()).all()
    with pytest.raises(ValueError, match=r"X and y have different indexes .*y.loc\[X.index\]"):
        cross_val_frame({"m": DummyClassifier()}, df[["a", "b"]], df["y"].sort_index(), labels=GRADES, cv=3)
    twice = df[["a", "b"]].set_axis(np.arange(len(df)) // 2)
    with pytest.raises(ValueError, match=r"X's index has \d+ duplicated label\(s\).*reset_index"):
        cross_val_frame({"m": DummyClassifier()}, twice, df["y"].to_numpy(), labels=GRADES, cv=3)


def test_labels_errors_are_the_scorers(data):
    X, y = data
    wrong = y.copy()
    wrong[:2] = "top"
    with pytest.raises(ValueError) as scored:
        make_scorer("mae", labels=GRADES)(DummyClassifier().fit(X, y), X, wrong)
    with pytest.raises(ValueError) as crossed:
        cross_val_frame({"m": DummyClassifier()}, X, wrong, labels=GRADES, cv=3)
    assert str(crossed.value) == str(scored.value)
    assert "y has 2 value(s) that are not among labels=['low', 'mid', 'high']: 'top' (2 samples)" in str(scored.value)
    with pytest.raises(TypeError, match=r"cross_val_frame needs labels=\[...\]"):
        cross_val_frame({"m": DummyClassifier()}, X, y, labels=None)
    with pytest.raises(ValueError, match=r"estimators\['ols'\]\.predict\(X\) gave \d+ value\(s\) that are not among"):
        cross_val_frame({"ols": LinearRegression()}, X, (y == "high").astype(int), labels=[0, 1], cv=3)


@pytest.mark.parametrize(
    ("estimators", "error", "match"),
    [
        ([LogisticRegression()], TypeError, r"estimators must be a dict model name -> estimator"),
        ({}, ValueError, r"estimators is empty"),
        ({"x": "LogisticRegression"}, TypeError, r"estimators\['x'\] is a str, not an estimator"),
        ({"baseline: majority": DummyClassifier()}, ValueError, r"names that start with 'baseline: '"),
    ],
)
def test_estimators_are_checked(data, estimators, error, match):
    X, y = data
    with pytest.raises(error, match=match):
        cross_val_frame(estimators, X, y, labels=GRADES)


def test_parallel_jobs_progress_and_times_change_no_prediction(data, capsys):
    X, y = data
    models = {"stump": DecisionTreeClassifier(max_depth=1), "tree": DecisionTreeClassifier(max_depth=2, random_state=0)}
    alone = cross_val_frame(models, X, y, labels=GRADES, cv=3)
    with parallel_config(backend="threading"):
        parallel = cross_val_frame(models, X, y, labels=GRADES, cv=3, n_jobs=2, progress=True, return_times=True)
    assert "cross_val_frame" in capsys.readouterr().err
    pd.testing.assert_frame_equal(parallel[alone.columns], alone)
    times = parallel.groupby(["model", "fold"], observed=True)[["fit_time", "predict_time"]]
    assert (times.nunique() == 1).all().all() and (parallel[["fit_time", "predict_time"]] >= 0).all().all()
