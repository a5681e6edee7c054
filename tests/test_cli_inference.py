"""The ``ordframe score`` command's inference options: --sample, --strata, --cluster, --level, --proba with
--n-resamples, and --compare, equal to the Python API on the same seed."""

import io
import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import ordframe
from ordframe._cli.main import main
from ordframe._core.drawing import Resampling
from ordframe._inputs.selection import Selection
from ordframe._resampling.paired import paired_replicates

PROBA = ["p0", "p1", "p2"]


@pytest.fixture
def repeated_cv(tmp_path):
    """Two models, every subject in each of two repeats of a 4-fold CV; written to a CSV file."""
    rng = np.random.default_rng(0)
    n = 80
    y = rng.integers(0, 3, n)
    parts = []
    for repeat in range(2):
        fold = rng.permutation(np.arange(n) % 4)
        for model, noise in (("a", 0.5), ("b", 0.9)):
            p = rng.dirichlet(np.ones(3), n)
            yhat = np.clip(np.round(y + rng.normal(0, noise, n)), 0, 2).astype(int)
            parts.append(
                pd.DataFrame(
                    {"subject": np.arange(n), "repeat": repeat, "fold": fold, "y": y, "yhat": yhat, "model": model}
                ).join(pd.DataFrame(p, columns=PROBA))
            )
    df = pd.concat(parts, ignore_index=True)
    path = tmp_path / "cv.csv"
    df.to_csv(path, index=False)
    return df, path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


PAIRED = ["--by", "model", "--sample", "subject", "--strata", "repeat", "fold", "--cluster", "subject"]


def test_cluster_intervals_equal_the_python_api(capsys, repeated_cv, tmp_path):
    df, path = repeated_cv
    out = tmp_path / "scores.json"
    argv = ["score", path, "--true", "y", "--pred", "yhat", *PAIRED, "--metrics", "mae", "oc"]
    code, _, err = run(
        capsys, *argv, "--n-resamples", 300, "--seed", 4, "--level", 0.9, "--ci", "percentile", "--out", out
    )
    assert code == 0, err
    got = pd.DataFrame(json.loads(out.read_text())).set_index("model")
    draws = Resampling(300, 4, sample="subject", strata=["repeat", "fold"], cluster="subject")
    replicates = paired_replicates(df, Selection("y", "yhat", by="model"), draws, ["mae", "oc"], pool=True)[0]
    bounds = ordframe.ci(replicates, level=0.9, method="percentile")
    values = df.ordinal.evaluate("y", "yhat", by="model", metrics=["mae", "oc"])
    for metric in ("mae", "oc"):
        np.testing.assert_allclose(got[metric].to_numpy(), values[metric].values)
        np.testing.assert_allclose(got[f"{metric}_low"].to_numpy(), bounds[metric].sel(bound="low").values)
        np.testing.assert_allclose(got[f"{metric}_high"].to_numpy(), bounds[metric].sel(bound="high").values)


def test_probability_intervals_from_the_paired_bootstrap(capsys, repeated_cv):
    df, path = repeated_cv
    argv = ["score", path, "--true", "y", "--proba", *PROBA, *PAIRED, "--metrics", "rps", "--n-resamples", 200]
    code, out, err = run(capsys, *argv, "--format", "csv")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out)).set_index("model")
    assert (got["rps_low"] < got["rps"]).all() and (got["rps"] < got["rps_high"]).all()
    np.testing.assert_allclose(got["rps"].to_numpy(), df.ordinal.rps("y", PROBA, by="model").values)


def test_probabilities_do_not_change_what_by_means(capsys, tmp_path):
    """--by fold with --proba: each fold's rows resampled apart, as without --proba (folds are not paired models)."""
    rng = np.random.default_rng(3)
    sizes = {0: 100, 1: 120, 2: 80}
    n = sum(sizes.values())
    y = rng.integers(0, 3, n)
    p = rng.dirichlet(np.ones(3), n)
    df = pd.DataFrame(
        {
            "y": y,
            "yhat": np.clip(y + rng.integers(-1, 2, n), 0, 2),
            "fold": np.repeat(list(sizes), list(sizes.values())),
        }
    )
    df[PROBA] = p
    path = tmp_path / "folds.csv"
    df.to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "fold", "--n-resamples", 1000, "--metrics", "mae"]
    code, out, err = run(capsys, *argv, "rps", "--proba", *PROBA, "--ci", "percentile", "--format", "csv")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out)).set_index("fold")
    # per sample: the index distance, and the RPS of Galdran (2023), normalised by K - 1
    cumulative = np.cumsum(p, axis=1)[:, :-1] - (y[:, None] <= np.arange(2))
    per_sample = pd.DataFrame({"mae": np.abs(df["y"] - df["yhat"]), "rps": (cumulative**2).sum(axis=1) / 2})
    for fold, rows in per_sample.groupby(df["fold"]):
        for metric in ("mae", "rps"):
            assert got.loc[fold, metric] == pytest.approx(rows[metric].mean())
            normal = 2 * 1.96 * rows[metric].std() / np.sqrt(len(rows))  # each fold's own width, not the pooled one
            assert got.loc[fold, f"{metric}_high"] - got.loc[fold, f"{metric}_low"] == pytest.approx(normal, rel=0.2)
    code, _, err = run(capsys, *argv, "rps", "--proba", *PROBA, "--ci", "bca")
    assert code == 2 and "--ci bca: the probability metrics (rps) get percentile intervals per --by group" in err


@pytest.mark.parametrize("by", [[], ["--by", "model"]])
def test_a_warning_about_the_rows_is_given_once(capsys, repeated_cv, tmp_path, by):
    df, _ = repeated_cv
    path = tmp_path / "gap.csv"
    df[df["repeat"] == 0].assign(y=lambda f: f["y"].where(f.index != 5)).to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--proba", *PROBA, *by, "--metrics", "rps", "--n-resamples", 50, "--dropna"]
    code, _, err = run(capsys, *argv)
    assert code == 0 and err.count("--dropna dropped 1 of 160 rows") == 1, err


def test_compare_with_one_model_says_so(capsys, repeated_cv, tmp_path):
    df, _ = repeated_cv
    path = tmp_path / "one_model.csv"
    df[(df["model"] == "a") & (df["repeat"] == 0)].to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "--sample", "subject", "--metrics", "mae"]
    code, out, err = run(capsys, *argv, "--n-resamples", 100, "--compare")
    assert code == 2 and out == ""
    assert (
        err
        == "ordframe score: error: column 'model' has one model, 'a': nothing to compare; --compare needs the rows of two models or more\n"
    )


def test_compare_prints_each_pair_once(capsys, repeated_cv):
    df, path = repeated_cv
    argv = ["score", path, "--true", "y", "--pred", "yhat", *PAIRED, "--metrics", "mae", "qwk", "--n-resamples", 200]
    code, out, err = run(capsys, *argv, "--compare", "--format", "csv", "--seed", 1)
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out))
    assert list(got.columns) == [
        "metric",
        "model",
        "versus",
        "difference",
        "low",
        "high",
        "p_value",
        "adjusted_p_value",
        "bootstrap_share_better",
    ]
    assert got[["metric", "model", "versus"]].values.tolist() == [["mae", "a", "b"], ["qwk", "a", "b"]]
    expected = df.ordinal.compare(
        "y",
        "yhat",
        model="model",
        sample="subject",
        strata=["repeat", "fold"],
        cluster="subject",
        metrics=["mae", "qwk"],
        n_resamples=200,
        seed=1,
    )
    np.testing.assert_allclose(got["difference"], expected["difference"].sel(model="a", versus="b").values)
    np.testing.assert_allclose(got["p_value"], expected["p_value"].sel(model="a", versus="b").values)


@pytest.mark.parametrize("extension", ["csv", "json", "md", "txt", "parquet", "nc"])
def test_compare_writes_every_format(capsys, repeated_cv, tmp_path, extension):
    _, path = repeated_cv
    out = tmp_path / f"pairs.{extension}"
    argv = [
        "score",
        path,
        "--true",
        "y",
        "--pred",
        "yhat",
        "--by",
        "model",
        "--sample",
        "subject",
        "--strata",
        "repeat",
    ]
    code, _, err = run(capsys, *argv, "--metrics", "mae", "--n-resamples", 50, "--compare", "--out", out)
    assert code == 0, err
    assert out.stat().st_size > 0


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--sample", "subject"], "--sample: these options apply to a bootstrap; give --n-resamples N too"),
        (["--compare", "--n-resamples", 10], "--compare compares the models of one --by column"),
        (["--n-resamples", 10, "--level", 1.5], "--level must be a number between 0 and 1"),
        (["--n-resamples", 10, "--cluster", "nope", "--by", "model"], "column 'nope' is not in the file"),
    ],
)
def test_inference_option_errors(capsys, repeated_cv, options, message):
    _, path = repeated_cv
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", *options)
    assert code == 2 and message in err and "Traceback" not in err


@pytest.mark.slow
def test_the_repeated_cv_warning_reaches_the_command_line(repeated_cv):
    _, path = repeated_cv
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "ordframe",
            "score",
            str(path),
            "--true",
            "y",
            "--pred",
            "yhat",
            "--by",
            "model",
            "--sample",
            "subject",
            "--strata",
            "repeat",
            "fold",
            "--n-resamples",
            "20",
        ],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    assert "occur in more than one stratum" in done.stderr and "Pass --cluster subject" in done.stderr


@pytest.mark.parametrize("method", ["bca", "basic", "percentile"])
def test_ci_choice_of_the_paired_path_is_df_ordinal_ci(capsys, repeated_cv, tmp_path, method):
    df, path = repeated_cv
    out = tmp_path / "scores.csv"
    argv = ["score", path, "--true", "y", "--proba", *PROBA, *PAIRED, "--metrics", "rps", "oc", "--n-resamples", 300]
    code, _, err = run(capsys, *argv, "--ci", method, "--seed", 2, "--out", out)
    assert code == 0, err
    got = pd.read_csv(out).set_index("model")
    expected = df.ordinal.ci(
        "y",
        proba=PROBA,
        metrics=["rps", "oc"],
        by="model",
        sample="subject",
        strata=["repeat", "fold"],
        cluster="subject",
        n_resamples=300,
        seed=2,
        method=method,
    )
    for name in ("rps", "oc"):
        np.testing.assert_allclose(got[f"{name}_low"], expected[name].sel(bound="low").values)
        np.testing.assert_allclose(got[f"{name}_high"], expected[name].sel(bound="high").values)


def test_auto_intervals_of_the_cube_path_are_each_metric_s_default(capsys, repeated_cv, tmp_path):
    df, path = repeated_cv
    out = tmp_path / "scores.csv"
    code, _, err = run(
        capsys,
        "score",
        path,
        "--true",
        "y",
        "--pred",
        "yhat",
        "--by",
        "model",
        "--metrics",
        "oc",
        "mae",
        "within_k",
        "--n-resamples",
        200,
        "--out",
        out,
    )
    assert code == 0, err
    assert "percentile interval, not the default" not in err  # OC's default (calibrated) gets the cube it needs
    got = pd.read_csv(out).set_index("model")
    cube = df.ordinal.confusion("y", "yhat", by="model")
    rng = np.random.default_rng(0)
    replicates = ordframe.bootstrap_cube(cube, 200, seed=rng).ordinal.evaluate(metrics=["oc", "mae", "within_k"])
    expected = ordframe.ci(replicates, cube=cube, seed=rng)
    assert expected["oc"].attrs["ci_method"] == "calibrated"
    assert expected["within_k"].attrs["ci_method"] == "jeffreys"
    for name in ("mae", "within_k"):
        np.testing.assert_allclose(got[f"{name}_low"], expected[name].sel(bound="low").values)
        np.testing.assert_allclose(got[f"{name}_high"], expected[name].sel(bound="high").values)
    np.testing.assert_allclose(got["oc_low"], expected["oc"].sel(bound="low").values)
