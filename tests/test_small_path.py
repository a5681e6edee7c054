"""A call on one set of vectors takes a path sized for one matrix; the general path is the oracle.

``ordframe.<metric>(y_true, y_pred)`` reads the vectors as the columns of a
DataFrame without building one, and runs the kernel on the one matrix (or the
samples' scores) as numpy arrays. The general path, written out below, builds
the DataFrame, its labelled cube (or per-sample scores as a DataArray) and
goes through ``xarray.apply_ufunc``. Both must give the same value, the same
error (type and words) and the same warnings, for every built-in metric.
"""

import math
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe
from ordframe._accessors.functions import _check_params
from ordframe._bridge.apply import apply_confusion, as_scalar
from ordframe._bridge.scores import frame_mean
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._inputs.vectors import PRED, TRUE, WEIGHTS, vectors_frame, y_proba_words
from ordframe._registry import manager

CONFUSION = manager.metric_names("confusion")
PROBA = manager.metric_names("proba")


def general(name, y_true, given_, *, labels=None, sample_weight=None, dropna=False, renormalize=False, **params):
    """``ordframe.<name>`` through a DataFrame of the vectors, its labelled cube or scores, and ``apply_ufunc``."""
    metric = manager.get_metric(name)
    _check_params(metric, params)
    weights = None if sample_weight is None else WEIGHTS
    if metric.kind == "confusion":
        frame, _ = vectors_frame(y_true, given_, sample_weight=sample_weight)
        rows = frame_rows(frame, Selection(TRUE, PRED, labels=labels, weights=weights, dropna=dropna))
        return as_scalar(apply_confusion(metric, rows.cube(), params), metric, rows.empty)
    frame, proba = vectors_frame(y_true, y_proba=given_, sample_weight=sample_weight, labels=labels)
    with y_proba_words():
        selection = Selection(TRUE, None, proba, labels=labels, weights=weights, dropna=dropna, renormalize=renormalize)
        rows = frame_rows(frame, selection)
        return as_scalar(frame_mean(metric, rows, params, metric.name), metric, rows.empty)


def outcome(call):
    """What a call gives: its value, or its error's type and words; and the warnings it issued."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result = ("value", call())
        except Exception as exc:  # every error is compared, whatever its type
            result = ("error", type(exc), str(exc))
    return result, [(w.category, str(w.message)) for w in caught]


def assert_same(name, *args, **kwargs):
    small, small_warnings = outcome(lambda: getattr(ordframe, name)(*args, **kwargs))
    big, big_warnings = outcome(lambda: general(name, *args, **kwargs))
    assert small_warnings == big_warnings
    if small[0] == "value" and big[0] == "value":
        a, b = small[1], big[1]
        assert isinstance(a, float)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)
    else:
        assert small == big
    return small


@st.composite
def samples(draw, proba: bool):
    k = draw(st.integers(2, 5))
    n = draw(st.integers(0, 25))
    codes = st.integers(0, k - 1)
    y = np.array(draw(st.lists(codes, min_size=n, max_size=n)), dtype=np.int64)
    if proba:
        raw = np.array(draw(st.lists(st.floats(0.01, 1.0), min_size=n * k, max_size=n * k))).reshape(n, k)
        second = raw / raw.sum(axis=1, keepdims=True)
    else:
        second = np.array(draw(st.lists(codes, min_size=n, max_size=n)), dtype=np.int64)
    kwargs = {}
    if draw(st.booleans()):
        kwargs["labels"] = list(range(k))
    if draw(st.booleans()):
        kwargs["sample_weight"] = np.array(draw(st.lists(st.floats(0, 3), min_size=n, max_size=n)))
    return y, second, kwargs


@pytest.mark.parametrize("name", CONFUSION + PROBA)
@settings(max_examples=12, deadline=None)
@given(st.data())
def test_a_metric_on_random_vectors_is_the_general_paths(name, data):
    y, second, kwargs = data.draw(samples(proba=name in PROBA))
    assert_same(name, y, second, **kwargs)


def test_every_built_in_metric_is_compared():
    """Score metrics have one path, the marker table, for vectors and frames alike (``tests/test_score.py``)."""
    table = ordframe.list_metrics()
    compared = set(CONFUSION) | set(PROBA) | set(manager.metric_names("score"))
    assert set(table.loc[table["plugin"].isin(manager.BUILTIN_MODULES), "name"]) <= compared


NAN = float("nan")
LABEL_CASES = {
    "NaN labels": ([0, 1, NAN, 2], [0, 1, 1, 2], {}),
    "NaN labels dropped": ([0, 1, NAN, 2, 2], [0, 1, 1, 2, 1], {"dropna": True}),
    "None predictions": ([0, 1, 2], np.array([0, None, 2], dtype=object), {}),
    "labels outside labels=": ([0, 1, 5, 7, 7], [0, 1, 1, 2, 2], {"labels": [0, 1, 2]}),
    "strings without labels": (["a", "b", "a"], ["a", "a", "b"], {}),
    "strings with labels": (["lo", "hi", "mid"], ["mid", "hi", "lo"], {"labels": ["lo", "mid", "hi"]}),
    "a string outside labels": (["lo", "x"], ["lo", "lo"], {"labels": ["lo", "hi"]}),
    "a single class": ([1, 1, 1], [1, 1, 1], {}),
    "empty": ([], [], {}),
    "empty with labels": ([], [], {"labels": [0, 1]}),
    "negative weights": ([0, 1], [0, 1], {"sample_weight": [1.0, -1.0]}),
    "NaN weights": ([0, 1], [0, 1], {"sample_weight": [1.0, NAN]}),
    "zero weights": ([0, 1], [0, 1], {"sample_weight": [0.0, 0.0]}),
    "text weights": ([0, 1], [0, 1], {"sample_weight": ["a", "b"]}),
    "different lengths": ([0, 1, 2], [0, 1], {}),
    "2-D labels": ([0, 1], [[0, 1], [1, 0]], {}),
    "one value": (1, [1], {}),
    "a set": ({0, 1}, [0, 1], {}),
    "ordered Categorical": (
        pd.Categorical(["lo", "hi", "mid"], categories=["lo", "mid", "hi"], ordered=True),
        pd.Categorical(["mid", "hi", "hi"], categories=["lo", "mid", "hi"], ordered=True),
        {},
    ),
    "unordered Categorical": (pd.Categorical(["lo", "hi"]), pd.Categorical(["hi", "hi"]), {}),
    "Categorical and labels": (pd.Categorical([2, 0, 1]), [0, 1, 1], {"labels": [0, 1, 2]}),
    "mixed types": (np.array([1, "a", 2], dtype=object), [1, 2, 2], {}),
    "booleans": ([True, False, True], [True, True, False], {}),
    "floats": ([0.0, 1.5, 3.0], [1.5, 1.5, 0.0], {}),
    "wide integers": ([0, 1000, 5], [5, 1000, 0], {}),
    "a class only predicted": ([0, 0, 1, 1] * 5, [0, 2, 1, 2] * 5, {}),
    "nullable integers": (pd.array([0, 1, None], dtype="Int64"), [0, 1, 1], {}),
    "nullable integers dropped": (pd.array([0, 1, None, 1], dtype="Int64"), [0, 1, 1, 0], {"dropna": True}),
    "a shuffled Series": (pd.Series([0, 1, 2], index=[9, 3, 5]), pd.Series([0, 2, 2]), {}),
    "big-endian integers": (np.array([0, 1, 2], dtype=">i8"), [0, 1, 1], {}),
    "uint64": (np.array([0, 1, 2], dtype=np.uint64), [0, 1, 1], {}),
    "a masked array": (np.ma.array([0, 1, 2], mask=[0, 1, 0]), np.ma.array(["a", "b", "c"], mask=[1, 0, 0]), {}),
    "datetimes": (
        np.array(["2020-01-01", "2021-01-01"], dtype="M8[D]"),
        np.array(["2021-01-01"] * 2, dtype="M8[D]"),
        {},
    ),
    "labels with a missing value": ([0, 1], [0, 1], {"labels": [0, None]}),
    "labels repeated": ([0, 1], [0, 1], {"labels": [0, 1, 1]}),
    "one label": ([0, 0], [0, 0], {"labels": [0]}),
}


P = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])
PROBA_CASES = {
    "rows not summing to 1": ([0, 1, 2], P * 0.9, {}),
    "rows renormalised": ([0, 1, 2], P * 0.9, {"renormalize": True}),
    "NaN probabilities": ([0, 1, 2], np.where(np.eye(3, dtype=bool), NAN, P), {}),
    "NaN probabilities dropped": ([0, 1, 2], np.vstack([P[:2], [NAN, NAN, NAN]]), {"dropna": True}),
    "outside [0, 1]": ([0, 1, 2], P * 2 - 0.5, {}),
    "one column": ([0, 1], [0.2, 0.9], {}),
    "columns for other classes": ([0, 1, 1], P, {}),
    "columns and labels differ": ([0, 1, 2], P, {"labels": [0, 1]}),
    "a dict": ([0, 1, 2], {0: P[:, 0], 1: P[:, 1], 2: P[:, 2]}, {}),
    "a frame named by the classes": ([2, 0, 1], pd.DataFrame(P[:, ::-1], columns=[2, 1, 0]), {}),
    "a frame named partly by the classes": ([2, 0, 1], pd.DataFrame(P, columns=[0, 1, "x"]), {}),
    "a frame with default names": ([0, 1, 2], pd.DataFrame(P), {}),
    "a frame with text": ([0, 1], pd.DataFrame({"p": [0.5, 0.5], "q": ["x", "y"]}), {"labels": [0, 1]}),
    "labels outside": ([0, 1, 5], P, {"labels": [0, 1, 2]}),
    "strings without labels": (["a", "b", "c"], P, {}),
    "strings with labels": (["lo", "hi", "mid"], P, {"labels": ["lo", "mid", "hi"]}),
    "NaN labels": ([0, NAN, 2], P, {"labels": [0, 1, 2]}),
    "NaN labels dropped": ([0, NAN, 2], P, {"labels": [0, 1, 2], "dropna": True}),
    "NaN labels and the classes they leave": ([0, NAN, 2], P, {}),
    "ordered Categorical": (pd.Categorical(["a", "c", "b"], categories=["a", "b", "c"], ordered=True), P, {}),
    "empty": ([], np.zeros((0, 3)), {"labels": [0, 1, 2]}),
    "negative weights": ([0, 1, 2], P, {"sample_weight": [1.0, -1.0, 1.0]}),
    "zero weights": ([0, 1, 2], P, {"sample_weight": [0.0, 0.0, 0.0]}),
    "different lengths": ([0, 1], P, {}),
    "float32": ([0, 1, 2], P.astype(np.float32), {}),
    "a transposed array": ([0, 1, 2], np.asfortranarray(P), {}),
}


HOSTILE = {
    **{("labels", case): (CONFUSION, *given) for case, given in LABEL_CASES.items()},
    **{("probabilities", case): (PROBA, *given) for case, given in PROBA_CASES.items()},
}


@pytest.mark.parametrize(("kind", "case"), HOSTILE)
def test_a_hostile_input_fails_or_warns_as_on_the_general_path(kind, case):
    names, y, second, kwargs = HOSTILE[kind, case]
    for name in names:
        assert_same(name, y, second, **kwargs)


@pytest.mark.parametrize("name", ["mae", "rps"])
def test_the_hostile_cases_reach_the_checks(name):
    """The cases are not all refused early: both kinds of outcome are there."""
    cases = [given for (kind, _), (names, *given) in HOSTILE.items() if name in names]
    assert {assert_same(name, y, second, **kwargs)[0] for y, second, kwargs in cases} == {"value", "error"}


def test_polars_inputs_take_the_small_path_too():
    pl = pytest.importorskip("polars")
    order = ["low", "mid", "high"]
    true = pl.Series(["low", "high", None], dtype=pl.Enum(order))
    pred = pl.Series(["mid", "high", "low"], dtype=pl.Enum(order))
    for name in CONFUSION:
        assert_same(name, true, pred)
        assert_same(name, true, pred, dropna=True)
        assert_same(name, pl.Series([1, 2, 3]), pl.Series([1, 3, 3]))
    proba = pl.DataFrame({"a": [0.7, 0.2], "b": [0.3, 0.8]})
    for name in PROBA:
        assert_same(name, pl.Series([0, 1]), proba)


def test_metric_parameters_fail_as_on_the_general_path():
    assert_same("oc", [0, 1, 2], [0, 2, 1], beta=-1.0)
    assert_same("oc", [0, 1, 2], [0, 2, 1], bta=0.2)
    assert_same("expected_cost", [0, 1, 2], [0, 2, 1], cost=np.ones((2, 2)))
    labelled = pd.DataFrame(np.ones((3, 3)) - np.eye(3), index=[2, 1, 0], columns=[0, 2, 1])
    assert_same("expected_cost", [0, 1, 2], [0, 2, 1], cost=labelled)
    assert_same("rps", [0, 1], np.array([[0.5, 0.5], [0.1, 0.9]]), normalize=False)


BATCH_GROUPS = [
    {"epoch": 0, "split": "train"},
    {"epoch": np.int64(0), "split": "train"},
    {"epoch": 0.0, "split": np.str_("train")},
    {"epoch": np.array(1), "split": "valid"},
    {"epoch": True, "split": "valid"},
    {"epoch": 1, "split": "valid"},
]


def accumulated(batches, known_slots: bool, monkeypatch):
    """An accumulator fed ``batches`` (arguments and keywords of ``update``), and what each batch gave."""
    with monkeypatch.context() as patch:
        if not known_slots:  # every batch's group values coded as columns, as a new group's are
            patch.setattr(ordframe.Accumulator, "_known_slot", lambda self, groups: None)
        acc = ordframe.Accumulator([0, 1, 2], metrics=["mae", "qwk", "rps", "brier"])
        outcomes = [outcome(partial(acc.update, *args, **kwargs)) for args, kwargs in batches]
        return acc, outcomes


def test_a_batch_of_a_group_seen_before_counts_as_its_values_coded_would(monkeypatch):
    rng = np.random.default_rng(1)
    batches = []
    for groups in BATCH_GROUPS * 2:
        y = rng.integers(0, 3, 20)
        batches.append(((y, np.clip(y + rng.integers(-1, 2, 20), 0, 2)), {"y_proba": rng.dirichlet(np.ones(3), 20)}))
        batches[-1][1].update(groups, sample_weight=rng.uniform(0, 2, 20))
    hostile = [
        (([0, NAN], [0, 1]), {"y_proba": P[:2], "epoch": 0, "split": "train"}),
        (([0, NAN], [0, 1]), {"y_proba": P[:2], "epoch": 0, "split": "train", "dropna": True}),
        (([0, 1], [0, 1]), {"y_proba": P[:2], "epoch": NAN, "split": "train"}),
        (([0, 1], [0, 1]), {"y_proba": P[:2], "epoch": None, "split": "train", "dropna": True}),
        (([0, 1], [0, 1]), {"y_proba": P[:2], "epoch": 0, "split": "train", "sample_weight": [1, -1]}),
        (([0, 1], [0, 5]), {"y_proba": P[:2], "epoch": 0, "split": "train"}),
        (([0, 1], [0, 1]), {"y_proba": P[:2] * 2, "epoch": 0, "split": "train"}),
        (([0, 1], [0, 1]), {"y_proba": P[:2], "epoch": [0, 1], "split": "train"}),
        (([0, 1], [0, 1]), {"y_proba": P[:2], "epoch": {0: 1}, "split": "train"}),
    ]
    small, small_outcomes = accumulated(batches + hostile, True, monkeypatch)
    big, big_outcomes = accumulated(batches + hostile, False, monkeypatch)
    assert small_outcomes == big_outcomes
    assert {result[0] for result, _ in small_outcomes} == {"value", "error"}
    assert small.cube().equals(big.cube())
    assert small.cube().identical(big.cube())
    for name, values in small.evaluate().items():
        np.testing.assert_allclose(values, big.evaluate()[name], rtol=1e-12)
        assert values.attrs == big.evaluate()[name].attrs
