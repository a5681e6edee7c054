"""The dask DataFrame accessor: the pandas front end per partition, so every result and every error is pandas'.

The parity suite draws hostile frames (missing labels, group and sample
values; integer and tuple column names; reversed and unknown categoricals;
duplicate (sample, model) rows; 1 to 7 partitions, some empty) and checks
that ``ddf.ordinal`` gives what ``ddf.compute().ordinal`` gives: the same
cube, or an error of the same type.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import ordframe  # noqa: F401
from ordframe._inputs.selection import Selection

dd = pytest.importorskip("dask.dataframe")
dsa = pytest.importorskip("dask.array")
dask = pytest.importorskip("dask")


@pytest.fixture
def frame():
    rng = np.random.default_rng(4)
    n = 600
    y = rng.integers(0, 5, n)
    return pd.DataFrame(
        {
            "y": y,
            "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 4),
            "model": rng.choice(["lr", "rf", "svm"], n),
            "fold": rng.integers(0, 4, n),
            "w": rng.random(n),
        }
    )


def partitioned(df: pd.DataFrame, npartitions: int, empty: tuple = ()) -> "dd.DataFrame":
    """``df`` in ``npartitions`` partitions, those numbered in ``empty`` emptied (as a user's filter empties them)."""
    ddf = dd.from_pandas(df, npartitions=npartitions, sort=False)
    return ddf.map_partitions(_emptied, set(empty), meta=ddf._meta) if empty else ddf


def _emptied(part: pd.DataFrame, empty: set, partition_info=None) -> pd.DataFrame:
    return part.iloc[:0] if partition_info is not None and partition_info["number"] in empty else part


def outcome(func):
    """``("value", result)`` or ``("error", exception type)``; warnings are not the point here."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            result = func()
            return "value", result.compute() if hasattr(result, "compute") else result
        except (ValueError, TypeError, KeyError, MemoryError) as exc:  # a lazy result raises when computed
            return "error", next(
                kind for kind in (MemoryError, KeyError, TypeError, ValueError) if isinstance(exc, kind)
            )


def assert_same(pandas_call, dask_call):
    expected, got = outcome(pandas_call), outcome(dask_call)
    assert expected[0] == got[0], (expected, got)
    if expected[0] == "error":
        assert expected[1] is got[1]
    else:
        xr.testing.assert_identical(got[1], expected[1])


# --- the parity suite ------------------------------------------------------------------------------------------------


@st.composite
def frames(draw):
    n = draw(st.integers(0, 30))
    k = draw(st.integers(2, 4))
    ints = st.lists(st.integers(0, k - 1), min_size=n, max_size=n)
    y, yhat = np.array(draw(ints), dtype=float), np.array(draw(ints), dtype=float)
    if n and draw(st.booleans()):
        y[draw(st.lists(st.integers(0, n - 1), max_size=2))] = np.nan
    names = draw(st.sampled_from([("y", "yhat", "g"), (0, 1, 7), (("y", "a"), ("yhat", "a"), "g")]))
    group = np.array(draw(st.lists(st.sampled_from([0.0, 1.0, 3.0, np.nan]), min_size=n, max_size=n)))
    df = pd.DataFrame({names[0]: y, names[1]: yhat, names[2]: group})
    kind = draw(st.sampled_from(["float", "int", "ordered", "reversed", "unknown", "string"]))
    if kind != "float" and not np.isnan(y).any():
        df[names[0]] = df[names[0]].astype(int)
        df[names[1]] = df[names[1]].astype(int)
    if kind in ("ordered", "reversed", "unknown"):
        categories = list(range(k))
        df[names[0]] = pd.Categorical(df[names[0]], categories=categories, ordered=True)
        df[names[1]] = pd.Categorical(
            df[names[1]], categories=categories[::-1] if kind == "reversed" else categories, ordered=True
        )
    if kind == "string":
        df[names[0]] = df[names[0]].map(lambda v: f"c{v}")
        df[names[1]] = df[names[1]].map(lambda v: f"c{v}")
    if draw(st.booleans()) and not np.isnan(group).any():
        df[names[2]] = df[names[2]].astype(int)
    if draw(st.booleans()):
        df[names[2]] = df[names[2]].astype("category")
    arguments = {
        "by": draw(st.sampled_from([None, names[2]])),
        "labels": draw(st.sampled_from([None, list(range(k)), [f"c{i}" for i in range(k)]])),
        "dropna": draw(st.booleans()),
        "observed": draw(st.booleans()),
    }
    partitions = draw(st.integers(1, 7))
    empty = tuple(draw(st.lists(st.integers(0, 6), max_size=2)))
    return df, names, arguments, partitions, empty, kind == "unknown"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(frames())
def test_every_dask_result_and_error_is_pandas(case):
    df, (true, pred, _), arguments, partitions, empty, unknown = case
    ddf = partitioned(df, partitions, empty)
    if unknown:
        ddf = ddf.assign(**{str(c): ddf[c].cat.as_unknown() for c in (true, pred) if isinstance(c, str)})
    whole = ddf.compute()  # what the partitions hold, as one pandas frame
    assert_same(
        lambda: whole.ordinal.confusion(true, pred, **arguments),
        lambda: ddf.ordinal.confusion(true, pred, **arguments),
    )


@st.composite
def long_frames(draw):
    n = draw(st.integers(1, 12))
    y = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
    rows = []
    for model in ("a", "b"):
        pred = np.array(draw(st.lists(st.integers(0, 2), min_size=n, max_size=n)))
        rows.append(pd.DataFrame({"s": np.arange(n, dtype=float), "y": y, "yhat": pred, "model": model}))
    df = pd.concat(rows, ignore_index=True)
    df["fold"] = (df["s"] % 2).astype(float)
    trouble = draw(st.sampled_from(["none", "nan_sample", "nan_fold", "duplicate", "missing", "true_differs"]))
    at = draw(st.integers(0, len(df) - 1))
    if trouble == "nan_sample":
        df.loc[at, "s"] = np.nan
    elif trouble == "nan_fold":
        df.loc[at, "fold"] = np.nan
    elif trouble == "duplicate":  # sample 0 gets two rows of model a and none of model b
        df.loc[df.index[(df.model == "b") & (df.s == 0)], "model"] = "a"
    elif trouble == "missing":
        df = df.drop(index=at)
    elif trouble == "true_differs":
        df.loc[at, "y"] = (df.loc[at, "y"] + 1) % 3
    strata = draw(st.sampled_from([None, "fold"]))
    return df.sample(frac=1.0, random_state=draw(st.integers(0, 9))), strata, draw(st.integers(1, 5))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(long_frames(), st.booleans())
@pytest.mark.slow
def test_every_dask_bootstrap_error_is_pandas_and_replicates_agree(case, dropna):
    df, strata, partitions = case
    ddf = partitioned(df, partitions)
    call = dict(model="model", sample="s", strata=strata, n_resamples=20, seed=3, dropna=dropna)
    expected = outcome(lambda: df.ordinal.bootstrap("y", "yhat", **call))
    got = outcome(lambda: ddf.ordinal.bootstrap("y", "yhat", **call))
    assert expected[0] == got[0], (expected, got)
    if expected[0] == "error":
        assert expected[1] is got[1]
    else:  # the same seed draws the same replicates: the patterns are listed in the same order
        xr.testing.assert_identical(got[1], expected[1])


# --- examples --------------------------------------------------------------------------------------------------------


def test_integer_column_names_as_read_csv_header_none_gives(frame):
    """Hostile review H1: by= an integer column name gave wrong values per group."""
    pdf = pd.DataFrame({"y": [0, 1, 2, 0, 0, 1, 2, 2], "yhat": [0, 1, 2, 0, 2, 2, 2, 2], 7: [0, 0, 1, 1, 2, 2, 3, 3]})
    ddf = dd.from_pandas(pdf, npartitions=2)
    xr.testing.assert_identical(ddf.ordinal.mae("y", "yhat", by=7), pdf.ordinal.mae("y", "yhat", by=7))
    xr.testing.assert_identical(ddf.ordinal.confusion("y", "yhat", by=7), pdf.ordinal.confusion("y", "yhat", by=7))


def test_unknown_categories_are_read_not_lost(frame):
    """Hostile review H3: categoricals with unknown categories (dd.read_csv(dtype="category")) lost every row."""
    df = frame.assign(model=frame["model"].astype("category"))
    ddf = dd.from_pandas(df, npartitions=3)
    ddf = ddf.assign(model=ddf["model"].cat.as_unknown())
    cube = ddf.ordinal.confusion("y", "yhat", by="model")
    xr.testing.assert_identical(cube, df.ordinal.confusion("y", "yhat", by="model"))
    assert int(cube.sum()) == len(frame)


def test_unknown_categories_from_read_csv(tmp_path, frame):
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    ddf = dd.read_csv(path, dtype={"model": "category"}, blocksize=2_000)
    assert ddf.npartitions > 1 and not ddf["model"].cat.known
    cube = ddf.ordinal.confusion("y", "yhat", by="model")
    expected = pd.read_csv(path, dtype={"model": "category"}).ordinal.confusion("y", "yhat", by="model")
    xr.testing.assert_equal(cube.sortby("model"), expected.sortby("model"))


def test_reversed_ordered_categoricals_raise_as_in_pandas(frame):
    """The code review's divergence: pandas raised, dask returned 0.25."""
    y = pd.Categorical(frame["y"], categories=range(5), ordered=True)
    yhat = pd.Categorical(frame["yhat"], categories=range(5)[::-1], ordered=True)
    df = pd.DataFrame({"y": y, "yhat": yhat})
    with pytest.raises(ValueError, match="different categories"):
        df.ordinal.mae("y", "yhat")
    with pytest.raises(ValueError, match="different categories"):
        dd.from_pandas(df, npartitions=2).ordinal.mae("y", "yhat")


def test_missing_labels_are_named_by_the_users_row_labels(frame):
    df = frame.set_index(pd.Index([f"r{i}" for i in range(len(frame))]))
    df.loc["r450", "y"] = np.nan
    with pytest.raises(ValueError, match=r"column 'y' has 1 missing value\(s\).*\['r450'\]"):
        dd.from_pandas(df, npartitions=4).ordinal.confusion("y", "yhat")


def test_dropped_rows_are_reported_once_for_the_whole_frame(frame):
    df = frame.astype({"y": float})
    df.loc[[3, 300, 500], "y"] = np.nan
    with pytest.warns(ordframe.DroppedRowsWarning) as caught:
        dd.from_pandas(df, npartitions=4).ordinal.confusion("y", "yhat", dropna=True)
    assert [str(w.message) for w in caught] == [f"dropna=True dropped 3 of {len(df)} rows with a missing value in 'y'"]


@pytest.mark.parametrize(
    "kwargs", [{}, {"by": ["model", "fold"]}, {"by": "fold", "weights": "w"}, {"labels": range(6)}, {"observed": True}]
)
def test_cubes_equal_pandas(frame, kwargs):
    by = kwargs.get("by")
    frame = frame.assign(model=frame["model"].astype("category")) if by else frame
    ddf = dd.from_pandas(frame, npartitions=5)
    cube = ddf.ordinal.confusion("y", "yhat", **kwargs)
    xr.testing.assert_allclose(cube.compute(), frame.ordinal.confusion("y", "yhat", **kwargs))


class CountComputes:
    """A dask scheduler that counts how often it is asked to compute."""

    def __init__(self):
        self.calls = 0

    def __call__(self, dsk, keys, **kwargs):
        self.calls += 1
        return dask.get(dsk, keys, **kwargs)


def test_declared_classes_and_groups_stay_lazy(frame):
    ddf = dd.from_pandas(frame, npartitions=3).categorize(columns=["model"])
    counter = CountComputes()
    with dask.config.set(scheduler=counter):
        cube = ddf.ordinal.confusion("y", "yhat", by="model", labels=range(5))
        ds = ddf.ordinal.evaluate("y", "yhat", by="model", labels=range(5), metrics=["oc", "mae"])
        assert counter.calls == 0
        assert isinstance(cube.data, dsa.Array) and all(isinstance(v.data, dsa.Array) for v in ds.data_vars.values())
        xr.testing.assert_allclose(ds.compute(), frame.ordinal.evaluate("y", "yhat", by="model", metrics=["oc", "mae"]))
    assert counter.calls == 1


def test_inferred_classes_are_read_in_one_pass(frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    counter = CountComputes()
    with dask.config.set(scheduler=counter):
        cube = ddf.ordinal.confusion("y", "yhat", by=["model", "fold"])
    assert counter.calls == 1 and isinstance(cube.data, np.ndarray)
    xr.testing.assert_identical(cube, frame.ordinal.confusion("y", "yhat", by=["model", "fold"]))


def test_metrics_and_evaluate_equal_pandas(frame):
    ddf = dd.from_pandas(frame, npartitions=3)
    ds = ddf.ordinal.evaluate("y", "yhat", by="model", metrics=["oc", "mae", "qwk"])
    xr.testing.assert_allclose(ds, frame.ordinal.evaluate("y", "yhat", by="model", metrics=["oc", "mae", "qwk"]))
    assert ddf.ordinal.mae("y", "yhat") == pytest.approx(frame.ordinal.mae("y", "yhat"))
    assert ddf.ordinal.uoc("y", "yhat", by="fold").dims == ("fold",)


def test_report_equals_pandas_on_a_filtered_sorted_frame(frame):
    shuffled = frame[frame["fold"] != 0].sort_values("yhat").set_index(np.arange(len(frame[frame["fold"] != 0])) * 7)
    ddf = dd.from_pandas(shuffled, npartitions=3)
    xr.testing.assert_identical(
        ddf.ordinal.report("y", "yhat", by="model", metrics=["oc", "mae"]),
        shuffled.ordinal.report("y", "yhat", by="model", metrics=["oc", "mae"]),
    )


def test_categorical_and_string_labels(frame):
    grades = ["low", "mid", "high", "top", "max"]
    named = frame.assign(y=np.array(grades)[frame["y"]], yhat=np.array(grades)[frame["yhat"]])
    ddf = dd.from_pandas(named, npartitions=4)
    with pytest.raises(TypeError, match="Pass labels="):
        ddf.ordinal.confusion("y", "yhat")
    cube = ddf.ordinal.confusion("y", "yhat", labels=grades, by="model").compute()
    xr.testing.assert_equal(cube, named.ordinal.confusion("y", "yhat", labels=grades, by="model"))


def test_errors_name_the_column_and_the_alternative(frame):
    ddf = dd.from_pandas(frame, npartitions=2)
    with pytest.raises(KeyError, match="'nope'"):
        ddf.ordinal.confusion("y", "nope")
    with pytest.raises(AttributeError, match="scores class probabilities.*ddf.compute()"):
        ddf.ordinal.rps("y", ["a"])
    with pytest.raises(TypeError, match=r"not class probabilities; score ddf.compute\(\)"):
        ddf.ordinal.evaluate("y", "yhat", proba=["p0", "p1"])
    with pytest.raises(TypeError, match="weights= must name a column"):
        ddf.ordinal.confusion("y", "yhat", weights=np.ones(len(frame)))
    with pytest.raises(TypeError, match="expected a dask DataFrame"):
        ordframe._inputs.dask_frame.dask_cube(frame, Selection("y", "yhat"))


@pytest.mark.slow
def test_importing_ordframe_does_not_import_dask_dataframe():
    import subprocess
    import sys

    code = "import sys, ordframe; print('dask.dataframe' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "False"
    code = "import ordframe, pandas as pd, dask.dataframe as dd; print(hasattr(dd.from_pandas(pd.DataFrame({'y': [0]}), 1), 'ordinal'))"
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True).stdout.strip() == "True"


@pytest.mark.slow
def test_on_a_distributed_local_cluster(frame):
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=None) as cluster:
        with distributed.Client(cluster):
            ddf = dd.from_pandas(frame, npartitions=6)
            result = ddf.ordinal.confusion("y", "yhat", by=["model", "fold"]).ordinal.oc()
            pairs = long_predictions(60)
            call = dict(model="model", sample="sample", strata="fold", n_resamples=50, seed=0)
            boot = dd.from_pandas(pairs, npartitions=3).ordinal.bootstrap("y", "yhat", **call)
    xr.testing.assert_allclose(result, frame.ordinal.oc("y", "yhat", by=["model", "fold"]))
    xr.testing.assert_identical(boot, pairs.ordinal.bootstrap("y", "yhat", **call))


def long_predictions(n=300):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, n)
    a = np.clip(y + rng.choice([-1, 0, 0, 1], n), 0, 3)
    b = np.where(rng.random(n) < 0.2, rng.integers(0, 4, n), a)
    parts = [
        pd.DataFrame({"sample": np.arange(n), "y": y, "yhat": p, "model": m}) for m, p in (("a", a), ("b", b), ("c", a))
    ]
    return pd.concat(parts, ignore_index=True).assign(fold=lambda d: d["sample"] % 3)


def test_paired_bootstrap_of_a_dask_frame_is_pandas():
    frame = long_predictions()
    shuffled = frame.sample(frac=1.0, random_state=1)
    ddf = dd.from_pandas(shuffled, npartitions=4)
    call = dict(model="model", sample="sample", strata="fold", n_resamples=2000, seed=0)
    lazy = ddf.ordinal.bootstrap("y", "yhat", **call)
    xr.testing.assert_identical(lazy, shuffled.ordinal.bootstrap("y", "yhat", **call))
    assert (lazy.sum(("true", "pred")) == 100).all()
    mae = lazy.sum("fold").ordinal.mae()
    np.testing.assert_array_equal(mae.sel(model="a"), mae.sel(model="c"))


def test_paired_bootstrap_of_a_dask_frame_checks_the_pairs():
    """Hostile review H2: missing ids and strata, and a sample with two rows of one model and none of another."""
    frame = long_predictions(30)
    with pytest.raises(ValueError, match="sample="):
        dd.from_pandas(frame, npartitions=2).ordinal.bootstrap("y", "yhat", model="model", n_resamples=10)
    with pytest.raises(ValueError, match="exactly one row of every model"):
        dd.from_pandas(frame.iloc[1:], npartitions=2).ordinal.bootstrap(
            "y", "yhat", model="model", sample="sample", n_resamples=10
        )
    bad = frame.copy()
    bad.loc[0, "y"] = (bad.loc[0, "y"] + 1) % 4
    with pytest.raises(ValueError, match="different true labels"):
        dd.from_pandas(bad, npartitions=2).ordinal.bootstrap(
            "y", "yhat", model="model", sample="sample", n_resamples=10
        )
    twice = frame.copy()
    twice.loc[twice.index[(twice.model == "b") & (twice["sample"] == 0)], "model"] = "a"
    with pytest.raises(ValueError, match="exactly one row of every model"):
        dd.from_pandas(twice, npartitions=3).ordinal.bootstrap(
            "y", "yhat", model="model", sample="sample", n_resamples=10
        )
    holes = frame.astype({"sample": float, "fold": float})
    holes.loc[3, "sample"] = np.nan
    with pytest.raises(ValueError, match="column 'sample' has 1 missing"):
        dd.from_pandas(holes, npartitions=3).ordinal.bootstrap(
            "y", "yhat", model="model", sample="sample", n_resamples=10
        )
    holes = frame.astype({"fold": float})
    holes.loc[5, "fold"] = np.nan
    with pytest.raises(ValueError, match="column 'fold' has 1 missing"):
        dd.from_pandas(holes, npartitions=3).ordinal.bootstrap(
            "y", "yhat", model="model", sample="sample", strata="fold", n_resamples=10
        )


def test_integer_group_values_that_no_row_has_are_dropped_in_one_partition_too():
    df = pd.DataFrame({"y": [0.0, 0.0], "yhat": [0.0, 1.0], "g": [0, 3]})
    for npartitions in (1, 2):
        ddf = dd.from_pandas(df, npartitions=npartitions)
        cube = ddf.ordinal.confusion("y", "yhat", by="g", labels=[0.0, 1.0])
        assert cube.g.values.tolist() == [0, 3]
        assert df.ordinal.confusion("y", "yhat", by="g", labels=[0.0, 1.0]).g.values.tolist() == [0, 3]


def test_missing_values_in_several_partitions_are_counted_over_the_whole_frame():
    """Review round 3: two NaN, one per partition, were said as '1 missing value(s)', the first partition's count."""
    n = 400
    df = pd.DataFrame(
        {
            "y": np.arange(n) % 3 * 1.0,
            "yhat": np.arange(n) % 3,
            "model": np.where(np.arange(n) < 200, "a", "b"),
            "s": np.arange(n) % 200 * 1.0,
        }
    )
    df.loc[[10, 300], "y"] = np.nan
    whole = r"column 'y' has 2 missing value\(s\) \(NaN/None/NA\), first at rows \[10, 300\]"
    with pytest.raises(ValueError, match=whole):
        df.ordinal.mae("y", "yhat")  # the pandas front end, for the same words
    with pytest.raises(ValueError, match=whole):
        dd.from_pandas(df, npartitions=2).ordinal.confusion("y", "yhat", by="model")
    ids = df.assign(y=df["y"].fillna(0))
    ids.loc[[3, 203], "s"] = np.nan
    with pytest.raises(
        ValueError, match=r"column 's' has 2 missing value\(s\) \(NaN/None/NA\), first at rows \[3, 203\]"
    ):
        dd.from_pandas(ids, npartitions=2).ordinal.bootstrap("y", "yhat", model="model", sample="s", n_resamples=10)


# --- score metrics (marker=) -----------------------------------------------------------------------------------------


def score_frame():
    rng = np.random.default_rng(6)
    n = 50
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 3, n),
            "model": rng.choice(["a", "b"], n),
            "fold": rng.integers(0, 3, n),
            "w": rng.random(n),
        }
    )
    df["s"] = df["y"] + rng.normal(size=n).round(1)  # ties within and across partitions
    df["yhat"] = np.clip(df["y"] + rng.integers(-1, 2, n), 0, 2)
    return df


def test_score_metrics_of_a_dask_frame_are_those_of_the_computed_frame():
    df = score_frame()
    holed = df.assign(s=df["s"].where(df.index % 7 != 0))
    holed.loc[[7, 14], "model"] = "c"  # a group whose every row is dropped: NaN, as pandas keeps it
    metrics = ["mae", "orc", "vus", "marker_kendall_tau_b"]
    for variant, kwargs in (
        (df.sample(frac=1, random_state=0), {"by": "model", "weights": "w"}),
        (df.set_index(np.arange(len(df))[::-1] * 3), {"by": ["model", "fold"]}),
        (df[df["fold"] != 0].sort_values("s"), {"by": ["model", "fold"], "observed": True}),
        (holed, {"by": "model", "dropna": True}),
    ):
        ddf = dd.from_pandas(variant, npartitions=3)
        with warnings.catch_warnings(record=True) as expected_warnings:
            warnings.simplefilter("always")
            expected = variant.ordinal.evaluate("y", "yhat", marker="s", metrics=metrics, **kwargs)
        with warnings.catch_warnings(record=True) as got_warnings:
            warnings.simplefilter("always")
            got = ddf.ordinal.evaluate("y", "yhat", marker="s", metrics=metrics, **kwargs)
        assert [str(w.message) for w in got_warnings] == [str(w.message) for w in expected_warnings]
        xr.testing.assert_allclose(got, expected, rtol=0, atol=1e-12)
        assert list(got) == metrics and all(got[m].attrs == expected[m].attrs for m in metrics)
    assert np.isnan(got["orc"].sel(model="c")) and [str(w.message) for w in got_warnings] == [
        "dropna=True dropped 8 of 50 rows with a missing value in 's'"
    ]
    ddf = dd.from_pandas(df, npartitions=3)
    assert ddf.ordinal.orc("y", "s") == pytest.approx(df.ordinal.orc("y", "s"), abs=1e-12)
    xr.testing.assert_allclose(ddf.ordinal.vus("y", "s", by="fold"), df.ordinal.vus("y", "s", by="fold"), atol=1e-12)


def test_score_metrics_stay_lazy_with_declared_classes_and_groups():
    df = score_frame()
    ddf = dd.from_pandas(df, npartitions=3).categorize(columns=["model"])
    counter = CountComputes()
    with dask.config.set(scheduler=counter):
        ds = ddf.ordinal.evaluate("y", "yhat", marker="s", by="model", labels=range(3), metrics=["mae", "orc"])
        orc = ddf.ordinal.orc("y", "s", by="model", labels=range(3))
        assert counter.calls == 0
        assert all(isinstance(v.data, dsa.Array) for v in (*ds.data_vars.values(), orc))
        computed = ds.compute()
    assert counter.calls == 1  # the cube and the score metrics: one pass
    expected = df.ordinal.evaluate("y", "yhat", marker="s", by="model", metrics=["mae", "orc"])
    xr.testing.assert_allclose(computed, expected, rtol=0, atol=1e-12)
    xr.testing.assert_allclose(orc.compute(), expected["orc"], rtol=0, atol=1e-12)
    inferred = CountComputes()
    with dask.config.set(scheduler=inferred):
        dd.from_pandas(df, npartitions=3).ordinal.evaluate("y", "yhat", marker="s", by="model")
    assert inferred.calls == 1


def test_score_metric_errors_are_pandas():
    df = score_frame()
    ddf = dd.from_pandas(df, npartitions=3)
    with pytest.raises(KeyError, match="marker column 'nope'"):
        ddf.ordinal.orc("y", "nope")
    with pytest.raises(ValueError, match=r"\['mae'\] need predicted labels"):
        ddf.ordinal.evaluate("y", marker="s", metrics=["mae", "orc"])
    with pytest.raises(ValueError, match=r"\['orc'\] need a continuous score.*marker="):
        ddf.ordinal.evaluate("y", "yhat", metrics=["orc"])
    holes = df.assign(s=df["s"].where(~df.index.isin([2, 40])))  # in the first and last partitions
    whole = r"column 's' has 2 missing value\(s\) \(NaN/None/NA\), first at rows \[2, 40\]"
    with pytest.raises(ValueError, match=whole):
        holes.ordinal.orc("y", "s")
    with pytest.raises(ValueError, match=whole):
        dd.from_pandas(holes, npartitions=3).ordinal.orc("y", "s", by="model")
