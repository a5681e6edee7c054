"""Class order (docs/architecture.md, "Class order"): the four rules, the missing-label rule and their errors."""

import math
import sys
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe
from ordframe._inputs.classes import class_order, declared_order, labels_of, offset_of


def cube(df, **kwargs):
    return df.ordinal.confusion("y", "p", **kwargs)


def ordered(values, categories):
    return pd.Categorical(values, categories=categories, ordered=True)


# rule 1: labels=


def test_labels_give_the_order_including_unobserved_classes():
    df = pd.DataFrame({"y": ["lo", "hi", "lo"], "p": ["mid", "hi", "lo"]})
    result = cube(df, labels=["lo", "mid", "hi", "top"])
    assert list(result.true.values) == ["lo", "mid", "hi", "top"]
    assert list(result.pred.values) == ["lo", "mid", "hi", "top"]
    expected = np.zeros((4, 4), int)
    expected[0, 1] = expected[2, 2] = expected[0, 0] = 1
    np.testing.assert_array_equal(result.values, expected)


def test_labels_override_numeric_order():
    df = pd.DataFrame({"y": [1, 2, 3], "p": [3, 2, 1]})
    result = cube(df, labels=[3, 2, 1])
    assert list(result.true.values) == [3, 2, 1]
    np.testing.assert_array_equal(result.values, np.fliplr(np.eye(3, dtype=int)))


def test_labels_override_categorical_order():
    df = pd.DataFrame({"y": ordered(["a", "b"], ["a", "b"]), "p": ordered(["b", "b"], ["a", "b"])})
    result = cube(df, labels=["b", "a"])
    assert list(result.true.values) == ["b", "a"]
    np.testing.assert_array_equal(result.values, [[1, 0], [1, 0]])


def test_values_outside_labels_are_listed_with_counts():
    df = pd.DataFrame({"y": ["a", "b", "a", "b"], "p": ["a", "x", "x", "zz"]})
    with pytest.raises(ValueError) as info:
        cube(df, labels=["a", "b"])
    message = str(info.value)
    assert "'p'" in message
    assert "'x' (2 rows)" in message and "'zz' (1 row)" in message
    assert "3 value(s)" in message and "labels=" in message


def test_numeric_values_outside_labels_are_listed():
    df = pd.DataFrame({"y": [1, 2, 7, 7, 9], "p": [1, 2, 2, 1, 1]})
    with pytest.raises(ValueError, match=r"'y'.*7 \(2 rows\), 9 \(1 row\)"):
        cube(df, labels=[1, 2])


def test_duplicate_labels_are_an_error_naming_the_value():
    df = pd.DataFrame({"y": ["a", "b"], "p": ["a", "b"]})
    with pytest.raises(ValueError, match=r"labels= lists 'b' more than once"):
        cube(df, labels=["a", "b", "c", "b"])


def test_missing_value_in_labels_is_an_error():
    df = pd.DataFrame({"y": [1.0, 2.0], "p": [1.0, 2.0]})
    with pytest.raises(ValueError, match="labels= contains a missing value"):
        cube(df, labels=[1.0, np.nan, 2.0])


# rule 2: ordered Categorical


def test_ordered_categorical_gives_its_categories_including_unobserved():
    cats = ["low", "medium", "high", "critical"]
    df = pd.DataFrame({"y": ordered(["high", "low"], cats), "p": ordered(["medium", "low"], cats)})
    result = cube(df)
    assert list(result.true.values) == cats
    assert result.sel(true="high", pred="medium").item() == 1
    assert result.sel(true="low", pred="low").item() == 1
    assert int(result.sum()) == 2


def test_one_ordered_categorical_orders_a_plain_column():
    df = pd.DataFrame({"y": ordered(["c", "a"], ["c", "b", "a"]), "p": ["b", "a"]})
    result = cube(df)
    assert list(result.true.values) == ["c", "b", "a"]
    np.testing.assert_array_equal(result.values, [[0, 1, 0], [0, 0, 0], [0, 0, 1]])


def test_plain_column_value_outside_the_categories_is_an_error():
    df = pd.DataFrame({"y": ordered(["c", "a"], ["c", "b", "a"]), "p": ["b", "q"]})
    with pytest.raises(ValueError, match=r"column 'p' has 1 value\(s\) outside.*'q' \(1 row\)"):
        cube(df)


def test_two_ordered_categoricals_with_different_categories_are_an_error():
    df = pd.DataFrame({"y": ordered(["a"], ["a", "b", "c"]), "p": ordered(["a"], ["a", "c", "b"])})
    with pytest.raises(ValueError) as info:
        cube(df)
    message = str(info.value)
    assert "'y'" in message and "'p'" in message and "different categories" in message
    assert "labels=" in message


# rule 3: numeric and boolean labels


@pytest.mark.filterwarnings("ignore::ordframe.LabelWarning")  # predicted values no true label has, on purpose
def test_numeric_labels_are_the_sorted_union_of_true_and_pred():
    df = pd.DataFrame({"y": [10, 2, 2], "p": [1, 2, 10]})
    result = cube(df)
    assert list(result.true.values) == [1, 2, 10]
    np.testing.assert_array_equal(result.values, [[0, 0, 0], [0, 1, 1], [1, 0, 0]])


def test_labels_1_2_10_are_three_adjacent_classes():
    df = pd.DataFrame({"y": [1, 2, 10], "p": [2, 10, 1]})
    assert df.ordinal.mae("y", "p") == pytest.approx((1 + 1 + 2) / 3)
    assert df.ordinal.mse("y", "p") == pytest.approx((1 + 1 + 4) / 3)


@pytest.mark.filterwarnings("ignore::ordframe.LabelWarning")  # predicted values no true label has, on purpose
def test_int_and_float_columns_share_one_order():
    df = pd.DataFrame({"y": [1, 3, 3], "p": [1.0, 2.5, 3.0]})
    result = cube(df)
    np.testing.assert_array_equal(result.true.values, [1.0, 2.5, 3.0])
    np.testing.assert_array_equal(result.values, [[1, 0, 0], [0, 0, 0], [0, 1, 1]])


def test_boolean_labels_are_ordered_false_true():
    df = pd.DataFrame({"y": [True, False, False], "p": [True, True, False]})
    result = cube(df)
    assert list(result.true.values) == [False, True]
    np.testing.assert_array_equal(result.values, [[1, 1], [0, 1]])


def test_nullable_integer_labels_are_numeric():
    df = pd.DataFrame({"y": pd.array([1, 3, 2], dtype="Int64"), "p": [1, 2, 2]})
    result = cube(df)
    assert list(result.true.values) == [1, 2, 3]
    np.testing.assert_array_equal(result.values, [[1, 0, 0], [0, 1, 0], [0, 1, 0]])


# rule 4: no order can be inferred


@pytest.mark.parametrize(
    "y",
    [
        pytest.param(["a", "b", "c"], id="strings"),
        pytest.param(pd.Categorical(["a", "b", "c"]), id="unordered-categorical"),
        pytest.param(pd.Categorical([1, 2, 3]), id="unordered-numeric-categorical"),
        pytest.param(pd.array(["a", "b", "c"], dtype="string"), id="string-dtype"),
        pytest.param([1, "b", 2.0], id="mixed"),
    ],
)
def test_unorderable_labels_ask_for_labels_or_an_ordered_categorical(y):
    df = pd.DataFrame({"y": y, "p": [1, 2, 3]})
    with pytest.raises(TypeError) as info:
        cube(df)
    message = str(info.value)
    assert "'y'" in message
    assert "labels=" in message and "ordered Categorical" in message


def test_strings_work_with_labels():
    df = pd.DataFrame({"y": ["b", "a"], "p": ["b", "b"]})
    np.testing.assert_array_equal(cube(df, labels=["a", "b"]).values, [[0, 1], [0, 1]])


# Strings that share their first or last 8 bytes, their length, or a prefix; empty, non-ASCII, missing, unknown.
TEXTS = ["", "a", "lo", "low", "medium", "very_hig", "very_high", "strongly agree", "strongly disagree"]
TEXTS += ["category_10_abcdefgh_1", "category_10_abcdefgh_2", "ünï", "ünïcode ünïcode"]
STRANGERS = ["lo ", "very_hi", "categoryX10_abcdefgh_1", "strongly agreE", "ünïcode ünïcodE"]


def arrow_strings(kind, values):
    pa = pytest.importorskip("pyarrow")
    if kind == "chunked and sliced":
        chunks = [pa.array(values[:40], pa.string()), pa.array(values[40:], pa.string())]
        return pd.Series(pd.arrays.ArrowExtensionArray(pa.chunked_array(chunks).slice(1)))
    return pd.Series(values, dtype=kind if kind == "str" else pd.ArrowDtype(kind()))


def coder(monkeypatch, compiled: bool) -> None:
    """The compiled string coder at every size (skipped without numba), or pyarrow's lookup at every size."""
    from ordframe._core import compiling, options

    if compiled and not options.COMPILED:
        pytest.skip("numba absent, or turned off by ORDFRAME_NUMBA=0")
    monkeypatch.setattr(compiling, "SPENT", {})
    monkeypatch.setattr(compiling, "COMPILED_SECONDS", 0 if compiled else math.inf)


@pytest.mark.parametrize("kind", ["str", "string", "large_string", "chunked and sliced"])
@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.compiled)])
def test_arrow_strings_are_coded_as_their_python_objects(kind, compiled, monkeypatch):
    """Arrow strings are looked up in their buffers (compiled once pyarrow's lookups have paid for it, else by
    pyarrow): the codes, missing values and unknown values of a lookup of the Python strings."""
    from ordframe._inputs import classes

    coder(monkeypatch, compiled)
    kind = getattr(pytest.importorskip("pyarrow"), kind, kind)
    values = list(np.random.default_rng(1).choice(TEXTS + STRANGERS, 300))
    values[7] = values[150] = None
    series = arrow_strings(kind, values)
    order = pd.Index([*TEXTS, *STRANGERS[:2], 1, 2.5])
    column = labels_of("y", series)
    codes = classes._arrow_string_codes(column, order, np.int8)
    missing = series.isna().to_numpy()
    np.testing.assert_array_equal(column.missing, missing)
    expected = order.get_indexer(pd.Index(series.astype(object), dtype=object))
    np.testing.assert_array_equal(np.where(missing, -1, codes), np.where(missing, -1, expected))


def test_pyarrow_looks_strings_up_until_what_it_would_take_has_paid_for_the_compiled_coder(monkeypatch):
    """pyarrow's lookup is charged what a column would take it (``STRING_SECONDS`` per row); once that reaches
    ``COMPILED_SECONDS`` the compiled coder runs, from then on at every size, with the same codes."""
    from ordframe._core import compiling, options
    from ordframe._inputs import classes

    pa = pytest.importorskip("pyarrow")
    monkeypatch.setattr(compiling, "SPENT", {})
    monkeypatch.setattr(compiling, "COMPILED_SECONDS", 1.0)
    monkeypatch.setattr(classes, "STRING_SECONDS", 1e-3)
    order = pd.Index(TEXTS)
    series = arrow_strings(pa.string, list(np.random.default_rng(2).choice(TEXTS, 300)))
    expected = order.get_indexer(pd.Index(series.astype(object), dtype=object))
    for spent in (0.3, 0.6, 0.9, math.inf if options.COMPILED else 1.2):
        np.testing.assert_array_equal(classes._arrow_string_codes(labels_of("y", series), order, np.int8), expected)
        assert compiling.SPENT[classes._code_strings] == pytest.approx(spent)


def test_strings_the_compiled_lookup_cannot_tell_apart_are_looked_up_by_pyarrow():
    """Two classes of one length whose first and last 8 bytes agree have one key: no perfect hash."""
    from ordframe._inputs import classes

    twins = ((0, b"category_1_xyz_1234567"), (1, b"category_2_xyz_1234567"))
    assert classes._string_lookup(twins) is None
    assert classes._string_lookup(twins[:1]) is not None or not sys.byteorder == "little"


@pytest.mark.parametrize("compiled", [False, pytest.param(True, marks=pytest.mark.compiled)])
def test_errors_about_arrow_strings_are_those_of_python_strings(compiled, monkeypatch):

    coder(monkeypatch, compiled)
    pa = pytest.importorskip("pyarrow")
    messages = []
    for dtype in (object, pd.ArrowDtype(pa.string())):
        for p in (["lo", "mid", None, "top"], ["lo", "hi", None, "hi"]):
            rows = [10, 11, 12, 13]
            df = pd.DataFrame({"y": pd.Series(["lo", "hi", "lo", "hi"], rows, dtype), "p": pd.Series(p, rows, dtype)})
            with pytest.raises(ValueError) as info:
                cube(df, labels=["lo", "hi"])
            messages.append(str(info.value))
    assert messages[:2] == messages[2:]
    assert "column 'p' has 2 value(s) outside the classes" in messages[0] and "'mid' (1 row)" in messages[0]
    assert "column 'p' has 1 missing value(s)" in messages[1] and "[12]" in messages[1]


# fewer than two classes


@pytest.mark.parametrize(
    "df, kwargs",
    [
        pytest.param(pd.DataFrame({"y": [4, 4], "p": [4, 4]}), {}, id="one-observed"),
        pytest.param(pd.DataFrame({"y": ["a"], "p": ["a"]}), {"labels": ["a"]}, id="one-label"),
        pytest.param(pd.DataFrame({"y": ordered(["a"], ["a"]), "p": ordered(["a"], ["a"])}), {}, id="one-category"),
        pytest.param(pd.DataFrame({"y": pd.Series([], dtype=int), "p": pd.Series([], dtype=int)}), {}, id="no-rows"),
    ],
)
def test_fewer_than_two_classes_is_an_error(df, kwargs):
    with pytest.raises(ValueError, match="at least two classes"):
        cube(df, **kwargs)


def test_array_labels_with_one_class_are_an_error():
    a = xr.DataArray([3, 3, 3], dims="s")
    with pytest.raises(ValueError, match="at least two classes"):
        a.ordinal.confusion(a)


# missing labels


@pytest.mark.parametrize(
    "y, p, labels",
    [
        pytest.param([1, 2, 1, 2], [1.0, np.nan, 2.0, np.nan], None, id="nan"),
        pytest.param(["a"] * 4, ["a", None, "b", None], ["a", "b"], id="none"),
        pytest.param([1, 2, 1, 2], pd.array([1, pd.NA, 2, pd.NA], dtype="Int64"), None, id="NA"),
        pytest.param(
            ordered(list("abab"), ["a", "b"]), ordered(["a", None, "b", None], ["a", "b"]), None, id="categorical"
        ),
    ],
)
def test_missing_labels_are_an_error_naming_column_count_and_rows(y, p, labels):
    df = pd.DataFrame({"y": y, "p": p}, index=[10, 11, 12, 13])
    with pytest.raises(ValueError) as info:
        cube(df, labels=labels)
    message = str(info.value)
    assert "column 'p' has 2 missing value(s)" in message
    assert "[11, 13]" in message and "dropna=True" in message


def test_missing_in_a_group_column_is_an_error():
    df = pd.DataFrame({"y": [1, 2], "p": [1, 2], "g": ["x", None]})
    with pytest.raises(ValueError, match=r"column 'g' has 1 missing value\(s\)"):
        df.ordinal.confusion("y", "p", by="g")


def test_dropna_drops_rows_and_reports_the_count():
    df = pd.DataFrame({"y": [1.0, np.nan, 2.0, 3.0, 1.0], "p": [1, 2, 2, None, 1], "g": ["a", "a", "b", "b", None]})
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 3 of 5 rows"):
        result = df.ordinal.confusion("y", "p", by="g", dropna=True)
    assert int(result.sum()) == 2
    assert list(result.true.values) == [1.0, 2.0]  # the class 3 row was dropped before the order was taken


def test_dropna_without_missing_values_does_not_warn():
    df = pd.DataFrame({"y": [1, 2], "p": [2, 1]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert int(cube(df, dropna=True).sum()) == 2


def test_dropna_on_label_arrays():
    t = xr.DataArray([1.0, np.nan, 2.0], dims="s")
    p = xr.DataArray([1.0, 1.0, np.nan], dims="s")
    with pytest.raises(ValueError, match=r"'true' has 1 missing"):
        p.ordinal.confusion(t)
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 2 of 3 samples"):
        result = p.ordinal.confusion(t, dropna=True)
    np.testing.assert_array_equal(result.values, [[1, 0], [0, 0]])


# class_order directly


def test_class_order_rule_precedence():
    cats = ordered(["b"], ["b", "a"])
    y = labels_of("y", pd.Series(cats))
    assert list(class_order([y], labels=["a", "b"])) == ["a", "b"]
    assert list(class_order([y, labels_of("p", pd.Series(["a"]))])) == ["b", "a"]
    assert list(class_order([labels_of("y", pd.Series([3, 1])), labels_of("p", pd.Series([2.0]))])) == [1, 2, 3]


def test_booleans_outside_the_classes_are_shown_as_booleans():
    df = pd.DataFrame({"y": [True, False, True], "yhat": [False, False, True]})
    with pytest.raises(ValueError, match=r"outside the classes \['False', 'True'\]: True \(2 rows\), False \(1 row\)"):
        df.ordinal.mae("y", "yhat", labels=["False", "True"])


def test_messages_say_what_is_wrong_with_a_numeric_unordered_categorical_and_a_series_as_by():
    """Review round 3's wording: numbers in an unordered Categorical are not 'not numeric'; a Series of group
    values is not an unordered collection of names."""
    numbers = pd.DataFrame({"y": pd.Categorical([1, 2, 3, 1]), "p": pd.Categorical([1, 2, 2, 3])})
    with pytest.raises(TypeError, match="an unordered Categorical has no order, even with numbers for categories"):
        numbers.ordinal.mae("y", "p")
    with pytest.raises(TypeError, match=r"by= names columns .* got a pandas Series of values: add it as a column"):
        numbers.astype(int).ordinal.mae("y", "p", by=pd.Series(list("aabb")))


def test_declared_order_accepts_single_values_only():
    """``labels=`` holds single values: ints, floats, strings, booleans (and numpy's) in the order given, from a
    range, list, tuple or array; a nested value (a list, an array, a set, a dict) is refused, whatever its type."""
    assert list(declared_order(range(5))) == [0, 1, 2, 3, 4]
    assert list(declared_order([2.5, 1.5])) == [2.5, 1.5] and list(declared_order(("b", "a"))) == ["b", "a"]
    assert list(declared_order([False, True])) == [False, True]
    assert list(declared_order([np.int64(3), np.float32(1)])) == [3, 1]
    for nested in ([[0], [1]], [0, np.array([1, 2])], [0, {1}], [{0: 1}, 2], [0, (1, 2)]):
        with pytest.raises(TypeError, match="single values"):
            declared_order(nested)


@pytest.mark.parametrize(
    ("classes", "offset"),
    [([3, 4, 5], 3), (range(2, 6), 2), ([0, 2, 1], None), ([0, 1, 3], None), ([5, 4, 3], None), ([2, 4], None)],
)
def test_integer_labels_are_their_own_codes_only_over_consecutive_classes(classes, offset):
    """Labels serve as codes (``label - offset``) only where the classes are consecutive integers in increasing
    order; the codes are then those of the classes' positions either way."""
    labels = labels_of("y", np.array(classes)[[0, 1, -1, 1]])
    order = pd.Index(classes)
    assert offset_of(labels, order) == offset
    frame = pd.DataFrame({"y": labels.values, "yhat": labels.values[::-1]})
    cube = frame.ordinal.confusion("y", "yhat", labels=list(classes))
    expected = pd.crosstab(frame["y"], frame["yhat"]).reindex(index=list(classes), columns=list(classes), fill_value=0)
    np.testing.assert_array_equal(cube.values, expected.values)
