"""Confusion cubes from DataFrames and from label DataArrays, checked against a naive count."""

from collections import Counter
from itertools import product

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import ordframe
from ordframe._core import options
from ordframe._registry.manager import BUILTIN_MODULES

BUILTIN_CONFUSION = sorted(
    name
    for name, kind, plugin in ordframe.list_metrics()[["name", "kind", "plugin"]].itertuples(index=False)
    if kind == "confusion" and plugin in BUILTIN_MODULES
)

# label kinds: (values the rows draw from, class order, whether labels= is needed)
CLASS_POOLS = {
    "int": [-3, 1, 2, 10, 100, 101, 7000],
    "float": [-0.5, 0.0, 0.25, 1.0, 2.0, 8.5, 9.0],
    "str": ["none", "mild", "moderate", "severe", "critical", "fatal", "x"],
}
# group kinds: a categorical with unobserved categories (not alphabetical), ints with gaps, strings, floats
GROUP_POOLS = {
    "cat": ["zeta", "alpha", "mu", "beta"],
    "int": [-4, 0, 3, 11, 12],
    "str": ["b", "a", "c", "aa"],
    "float": [0.5, -1.25, 3.0, 1e6],
}


def naive_cube(rows, group_coords, classes, weights):
    """Count ``rows`` (tuples of group values, true, pred) with a dict, laid out on the given coordinates."""
    counter = Counter()
    for row, w in zip(rows, weights if weights is not None else [1] * len(rows)):
        counter[row] += w
    axes = [*group_coords, list(classes), list(classes)]
    out = np.zeros([len(a) for a in axes], float if weights is not None else np.int64)
    for index in product(*[range(len(a)) for a in axes]):
        out[index] = counter.get(tuple(a[i] for a, i in zip(axes, index)), 0)
    assert sum(counter.values()) == pytest.approx(out.sum())  # every row landed in a cell
    return out


@st.composite
def frames(draw):
    n = draw(st.integers(0, 40))
    k = draw(st.integers(2, 6))
    label_kind = draw(st.sampled_from(["int", "float", "str", "cat"]))
    pool = CLASS_POOLS["str" if label_kind == "cat" else label_kind][:k]
    observed = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=k, unique=True))
    y = draw(st.lists(st.sampled_from(observed), min_size=n, max_size=n))
    p = draw(st.lists(st.sampled_from(observed), min_size=n, max_size=n))
    data = {"y": y, "p": p}
    use_labels = label_kind == "str" or draw(st.booleans())
    if label_kind == "cat":
        data = {c: pd.Categorical(v, categories=pool, ordered=True) for c, v in data.items()}
        use_labels = False
    by = draw(st.lists(st.sampled_from(["cat", "int", "str", "float"]), min_size=1, max_size=3, unique=True))
    for kind in by:
        data[f"g_{kind}"] = draw(st.lists(st.sampled_from(GROUP_POOLS[kind]), min_size=n, max_size=n))
        if kind == "cat":
            data["g_cat"] = pd.Categorical(data["g_cat"], categories=GROUP_POOLS["cat"])
    df = pd.DataFrame(data)
    weights = draw(st.none() | st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.25, 3.0]), min_size=n, max_size=n))
    if label_kind == "cat" or use_labels:
        classes = pool
    else:
        classes = sorted(set(y) | set(p))
    return df, [f"g_{kind}" for kind in by], (pool if use_labels else None), classes, weights


@settings(max_examples=100, deadline=None)
@given(frames())
@pytest.mark.filterwarnings("ignore::ordframe.LabelWarning")  # predicted values no true label has, on purpose
def test_frame_cube_equals_a_naive_count(case):
    df, by, labels, classes, weights = case
    if len(classes) < 2:
        with pytest.raises(ValueError, match="at least two classes"):
            df.ordinal.confusion("y", "p", by=by, labels=labels, weights=weights)
        return
    cube = df.ordinal.confusion("y", "p", by=by, labels=labels, weights=weights)
    group_coords = [list(df[c].cat.categories) if c == "g_cat" else sorted(set(df[c])) for c in by]
    rows = list(zip(*[df[c] for c in by], df["y"], df["p"]))
    expected = naive_cube(rows, group_coords, classes, weights)
    assert cube.dims == (*by, "true", "pred")
    assert cube.dtype == (np.float64 if weights is not None else np.int64)
    for c, coord in zip(by, group_coords):
        assert list(cube[c].values) == coord
    assert list(cube.true.values) == list(classes) == list(cube.pred.values)
    np.testing.assert_allclose(cube.values, expected, rtol=0, atol=1e-9)


def test_a_group_combination_without_rows_is_a_zero_matrix():
    df = pd.DataFrame(
        {
            "y": [1, 2, 3, 1],
            "p": [1, 3, 3, 2],
            "model": pd.Categorical(["a", "a", "b", "b"], categories=["a", "b", "c"]),
            "fold": [0, 1, 0, 0],
        }
    )
    cube = df.ordinal.confusion("y", "p", by=["model", "fold"])
    assert cube.sizes == {"model": 3, "fold": 2, "true": 3, "pred": 3}
    np.testing.assert_array_equal(cube.sel(model="b", fold=1).values, np.zeros((3, 3)))
    np.testing.assert_array_equal(cube.sel(model="c").values, np.zeros((2, 3, 3)))
    assert cube.sel(model="a", fold=1, true=2, pred=3).item() == 1
    assert cube.name == "count" and not cube.attrs


def test_group_coordinates_sorted_or_in_categorical_order():
    df = pd.DataFrame(
        {
            "y": [1, 2] * 3,
            "p": [2, 1] * 3,
            "s": ["b", "c", "a", "b", "c", "a"],
            "i": [40, 7, 7, -2, 40, 7],
            "c": pd.Categorical(["lo", "hi", "lo", "hi", "lo", "hi"], categories=["mid", "lo", "hi"]),
        }
    )
    cube = df.ordinal.confusion("y", "p", by=["s", "i", "c"])
    assert list(cube.s.values) == ["a", "b", "c"]
    assert list(cube.i.values) == [-2, 7, 40]  # observed values only, not the range -2..40
    assert list(cube.c.values) == ["mid", "lo", "hi"]


@pytest.mark.filterwarnings("ignore::ordframe.LabelWarning")  # predicted values no true label has, on purpose
def test_int_group_value_seen_only_with_zero_weight_is_kept():
    df = pd.DataFrame({"y": [1, 2, 1], "p": [1, 2, 2], "g": [0, 5, 9]})
    cube = df.ordinal.confusion("y", "p", by="g", weights=[1.0, 0.0, 2.0])
    assert list(cube.g.values) == [0, 5, 9]
    np.testing.assert_array_equal(cube.sel(g=5).values, np.zeros((2, 2)))
    assert cube.sel(g=9, true=1, pred=2).item() == 2.0


def test_large_and_unsigned_integer_groups():
    big = 2**62
    df = pd.DataFrame({"y": [1, 2, 2], "p": [1, 2, 1], "a": ["x", "x", "y"]})
    for g in (np.array([big, big + 3, big], np.int64), np.array([2**63 + 5, 1, 1], np.uint64)):
        df["g"] = g
        cube = df.ordinal.confusion("y", "p", by=["a", "g"])
        assert list(cube.g.values) == sorted(set(g.tolist()))
        assert int(cube.sum()) == 3
        assert cube.sel(a="x", g=g[1], true=2, pred=2).item() == 1


def test_weights_as_column_or_array():
    df = pd.DataFrame({"y": [1, 2, 2], "p": [1, 2, 1], "w": [0.5, 2, 1]})
    by_name = df.ordinal.confusion("y", "p", weights="w")
    by_array = df.ordinal.confusion("y", "p", weights=df["w"].to_numpy())
    np.testing.assert_array_equal(by_name.values, [[0.5, 0], [1, 2]])
    xr.testing.assert_identical(by_name, by_array)
    assert by_name.dtype == np.float64
    assert df.ordinal.confusion("y", "p").dtype == np.int64


@pytest.mark.parametrize(
    "w, error, pattern",
    [
        pytest.param([1, -1, 2], ValueError, r"'w' has 1 weight\(s\) that are negative.*-1\.0", id="negative"),
        pytest.param([1, np.nan, np.nan], ValueError, r"'w' has 2 weight\(s\).*nan", id="nan"),
        pytest.param([1, np.inf, 1], ValueError, r"'w' has 1 weight\(s\).*inf", id="inf"),
        pytest.param(["a", "b", "c"], TypeError, r"weights 'w' must be real numbers", id="non-numeric"),
    ],
)
def test_bad_weight_column(w, error, pattern):
    df = pd.DataFrame({"y": [1, 2, 2], "p": [1, 2, 1], "w": w})
    with pytest.raises(error, match=pattern):
        df.ordinal.confusion("y", "p", weights="w")


def test_weights_of_the_wrong_length():
    df = pd.DataFrame({"y": [1, 2, 2], "p": [1, 2, 1]})
    with pytest.raises(ValueError, match=r"weights has 2 values for 3 rows"):
        df.ordinal.confusion("y", "p", weights=[1.0, 2.0])


def test_unknown_columns_are_named():
    df = pd.DataFrame({"y": [1, 2], "p": [1, 2]})
    with pytest.raises(KeyError, match=r"by column 'model' is not in the DataFrame"):
        df.ordinal.confusion("y", "p", by="model")
    with pytest.raises(KeyError, match=r"weights column 'wt'"):
        df.ordinal.confusion("y", "p", weights="wt")


# label DataArrays


def _labels(rng, shape, k=4):
    return rng.integers(0, k, size=shape)


def test_array_cube_broadcasts_and_keeps_outer_dims_and_coords():
    rng = np.random.default_rng(0)
    true = xr.DataArray(_labels(rng, 50), dims="sample")
    pred = xr.DataArray(
        _labels(rng, (3, 50)),
        dims=("model", "sample"),
        coords={"model": ["lr", "rf", "nn"], "family": ("model", ["lin", "tree", "deep"])},
    )
    cube = pred.ordinal.confusion(true, dim="sample")
    assert cube.dims == ("model", "true", "pred")
    assert list(cube.model.values) == ["lr", "rf", "nn"]
    assert list(cube.family.values) == ["lin", "tree", "deep"]
    assert cube.dtype == np.int64
    for i, m in enumerate(["lr", "rf", "nn"]):
        df = pd.DataFrame({"y": true.values, "p": pred.values[i]})
        expected = df.ordinal.confusion("y", "p", labels=cube.true.values)
        np.testing.assert_array_equal(cube.sel(model=m).values, expected.values)


def test_array_cube_counts_over_all_dims_by_default():
    rng = np.random.default_rng(1)
    true = xr.DataArray(_labels(rng, (4, 30)), dims=("fold", "sample"))
    pred = xr.DataArray(_labels(rng, (4, 30)), dims=("fold", "sample"))
    cube = pred.ordinal.confusion(true)
    assert cube.dims == ("true", "pred")
    df = pd.DataFrame({"y": true.values.ravel(), "p": pred.values.ravel()})
    np.testing.assert_array_equal(cube.values, df.ordinal.confusion("y", "p").values)
    per_fold = pred.ordinal.confusion(true, dim=["sample"])
    assert per_fold.dims == ("fold", "true", "pred")
    np.testing.assert_array_equal(per_fold.sum("fold").values, cube.values)


def test_array_cube_core_dims_not_last():
    rng = np.random.default_rng(2)
    true = xr.DataArray(_labels(rng, (20, 3)), dims=("sample", "model"))
    pred = xr.DataArray(_labels(rng, (3, 20)), dims=("model", "sample"))
    cube = pred.ordinal.confusion(true, dim="sample")
    assert cube.dims == ("model", "true", "pred")
    for i in range(3):
        df = pd.DataFrame({"y": true.values[:, i], "p": pred.values[i]})
        np.testing.assert_array_equal(cube.values[i], df.ordinal.confusion("y", "p", labels=range(4)).values)


@pytest.mark.filterwarnings("ignore::ordframe.LabelWarning")  # predicted values no true label has, on purpose
def test_array_cube_numeric_labels_are_the_sorted_union():
    true = xr.DataArray([10, 1, 2], dims="s")
    pred = xr.DataArray([1.0, 1.0, 5.0], dims="s")
    cube = pred.ordinal.confusion(true)
    np.testing.assert_array_equal(cube.true.values, [1, 2, 5, 10])
    assert cube.sel(true=10, pred=1).item() == 1 and cube.sel(true=2, pred=5).item() == 1


def test_array_cube_labels_and_weights():
    true = xr.DataArray(np.array(["b", "a", "c"], dtype=object), dims="s")
    pred = xr.DataArray(np.array(["b", "b", "a"], dtype=object), dims="s")
    weights = xr.DataArray([1.0, 0.5, 2.0], dims="s")
    cube = pred.ordinal.confusion(true, labels=["c", "b", "a"], weights=weights)
    assert list(cube.true.values) == ["c", "b", "a"]
    assert cube.dtype == np.float64
    np.testing.assert_array_equal(cube.values, [[0, 0, 2], [0, 1, 0], [0, 0.5, 0]])


def test_array_cube_errors():
    true = xr.DataArray(np.array(["b", "a"], dtype=object), dims="s", name="grade")
    pred = xr.DataArray(np.array(["b", "z"], dtype=object), dims="s", name="guess")
    with pytest.raises(TypeError, match=r"'grade' \(object\).*labels="):
        pred.ordinal.confusion(true)
    with pytest.raises(ValueError, match=r"column 'guess' has 1 value\(s\) outside.*'z' \(1 row\)"):
        pred.ordinal.confusion(true, labels=["a", "b"])
    with pytest.raises(ValueError, match=r"dim \['fold'\] not found.*\('s',\)"):
        pred.ordinal.confusion(true, dim="fold", labels=["a", "b", "z"])
    with pytest.raises(ValueError, match=r"'weights' has 1 weight"):
        pred.ordinal.confusion(true, labels=["a", "b", "z"], weights=xr.DataArray([1.0, -2.0], dims="s"))


def test_array_cube_outer_dims_follow_pred():
    rng = np.random.default_rng(3)
    true = xr.DataArray(_labels(rng, (2, 10)), dims=("fold", "sample"))
    pred = xr.DataArray(_labels(rng, (3, 2, 10)), dims=("model", "fold", "sample"))
    cube = pred.ordinal.confusion(true, dim="sample")
    assert cube.dims == ("model", "fold", "true", "pred")
    df = pd.DataFrame({"y": true.values[1], "p": pred.values[2, 1]})
    np.testing.assert_array_equal(cube.values[2, 1], df.ordinal.confusion("y", "p", labels=range(4)).values)


@pytest.mark.parametrize("dtype", [np.int8, np.int16, np.uint8, np.uint32, np.int64, np.uint64])
@pytest.mark.parametrize("weights", [None, [1.0, 0.0, 2.0, 1.0]])
def test_integer_group_dtypes(dtype, weights):
    info = np.iinfo(dtype)
    g = np.array([info.min, info.max, info.min, info.max // 2], dtype=dtype)
    df = pd.DataFrame({"y": [1, 2, 2, 1], "p": [1, 2, 1, 1], "g": g})
    cube = df.ordinal.confusion("y", "p", by="g", weights=weights)
    assert list(cube.g.values) == sorted(set(g.tolist()))
    expected = naive_cube(list(zip(g.tolist(), df.y, df.p)), [sorted(set(g.tolist()))], [1, 2], weights)
    np.testing.assert_array_equal(cube.values, expected)


@pytest.mark.parametrize(
    "compiled", [pytest.param(False, id="numpy"), pytest.param(True, id="compiled", marks=pytest.mark.compiled)]
)
@settings(max_examples=20, deadline=None)
@given(st.integers(2, 7), st.integers(1, 3), st.data())
def test_int64_counts_past_the_int64_sum_score_as_the_same_floats(compiled, k, m, data):
    """An int64 cube whose totals overflow int64 (counts above 2^61) scores as the same counts in float64, to
    the bit, for every built-in confusion metric on both paths: no kernel sums counts in integers that wrap."""
    if compiled and not options.COMPILED:
        pytest.skip("numba is not installed or is turned off")
    counts = data.draw(arrays(np.int64, (m, k, k), elements=st.integers(2**61 + 1, 2**62)))
    cube, floats = (xr.DataArray(c, dims=("replicate", "true", "pred")) for c in (counts, counts.astype(np.float64)))
    was, options.COMPILED = options.COMPILED, compiled
    try:
        for name in BUILTIN_CONFUSION:
            np.testing.assert_array_equal(
                getattr(cube.ordinal, name)().values, getattr(floats.ordinal, name)().values, err_msg=name
            )
    finally:
        options.COMPILED = was
