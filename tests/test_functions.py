"""Every registered metric as a function like ``sklearn.metrics``: ``ordframe.oc(y_true, y_pred)``."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe
from ordframe._registry import manager

CONFUSION = manager.metric_names("confusion")
PROBA = manager.metric_names("proba")


def sample(n=60, k=4, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    yhat = np.clip(y + rng.integers(-1, 2, n), 0, k - 1)
    proba = rng.dirichlet(np.ones(k), n)
    weight = rng.uniform(0, 2, n)
    return y, yhat, proba, weight


def same(a, b):
    return (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("name", CONFUSION)
def test_a_label_function_equals_the_accessor(name):
    y, yhat, _, weight = sample()
    df = pd.DataFrame({"y": y, "yhat": yhat, "w": weight})
    function = getattr(ordframe, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        assert same(function(y, yhat), getattr(df.ordinal, name)("y", "yhat"))
        assert same(function(y, yhat, sample_weight=weight), getattr(df.ordinal, name)("y", "yhat", weights="w"))
    assert isinstance(function(y, yhat), float)


@pytest.mark.parametrize("name", PROBA)
def test_a_probability_function_equals_the_accessor(name):
    y, _, proba, weight = sample()
    df = pd.DataFrame({"y": y, "w": weight, **{f"p{k}": proba[:, k] for k in range(4)}})
    columns = [f"p{k}" for k in range(4)]
    function = getattr(ordframe, name)
    assert same(function(y, proba), getattr(df.ordinal, name)("y", columns))
    assert same(function(y, proba, sample_weight=weight), getattr(df.ordinal, name)("y", columns, weights="w"))
    assert same(function(y, proba.tolist()), function(y, pd.DataFrame(proba, columns=list("abcd"))))


def test_they_agree_with_scikit_learn():
    y, yhat, _, weight = sample(n=200, k=5, seed=3)
    assert ordframe.accuracy(y, yhat) == pytest.approx(skm.accuracy_score(y, yhat))
    assert ordframe.mae(y, yhat, sample_weight=weight) == pytest.approx(
        skm.mean_absolute_error(y, yhat, sample_weight=weight)
    )
    assert ordframe.mse(y, yhat) == pytest.approx(skm.mean_squared_error(y, yhat))
    assert ordframe.qwk(y, yhat) == pytest.approx(skm.cohen_kappa_score(y, yhat, weights="quadratic"))


@settings(max_examples=40, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 4), st.integers(0, 4)), min_size=2, max_size=40),
    st.sampled_from(["list", "numpy", "series", "shuffled series"]),
)
def test_any_sequence_of_labels_gives_the_numpy_result(pairs, kind):
    y, yhat = (np.array(v) for v in zip(*pairs))
    if len(np.union1d(y, yhat)) < 2:
        return
    convert = {
        "list": lambda v: v.tolist(),
        "numpy": lambda v: v,
        "series": pd.Series,
        "shuffled series": lambda v: pd.Series(v, index=np.arange(len(v))[::-1] * 3),  # matched by position
    }[kind]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert same(ordframe.oc(convert(y), convert(yhat)), ordframe.oc(y, yhat))
        # with every class declared, index distances are the label differences
        mae = ordframe.mae(convert(y), convert(yhat), labels=range(5))
        assert same(mae, float(np.mean(np.abs(y - yhat))))


def test_series_are_matched_by_position_not_by_index():
    y = pd.Series([0, 1, 2, 2], index=[3, 2, 1, 0])
    yhat = pd.Series([0, 1, 2, 1], index=[0, 1, 2, 3])
    assert ordframe.accuracy(y, yhat) == 0.75


def test_a_one_dimensional_dataarray_is_a_vector():
    y, yhat, _, _ = sample()
    assert ordframe.oc(xr.DataArray(y, dims="obs"), xr.DataArray(yhat, dims="obs")) == ordframe.oc(y, yhat)


def test_labels_set_the_class_order_and_parameters_pass_through():
    y, yhat = ["low", "mid", "high", "high"], ["low", "high", "high", "mid"]
    order = ["low", "mid", "high"]
    assert ordframe.oc(y, yhat, labels=order) == ordframe.oc([0, 1, 2, 2], [0, 2, 2, 1])
    assert ordframe.oc(y, yhat, labels=order, beta=0.25) == ordframe.oc([0, 1, 2, 2], [0, 2, 2, 1], beta=0.25)
    assert ordframe.oc(y, yhat, labels=order, beta=0.25) != ordframe.oc(y, yhat, labels=order)
    with pytest.raises(TypeError, match="cannot tell the class order of 'y_true'"):
        ordframe.oc(y, yhat)


def test_polars_series_and_their_enum_order():
    pl = pytest.importorskip("polars")
    order = ["low", "mid", "high"]
    y = pl.Series(["low", "mid", "high", "high"], dtype=pl.Enum(order))
    yhat = pl.Series(["low", "high", "high", "mid"], dtype=pl.Enum(order))
    assert ordframe.oc(y, yhat) == ordframe.oc([0, 1, 2, 2], [0, 2, 2, 1])
    assert ordframe.mae(pl.Series([1, 2, 3]), pl.Series([1, 3, 3])) == pytest.approx(1 / 3)
    with_missing = pl.Series(["low", None, "high", "high"], dtype=pl.Enum(order))
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 1 of 4 rows"):
        assert ordframe.oc(with_missing, yhat, dropna=True) == ordframe.oc([0, 2, 2], [0, 2, 1], labels=[0, 1, 2])
    unordered = pl.Series(["low", "mid"], dtype=pl.Categorical)
    with pytest.raises(TypeError, match="cannot tell the class order"):
        ordframe.oc(unordered, unordered)
    assert ordframe.accuracy(unordered, unordered, labels=order) == 1.0
    proba = pl.DataFrame({"a": [0.7, 0.2], "b": [0.3, 0.8]})
    assert ordframe.rps(pl.Series([0, 1]), proba) == ordframe.rps([0, 1], proba.to_numpy())
    with pytest.raises(ValueError, match=r"column 'y_true' has 1 missing value\(s\)"):
        ordframe.mae(pl.Series([1, None, 3]), pl.Series([1, 3, 3]))


def test_errors_name_the_argument():
    with pytest.raises(ValueError, match=r"different numbers of samples \(y_true has 3, y_pred has 2\)"):
        ordframe.oc([0, 1, 2], [0, 1])
    with pytest.raises(ValueError, match=r"y_true has 2, y_pred has 2, sample_weight has 3"):
        ordframe.oc([0, 1], [0, 1], sample_weight=[1, 1, 1])
    with pytest.raises(ValueError, match=r"y_pred must be 1-D \(one value per sample\), got shape \(2, 2\)"):
        ordframe.oc([0, 1], [[0, 1], [1, 0]])
    with pytest.raises(TypeError, match="y_true must be one value per sample .* got set"):
        ordframe.oc({0, 1}, [0, 1])
    with pytest.raises(ValueError, match=r"column 'y_pred' has 1 missing value\(s\) .*, first at rows \[1\]"):
        ordframe.oc([0, 1, 2], [0, np.nan, 2])
    with pytest.raises(ValueError, match="weights 'sample_weight'"):
        ordframe.oc([0, 1], [0, 1], sample_weight=[1, -1])
    with pytest.raises(ValueError, match=r"y_proba must be 2-D .* got shape \(3,\); for two classes"):
        ordframe.rps([0, 1, 1], [0.2, 0.9, 0.6])
    with pytest.raises(TypeError, match="probability column 'y_proba\\[:, 1\\]' has dtype"):
        ordframe.rps([0, 1], pd.DataFrame({"p": [0.5, 0.5], "q": ["x", "y"]}), labels=[0, 1])
    with pytest.raises(TypeError, match=r"metric 'oc' got unknown parameter\(s\) \['bta'\]; its parameters are: beta"):
        ordframe.oc([0, 1], [0, 1], bta=0.2)


def test_dropna_drops_and_says_how_many():
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 1 of 4 rows with a missing value in 'y_pred'"):
        assert ordframe.accuracy([0, 1, 2, 2], [0, None, 2, 2], dropna=True) == 1.0


def test_an_undefined_value_is_nan_with_the_reason():
    with pytest.warns(RuntimeWarning, match="is undefined for this input and is NaN: there are no samples"):
        assert math.isnan(ordframe.accuracy([], [], labels=[0, 1]))


def test_a_function_has_the_metrics_signature_and_documentation():
    import inspect

    parameters = inspect.signature(ordframe.oc).parameters
    assert list(parameters) == ["y_true", "y_pred", "labels", "sample_weight", "dropna", "beta", "gamma"]
    assert ordframe.oc.__name__ == "oc" and "Cardoso" in ordframe.oc.__doc__
    assert list(inspect.signature(ordframe.rps).parameters)[:2] == ["y_true", "y_proba"]
    assert {"oc", "rps", "accuracy"} <= set(dir(ordframe))
    from ordframe import uoc  # a from-import finds it too

    assert uoc([0, 1, 2], [0, 1, 2]) == 0.0


def test_a_plugin_metric_gets_a_function_and_loses_it_when_unregistered(restore_registry):
    def within_one(counts):
        k = counts.shape[-1]
        near = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) <= 1
        return (counts * near).sum(axis=(-2, -1)) / counts.sum(axis=(-2, -1))

    class Plugin:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [ordframe.Metric("within_one", "confusion", within_one, True, (0.0, 1.0))]

    ordframe.register(Plugin(), name="within")
    assert ordframe.within_one([0, 1, 2, 3], [1, 1, 3, 0]) == 0.75
    ordframe.unregister("within")
    with pytest.raises(AttributeError, match="has no attribute 'within_one'"):
        ordframe.within_one  # noqa: B018


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="module 'ordframe' has no attribute 'not_a_metric'"):
        ordframe.not_a_metric  # noqa: B018
    assert not hasattr(ordframe, "_private")


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"weights": [1, 1, 1, 1]}, r"takes the weights as sample_weight="),
        ({"by": "y_true"}, r"gives one number and takes no \['by'\]; .*df.ordinal.mae\(..., by=\[...\]\)"),
        ({"observed": True}, r"takes no \['observed'\]"),
        ({"gamma": 2}, r"metric 'mae' got unknown parameter\(s\) \['gamma'\]"),
    ],
)
def test_only_the_metrics_own_parameters_are_taken(kwargs, match):
    with pytest.raises(TypeError, match=match):
        ordframe.mae([0, 1, 2, 1], [0, 2, 2, 1], **kwargs)
    with pytest.raises(TypeError, match=match.replace("mae", "rps")):
        ordframe.rps([0, 1, 2, 1], np.full((4, 3), 1 / 3), **kwargs)


def test_a_function_is_one_object_that_pickles():
    import pickle

    assert ordframe.oc is ordframe.oc
    assert pickle.loads(pickle.dumps(ordframe.oc)) is ordframe.oc
    assert ordframe.oc.__module__ == "ordframe"


def test_an_accessor_method_asked_of_the_module_says_where_it_is():
    with pytest.raises(AttributeError, match=r"evaluate is a method of the .ordinal accessor: df.ordinal.evaluate"):
        ordframe.evaluate  # noqa: B018


def test_messages_speak_of_the_functions_arguments():
    with pytest.raises(
        ValueError,
        match=r"^y_proba has 3 columns but column 'y_true' gives 2 classes \[0, 1\]; pass labels=\[...\] naming the class of each column, in order$",
    ):
        ordframe.rps([0, 1, 1], np.full((3, 3), 1 / 3))
    with pytest.raises(ValueError, match=r"sample_weight must be one value per sample .*, got the one value 2"):
        ordframe.mae([0, 1], [0, 1], sample_weight=2)


def test_a_probability_frame_named_by_the_classes_is_matched_by_name():
    from sklearn.linear_model import LogisticRegression

    rng, grades = np.random.default_rng(0), ["low", "mid", "high"]
    codes = rng.integers(0, 3, 300)
    X, y = (codes + rng.normal(0, 0.8, 300))[:, None], np.array(grades)[codes]
    model = LogisticRegression().fit(X, y)
    proba = pd.DataFrame(model.predict_proba(X), columns=model.classes_)
    assert list(proba.columns) == ["high", "low", "mid"]  # scikit-learn sorts classes_: not the ordinal order
    in_order = model.predict_proba(X)[:, [1, 2, 0]]  # the columns picked by hand
    for name in PROBA:
        function = getattr(ordframe, name)
        assert same(function(y, proba, labels=grades), function(y, in_order, labels=grades))
    assert ordframe.rps(y, proba.to_numpy(), labels=grades) > 2 * ordframe.rps(y, proba, labels=grades)


def test_integer_column_names_are_classes_and_pandas_default_names_are_none():
    y, _, proba, _ = sample(k=3)
    expected = ordframe.rps(y, proba)
    assert ordframe.rps(y, pd.DataFrame(proba[:, ::-1], columns=[2, 1, 0])) == expected
    assert (
        ordframe.rps(y, xr.DataArray(proba[:, ::-1], dims=("sample", "class"), coords={"class": [2, 1, 0]})) == expected
    )
    assert ordframe.rps(y, pd.DataFrame(proba, columns=[0, 1, 2]), labels=[0, 1, 2]) == expected
    assert ordframe.rps(y, pd.DataFrame(proba, columns=["p0", "p1", "p2"])) == expected  # other names: by position
    # pd.DataFrame(array) names its columns 0 .. K-1 itself: read by position, as the array, as scikit-learn does
    assert ordframe.rps(y + 1, pd.DataFrame(proba)) == ordframe.rps(y + 1, proba) == expected


@pytest.mark.parametrize(
    "columns, labels, match",
    [
        (
            ["low", "mid", "p_high"],
            ["low", "mid", "high"],
            r"column names \['low', 'mid'\] are classes and \['p_high'\] are not",
        ),
        (
            [0, 1, 2],
            None,
            r"\[1, 2\] are classes and \[0\] are not \(the classes are the values of y_true \[1, 2, 3\]\)",
        ),
        (["low", "mid", "mid"], ["low", "mid", "high"], r"y_proba has the column\(s\) \['mid'\] more than once"),
        (
            ["high", "low"],
            ["low", "mid", "high"],
            r"none is named \['mid'\] \(classes are labels= \['low', 'mid', 'high'\]\)",
        ),
    ],
)
def test_a_frame_named_partly_by_the_classes_is_an_error(columns, labels, match):
    y = [1, 2, 3] if labels is None else ["low", "mid", "high"]
    proba = pd.DataFrame(np.full((3, len(columns)), 1 / len(columns)), columns=columns)
    with pytest.raises(ValueError, match=match):
        ordframe.rps(y, proba, labels=labels)


def test_a_dict_of_probabilities_is_sent_to_the_accessors_or_a_frame():
    with pytest.raises(
        TypeError, match=r"got a dict: a dict label -> column is the accessors' proba= .*pandas.DataFrame"
    ):
        ordframe.rps(["a", "b"], {"a": [0.5, 0.5], "b": [0.5, 0.5]}, labels=["a", "b"])
    as_frame = pd.DataFrame({"b": [0.4, 0.5], "a": [0.6, 0.5]})  # what the message advises: matched by name
    assert ordframe.rps(["a", "b"], as_frame, labels=["a", "b"]) == ordframe.rps([0, 1], [[0.6, 0.4], [0.5, 0.5]])


def test_values_outside_the_classes_are_listed_without_the_categories_no_row_has():
    grades = pd.Categorical(["mid"], categories=["lo", "mid", "hi"], ordered=True)
    with pytest.raises(ValueError, match=r"1 value\(s\) outside the classes \['lo', 'hi'\]: 'mid' \(1 row\)\. Add"):
        ordframe.mae(grades, grades, labels=["lo", "hi"])
