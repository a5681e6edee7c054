"""ordframe.Accumulator: batches counted as they come give what the accessors give on all the samples at once."""

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st

import ordframe

LABELS = [0, 1, 2, 3]
PROBA = [f"p{k}" for k in LABELS]


def data(n=600, seed=0):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    proba = rng.dirichlet(np.ones(4) * 0.7, n)
    return pd.DataFrame(
        {
            "y": y,
            "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 3),
            "site": rng.choice(["north", "south", "east"], n),
            "epoch": np.arange(n) * 3 // max(n, 1),
            "w": rng.uniform(0.1, 2.0, n),
            **dict(zip(PROBA, proba.T)),
        }
    )


def fed(df, acc, step=50, weights=False, proba=False, pred=True):
    for start in range(0, len(df), step):
        b = df.iloc[start : start + step]
        acc.update(
            b.y.to_numpy(),
            b.yhat.to_numpy() if pred else None,
            y_proba=b[PROBA].to_numpy() if proba else None,
            sample_weight=b.w.to_numpy() if weights else None,
            epoch=int(b.epoch.iloc[0]),  # one value per batch
            site=b.site.to_numpy(),  # one value per sample
        )
    return acc


@pytest.mark.parametrize("weights", [False, True])
def test_the_cube_of_batches_is_the_cube_of_all_rows(weights):
    df = data()
    acc = fed(df, ordframe.Accumulator(LABELS), weights=weights)
    # weighted sums are added batch by batch: equal up to the order of the float additions
    same = xr.testing.assert_allclose if weights else xr.testing.assert_identical
    expected = df.ordinal.confusion("y", "yhat", by=["epoch", "site"], labels=LABELS, weights="w" if weights else None)
    same(acc.cube(), expected)
    assert acc.cube().dtype == expected.dtype
    observed = df.ordinal.confusion(
        "y", "yhat", by=["epoch", "site"], labels=LABELS, weights="w" if weights else None, observed=True
    )
    same(acc.cube(observed=True), observed)


@pytest.mark.parametrize("pred", [True, False])
def test_evaluate_equals_the_accessors_on_all_rows(pred):
    df = data()
    acc = fed(df, ordframe.Accumulator(LABELS), weights=True, proba=True, pred=pred)
    expected = df.ordinal.evaluate(
        "y", "yhat" if pred else None, proba=PROBA, by=["epoch", "site"], labels=LABELS, weights="w"
    )
    result = acc.evaluate()
    assert list(result) == list(expected)
    xr.testing.assert_allclose(result, expected.transpose(*result.dims), rtol=1e-12)
    assert all(result[v].attrs == expected[v].attrs for v in result)  # metric, parameters, direction, classes


def test_metrics_and_parameters_are_chosen_up_front():
    df = data()
    acc = fed(df, ordframe.Accumulator(LABELS, metrics={"oc_25": ("oc", {"beta": 0.25}), "rps": "rps"}), proba=True)
    result = acc.evaluate()
    assert list(result) == ["oc_25", "rps"]
    expected = df.ordinal.oc("y", "yhat", by=["epoch", "site"], labels=LABELS, beta=0.25)
    xr.testing.assert_allclose(result.oc_25, expected.transpose(*result.oc_25.dims).rename("oc_25"))
    with pytest.raises(ValueError, match="'rps' needs class probabilities, and no batch gave y_proba"):
        fed(df, ordframe.Accumulator(LABELS, metrics=["rps"])).evaluate()


@settings(max_examples=25, deadline=None)
@given(st.lists(st.integers(1, 80), min_size=1, max_size=12), st.integers(0, 10**6))
def test_any_split_into_batches_and_workers_gives_the_same_counts(sizes, seed):
    df = data(n=sum(sizes), seed=seed)
    workers = [ordframe.Accumulator(LABELS), ordframe.Accumulator(LABELS)]
    start = 0
    for i, size in enumerate(sizes):
        b = df.iloc[start : start + size]
        workers[i % 2].update(b.y.tolist(), pd.Series(b.yhat.to_numpy(), index=b.index[::-1]), site=b.site.to_numpy())
        start += size
    merged = workers[0] + workers[1]
    whole = ordframe.Accumulator(LABELS)
    whole.update(df.y, df.yhat, site=df.site)
    xr.testing.assert_identical(merged.cube(), whole.cube())
    xr.testing.assert_identical(pickle.loads(pickle.dumps(merged)).cube(), whole.cube())


def test_merge_adds_in_place_and_reset_forgets():
    df = data()
    a, b = ordframe.Accumulator(LABELS), ordframe.Accumulator(LABELS)
    fed(df.iloc[:300], a)
    fed(df.iloc[300:], b)
    assert a.merge(b) is a
    xr.testing.assert_identical(a.cube(), fed(df, ordframe.Accumulator(LABELS)).cube())
    a.reset()
    with pytest.raises(ValueError, match="no batch has been added yet"):
        a.evaluate()
    assert "no batch yet" in repr(a)


def test_without_groups_the_result_is_one_matrix():
    acc = ordframe.Accumulator(["low", "mid", "high"], metrics=["accuracy"])
    acc.update(["low", "mid"], ["low", "high"])
    acc.update(["high"], ["high"])
    assert acc.cube().dims == ("true", "pred")
    assert acc.cube().dtype == np.int64
    assert float(acc.evaluate().accuracy) == pytest.approx(2 / 3)


def test_bad_batches_get_the_front_ends_errors():
    acc = ordframe.Accumulator(LABELS)
    with pytest.raises(ValueError, match=r"column 'y_true' has 1 value\(s\) outside the classes \[0, 1, 2, 3\]: 7"):
        acc.update([0, 7], [0, 1])
    with pytest.raises(ValueError, match=r"column 'y_pred' has 1 missing value\(s\)"):
        acc.update([0, 1], [0, None])
    with pytest.raises(ValueError, match=r"y_true has 2, y_pred has 3"):
        acc.update([0, 1], [0, 1, 2])
    acc.update([0, 1], [0, 1], epoch=1)
    with pytest.raises(ValueError, match=r"this batch has group dims \['fold'\], earlier ones \['epoch'\]"):
        acc.update([0, 1], [0, 1], fold=1)
    with pytest.raises(ValueError, match="earlier batches had no class probabilities"):
        acc.update([0, 1], y_proba=np.full((2, 4), 0.25), epoch=1)
    with pytest.raises(ValueError, match=r"group dim\(s\) \['true'\] would clash"):
        ordframe.Accumulator(LABELS).update([0, 1], [0, 1], true=1)
    with pytest.raises(ValueError, match="differ in their classes or metrics"):
        acc.merge(ordframe.Accumulator([0, 1, 2]))
    with pytest.raises(ValueError, match="at least two classes"):
        ordframe.Accumulator([0])
    with pytest.raises((TypeError, ValueError), match="normalize"):  # checked when created, not at the first batch
        ordframe.Accumulator(LABELS, metrics=("rps", {"normalize": "yes"}))
    with pytest.raises(ValueError, match="beta must be a finite number"):
        ordframe.Accumulator(LABELS, metrics=("oc", {"beta": -1}))


def test_group_keywords_may_come_in_any_order():
    acc = ordframe.Accumulator(LABELS, metrics=["accuracy"])
    acc.update([0, 1], [0, 1], epoch=0, split="train")
    acc.update([0, 1], [1, 1], split="valid", epoch=0)
    assert acc.cube().dims == ("epoch", "split", "true", "pred")
    np.testing.assert_allclose(acc.evaluate().accuracy.values, [[1.0, 0.5]])


class Tensor:
    """An array-like that only numpy's ``__array__`` protocol reads, as a CPU torch tensor is read (the torch
    wheel is not installed here: this is the protocol ordframe relies on, without a 2 GB dependency)."""

    def __init__(self, values):
        self.values = values

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.values, dtype=dtype)

    def __len__(self):
        return len(self.values)


def test_tensors_are_taken_as_numpy_takes_them():
    acc = ordframe.Accumulator(LABELS, metrics=["mae", "rps"])
    acc.update(Tensor([0, 1, 2]), Tensor([0, 2, 2]), y_proba=Tensor(np.full((3, 4), 0.25)))
    same = ordframe.Accumulator(LABELS, metrics=["mae", "rps"])
    same.update([0, 1, 2], [0, 2, 2], y_proba=np.full((3, 4), 0.25))
    xr.testing.assert_identical(acc.evaluate(), same.evaluate())


def test_merged_workers_give_the_probability_scores_and_weights_of_all_rows():
    df = data()
    metrics = ["mae", "rps", "brier"]
    a, b = ordframe.Accumulator(LABELS, metrics=metrics), ordframe.Accumulator(LABELS, metrics=metrics)
    fed(df.iloc[:250], a, weights=True, proba=True)
    fed(df.iloc[250:], b, weights=True, proba=True)
    whole = fed(df, ordframe.Accumulator(LABELS, metrics=metrics), weights=True, proba=True)
    for merged in (a + b, sum([a, b]), a.merge(b)):
        xr.testing.assert_allclose(merged.evaluate(), whole.evaluate(), rtol=1e-12)
    with pytest.raises(TypeError):
        1 + a  # noqa: B018


class Scalar:
    """A 0-d array-like that hashes by identity, as a 0-d torch tensor does."""

    def __init__(self, value):
        self.value = value

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.value, dtype=dtype)


def test_a_zero_dimensional_group_value_is_its_number():
    acc = ordframe.Accumulator(LABELS, metrics=["accuracy"])
    for step in (0, 0, 1):
        acc.update([0, 1], [0, 1], step=Scalar(step), epoch=np.int64(step))
    cube = acc.cube()
    assert cube.sizes["step"] == 2 and cube["step"].values.tolist() == [0, 1]
    np.testing.assert_array_equal(cube.sum(["true", "pred"]).values, [[4, 0], [0, 2]])


@pytest.mark.parametrize("name", ["labels", "weights", "by", "proba", "observed"])
def test_an_accessor_argument_is_not_taken_for_a_group(name):
    acc = ordframe.Accumulator(LABELS)
    with pytest.raises(TypeError, match=rf"update\(\) got \['{name}'\].*Accumulator\(labels=...\)"):
        acc.update([0, 1, 2], [0, 1, 1], **{name: [0, 1, 2]})
    assert "no batch yet" in repr(acc)


def test_dropna_and_renormalize_as_the_accessors_take_them():
    acc = ordframe.Accumulator(LABELS, metrics=["accuracy", "rps"])
    proba = np.tile(np.array([0.1, 0.2, 0.3, 0.4], dtype=np.float16), (4, 1))  # rows sum to 0.99988
    with pytest.raises(ValueError, match="renormalize=True"):
        acc.update([0, 1, 2, 3], y_proba=proba)
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 1 of 4"):
        acc.update([0, 1, 2, None], y_proba=proba, renormalize=True, dropna=True)
    expected = pd.DataFrame(proba[:3].astype(float), columns=PROBA).assign(y=[0, 1, 2])
    reference = expected.ordinal.rps("y", PROBA, labels=LABELS, renormalize=True)
    assert float(acc.evaluate().rps) == pytest.approx(reference, abs=1e-12)


def test_a_cube_before_any_batch_is_an_error():
    with pytest.raises(ValueError, match="no batch has been added yet"):
        ordframe.Accumulator(LABELS).cube()


def test_a_probability_frame_named_by_the_classes_is_matched_by_name():
    from sklearn.linear_model import LogisticRegression

    rng, grades = np.random.default_rng(0), ["low", "mid", "high"]
    codes = rng.integers(0, 3, 300)
    X, y = (codes + rng.normal(0, 0.8, 300))[:, None], np.array(grades)[codes]
    model = LogisticRegression().fit(X, y)  # classes_ sorted: high, low, mid
    acc = ordframe.Accumulator(labels=grades, metrics=["rps", "mae"])
    acc.update(y, y_proba=pd.DataFrame(model.predict_proba(X), columns=model.classes_))
    result = acc.evaluate()
    assert result["rps"].item() == pytest.approx(ordframe.rps(y, model.predict_proba(X)[:, [1, 2, 0]], labels=grades))
    assert result["mae"].item() == pytest.approx(ordframe.mae(y, model.predict(X), labels=grades))  # the argmax


def test_merge_refuses_the_same_output_name_for_other_metrics_or_parameters():
    p = np.array([[0.7, 0.2, 0.1], [0.1, 0.8, 0.1], [0.2, 0.2, 0.6]])

    def worker(metrics):
        acc = ordframe.Accumulator(labels=[0, 1, 2], metrics=metrics)
        acc.update([0, 1, 2], y_proba=p)
        return acc

    with pytest.raises(ValueError, match=r"output 'score' is rps with parameters \{.*\} here and brier with"):
        worker({"score": "rps"}).merge(worker({"score": "brier"}))
    with pytest.raises(ValueError, match=r'"normalize": true\} here and rps with parameters \{"normalize": false\}'):
        worker({"rps": "rps"}).merge(worker({"rps": ("rps", {"normalize": False})}))
    same = worker({"rps": "rps"}).merge(worker({"rps": ("rps", {"normalize": True})}))  # the default, spelled out
    assert same.evaluate()["rps"].item() == pytest.approx(ordframe.rps([0, 1, 2], p))


def test_an_undefined_value_warns_as_the_functions_do():
    acc = ordframe.Accumulator(labels=[0, 1], metrics=["kendall_tau_b"])
    acc.update([0], [0])
    with pytest.warns(RuntimeWarning, match="kendall_tau_b is undefined for this input and is NaN: every sample"):
        assert np.isnan(acc.evaluate()["kendall_tau_b"].item())
    weightless = ordframe.Accumulator(labels=[0, 1], metrics=["mae", "rps"])
    weightless.update([0, 1], y_proba=[[1.0, 0.0], [0.0, 1.0]], sample_weight=[0, 0])
    with pytest.warns(RuntimeWarning, match="is NaN: there are no samples") as caught:
        weightless.evaluate()
    assert len(caught) == 2
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        grouped = ordframe.Accumulator(labels=[0, 1], metrics=["kendall_tau_b"])
        grouped.update([0, 1], [0, 1], epoch=[0, 1])
        assert np.isnan(grouped.evaluate()["kendall_tau_b"].values).all()  # a stack: NaN cells, as the accessors


def test_probability_errors_speak_of_y_proba_and_the_constructor_s_labels():
    acc = ordframe.Accumulator(labels=[0, 1, 2])
    with pytest.raises(
        ValueError,
        match=r"^y_proba has 4 columns but labels= gives 3 classes \[0, 1, 2\]; give one column per class of "
        r"Accumulator\(labels=...\), in that order$",
    ):
        acc.update([0, 1, 2], y_proba=np.full((3, 4), 0.25))
    with pytest.raises(TypeError, match="got a dict: a dict label -> column is the accessors' proba="):
        acc.update([0, 1], y_proba={0: [0.5, 0.5], 1: [0.5, 0.5], 2: [0.0, 0.0]})
    assert "no batch yet" in repr(acc)


def test_batches_of_every_kind_in_one_accumulator():
    """Batches that give different arguments (predictions or not, weights, dropna) are each read with their own:
    the cube is the sum of each batch's, and a flag that is no bool is refused every time."""
    y, p = np.array([0, 1, 2, 2, 1]), np.array([0, 2, 2, 1, 1])
    acc = ordframe.Accumulator(labels=[0, 1, 2], metrics=["accuracy"])
    acc.update(y, p)
    acc.update(y, p, sample_weight=np.full(5, 2.0))
    with pytest.warns(ordframe.DroppedRowsWarning):
        acc.update(np.append(y, np.nan), np.append(p, 0), dropna=True)
    acc.update(y, p)
    expected = pd.crosstab(y, p).reindex(index=[0, 1, 2], columns=[0, 1, 2], fill_value=0).to_numpy()
    np.testing.assert_array_equal(acc.cube().values, 5 * expected)  # 1 + 2 (weighted) + 1 + 1
    for _ in range(2):
        with pytest.raises(TypeError, match="dropna= must be True or False"):
            acc.update(y, p, dropna=1)


@pytest.mark.parametrize("observed", ["yes", 1, 0.0, [True], None])
def test_observed_is_true_or_false(observed):
    """``observed=`` of ``cube`` and ``evaluate`` is True or False, as everywhere: another value is an error that
    names the argument and the value, and carries them."""
    acc = ordframe.Accumulator(labels=[0, 1, 2], metrics=["accuracy"])
    acc.update([0, 1, 2, 2], [0, 1, 1, 2], epoch=0)
    assert acc.evaluate(observed=False).accuracy.dims == ("epoch",) == acc.cube(observed=False).dims[:1]
    for call in (acc.cube, acc.evaluate):
        with pytest.raises(TypeError, match=re.escape(f"observed= must be True or False, got {observed!r}")) as error:
            call(observed=observed)
        assert (error.value.argument, error.value.value) == ("observed", observed)


def test_parameters_are_checked_once_per_process(monkeypatch):
    """An accumulator made again (one per epoch) with the same metrics, single-valued parameters and classes
    reuses their checked parameters, as every call does (``prepare``); other parameters, classes or a bad value
    are checked by a probe run every time."""
    from ordframe._bridge import apply

    probes = []
    probe = apply.confusion_kernel
    monkeypatch.setattr(apply, "_PREPARED", {})
    monkeypatch.setattr(
        apply, "confusion_kernel", lambda metric, *a, **k: probes.append(metric.name) or probe(metric, *a, **k)
    )
    metrics = {"oc_25": ("oc", {"beta": 0.25}), "mae": "mae"}
    for _ in range(3):
        acc = ordframe.Accumulator([0, 1, 2], metrics=metrics)
    assert sorted(probes) == ["mae", "oc"]
    acc.update([0, 1, 2, 2], [0, 1, 1, 2])
    expected = ordframe.oc([0, 1, 2, 2], [0, 1, 1, 2], beta=0.25)
    assert float(acc.evaluate()["oc_25"]) == expected
    probes.clear()
    ordframe.Accumulator([0, 1, 2, 3], metrics=metrics)
    cost = xr.DataArray(np.ones((3, 3)), dims=("true", "pred"), coords={"true": [0, 1, 2], "pred": [0, 1, 2]})
    for _ in range(2):
        ordframe.Accumulator([0, 1, 2], metrics={"cost": ("expected_cost", {"cost": cost})})
    assert sorted(probes) == ["expected_cost", "expected_cost", "mae", "oc"]
    for _ in range(2):
        with pytest.raises(ValueError, match="beta must be a finite number"):
            ordframe.Accumulator([0, 1, 2], metrics=("oc", {"beta": -1}))
