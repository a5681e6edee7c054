"""The ``ordframe`` command: score files in every format, errors in one line with exit code 2, reproduce."""

import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ordframe
from ordframe._cli.main import main
from ordframe._cli.score import NO_BASELINES
from ordframe.sklearn import add_baselines

NOTE = NO_BASELINES + "\n"  # --by without --fold: no baselines, said once


@pytest.fixture
def predictions(tmp_path):
    rng = np.random.default_rng(0)
    n = 200
    y = rng.integers(1, 6, n)
    frame = pd.DataFrame(
        {"y": y, "yhat": np.clip(y + rng.integers(-1, 2, n), 1, 5), "model": rng.choice(["lr", "rf"], n)}
    )
    path = tmp_path / "predictions.csv"
    frame.to_csv(path, index=False)
    return path, frame


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_score_a_csv_by_model(capsys, predictions):
    path, frame = predictions
    code, out, _ = run(
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
        "--format",
        "csv",
    )
    assert code == 0
    table = pd.read_csv(__import__("io").StringIO(out), index_col="model")
    expected = frame.ordinal.evaluate("y", "yhat", by="model", metrics=["oc", "mae"]).to_dataframe()
    np.testing.assert_allclose(table[["oc", "mae"]].values, expected[["oc", "mae"]].values)


@pytest.mark.parametrize("fmt", ["table", "json", "markdown"])
def test_formats(capsys, predictions, fmt):
    path, frame = predictions
    code, out, _ = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "mae", "--format", fmt)
    assert code == 0
    mae = frame.ordinal.mae("y", "yhat")
    if fmt == "json":
        assert json.loads(out)[0]["mae"] == pytest.approx(mae)
    else:
        assert f"{mae:.4f}".rstrip("0") in out


def test_a_value_that_rounds_to_zero_is_printed_without_a_sign(capsys, tmp_path):
    path = tmp_path / "near_zero.csv"
    pd.DataFrame({"y": [1, 0, 2, 1, 1, 1], "yhat": [2, 0, 0, 0, 2, 1]}).to_csv(path, index=False)
    qwk = pd.read_csv(path).ordinal.qwk("y", "yhat")
    assert -1e-12 < qwk < 0  # 0 up to rounding, on the negative side
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--metrics", "qwk"]
    for fmt in ("table", "markdown"):  # text for people: no -0.0
        code, out, _ = run(capsys, *argv, "--format", fmt)
        assert code == 0 and "0.0" in out and "-0" not in out
    code, out, _ = run(capsys, *argv, "--format", "csv")  # data for programs: the exact value
    assert code == 0 and float(out.split()[1]) == qwk


def test_a_table_wraps_to_the_terminal_but_not_into_a_pipe(capsys, predictions, monkeypatch):
    path, _ = predictions
    monkeypatch.setenv("COLUMNS", "80")
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "--metrics", "all"]
    code, piped, _ = run(capsys, *argv)
    assert code == 0 and len(piped.splitlines()) == 3  # a header and one line per model
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = run(capsys, *argv)
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 80 < max(
        len(line) for line in piped.splitlines()
    )
    assert all(f" {name}" in out for name in ("accuracy", "oc", "uoc", "rint", "d"))


def test_bootstrap_intervals_and_output_file(capsys, predictions, tmp_path):
    path, _ = predictions
    target = tmp_path / "scores.json"
    code, out, err = run(
        capsys,
        "score",
        path,
        "--true",
        "y",
        "--pred",
        "yhat",
        "--metrics",
        "mae",
        "--n-resamples",
        300,
        "--format",
        "json",
        "--out",
        target,
    )
    assert code == 0 and out == "" and "wrote" in err
    (row,) = json.loads(target.read_text())
    assert row["mae_low"] < row["mae"] < row["mae_high"]


def test_labels_are_typed_like_the_column_and_parquet_files(capsys, predictions, tmp_path):
    path, frame = predictions
    code, out, _ = run(
        capsys,
        "score",
        path,
        "--true",
        "y",
        "--pred",
        "yhat",
        "--metrics",
        "mae",
        "--labels",
        *range(0, 7),
        "--format",
        "csv",
    )
    assert code == 0 and float(out.splitlines()[1]) == pytest.approx(frame.ordinal.mae("y", "yhat"))
    pytest.importorskip("pyarrow")
    parquet = tmp_path / "p.parquet"
    frame.to_parquet(parquet)
    code, out, _ = run(capsys, "score", parquet, "--true", "y", "--pred", "yhat", "--metrics", "mae", "--format", "csv")
    assert code == 0 and float(out.splitlines()[1]) == pytest.approx(frame.ordinal.mae("y", "yhat"))


@pytest.mark.parametrize(
    "argv, message",
    [
        (["score", "missing.csv", "--true", "y", "--pred", "yhat"], "no such file"),
        (["score", "{path}", "--true", "y", "--pred", "nope"], "column 'nope' is not in the file"),
        (["score", "{path}", "--true", "y", "--pred", "yhat", "--labels", "1", "2"], "outside the classes"),
        (["score", "{path}", "--true", "y", "--pred", "yhat", "--labels", "a", "b"], "must be numbers"),
        (["score", "{path}", "--true", "y", "--pred", "yhat", "--metrics", "nonsense"], "no metric named"),
        (["score", "{path}", "--true", "y"], "needs --true COL and --pred COL"),
    ],
)
def test_errors_are_one_line_and_exit_2(capsys, predictions, argv, message):
    path, _ = predictions
    code, out, err = run(capsys, *[a.format(path=path) for a in argv])
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and message in err and "Traceback" not in err


@pytest.mark.parametrize("fmt", ["table", "csv", "json", "markdown"])
def test_integer_group_keys_are_in_every_format(capsys, predictions, fmt):
    path, frame = predictions
    frame.assign(fold=np.arange(len(frame)) % 4).to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "fold", "--metrics", "mae", "--format", fmt]
    code, out, _ = run(capsys, *argv)
    expected = frame.assign(fold=np.arange(len(frame)) % 4).ordinal.mae("y", "yhat", by="fold").to_series()
    if fmt == "json":
        got = pd.DataFrame(json.loads(out)).set_index("fold")["mae"]
    elif fmt == "csv":
        got = pd.read_csv(__import__("io").StringIO(out)).set_index("fold")["mae"]
    else:
        lines = [line.strip("| ").replace(" | ", " ").split() for line in out.splitlines() if line.strip("|-")]
        assert lines[0] == ["fold", "mae", "↓"]
        got = pd.Series({int(a): float(b) for a, b in lines[1:]})
    assert code == 0 and got.to_dict() == pytest.approx(
        expected.round(4 if fmt in ("table", "markdown") else 12).to_dict()
    )


def test_the_output_format_follows_the_out_extension_and_write_errors_are_one_line(capsys, predictions, tmp_path):
    path, frame = predictions
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--out", tmp_path / "scores.json")
    assert code == 0 and json.loads((tmp_path / "scores.json").read_text())[0]["mae"] == pytest.approx(
        frame.ordinal.mae("y", "yhat")
    )
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--out", tmp_path / "no" / "x.csv")
    assert code == 2 and err.count("\n") == 1 and "cannot write" in err and "Traceback" not in err
    code, _, err = run(capsys, "score", tmp_path, "--true", "y", "--pred", "yhat")
    assert code == 2 and "is a directory" in err


def test_default_metrics_are_the_core_set_and_all_gives_every_score(capsys, predictions):
    path, _ = predictions
    _, out, _ = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--format", "json")
    assert list(json.loads(out)[0]) == list(ordframe.METRIC_SETS["core"])
    _, out, _ = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--format", "json", "--metrics", "all")
    confusion = set(ordframe.list_metrics().query("kind == 'confusion'")["name"])
    assert set(json.loads(out)[0]) == confusion - {"tc", "max_tc"}  # totals, not scores
    _, out, _ = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--format", "json", "--metrics", "tc")
    assert list(json.loads(out)[0]) == ["tc"]  # named, a total is given


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--labels", "low", "mid"], "Add them to --labels (in order)"),
        ([], "Pass --labels with the classes in order, lowest first"),
        (["--labels", "low", "mid", "high", "--n-resamples", "0"], "--n-resamples must be a whole number"),
        (["--labels", "low", "mid", "high", "--metrics", "rps"], "pass the probability columns with --proba"),
        (["--labels", "low", "mid", "high", "--proba", "p_low", "p_mid"], "pass --labels naming the class of each"),
    ],
)
def test_errors_name_the_command_line_options(capsys, tmp_path, argv, message):
    path = tmp_path / "grades.csv"
    pd.DataFrame(
        {"g": ["low", "mid", "high"] * 3, "p": ["low", "high", "high"] * 3, "p_low": 0.2, "p_mid": 0.8}
    ).to_csv(path, index=False)
    code, _, err = run(capsys, "score", path, "--true", "g", "--pred", "p", *argv)
    assert code == 2 and message in err and "labels=[" not in err and "class_dim" not in err


def test_warnings_are_one_line_in_command_line_words(capsys, predictions):
    path, frame = predictions
    frame.astype({"y": float}).assign(y=lambda f: f["y"].where(f.index != 3)).to_csv(path, index=False)
    code, out, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--dropna", "--metrics", "mae")
    assert code == 0 and err == (
        "ordframe score: warning: --dropna dropped 1 of 200 rows with a missing value in 'y'\n"
        "ordframe score: warning: the file's rows are scored as one group; to score each model or fold, add --by with "
        "some of model\n"
    )


def test_a_model_without_probabilities_in_the_file(capsys, tmp_path):
    path = tmp_path / "mixed.csv"
    frame = pd.DataFrame({"y": [0, 1, 2] * 2, "yhat": [0, 1, 1, 0, 2, 2], "model": list("aaabbb")})
    frame[["p0", "p1", "p2"]] = [[0.8, 0.1, 0.1], [0.1, 0.8, 0.1], [0.1, 0.1, 0.8]] + [[np.nan] * 3] * 3
    frame.to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--proba", "p0", "p1", "p2", "--by", "model"]
    code, out, _ = run(capsys, *argv, "--metrics", "mae", "rps", "--format", "json")
    assert code == 0 and json.loads(out) == [
        {"model": "a", "mae": pytest.approx(1 / 3), "rps": pytest.approx(0.02)},
        {"model": "b", "mae": pytest.approx(1 / 3), "rps": None},
    ]


def test_a_garbled_file(capsys, tmp_path):
    bad = tmp_path / "bad.parquet"
    bad.write_bytes(b"not parquet at all")
    code, _, err = run(capsys, "score", bad, "--true", "y", "--pred", "yhat")
    assert code == 2 and err.startswith("ordframe score: error: cannot read")


@pytest.mark.slow
def test_version_module_entry_point_and_closed_pipe(predictions):
    path, _ = predictions
    version = subprocess.run([sys.executable, "-m", "ordframe", "--version"], capture_output=True, text=True)
    assert version.returncode == 0 and version.stdout.startswith("ordframe ")
    piped = subprocess.run(
        f'{sys.executable} -m ordframe score "{path}" --true y --pred yhat --by model | head -c 10',
        shell=True,
        capture_output=True,
        text=True,
    )
    assert "Traceback" not in piped.stderr


def test_reproduce_prints_every_published_value_with_notes(capsys, monkeypatch):
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)  # a terminal, while standard output is not one
    monkeypatch.setattr("ordframe._core.progress.AUTO_SECONDS", 0.0)  # every run counts as long
    code, out, err = run(capsys, "reproduce", "--pairs", "200")
    assert code == 0 and "ordframe reproduce: Table 3" in err  # progress of the simulation, on standard error
    assert max(len(line) for line in out.splitlines()) <= 100
    title = (Path(__file__).parents[1] / "docs" / "reproduction.md").read_text().splitlines()[0].removeprefix("# ")
    assert f'page "{title}" explains' in " ".join(out.split()) and "docs/" not in out  # a page, not a source path
    assert "skipped [1]" in out and "\n[1] misprint: " in out  # a note below its table, numbered
    assert "published values reproduced, 0 not" in out
    assert "skipped" in out
    assert "Table 3 (simulated: 200 pairs per cell, seed 2016)" in out
    assert "d favours the lower-cost matrix in every pair of every cell: yes." in out


def test_demo_trains_evaluates_and_writes_results(capsys, tmp_path):
    pytest.importorskip("sklearn")
    code, out, _ = run(capsys, "demo", "--quick", "--out", tmp_path / "demo")
    assert code == 0
    assert "Average rank over the 3 data sets" in out and "corrected resampled t-test" in out
    results = __import__("xarray").open_dataset(tmp_path / "demo" / "results.nc")
    assert set(results.dims) == {"dataset", "model", "rep"} and results.sizes["model"] == 3
    assert results["oc"].attrs["metric"] == "oc"
    interval = ordframe.corrected_ci(results["oc"], dim="rep", test_train_ratio=0.3 / 0.7).sel(
        dataset="esl", model="frank_hall"
    )
    mean = float(results["oc"].sel(dataset="esl", model="frank_hall").mean())
    assert "esl: mean [95% interval] over 3 test sets" in out
    assert "oc ↓  " in out and "{:.3f} [{:.3f}, {:.3f}]".format(mean, *interval.values) in out
    assert (tmp_path / "demo" / "results.csv").exists()
    if __import__("importlib").util.find_spec("matplotlib"):
        assert (tmp_path / "demo" / "confusion_lev.png").stat().st_size > 10_000
        assert (tmp_path / "demo" / "critical_difference_oc.png").exists()
    results.close()


def test_the_demo_predicts_on_its_stratified_splits_by_cross_val_frame():
    pytest.importorskip("sklearn")
    from sklearn.model_selection import StratifiedShuffleSplit

    from ordframe._cli import demo
    from ordframe._cli.demo_models import models

    frame = ordframe.datasets.load("lev")
    x, y = frame.drop(columns="Out1").to_numpy(dtype=float), frame["Out1"]
    table = demo.predictions(["lev"], 2)["lev"]
    splits = StratifiedShuffleSplit(n_splits=2, test_size=demo.TEST_SIZE, random_state=0).split(x, y.cat.codes)
    for rep, (train, test) in enumerate(splits):  # the loop the demo had before cross_val_frame
        for name, model in models().items():
            rows = table[(table["rep"] == rep) & (table["model"] == name)]
            predicted = model.fit(x[train], y.cat.codes.to_numpy()[train]).predict(x[test])
            assert rows["y"].tolist() == y.iloc[test].tolist()
            assert rows["yhat"].tolist() == y.cat.categories[predicted].tolist()
    assert table["y"].dtype == y.dtype and table["yhat"].dtype == y.dtype


def test_the_demo_s_ordinal_models_are_scikit_learn_estimators():
    pytest.importorskip("sklearn")
    from sklearn.base import clone
    from sklearn.linear_model import LogisticRegression, Ridge
    from sklearn.preprocessing import StandardScaler

    from ordframe._cli.demo_models import FrankHall, RoundedRidge

    rng = np.random.default_rng(0)
    x = rng.normal(size=(90, 2))
    y = np.array(["a", "b", "c", "d"])[np.digitize(x[:, 0] + 0.8 * rng.normal(size=90), [-0.7, 0, 0.7])]
    model = clone(FrankHall(LogisticRegression(C=0.5))).fit(x, y)
    assert model.get_params()["estimator__C"] == 0.5 and list(model.classes_) == ["a", "b", "c", "d"]
    above = np.column_stack([LogisticRegression(C=0.5).fit(x, y > c).predict_proba(x)[:, 1] for c in "abc"])
    differences = -np.diff(np.column_stack([np.ones(90), above, np.zeros(90)]), axis=1)  # P(y > c-1) - P(y > c)
    expected = np.maximum(differences, 0) / np.maximum(differences, 0).sum(axis=1, keepdims=True)
    np.testing.assert_allclose(model.predict_proba(x), expected, rtol=1e-12)
    assert (model.predict(x) == np.array(list("abcd"))[expected.argmax(axis=1)]).all()
    ridge = clone(RoundedRidge(alpha=3.0)).fit(x, y)
    index = np.searchsorted(["a", "b", "c", "d"], y)
    fitted = Ridge(alpha=3.0).fit(StandardScaler().fit_transform(x), index).predict(StandardScaler().fit_transform(x))
    assert (ridge.predict(x) == np.array(list("abcd"))[np.clip(np.round(fitted), 0, 3).astype(int)]).all()
    assert not hasattr(ridge, "predict_proba") and ridge.regressor_ is not None


@pytest.mark.slow
def test_the_demo_s_ordinal_models_pass_scikit_learn_s_estimator_checks():
    pytest.importorskip("sklearn")
    from sklearn.utils.estimator_checks import check_estimator

    from ordframe._cli.demo_models import FrankHall, RoundedRidge

    for model in (FrankHall(), RoundedRidge()):
        failed = [c for c in check_estimator(model, on_fail=None) if c["status"] == "failed"]
        assert not failed, [(c["check_name"], str(c["exception"])) for c in failed]


def test_metrics_lists_every_metric_with_its_direction_within_the_terminal(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "90")
    code, out, _ = run(capsys, "metrics")
    assert code == 0 and max(len(line) for line in out.splitlines()) <= 90
    rows = {line.split()[0]: line.split()[1:3] for line in out.splitlines() if line and not line.startswith(" ")}
    registered = ordframe.list_metrics().query("status == 'ok'")
    for name, kind, direction in registered[["name", "kind", "direction"]].itertuples(index=False):
        assert rows[name] == [kind, direction.split()[0]]
    assert "(plugin underprediction)" in out or "underprediction" not in set(registered["name"])


def test_missing_labels_name_the_row_and_the_option(capsys, predictions):
    path, frame = predictions
    frame.astype({"y": float}).assign(y=lambda f: f["y"].where(f.index != 3)).to_csv(path, index=False)
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat")
    assert code == 2 and "first at rows [3] (counted from 0, after the header)" in err and "--dropna" in err


def test_only_the_group_combinations_that_occur_like_groupby(capsys, tmp_path):
    path = tmp_path / "sparse.csv"
    frame = pd.DataFrame(
        {"y": [0, 1, 2, 1] * 3, "yhat": [0, 1, 1, 1] * 3, "model": list("aaaabbbbaaaa"), "seed": [1] * 8 + [2] * 4}
    )
    frame.to_csv(path, index=False)
    code, out, _ = run(
        capsys, "score", path, "--true", "y", "--pred", "yhat", "--by", "model", "seed", "--format", "json"
    )
    assert code == 0 and [(r["model"], r["seed"]) for r in json.loads(out)] == [("a", 1), ("a", 2), ("b", 1)]


def test_json_keeps_dates_and_text_readable(capsys, tmp_path):
    path = tmp_path / "dated.parquet"
    pytest.importorskip("pyarrow")
    frame = pd.DataFrame({"y": [0, 1, 2, 1], "yhat": [0, 1, 1, 1], "modèle": ["é", "é", "ü", "ü"]})
    frame.assign(day=pd.to_datetime(["2024-01-01", "2024-01-01", "2024-01-02", "2024-01-02"])).to_parquet(path)
    code, out, _ = run(
        capsys, "score", path, "--true", "y", "--pred", "yhat", "--by", "day", "modèle", "--format", "json"
    )
    records = json.loads(out)
    assert code == 0 and records[0]["day"].startswith("2024-01-01T") and records[0]["modèle"] == "é" and "é" in out
    code, out, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--by", "day", "--metrics", "mae")
    assert code == 0 and err == NOTE and "2024-01-02" in out


def test_out_dash_is_standard_output_and_a_conflicting_format_is_said(capsys, predictions, tmp_path):
    path, _ = predictions
    code, out, _ = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "mae", "--out", "-")
    assert code == 0 and out.split()[0] == "mae" and not (tmp_path / "-").exists()
    target = tmp_path / "x.csv"
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--out", target, "--format", "json")
    assert (
        code == 0 and json.loads(target.read_text()) and f"warning: writing json to {target}, as --format says" in err
    )


def test_renormalize_and_other_options_in_messages(capsys, tmp_path):
    path = tmp_path / "scores.csv"
    frame = pd.DataFrame(
        {"y": [0, 1, 2], "yhat": [0, 1, 2], "p0": [0.5, 0.2, 0.1], "p1": [0.2, 0.5, 0.1], "p2": [0.2, 0.2, 0.5]}
    )
    frame.assign(true=1).to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--proba", "p0", "p1", "p2", "--metrics", "rps"]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "--renormalize" in err and "renormalize=True" not in err
    code, out, _ = run(capsys, *argv, "--renormalize", "--format", "json")
    expected = frame.ordinal.rps("y", ["p0", "p1", "p2"], renormalize=True)
    assert code == 0 and json.loads(out)[0]["rps"] == pytest.approx(expected)
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--by", "true")
    assert code == 2 and "rename that column in the file" in err and "df.rename" not in err


def test_a_file_separated_by_a_character_not_looked_for_is_named(capsys, tmp_path):
    path = tmp_path / "pipes.csv"
    path.write_text("y|yhat\n0|1\n1|1\n")
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat")
    assert code == 2 and "it looks '|'-separated: give --sep '|'" in only_line(err)


def test_metrics_fit_a_narrow_terminal_and_all_stands_alone(capsys, predictions, monkeypatch):
    monkeypatch.setenv("COLUMNS", "40")
    code, out, _ = run(capsys, "metrics")
    assert (
        code == 0
        and max(len(line) for line in out.splitlines()) <= 40
        and "\naccuracy\n    confusion, higher: Share of exact\n    predictions." in out
    )
    path, _ = predictions
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "all", "mae")
    assert code == 2 and "--metrics all means every metric" in err


# --------------------------------------------------------------------------- the hostile report's CLI items


def only_line(err: str) -> str:
    """The one line of an error: no traceback, nothing else."""
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


def test_a_failing_plugin_kernel_is_one_line_and_exit_1(capsys, predictions, restore_registry):
    def fragile(counts):
        if counts.shape[-1] > 3:
            raise IndexError("only up to 3 classes")
        return counts.sum(axis=(-2, -1))

    ordframe.register(
        type(
            "Fragile",
            (),
            {
                "ordframe_metrics": ordframe.hookimpl(
                    lambda self: [ordframe.Metric("fragile_idx", "confusion", fragile, True)]
                )
            },
        )(),
        "fragile_plugin",
    )
    path, _ = predictions  # five classes
    code, out, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "all")
    assert code == 1 and out == ""
    assert only_line(err) == (
        "ordframe score: error: metric 'fragile_idx' (plugin 'fragile_plugin') failed with IndexError: only up to 3 "
        "classes; this is a fault of the plugin: report it to its authors. Meanwhile leave it out: name the metrics "
        "you want with --metrics (ordframe metrics lists them)\n"
    )
    code, out, _ = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "mae", "oc")
    assert code == 0 and out.split()[:4] == ["mae", "↓", "oc", "↓"]


@pytest.mark.parametrize("name", ["bound", "bootstrap"])
def test_a_by_column_named_like_the_interval_or_replicate_dim(capsys, predictions, name):
    path, frame = predictions
    frame.rename(columns={"model": name}).to_csv(path, index=False)
    argv = ["--true", "y", "--pred", "yhat", "--metrics", "mae", "--n-resamples", 100, "--format", "csv"]
    code, out, err = run(capsys, "score", path, "--by", name, *argv)
    assert code == 0 and err == NOTE
    got = pd.read_csv(__import__("io").StringIO(out))
    frame.to_csv(path, index=False)
    _, expected, _ = run(capsys, "score", path, "--by", "model", *argv)
    assert list(got.columns) == [name, "mae", "mae_low", "mae_high"]
    pd.testing.assert_frame_equal(got.rename(columns={name: "model"}), pd.read_csv(__import__("io").StringIO(expected)))


def test_boolean_labels(capsys, tmp_path):
    path = tmp_path / "bool.csv"
    path.write_text("y,yhat\nTrue,False\nFalse,False\nTrue,True\n")
    for labels in (["False", "True"], ["false", "true"], ["True", "False"]):
        code, out, err = run(
            capsys, "score", path, "--true", "y", "--pred", "yhat", "--labels", *labels, "--metrics", "mae"
        )
        assert code == 0 and float(out.split()[2]) == pytest.approx(1 / 3, abs=1e-4), err
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--labels", "0", "1")
    assert code == 2 and "holds True and False" in only_line(err) and "--labels False True" in err
    gaps = tmp_path / "gaps.csv"  # a missing value: pandas reads the column as objects, still booleans
    gaps.write_text("y,yhat\nTrue,False\n,False\nTrue,True\nFalse,False\n")
    argv = ["score", gaps, "--true", "y", "--pred", "yhat", "--labels", "False", "True", "--dropna", "--metrics", "mae"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and float(out.split()[2]) == pytest.approx(1 / 3, abs=1e-4)


def test_a_file_without_rows(capsys, tmp_path):
    path = tmp_path / "header.csv"
    path.write_text("y,yhat\n")
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat")
    assert code == 2 and only_line(err) == (
        f"ordframe score: error: {path} has no rows, only the columns y, yhat: there is nothing to score\n"
    )
    pytest.importorskip("pyarrow")
    parquet = tmp_path / "empty.parquet"
    pd.DataFrame({"y": pd.Series([], dtype=int), "yhat": pd.Series([], dtype=int)}).to_parquet(parquet)
    code, _, err = run(capsys, "score", parquet, "--true", "y", "--pred", "yhat")
    assert code == 2 and "has no rows" in only_line(err)


class FullDisk:
    """A standard output on a full disk."""

    def write(self, text):
        raise OSError(28, "No space left on device")

    flush = write

    def isatty(self):
        return False


@pytest.mark.parametrize("command", [["metrics"], ["score", "{path}", "--true", "y", "--pred", "yhat"]])
def test_a_standard_output_that_fails_is_one_line(capsys, predictions, monkeypatch, command):
    path, _ = predictions
    monkeypatch.setattr(sys, "stdout", FullDisk())
    code = main([a.format(path=path) for a in command])
    err = capsys.readouterr().err
    assert code == 2 and only_line(err).endswith("error: cannot write to standard output: No space left on device\n")


@pytest.mark.skipif(not __import__("os").path.exists("/dev/full"), reason="needs /dev/full")
@pytest.mark.slow
def test_dev_full_in_a_process(predictions):
    path, _ = predictions
    with open("/dev/full", "w") as full:
        done = subprocess.run(
            [sys.executable, "-m", "ordframe", "score", str(path), "--true", "y", "--pred", "yhat", "--by", "model"],
            stdout=full,
            stderr=subprocess.PIPE,
            text=True,
        )
    assert done.returncode == 2 and done.stderr == (
        "ordframe score: error: cannot write to standard output: No space left on device\n"
    )


@pytest.mark.slow
def test_standard_input_and_pipes(capsys, predictions, monkeypatch, tmp_path):
    path, frame = predictions
    mae = frame.ordinal.mae("y", "yhat")
    argv = ["--true", "y", "--pred", "yhat", "--metrics", "mae", "--format", "json"]
    stdin = __import__("io").TextIOWrapper(__import__("io").BytesIO(path.read_bytes()))
    monkeypatch.setattr(sys, "stdin", stdin)
    code, out, _ = run(capsys, "score", "-", *argv)
    assert code == 0 and json.loads(out)[0]["mae"] == pytest.approx(mae)
    fifo = tmp_path / "fifo"  # a named pipe, like /dev/stdin or <(...): it exists, but is not a regular file
    __import__("os").mkfifo(fifo)
    writer = __import__("threading").Thread(target=lambda: fifo.write_bytes(path.read_bytes()))
    writer.start()
    code, out, err = run(capsys, "score", fifo, *argv)
    writer.join()
    assert code == 0 and json.loads(out)[0]["mae"] == pytest.approx(mae), err
    for source in ("-", "/dev/stdin"):  # as a shell pipe gives it: CSV, and Parquet told by its first bytes
        done = subprocess.run(
            [sys.executable, "-m", "ordframe", "score", source, *argv], input=path.read_bytes(), capture_output=True
        )
        assert done.returncode == 0 and json.loads(done.stdout)[0]["mae"] == pytest.approx(mae), done.stderr
    pytest.importorskip("pyarrow")
    done = subprocess.run(
        [sys.executable, "-m", "ordframe", "score", "-", *argv], input=frame.to_parquet(), capture_output=True
    )
    assert done.returncode == 0 and json.loads(done.stdout)[0]["mae"] == pytest.approx(mae), done.stderr


def test_standard_input_from_a_terminal_is_refused(capsys, monkeypatch):
    monkeypatch.setattr(sys, "stdin", type("Terminal", (), {"isatty": lambda self: True})())
    code, _, err = run(capsys, "score", "-", "--true", "y", "--pred", "yhat")
    assert code == 2 and "nothing is piped in" in only_line(err)


def test_markdown_escapes_pipes_and_line_breaks(capsys, tmp_path):
    path = tmp_path / "odd.csv"
    pd.DataFrame({"y": [0, 1, 2, 1], "yhat": [0, 1, 1, 1], "model": ["a|b", "a|b", "c\nd", "e\\"]}).to_csv(
        path, index=False
    )
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "--metrics", "mae", "--format", "markdown"]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out == (
        "| model | mae ↓ |\n|---|---|\n| a\\|b | 0.0 |\n| c<br>d | 1.0 |\n| e\\\\ | 0.0 |\n"
    )  # GitHub renders a\|b as a|b, and e\\ as e\ (which would otherwise escape the | after it)


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--metrics", "mae", "mae"], "--metrics names mae more than once: name each metric once"),
        (["--seed", "-1", "--n-resamples", "5"], "--seed must be a whole number >= 0, got -1"),
        (["--n-resamples", "0"], "--n-resamples must be a whole number of replicates >= 1, got 0"),
        (["--by", "model", "model"], "--by names model more than once: name each column once"),
        (["--proba", "p0", "p0", "p1"], "--proba names p0 more than once: name each column once"),
        (["--by", "mae", "--metrics", "mae"], "--by column 'mae' has the name of a column of the result"),
        (
            ["--metrics", "rps"],
            "--metrics rps: it scores class probabilities: pass the probability columns with --proba",
        ),
        (["--labels", "1"], "--labels 1: give every class (at least two), in order, lowest first"),
        (["--labels", "1", "2", "2.0"], "--labels 1 2 2.0: 2.0 names a class already given; name each class once"),
        (["--proba", "p0", "p1", "--labels", "1", "2", "3"], "--proba names 2 columns but --labels 3 classes"),
        (["--by", "nope"], "column 'nope' is not in the file; its columns are: y, yhat, model, mae, p0, p1"),
        (
            ["--by", "model", "--strata", "model", "--n-resamples", "5"],
            "'model' given twice among --by, --strata, --sample and --cluster",
        ),
        (
            ["--by", "model", "--strata", "model", "--n-resamples", "5", "--compare"],
            "'model' given twice among --by, --strata, --sample and --cluster",
        ),
    ],
)
def test_messages_are_in_command_line_words(capsys, predictions, argv, message):
    path, frame = predictions
    frame.assign(mae=frame["model"], p0=0.5, p1=0.5).to_csv(path, index=False)
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", *argv)
    assert code == 2 and message in only_line(err)
    plain = __import__("re").sub(r"'\w+\[[^\]]*\]'", "", err)  # oc[beta=0.25] is the command's own syntax
    assert not __import__("re").search(r"\w=|\{|Generator|None", plain), err  # no Python arguments, dicts or types


def test_parquet_output_is_parquet_and_other_extensions_need_a_format(capsys, predictions, tmp_path):
    pytest.importorskip("pyarrow")
    path, frame = predictions
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "--metrics", "mae"]
    target = tmp_path / "result.parquet"
    code, out, err = run(capsys, *argv, "--out", target)
    assert code == 0 and out == "" and f"wrote {target}" in err
    expected = frame.ordinal.mae("y", "yhat", by="model").to_series().reset_index()
    pd.testing.assert_frame_equal(pd.read_parquet(target), expected)
    for extra, message in [
        (["--out", tmp_path / "r.xlsx"], "ordframe does not write .xlsx files"),
        (["--out", tmp_path / "r.pq", "--format", "csv"], "a Parquet file is named .parquet (or .pq)"),
        (["--out", tmp_path / "r.csv", "--format", "parquet"], "a Parquet file is named .parquet (or .pq)"),
        (["--format", "parquet"], "--format parquet writes a binary file"),
    ]:
        code, out, err = run(capsys, *argv, *extra)
        assert code == 2 and out == "" and message in only_line(err)
    assert not (tmp_path / "r.xlsx").exists() and not (tmp_path / "r.pq").exists()
    code, _, _ = run(capsys, *argv, "--out", tmp_path / "r.xlsx", "--format", "csv")  # said: as --format says
    assert code == 0 and pd.read_csv(tmp_path / "r.xlsx").shape == (2, 2)


def test_a_library_error_carries_its_argument_and_each_caller_words_it():
    from ordframe._cli.wording import for_the_command_line
    from ordframe._core.checks import check_replicates

    with pytest.raises(TypeError) as raised:
        check_replicates(0)
    assert (raised.value.argument, raised.value.value) == ("n_resamples", 0)
    assert str(raised.value) == "n_resamples must be a whole number of replicates >= 1, got 0"
    assert for_the_command_line(raised.value) == "--n-resamples must be a whole number of replicates >= 1, got 0"


def test_a_message_template_spells_each_argument_as_its_caller_does():
    import pickle

    from ordframe._cli.wording import for_the_command_line
    from ordframe._core.arguments import Rows, about

    error = about(
        ValueError,
        "{cluster:=} at rows {rows}: pass {labels:[...]} or {dropna:True}, not {weights}; {model!s} {count}",
        "cluster",
        "site",
        rows=Rows("[3]"),
        count=2,
    )
    assert type(error) is ValueError and (error.argument, error.value) == ("cluster", "site")
    python = "cluster='site' at rows [3]: pass labels=[...] or dropna=True, not weights=; model 2"
    assert str(error) == python and str(pickle.loads(pickle.dumps(error))) == python
    command_line = (
        "--cluster site at rows [3] (counted from 0, after the header): pass --labels or --dropna, not weights=; --by 2"
    )
    assert for_the_command_line(error) == command_line  # and from a dask worker, pickled:
    assert for_the_command_line(pickle.loads(pickle.dumps(error))) == command_line


# inputs on which the library raises (or warns) about an argument, and the options its message must name
LIBRARY_MESSAGES = {
    "text labels without --labels": (["--true", "g", "--pred", "g"], ["--labels"]),
    "classes outside --labels": (["--labels", "0", "1"], ["--labels"]),
    "a missing value in --labels": (["--labels", "0", "nan", "2"], ["--labels"]),
    "one class": (["--true", "one", "--pred", "one"], ["--labels"]),
    "fewer --proba columns than classes": (["--proba", "p0", "p1"], ["--proba lists", "--labels"]),
    "a missing label": (["--true", "y_gap"], ["--dropna", "(counted from 0, after the header)"]),
    "a missing probability": (["--proba", "p0", "p1", "p2_gap"], ["--dropna", "--pred", "--by"]),
    "probabilities that do not sum to 1": (["--proba", "p0", "p1", "p_low"], ["--renormalize"]),
    "a model column given twice": (
        ["--by", "g", "--strata", "g", "--n-resamples", "5"],
        ["--by, --strata, --sample and --cluster"],
    ),
    "a single cluster": (
        ["--true", "t", "--by", "model", "--sample", "s", "--cluster", "site", "--n-resamples", "5"],
        ["--cluster site has 1 cluster", "--cluster out"],
    ),
}
WARNINGS = {
    "predictions no true label has": (["--pred", "wide"], ["--labels"]),
    "dropped rows": (["--true", "y_gap", "--dropna"], ["--dropna dropped 1 of 4 rows"]),
}


@pytest.mark.parametrize(
    "argv, options, code",
    [(*case, 2) for case in LIBRARY_MESSAGES.values()] + [(*case, 0) for case in WARNINGS.values()],
    ids=[*LIBRARY_MESSAGES, *(f"{name} (a warning)" for name in WARNINGS)],
)
def test_library_messages_name_the_options_and_no_python_argument(capsys, tmp_path, argv, options, code):
    path = tmp_path / "data.csv"
    frame = pd.DataFrame({"y": [0, 1, 2, 1], "yhat": [0, 1, 1, 1], "g": list("lmhm"), "p0": 0.2, "p1": 0.3, "p2": 0.5})
    frame = frame.assign(y_gap=frame["y"].where(frame.index != 2), p2_gap=frame["p2"].where(frame.index != 1))
    paired = {"t": [0, 1, 0, 1], "model": list("aabb"), "s": [0, 1, 0, 1], "site": "a"}  # one cluster
    frame.assign(one=0, wide=[0, 1, 3, 1], p_low=0.1, **paired).to_csv(path, index=False)
    defaults = {"--true": "y", "--pred": "yhat"}
    given = dict.fromkeys(a for a in argv if a.startswith("--"))
    fixed = [a for option, value in defaults.items() if option not in given for a in (option, value)]
    returned, _, err = run(capsys, "score", path, *fixed, *argv, "--metrics", "rps" if "--proba" in given else "mae")
    assert returned == code and all(option in err for option in options), err
    assert not __import__("re").search(r"\b\w+=", err), err  # no Python argument (labels=, dropna=True)
    assert not __import__("re").search(r"Categorical|\bdict\b", err), err  # advice a file and its options cannot follow


# --------------------------------------------------------------------------- presentation: tables, errors, help


@pytest.fixture
def folds(tmp_path):
    """Two models' predictions of the same 60 samples, in three folds, shuffled and re-indexed as a user's file."""
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 60)
    frame = pd.concat(
        [
            pd.DataFrame({"subject": range(60), "fold": np.arange(60) % 3, "model": model, "y": y, "yhat": pred})
            for model, pred in (("lr", np.clip(y + rng.integers(-1, 2, 60), 0, 2)), ("rf", rng.integers(0, 3, 60)))
        ]
    )
    frame = frame.sample(frac=1, random_state=0).reset_index(drop=True)
    path = tmp_path / "folds.csv"
    frame.to_csv(path, index=False)
    return path, frame


def blocks_of(text: str) -> list[list[str]]:
    return [block.splitlines() for block in text.strip("\n").split("\n\n")]


def test_a_wide_table_is_cut_into_blocks_of_whole_metrics_each_with_its_row_labels(capsys, folds, monkeypatch):
    path, _ = folds
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "fold", "--n-resamples", 20, "--metrics"]
    argv += ["accuracy", "mae", "qwk", "oc", "rint", "kendall_tau_b"]
    code, piped, _ = run(capsys, *argv)  # not a terminal: one block
    assert code == 0 and len(blocks_of(piped)) == 1
    monkeypatch.setenv("COLUMNS", "70")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    code, out, _ = run(capsys, *argv)
    blocks, (whole,) = blocks_of(out), blocks_of(piped)
    assert code == 0 and len(blocks) > 2 and max(len(line) for line in out.splitlines()) <= 70
    labels = [line.split()[:2] for line in whole]  # model and fold of every row
    cells = {}
    for block in blocks:
        assert [line.split()[:2] for line in block] == labels  # every block carries every row's labels
        header = block[0].split()[2:]
        names = [name for name in header if name not in ("↑", "↓")]
        estimates = [name for name in names if not name.endswith(("_low", "_high"))]
        assert all(f"{name}_low" in names and f"{name}_high" in names for name in estimates)  # with its interval
        for line in block[1:]:
            cells.update({(tuple(line.split()[:2]), n): v for n, v in zip(names, line.split()[2:])})
    for line in whole[1:]:  # the blocks together hold the one block's values
        names = [name for name in whole[0].split()[2:] if name not in ("↑", "↓")]
        assert {n: cells[tuple(line.split()[:2]), n] for n in names} == dict(zip(names, line.split()[2:]))


def test_each_metric_shows_its_direction_and_an_ascii_console_gets_plain_arrows(capsys, folds, monkeypatch):
    path, frame = folds
    metrics = ["oc", "qwk", "mean_signed_error"]
    table = ordframe.list_metrics().set_index("name")["direction"]
    arrows = {"higher is better": "↑", "lower is better": "↓", "best at 0": "→0"}
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "--metrics", *metrics]
    code, out, _ = run(capsys, *argv)
    assert code == 0 and out.splitlines()[0].split() == ["model"] + [
        word for name in metrics for word in (name, arrows[table[name]])
    ]
    code, out, _ = run(capsys, *argv, "--format", "markdown")
    assert out.startswith("| model | oc ↓ | qwk ↑ | mean_signed_error →0 |\n")
    code, out, _ = run(capsys, *argv, "--format", "csv")  # data for programs: the names alone
    assert out.startswith("model,oc,qwk,mean_signed_error\n")
    ascii_console = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    monkeypatch.setattr(sys, "stdout", ascii_console)
    assert main([str(a) for a in argv]) == 0
    ascii_console.seek(0)
    assert ascii_console.read().splitlines()[0].split() == ["model", "oc", "v", "qwk", "^", "mean_signed_error", "->0"]


def test_a_comparison_names_each_metric_with_its_direction(capsys, folds):
    path, _ = folds
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--by", "model", "--sample", "subject", "--compare"]
    code, out, _ = run(capsys, *argv, "--n-resamples", 20, "--metrics", "oc", "qwk", "--seed", 1)
    rows = out.splitlines()
    assert code == 0 and rows[1].split()[:4] == ["oc", "↓", "lr", "rf"] and rows[2].split()[:2] == ["qwk", "↑"]


def test_ci_without_a_bootstrap_is_an_error_like_cluster(capsys, folds):
    path, _ = folds
    argv = ["score", path, "--true", "y", "--pred", "yhat"]
    for option in (["--ci", "bca"], ["--cluster", "subject"], ["--level", "0.9"], ["--level", "0.95"]):
        code, out, err = run(capsys, *argv, *option)
        assert (
            code == 2
            and out == ""
            and only_line(err)
            == (f"ordframe score: error: {option[0]}: these options apply to a bootstrap; give --n-resamples N too\n")
        )


@pytest.mark.parametrize(
    "given, shown",
    [("oc[beta=0.25],mae", "--metrics 'oc[beta=0.25]' mae"), ("oc, mae", "--metrics oc mae")],
)
def test_a_comma_list_of_metrics_shows_the_space_separated_form(capsys, folds, given, shown):
    path, _ = folds
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", given)
    assert code == 2 and only_line(err).endswith(f"metrics are separated by spaces, not commas: give {shown}\n")
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "oc[beta=0.25, gamma=2]")
    assert code == 0 and "error" not in err  # a comma inside brackets separates parameters


def test_the_implicit_pairing_is_explained_where_it_fails(capsys, folds):
    path, frame = folds
    frame.assign(repeat=0).to_csv(path, index=False)
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--n-resamples", 20, "--format", "csv"]
    code, _, err = run(capsys, *argv, "--by", "model", "fold", "--strata", "repeat")
    assert (
        code == 2 and "Without --sample, rows are paired by position: the i-th row of every --by group within " in err
    )
    assert only_line(err).endswith(
        "Name the column that identifies a sample with --sample, or, if 'fold' splits the samples rather than "
        "naming models, move it to --strata\n"
    )
    code, _, err = run(capsys, *argv, "--by", "model", "--strata", "fold", "--sample", "subject")
    assert code == 0  # the fix the message gives
    frame.assign(subject=np.where(frame["model"] == "lr", frame["subject"], 59 - frame["subject"])).to_csv(
        path, index=False
    )
    code, _, err = run(capsys, *argv, "--by", "model", "--sample", "subject")
    assert code == 2 and "(check the --sample column)" in only_line(err) and "by position" not in err


def test_every_command_has_a_description_for_its_help(capsys):
    from ordframe._cli.main import parser

    (commands,) = [action for action in parser()._actions if action.choices and action.dest == "command"]
    assert {"score", "demo", "reproduce", "metrics"} <= set(commands.choices)
    for name, command in commands.choices.items():
        assert command.description, name
    with pytest.raises(SystemExit):
        main(["demo", "--help"])
    assert commands.choices["demo"].description.split(":")[0] in " ".join(capsys.readouterr().out.split())


def test_a_mistyped_column_gets_a_suggestion_like_a_mistyped_metric(capsys, folds):
    path, _ = folds
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhta")
    assert code == 2 and only_line(err).endswith(
        "column 'yhta' is not in the file; its columns are: subject, fold, model, y, yhat; did you mean 'yhat'?\n"
    )
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--by", "zzz")
    assert code == 2 and "did you mean" not in err  # nothing close: no suggestion


# --- the constant baselines of --fold ----------------------------------------------------------------------------


@pytest.fixture
def cv_file(tmp_path):
    """A repeated cross-validation's file, rows shuffled: 30 samples (mostly class 0), 3 folds, 2 repeats, a model
    that is exact and one that predicts 2 - y."""
    y = np.repeat([0, 1, 2], [20, 5, 5])
    rows = [
        pd.DataFrame({"id": range(30), "rep": r, "fold": (np.arange(30) + r) % 3, "model": m, "y": y, "yhat": p})
        for r in range(2)
        for m, p in (("exact", y), ("reversed", 2 - y))
    ]
    frame = pd.concat(rows, ignore_index=True).sample(frac=1, random_state=0)
    path = tmp_path / "cv.csv"
    frame.to_csv(path, index=False)
    return path, frame


FOLDS = ["--true", "y", "--pred", "yhat", "--by", "model", "--metrics", "mae", "qwk", "--format", "csv"]


def test_fold_adds_the_baselines_and_flags_the_metrics_that_rank_one_above_a_model(capsys, cv_file):
    path, frame = cv_file
    code, out, err = run(capsys, "score", path, *FOLDS, "--fold", "fold", "--repeat", "rep", "--sample", "id")
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), index_col="model")
    assert list(got.index) == ["exact", "reversed", "baseline: majority", "baseline: prior", "baseline: median"]
    with pytest.warns(ordframe.BaselineWarning):
        want = add_baselines(frame, "y", "yhat", sample="id", repeat="rep").ordinal.evaluate(
            "y", "yhat", by="model", metrics=["mae", "qwk"]
        )
    np.testing.assert_allclose(got[["mae", "qwk"]], want.to_dataframe().loc[got.index, ["mae", "qwk"]])
    flagged = [line for line in err.splitlines() if "warning: mae ranks" in line]
    # 2 - y puts 20 of the 30 samples two classes off (MAE 50/30); the constant class 0 is off by 15/30
    assert len(flagged) == 1 and "'baseline: majority' (0.5) above 'reversed' (1.667)" in flagged[0]
    assert "no baselines" not in err


def test_no_baselines_and_a_file_without_folds_say_so(capsys, cv_file):
    path, _ = cv_file
    code, out, err = run(capsys, "score", path, *FOLDS, "--fold", "fold", "--repeat", "rep", "--no-baselines")
    assert code == 0 and "baseline" not in out + err
    code, out, err = run(capsys, "score", path, *FOLDS)
    assert code == 0 and "baseline" not in out and err == NOTE


def test_a_file_with_baselines_is_flagged_with_group_intervals(capsys, cv_file, tmp_path):
    path, frame = cv_file
    add_baselines(frame, "y", "yhat", sample="id", repeat="rep").to_csv(path, index=False)
    code, _, err = run(capsys, "score", path, *FOLDS, "--n-resamples", 100)
    assert code == 0 and err.count("warning: mae ranks 'baseline: majority'") == 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--repeat", "rep"], "--repeat: these options apply to the baselines of --fold; give --fold COL too"),
        (["--no-baselines"], "--no-baselines: these options apply to the baselines of --fold"),
        (["--fold", "fold"], "--fold fold: the baselines are added as models of one --by column"),
        (["--fold", "folds", "--sample", "id"], "column 'folds' is not in the file; its columns are"),
        (
            ["--fold", "fold", "--sample", "id"],
            "within one repeat, first 7 (row 6); a sample is tested once in a repeat: give --repeat the column",
        ),
    ],
)
def test_fold_errors_say_what_to_give(capsys, cv_file, argv, message):
    path, frame = cv_file
    code, out, err = run(capsys, "score", path, *FOLDS, *argv)
    assert code == 2 and out == "" and message in err, err
