"""Group combinations that occur (``observed=True``): hashed, not sorted, same layout as before and as pandas.

``_observed_combinations`` is checked against the sort-based implementation it
replaced (kept below as the reference) and against pandas'
``groupby(observed=True)`` on random inputs, including many columns whose
sizes multiply past int64 and columns coded by offset, by categorical codes and
by factorizing.
"""

import math

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ordframe  # noqa: F401  (registers the accessors)
from ordframe._inputs import groups as groups_module
from ordframe._inputs.groups import Groups, _observed_combinations, group_column


def sorted_reference(columns):
    """The sort-based implementation (``np.unique`` with inverse) that the hashed one replaced."""
    flat, size = np.zeros(len(columns[0].codes), np.int64), 1
    for column in columns:
        n = len(column.coord)
        if size * n >= 2**62:
            uniques, flat = np.unique(flat, return_inverse=True)
            size = len(uniques)
        flat = flat * n + (column.codes - column.offset)
        size *= n
    _, first, inverse = np.unique(flat, return_index=True, return_inverse=True)
    combos = np.stack([c.codes[first] - c.offset for c in columns], axis=1)
    return inverse.reshape(-1), combos


def check_against_reference(frame: pd.DataFrame) -> None:
    columns = [group_column(name, frame[name]) for name in frame.columns]
    inverse, combos = _observed_combinations(columns)
    expected_inverse, expected_combos = sorted_reference(columns)
    assert inverse.dtype.kind == "i" and combos.dtype == np.int64
    np.testing.assert_array_equal(inverse, expected_inverse)
    np.testing.assert_array_equal(combos, expected_combos)
    # pandas: the same combinations in the same order, and the same rows in each
    sizes = frame.groupby(list(frame.columns), observed=True, sort=True).size()
    values = [np.asarray(c.coord)[codes] for c, codes in zip(columns, combos.T)]
    expected = pd.MultiIndex.from_frame(sizes.index.to_frame(index=False))
    assert pd.MultiIndex.from_arrays(values, names=list(frame.columns)).equals(expected)
    np.testing.assert_array_equal(np.bincount(inverse, minlength=len(combos)), sizes.to_numpy())


def column_strategy(n):
    small_int = st.lists(st.integers(-3, 3), min_size=n, max_size=n).map(lambda v: pd.Series(v, dtype=np.int64))
    wide_int = st.lists(st.sampled_from([-(10**12), -5, 0, 7, 10**9, 2**40]), min_size=n, max_size=n).map(
        lambda v: pd.Series(v, dtype=np.int64)
    )
    strings = st.lists(st.sampled_from(["a", "b", "c", "zz"]), min_size=n, max_size=n).map(
        lambda v: pd.Series(v, dtype=object)
    )
    categorical = st.lists(st.integers(0, 4), min_size=n, max_size=n).map(
        lambda v: pd.Series(pd.Categorical.from_codes(v, categories=["e", "d", "c", "b", "a"]))
    )
    floats = st.lists(st.sampled_from([0.5, -1.25, 3.0]), min_size=n, max_size=n).map(pd.Series)
    return st.one_of(small_int, wide_int, strings, categorical, floats)


@st.composite
def frames(draw, max_columns=4):
    n = draw(st.integers(1, 60))
    k = draw(st.integers(1, max_columns))
    return pd.DataFrame({f"c{i}": draw(column_strategy(n)) for i in range(k)})


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_observed_combinations_equal_the_sorted_reference_and_pandas(frame):
    check_against_reference(frame)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.integers(0, 2**32 - 1), st.integers(12, 14), st.integers(64, 300), st.integers(1, 4))
def test_many_wide_columns_overflow_the_combined_code(seed, k, n, repeats):
    """A dozen columns of dozens of distinct values each: the product of sizes passes 2**62 and is renumbered."""
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame({f"c{i}": rng.integers(0, n, n) * 10**9 - 5 for i in range(k)})
    frame = pd.concat([frame] * repeats, ignore_index=True)  # combinations that occur more than once
    columns = [group_column(name, frame[name]) for name in frame.columns]
    assert math.prod(len(c.coord) for c in columns) >= 2**62
    check_against_reference(frame.sample(frac=1, random_state=seed % 1000).reset_index(drop=True))


@pytest.mark.parametrize("table", [True, False])
def test_both_paths_on_many_rows(monkeypatch, table):
    """The table path (few combinations) and the hash path (a product of sizes above the rows) agree."""
    if not table:
        monkeypatch.setattr(groups_module, "_MIN_TABLE", 0)
    rng = np.random.default_rng(3)
    n = 200_000  # several blocks
    frame = pd.DataFrame(
        {
            "a": rng.integers(0, 300, n) * 7,
            "b": pd.Categorical.from_codes(rng.integers(0, 3, n), categories=["x", "y", "z"]),
            "c": rng.integers(-2, 2, n),
        }
    )
    frame = frame[~((frame["a"] == 14) & (frame["c"] == 0))]  # some combinations absent
    if not table:
        assert math.prod(frame.nunique()) > groups_module._MIN_TABLE
    check_against_reference(frame.reset_index(drop=True))


@pytest.mark.parametrize("combos,dtype", [(100, np.int8), (128, np.int8), (129, np.int16), (40_000, np.int32)])
def test_positions_in_the_narrowest_type(combos, dtype):
    """Few combinations take few bytes a row (the table path: a type that holds every position of its table)."""
    frame = pd.DataFrame({"g": np.arange(combos, dtype=np.int64)[::-1] - 7})
    inverse, found = _observed_combinations([group_column("g", frame["g"])])
    assert inverse.dtype == dtype and len(found) == combos
    np.testing.assert_array_equal(inverse, np.arange(combos)[::-1])


def test_empty_rows():
    columns = [group_column(name, pd.Series([], dtype=object)) for name in ("a", "b")]
    inverse, combos = _observed_combinations(columns)
    assert inverse.shape == (0,) and combos.shape == (0, 2)


def test_the_cube_matches_pandas_and_the_dense_layout():
    """End to end: ``observed=True`` keeps pandas' order and the dense layout's counts."""
    rng = np.random.default_rng(5)
    n = 50_000
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 4, n),
            "yhat": rng.integers(0, 4, n),
            "fold": rng.integers(0, 5, n) * 10**10,
            "model": rng.choice(["m2", "m1", "m10"], n),
        }
    )
    df = df[~((df["fold"] == 0) & (df["model"] == "m1"))]
    cube = df.ordinal.confusion("y", "yhat", by=["model", "fold"], observed=True)
    sizes = df.groupby(["model", "fold"], observed=True).size()
    assert list(cube.indexes["group"]) == list(sizes.index)
    np.testing.assert_array_equal(cube.sum(["true", "pred"]).values, sizes.to_numpy())
    dense = df.ordinal.confusion("y", "yhat", by=["model", "fold"])
    stacked = dense.stack(group=["model", "fold"]).transpose("group", "true", "pred")
    stacked = stacked.sel(group=cube.indexes["group"])
    xr.testing.assert_equal(cube.drop_vars(["group", "model", "fold"]), stacked.drop_vars(["group", "model", "fold"]))


def test_groups_take_keeps_observed():
    frame = pd.DataFrame({"a": [3, 1, 3, 2], "b": ["x", "y", "x", "x"]})
    groups = Groups([group_column(n, frame[n]) for n in frame.columns], observed=True)
    assert groups.sizes == [3]
    kept = groups.take(np.array([True, False, True, True]))
    assert kept.sizes == [2]
    np.testing.assert_array_equal(kept.counting()[0][0], [1, 1, 0])


@pytest.mark.parametrize(
    "index",
    [
        pd.RangeIndex(2, 5),
        pd.Index([3, 1, 2]),
        pd.Index(np.array([1, 2, 3], np.int32)),
        pd.Index([1, 2, 3], dtype="Int64"),
        pd.Index([0.5, 1.5, 2.0]),
        pd.Index(["a", "b", "c"]),
        pd.Index(["a", 1, 2.5], dtype=object),
        pd.CategoricalIndex(["lo", "mid", "hi"], categories=["lo", "mid", "hi"], ordered=True),
        pd.date_range("2020", periods=3),
        pd.to_timedelta([1, 2, 3], unit="s"),
        pd.Index([False, True, True]),
    ],
)
def test_labelled_array_is_the_constructors_result(index):
    """Built from the coordinates' indexes, a result is what ``xarray.DataArray`` makes of the same coordinates:
    values, coordinate dtypes, index types and names; other coordinates go through the constructor."""
    values = np.arange(9).reshape(3, 3)
    coords = {"a": index, "b": pd.Index([10, 20, 30])}
    fast = groups_module.labelled_array(values, ("a", "b"), coords, "n")
    plain = xr.DataArray(values, dims=("a", "b"), coords=coords, name="n")
    xr.testing.assert_identical(fast, plain)
    assert list(fast.coords) == list(plain.coords)
    for dim in ("a", "b"):
        assert (
            type(fast.indexes[dim]) is type(plain.indexes[dim]) and fast.indexes[dim].dtype == plain.indexes[dim].dtype
        )
        assert fast.coords[dim].dtype == plain.coords[dim].dtype
    with pytest.raises(ValueError, match="conflicting sizes"):  # a coordinate of the wrong size: xarray's error
        groups_module.labelled_array(values, ("a", "b"), {"a": index[:2]}, "n")
