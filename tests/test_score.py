"""Score metrics (kind "score"): ORC, VUS, Somers' D and Kendall's tau-b of a continuous score against the true class.

The kernels are held to direct implementations that look at every pair (or every K-tuple) of samples, and to
scipy; the front end to the same values on filtered, sorted, re-indexed and dropna frames; the paired bootstrap to
the confusion metrics that the score metrics equal when the score is the predicted class.
"""

import io
import itertools
import math
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import xarray as xr
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

import ordframe
from ordframe._inputs.marker import marker_table
from ordframe.metrics.score import marker_kendall_tau_b, marker_somers_d, orc, pairwise_c, vus

FEW = settings(max_examples=20, deadline=None)


def table_of(y, s, k, group=None, weights=None, n_groups=1):
    group = np.zeros(len(y), np.int64) if group is None else np.asarray(group)
    return marker_table(group, np.asarray(s, float), np.asarray(y), k, n_groups, weights)


def direct_c(y, s, w, i, j):
    """The c-statistic of classes i < j from every pair of samples, weighted."""
    a, b = np.flatnonzero(y == i), np.flatnonzero(y == j)
    total = sum(w[p] * w[q] * ((s[q] > s[p]) + 0.5 * (s[q] == s[p])) for p in a for q in b)
    return total / (w[a].sum() * w[b].sum())


def direct_orc(y, s, w, k):
    present = [c for c in range(k) if w[y == c].sum() > 0]
    pairs = [direct_c(y, s, w, i, j) for i, j in itertools.combinations(present, 2)]
    return np.mean(pairs) if pairs else np.nan


def direct_vus(y, s, w, k):
    """Every K-tuple, one sample per class: 1 / prod(m!) over blocks of m equal scores if never decreasing."""
    members = [np.flatnonzero(y == c) for c in range(k)]
    if any(w[m].sum() == 0 for m in members):
        return np.nan
    total = 0.0
    for tup in itertools.product(*members):
        values = s[list(tup)]
        if np.all(np.diff(values) >= 0):
            blocks = [len(list(g)) for _, g in itertools.groupby(values)]
            total += np.prod(w[list(tup)]) / math.prod(math.factorial(m) for m in blocks)
    return total / math.prod(w[m].sum() for m in members)


def arrays(data):
    """K and the class codes, scores and weights of a drawn sample."""
    k, rows = data
    y, s, w = (np.array(c) for c in zip(*rows))
    return k, y, s.astype(float), w.astype(float)


samples = st.integers(2, 4).flatmap(
    lambda k: st.tuples(
        st.just(k),
        st.lists(st.tuples(st.integers(0, k - 1), st.integers(0, 4), st.integers(1, 3)), min_size=2, max_size=12),
    )
)


@FEW
@given(samples)
def test_orc_somers_tau_equal_a_direct_pairwise_implementation_with_ties_and_weights(data):
    k, y, s, w = arrays(data)
    t = table_of(y, s, k, weights=w)
    assert orc(t.counts, t.starts)[0] == pytest.approx(direct_orc(y, s, w, k), abs=1e-12, nan_ok=True)
    unweighted = table_of(y, s, k)
    expanded_y, expanded_s = np.repeat(y, w.astype(int)), np.repeat(s, w.astype(int))
    if len(np.unique(expanded_y)) > 1:
        # scipy gives NaN for a one-column table; a constant score orders no pair: D = 0, as somers_d gives
        expected = stats.somersd(expanded_y, expanded_s).statistic if len(np.unique(s)) > 1 else 0.0
        assert marker_somers_d(t.counts, t.starts)[0] == pytest.approx(expected, abs=1e-12)
        assert marker_somers_d(unweighted.counts, unweighted.starts)[0] == pytest.approx(
            stats.somersd(y, s).statistic if len(np.unique(s)) > 1 else 0.0, abs=1e-12
        )
    if len(np.unique(expanded_y)) > 1 and len(np.unique(expanded_s)) > 1:
        expected = stats.kendalltau(expanded_y, expanded_s).statistic
        assert marker_kendall_tau_b(t.counts, t.starts)[0] == pytest.approx(expected, abs=1e-12)


@FEW
@given(samples)
def test_vus_equals_enumerating_every_tuple(data):
    k, y, s, w = arrays(data)
    t = table_of(y, s, k, weights=w)
    value = vus(t.counts, t.starts)[0]
    assert value == pytest.approx(direct_vus(y, s, w, k), abs=1e-12, nan_ok=True)
    assert np.isnan(value) or 0 <= value <= 1


def test_groups_and_replicates_are_computed_as_each_alone():
    rng = np.random.default_rng(0)
    n, k = 60, 3
    y, s, g = rng.integers(0, k, n), rng.integers(0, 6, n).astype(float), rng.integers(0, 4, n)
    g[g == 2] = 3  # group 2 is empty: NaN
    t = table_of(y, s, k, group=g, n_groups=4)
    for kernel in (orc, vus, marker_somers_d, marker_kendall_tau_b):
        values = kernel(t.counts, t.starts)
        assert np.isnan(values[2]), kernel.__name__
        for group in (0, 1, 3):
            alone = table_of(y[g == group], s[g == group], k)
            assert values[group] == pytest.approx(kernel(alone.counts, alone.starts)[0], abs=1e-12), kernel.__name__
        stacked = kernel(np.stack([t.counts, 2 * t.counts]), t.starts)  # replicates as leading axes
        np.testing.assert_allclose(stacked, [values, values], atol=1e-12, err_msg=kernel.__name__)


def test_two_classes_orc_and_vus_are_the_auc():
    rng = np.random.default_rng(1)
    y, s = rng.integers(0, 2, 50), rng.integers(0, 5, 50).astype(float)
    u = stats.mannwhitneyu(s[y == 1], s[y == 0]).statistic  # ties counted one half
    auc = u / ((y == 1).sum() * (y == 0).sum())
    assert ordframe.orc(y, s) == pytest.approx(auc, abs=1e-12)
    assert ordframe.vus(y, s) == pytest.approx(auc, abs=1e-12)


def test_invariant_to_increasing_transforms_and_reversed_by_negation():
    rng = np.random.default_rng(2)
    y, s = rng.integers(0, 4, 40), rng.normal(size=40).round(1)
    for name in ("orc", "vus", "marker_somers_d", "marker_kendall_tau_b"):
        metric = getattr(ordframe, name)
        assert metric(y, np.exp(3 * s) + 7) == pytest.approx(metric(y, s), abs=1e-12), name
    assert ordframe.orc(y, -s) == pytest.approx(1 - ordframe.orc(y, s), abs=1e-12)
    assert ordframe.marker_somers_d(y, -s) == pytest.approx(-ordframe.marker_somers_d(y, s), abs=1e-12)
    assert ordframe.vus(y, np.zeros(40)) == pytest.approx(1 / math.factorial(4), abs=1e-12)  # a constant score
    assert ordframe.orc(y, y.astype(float)) == 1.0 == ordframe.vus(y, y * 2.0)


def test_with_the_predicted_class_as_score_they_equal_the_confusion_metrics():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 4, 50)
    pred = np.where(rng.random(50) < 0.6, y, rng.integers(0, 4, 50))
    assert ordframe.marker_somers_d(y, pred) == pytest.approx(ordframe.somers_d(y, pred), abs=1e-12)
    assert ordframe.marker_kendall_tau_b(y, pred) == pytest.approx(ordframe.kendall_tau_b(y, pred), abs=1e-12)
    binary = y % 2, pred % 2
    assert ordframe.orc(*binary) == pytest.approx(1 - ordframe.amae(*binary), abs=1e-12)  # balanced accuracy


def test_undefined_inputs_are_nan_with_a_reason():
    with pytest.warns(RuntimeWarning, match="orc is undefined.*fewer than two classes have samples"):
        assert np.isnan(ordframe.orc([1, 1, 1], [0.1, 0.5, 0.2], labels=[0, 1, 2]))
    with pytest.warns(RuntimeWarning, match="vus is undefined.*some class has no sample"):
        assert np.isnan(ordframe.vus([0, 2, 2], [0.1, 0.5, 0.2], labels=[0, 1, 2]))
    with pytest.warns(RuntimeWarning, match="constant"):
        assert np.isnan(ordframe.marker_kendall_tau_b([0, 1, 2], [3.0, 3.0, 3.0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # a declared class without samples is left out of ORC's pairs
        assert ordframe.orc([0, 0, 2, 2], [1, 2, 3, 4], labels=[0, 1, 2]) == 1.0


def frame():
    rng = np.random.default_rng(4)
    n = 48
    df = pd.DataFrame(
        {
            "y": rng.integers(0, 3, n),
            "model": np.repeat(["a", "b"], n // 2),
            "w": rng.integers(1, 4, n).astype(float),
        }
    )
    df["s"] = df["y"] + rng.normal(size=n).round(1)
    return df


def test_frames_filtered_sorted_reindexed_and_dropna_give_the_values_of_their_rows():
    df = frame()
    expected = {m: direct_orc(g.y.to_numpy(), g.s.to_numpy(), np.ones(len(g)), 3) for m, g in df.groupby("model")}
    for variant in (
        df.sample(frac=1, random_state=0),
        df.set_index(np.arange(len(df))[::-1] * 3),
        df.sort_values("s"),
        pd.concat([df, df.assign(model="c", s=np.nan)]).loc[lambda d: d.model != "c"],
    ):
        result = variant.ordinal.orc("y", "s", by="model")
        assert result.sel(model="a") == pytest.approx(expected["a"], abs=1e-12)
        assert result.sel(model="b") == pytest.approx(expected["b"], abs=1e-12)
    polars = pytest.importorskip("polars").from_pandas(df)
    assert polars.ordinal.orc("y", "s", by="model").sel(model="a") == pytest.approx(expected["a"], abs=1e-12)
    holed = df.assign(s=df.s.where(df.index % 5 != 0))
    with pytest.raises(ValueError, match="'s'.*10"):
        holed.ordinal.orc("y", "s")
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 10 of 48 rows.*'s'"):
        value = holed.ordinal.orc("y", "s", dropna=True)
    kept = holed.dropna()
    assert value == pytest.approx(direct_orc(kept.y.to_numpy(), kept.s.to_numpy(), np.ones(len(kept)), 3), abs=1e-12)


def test_weights_are_repeated_rows_and_evaluate_gives_every_score_metric():
    df = frame()
    repeated = df.loc[df.index.repeat(df.w.astype(int))]
    ds = df.ordinal.evaluate("y", marker="s", by="model", weights="w")
    assert sorted(ds) == ["marker_kendall_tau_b", "marker_somers_d", "orc", "vus"]
    again = repeated.ordinal.evaluate("y", marker="s", by="model")
    for name in ds:
        np.testing.assert_allclose(ds[name], again[name], atol=1e-12, err_msg=name)
    assert ds["orc"].attrs["metric"] == "orc" and ds["orc"].attrs["higher_is_better"] == 1


def test_arguments_are_checked_and_named():
    df = frame()
    with pytest.raises(ValueError, match=r"\['orc'\] need a continuous score.*marker="):
        df.ordinal.evaluate("y", df.y, metrics=["orc"])
    with pytest.raises(ValueError, match=r"\['mae'\] need predicted labels"):
        df.ordinal.evaluate("y", marker="s", metrics=["mae", "orc"])
    with pytest.raises(KeyError, match="marker column 'nope'"):
        df.ordinal.orc("y", "nope")
    with pytest.raises(
        TypeError, match="marker column 'model' has dtype .*'a' \\(24 rows\\).*; scores must be real numbers"
    ):
        df.ordinal.orc("y", "model")
    with pytest.raises(ValueError, match="is a score metric"):
        ordframe.sklearn.make_scorer("orc", labels=[0, 1, 2])
    with pytest.raises(ValueError, match="score metrics"):
        ordframe.Accumulator([0, 1, 2], metrics=["orc"])


def test_label_and_score_arrays_along_a_sample_dim():
    rng = np.random.default_rng(7)
    coords = {"model": ["rf", "lr"]}  # not sorted: the result keeps their order
    y = xr.DataArray(rng.integers(0, 3, 30), dims="sample")  # one true label per sample, for both models
    s = xr.DataArray(rng.integers(0, 6, (2, 30)) + y.values / 2, dims=("model", "sample"), coords=coords)
    pred = xr.DataArray(rng.integers(0, 3, (2, 30)), dims=("model", "sample"), coords=coords)
    w = xr.DataArray(rng.integers(1, 4, 30).astype(float), dims="sample")
    result = s.ordinal.orc(y, dim="sample", weights=w)
    assert result.dims == ("model",) and list(result.model.values) == ["rf", "lr"]
    for i, model in enumerate(coords["model"]):
        expected = direct_orc(y.values, s.values[i], w.values, 3)
        assert result.sel(model=model) == pytest.approx(expected, abs=1e-12)
    assert s[0].ordinal.vus(y) == pytest.approx(direct_vus(y.values, s.values[0], np.ones(30), 3), abs=1e-12)
    ds = pred.ordinal.evaluate(y, marker=s, dim="sample", metrics=["mae", "orc"])
    xr.testing.assert_allclose(ds["mae"], pred.ordinal.mae(y, dim="sample"))
    xr.testing.assert_allclose(ds["orc"], s.ordinal.orc(y, dim="sample"))
    holed = s.where((s.sample % 4 != 0) | (s.model == "lr"))  # 8 missing scores of model rf
    with pytest.raises(ValueError, match="'marker' has 8 missing"):
        holed.ordinal.orc(y, dim="sample")
    with pytest.warns(ordframe.DroppedRowsWarning, match="dropped 8 of 60 rows"):
        dropped = holed.ordinal.orc(y, dim="sample", dropna=True)
    kept = np.arange(30) % 4 != 0
    expected = direct_orc(y.values[kept], s.values[0][kept], np.ones(kept.sum()), 3)
    assert dropped.sel(model="rf") == pytest.approx(expected, abs=1e-12)
    with pytest.raises(TypeError, match="marker= scores the true labels"):
        pred.ordinal.evaluate(y, marker=s, dropna=True)


def test_paired_bootstrap_replicates_equal_the_confusion_metrics_of_the_same_draws():
    """With the predicted class as the marker, every replicate (and BCa's jackknife) is the confusion metric's."""
    rng = np.random.default_rng(5)
    n = 30
    one = pd.DataFrame({"y": rng.integers(0, 3, n), "sample": np.arange(n), "fold": np.arange(n) % 2})
    df = pd.concat([one.assign(p=rng.integers(0, 3, n), model=m) for m in "ab"])
    pairs = {"kendall_tau_b": "marker_kendall_tau_b", "somers_d": "marker_somers_d"}
    for design in ({}, {"strata": "fold"}, {"cluster": "sample"}):
        ds = df.ordinal.evaluate(
            "y", "p", marker="p", by="model", metrics=[*pairs, *pairs.values()], n_resamples=20, seed=1,
            sample="sample", **design,
        )  # fmt: skip
        for label, score in pairs.items():
            np.testing.assert_allclose(ds[label], ds[score], atol=1e-12, err_msg=f"{score} {design}")
    bounds = df.ordinal.ci(
        "y", "p", marker="p", by="model", metrics=["kendall_tau_b", "marker_kendall_tau_b"], n_resamples=100,
        seed=2, sample="sample", method="bca",
    )  # fmt: skip
    np.testing.assert_allclose(bounds["kendall_tau_b"], bounds["marker_kendall_tau_b"], atol=1e-12)
    with pytest.raises(ValueError, match="draws from the confusion cube"):
        df.ordinal.ci(
            "y", marker="p", by="model", metrics=["orc"], n_resamples=10, sample="sample", method="calibrated"
        )


def test_a_plugin_registers_a_score_metric(restore_registry):
    def extreme_auc(counts, starts):
        c, _ = pairwise_c(counts, starts)
        return c[..., 0, -1]

    class Extremes:
        @ordframe.hookimpl
        def ordframe_metrics(self):
            return [ordframe.Metric("extreme_auc", "score", extreme_auc, True, (0, 1))]

    ordframe.register(Extremes(), name="extremes")
    df = frame()
    first, last = df[df.y == 0], df[df.y == 2]
    expected = direct_c(df.y.to_numpy(), df.s.to_numpy(), np.ones(len(df)), 0, 2)
    assert len(first) and len(last)
    assert df.ordinal.extreme_auc("y", "s") == pytest.approx(expected, abs=1e-12)
    assert ordframe.extreme_auc(df.y, df.s) == pytest.approx(expected, abs=1e-12)
    assert "extreme_auc" in df.ordinal.evaluate("y", marker="s")
    replicates = df.ordinal.evaluate("y", marker="s", metrics=["extreme_auc"], n_resamples=5, seed=0)
    assert replicates["extreme_auc"].dims == ("bootstrap",)


def test_the_command_line_scores_a_marker_column(capsys, tmp_path):
    from ordframe._cli.main import main

    df = frame()
    path = tmp_path / "scores.csv"
    df.to_csv(path, index=False)
    assert main(["score", str(path), "--true", "y", "--marker", "s", "--by", "model", "--format", "csv"]) == 0
    table = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="model")
    expected = df.ordinal.evaluate("y", marker="s", by="model").to_dataframe()
    assert sorted(table) == sorted(expected)  # every score metric by default
    np.testing.assert_allclose(table[expected.columns].values, expected.values, atol=5e-4)  # printed to 4 places
    argv = ["score", str(path), "--true", "y", "--marker", "s", "--by", "model", "--metrics", "orc", "--format", "csv"]
    assert main([*argv, "--n-resamples", "20"]) == 0  # each group's rows resampled: no cube
    bounds = pd.read_csv(io.StringIO(capsys.readouterr().out), index_col="model")
    assert (bounds["orc_low"] <= bounds["orc"]).all() and (bounds["orc"] <= bounds["orc_high"]).all()
    both = ["score", str(path), "--true", "y", "--pred", "y", "--marker", "s", "--by", "model", "--n-resamples", "20"]
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)  # vus's default (BCa) is not for groups apart: percentile, unsaid
        assert main([*both, "--metrics", "vus", "mae"]) == 0
    capsys.readouterr()
    for extra, message in (
        (["--n-resamples", "20", "--ci", "bca"], "--ci bca: the score metrics \\(orc\\) get percentile intervals"),
        (["--metrics", "mae"], "--metrics mae: it scores predicted labels: pass their column with --pred"),
    ):
        assert main([*argv, *extra]) == 2
        assert re.search(message, capsys.readouterr().err)
    assert main(["score", str(path), "--true", "y", "--pred", "y", "--metrics", "vus"]) == 2
    assert "--metrics vus: it orders the classes by a continuous score: pass its column with --marker" in (
        capsys.readouterr().err
    )
