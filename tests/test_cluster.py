"""The cluster bootstrap: whole subjects drawn with all their rows, across repeats, folds and models."""

import warnings

import dask.dataframe as dd
import numpy as np
import pandas as pd
import pytest

import ordframe
from ordframe.metrics.proba import rps

PROBA = ["p0", "p1", "p2"]
REPEATS, FOLDS = 3, 5


def repeated_cv(subjects=120, seed=0):
    """Two models' predictions of every subject in every repeat of a 5-fold CV (one row per subject, repeat, model).

    A subject's predictions share a subject effect across repeats (as out-of-fold predictions of one subject
    do), so its rows are strongly dependent.
    """
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, subjects)
    effect = rng.normal(0, 0.8, subjects)  # how hard the subject is, the same in every repeat
    parts = []
    for repeat in range(REPEATS):
        fold = rng.permutation(np.arange(subjects) % FOLDS)
        for model, noise in (("a", 0.4), ("b", 0.6)):
            latent = y + effect + rng.normal(0, noise, subjects)
            p = rng.dirichlet(np.ones(3), subjects)
            parts.append(
                pd.DataFrame(
                    {
                        "subject": [f"s{i:03d}" for i in range(subjects)],
                        "y": y,
                        "yhat": np.clip(np.round(latent), 0, 2).astype(int),
                        "model": model,
                        "repeat": repeat,
                        "fold": fold,
                        **dict(zip(PROBA, p.T)),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def row_loop(df, n, seed, value):
    """Subject-level bootstrap by brute force: draw subjects, take all their rows, score the pooled rows per model."""
    rng = np.random.default_rng(seed)
    subjects = df["subject"].unique()
    rows_of = df.groupby("subject").indices
    out = []
    for _ in range(n):
        drawn = rng.choice(subjects, len(subjects))
        rows = df.iloc[np.concatenate([rows_of[s] for s in drawn])]
        out.append([value(rows[rows["model"] == m]) for m in ("a", "b")])
    return np.array(out)


def mae(rows):
    return float(np.abs(rows["y"] - rows["yhat"]).mean())


def mean_rps(rows):
    return float(rps(rows[PROBA].to_numpy(), rows["y"].to_numpy()).mean())


def test_cluster_replicates_spread_as_a_subject_level_row_loop():
    df = repeated_cv()
    n = 2000
    boot = df.ordinal.bootstrap(
        "y", "yhat", sample="subject", strata=["repeat", "fold"], cluster="subject", n_resamples=n, seed=1
    )
    ours = boot.sum(("repeat", "fold")).ordinal.mae()
    loop = row_loop(df, n, seed=2, value=mae)
    # the SD of an SD estimated from n replicates has a relative standard error of about 1/sqrt(2n), so the
    # ratio of two independent ones about 1/sqrt(n): 5 of them
    tolerance = 5 / np.sqrt(n)
    assert ours.std("bootstrap").values == pytest.approx(loop.std(axis=0), rel=tolerance)
    difference = ours.sel(model="a") - ours.sel(model="b")
    assert float(difference.std()) == pytest.approx((loop[:, 0] - loop[:, 1]).std(), rel=tolerance)
    assert float(ours.mean()) == pytest.approx(loop.mean(), abs=5 * loop.std() / np.sqrt(n))


def test_strata_alone_resample_a_subject_s_repeats_as_independent_and_warn():
    """The review's finding: with the repeats as strata the replicates are too narrow; the warning names cluster=."""
    df = repeated_cv()
    design = {"model": "model", "sample": "subject", "strata": ["repeat", "fold"], "n_resamples": 1000, "seed": 1}
    with pytest.warns(UserWarning, match=r"120 'subject' value\(s\) occur in more than one stratum.*cluster='subject'"):
        naive = df.ordinal.bootstrap("y", "yhat", **design)
    clustered = df.ordinal.bootstrap("y", "yhat", cluster="subject", **design)
    narrow = naive.sum(("repeat", "fold")).ordinal.mae().std("bootstrap")
    honest = clustered.sum(("repeat", "fold")).ordinal.mae().std("bootstrap")
    assert (narrow < 0.8 * honest).all()


def test_cluster_probability_replicates_spread_as_the_row_loop():
    df = repeated_cv(subjects=80, seed=3)
    n = 1500
    boot = df.ordinal.evaluate(
        "y",
        "yhat",
        proba=PROBA,
        by=["model", "repeat"],
        sample="subject",
        cluster="subject",
        n_resamples=n,
        seed=4,
        metrics=["rps", "mae"],
    )
    # pooled over the repeats: the mean of equal-sized repeats
    ours = boot["rps"].mean("repeat")
    loop = row_loop(df, n, seed=5, value=mean_rps)
    assert ours.std("bootstrap").values == pytest.approx(loop.std(axis=0), rel=5 / np.sqrt(n))


def test_clusters_nested_in_strata_are_drawn_within_them():
    """A cluster that lies in one stratum is drawn there: every stratum keeps its number of clusters."""
    df = repeated_cv(subjects=60).query("repeat == 0")
    sizes = df[df["model"] == "a"].groupby("fold").size()
    with pytest.warns(UserWarning, match=r"cluster='subject': 5 of the 5 strata hold only 12 clusters"):
        boot = df.ordinal.bootstrap(
            "y", "yhat", model="model", sample="subject", strata="fold", cluster="subject", n_resamples=200, seed=0
        )
    totals = boot.sum(("true", "pred"))
    assert (totals.transpose("bootstrap", "fold", "model").values == sizes.to_numpy()[None, :, None]).all()


def test_clusters_of_several_samples_with_uneven_sizes():
    """A patient with several images: the replicate totals vary, and each replicate is a sum of whole patients."""
    rng = np.random.default_rng(0)
    patient = np.repeat(np.arange(40), rng.integers(1, 6, 40))
    y = rng.integers(0, 3, len(patient))
    df = pd.concat(
        [
            pd.DataFrame(
                {"patient": patient, "image": np.arange(len(y)), "y": y, "yhat": rng.integers(0, 3, len(y)), "model": m}
            )
            for m in "ab"
        ]
    ).sample(frac=1, random_state=0)  # shuffled rows: pairing is by the image ids
    boot = df.ordinal.bootstrap("y", "yhat", model="model", sample="image", cluster="patient", n_resamples=300, seed=0)
    totals = boot.sum(("true", "pred")).transpose("bootstrap", "model").values
    assert (totals[:, 0] == totals[:, 1]).all()  # the same patients for both models
    assert len(np.unique(totals[:, 0])) > 5
    size = np.bincount(patient)
    # every total is a sum of 40 patients' sizes: at least 40 x the smallest, at most 40 x the largest
    assert totals.min() >= 40 * size.min() and totals.max() <= 40 * size.max()


def test_one_sample_per_cluster_is_the_sample_bootstrap_in_distribution():
    df = repeated_cv(subjects=100).query("repeat == 0")
    n = 3000
    by_cluster = df.ordinal.bootstrap(
        "y", "yhat", model="model", sample="subject", cluster="subject", n_resamples=n, seed=0
    )
    by_sample = df.ordinal.bootstrap("y", "yhat", model="model", sample="subject", n_resamples=n, seed=1)
    spread = by_cluster.ordinal.mae().std("bootstrap").values
    assert spread == pytest.approx(by_sample.ordinal.mae().std("bootstrap").values, rel=5 / np.sqrt(n))


def test_a_sample_in_two_clusters_is_refused():
    df = repeated_cv(subjects=20).query("repeat == 0").copy()
    df["site"] = np.where((df["model"] == "b") & (df["subject"] == "s003"), "x", "y")
    with pytest.raises(ValueError, match=r"1 sample\(s\) have different 'site' values for different models"):
        df.ordinal.bootstrap("y", "yhat", model="model", sample="subject", cluster="site", n_resamples=10)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"cluster": ["subject", "repeat"]}, TypeError, "cluster= names one column"),
        ({"cluster": "model"}, ValueError, "'model' given twice among model=, strata=, sample= and cluster="),
        ({"cluster": "nope"}, KeyError, "nope"),
    ],
)
def test_cluster_argument_errors(kwargs, error, match):
    df = repeated_cv(subjects=20).query("repeat == 0")
    with pytest.raises(error, match=match):
        df.ordinal.bootstrap("y", "yhat", model="model", sample="subject", n_resamples=10, **kwargs)


def test_cluster_without_bootstrap_is_refused():
    df = repeated_cv(subjects=20)
    with pytest.raises(TypeError, match="cluster= apply to a bootstrap"):
        df.ordinal.evaluate("y", "yhat", by="model", cluster="subject")


def test_filtered_sorted_reindexed_frames_give_the_same_replicates():
    df = repeated_cv(subjects=50)
    kwargs = {
        "model": "model",
        "sample": "subject",
        "strata": ["repeat", "fold"],
        "cluster": "subject",
        "n_resamples": 200,
        "seed": 3,
    }
    expected = df.ordinal.bootstrap("y", "yhat", **kwargs)
    messy = pd.concat([df, df.assign(y=np.nan).iloc[:7]]).sample(frac=1, random_state=1)
    messy.index = np.arange(len(messy))[::-1] * 3
    same = messy.dropna(subset=["y"]).astype({"y": int}).ordinal.bootstrap("y", "yhat", **kwargs)
    assert (same.transpose(*expected.dims).values == expected.values).all()


def test_dask_cluster_bootstrap_equals_pandas():
    df = repeated_cv(subjects=60)
    kwargs = {
        "model": "model",
        "sample": "subject",
        "strata": ["repeat", "fold"],
        "cluster": "subject",
        "n_resamples": 300,
        "seed": 7,
    }
    expected = df.ordinal.bootstrap("y", "yhat", **kwargs)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no repeated-sample warning with cluster=
        got = dd.from_pandas(df, npartitions=4).ordinal.bootstrap("y", "yhat", **kwargs)
    assert (got.transpose(*expected.dims).values == expected.values).all()


def test_dask_warns_of_sample_ids_repeated_across_strata():
    df = repeated_cv(subjects=30)
    with pytest.warns(UserWarning, match="cluster='subject'"):
        dd.from_pandas(df, npartitions=3).ordinal.bootstrap(
            "y", "yhat", model="model", sample="subject", strata=["repeat", "fold"], n_resamples=10, seed=0
        )


def test_the_cluster_replicates_obey_max_cube_bytes():
    df = repeated_cv(subjects=30)
    with ordframe.set_options(max_cube_bytes=10_000), pytest.raises(MemoryError):
        df.ordinal.bootstrap(
            "y", "yhat", model="model", sample="subject", cluster="subject", strata="repeat", n_resamples=1000
        )


# --------------------------------------------------------------------------- how many clusters (review round 3, H5)


def one_site(n=120):
    """Model b is model a but for one sample of 120; every row is in the site 'only'."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 4, n)
    a = np.clip(y + rng.integers(-1, 2, n), 0, 3)
    b = a.copy()
    b[0] = (y[0] + 1) % 4
    return pd.concat(
        [
            pd.DataFrame({"s": np.arange(n), "y": y, "yhat": p, "model": m, "site": "only"})
            for m, p in (("a", a), ("b", b))
        ],
        ignore_index=True,
    )


SINGLE = r"cluster='site' has 1 cluster: .*every replicate would be the data itself"


@pytest.mark.parametrize("call", ["ci", "compare", "bootstrap"])
def test_a_single_cluster_is_an_error_not_an_interval_of_width_zero(call):
    # an error, not a value: the one cluster drawn every time is the data, so no interval or p-value means anything
    df = one_site()
    models = {"by" if call == "ci" else "model": "model"}  # ci groups by= the models; the others compare them
    kwargs = {**models, "sample": "s", "cluster": "site", "n_resamples": 100, "seed": 0}
    if call != "bootstrap":
        kwargs["metrics"] = ["mae"]
    with pytest.raises(ValueError, match=SINGLE):
        getattr(df.ordinal, call)("y", "yhat", **kwargs)


def test_a_single_cluster_is_an_error_in_the_command_line(tmp_path, capsys):
    from ordframe._cli.main import main

    path = tmp_path / "one_site.csv"
    one_site().to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "--n-resamples", "100", "--sample", "s"]
    assert main([str(a) for a in [*argv, "--cluster", "site", "--compare", "--metrics", "mae"]]) == 2
    assert "error: --cluster site has 1 cluster: a cluster bootstrap" in capsys.readouterr().err


def test_a_stratum_with_a_single_cluster_is_an_error():
    df = one_site().assign(fold=lambda d: d["s"] % 3, site=lambda d: np.where(d["s"] % 3 == 0, 0, d["s"] % 6))
    with pytest.raises(ValueError, match=r"cluster='site': 1 of the 3 strata hold only 1 cluster \(clusters that"):
        df.ordinal.ci(
            "y", "yhat", by="model", sample="s", strata="fold", cluster="site", metrics=["mae"], n_resamples=100
        )


def test_few_clusters_warn_with_their_count_and_twenty_do_not():
    df = one_site()
    with pytest.warns(UserWarning, match=r"cluster='site' has 5 clusters: with fewer than about 20 clusters"):
        df.assign(site=df["s"] % 5).ordinal.ci(
            "y", "yhat", by="model", sample="s", cluster="site", n_resamples=100, seed=0
        )
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        df.assign(site=df["s"] % 20).ordinal.ci(
            "y", "yhat", by="model", sample="s", cluster="site", n_resamples=100, seed=0
        )


def test_dask_counts_the_clusters_too():
    df = one_site()
    with pytest.raises(ValueError, match=SINGLE):
        dd.from_pandas(df, npartitions=3).ordinal.bootstrap(
            "y", "yhat", model="model", sample="s", cluster="site", n_resamples=10
        )


# --------------------------------------------------------------------------- replicates that remember how (item 2)


def test_cluster_replicates_get_the_frame_s_interval_rule_from_ordframe_ci():
    """The README's pattern on cluster replicates: the same interval as df.ordinal.ci(cluster=), not 'calibrated'."""
    df = repeated_cv(subjects=40)
    kwargs = {"sample": "subject", "strata": ["repeat", "fold"], "cluster": "subject", "seed": 0}
    boot = df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=300, **kwargs)
    oc = boot.sum(["repeat", "fold"]).ordinal.oc()
    cube = df.ordinal.confusion("y", "yhat", by="model")
    from_replicates = ordframe.ci(oc, cube=cube)
    on_frame = df.ordinal.ci("y", "yhat", by="model", metrics=["oc"], n_resamples=300, **kwargs)
    assert from_replicates.attrs["ci_method"] == on_frame["oc"].attrs["ci_method"] == "basic"
    for method in ("calibrated", "intersection", "bca"):  # draw from the cube sample by sample, or leave one out
        with pytest.raises(ValueError, match=f"method='{method}' is not valid for replicates that drew whole clusters"):
            ordframe.ci(oc, cube=cube, method=method)
    with pytest.raises(ValueError, match="method='calibrated' is not valid .* use method='basic' or 'bca'"):
        df.ordinal.ci("y", "yhat", by="model", metrics=["oc"], n_resamples=100, method="calibrated", **kwargs)


# --------------------------------------------------------------------------- repeated CV without sample= (item 3)

UNNAMED = r"column 'subject' looks like the ids of subjects with several rows per model: each of its 40 values has 3"


@pytest.mark.parametrize("call", ["bootstrap", "ci", "compare"])
def test_repeated_cv_without_sample_or_cluster_warns_and_names_them(call):
    """The README's compare(strata="fold") on repeated-CV rows: intervals about half as wide as they should be."""
    df = repeated_cv(subjects=40)
    kwargs = {
        "by" if call == "ci" else "model": "model",
        "strata": "fold",
        "n_resamples": 100,
        "seed": 0,
        **({} if call == "bootstrap" else {"metrics": ["mae"]}),
    }
    with pytest.warns(UserWarning, match=UNNAMED + r".*cluster='subject'"):
        getattr(df.ordinal, call)("y", "yhat", **kwargs)


def test_one_cross_validation_or_named_subjects_do_not_warn():
    df = repeated_cv(subjects=40)
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        df.query("repeat == 0").ordinal.compare(
            "y", "yhat", model="model", strata="fold", metrics=["mae"], n_resamples=100
        )
        subjects = {"sample": "subject", "strata": ["repeat", "fold"], "cluster": "subject"}
        df.ordinal.compare("y", "yhat", model="model", n_resamples=100, metrics=["mae"], **subjects)
