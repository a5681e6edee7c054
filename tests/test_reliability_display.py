"""ordframe.plot.ReliabilityDisplay: scikit-learn's display API over df.ordinal.reliability, checked by the data it draws."""

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
import pytest  # noqa: E402
import xarray as xr  # noqa: E402

import ordframe  # noqa: E402, F401  (registers the accessors)
from ordframe.plot import ReliabilityDisplay  # noqa: E402

LABELS = ["low", "mid", "high"]


@pytest.fixture(autouse=True)
def close_figures():
    yield
    plt.close("all")


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
def test_from_predictions_draws_the_curves_of_the_accessor(probabilities, method, weighted):
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
def test_errors_are_the_accessor_s(true, proba, kwargs, error, match):
    with pytest.raises(error, match=match):
        ReliabilityDisplay.from_predictions(true, proba, **kwargs)


def test_from_estimator_matches_predict_proba_to_the_labels(probabilities):
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


def test_from_cv_results_pools_the_test_folds(probabilities):
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


def test_plot_draws_on_the_axes_given(probabilities):
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


def test_no_warning_on_an_ordinary_display(probabilities):
    true, proba, _ = probabilities
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ReliabilityDisplay.from_predictions(true, proba, seed=0)
