"""ordframe.sklearn: ordframe metrics as scikit-learn scorers."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe
from ordframe.sklearn import OrdinalScorer, make_scorer

pytest.importorskip("sklearn")

from sklearn.linear_model import LogisticRegression  # noqa: E402
from sklearn.model_selection import GridSearchCV, KFold, cross_val_score, cross_validate  # noqa: E402

LABELS = [0, 1, 2, 3]


@pytest.fixture(scope="module")
def data():
    """An ordinal target: a noisy latent score cut into four classes."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(240, 3))
    latent = X @ np.array([1.5, -1.0, 0.5]) + rng.normal(scale=0.7, size=240)
    y = np.digitize(latent, [-1.0, 0.0, 1.0])
    return X, y


@pytest.fixture(scope="module")
def model(data):
    X, y = data
    return LogisticRegression().fit(X, y)


class Fixed:
    """An already "fitted" estimator that returns given predictions and probabilities."""

    def __init__(self, pred=None, proba=None, classes=None):
        self.pred, self.proba_, self.classes_ = pred, proba, classes

    def predict(self, X):
        return self.pred

    def predict_proba(self, X):
        return self.proba_


class PredictOnly:
    def predict(self, X):
        return np.zeros(len(X), dtype=int)


def direct_rps(proba, true, labels, **params):
    array = xr.DataArray(proba, dims=("sample", "class"), coords={"class": labels})
    return array.ordinal.rps(xr.DataArray(true, dims="sample"), labels=labels, **params)


# --------------------------------------------------------------------------- values


@pytest.mark.parametrize("metric", ["oc", "uoc", "mae", "qwk", "d"])
def test_confusion_metric_equals_ordframe(data, model, metric):
    X, y = data
    frame = pd.DataFrame({"y": y, "p": model.predict(X)})
    expected = getattr(frame.ordinal, metric)("y", "p", labels=LABELS)
    sign = 1 if ordframe.get_metric(metric).higher_is_better else -1
    assert make_scorer(metric, labels=LABELS)(model, X, y) == pytest.approx(sign * expected, abs=1e-15)


def test_parameters_reach_the_metric(data, model):
    X, y = data
    frame = pd.DataFrame({"y": y, "p": model.predict(X)})
    expected = frame.ordinal.oc("y", "p", labels=LABELS, beta=0.25)
    assert expected != frame.ordinal.oc("y", "p", labels=LABELS)
    assert make_scorer("oc", labels=LABELS, beta=0.25)(model, X, y) == pytest.approx(-expected, abs=1e-15)


@pytest.mark.parametrize("metric", ["rps", "brier", "log_score", "sarps"])
def test_proba_metric_equals_ordframe(data, model, metric):
    X, y = data
    columns = [f"p{c}" for c in LABELS]
    frame = pd.DataFrame(model.predict_proba(X), columns=columns).assign(y=y)
    expected = getattr(frame.ordinal, metric)("y", columns, labels=LABELS)
    assert make_scorer(metric, labels=LABELS)(model, X, y) == pytest.approx(-expected, abs=1e-15)


def test_sign_follows_the_registry(data, model):
    X, y = data
    mae, qwk = make_scorer("mae", labels=LABELS), make_scorer("qwk", labels=LABELS)
    assert not mae.greater_is_better and qwk.greater_is_better
    assert mae(model, X, y) < 0 < qwk(model, X, y)
    # a perfect model reaches the best value: 0 for the (negated) MAE, 1 for QWK
    perfect = Fixed(pred=y)
    assert mae(perfect, X, y) == 0 and qwk(perfect, X, y) == 1
    # the worse model gets the lower score
    worst = Fixed(pred=3 - y)
    assert mae(worst, X, y) < mae(model, X, y)


def test_a_metric_with_a_target_value_scores_its_negated_distance_from_it():
    """A bias of +0.3 and one of -0.3 score alike, -0.3; an unbiased model scores 0, the best."""
    y = np.ones(10, dtype=int)
    up, down = y.copy(), y.copy()
    up[:3], down[:3] = 2, 0
    scorer = make_scorer("mean_signed_error", labels=[0, 1, 2])
    assert not scorer.greater_is_better
    assert scorer(Fixed(pred=up), None, y) == scorer(Fixed(pred=down), None, y) == pytest.approx(-0.3)
    assert scorer(Fixed(pred=np.r_[up[:3], down[:3], y[6:]]), None, y) == 0.0


def test_sample_weight(data, model):
    X, y = data
    w = np.linspace(0.5, 2, len(y))
    frame = pd.DataFrame({"y": y, "p": model.predict(X), "w": w})
    expected = frame.ordinal.oc("y", "p", labels=LABELS, weights="w")
    assert make_scorer("oc", labels=LABELS)(model, X, y, sample_weight=w) == pytest.approx(-expected, abs=1e-15)
    proba = xr.DataArray(model.predict_proba(X), dims=("sample", "class"), coords={"class": LABELS})
    expected = proba.ordinal.rps(xr.DataArray(y, dims="sample"), weights=xr.DataArray(w, dims="sample"))
    assert make_scorer("rps", labels=LABELS)(model, X, y, sample_weight=w) == pytest.approx(-expected, rel=1e-12)
    with pytest.raises(ValueError, match=r"^weights 'weights' has 16 weight\(s\) that are negative"):
        make_scorer("rps", labels=LABELS)(model, X, y, sample_weight=np.where(w > 1.9, -w, w))


def test_string_labels_in_their_order():
    grades = ["low", "mid", "high"]
    y = np.array(["low", "mid", "high", "mid"], dtype=object)
    pred = np.array(["mid", "mid", "high", "low"], dtype=object)
    expected = pd.DataFrame({"y": y, "p": pred}).ordinal.mae("y", "p", labels=grades)
    assert expected == pytest.approx(0.5)  # by position in grades, not alphabetically
    assert make_scorer("mae", labels=grades)(Fixed(pred=pred), None, y) == pytest.approx(-expected)


# --------------------------------------------------------------------------- fixed class order


def test_a_fold_missing_a_class_keeps_k():
    y = np.array([0, 1, 2, 1])  # class 3 absent from this fold
    pred = np.array([0, 2, 2, 1])
    frame = pd.DataFrame({"y": y, "p": pred})
    with_k4 = frame.ordinal.oc("y", "p", labels=LABELS)
    shrunk = frame.ordinal.oc("y", "p", labels=[0, 1, 2])
    assert with_k4 != pytest.approx(shrunk)  # the value depends on K
    assert make_scorer("oc", labels=LABELS)(Fixed(pred=pred), None, y) == pytest.approx(-with_k4)


def test_cross_validation_folds_missing_a_class(data):
    X, y = data
    order = np.argsort(y, kind="stable")  # unshuffled folds of sorted labels: each fold has few classes
    X, y = X[order], y[order]
    scores = cross_val_score(LogisticRegression(), X, y, cv=KFold(4), scoring=make_scorer("mae", labels=LABELS))
    for (train, test), score in zip(KFold(4).split(X), scores):
        pred = LogisticRegression().fit(X[train], y[train]).predict(X[test])
        expected = pd.DataFrame({"y": y[test], "p": pred}).ordinal.mae("y", "p", labels=LABELS)
        assert score == pytest.approx(-expected)


def test_proba_columns_follow_classes_(data):
    X, y = data
    seen = y != 2  # the estimator never sees class 2
    model = LogisticRegression().fit(X[seen], y[seen])
    assert model.classes_.tolist() == [0, 1, 3]
    padded = np.zeros((len(y), 4))
    padded[:, [0, 1, 3]] = model.predict_proba(X)
    expected = direct_rps(padded, y, LABELS)
    assert make_scorer("rps", labels=LABELS)(model, X, y) == pytest.approx(-expected, abs=1e-15)


def test_proba_columns_are_matched_not_assumed_in_order():
    proba = np.array([[0.1, 0.2, 0.7], [0.6, 0.3, 0.1]])
    model = Fixed(proba=proba, classes=np.array(["high", "low", "mid"]))  # alphabetical, as sklearn sorts strings
    y = np.array(["high", "low"], dtype=object)
    grades = ["low", "mid", "high"]
    expected = direct_rps(proba[:, [1, 2, 0]], y, grades)
    assert make_scorer("rps", labels=grades)(model, None, y) == pytest.approx(-expected)


def test_undefined_metric_gives_nan():
    y = np.array([1, 1, 1])  # one class in both margins: QWK is undefined
    scorer = make_scorer("qwk", labels=[0, 1, 2])
    with pytest.warns(RuntimeWarning, match="undefined"):
        assert np.isnan(scorer(Fixed(pred=y), None, y))


# --------------------------------------------------------------------------- scikit-learn integration


def test_grid_search_picks_the_best_scorer_value(data):
    X, y = data
    scorer = make_scorer("oc", labels=LABELS)
    grid = GridSearchCV(
        LogisticRegression(), {"C": [0.001, 1.0]}, scoring=scorer, cv=KFold(3, shuffle=True, random_state=0)
    )
    grid.fit(X, y)
    means = grid.cv_results_["mean_test_score"]
    assert (means <= 0).all()  # a negated OC
    assert means[0] != means[1]
    assert grid.best_params_["C"] == [0.001, 1.0][int(np.argmax(means))]
    assert grid.best_score_ == means.max()
    # the means are those of the scorer itself
    for c, mean in zip([0.001, 1.0], means):
        again = cross_val_score(
            LogisticRegression(C=c), X, y, scoring=scorer, cv=KFold(3, shuffle=True, random_state=0)
        )
        assert mean == pytest.approx(again.mean())


def test_cross_validate_with_a_dict_of_scorers(data):
    X, y = data
    scoring = {name: make_scorer(name, labels=LABELS) for name in ["oc", "qwk", "mae", "rps"]}
    cv = KFold(3, shuffle=True, random_state=1)
    result = cross_validate(LogisticRegression(), X, y, scoring=scoring, cv=cv)
    for i, (train, test) in enumerate(cv.split(X)):
        fitted = LogisticRegression().fit(X[train], y[train])
        frame = pd.DataFrame({"y": y[test], "p": fitted.predict(X[test])})
        assert result["test_oc"][i] == pytest.approx(-frame.ordinal.oc("y", "p", labels=LABELS))
        assert result["test_qwk"][i] == pytest.approx(frame.ordinal.qwk("y", "p", labels=LABELS))
        assert result["test_mae"][i] == pytest.approx(-frame.ordinal.mae("y", "p", labels=LABELS))
        proba = fitted.predict_proba(X[test])
        assert result["test_rps"][i] == pytest.approx(-direct_rps(proba, y[test], LABELS))


def test_pickle_round_trip(data, model):
    X, y = data
    scorer = make_scorer("oc", labels=LABELS, beta=0.25)
    again = pickle.loads(pickle.dumps(scorer))
    assert isinstance(again, OrdinalScorer)
    assert repr(again) == repr(scorer)
    assert again(model, X, y) == scorer(model, X, y)


@pytest.mark.slow
def test_parallel_cross_validation(data):
    X, y = data
    scorer = make_scorer("rps", labels=LABELS)
    serial = cross_val_score(LogisticRegression(), X, y, scoring=scorer, cv=3)
    parallel = cross_val_score(LogisticRegression(), X, y, scoring=scorer, cv=3, n_jobs=2)
    np.testing.assert_allclose(parallel, serial)


def test_repr():
    assert (
        repr(make_scorer("mae", labels=[0, 1, 2])) == "OrdinalScorer('mae', labels=[0, 1, 2], greater_is_better=False)"
    )
    assert (
        repr(make_scorer("oc", labels=["a", "b"], beta=0.25))
        == "OrdinalScorer('oc', labels=['a', 'b'], beta=0.25, greater_is_better=False)"
    )


# --------------------------------------------------------------------------- errors


def test_unknown_metric():
    with pytest.raises(KeyError, match="no metric named 'ocx'"):
        make_scorer("ocx", labels=LABELS)


def test_unknown_parameter():
    with pytest.raises(TypeError, match="unknown parameter"):
        make_scorer("mae", labels=LABELS, beta=0.5)


@pytest.mark.parametrize(
    ("labels", "error", "match"),
    [
        (None, TypeError, "needs labels="),
        ([0, 1, 1], ValueError, "more than once"),
        ([0], ValueError, "at least two classes"),
        ("abc", TypeError, "must be a list"),
        ([0, np.nan], ValueError, "missing value"),
    ],
)
def test_invalid_labels(labels, error, match):
    with pytest.raises(error, match=match):
        make_scorer("oc", labels=labels)


def test_labels_are_required():
    with pytest.raises(TypeError, match="labels"):
        make_scorer("oc")  # type: ignore[call-arg]


def test_true_labels_outside_labels(data, model):
    X, y = data
    with pytest.raises(
        ValueError, match=r"^y has \d+ value\(s\) that are not among labels=\[0, 1, 2\]: 3 \(\d+ samples\)"
    ):
        make_scorer("mae", labels=[0, 1, 2])(model, X, y)
    with pytest.raises(ValueError, match=r"^y has \d+ value\(s\) that are not among labels=\[0, 1, 2\]: 3 "):
        make_scorer("rps", labels=[0, 1, 2])(Fixed(proba=np.full((len(y), 3), 1 / 3), classes=[0, 1, 2]), X, y)


# messages in scikit-learn's terms: the estimator, its predictions, labels=; no accessor advice

ACCESSOR_WORDS = ("column 'p'", "column 'y'", "rows", "dropna", "renormalize", "evaluate", "pred=", "by group")


def test_a_regressor_s_predictions_are_not_among_labels(data):
    from sklearn.linear_model import LinearRegression

    X, y = data
    regressor = LinearRegression().fit(X, y)
    first = float(regressor.predict(X)[0])
    with pytest.raises(ValueError) as error:
        make_scorer("mae", labels=LABELS)(regressor, X, y)
    message = str(error.value)
    assert message.startswith(
        f"LinearRegression.predict(X) gave {len(y)} value(s) that are not among labels=[0, 1, 2, 3]"
    )
    assert f"{first!r} (1 sample)" in message and "use a classifier" in message
    assert not any(word in message for word in ACCESSOR_WORDS), message


def test_missing_predictions_are_said_in_the_estimator_s_words(data):
    X, y = data
    pred = y.astype(float)
    pred[[4, 7]] = np.nan
    with pytest.raises(ValueError) as error:
        make_scorer("mae", labels=LABELS)(Fixed(pred=pred), X, y)
    message = str(error.value)
    assert message.startswith("Fixed.predict(X) gave 2 missing value(s) (NaN/None)") and "positions [4, 7]" in message
    assert not any(word in message for word in ACCESSOR_WORDS), message


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda p: p.__setitem__(3, np.nan), "NaN probabilities for 1 of 240 samples (first at positions [3])"),
        (lambda p: p.__setitem__(5, p[5] * 2), "probabilities that do not sum to 1 for 1 of 240 samples"),
        (lambda p: p.__setitem__((6, 0), -0.5), "probabilities outside [0, 1] for 1 of 240 samples"),
    ],
)
def test_invalid_predict_proba_is_said_in_the_estimator_s_words(data, model, change, problem):
    X, y = data
    proba = model.predict_proba(X)
    change(proba)
    with pytest.raises(ValueError) as error:
        make_scorer("rps", labels=LABELS)(Fixed(proba=proba, classes=model.classes_), X, y)
    message = str(error.value)
    assert message.startswith(f"Fixed.predict_proba(X) gave {problem}"), message
    assert not any(word in message for word in ACCESSOR_WORDS), message


def test_classes_outside_labels(data, model):
    X, y = data
    keep = y < 3
    with pytest.raises(ValueError, match=r"classes_ has \[3\], not in labels="):
        make_scorer("rps", labels=[0, 1, 2])(model, X[keep], y[keep])


def test_proba_metric_without_predict_proba():
    with pytest.raises(TypeError, match="PredictOnly has no predict_proba"):
        make_scorer("rps", labels=LABELS)(PredictOnly(), np.zeros((3, 1)), np.array([0, 1, 2]))


def test_confusion_metric_needs_no_predict_proba():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert make_scorer("mae", labels=LABELS)(PredictOnly(), np.zeros((3, 1)), np.array([0, 1, 0])) == pytest.approx(
            -1 / 3
        )
