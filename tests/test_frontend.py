"""The one front end under real and hostile inputs: any index, filters, sorts, dropna, odd columns and arguments.

Every result is compared with an independent reference computed row by row on
a fresh copy of the data (``reset_index``), so a misalignment anywhere shows.
"""

import io
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ordframe
from ordframe import DroppedRowsWarning

PROBA = ["p0", "p1", "p2"]


def reference_rps(frame):
    """Mean RPS (normalised by K - 1) per model, one row at a time."""
    out = {}
    for model, part in frame.groupby("m"):
        scores = []
        for _, row in part.iterrows():
            cdf = np.cumsum([row[c] for c in PROBA])
            truth = np.cumsum([float(row["y"] == k) for k in range(3)])
            scores.append(((cdf[:-1] - truth[:-1]) ** 2).sum() / 2)
        out[model] = np.mean(scores)
    return pd.Series(out)


def reference_mae(frame):
    return frame.assign(e=(frame["y"] - frame["yhat"]).abs()).groupby("m")["e"].mean()


def random_frame(seed, n=60):
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(3), n)
    return pd.DataFrame(
        {
            "y": rng.integers(0, 3, n),
            "yhat": rng.integers(0, 3, n),
            "p0": p[:, 0],
            "p1": p[:, 1],
            "p2": p[:, 2],
            "m": rng.choice(["a", "b", "c"], n),
        }
    )


def test_issue_reproducer_probabilities_with_by_on_a_permuted_index():
    df = pd.DataFrame(
        {"y": [0, 0, 2, 2], "p0": [1.0] * 4, "p1": [0.0] * 4, "p2": [0.0] * 4, "m": list("aabb")}, index=[2, 3, 0, 1]
    )
    for index in ([2, 3, 0, 1], [10, 11, 12, 13], ["w", "x", "y", "z"]):
        frame = df.set_axis(index)
        for name, worst in (("rps", 1.0), ("brier", 2.0), ("sarps", 4.0 / 2)):
            result = getattr(frame.ordinal, name)("y", PROBA, by="m", labels=[0, 1, 2])
            np.testing.assert_allclose(result.values, [0.0, worst], err_msg=f"{name} {index}")
        ds = frame.ordinal.evaluate("y", proba=PROBA, by="m", labels=[0, 1, 2], metrics=["rps", "log_score"])
        np.testing.assert_allclose(ds["rps"].values, [0.0, 1.0])
        assert ds["log_score"].values[0] == 0 and ds["log_score"].values[1] > 30


TRANSFORMS = {
    "fresh": lambda f: f,
    "filtered": lambda f: f[f["yhat"] != 1],
    "sorted": lambda f: f.sort_values(["p1", "m"]),
    "reindexed": lambda f: f.set_axis(np.arange(len(f))[::-1] * 7 + 100),
    "string index": lambda f: f.set_axis([f"r{i}" for i in range(len(f))]),
    "duplicate index": lambda f: f.set_axis(np.zeros(len(f), int)),
    "shuffled": lambda f: f.sample(frac=1.0, random_state=1),
}


@pytest.mark.parametrize("transform", TRANSFORMS)
@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000))
def test_every_front_end_equals_a_row_by_row_reference(transform, seed):
    frame = TRANSFORMS[transform](random_frame(seed))
    fresh = frame.reset_index(drop=True)
    ds = frame.ordinal.evaluate("y", "yhat", proba=PROBA, by="m", labels=[0, 1, 2], metrics=["rps", "mae"])
    models = list(ds["m"].values)
    np.testing.assert_allclose(ds["rps"].values, reference_rps(fresh)[models].values)
    np.testing.assert_allclose(ds["mae"].values, reference_mae(fresh)[models].values)
    np.testing.assert_allclose(frame.ordinal.rps("y", PROBA, by="m", labels=[0, 1, 2]).values, ds["rps"].values)
    cube = frame.ordinal.confusion("y", "yhat", by="m", labels=[0, 1, 2])
    for model in models:
        part = fresh[fresh["m"] == model]
        expected = pd.crosstab(part["y"], part["yhat"]).reindex(index=range(3), columns=range(3), fill_value=0)
        np.testing.assert_array_equal(cube.sel(m=model).values, expected.values)
    curve = frame.ordinal.aursc("y", PROBA, by="m", labels=[0, 1, 2], fractions=[1.0, 0.5])
    for model in models:  # all rows kept: the curve's first point is the qwk of the argmax on the whole group
        part = fresh[fresh["m"] == model]
        argmax = part[PROBA].to_numpy().argmax(axis=1)
        full = part.assign(a=argmax).ordinal.qwk("y", "a", labels=[0, 1, 2])
        np.testing.assert_allclose(curve["curve"].sel(m=model, retained=1.0).item(), full)


@pytest.mark.parametrize("transform", ["fresh", "sorted", "reindexed", "string index"])
def test_dropna_drops_the_same_rows_everywhere(transform):
    frame = random_frame(5)
    frame.loc[[3, 10], "p1"] = np.nan
    frame.loc[[4], "y"] = np.nan
    frame.loc[[20], "m"] = None
    frame = TRANSFORMS[transform](frame)
    kept = frame.dropna().reset_index(drop=True).astype({"y": int})
    with pytest.warns(DroppedRowsWarning, match="dropped 4 of 60 rows"):
        ds = frame.ordinal.evaluate(
            "y", "yhat", proba=PROBA, by="m", dropna=True, labels=[0, 1, 2], metrics=["rps", "mae"]
        )
    models = list(ds["m"].values)
    np.testing.assert_allclose(ds["rps"].values, reference_rps(kept)[models].values)
    np.testing.assert_allclose(ds["mae"].values, reference_mae(kept)[models].values)


def test_pred_as_an_array_or_a_series():
    frame = random_frame(2).set_axis(np.arange(60)[::-1])
    expected = frame.ordinal.mae("y", "yhat")
    assert frame.ordinal.mae("y", frame["yhat"].to_numpy()) == expected
    assert frame.ordinal.mae("y", frame["yhat"].sample(frac=1.0, random_state=0)) == expected  # matched by label
    with pytest.raises(ValueError, match="pred has 3 values for 60 rows"):
        frame.ordinal.mae("y", [0, 1, 2])


# --------------------------------------------------------------------------- weights


def test_weights_series_is_matched_by_row_label():
    frame = pd.DataFrame({"y": [0, 1, 2, 1], "p": [0, 1, 1, 1]}, index=[5, 6, 7, 8])
    w = pd.Series([100.0, 1.0, 1.0, 1.0], index=[7, 8, 5, 6])  # the heavy weight sits on the wrong row (7)
    assert frame.ordinal.mae("y", "p", weights=w) == pytest.approx(100 / 103)
    with pytest.raises(ValueError, match="matched by row label"):
        frame.ordinal.mae("y", "p", weights=pd.Series([1.0] * 4))


def test_dask_weights_are_checked_for_probability_metrics():
    pytest.importorskip("dask")
    p = xr.DataArray(np.full((8, 3), 1 / 3), dims=("s", "class"), coords={"class": [0, 1, 2]})
    t = xr.DataArray([0, 1, 2, 0, 1, 2, 0, 1], dims="s")
    w = xr.DataArray([1.0, 1, -1, 1, 1, 1, 1, 1], dims="s")
    with pytest.raises(ValueError, match="negative, NaN or infinite"):
        p.ordinal.rps(t, weights=w.chunk(4))


@pytest.mark.parametrize("bad", [-1.0, np.nan, np.inf])
@pytest.mark.parametrize("lazy", [False, True])
def test_aursc_weights_are_checked(bad, lazy):
    p = xr.DataArray(np.full((8, 3), 1 / 3), dims=("s", "class"), coords={"class": [0, 1, 2]})
    t = xr.DataArray([0, 1, 2, 0, 1, 2, 0, 1], dims="s")
    w = xr.DataArray([1.0, 1, bad, 1, 1, 1, 1, 1], dims="s")
    if lazy:
        pytest.importorskip("dask")
        w = w.chunk(4)
    with pytest.raises(ValueError, match="negative, NaN or infinite"):
        p.ordinal.aursc(t, weights=w)["aursc"].compute()


# --------------------------------------------------------------------------- arguments


@pytest.mark.parametrize("kwargs", [{"labels": {0, 1, 2}}, {"by": {"m"}}, {"labels": frozenset([0, 1, 2])}])
def test_sets_are_refused(kwargs):
    with pytest.raises(TypeError, match="order is arbitrary"):
        random_frame(1).ordinal.mae("y", "yhat", **kwargs)


@pytest.mark.parametrize("labels", ["abc", 3, [[0, 1], [2]], np.zeros((2, 2))])
def test_labels_of_the_wrong_form(labels):
    with pytest.raises(TypeError, match="labels="):
        random_frame(1).ordinal.mae("y", "yhat", labels=labels)


@pytest.mark.parametrize("flag", ["dropna", "observed"])
@pytest.mark.parametrize("value", ["yes", 1, None])
def test_flags_must_be_booleans(flag, value):
    with pytest.raises(TypeError, match=f"{flag}= must be True or False"):
        random_frame(1).ordinal.mae("y", "yhat", **{flag: value})


@pytest.mark.parametrize(
    "metrics, error",
    [
        ({"a", "b"}, "not a set"),
        ([1, 2], "metric name"),
        ({"x": ("mae", "beta")}, "give a metric name or"),
        ({"x": 3}, "give a metric name or"),
        ([], "empty"),
        (["mae", "mae"], "more than once"),
    ],
)
def test_evaluate_specs_are_checked(metrics, error):
    with pytest.raises((TypeError, ValueError), match=error):
        random_frame(1).ordinal.evaluate("y", "yhat", metrics=metrics)


def test_evaluate_output_named_like_a_group_is_refused():
    with pytest.raises(ValueError, match=r"\['m'\] are also the name of a dim"):
        random_frame(1).ordinal.evaluate("y", "yhat", metrics={"m": "mae"}, by="m")


def test_nullable_boolean_labels_with_missing_values():
    frame = pd.DataFrame({"y": pd.array([True, False, None, True], dtype="boolean"), "p": [True, False, True, False]})
    with pytest.raises(ValueError, match=r"column 'y' has 1 missing value"):
        frame.ordinal.accuracy("y", "p")
    with pytest.warns(DroppedRowsWarning):
        assert frame.ordinal.accuracy("y", "p", dropna=True) == pytest.approx(2 / 3)
    with pytest.warns(DroppedRowsWarning):
        cube = frame.ordinal.confusion("y", "p", dropna=True)
    assert list(cube["true"].values) == [False, True]


# --------------------------------------------------------------------------- column names


def test_integer_column_names_from_a_headerless_csv():
    frame = pd.read_csv(io.StringIO("0,1,7\n1,1,7\n2,2,8\n2,0,8\n"), header=None)
    result = frame.ordinal.mae(0, 1, by=2)
    assert result.dims == ("2",)
    np.testing.assert_allclose(result.values, [0.5, 1.0])
    ds = frame.ordinal.evaluate(0, 1, by=[2], metrics=["mae"])
    assert ds["mae"].dims == ("2",)


@pytest.mark.parametrize(
    "by, error",
    [
        ("true", "name of a result dim"),
        ("pred", "name of a result dim"),
        (["g", "g"], "more than once"),
        ([("a", "b")], "flatten MultiIndex"),
        (["g", 1.5], "by str or int"),
    ],
)
def test_bad_by_names(by, error):
    frame = random_frame(1).rename(columns={"m": "g"}).assign(true=1, pred=2)
    with pytest.raises((TypeError, ValueError), match=error):
        frame.ordinal.mae("y", "yhat", by=by)


def test_a_column_named_group_is_a_by_column_unless_observed():
    frame = pd.DataFrame({"y": [0, 1, 2, 1], "yhat": [0, 1, 1, 1], "group": ["a", "a", "b", "b"]})
    assert frame.ordinal.mae("y", "yhat", by="group").values.tolist() == [0.0, 0.5]
    with pytest.raises(ValueError, match="observed=True stacks the groups into a dim named 'group'"):
        frame.ordinal.mae("y", "yhat", by="group", observed=True)


def test_duplicate_and_multiindex_columns():
    frame = pd.DataFrame([[0, 1, 1], [1, 1, 1]], columns=["y", "y", "g"])
    with pytest.raises(ValueError, match="several columns named 'y'"):
        frame.ordinal.mae("y", "g")
    multi = pd.DataFrame(
        [[0, 1, 1], [1, 1, 1]], columns=pd.MultiIndex.from_tuples([("a", "y"), ("a", "p"), ("b", "g")])
    )
    assert multi.ordinal.mae(("a", "y"), ("a", "p")) == 0.5
    with pytest.raises(KeyError, match="names a level of MultiIndex columns"):
        multi.ordinal.mae("a", ("a", "p"))
    with pytest.raises(KeyError, match="true column 'zz' is not in the DataFrame"):
        multi.ordinal.mae("zz", ("a", "p"))


# --------------------------------------------------------------------------- cubes built by users


@pytest.mark.parametrize(
    "values, error",
    [
        ([[1, -1], [0, 1]], "negative, NaN or infinite"),
        ([[1, 0], [0, np.nan]], "negative, NaN or infinite"),
        ([[1, 0], [0, np.inf]], "negative, NaN or infinite"),
        ([["a", "b"], ["c", "d"]], "holds counts"),
        ([[1, 1j], [0, 1]], "holds counts"),
    ],
)
def test_bad_counts_are_refused(values, error):
    with pytest.raises((TypeError, ValueError), match=error):
        xr.DataArray(values, dims=("true", "pred")).ordinal.mae()


def test_cube_class_coordinates():
    values = [[5, 1], [2, 4]]
    permuted = xr.DataArray(values, dims=("true", "pred"), coords={"true": ["a", "b"], "pred": ["b", "a"]})
    assert permuted.ordinal.accuracy() == pytest.approx(3 / 12)  # reordered by label: diagonal 1 + 2
    with pytest.raises(ValueError, match="more than once"):
        xr.DataArray(values, dims=("true", "pred"), coords={"true": [0, 0], "pred": [0, 1]}).ordinal.mae()
    with pytest.raises(ValueError, match="are not its 'true' classes"):
        xr.DataArray(values, dims=("true", "pred"), coords={"true": [0, 1], "pred": [1, 2]}).ordinal.mae()


def test_labelled_cost_matrices_are_aligned_by_label():
    cube = xr.DataArray([[5, 1], [2, 4]], dims=("true", "pred"), coords={"true": ["a", "b"], "pred": ["a", "b"]})
    by_position = cube.ordinal.expected_cost(cost=[[0, 10], [1, 0]])
    swapped = xr.DataArray([[0, 1], [10, 0]], dims=("true", "pred"), coords={"true": ["b", "a"], "pred": ["b", "a"]})
    assert cube.ordinal.expected_cost(cost=swapped) == by_position
    frame = pd.DataFrame([[0, 1], [10, 0]], index=["b", "a"], columns=["b", "a"])
    assert cube.ordinal.expected_cost(cost=frame) == by_position
    assert cube.ordinal.d(cost=swapped) == cube.ordinal.d(cost=[[0, 10], [1, 0]])
    with pytest.raises(ValueError, match="no row or column for the classes"):
        cube.ordinal.expected_cost(cost=frame.rename(index={"a": "z"}))
    wider = pd.DataFrame(np.ones((3, 3)) - np.eye(3), index=["a", "b", "c"], columns=["a", "b", "c"])
    with pytest.raises(ValueError, match=r"1 labels that are not classes: \['c'\]"):  # not silently dropped
        cube.ordinal.expected_cost(cost=wider)
    with pytest.raises(ValueError, match=">= 0"):
        cube.ordinal.expected_cost(cost=[[0, -1], [1, 0]])


# --------------------------------------------------------------------------- size guard and observed groups


def test_dense_cube_size_guard_and_observed_groups():
    n = 2000
    frame = pd.DataFrame(
        {"y": np.arange(n) % 3, "p": np.arange(n) % 2, "g": np.arange(n) * 1000, "h": (np.arange(n) * 7) % 1999}
    )
    with ordframe.set_options(max_cube_bytes=1_000_000):
        with pytest.raises(MemoryError, match=r"observed=True"):
            frame.ordinal.confusion("y", "p", by=["g", "h"])
        cube = frame.ordinal.confusion("y", "p", by=["g", "h"], observed=True)
    assert cube.dims == ("group", "true", "pred") and cube.sizes["group"] == n
    assert int(cube.sum()) == n
    first = cube.sel(g=1000, h=7)
    np.testing.assert_array_equal(first.values, [[0, 0, 0], [0, 1, 0], [0, 0, 0]])
    mae = frame.ordinal.mae("y", "p", by=["g", "h"], observed=True)
    assert mae.sel(g=1000, h=7).item() == 0.0
    with pytest.raises(ValueError, match="max_cube_bytes"):
        ordframe.set_options(max_cube_bytes=-1)


def test_observed_groups_match_dense_ones():
    frame = random_frame(3).assign(f=lambda d: d["y"] % 2)
    dense = frame.ordinal.evaluate("y", "yhat", proba=PROBA, by=["m", "f"], labels=[0, 1, 2], metrics=["rps", "qwk"])
    stacked = frame.ordinal.evaluate(
        "y", "yhat", proba=PROBA, by=["m", "f"], labels=[0, 1, 2], metrics=["rps", "qwk"], observed=True
    )
    xr.testing.assert_allclose(stacked.unstack("group").transpose("m", "f"), dense)


# --------------------------------------------------------------------------- results


@pytest.mark.parametrize(
    "group",
    [
        ["a", "b"] * 10,
        np.arange(20) % 3,
        np.arange(20) % 2 == 0,
        pd.date_range("2020-01-01", periods=4).repeat(5),
        pd.Categorical(["x", "y"] * 10, categories=["y", "x"], ordered=True),
        np.linspace(0, 1, 20).round(1),
        pd.array(np.arange(20) % 3, dtype="Int64"),
        pd.array(np.arange(20) % 2 == 0, dtype="boolean"),
        pd.array(np.arange(20) % 3 / 2, dtype="Float64"),
        pd.to_timedelta(np.arange(20) % 3, unit="D"),
    ],
)
def test_results_are_netcdf_serialisable(group, tmp_path):
    pytest.importorskip("scipy")
    frame = pd.DataFrame({"y": np.arange(20) % 3, "p": np.arange(20) % 2, "g": group})
    ds = frame.ordinal.evaluate("y", "p", by="g", metrics=["mae", "oc"])
    path = tmp_path / "result.nc"
    ds.to_netcdf(path)
    with xr.open_dataset(path) as back:
        np.testing.assert_allclose(back["mae"].values, ds["mae"].values)
    stacked = frame.assign(h=1).ordinal.evaluate("y", "p", by=["g", "h"], metrics=["mae"], observed=True)
    stacked.reset_index("group").to_netcdf(tmp_path / "stacked.nc")  # xarray does not write a MultiIndex itself


def test_metric_methods_have_real_signatures():
    import inspect

    frame = random_frame(1)
    signature = inspect.signature(frame.ordinal.oc)
    assert list(signature.parameters)[:2] == ["true", "pred"]
    assert signature.parameters["beta"].default == 0.75
    assert signature.parameters["beta"].kind is inspect.Parameter.KEYWORD_ONLY
    assert "class_dim" in inspect.signature(xr.DataArray([0]).ordinal.rps).parameters


def test_metric_pickles():
    metric = ordframe.get_metric("oc")
    assert pickle.loads(pickle.dumps(metric)) == metric


def test_label_array_with_a_class_dim_is_not_mistaken_for_probabilities():
    true = xr.DataArray([[0, 1], [2, 2]], dims=("class", "s"))
    pred = xr.DataArray([[0, 1], [2, 1]], dims=("class", "s"))
    assert pred.ordinal.mae(true) == 0.25
    proba = xr.DataArray(np.eye(3)[[0, 1, 2]], dims=("s", "k"), coords={"k": [0, 1, 2]})
    assert proba.ordinal.rps(xr.DataArray([0, 1, 2], dims="s"), class_dim="k") == 0.0


def test_non_dataarray_inputs_to_the_xarray_front_end():
    pred = xr.DataArray([0, 1, 2], dims="s")
    with pytest.raises(TypeError, match="must be an xarray.DataArray"):
        pred.ordinal.mae([0, 1, 2])
    with pytest.raises(TypeError, match="must be an xarray.DataArray"):
        pred.ordinal.confusion(np.array([0, 1, 2]))


def test_dask_arrays_with_unknown_chunk_sizes():
    da = pytest.importorskip("dask.array")
    values = da.from_array(np.array([0, 1, 2, 1]), chunks=2)
    unknown = values[values >= 0]
    pred = xr.DataArray(unknown, dims="s")
    with pytest.raises(ValueError, match="unknown chunk sizes"):
        pred.ordinal.confusion(pred)


def test_warnings_point_at_the_callers_line():
    frame = pd.DataFrame({"y": [0.0, 1.0, np.nan], "p": [0, 1, 1]})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame.ordinal.mae("y", "p", dropna=True)
    assert caught[0].filename == __file__


# --------------------------------------------------------------------------- integer labels coded by offset


@settings(max_examples=60, deadline=None)
@given(
    dtype=st.sampled_from(["int8", "int16", "int64", "uint8", "uint32", "Int64"]),
    low=st.integers(-5, 100),
    span=st.sampled_from([2, 3, 7, 300, 70_000]),
    n=st.integers(2, 40),
    seed=st.integers(0, 1000),
    weighted=st.booleans(),
    declared=st.sampled_from([None, "range", "wide", "reversed"]),
)
@pytest.mark.filterwarnings("ignore::ordframe.LabelWarning")  # predicted values no true label has, on purpose
def test_integer_labels_equal_a_naive_count(dtype, low, span, n, seed, weighted, declared):
    rng = np.random.default_rng(seed)
    if dtype.startswith("u") or (dtype == "Int64" and low < 0):
        low = abs(low)
    high = min(low + span - 1, np.iinfo(dtype.lower()).max if dtype != "Int64" else 2**40)
    values = rng.integers(low, high + 1, (2, n))
    values[:, 0] = [low, high]  # both ends occur
    frame = pd.DataFrame({"y": pd.array(values[0], dtype=dtype), "p": pd.array(values[1], dtype=dtype)})
    w = rng.choice([0.0, 0.5, 2.0], n) if weighted else None
    observed = np.unique(values)
    labels = {
        None: None,
        "range": range(int(low), int(high) + 1),
        "wide": list(range(int(low) - 2, int(high) + 3)),
        "reversed": list(observed[::-1]),
    }[declared]
    if declared in ("range", "wide") and high - low > 500:
        labels = None
    classes = observed if labels is None else np.array(list(labels))
    expected = np.zeros((len(classes), len(classes)))
    position = {int(c): i for i, c in enumerate(classes)}
    for i in range(n):
        expected[position[int(values[0, i])], position[int(values[1, i])]] += 1 if w is None else w[i]
    cube = frame.ordinal.confusion("y", "p", labels=labels, weights=w)
    assert list(cube["true"].values) == list(classes)
    np.testing.assert_allclose(cube.values, expected)
    true = xr.DataArray(frame["y"].to_numpy(dtype="int64"), dims="s")
    pred = xr.DataArray(frame["p"].to_numpy(dtype="int64"), dims="s")
    weights = None if w is None else xr.DataArray(w, dims="s")
    array = pred.ordinal.confusion(true, labels=labels, weights=weights)
    assert list(array["true"].values) == list(classes)
    np.testing.assert_allclose(array.values, expected)


def test_integer_labels_outside_declared_labels_are_listed():
    frame = pd.DataFrame({"y": [0, 1, 2, 9, 9], "p": [0, 1, 2, 2, -3]})
    with pytest.raises(ValueError, match=r"column 'y' has 2 value\(s\) outside the classes \[0, 1, 2\]: 9 \(2 rows\)"):
        frame.ordinal.confusion("y", "p", labels=[0, 1, 2])
    with pytest.raises(ValueError, match=r"column 'p' has 1 value\(s\) outside.*-3 \(1 row\)"):
        frame.ordinal.confusion("y", "p", labels=range(10))


def test_a_class_seen_only_with_zero_weight_is_kept():
    frame = pd.DataFrame({"y": [0, 1, 5], "p": [0, 1, 1]})
    cube = frame.ordinal.confusion("y", "p", weights=[1.0, 1.0, 0.0])
    assert list(cube["true"].values) == [0, 1, 5]
    array = xr.DataArray([0, 1, 1], dims="s").ordinal.confusion(
        xr.DataArray([0, 1, 5], dims="s"), weights=xr.DataArray([1.0, 1.0, 0.0], dims="s")
    )
    assert list(array["true"].values) == [0, 1, 5]


# --------------------------------------------------------------------------- a hostile tester's findings


def _proba_case():
    p = xr.DataArray(
        [[1.0, 0, 0], [1, 0, 0], [0, 0, 1], [1, 0, 0]],
        dims=("sample", "class"),
        coords={"sample": [0, 1, 2, 3], "class": [0, 1, 2]},
    )
    return p, xr.DataArray([0, 0, 2, 2], dims="sample", coords={"sample": [0, 1, 2, 3]})


def test_weights_with_other_coordinates_are_refused_not_joined():
    p, t = _proba_case()
    partial = xr.DataArray([1.0, 1.0], dims="sample", coords={"sample": [0, 1]})
    with pytest.raises(ValueError, match="weights' coordinates disagree"):
        p.ordinal.rps(t, weights=partial)
    with pytest.raises(ValueError, match="weights' coordinates disagree"):
        p.ordinal.aursc(t, weights=partial)


def test_zero_weights_on_arrays_say_so():
    p, t = _proba_case()
    with pytest.warns(RuntimeWarning, match="weights sum to 0"):
        assert np.isnan(p.ordinal.rps(t, weights=xr.DataArray(np.zeros(4), dims="sample")))


@pytest.mark.parametrize(
    "params, error",
    [
        ({"normalize": "no"}, "normalize must be True or False"),
        ({"normalize": np.array([True, False])}, "normalize must be True or False"),
    ],
)
def test_parameters_of_the_wrong_type(params, error):
    p, t = _proba_case()
    with pytest.raises(TypeError, match=error):
        p.ordinal.rps(t, **params)


@pytest.mark.parametrize("eps", ["a", np.array([0.1, 0.2]), True, 2.0])
def test_log_score_eps_is_checked(eps):
    p, t = _proba_case()
    with pytest.raises(ValueError, match="eps must be a number in"):
        p.ordinal.log_score(t, eps=eps)


def test_cost_of_strings_is_refused():
    cube = xr.DataArray(np.eye(3), dims=("true", "pred"))
    with pytest.raises(TypeError, match="matrix of real numbers"):
        cube.ordinal.expected_cost(cost=[["a"] * 3] * 3)


def test_array_evaluate_output_named_like_a_dim_is_refused():
    p, t = _proba_case()
    with pytest.raises(ValueError, match="also the name of a dim"):
        p.ordinal.evaluate(t, class_dim="class", dim=[], metrics={"sample": "rps"})


def test_column_names_that_are_not_names():
    frame = pd.DataFrame({0: [0, 1, 2], 1: [2, 1, 0], "g": [0, 0, 1]})
    with pytest.raises(TypeError, match="true must name a column"):
        frame.ordinal.mae(True, 0)
    with pytest.raises(TypeError, match="true must name a column"):
        frame.ordinal.mae(frame[0], 1)


@pytest.mark.filterwarnings("ignore::ordframe.LabelWarning")  # predicted values no true label has, on purpose
def test_sparse_integer_groups_are_not_counted_over_their_span():
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"y": rng.integers(0, 100, 200), "p": rng.integers(0, 100, 200), "g": rng.choice([0, 60000], 200)}
    )
    result = frame.ordinal.mae("y", "p", by="g")
    assert list(result["g"].values) == [0, 60000]
    expected = frame.assign(e=(frame.y - frame.p).abs()).groupby("g")["e"].mean()
    np.testing.assert_allclose(result.values, expected.values)


def test_worst_takes_a_score_with_parameters():
    p, t = _proba_case()
    table = ordframe.worst(p, t, score=("rps", {"normalize": False}), top=1)
    assert table["rps"].iloc[0] == 2.0
    with pytest.raises(ValueError, match="score= must name one proba metric"):
        ordframe.worst(p, t, score=["rps", "brier"])


@pytest.mark.parametrize("name", ["score", "retained"])
def test_aursc_dim_names_that_clash(name):
    frame = random_frame(1).assign(**{name: lambda d: d["m"]})
    with pytest.raises(ValueError, match="retention curves use for their own dim"):
        frame.ordinal.aursc("y", PROBA, by=name, labels=[0, 1, 2])


def test_datetime_label_arrays_match_their_labels():
    days = pd.date_range("2020-01-01", periods=3).to_numpy()  # datetime64[ns]
    true = xr.DataArray(days[[0, 1, 2, 2]], dims="s")
    pred = xr.DataArray(days[[0, 2, 2, 1]], dims="s")
    assert pred.ordinal.mae(true, labels=list(pd.DatetimeIndex(days))) == 0.5


def test_multiindex_labels_are_refused():
    with pytest.raises(TypeError, match="flat list"):
        random_frame(1).ordinal.mae("y", "yhat", labels=pd.MultiIndex.from_tuples([(0, 0), (1, 1)]))


def test_register_checks_what_it_is_given(restore_registry):
    with pytest.raises(TypeError, match="no @ordframe.hookimpl"):
        ordframe.register(3)
    import ordframe.metrics.classic as classic

    with pytest.raises(ValueError, match="already registered"):
        ordframe.register(classic)


@pytest.mark.parametrize("name", ["weights", "by", "dim", "class_dim", "labels"])
def test_metric_parameters_named_like_accessor_arguments_are_refused(name):
    def kernel(counts, **params):
        return counts.sum(axis=(-2, -1))

    with pytest.raises(ValueError, match="argument of the .ordinal accessor methods"):
        ordframe.Metric("odd", "confusion", kernel, True, defaults={name: 1})


def test_a_missing_label_is_counted_once_before_broadcasting():
    true = xr.DataArray([0.0, np.nan, 2, 1], dims="s", coords={"s": list("abcd")})
    pred = xr.DataArray(np.zeros((5, 4)), dims=("m", "s"))
    with pytest.raises(ValueError, match=r"1 missing value\(s\).*first at rows \['b'\]"):
        pred.ordinal.mae(true, dim="s")


def test_empty_by_list_is_one_value():
    frame = random_frame(1)
    assert frame.ordinal.mae("y", "yhat", by=[]) == frame.ordinal.mae("y", "yhat")


def test_complex_weights_are_refused():
    frame = random_frame(1)
    with pytest.raises(TypeError, match="real numbers"):
        frame.ordinal.mae("y", "yhat", weights=pd.Series(np.ones(60) + 1j, index=frame.index))


def test_one_column_for_two_classes_is_refused():
    frame = pd.DataFrame({"y": [0, 1], "a": [0.5, 0.5], "z": [0.0, 0.0]})
    with pytest.raises(ValueError, match="several classes to the column"):
        frame.ordinal.rps("y", {0: "a", 1: "a", 2: "z"})
    with pytest.raises(ValueError, match="more than once"):
        frame.ordinal.rps("y", ["a", "a", "z"], labels=[0, 1, 2])


def test_paths_of_an_empty_matrix_warn_nothing():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = ordframe.oc_path(xr.DataArray(np.zeros((3, 3)), dims=("true", "pred")))
    assert (path.values == -1).all()


# --------------------------------------------------------------------------- guard rails


def test_predicted_values_that_no_true_label_has_are_warned_about():
    frame = pd.DataFrame({"y": [1, 2, 3, 3], "p": [1.0, 2.3, 3.0, 3.3]})
    with pytest.warns(ordframe.LabelWarning, match=r"predicts 2 value\(s\) that no true label has \(2.3, 3.3\).*round"):
        frame.ordinal.mae("y", "p")
    with pytest.warns(ordframe.LabelWarning, match=r"\(4\).*K = 4"):
        xr.DataArray([1, 2, 4], dims="s").ordinal.mae(xr.DataArray([1, 2, 3], dims="s"))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pd.DataFrame({"y": [1, 2, 3], "p": [1, 2, 4]}).ordinal.mae("y", "p", labels=[1, 2, 3, 4])
        pd.DataFrame({"y": [1, 2, 3], "p": [1, 2, 2]}).ordinal.mae("y", "p")


def test_groups_with_their_own_classes_are_warned_about_but_small_folds_are_not():
    rng = np.random.default_rng(0)
    a = pd.DataFrame({"y": rng.integers(0, 3, 300), "g": "a"})  # classes 0..2
    b = pd.DataFrame({"y": rng.integers(2, 6, 300), "g": "b"})  # classes 2..5
    both = pd.concat([a, b]).assign(p=lambda d: d["y"])
    with pytest.warns(ordframe.LabelWarning, match=r"2 group\(s\) of 'g' have no true sample.*K = 6"):
        both.ordinal.oc("y", "p", by="g")
    rare = pd.DataFrame({"y": np.r_[np.zeros(2, int), rng.integers(1, 4, 200)], "fold": np.arange(202) % 5})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        rare.assign(p=rare["y"]).ordinal.oc("y", "p", by="fold")  # folds missing the rare class 0: no warning
        both.ordinal.oc("y", "p", by="g", labels=range(6))  # declared classes: the user chose K


@pytest.mark.parametrize(
    ("true", "pred", "dtypes"),
    [([-1, 20871], [32767, 8839], ("int16", "int16")), ([-5, 3], [250, 3], ("int8", "uint8"))],
)
def test_narrow_integer_labels_whose_span_overflows_their_dtype(true, pred, dtypes):
    """32767 - (-1) does not fit int16, nor 250 - (-5) uint8: the positions are computed in a wide type."""
    df = pd.DataFrame({"y": np.array(true, dtype=dtypes[0]), "p": np.array(pred, dtype=dtypes[1])})
    with pytest.warns(ordframe.LabelWarning):
        cube = df.ordinal.confusion("y", "p")
    classes = sorted(set(true) | set(pred))
    assert cube["true"].values.tolist() == classes
    for t, p in zip(true, pred):
        assert int(cube.sel(true=t, pred=p)) == 1


def test_a_selection_is_checked_once_where_it_is_built_and_cannot_change():
    import dataclasses

    from ordframe._inputs.selection import Selection

    selection = Selection("y", "yhat", by="fold")
    assert selection.by == ("fold",)
    with pytest.raises(dataclasses.FrozenInstanceError):
        selection.labels = [0, 1]  # type: ignore[misc]
    with pytest.raises(TypeError, match="dropna= must be True or False, got 'yes'"):
        Selection("y", "yhat", dropna="yes")
    with pytest.raises(TypeError, match="model= names columns by str or int"):
        Selection("y", "yhat", by=[1.5], by_keyword="model")
    with pytest.raises(TypeError, match="observed= must be True or False"):
        selection.but(observed=1)  # a changed copy is checked again


def test_resampling_is_checked_once_and_records_how_it_draws():
    from ordframe._core.drawing import Resampling

    draws = Resampling(50, None, "s", "fold", "patient")
    assert isinstance(draws.seed, int) and draws.strata == ("fold",)  # the fresh seed is chosen once, and kept
    assert draws.record() == {
        "n_resamples": 50, "seed": draws.seed, "method": "clusters", "sample": "s", "strata": '["fold"]',
        "cluster": "patient",
    }  # fmt: skip
    with pytest.raises(TypeError, match="n_resamples must be a whole number"):
        Resampling(0)
    with pytest.raises(TypeError, match="cluster= names one column"):
        Resampling(cluster=["a", "b"])


def test_a_frame_error_carries_the_step_of_the_front_end_that_raised_it():
    """The steps run in order over all rows: a frame read in parts fails with its earliest step's error."""
    from ordframe._inputs.frame import FRAME_STEPS, frame_rows
    from ordframe._inputs.selection import Selection

    df = pd.DataFrame({"y": [0, 1, None], "yhat": [0, 1, 1], "w": [1.0, -1.0, 1.0]})
    names = [step.__name__ for step in FRAME_STEPS]
    with pytest.raises(ValueError) as missing:
        frame_rows(df, Selection("y", "yhat"))
    assert names[missing.value.step] == "_drop_missing"
    with pytest.raises(ValueError) as negative:
        frame_rows(df, Selection("y", "yhat", weights="w"))
    assert names[negative.value.step] == "_read_weights"  # weights are checked before missing labels
