"""ms and gm against scikit-learn's per-class recall, and the per-class report against classification_report."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics
import xarray as xr

import ordframe
from ordframe import METRIC_SETS, format_report, report_cube
from ordframe._diagnostics.report import AVERAGE_NAMES, PER_CLASS
from ordframe.metrics.classic import gm, ms

DEFAULT_METRICS = METRIC_SETS["report"]


def random_labels(rng, k, n):
    """True and predicted class indices; some classes get no true samples, some no predictions."""
    true = rng.choice(rng.choice(k, size=rng.integers(1, k + 1), replace=False), size=n)
    pred = rng.choice(rng.choice(k, size=rng.integers(1, k + 1), replace=False), size=n)
    return true, pred


def sklearn_recalls(true, pred):
    """Recall of every class that has true samples, by scikit-learn."""
    present = np.unique(true)
    return sklearn.metrics.recall_score(true, pred, labels=present, average=None, zero_division=0)


@pytest.mark.parametrize("seed", range(40))
def test_ms_and_gm_equal_sklearn_recalls(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    true, pred = random_labels(rng, k, int(rng.integers(1, 60)))
    recalls = sklearn_recalls(true, pred)
    df = pd.DataFrame({"y": true, "yhat": pred})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got_ms = df.ordinal.ms("y", "yhat", labels=range(k))
        got_gm = df.ordinal.gm("y", "yhat", labels=range(k))
    assert got_ms == pytest.approx(recalls.min(), abs=1e-12)
    assert got_gm == pytest.approx(float(np.prod(recalls)) ** (1 / len(recalls)), abs=1e-12)


def test_stacked_matrices_equal_one_by_one():
    rng = np.random.default_rng(1)
    counts = rng.integers(0, 5, size=(3, 4, 5, 5)).astype(np.float64)
    counts[0, 0] = 0  # an empty matrix
    counts[1, 2, 3] = 0  # a class without samples
    for kernel in (ms, gm):
        stacked = kernel(counts)
        assert stacked.shape == (3, 4)
        one_by_one = np.array([[kernel(m) for m in row] for row in counts])
        np.testing.assert_array_equal(stacked, one_by_one)


def test_nan_cases_and_skipped_classes():
    empty = xr.DataArray(np.zeros((3, 3)), dims=("true", "pred"))
    for name in ("ms", "gm"):
        with pytest.warns(RuntimeWarning, match=f"{name} is undefined"):
            assert math.isnan(getattr(empty.ordinal, name)())
    # class 1 has no samples: skipped, not a recall of 0
    cube = xr.DataArray([[3, 1, 0], [0, 0, 0], [1, 1, 2]], dims=("true", "pred"))
    assert cube.ordinal.ms() == 0.5
    assert cube.ordinal.gm() == pytest.approx(math.sqrt(0.75 * 0.5))
    # a class never predicted right: gm is 0, without a log(0) warning
    zero = np.array([[0.0, 2.0], [0.0, 3.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert gm(zero) == 0.0 and ms(zero) == 0.0


def test_metric_declarations():
    for name in ("ms", "gm"):
        metric = ordframe.get_metric(name)
        assert metric.higher_is_better and metric.bounds == (0.0, 1.0)
        assert metric.undefined and "Gutiérrez" in metric.reference
    assert "Cruz-Ramírez" in ordframe.get_metric("ms").reference


# --------------------------------------------------------------------------- the report


def same(got, expected):
    return (math.isnan(got) and math.isnan(expected)) or got == pytest.approx(expected, abs=1e-12)


def weights_vanish(ds, name):
    """Whether the classes where ``name`` is defined all lack samples: the one case ordframe and scikit-learn differ.

    Their support-weighted mean has no weight: ordframe gives NaN, scikit-learn the plain mean (always 0 then).
    """
    return not (ds["support"].values * ~np.isnan(ds[name].values)).sum()


@pytest.mark.parametrize("seed", range(60))
def test_report_equals_sklearn_classification_report(seed):
    rng = np.random.default_rng(seed)
    k = int(rng.integers(2, 7))
    true, pred = random_labels(rng, k, int(rng.integers(1, 80)))
    df = pd.DataFrame({"y": true, "yhat": pred})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = df.ordinal.report("y", "yhat", labels=range(k))
    assert list(ds.indexes["class"]) == list(range(k))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # scikit-learn's warnings about undefined values
        expected = sklearn.metrics.classification_report(
            true, pred, labels=range(k), output_dict=True, zero_division=np.nan
        )
        prfs = sklearn.metrics.precision_recall_fscore_support(
            true, pred, labels=range(k), average=None, zero_division=np.nan
        )
    for c in range(k):
        row = expected[str(c)]
        assert ds["support"].sel({"class": c}).item() == row["support"]
        for name, theirs in (("recall", "recall"), ("precision", "precision"), ("f1", "f1-score")):
            assert same(ds[name].sel({"class": c}).item(), row[theirs])
        mine = true == c
        direct = np.abs(true[mine] - pred[mine]).mean() if mine.any() else np.nan
        assert same(ds["class_mae"].sel({"class": c}).item(), direct)
    for name, values in zip(("precision", "recall", "f1"), prfs[:3]):
        np.testing.assert_allclose(ds[name].values, values, atol=1e-12)
    for average in ("macro", "weighted"):
        row = expected[f"{average} avg"]
        assert row["support"] == ds["support"].sum()
        for name, theirs in (("recall", "recall"), ("precision", "precision"), ("f1", "f1-score")):
            got = float(ds[f"{name}_{average}"])
            if average == "weighted" and weights_vanish(ds, name):
                assert math.isnan(got) and row[theirs] == 0.0
            else:
                assert same(got, row[theirs]), (name, average)
    for name in DEFAULT_METRICS:
        assert ds[name].dims == ()
        assert ds[name].attrs["metric"] == name and "direction" in ds[name].attrs
    assert float(ds["mae"]) == pytest.approx(np.abs(true - pred).mean())


@pytest.mark.parametrize("seed", range(30))
def test_averages_are_the_known_indices(seed):
    """Weighted recall is the accuracy, macro recall the balanced accuracy; the averages of class_mae are MAE and AMAE."""
    rng = np.random.default_rng(100 + seed)
    k = int(rng.integers(2, 7))
    true, pred = random_labels(rng, k, int(rng.integers(1, 80)))
    ds = pd.DataFrame({"y": true, "yhat": pred}).ordinal.report("y", "yhat", labels=range(k))
    assert float(ds["recall_weighted"]) == pytest.approx(float(ds["accuracy"]), abs=1e-12)
    assert float(ds["class_mae_weighted"]) == pytest.approx(float(ds["mae"]), abs=1e-12)
    assert float(ds["class_mae_macro"]) == pytest.approx(float(ds["amae"]), abs=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "y_pred contains classes not in y_true": left out, as here
        balanced = sklearn.metrics.balanced_accuracy_score(true, pred)
    assert float(ds["recall_macro"]) == pytest.approx(balanced, abs=1e-12)


def test_zero_division_gives_nan_and_the_averages_skip_it():
    # class 1 has samples but no predictions, class 3 neither, class 2 predictions but no samples
    df = pd.DataFrame({"y": [0, 0, 1, 1, 0], "yhat": [0, 0, 0, 0, 2]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the NaN cells say it
        ds = df.ordinal.report("y", "yhat", labels=[0, 1, 2, 3])
    precision, recall, f1 = (ds[n].values for n in ("precision", "recall", "f1"))
    np.testing.assert_allclose(precision, [0.5, np.nan, 0.0, np.nan])
    np.testing.assert_allclose(recall, [2 / 3, 0.0, np.nan, np.nan])
    np.testing.assert_allclose(f1, [4 / 7, 0.0, 0.0, np.nan])  # 2 n_cc / (support + predicted)
    assert float(ds["precision_macro"]) == pytest.approx(0.25)  # classes 0 and 2
    assert float(ds["f1_macro"]) == pytest.approx((4 / 7) / 3)  # classes 0, 1 and 2
    assert float(ds["f1_weighted"]) == pytest.approx((3 * 4 / 7) / 5)
    assert float(ds["precision_weighted"]) == pytest.approx(0.5)  # class 0 only: the others have no samples
    assert "NaN if none was predicted so" in ds["precision"].attrs["description"]
    assert ds["f1_macro"].attrs["direction"] == "higher is better"
    assert ds["class_mae_macro"].attrs["direction"] == "lower is better"


def test_averages_with_weights_and_groups():
    df = pd.DataFrame(
        {"y": [0, 1, 1, 2, 0, 2], "yhat": [0, 1, 0, 2, 1, 2], "w": [0.5, 2.0, 1.0, 1.5, 1.0, 3.0], "g": list("aabbbb")}
    )
    ds = df.ordinal.report("y", "yhat", weights="w", by="g", labels=[0, 1, 2])
    for name in AVERAGE_NAMES:
        assert ds[name].dims == ("g",)
    part = df[df["g"] == "b"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        p, r, f, _ = sklearn.metrics.precision_recall_fscore_support(
            part["y"], part["yhat"], labels=[0, 1, 2], sample_weight=part["w"], average="weighted", zero_division=np.nan
        )
    b = ds.sel(g="b")
    assert [float(b[f"{n}_weighted"]) for n in ("precision", "recall", "f1")] == pytest.approx([p, r, f])


def test_groups_and_cube_give_the_same():
    rng = np.random.default_rng(7)
    n = 300
    df = pd.DataFrame(
        {
            "y": rng.choice(["low", "mid", "high"], n),
            "yhat": rng.choice(["low", "mid", "high"], n),
            "model": rng.choice(["a", "b"], n),
            "fold": rng.integers(0, 3, n),
        }
    )
    labels = ["low", "mid", "high"]
    grouped = df.ordinal.report("y", "yhat", by=["model", "fold"], labels=labels)
    cube = df.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=labels)
    xr.testing.assert_identical(grouped, cube.ordinal.report())
    assert grouped["recall"].dims == ("model", "fold", "class")
    assert grouped["oc"].dims == ("model", "fold")
    assert list(grouped.indexes["class"]) == labels
    for (model, fold), part in df.groupby(["model", "fold"]):
        alone = part.ordinal.report("y", "yhat", labels=labels)
        xr.testing.assert_allclose(grouped.sel(model=model, fold=fold, drop=True), alone)


def test_no_predictions_gives_nan_precision_without_warning():
    df = pd.DataFrame({"y": [0, 1, 2, 2], "yhat": [0, 0, 2, 2]})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ds = df.ordinal.report("y", "yhat")
        text = format_report(ds)
    assert math.isnan(ds["precision"].sel({"class": 1}).item())
    assert ds["recall"].sel({"class": 1}).item() == 0.0
    assert "nan" in text


def test_weights_and_empty_groups():
    df = pd.DataFrame({"y": [0, 1, 1], "yhat": [0, 1, 0], "w": [0.5, 2.0, 1.0], "g": ["x", "x", "x"]})
    ds = df.ordinal.report("y", "yhat", weights="w")
    assert ds["support"].values.tolist() == [0.5, 3.0]
    assert ds["recall"].values.tolist() == pytest.approx([1.0, 2 / 3])
    cube = xr.DataArray(np.zeros((2, 2, 2)), dims=("m", "true", "pred"))
    cube[1] = [[1, 1], [0, 2]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        empty = cube.ordinal.report()
    assert np.isnan(empty["recall"].values[0]).all() and np.isnan(empty["accuracy"].values[0])


def test_format_report_lists_every_class_and_direction():
    df = pd.DataFrame({"y": ["a", "b", "c", "c"], "yhat": ["a", "c", "c", "b"], "model": ["m1", "m1", "m2", "m2"]})
    labels = ["a", "b", "c"]
    text = format_report(df.ordinal.report("y", "yhat", labels=labels))
    lines = [line for line in text.splitlines() if line]
    assert lines[0].split() == ["class", "support", "recall", "precision", "f1", "mae"]
    report = df.ordinal.report("y", "yhat", labels=labels)
    for average in ("macro", "weighted"):
        (row,) = [line.split() for line in lines if line.startswith(f"{average} avg".rjust(12))]
        assert row[2] == "4"  # the total support
        expected = [float(report[f"{n}_{average}"]) for n in ("recall", "precision", "f1", "class_mae")]
        assert [float(v) for v in row[3:]] == pytest.approx(expected, abs=5e-4)
    for label in labels:
        assert any(line.split()[0] == label for line in lines)
    assert "(higher is better)" in text and "(lower is better)" in text
    for name in DEFAULT_METRICS:
        assert any(line.split()[0] == name for line in lines)
    grouped = format_report(df.ordinal.report("y", "yhat", labels=labels, by="model", metrics=["accuracy"]))
    assert grouped.count("class") == 2 and "model=m1" in grouped and "model=m2" in grouped
    assert format_report(df.ordinal.report("y", "yhat", labels=labels), digits=1).count("0.5") >= 1


def test_errors():
    cube = xr.DataArray([[1, 0], [0, 1]], dims=("true", "pred"))
    with pytest.raises(ValueError, match="per-class or average variable"):
        cube.ordinal.report(metrics={"recall": "accuracy"})
    with pytest.raises(ValueError, match="per-class or average variable"):
        cube.ordinal.report(metrics={"f1_macro": "accuracy"})
    with pytest.raises(ValueError, match="'class'"):
        report_cube(cube.expand_dims("class"))
    with pytest.raises(ValueError, match="'true' and 'pred'"):
        xr.DataArray([0, 1], dims="sample").ordinal.report()
    with pytest.raises(TypeError):
        format_report(cube)
    assert set(PER_CLASS) <= set(cube.ordinal.report().data_vars)


def test_format_report_prints_a_value_that_rounds_to_zero_without_a_sign():
    df = pd.DataFrame({"y": [1, 0, 2, 1, 1, 1], "yhat": [2, 0, 0, 0, 2, 1]})
    report = df.ordinal.report("y", "yhat", metrics=["qwk"])
    assert -1e-12 < float(report["qwk"]) < 0  # 0 up to rounding, on the negative side
    (line,) = [line for line in format_report(report).splitlines() if line.split()[:1] == ["qwk"]]
    assert line.split()[1] == "0.000"
