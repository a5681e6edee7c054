"""The ``.ordinal`` namespace of polars DataFrames and LazyFrames gives what the pandas accessor gives."""

import math
import re
import subprocess
import sys
import warnings
from functools import partial

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe  # noqa: F401  (registers the namespace)

pl = pytest.importorskip("polars")
pytest.importorskip("pyarrow")  # polars' own to_pandas, the reference

GRADES = ["none", "mild", "moderate", "severe"]


@st.composite
def frames(draw):
    n = draw(st.integers(2, 40))
    kind = draw(st.sampled_from(["enum", "int", "str", "int with nulls"]))
    codes = draw(st.lists(st.integers(0, 3), min_size=2 * n, max_size=2 * n))
    y, yhat = codes[:n], codes[n:]
    if kind == "enum":
        columns = {"y": pl.Series([GRADES[c] for c in y], dtype=pl.Enum(GRADES))}
        columns["yhat"] = pl.Series([GRADES[c] for c in yhat], dtype=pl.Enum(GRADES))
    elif kind == "str":
        columns = {"y": pl.Series([GRADES[c] for c in y]), "yhat": pl.Series([GRADES[c] for c in yhat])}
    else:
        nulls = draw(st.sets(st.integers(0, n - 1), max_size=3)) if kind == "int with nulls" else set()
        columns = {"y": pl.Series([None if i in nulls else c for i, c in enumerate(y)], dtype=pl.Int64)}
        columns["yhat"] = pl.Series(yhat, dtype=pl.Int64)
    by = draw(st.sampled_from(["int", "str", "enum", None]))
    groups = draw(st.lists(st.integers(0, 2), min_size=n, max_size=n))
    if by == "int":
        columns["g"] = pl.Series(groups, dtype=pl.Int32)
    elif by == "str":
        columns["g"] = pl.Series([["b", "a", "c"][g] for g in groups])
    elif by == "enum":
        columns["g"] = pl.Series([["b", "a", "c"][g] for g in groups], dtype=pl.Enum(["c", "b", "a"]))
    columns["w"] = pl.Series(draw(st.lists(st.floats(0.1, 3.0), min_size=n, max_size=n)))
    labels = GRADES if kind == "str" else None
    return pl.DataFrame(columns), ("g" if by else None), labels


def outcome(func, *args):
    """The result of ``func(*args)``, or the type and message of its error."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return func(*args)
        except (ValueError, TypeError, KeyError) as exc:
            return type(exc), str(exc)


def check_same(got, expected):
    if isinstance(expected, tuple):
        assert got == expected
    elif isinstance(expected, float):
        assert got == pytest.approx(expected, nan_ok=True, rel=1e-12)
    else:
        xr.testing.assert_allclose(got, expected)
        assert list(got.coords) == list(expected.coords)


@settings(max_examples=60, deadline=None)
@given(frames(), st.booleans(), st.booleans(), st.booleans())
def test_every_result_and_error_is_the_pandas_one(case, lazy, dropna, weighted):
    frame, by, labels = case
    df = frame.to_pandas()
    source = frame.lazy() if lazy else frame
    kwargs = {"by": by, "labels": labels, "dropna": dropna, "weights": "w" if weighted else None}
    calls = {
        "confusion": lambda acc: acc.confusion("y", "yhat", **kwargs),
        "oc": lambda acc: acc.oc("y", "yhat", **kwargs),
        "evaluate": lambda acc: acc.evaluate("y", "yhat", metrics=["mae", "uoc"], **kwargs),
    }
    for call in calls.values():
        check_same(outcome(call, source.ordinal), outcome(call, df.ordinal))


def test_probability_columns_and_a_polars_series_argument():
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(3), 50)
    y = rng.integers(0, 3, 50)
    frame = pl.DataFrame({"y": y, **{f"p{k}": proba[:, k] for k in range(3)}})
    df = frame.to_pandas()
    columns = ["p0", "p1", "p2"]
    assert frame.ordinal.rps("y", columns) == df.ordinal.rps("y", columns)
    xr.testing.assert_allclose(
        frame.lazy().ordinal.evaluate("y", proba=columns), df.ordinal.evaluate("y", proba=columns)
    )
    pred = pl.Series(np.clip(y + 1, 0, 2))
    assert frame.ordinal.mae("y", pred) == df.ordinal.mae("y", pred.to_numpy())


def test_a_lazy_frame_computes_only_the_columns_it_needs():
    def boom(value):
        raise AssertionError("a column that the call does not name was computed")

    lazy = pl.LazyFrame({"y": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]}).with_columns(
        unused=pl.col("y").map_elements(boom, return_dtype=pl.Int64)
    )
    assert lazy.ordinal.accuracy("y", "yhat") == 0.5


def test_an_absent_column_is_named_with_every_column_of_the_frame():
    frame = pl.DataFrame({"y": [0, 1], "yhat": [0, 1], "extra": [1, 2]})
    with pytest.raises(
        KeyError, match=r"pred column 'yy' is not in the DataFrame; its columns are \['y', 'yhat', 'extra'\]"
    ):
        frame.ordinal.oc("y", "yy")
    with pytest.raises(AttributeError, match="has no method or metric 'occ'; did you mean 'oc'"):
        frame.ordinal.occ  # noqa: B018


@pytest.mark.slow
def test_the_namespace_registers_when_polars_is_imported_after_ordframe():
    code = (
        "import sys, ordframe\n"
        "assert 'polars' not in sys.modules\n"
        "import polars as pl\n"
        "print(pl.DataFrame({'y': [0, 1, 1], 'yhat': [0, 1, 0]}).ordinal.accuracy('y', 'yhat'))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert float(out.stdout) == pytest.approx(2 / 3)


def test_a_categorical_has_no_order_but_labels_give_one():
    frame = pl.DataFrame({"y": ["b", "a"], "yhat": ["a", "a"]}, schema={"y": pl.Categorical, "yhat": pl.Categorical})
    with pytest.raises(TypeError, match="cannot tell the class order"):
        frame.ordinal.oc("y", "yhat")
    assert frame.ordinal.accuracy("y", "yhat", labels=["a", "b"]) == 0.5


@pytest.mark.parametrize("lazy", [False, True])
def test_inference_methods_take_the_columns_their_defaults_name(lazy):
    """``model="model"`` by default: the model column is taken although no argument names it."""
    import polars as pl

    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 80)
    parts = [
        pl.DataFrame({"s": np.arange(80), "y": y, "yhat": np.clip(y + rng.integers(-1, 2, 80), 0, 2), "model": m})
        for m in "ab"
    ]
    frame = pl.concat(parts)
    pandas = frame.to_pandas()
    polars = frame.lazy() if lazy else frame
    kwargs = {"sample": "s", "metrics": ["mae", "oc"], "n_resamples": 200, "seed": 0}
    xr.testing.assert_identical(
        polars.ordinal.compare("y", "yhat", **kwargs), pandas.ordinal.compare("y", "yhat", **kwargs)
    )
    xr.testing.assert_identical(
        polars.ordinal.ci("y", "yhat", by="model", **kwargs), pandas.ordinal.ci("y", "yhat", by="model", **kwargs)
    )
    xr.testing.assert_identical(
        polars.ordinal.bootstrap("y", "yhat", sample="s", n_resamples=50, seed=1),
        pandas.ordinal.bootstrap("y", "yhat", sample="s", n_resamples=50, seed=1),
    )


@pytest.mark.parametrize("categories", [5, 126, 127, 200, 300])
def test_an_enum_of_any_size_gives_the_pandas_cube_and_small_ones_are_not_copied(categories):
    """polars holds an Enum's codes unsigned (UInt8 up to 256 categories): pandas' signed codes are the same
    bytes, taken as they are where pandas' signed codes have the same width; the others are converted."""
    from ordframe._inputs.polars_frame import pandas_series

    rng = np.random.default_rng(categories)
    names = [f"c{i:03d}" for i in range(categories)]
    grades = pl.Enum(names)
    codes = rng.integers(0, categories, (2, 500))
    codes[:, :2] = [[0, categories - 1], [categories - 1, 0]]  # the first and the last category occur
    frame = pl.DataFrame({"y": np.array(names)[codes[0]], "yhat": np.array(names)[codes[1]]}).cast(grades)
    np.testing.assert_array_equal(pandas_series(frame["y"]).cat.codes.to_numpy(), codes[0])
    xr.testing.assert_equal(frame.ordinal.confusion("y", "yhat"), frame.to_pandas().ordinal.confusion("y", "yhat"))
    physical = frame["y"].to_physical().to_numpy()
    same_width = categories < 127 or physical.dtype == np.uint16  # pandas' int8 below 127 categories, then int16
    assert np.shares_memory(pandas_series(frame["y"]).array.codes, physical) == same_width


def test_a_lazy_frame_is_collected_once_per_call():
    computed = []

    def seen(value):
        computed.append(value)
        return value

    lazy = pl.LazyFrame({"y0": [0, 1, 2, 2], "yhat": [0, 2, 2, 1]}).with_columns(
        y=pl.col("y0").map_elements(seen, return_dtype=pl.Int64)
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # polars' advice against map_elements
        result = lazy.ordinal.evaluate("y", "yhat", metrics=["accuracy", "oc", "mae"])
    assert float(result.accuracy) == 0.5
    assert len(computed) == 4  # each row once: one collect


def test_integers_with_nulls_stay_integer_classes():
    frame = pl.DataFrame({"y": [0, 1, None, 2, 0, 2], "yhat": [0, 2, 1, None, 1, 2]})
    with pytest.warns(ordframe.DroppedRowsWarning):
        cube = frame.ordinal.confusion("y", "yhat", dropna=True)
    assert cube["true"].values.tolist() == [0, 1, 2] and cube["true"].dtype.kind == "i"


def test_a_polars_object_that_is_not_a_series_is_refused_by_name():
    frame = pl.DataFrame({"y": [0, 1, 2], "yhat": [0, 2, 2]})
    with pytest.raises(TypeError, match=r"argument 1 must be one value per row .* got a polars Expr; pass the column"):
        frame.ordinal.mae(pl.col("y"), "yhat")
    with pytest.raises(TypeError, match=r"y_true must be one value per row .* got a polars DataFrame"):
        ordframe.mae(frame, [0, 1, 2])


def test_a_series_of_another_length_is_said_in_rows_not_index_labels():
    frame = pl.DataFrame({"y": [0, 1, 2], "yhat": [0, 1, 1]})
    with pytest.raises(
        ValueError, match=r"the pred Series has 2 values for the DataFrame's 3 rows; give one value per row"
    ):
        frame.ordinal.mae("y", pl.Series([0, 1]))


@pytest.mark.parametrize(
    "column", [pl.Series("y", [{"a": 0}, {"a": 1}]), pl.Series("y", [[0], [1]]), pl.Series("y", [0, 1], pl.Int128)]
)
def test_a_column_that_is_not_one_number_per_row_is_named_with_its_dtype(column):
    frame = pl.DataFrame({"y": column, "yhat": [0, 1]})
    dtype = re.escape(str(column.dtype))
    with pytest.raises(TypeError, match=rf"^column 'y' has polars dtype {dtype}, which"):
        frame.ordinal.mae("y", "yhat")
    with pytest.raises(TypeError, match=rf"^y_true has polars dtype {dtype}, which"):
        ordframe.mae(column, [0, 1])


def test_a_probability_frame_named_by_the_classes_is_matched_by_name():
    rng = np.random.default_rng(1)
    proba, y = rng.dirichlet(np.ones(3), 20), rng.integers(0, 3, 20)
    expected = ordframe.rps(y, proba)
    assert ordframe.rps(y, pl.DataFrame(proba[:, ::-1], schema=["2", "1", "0"])) == expected  # names are text
    grades = ["low", "mid", "high"]
    sorted_names = pl.DataFrame(proba[:, [2, 0, 1]], schema=["high", "low", "mid"]).lazy()
    assert ordframe.rps(np.array(grades)[y], sorted_names, labels=grades) == expected
    assert ordframe.rps(y, pl.DataFrame(proba)) == expected  # polars' own names, column_0 ...: by position


@pytest.mark.parametrize("dtype", [pl.String, pl.Categorical])
def test_strings_arrive_as_arrow_strings_and_as_python_ones_without_pyarrow(dtype, monkeypatch):
    """polars' strings are coded from arrow's buffers, not one Python object per row; the results and errors
    are the same either way, missing values included."""
    from ordframe._inputs import polars_frame
    from ordframe._inputs.polars_frame import pandas_series

    frame = pl.DataFrame({"y": ["none", "mild", None, "severe"], "yhat": ["mild", "mild", "none", "odd"]})
    frame = frame.cast(dtype)
    assert isinstance(pandas_series(frame["y"]).array, pd.arrays.ArrowExtensionArray)
    fixed = frame.with_columns(pl.col("yhat").cast(pl.String).replace("odd", "severe").cast(dtype))

    def outcomes():
        with pytest.warns(ordframe.DroppedRowsWarning):
            cube = fixed.ordinal.confusion("y", "yhat", labels=GRADES, dropna=True)
        with pytest.raises(ValueError, match=r"column 'yhat' has 1 value\(s\) outside the classes .*'odd' \(1 row\)"):
            frame.ordinal.mae("y", "yhat", labels=GRADES, dropna=True)
        return cube

    arrow = outcomes()
    with monkeypatch.context() as patch:
        patch.setitem(sys.modules, "pyarrow", None)  # any import of pyarrow raises ImportError
        assert polars_frame.arrow_strings(frame["y"].cast(pl.String)) is None
        assert polars_frame.declared_labels(fixed["y"], pd.CategoricalDtype(GRADES, ordered=True)) is None
    monkeypatch.setattr(polars_frame, "arrow_strings", lambda series: None)
    monkeypatch.setattr(polars_frame, "declared_labels", lambda series, order: None)
    xr.testing.assert_identical(outcomes(), arrow)
    assert arrow.sum().item() == 3


# Strings that share their first 4 or 8 bytes, their length or a prefix; empty, inline (<= 12 bytes) or not, non-ASCII.
TEXTS = ["", "a", "lo", "low", "medium", "very_hig", "very_high", "abcdefghijkl", "abcdefghijklm", "strongly agree"]
TEXTS += ["strongly disagree", "category_10_abcdefgh_1", "category_10_abcdefgh_2", "ünï", "ünïcode ünïcode"]
STRANGERS = ["lo ", "very_hi", "abcdefghijkL", "strongly agreE", "category_10_abcdefgh_3", "ünïcode ünïcodE"]


def string_column(values, layout):
    """A polars String Series of ``values`` as one chunk, a slice, or several chunks (a slice of them)."""
    series = pl.Series("y", values, dtype=pl.String)
    if layout == "sliced":
        return pl.Series("y", ["x", *values, "y"], dtype=pl.String).slice(1, len(values))
    if layout == "chunked":
        parts = [pl.Series("y", ["x", *values[:40]]), pl.Series("y", values[40:]), pl.Series("y", values[:0])]
        return pl.concat(parts, rechunk=False).slice(1)
    return series


@pytest.fixture(params=[pytest.param("compiled", marks=pytest.mark.compiled), "pyarrow", "numpy only"])
def coder(request, monkeypatch):
    """The string lookup that runs: compiled over the buffers, pyarrow's (small inputs), or without numba."""
    from ordframe._core import compiling, options

    if request.param == "compiled" and not options.COMPILED:
        pytest.skip("numba absent, or turned off by ORDFRAME_NUMBA=0")
    monkeypatch.setattr(compiling, "SPENT", {})
    monkeypatch.setattr(compiling, "COMPILED_SECONDS", 0 if request.param == "compiled" else math.inf)
    if request.param == "numpy only":
        monkeypatch.setattr(options, "COMPILED", False)
    return request.param


@pytest.mark.parametrize("layout", ["one chunk", "sliced", "chunked"])
def test_string_labels_are_coded_from_polars_views_as_pandas_codes_them(layout, coder):
    """A String label column with ``labels=`` is read from polars' string views as the ordered Categorical
    of the classes: the codes of a lookup of the Python strings, and of pandas' path, missing values -1."""
    from ordframe._inputs import classes
    from ordframe._inputs.polars_frame import declared_labels, pandas_series

    values = list(np.random.default_rng(2).choice(TEXTS, 90))
    values[5] = values[60] = None
    series = string_column(values, layout)
    assert series.n_chunks() == (2 if layout == "chunked" else 1)
    order = pd.Index([*TEXTS, 1])
    declared = declared_labels(series, pd.CategoricalDtype(order, ordered=True))
    assert declared.dtype == pd.CategoricalDtype(order, ordered=True) and declared.name == "y"
    expected = order.get_indexer(pd.Index(values, dtype=object))
    np.testing.assert_array_equal(declared.cat.codes, expected)
    pandas_path = classes.encode(classes.labels_of("y", pandas_series(series)), order)
    np.testing.assert_array_equal(declared.cat.codes, pandas_path)
    assert (
        declared_labels(series, pd.CategoricalDtype(order[:-2], ordered=True)) is None
    )  # a value outside the classes: the front end names it


def test_string_labels_outside_the_classes_and_missing_are_the_pandas_errors(coder):
    from ordframe._inputs.polars_frame import pandas_frame

    values = ["low", "very_high", None, "strongly agreE", "strongly agreE", "ünïcode ünïcodE"]
    frame = pl.DataFrame({"y": values, "yhat": ["low"] * 6})
    df = frame.to_pandas()
    for dropna in (False, True):
        kwargs = {"labels": ["low", "very_high", "strongly agree"], "dropna": dropna}
        check_same(
            outcome(partial(frame.ordinal.mae, **kwargs), "y", "yhat"),
            outcome(partial(df.ordinal.mae, **kwargs), "y", "yhat"),
        )
    error = outcome(lambda: frame.ordinal.mae("y", "yhat", labels=["low", "very_high", "strongly agree"], dropna=True))
    assert "column 'y' has 3 value(s) outside the classes" in error[1] and "'strongly agreE' (2 rows)" in error[1]
    fixed = frame.with_columns(pl.col("y").replace({"strongly agreE": "low", "ünïcode ünïcodE": "low"}))
    assert pandas_frame(fixed, ["y"], ["low", "very_high"], {"y"})["y"].dtype == "category"  # read from the views
    assert pandas_frame(fixed, ["y"], ["low", "low"], {"y"})["y"].dtype != "category"  # labels= refused: said after
    check_same(*(outcome(partial(f.ordinal.mae, labels=["low", "low"]), "y", "yhat") for f in (fixed, df)))
    with pytest.warns(ordframe.DroppedRowsWarning):
        cube = fixed.ordinal.confusion("y", "yhat", labels=["low", "very_high"], dropna=True)
    with pytest.warns(ordframe.DroppedRowsWarning):
        xr.testing.assert_identical(
            cube, fixed.to_pandas().ordinal.confusion("y", "yhat", labels=["low", "very_high"], dropna=True)
        )
    assert cube.sel(true="low", pred="low").item() == 4 and cube.sum().item() == 5


def test_a_label_column_named_by_another_argument_stays_strings(coder):
    """Only columns named by ``true`` or ``pred`` alone become the classes' Categorical: a ``by`` column keeps
    its strings (and its groups)."""
    from ordframe._inputs.polars_frame import label_columns

    assert label_columns({"true": "y", "pred": "p", "by": ["p"], "labels": ["y"]}, {"y", "p"}) == {"y"}
    assert label_columns({"true": "y", "pred": pl.Series(["a"]), "sample": "y"}, {"y", "p"}) == set()
    frame = pl.DataFrame({"y": ["b", "a", "b"], "p": ["a", "a", "b"]})
    expected = frame.to_pandas().ordinal.confusion("y", "p", by="p", labels=["b", "a"])
    xr.testing.assert_identical(frame.ordinal.confusion("y", "p", by="p", labels=["b", "a"]), expected)


@pytest.mark.compiled
@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.text(st.characters(codec="utf-8"), max_size=20), min_size=3, max_size=6, unique=True),
    st.lists(st.integers(0, 7), min_size=1, max_size=60),
    st.sampled_from(["one chunk", "sliced", "chunked"]),
)
def test_random_strings_are_coded_from_views_as_python_strings_are(texts, picks, layout):
    """Any strings, classes or not (picks past the classes are missing values or strangers)."""
    from ordframe._core import compiling
    from ordframe._inputs.polars_frame import declared_labels

    classes_texts = texts[:-1]
    values = [texts[p] if p < len(texts) else None for p in picks]
    series = string_column(values, layout)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        budget, spent = compiling.COMPILED_SECONDS, compiling.SPENT
        compiling.COMPILED_SECONDS, compiling.SPENT = 0, {}  # the compiled coder at every size
        try:
            declared = declared_labels(series, pd.CategoricalDtype(classes_texts, ordered=True))
        finally:
            compiling.COMPILED_SECONDS, compiling.SPENT = budget, spent
    expected = pd.Index(classes_texts).get_indexer(pd.Index(values, dtype=object))
    missing = np.array([v is None for v in values])
    if ((expected < 0) & ~missing).any():
        assert declared is None
    else:
        np.testing.assert_array_equal(declared.cat.codes, np.where(missing, -1, expected))


def test_the_view_of_a_missing_value_is_not_followed(coder):
    """arrow leaves a missing value's view undefined: one pointing past the data buffers is not read."""
    pa = pytest.importorskip("pyarrow")
    from ordframe._inputs import classes

    polars_views = pa.chunked_array(pl.Series(["strongly disagree", None, "low"]))
    _, records, *data = polars_views.chunks[0].buffers()
    views = np.frombuffer(records, np.uint64).reshape(-1, 2).copy()
    views[1] = [40, (1 << 40) + 7]  # 40 bytes in buffer 7 at offset 256: neither exists
    validity = pa.py_buffer(np.packbits([1, 0, 1], bitorder="little").tobytes())
    array = pa.Array.from_buffers(pa.string_view(), 3, [validity, pa.py_buffer(views.tobytes()), *data], 1)
    column = classes.Labels("y", pd.arrays.ArrowExtensionArray(pa.chunked_array([array])), "object", classes.LAZY)
    codes, unknown = classes.codes_of(column, pd.Index(["low", "strongly disagree"]))
    assert codes.tolist() == [1, -1, 0] and unknown is None and column.missing.tolist() == [False, True, False]
