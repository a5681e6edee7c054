"""Decisions that fit the metric (``ordframe.decide``, ``df.ordinal.decide``): the Bayes labels of class probabilities."""

from fractions import Fraction

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe


def exact_decision(weights, cost):
    """The lowest class minimising sum_t p_t cost[t][j], in exact arithmetic (p = weights / their sum)."""
    total = sum(weights)
    expected = [sum(Fraction(w, total) * cost[t][j] for t, w in enumerate(weights)) for j in range(len(weights))]
    return expected.index(min(expected))


def named_cost(loss, k):
    return [
        [{"zero_one": int(t != j), "absolute": abs(t - j), "squared": (t - j) ** 2}[loss] for j in range(k)]
        for t in range(k)
    ]


@st.composite
def probability_rows(draw):
    """Integer weights (ties are frequent), their rows of probabilities, and an integer cost matrix."""
    k = draw(st.integers(2, 6))
    rows = draw(st.lists(st.lists(st.integers(0, 6), min_size=k, max_size=k).filter(any), min_size=1, max_size=6))
    cost = draw(st.lists(st.lists(st.integers(0, 9), min_size=k, max_size=k), min_size=k, max_size=k))
    return rows, cost


@settings(max_examples=30, deadline=None)
@given(probability_rows())
def test_the_labels_minimise_the_expected_loss_by_enumeration(case):
    rows, cost = case
    k = len(cost)
    proba = np.array(rows, float) / np.sum(rows, axis=1, keepdims=True)
    for loss in ("zero_one", "absolute", "squared"):
        want = [exact_decision(w, named_cost(loss, k)) for w in rows]
        assert ordframe.decide(proba, loss=loss).tolist() == want, loss
    assert ordframe.decide(proba, loss=np.array(cost)).tolist() == [exact_decision(w, cost) for w in rows]


@settings(max_examples=25, deadline=None)
@given(probability_rows())
def test_the_named_losses_are_the_mode_a_median_and_the_class_nearest_the_mean(case):
    rows, _ = case
    proba = np.array(rows, float) / np.sum(rows, axis=1, keepdims=True)
    for weights, mode, median, nearest in zip(
        rows,
        ordframe.decide(proba, loss="zero_one"),
        ordframe.decide(proba, loss="absolute"),
        ordframe.decide(proba, loss="squared"),
    ):
        total = sum(weights)
        assert mode == weights.index(max(weights))
        cumulative = np.cumsum(weights)
        assert median == next(j for j, c in enumerate(cumulative) if Fraction(int(c), total) >= Fraction(1, 2))
        mean = Fraction(sum(t * w for t, w in enumerate(weights)), total)
        distances = [abs(mean - j) for j in range(len(weights))]
        assert nearest == distances.index(min(distances))  # the lower class when the mean lies half-way


def test_a_labelled_cost_matrix_is_aligned_to_the_class_order():
    rng = np.random.default_rng(3)
    labels = ["none", "mild", "moderate", "severe"]
    proba = rng.dirichlet(np.ones(4), size=50)
    cost = rng.integers(0, 10, (4, 4)).astype(float)
    want = ordframe.decide(proba, loss=cost, labels=labels)
    rows, cols = rng.permutation(4), rng.permutation(4)
    frame = pd.DataFrame(cost[np.ix_(rows, cols)], index=[labels[i] for i in rows], columns=[labels[j] for j in cols])
    assert (ordframe.decide(proba, loss=frame, labels=labels) == want).all()
    array = xr.DataArray(frame.to_numpy().T, dims=("pred", "true"), coords={"pred": frame.columns, "true": frame.index})
    assert (ordframe.decide(proba, loss=array, labels=labels) == want).all()


@pytest.mark.parametrize(
    ("index", "columns", "says"),
    [
        ([0, 1, 5], [0, 1, 2], r"no true row or column for \[2\]: \[5\] are not classes"),
        ([0, 1, 2], [0, 1], r"no pred row or column for \[2\]"),
        ([0, 1, 2, 3], [0, 1, 2], r"\[3\] are not classes"),
        ([0, 1, 1], [0, 1, 2], "a label is repeated"),
    ],
)
def test_a_cost_matrix_whose_labels_are_not_the_classes_is_refused(index, columns, says):
    cost = pd.DataFrame(np.ones((len(index), len(columns))), index=index, columns=columns)
    with pytest.raises(ValueError, match=says):
        ordframe.decide([[0.2, 0.3, 0.5]], loss=cost)


@pytest.mark.parametrize("loss", ["qwk", "oc", "mae", "median"])
def test_a_set_level_index_or_an_unknown_loss_is_refused_with_the_alternatives(loss):
    with pytest.raises(ValueError, match=rf"loss='{loss}' is not a loss decide knows.*'absolute'.*held-out data"):
        ordframe.decide([[0.2, 0.3, 0.5]], loss=loss)


@pytest.mark.parametrize(
    ("proba", "loss", "error", "says"),
    [
        ([[0.2, np.nan, 0.8]], "absolute", ValueError, r"1 row\(s\) have a missing probability, first at rows \[0\]"),
        ([[0.2, 0.3, 0.6]], "absolute", ValueError, "sum"),
        ([0.2, 0.3, 0.5], "absolute", ValueError, "2-d array"),
        ([[0.2, 0.3, 0.5]], np.ones((2, 2)), ValueError, "3x3"),
        ([[0.2, 0.3, 0.5]], -np.ones((3, 3)), ValueError, ">= 0"),
    ],
)
def test_bad_probabilities_and_cost_matrices_are_errors(proba, loss, error, says):
    with pytest.raises(error, match=says):
        ordframe.decide(proba, loss=loss)


def test_renormalize_rescales_rows():
    with pytest.raises(ValueError, match="sum"):
        ordframe.decide([[0.3, 0.1, 0.4]], loss="absolute")
    assert ordframe.decide([[0.3, 0.1, 0.4]], loss="absolute", renormalize=True).tolist() == [1]  # F(1) = 1/2


def frame():
    rng = np.random.default_rng(7)
    proba = rng.dirichlet(np.ones(3) * 0.7, size=40)
    df = pd.DataFrame(proba, columns=["p_low", "p_mid", "p_high"], index=rng.permutation(100)[:40])
    df["y"] = rng.integers(0, 3, 40)
    return df


@pytest.mark.parametrize(
    "transform",
    [lambda d: d, lambda d: d[d["y"] > 0], lambda d: d.sort_values("p_mid"), lambda d: d.reset_index(drop=True)],
    ids=["fresh", "filtered", "sorted", "re-indexed"],
)
@pytest.mark.parametrize("loss", ["zero_one", "absolute", "squared"])
def test_the_accessor_decides_each_row_by_position_and_keeps_the_index(transform, loss):
    df = transform(frame())
    out = df.ordinal.decide(["p_low", "p_mid", "p_high"], loss=loss, labels=["low", "mid", "high"])
    assert out.index.equals(df.index) and out.name == loss
    want = ordframe.decide(df[["p_low", "p_mid", "p_high"]].to_numpy(), loss=loss, labels=["low", "mid", "high"])
    assert out.tolist() == want.tolist()
    by_dict = df.ordinal.decide(
        {"low": "p_low", "mid": "p_mid", "high": "p_high"}, loss=loss, labels=["low", "mid", "high"]
    )
    assert by_dict.tolist() == want.tolist()


def test_the_accessor_names_the_row_of_a_bad_probability_and_asks_for_labels():
    df = frame()
    df.loc[df.index[3], "p_mid"] = np.nan
    with pytest.raises(ValueError, match=str(df.index[3])):
        df.ordinal.decide({0: "p_low", 1: "p_mid", 2: "p_high"}, loss="absolute")
    with pytest.raises(ValueError, match=r"pass labels=\[\.\.\.\]"):
        frame().ordinal.decide(["p_low", "p_mid", "p_high"], loss="absolute")


def test_deciding_for_the_metric_lowers_mae_and_cost_against_the_argmax():
    """The recipe of the docs: each decision scored beside the model's most probable class."""
    df = frame()
    proba = {0: "p_low", 1: "p_mid", 2: "p_high"}
    cost = np.array([[0, 1, 4], [2, 0, 1], [8, 3, 0]], float)
    df["mode"] = df.ordinal.decide(proba, loss="zero_one")
    df["median"] = df.ordinal.decide(proba, loss="absolute")
    df["cheapest"] = df.ordinal.decide(proba, loss=cost)
    p = df[list(proba.values())].to_numpy()
    y = df["y"].to_numpy()
    expected = {  # the expected loss under the model's own probabilities: the Bayes decision is never worse
        "mae": lambda pred: np.mean(np.abs(np.arange(3)[None, :] - pred[:, None]) * p),
        "cost": lambda pred: np.mean((p @ cost)[np.arange(len(pred)), pred]),
    }
    assert expected["mae"](df["median"].to_numpy()) <= expected["mae"](df["mode"].to_numpy())
    assert expected["cost"](df["cheapest"].to_numpy()) <= expected["cost"](df["mode"].to_numpy())
    assert float(df.ordinal.mae("y", "median")) == np.mean(np.abs(y - df["median"].to_numpy()))


CLASSES = ["low", "mid", "high"]
PROBA = dict(zip(CLASSES, ["p_low", "p_mid", "p_high"]))


def predictions_frame(n=40, seed=0):
    """Random probabilities, true and predicted labels of two models and weights, with a non-default index."""
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(rng.dirichlet(np.ones(3), n), columns=list(PROBA.values()), index=rng.permutation(n) * 3)
    df["y"] = rng.choice(CLASSES, n)
    df["yhat"] = rng.choice(CLASSES, n)
    df["model"] = rng.choice(["a", "b"], n)
    df["w"] = rng.uniform(0.5, 2.0, n)
    return df


@pytest.mark.parametrize(
    "transform",
    [
        lambda df: df,
        lambda df: df[df["w"] > 0.8].sort_values("p_mid"),
        lambda df: df.iloc[::2].reset_index(drop=True),
        lambda df: df.assign(y=df["y"].where(df["p_low"] < 0.6)),  # missing true labels, with dropna=True
    ],
    ids=["fresh", "filtered-sorted", "re-indexed", "dropna"],
)
def test_each_metric_at_its_decision_equals_decide_then_evaluate(transform):
    df = transform(predictions_frame())
    cost = pd.DataFrame([[0, 1, 4], [2, 0, 1], [9, 3, 0]], index=CLASSES, columns=CLASSES)
    metrics = {"acc": "accuracy", "mer": "mer", "mae": "mae", "mse": "mse", "cost": ("expected_cost", {"cost": cost})}
    kept = dict(proba=PROBA, labels=CLASSES, by="model", weights="w", dropna=True)
    ds = df.ordinal.evaluate("y", "yhat", metrics=metrics, decisions=True, **kept)
    losses = {"acc": "zero_one", "mer": "zero_one", "mae": "absolute", "mse": "squared", "cost": cost}
    for out, loss in losses.items():
        decided = df.assign(decided=df.ordinal.decide(PROBA, loss=loss, labels=CLASSES))
        by_hand = decided.ordinal.evaluate("y", "decided", metrics={out: metrics[out]}, **kept)[out]
        at = ds[f"{out}_at_decision"]
        xr.testing.assert_allclose(at.drop_attrs(), by_hand.drop_attrs(), rtol=1e-12)
        assert at.attrs["decision"] == ("cost" if out == "cost" else loss)
        assert at.attrs["metric"] == by_hand.attrs["metric"]
    # the model's own predictions are untouched
    xr.testing.assert_identical(ds["mae"], df.ordinal.evaluate("y", "yhat", metrics={"mae": "mae"}, **kept)["mae"])


def test_a_cost_matrix_labelled_in_another_order_and_the_default_cost():
    df = predictions_frame(seed=1)
    order = ["high", "low", "mid"]
    cost = pd.DataFrame([[0, 7, 2], [3, 0, 1], [1, 5, 0]], index=order, columns=order[::-1])
    metrics = {"given": ("expected_cost", {"cost": cost}), "default": "expected_cost"}
    ds = df.ordinal.evaluate("y", "yhat", proba=PROBA, labels=CLASSES, metrics=metrics, decisions=True)
    for out, loss, name in [("given", cost, "cost"), ("default", "absolute", "absolute")]:
        decided = df.assign(decided=df.ordinal.decide(PROBA, loss=loss, labels=CLASSES))
        by_hand = decided.ordinal.evaluate("y", "decided", labels=CLASSES, metrics={out: metrics[out]})[out]
        assert float(ds[f"{out}_at_decision"]) == pytest.approx(float(by_hand), rel=1e-12)
        assert ds[f"{out}_at_decision"].attrs["decision"] == name


def test_a_metric_without_a_fitting_decision_gets_none_and_a_model_without_probabilities_gets_nan():
    df = predictions_frame(seed=2)
    df.loc[df["model"] == "b", list(PROBA.values())] = np.nan  # model b predicts labels only
    with pytest.warns(RuntimeWarning, match="b"):
        ds = df.ordinal.evaluate(
            "y", "yhat", proba=PROBA, labels=CLASSES, by="model", metrics=["qwk", "oc", "mae"], decisions=True
        )
    assert list(ds) == ["qwk", "oc", "mae", "mae_at_decision"]
    assert np.isnan(float(ds["mae_at_decision"].sel(model="b")))
    assert np.isfinite(float(ds["mae_at_decision"].sel(model="a")))


def test_decisions_without_probabilities_or_with_a_bootstrap_is_an_error():
    df = predictions_frame(seed=3)
    with pytest.raises(ValueError, match=r"decisions=True .*no probabilities are given.*proba="):
        df.ordinal.evaluate("y", "yhat", metrics=["mae"], decisions=True)
    with pytest.raises(TypeError, match="leave out n_resamples="):
        df.ordinal.evaluate("y", "yhat", proba=PROBA, labels=CLASSES, metrics=["mae"], decisions=True, n_resamples=10)
    with pytest.raises(TypeError, match="decisions= must be True or False"):
        df.ordinal.evaluate("y", "yhat", proba=PROBA, labels=CLASSES, metrics=["mae"], decisions="yes")
    with pytest.raises(ValueError, match="'mae_at_decision' of 'mae' at its decision is taken"):
        df.ordinal.evaluate(
            "y", proba=PROBA, labels=CLASSES, metrics={"mae": "mae", "mae_at_decision": "mse"}, decisions=True
        )
