"""Bootstrap replicates drawn as cubes, paired replicates drawn from patterns, and confidence intervals.

The multinomial draws must be distributed exactly as row resampling; this is
checked against explicit row resampling with two-sample KS tests at fixed
seeds (deterministic, so not flaky) and by moments within Monte-Carlo error.
"""

import numpy as np
import pandas as pd
import pytest
import scipy.stats
import xarray as xr

import ordframe
from ordframe._core.drawing import drawn_of

MATRIX = np.array([[30, 6, 2, 0], [5, 25, 8, 1], [1, 7, 20, 4], [0, 2, 5, 14]])


def rows_of(matrix):
    """The (true, pred) rows that a confusion matrix counts."""
    k = matrix.shape[0]
    cells = np.repeat(np.arange(k * k), matrix.ravel())
    return cells // k, cells % k


def row_resampled_cubes(matrix, n, seed, stratify=False):
    """Replicates by explicitly drawing rows with replacement and counting them."""
    true, pred = rows_of(matrix)
    rng = np.random.default_rng(seed)
    k = matrix.shape[0]
    if stratify:
        picks = np.concatenate(
            [
                rng.choice(np.flatnonzero(true == r), size=(n, int((true == r).sum())))
                for r in range(k)
                if (true == r).any()
            ],
            axis=1,
        )
    else:
        picks = rng.integers(0, len(true), (n, len(true)))
    cells = true[picks] * k + pred[picks]
    counts = np.stack([np.bincount(c, minlength=k * k) for c in cells])
    return xr.DataArray(counts.reshape(n, k, k), dims=("bootstrap", "true", "pred"))


@pytest.mark.parametrize("metric", ["oc", "d", "rint", "qwk", "mae"])
@pytest.mark.parametrize("stratify", [False, True])
def test_cube_replicates_are_distributed_as_row_resampling(metric, stratify):
    cube = xr.DataArray(MATRIX, dims=("true", "pred"))
    ours = getattr(cube.ordinal.bootstrap(3000, seed=1, stratify=stratify).ordinal, metric)().values
    rows = getattr(row_resampled_cubes(MATRIX, 3000, seed=2, stratify=stratify).ordinal, metric)().values
    assert scipy.stats.ks_2samp(ours, rows).pvalue > 0.001
    se = np.std(rows) / np.sqrt(len(rows))
    assert abs(np.mean(ours) - np.mean(rows)) < 5 * se * np.sqrt(2)
    assert np.std(ours) == pytest.approx(np.std(rows), rel=0.1)


def test_stratified_replicates_keep_every_true_class_size_and_plain_ones_keep_n():
    cube = xr.DataArray(MATRIX, dims=("true", "pred"))
    strata = cube.ordinal.bootstrap(200, seed=0, stratify=True)
    np.testing.assert_array_equal(strata.sum("pred").values, np.broadcast_to(MATRIX.sum(1), (200, 4)))
    plain = cube.ordinal.bootstrap(200, seed=0)
    assert (plain.sum(("true", "pred")) == MATRIX.sum()).all()
    assert not (plain.sum("pred").values == MATRIX.sum(1)).all()


def test_stacked_numpy_and_dask_cubes_agree_and_seeds_reproduce():
    stacked = xr.DataArray(
        np.stack([MATRIX, MATRIX.T, np.zeros((4, 4), int)]),
        dims=("model", "true", "pred"),
        coords={"model": ["a", "b", "empty"]},
    )
    first = stacked.ordinal.bootstrap(100, seed=7)
    xr.testing.assert_identical(first, stacked.ordinal.bootstrap(100, seed=7))
    assert first.dims == ("bootstrap", "model", "true", "pred")
    assert list(first["model"].values) == ["a", "b", "empty"]
    assert int(first.sel(model="empty").sum()) == 0
    pytest.importorskip("dask")
    xr.testing.assert_identical(first, stacked.chunk({"model": 1}).ordinal.bootstrap(100, seed=7))
    assert not (first.sel(model="a").values == stacked.ordinal.bootstrap(100, seed=8).sel(model="a").values).all()


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"n_resamples": 0}, "whole number of replicates"),
        ({"n_resamples": 2.5}, "whole number of replicates"),
        ({"seed": "x"}, "seed must be"),
        ({"replicate_dim": "true"}, "names a dim the result already has"),
    ],
)
def test_bootstrap_arguments(kwargs, error):
    cube = xr.DataArray(MATRIX, dims=("true", "pred"))
    with pytest.raises((TypeError, ValueError), match=error):
        cube.ordinal.bootstrap(**{"n_resamples": 10, **kwargs})


def test_weighted_cubes_cannot_be_bootstrapped():
    with pytest.raises(ValueError, match="whole counts of samples"):
        xr.DataArray(MATRIX * 0.5, dims=("true", "pred")).ordinal.bootstrap(10)


# --------------------------------------------------------------------------- paired replicates


def predictions(n=300, seed=0):
    """Long format: one row per (sample, model); b is a copy of a with 10% random predictions, c equals a."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, n)
    a = np.clip(y + rng.choice([-1, 0, 0, 0, 1], n), 0, 3)
    b = np.where(rng.random(n) < 0.1, rng.integers(0, 4, n), a)
    frames = [
        pd.DataFrame({"sample": np.arange(n), "y": y, "yhat": p, "model": m}) for m, p in (("a", a), ("b", b), ("c", a))
    ]
    return pd.concat(frames, ignore_index=True)


def test_a_model_compared_with_itself_differs_by_exactly_zero():
    boot = predictions().ordinal.bootstrap("y", "yhat", model="model", n_resamples=300, seed=3)
    for metric in ("oc", "mae", "qwk", "d"):
        values = getattr(boot.ordinal, metric)()
        np.testing.assert_array_equal(values.sel(model="a").values, values.sel(model="c").values)


def test_paired_replicates_are_distributed_as_paired_row_resampling():
    long = predictions(200)
    wide = long.pivot(index="sample", columns="model", values="yhat")
    y = long[long.model == "a"].set_index("sample")["y"]
    rng = np.random.default_rng(5)
    picks = rng.integers(0, 200, (2000, 200))
    rows = []
    for model in ("a", "b"):
        cells = y.to_numpy()[picks] * 4 + wide[model].to_numpy()[picks]
        rows.append(np.stack([np.bincount(c, minlength=16) for c in cells]).reshape(2000, 4, 4))
    row_cubes = xr.DataArray(np.stack(rows, 1), dims=("bootstrap", "model", "true", "pred"))
    row_diff = row_cubes.ordinal.mae().diff("model").values.ravel()
    boot = long[long.model != "c"].ordinal.bootstrap("y", "yhat", model="model", n_resamples=2000, seed=6)
    diff = boot.ordinal.mae().diff("model").values.ravel()
    assert scipy.stats.ks_2samp(diff, row_diff).pvalue > 0.001
    assert np.std(diff) == pytest.approx(np.std(row_diff), rel=0.1)


def test_paired_intervals_are_narrower_than_unpaired_ones_for_correlated_models():
    long = predictions(400)
    paired = long.ordinal.bootstrap("y", "yhat", model="model", n_resamples=2000, seed=1).ordinal.mae()
    paired_diff = paired.sel(model="b") - paired.sel(model="a")
    cubes = long.ordinal.confusion("y", "yhat", by="model")
    unpaired = cubes.ordinal.bootstrap(2000, seed=1).ordinal.mae()  # each model resampled on its own
    unpaired_diff = unpaired.sel(model="b") - unpaired.sel(model="a")
    assert float(paired_diff.std()) < 0.7 * float(unpaired_diff.std())


def test_paired_replicates_with_strata_keep_each_stratum_size():
    long = predictions(300).assign(fold=lambda d: d["sample"] % 3)
    boot = long.ordinal.bootstrap("y", "yhat", model="model", strata="fold", n_resamples=50, seed=0)
    assert boot.dims == ("bootstrap", "fold", "model", "true", "pred")
    assert (boot.sum(("true", "pred")) == 100).all()


def test_paired_bootstrap_with_a_sample_column_and_shuffled_rows():
    long = predictions(100)
    shuffled = long.sample(frac=1.0, random_state=0).set_axis(np.arange(300)[::-1])
    boot = shuffled.ordinal.bootstrap("y", "yhat", model="model", sample="sample", n_resamples=200, seed=0)
    values = boot.ordinal.mae()
    np.testing.assert_array_equal(values.sel(model="a").values, values.sel(model="c").values)


def test_paired_bootstrap_errors():
    long = predictions(20)
    with pytest.raises(ValueError, match="have no prediction"):
        long.iloc[1:].ordinal.bootstrap("y", "yhat", model="model", sample="sample", n_resamples=10)
    with pytest.raises(ValueError, match="more than once"):
        pd.concat([long, long.iloc[:1]]).ordinal.bootstrap("y", "yhat", model="model", sample="sample", n_resamples=10)
    bad = long.copy()
    bad.loc[0, "y"] = (bad.loc[0, "y"] + 1) % 4
    with pytest.raises(ValueError, match="different true labels"):
        bad.ordinal.bootstrap("y", "yhat", model="model", sample="sample", n_resamples=10)


# --------------------------------------------------------------------------- confidence intervals


@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize(
    "metric, statistic",
    [
        ("accuracy", lambda t, p: (t == p).mean()),
        ("mae", lambda t, p: np.abs(t - p).mean()),
    ],
)
def test_intervals_match_scipy_bootstrap(method, metric, statistic):
    cube = xr.DataArray(MATRIX, dims=("true", "pred"))
    boot = getattr(cube.ordinal.bootstrap(4000, seed=11).ordinal, metric)()
    ours = ordframe.ci(boot, method=method, cube=cube).values
    true, pred = rows_of(MATRIX)
    reference = scipy.stats.bootstrap(
        (true, pred),
        statistic,
        paired=True,
        vectorized=False,
        n_resamples=4000,
        method="BCa" if method == "bca" else "percentile",
        random_state=12,
    ).confidence_interval
    np.testing.assert_allclose(ours, [reference.low, reference.high], atol=0.015)


@pytest.mark.slow
def test_percentile_and_bca_coverage_on_simulated_data():
    """Over 1000 simulated data sets of 200 samples, 95% intervals for accuracy cover the truth 93-97% of the time."""
    probabilities = np.array([[0.3, 0.05, 0.0], [0.05, 0.3, 0.05], [0.0, 0.05, 0.2]])
    rng = np.random.default_rng(0)
    samples = rng.multinomial(200, probabilities.ravel(), size=1000).reshape(1000, 3, 3)
    cubes = xr.DataArray(samples, dims=("sim", "true", "pred"))
    boot = cubes.ordinal.bootstrap(1000, seed=1).ordinal.accuracy()
    truth = np.trace(probabilities)
    for method in ("percentile", "bca"):
        bounds = ordframe.ci(boot, method=method, cube=cubes)
        covered = ((bounds.sel(bound="low") <= truth) & (truth <= bounds.sel(bound="high"))).mean()
        assert 0.93 <= float(covered) <= 0.97, method


def test_interval_form_and_errors():
    cube = xr.DataArray(np.stack([MATRIX, MATRIX.T]), dims=("model", "true", "pred"), coords={"model": ["a", "b"]})
    ds = cube.ordinal.bootstrap(500, seed=0).ordinal.evaluate(metrics=["mae", "oc"])
    with pytest.warns(UserWarning, match="'oc' get the percentile interval, not the default of 'oc', 'calibrated'"):
        bounds = ordframe.ci(ds, level=0.9)
    assert bounds["mae"].dims == ("bound", "model") and list(bounds["bound"].values) == ["low", "high"]
    assert bounds["oc"].attrs["metric"] == "oc" and bounds["oc"].attrs["ci_level"] == 0.9
    assert (bounds["mae"].sel(bound="low") < bounds["mae"].sel(bound="high")).all()
    with pytest.raises(ValueError, match="level must be"):
        ordframe.ci(ds, level=95)
    with pytest.raises(ValueError, match="needs cube="):
        ordframe.ci(ds, method="bca")
    with pytest.raises(ValueError, match="not a dim"):
        ordframe.ci(ds, dim="replicate")


def test_results_carry_their_meaning_through_netcdf(tmp_path):
    frame = predictions(50)
    ds = frame.ordinal.evaluate("y", "yhat", by="model", metrics={"oc_25": ("oc", {"beta": 0.25}), "mae": "mae"})
    assert ds["oc_25"].attrs["metric"] == "oc" and ds["oc_25"].attrs["direction"] == "lower is better"
    ds.to_netcdf(tmp_path / "r.nc")
    with xr.open_dataset(tmp_path / "r.nc") as back:
        assert back["oc_25"].attrs["parameters"] == '{"beta": 0.25, "gamma": 1.0}'
        assert back["mae"].attrs["higher_is_better"] == 0


# --------------------------------------------------------------------------- comparisons


def test_compare_pairs_models_and_ranks_each_metric_in_its_direction():
    boot = predictions(300).ordinal.bootstrap("y", "yhat", model="model", n_resamples=1000, seed=0)
    result = ordframe.compare(boot.ordinal.evaluate(metrics=["mae", "qwk"]), estimate="replicates")
    for metric in ("mae", "qwk"):  # b is worse than a whichever way the metric points
        part = result.sel(metric=metric)
        assert part["rank"].sel(model="b") == 3 and part["rank"].sel(model="a") == 1.5
        assert part["bootstrap_share_better"].sel(model="a", versus="b") > 0.95
        assert part["p_value"].sel(model="a", versus="b") < 0.01
        assert part["difference"].sel(model="a", versus="c") == 0  # a model against a copy of itself
        assert (
            part["p_value"].sel(model="a", versus="c") == 1
            and part["bootstrap_share_better"].sel(model="a", versus="c") == 0.5
        )
    assert float(result["difference"].sel(metric="mae", model="b", versus="a")) > 0
    assert float(result["difference"].sel(metric="qwk", model="b", versus="a")) < 0
    low, high = result["interval"].sel(metric="mae", model="b", versus="a").values
    assert 0 < low < high


def test_compare_needs_a_direction_and_the_dims():
    values = xr.DataArray(np.zeros((10, 2)), dims=("bootstrap", "model"), name="x")
    with pytest.raises(ValueError, match="higher_is_better"):
        ordframe.compare(values)
    with pytest.raises(ValueError, match="has no dim 'fold'"):
        ordframe.compare(values.assign_attrs(higher_is_better=1), model_dim="fold")


# --------------------------------------------------------------------------- every metric on the same replicates


def probabilities(n=300, seed=0):
    """Long format with class probabilities: model b is a blurred copy of model a, c a copy of a."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    sharp = np.eye(3)[np.clip(y + rng.choice([-1, 0, 0, 1], n), 0, 2)] * 0.7 + 0.1
    blurred = 0.5 * sharp + 0.5 / 3
    frames = [
        pd.DataFrame({"sample": np.arange(n), "y": y, "model": m, **{f"p{i}": p[:, i] for i in range(3)}})
        for m, p in (("a", sharp), ("b", blurred), ("c", sharp))
    ]
    return pd.concat(frames, ignore_index=True)


def test_evaluate_with_bootstrap_equals_evaluating_the_replicate_cubes():
    long = predictions(200)
    ds = long.ordinal.evaluate("y", "yhat", by="model", metrics=["oc", "mae"], n_resamples=300, seed=4)
    cubes = long.ordinal.bootstrap("y", "yhat", model="model", n_resamples=300, seed=4)
    xr.testing.assert_identical(ds, cubes.ordinal.evaluate(metrics=["oc", "mae"]))


def test_probability_and_confusion_metrics_on_the_same_paired_replicates():
    long = probabilities()
    columns = ["p0", "p1", "p2"]
    ds = long.ordinal.evaluate(
        "y", proba=columns, by="model", sample="sample", metrics=["rps", "brier", "qwk"], n_resamples=1000, seed=3
    )
    assert ds["rps"].dims == ("bootstrap", "model") and ds["rps"].attrs["metric"] == "rps"
    np.testing.assert_array_equal(ds["rps"].sel(model="a"), ds["rps"].sel(model="c"))
    np.testing.assert_array_equal(ds["qwk"].sel(model="a"), ds["qwk"].sel(model="c"))
    # distributed as resampling the samples with replacement and averaging their scores
    scores = {m: long[long.model == m].ordinal.rps("y", columns, by="sample").values for m in ("a", "b")}
    picks = np.random.default_rng(9).integers(0, 300, (1000, 300))
    row_diff = scores["b"][picks].mean(1) - scores["a"][picks].mean(1)
    diff = (ds["rps"].sel(model="b") - ds["rps"].sel(model="a")).values
    assert scipy.stats.ks_2samp(diff, row_diff).pvalue > 0.001
    # one draw for every metric: replicate values of two scores of the same model move together
    assert np.corrcoef(ds["rps"].sel(model="a"), ds["brier"].sel(model="a"))[0, 1] > 0.8
    assert np.corrcoef(ds["rps"].sel(model="a"), ds["qwk"].sel(model="a"))[0, 1] < -0.3


def test_bootstrap_arguments_of_evaluate():
    long = predictions(20)
    with pytest.raises(TypeError, match="pass n_resamples="):
        long.ordinal.evaluate("y", "yhat", by="model", seed=1)
    with pytest.raises(TypeError, match="weights= and observed= do not apply"):
        long.ordinal.evaluate("y", "yhat", by="model", n_resamples=10, weights=np.ones(60))


def test_progress_bar_follows_the_chunks(capsys):
    from ordframe._core.progress import chunks

    assert list(chunks(10, 3, progress=True, desc="bootstrap")) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert "bootstrap" in capsys.readouterr().err
    assert list(chunks(10, 3, progress=False)) == [(0, 3), (3, 6), (6, 9), (9, 10)]
    assert capsys.readouterr().err == ""
    with pytest.raises(TypeError, match="progress= must be"):
        xr.DataArray(MATRIX, dims=("true", "pred")).ordinal.bootstrap(10, progress="yes")


def test_compare_ranks_by_the_values_on_the_data_when_given():
    long = predictions(300)
    boot = long.ordinal.bootstrap("y", "yhat", model="model", n_resamples=500, seed=0).ordinal.evaluate(metrics=["mae"])
    observed = long.ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])
    shifted = observed.copy(deep=True)
    shifted["mae"].loc[{"model": "b"}] = 0.0  # pretend b is the best on the data
    result = ordframe.compare(boot, estimate=shifted)
    assert result["rank"].sel(metric="mae", model="b") == 1
    assert float(result["difference"].sel(metric="mae", model="a", versus="b")) == pytest.approx(
        float(observed["mae"].sel(model="a"))
    )
    with pytest.raises(ValueError, match="without the 'bootstrap' dim"):
        ordframe.compare(boot, estimate=boot)


# --------------------------------------------------------------------------- replicates remember how they were drawn


def test_paired_replicates_record_how_they_were_drawn_through_metrics_sums_and_netcdf(tmp_path):
    long = predictions(200).assign(fold=lambda d: d["sample"] % 4)
    boot = long.ordinal.bootstrap("y", "yhat", model="model", sample="sample", strata="fold", n_resamples=50, seed=3)
    record = {"n_resamples": 50, "seed": 3, "method": "samples", "sample": "sample", "strata": '["fold"]'}
    assert boot.attrs == record
    oc = boot.sum("fold").ordinal.oc()
    assert {k: oc.attrs[k] for k in record} == record and oc.attrs["metric"] == "oc"
    assert boot.ordinal.evaluate(metrics=["mae"]).attrs == record
    path = tmp_path / "oc.nc"
    oc.to_netcdf(path)
    with xr.open_dataarray(path) as back:
        assert {k: back.attrs[k] for k in record} == record
    evaluated = long.ordinal.evaluate("y", "yhat", by="model", n_resamples=20, seed=5, metrics=["mae"])
    assert evaluated.attrs == {"n_resamples": 20, "seed": 5, "method": "samples"} == drawn_of(evaluated["mae"].attrs)


def test_a_fresh_seed_is_recorded_and_draws_the_same_replicates_again():
    long = predictions(100)
    first = long.ordinal.bootstrap("y", "yhat", model="model", n_resamples=30)
    again = long.ordinal.bootstrap("y", "yhat", model="model", n_resamples=30, seed=int(first.attrs["seed"]))
    xr.testing.assert_identical(first, again)
    cube = long.ordinal.confusion("y", "yhat", by="model")
    cells = cube.ordinal.bootstrap(30, stratify=True)
    assert cells.attrs["method"] == "cells within true classes" and cells.attrs["n_resamples"] == 30
    xr.testing.assert_identical(cells, cube.ordinal.bootstrap(30, stratify=True, seed=int(cells.attrs["seed"])))
    assert cube.ordinal.bootstrap(5, seed=np.random.default_rng(0)).attrs["seed"] == "not recorded"
