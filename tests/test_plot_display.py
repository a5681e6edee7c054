"""ordframe.plot.ConfusionDisplay and ReliabilityDisplay: scikit-learn's display API, ordframe's class order, checked
by the data they draw."""

import subprocess
import sys
import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import ordframe  # noqa: E402
from ordframe.plot import ConfusionDisplay, ReliabilityDisplay  # noqa: E402

LABELS = ["low", "mid", "high"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


@pytest.fixture
def labels():
    rng = np.random.default_rng(0)
    true = rng.choice(LABELS, 60)
    pred = np.where(rng.random(60) < 0.6, true, rng.choice(LABELS, 60))
    return true, pred


def accessor_cube(true, pred, **kwargs):
    return pd.DataFrame({"y_true": true, "y_pred": pred}).ordinal.confusion("y_true", "y_pred", **kwargs)


def path_xy(path):
    """(predicted, true) positions of a path's cells, as the display draws them."""
    cells = path.values
    cells = cells[cells[:, 0] >= 0]
    return cells[:, ::-1].astype(float)


@pytest.mark.parametrize("index", ["oc", "uoc"])
def test_from_predictions_draws_the_counts_and_the_path(labels, index):
    true, pred = labels
    display = ConfusionDisplay.from_predictions(true, pred, labels=LABELS, path=index, beta=0.25)
    expected = accessor_cube(true, pred, labels=LABELS)
    xr.testing.assert_identical(display.confusion_matrix, expected)
    np.testing.assert_array_equal(display.im_.get_array(), expected.values)
    assert [t.get_text() for t in display.ax_.get_xticklabels()] == LABELS
    assert [t.get_text() for t in display.ax_.get_yticklabels()] == LABELS
    assert display.ax_.get_xlabel() == "predicted class" and display.ax_.get_ylabel() == "true class"
    assert display.display_labels == LABELS
    texts = np.vectorize(lambda t: int(t.get_text()))(display.text_)
    np.testing.assert_array_equal(texts, expected.values)
    positions = np.vectorize(lambda t: t.get_position(), otypes=[object])(display.text_)
    assert positions[0, 2] == (2, 0)  # cell (true 0, predicted 2) is at x = 2, y = 0
    path = getattr(ordframe, f"{index}_path")(expected, beta=0.25)
    np.testing.assert_array_equal(display.path_.get_xydata(), path_xy(path))
    value = float(getattr(expected.ordinal, index)(beta=0.25))
    assert display.ax_.get_title().splitlines()[0] == f"{index.upper()} = {value:.3f} (beta = 0.25)"
    assert display.figure_ is display.ax_.get_figure()


def test_plot_returns_the_display_and_draws_on_the_axes_given(labels):
    true, pred = labels
    fig, (left, right) = plt.subplots(1, 2)
    display = ConfusionDisplay.from_predictions(true, pred, labels=LABELS, ax=right, colorbar=False)
    assert display.ax_ is right and display.figure_ is fig and not left.get_images()
    again = display.plot(ax=left, normalize="true", path=None, include_values=False)
    assert again is display and display.ax_ is left
    counts = display.confusion_matrix.values
    np.testing.assert_allclose(display.im_.get_array(), counts / counts.sum(axis=1, keepdims=True))
    assert display.path_ is None and display.text_ is None
    assert not [line for line in left.get_lines() if line.get_gid()]


def test_constructor_takes_a_matrix_or_a_cube():
    display = ConfusionDisplay(np.array([[3, 1, 0], [1, 4, 1], [0, 2, 5]])).plot(values_format=".1f")
    assert display.display_labels == ["0", "1", "2"]
    assert display.text_[0, 0].get_text() == "3.0"
    cube = xr.DataArray(
        [[3, 1], [0, 4]], dims=("true", "pred"), coords={"true": ["a", "b"], "pred": ["b", "a"]}
    )  # columns in another order: put in the order of the rows
    display = ConfusionDisplay(cube, display_labels=["A", "B"]).plot()
    np.testing.assert_array_equal(display.im_.get_array(), [[1, 3], [4, 0]])
    assert [t.get_text() for t in display.ax_.get_xticklabels()] == ["A", "B"]
    assert "ConfusionDisplay: 2 classes" in repr(display)


@pytest.mark.parametrize(
    "matrix, kwargs, match",
    [
        (np.ones((2, 2, 2)), {}, "K x K array"),
        (xr.DataArray(np.ones((2, 2, 2)), dims=("model", "true", "pred")), {}, r"\.sum\('model'\)"),
        (np.ones((3, 3)), {"display_labels": ["a", "b"]}, "2 names for the 3 classes"),
        (np.array([[1, -1], [0, 2]]), {}, "finite counts >= 0"),
    ],
)
def test_constructor_errors(matrix, kwargs, match):
    with pytest.raises(ValueError, match=match):
        ConfusionDisplay(matrix, **kwargs)


def test_long_class_names_are_slanted_short_ones_level():
    short = ConfusionDisplay(np.eye(3), display_labels=["mild", "moderate", "severe"]).plot()
    assert {t.get_rotation() for t in short.ax_.get_xticklabels()} == {0.0}
    long = ConfusionDisplay(np.eye(7), display_labels=[f"grade {i} (very long name)" for i in range(7)]).plot()
    assert {t.get_rotation() for t in long.ax_.get_xticklabels()} == {45.0}
    given = ConfusionDisplay(np.eye(3)).plot(xticks_rotation="vertical")
    assert {t.get_rotation() for t in given.ax_.get_xticklabels()} == {90.0}


def test_plot_argument_errors(labels):
    display = ConfusionDisplay(accessor_cube(*labels, labels=LABELS))
    with pytest.raises(ValueError, match="normalize"):
        display.plot(normalize="all")
    with pytest.raises(ValueError, match="path must be"):
        display.plot(path="mae")
    with pytest.raises(ValueError, match="beta"):
        display.plot(path=None, beta=0.5)


# --- the front end: the rules and errors of df.ordinal.confusion ---------------------------------------------------


def raised(call):
    try:
        call()
    except (ValueError, TypeError) as error:
        return type(error), str(error)
    raise AssertionError("no error")


@pytest.mark.parametrize(
    "true, pred, kwargs",
    [
        (["low", "mid"], ["mid", "high"], {}),  # text labels need labels=
        (["low", "mid"], ["mid", "top"], {"labels": LABELS}),  # a label outside labels=
        (["low", None], ["mid", "high"], {"labels": LABELS}),  # a missing label
        ([1, 1], [1, 1], {}),  # one class
    ],
)
def test_same_errors_as_the_accessor(true, pred, kwargs):
    mine = raised(lambda: ConfusionDisplay.from_predictions(true, pred, **kwargs))
    theirs = raised(lambda: accessor_cube(true, pred, **kwargs))
    assert mine == theirs


def test_same_class_order_as_the_accessor():
    # sorted numbers (1, 2, 10 are three adjacent classes), an ordered Categorical, and weights
    display = ConfusionDisplay.from_predictions([10, 2, 1, 2], np.array([2, 2, 1, 10]))
    assert display.display_labels == ["1", "2", "10"]
    xr.testing.assert_identical(display.confusion_matrix, accessor_cube([10, 2, 1, 2], [2, 2, 1, 10]))
    order = pd.CategoricalDtype(["high", "mid", "low"], ordered=True)
    true = pd.Series(["low", "high", "mid"], index=[7, 8, 9], dtype=order)  # matched by position, not index
    pred = pd.Series(["mid", "high", "mid"], dtype=order)
    display = ConfusionDisplay.from_predictions(true, pred, sample_weight=[1.0, 2.0, 0.5])
    assert display.display_labels == ["high", "mid", "low"]
    expected = accessor_cube(true.reset_index(drop=True), pred, weights=np.array([1.0, 2.0, 0.5]))
    xr.testing.assert_identical(display.confusion_matrix, expected)
    assert display.confusion_matrix.dtype == np.float64


def test_polars_enum_gives_the_class_order():
    pl = pytest.importorskip("polars")
    order = pl.Enum(["high", "mid", "low"])
    true = pl.Series(["low", "high", "mid", "mid"], dtype=order)
    pred = pl.Series(["mid", "high", "mid", "low"], dtype=order)
    display = ConfusionDisplay.from_predictions(true, pred)
    assert display.display_labels == ["high", "mid", "low"]
    np.testing.assert_array_equal(display.confusion_matrix.values, [[1, 0, 0], [0, 1, 1], [0, 1, 0]])
    # cross-validation on polars data: the rows of every fold taken by position
    results = {"estimator": [Echo(), Echo()], "indices": {"test": [np.array([0, 1]), np.array([2, 3])]}}
    frame = pl.DataFrame({"label": pred})
    display = ConfusionDisplay.from_cv_results(results, frame, true)
    np.testing.assert_array_equal(display.confusion_matrix.values, [[1, 0, 0], [0, 1, 1], [0, 1, 0]])


class Echo:
    """Predicts the one column of its data (a polars or pandas frame)."""

    def predict(self, X):
        return np.asarray(X.to_numpy()).ravel()


def test_missing_labels_dropped_on_request():
    with pytest.warns(ordframe.DroppedRowsWarning, match="1 "):
        display = ConfusionDisplay.from_predictions([0, 1, None, 2], [0, 1, 1, 2], dropna=True)
    assert int(display.confusion_matrix.sum()) == 3


@pytest.mark.parametrize(
    "true, pred, kwargs, error, match",
    [
        ([0, 1, 2], [0, 1], {}, ValueError, "y_true has 3, y_pred has 2"),
        ([0, 1], [0, 1], {"sample_weight": [1.0]}, ValueError, "sample_weight has 1"),
        (np.zeros((3, 1)), [0, 1, 2], {}, ValueError, r"y_true must be 1-D .*shape \(3, 1\)"),
        (pd.DataFrame({"a": [0, 1]}), [0, 1], {}, TypeError, "got DataFrame"),
        ([0, 1], [0, 1], {"sample_weight": [1.0, -1.0]}, ValueError, "negative"),
    ],
)
def test_vector_errors(true, pred, kwargs, error, match):
    with pytest.raises(error, match=match):
        ConfusionDisplay.from_predictions(true, pred, **kwargs)


# --- scikit-learn ------------------------------------------------------------------------------------------------


@pytest.fixture
def data():
    sklearn_datasets = pytest.importorskip("sklearn.datasets")
    X, y = sklearn_datasets.make_classification(
        n_samples=150, n_classes=3, n_informative=4, n_clusters_per_class=1, random_state=0
    )
    return X, np.asarray(LABELS)[y]


def test_from_estimator(data):
    from sklearn.linear_model import LogisticRegression

    X, y = data
    model = LogisticRegression(max_iter=500).fit(X, y)
    display = ConfusionDisplay.from_estimator(model, X, y, labels=LABELS)
    expected = ConfusionDisplay.from_predictions(y, model.predict(X), labels=LABELS)
    xr.testing.assert_identical(display.confusion_matrix, expected.confusion_matrix)
    # the class order is never estimator.classes_ (alphabetical): text classes need labels=
    assert list(model.classes_) == ["high", "low", "mid"]
    with pytest.raises(TypeError, match="labels="):
        ConfusionDisplay.from_estimator(model, X, y)
    with pytest.raises(TypeError, match="predict method"):
        ConfusionDisplay.from_estimator(object(), X, y, labels=LABELS)


def test_a_regressor_is_refused_as_scikit_learn_does(data):
    from sklearn.linear_model import LinearRegression

    X, y = data
    codes = np.searchsorted(["high", "low", "mid"], y)
    with pytest.raises(ValueError, match=r"LinearRegression.predict gave numbers that are not classes"):
        ConfusionDisplay.from_estimator(LinearRegression().fit(X, codes), X, codes)


@pytest.mark.parametrize("frame", [False, True])
def test_from_cv_results_pools_the_test_folds(data, frame):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold, cross_val_predict, cross_validate

    X, y = data
    if frame:  # pandas inputs with an index that is not 0..n-1: rows are taken by position
        X, y = pd.DataFrame(X, index=np.arange(len(y)) * 3), pd.Series(y, index=np.arange(len(y)) * 3)
    cv = KFold(5, shuffle=True, random_state=0)
    model = LogisticRegression(max_iter=500)
    results = cross_validate(model, X, y, cv=cv, return_estimator=True, return_indices=True)
    display = ConfusionDisplay.from_cv_results(results, X, y, labels=LABELS)
    folds = display.fold_matrices
    assert folds.dims == ("fold", "true", "pred") and folds.sizes["fold"] == 5
    xr.testing.assert_identical(folds.sum("fold"), display.confusion_matrix)
    for i, (estimator, test) in enumerate(zip(results["estimator"], results["indices"]["test"])):
        rows_X = X.iloc[test] if frame else X[test]
        rows_y = y.iloc[test] if frame else y[test]
        alone = accessor_cube(np.asarray(rows_y), estimator.predict(rows_X), labels=LABELS)
        np.testing.assert_array_equal(folds.isel(fold=i).values, alone.values)
    # k-fold: every sample tested once, so the pooled matrix is that of cross_val_predict
    predicted = cross_val_predict(model, X, y, cv=cv)
    np.testing.assert_array_equal(display.confusion_matrix.values, accessor_cube(y, predicted, labels=LABELS).values)
    np.testing.assert_array_equal(display.im_.get_array(), display.confusion_matrix.values)
    assert "pooled over 5 test folds" in display.ax_.get_title()


def test_from_cv_results_one_class_order_for_every_fold():
    class Constant:  # predicts the class its fold was given, so some folds never see "high"
        def __init__(self, label):
            self.label = label

        def predict(self, X):
            return np.full(len(X), self.label)

    y = np.array([0, 0, 1, 1, 2, 2])
    results = {"estimator": [Constant(0), Constant(1)], "indices": {"test": [np.array([0, 1, 2]), np.array([3, 4, 5])]}}
    display = ConfusionDisplay.from_cv_results(results, np.zeros((6, 1)), y, sample_weight=np.arange(1.0, 7.0))
    assert display.display_labels == ["0", "1", "2"]
    np.testing.assert_array_equal(display.fold_matrices.isel(fold=0).values, [[3, 0, 0], [3, 0, 0], [0, 0, 0]])
    np.testing.assert_array_equal(display.confusion_matrix.values, [[3, 0, 0], [3, 4, 0], [0, 11, 0]])


@pytest.mark.parametrize(
    "results, match",
    [
        ({"estimator": []}, r"no 'indices' \(pass return_indices=True\)"),
        ({"indices": {"test": []}}, r"no 'estimator' \(pass return_estimator=True\)"),
        ({"estimator": [1, 2], "indices": {"test": [[0]]}}, "2 estimator"),
    ],
)
def test_from_cv_results_errors(results, match):
    with pytest.raises(ValueError, match=match):
        ConfusionDisplay.from_cv_results(results, np.zeros((2, 1)), [0, 1])
    with pytest.raises(TypeError, match="cross_validate"):
        ConfusionDisplay.from_cv_results([1], np.zeros((2, 1)), [0, 1])


def test_from_cv_results_with_other_samples_is_an_error(data):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import cross_validate

    X, y = data
    results = cross_validate(LogisticRegression(max_iter=500), X, y, cv=3, return_estimator=True, return_indices=True)
    with pytest.raises(ValueError, match=r"positions 0 to 149, and X has 100 samples, y 100: give the X and y"):
        ConfusionDisplay.from_cv_results(results, X[:100], y[:100], labels=LABELS)


@pytest.mark.slow
def test_importing_the_plots_does_not_import_matplotlib():
    code = "import sys, ordframe, ordframe.plot; print('matplotlib' in sys.modules)"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False"


def test_no_warning_on_an_ordinary_display(labels):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ConfusionDisplay.from_predictions(*labels, labels=LABELS)


# --- ReliabilityDisplay ---------------------------------------------------------------------------------------------


@pytest.fixture
def probabilities():
    rng = np.random.default_rng(3)
    proba = rng.dirichlet(np.ones(3), 300)
    true = np.array([rng.choice(3, p=p) for p in proba])
    return true, proba, rng.random(300) + 0.5


def accessor_curves(true, proba, labels=None, weights=None, **kwargs):
    columns = [f"p{k}" for k in range(proba.shape[1])]
    frame = pd.DataFrame(proba, columns=columns).assign(y=true)
    if weights is not None:
        frame["w"] = weights
    return frame.ordinal.reliability("y", columns, labels=labels, weights=None if weights is None else "w", **kwargs)


def drawn_points(display, threshold):
    """The (forecast, recalibrated) points of the one curve of a threshold's panel."""
    return display.lines_[threshold, 0].get_xydata()


def expected_points(curves, threshold):
    forecast = curves["forecast"].isel(threshold=threshold).values
    observed = curves["observed"].isel(threshold=threshold).values
    keep = ~np.isnan(forecast)
    return np.column_stack([forecast[keep], observed[keep]])


@pytest.mark.parametrize("method", ["corp", "binned"])
@pytest.mark.parametrize("weighted", [False, True])
def test_reliability_from_predictions_draws_the_curves_of_the_accessor(probabilities, method, weighted):
    true, proba, weights = probabilities
    w = weights if weighted else None
    display = ReliabilityDisplay.from_predictions(true, proba, sample_weight=w, method=method, seed=7)
    expected = accessor_curves(true, proba, weights=w, method=method, seed=7)
    xr.testing.assert_identical(display.curves, expected)
    assert display.ax_.shape == (2,) and display.lines_.shape == (2, 1)
    for k in range(2):
        np.testing.assert_array_equal(drawn_points(display, k), expected_points(expected, k))
        assert display.ax_[k].get_xlabel() == f"forecast P(Y ≤ {k})"
    assert display.figure_ is display.ax_[0].figure
    assert display.figure_.get_suptitle() == "Reliability per threshold (90% consistency bands)"


def test_text_labels_and_the_inputs_scikit_learn_users_hold(probabilities):
    true, proba, _ = probabilities
    text = np.asarray(LABELS)[true]
    display = ReliabilityDisplay.from_predictions(list(text), proba.tolist(), labels=LABELS, seed=1)
    expected = accessor_curves(text, proba, labels=LABELS, seed=1)
    xr.testing.assert_identical(display.curves, expected)
    assert display.ax_[0].get_xlabel() == "forecast P(Y ≤ low)"
    polars = pytest.importorskip("polars")
    enum = polars.Series(text).cast(polars.Enum(LABELS))
    xr.testing.assert_identical(ReliabilityDisplay.from_predictions(enum, proba, seed=1).curves, expected)


@pytest.mark.parametrize(
    "true, proba, kwargs, error, match",
    [
        (["low", "mid"], [[0.5, 0.5], [0.5, 0.5]], {}, TypeError, "labels="),
        ([0, 1, 1], [[0.5, 0.5], [0.5, 0.5]], {}, ValueError, "different numbers of samples"),
        ([0, 1], [[0.5, 0.6], [0.5, 0.5]], {}, ValueError, "sum to 1"),
        ([0, 1], [0.5, 0.5], {}, ValueError, "2-D"),
        ([0, 1, None], [[0.5, 0.5]] * 3, {}, ValueError, "missing"),
        ([0, 1], [[0.5, 0.5], [0.5, 0.5]], {"method": "bins"}, ValueError, "corp"),
    ],
)
def test_reliability_errors_are_the_accessor_s(true, proba, kwargs, error, match):
    with pytest.raises(error, match=match):
        ReliabilityDisplay.from_predictions(true, proba, **kwargs)


def test_reliability_from_estimator_matches_predict_proba_to_the_labels(probabilities):
    from sklearn.linear_model import LogisticRegression

    true, proba, _ = probabilities
    X = np.log(proba)
    numeric = LogisticRegression(max_iter=500).fit(X, true)
    display = ReliabilityDisplay.from_estimator(numeric, X, true, seed=2)
    xr.testing.assert_identical(
        display.curves, ReliabilityDisplay.from_predictions(true, numeric.predict_proba(X), seed=2).curves
    )
    text = np.asarray(LABELS)[true]
    model = LogisticRegression(max_iter=500).fit(X, text)
    assert list(model.classes_) == ["high", "low", "mid"]  # alphabetical: the columns are matched, not assumed
    display = ReliabilityDisplay.from_estimator(model, X, text, labels=LABELS, seed=2)
    in_order = model.predict_proba(X)[:, [1, 2, 0]]
    xr.testing.assert_identical(
        display.curves, ReliabilityDisplay.from_predictions(text, in_order, labels=LABELS, seed=2).curves
    )
    with pytest.raises(TypeError, match="labels="):
        ReliabilityDisplay.from_estimator(model, X, text)
    with pytest.raises(
        TypeError, match="ReliabilityDisplay draws class probabilities, but object has no predict_proba"
    ):
        ReliabilityDisplay.from_estimator(object(), X, true, labels=[0, 1, 2])
    with pytest.raises(ValueError, match=r"classes_ has \['high'\], not in labels"):
        ReliabilityDisplay.from_estimator(model, X, text, labels=["low", "mid"])


def test_a_class_the_estimator_never_saw_gets_probability_zero():
    class Fixed:
        classes_ = np.array([0, 2])

        def predict_proba(self, X):
            return np.tile([0.25, 0.75], (len(X), 1))

    y = np.array([0, 1, 2, 2])
    display = ReliabilityDisplay.from_estimator(Fixed(), np.zeros((4, 1)), y, labels=[0, 1, 2], seed=0)
    expected = ReliabilityDisplay.from_predictions(y, np.tile([0.25, 0.0, 0.75], (4, 1)), labels=[0, 1, 2], seed=0)
    xr.testing.assert_identical(display.curves, expected.curves)


def test_reliability_from_cv_results_pools_the_test_folds(probabilities):
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import KFold, cross_val_predict, cross_validate

    true, proba, weights = probabilities
    X = pd.DataFrame(np.log(proba), index=np.arange(len(true)) * 2)  # rows are taken by position
    y = pd.Series(true, index=X.index)
    cv = KFold(4, shuffle=True, random_state=0)
    model = LogisticRegression(max_iter=500)
    results = cross_validate(model, X, y, cv=cv, return_estimator=True, return_indices=True)
    display = ReliabilityDisplay.from_cv_results(results, X, y, sample_weight=weights, seed=5)
    rows = np.concatenate(results["indices"]["test"])
    pooled = cross_val_predict(model, X, y, cv=cv, method="predict_proba")
    expected = ReliabilityDisplay.from_predictions(true[rows], pooled[rows], sample_weight=weights[rows], seed=5)
    xr.testing.assert_allclose(display.curves, expected.curves, rtol=0, atol=1e-12)
    assert display.n_folds == 4
    assert display.figure_.get_suptitle().endswith("pooled over 4 test folds")
    with pytest.raises(ValueError, match=r"no 'indices' \(pass return_indices=True\)"):
        ReliabilityDisplay.from_cv_results({"estimator": results["estimator"]}, X, y)


def test_reliability_plot_draws_on_the_axes_given(probabilities):
    true, proba, _ = probabilities
    display = ReliabilityDisplay(accessor_curves(true, proba, seed=0))
    assert display.figure_ is None and repr(display) == "<ReliabilityDisplay: 2 thresholds>"
    fig, axes = plt.subplots(1, 2)
    assert display.plot(ax=axes) is display
    assert display.figure_ is fig and list(display.ax_) == list(axes)
    with pytest.raises(ValueError, match="2 panel"):
        display.plot(ax=axes[0])
    with pytest.raises(TypeError, match="df.ordinal.reliability"):
        ReliabilityDisplay(proba)


def test_several_groups_give_one_line_each(probabilities):
    true, proba, _ = probabilities
    frame = pd.DataFrame(proba, columns=["p0", "p1", "p2"]).assign(y=true, model=np.repeat(["a", "b", "c"], 100))
    display = ReliabilityDisplay(frame.ordinal.reliability("y", ["p0", "p1", "p2"], by="model", seed=0)).plot()
    assert display.lines_.shape == (2, 3)
    assert [line.get_gid() for line in display.lines_[0]] == ["a", "b", "c"]


def test_no_warning_on_an_ordinary_reliability_display(probabilities):
    true, proba, _ = probabilities
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ReliabilityDisplay.from_predictions(true, proba, seed=0)


def test_reliability_from_predictions_matches_a_frame_named_by_the_classes(probabilities):
    true, proba, _ = probabilities
    text = np.asarray(LABELS)[true]
    named = pd.DataFrame(proba[:, [2, 0, 1]], columns=["high", "low", "mid"])  # predict_proba with sorted classes_
    xr.testing.assert_identical(
        ReliabilityDisplay.from_predictions(text, named, labels=LABELS, seed=2).curves,
        ReliabilityDisplay.from_predictions(text, proba, labels=LABELS, seed=2).curves,
    )
    with pytest.raises(ValueError, match=r"^y_proba has 2 columns but labels= gives 3 classes"):
        ReliabilityDisplay.from_predictions(text, proba[:, :2], labels=LABELS)


def test_a_title_goes_above_the_confusion_display_s_own(labels):
    true, pred = labels
    plain = ConfusionDisplay.from_predictions(true, pred, labels=LABELS).ax_.get_title()
    titled = ConfusionDisplay.from_predictions(true, pred, labels=LABELS, title="ridge, test set").ax_.get_title()
    assert titled == f"ridge, test set\n{plain}"


def test_the_path_runs_under_the_counts(labels):
    """The line joins cell centres, where the counts are written: it must not cross out their digits."""
    true, pred = labels
    display = ConfusionDisplay.from_predictions(true, pred, labels=LABELS)
    assert display.im_.get_zorder() < display.path_.get_zorder() < min(t.get_zorder() for t in display.text_.ravel())


@pytest.fixture
def few_curves(probabilities):
    true, proba, _ = probabilities
    return true[:40], proba[:40], accessor_curves(true[:40], proba[:40], n_resamples=5, seed=0)


def panel_grid(axes):
    """(row, column) of each panel, from the panels' positions."""
    boxes = [ax.get_position() for ax in axes]
    rows = sorted({round(-b.y0, 3) for b in boxes})
    columns = sorted({round(b.x0, 3) for b in boxes})
    return [(rows.index(round(-b.y0, 3)), columns.index(round(b.x0, 3))) for b in boxes]


@pytest.mark.parametrize(("layout", "places"), [(None, [(0, 0), (0, 1)]), ((2, 1), [(0, 0), (1, 0)])])
def test_the_reliability_panels_take_a_layout(few_curves, layout, places):
    curves = few_curves[2]
    display = ReliabilityDisplay(curves).plot(layout=layout, title="logistic")
    assert panel_grid(display.ax_) == places
    assert display.figure_.get_suptitle() == "logistic\nReliability per threshold (90% consistency bands)"
    assert panel_grid(ordframe.plot.reliability(curves, layout=layout).axes) == places


def test_the_reliability_display_s_class_methods_pass_the_layout_and_title_on(few_curves):
    true, proba, _ = few_curves
    display = ReliabilityDisplay.from_predictions(true, proba, n_resamples=5, seed=0, layout=(2, 1), title="a")
    assert panel_grid(display.ax_) == [(0, 0), (1, 0)]
    assert display.figure_.get_suptitle().startswith("a\nReliability")


@pytest.mark.parametrize(
    ("layout", "match"),
    [
        ((1, 1), r"layout=\(1, 1\) has 1 place\(s\) for the 2 panels; .* e.g. \(2, 1\) or \(1, 2\)"),
        ((0, 3), r"layout=\(0, 3\) has 0 place"),
        ((2,), r"layout must be \(rows, columns\), two ints, got \(2,\)"),
        ((1.0, 2), r"two ints, got \(1.0, 2\)"),
        ("2x1", r"two ints, got '2x1'"),
    ],
)
def test_a_layout_without_room_for_the_panels_is_an_error(few_curves, layout, match):
    with pytest.raises(ValueError, match=match):
        ReliabilityDisplay(few_curves[2]).plot(layout=layout)


def test_a_layout_and_axes_to_draw_in_are_an_error(few_curves):
    _, axes = plt.subplots(1, 2)
    with pytest.raises(ValueError, match="give layout= for a new figure or axes= to draw in, not both"):
        ReliabilityDisplay(few_curves[2]).plot(ax=axes, layout=(1, 2))


def test_one_column_of_panels_has_its_legend_below_them(few_curves):
    curves = xr.concat([few_curves[2]] * 2, dim=pd.Index(["a", "b"], name="model"))
    display = ReliabilityDisplay(curves).plot(layout=(2, 1))
    display.figure_.draw_without_rendering()
    (legend,) = display.figure_.legends
    assert display.ax_[-1].get_legend() is None
    assert legend.get_window_extent().y1 <= display.ax_[-1].get_tightbbox().y0  # under the last panel's labels
    assert [t.get_text() for t in legend.get_texts()] == ["a", "b"]
