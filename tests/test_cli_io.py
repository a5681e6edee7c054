"""The ``ordframe`` command's inputs and outputs: standard input, separators, metric parameters, every ``--out``
format read back, the demo's checks before training, and consoles that cannot show every character."""

import io
import json
import os
import re
import subprocess
import sys
import textwrap

import numpy as np
import pandas as pd
import pytest
import xarray as xr

import ordframe  # noqa: F401  (registers the accessor)
from ordframe._cli.files import detect_separator
from ordframe._cli.main import main
from ordframe._cli.score import NO_BASELINES

NOTE = NO_BASELINES + "\n"  # --by without --fold: no baselines, said once

METRICS = ["mae", "oc[beta=0.25]", "oc[beta=0.75]"]
COST = [[0, 1, 2, 3, 4], [2, 0, 1, 2, 3], [4, 2, 0, 1, 2], [6, 4, 2, 0, 1], [8, 6, 4, 2, 0]]


@pytest.fixture
def frame():
    rng = np.random.default_rng(1)
    n = 300
    y = rng.integers(1, 6, n)
    return pd.DataFrame(
        {"y": y, "yhat": np.clip(y + rng.integers(-1, 2, n), 1, 5), "model": rng.choice(["lr", "rf"], n)}
    )


@pytest.fixture
def expected(frame):
    """What the Python API gives for the command's ``--by model --metrics mae oc[beta=0.25] oc[beta=0.75]``."""
    return frame.ordinal.evaluate("y", "yhat", by="model", metrics=METRICS).to_dataframe()[METRICS]


def command(*argv, stdin: bytes | None = None, env: dict | None = None) -> subprocess.CompletedProcess:
    """``ordframe ...`` in a new process, as a shell runs it."""
    return subprocess.run(
        [sys.executable, "-m", "ordframe", *map(str, argv)],
        input=stdin,
        capture_output=True,
        env=None if env is None else {**os.environ, **env},
    )


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def one_line(err: str) -> str:
    assert err.count("\n") == 1 and "Traceback" not in err, err
    return err


SCORE = ["--true", "y", "--pred", "yhat", "--by", "model", "--metrics", *METRICS]


# --------------------------------------------------------------------------- standard input and separators


@pytest.mark.parametrize("sep", [",", ";", "\t"])
@pytest.mark.slow
def test_standard_input_in_each_separator_is_found_and_read_once(frame, expected, sep):
    done = command("score", "-", *SCORE, "--format", "json", stdin=frame.to_csv(sep=sep, index=False).encode())
    assert done.returncode == 0, done.stderr
    got = pd.DataFrame(json.loads(done.stdout)).set_index("model")
    np.testing.assert_allclose(got[METRICS].to_numpy(), expected.to_numpy())


@pytest.mark.slow
def test_dev_stdin_and_a_given_separator(frame, expected):
    done = command("score", "/dev/stdin", *SCORE, "--sep", "tab", stdin=frame.to_csv(sep="\t", index=False).encode())
    assert done.returncode == 0, done.stderr
    got = pd.read_csv(io.StringIO(without_cues(done.stdout.decode())), sep=r"\s+").set_index("model")
    np.testing.assert_allclose(got[METRICS].to_numpy(), expected.round(4).to_numpy())


def without_cues(text: str) -> str:
    """A table that people read, its metrics' direction arrows (``mae ↓``) left out, as a program reads it."""
    return re.sub(r" (?:[↑↓]|→\S+)(?= |$)", "", text, flags=re.MULTILINE)


@pytest.mark.parametrize(("sep", "option"), [(";", None), (";", ";"), ("\t", None), ("\t", "tab"), ("\t", "\\t")])
def test_semicolon_and_tab_files(capsys, tmp_path, frame, expected, sep, option):
    path = tmp_path / "predictions.txt"
    frame.to_csv(path, sep=sep, index=False)
    code, out, err = run(capsys, "score", path, *SCORE, *(["--sep", option] if option else []), "--format", "csv")
    assert code == 0 and err == NOTE, err
    np.testing.assert_allclose(pd.read_csv(io.StringIO(out)).set_index("model")[METRICS], expected)


def test_decimal_commas_beside_semicolons(capsys, tmp_path):
    path = tmp_path / "excel.csv"
    path.write_text("y;yhat;p0;p1\n0;0;0,75;0,25\n1;0;0,5;0,5\n1;1;0,25;0,75\n")
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--proba", "p0", "p1", "--metrics", "brier"]
    code, _, err = run(capsys, *argv)
    assert code == 2 and "--proba column 'p0' holds numbers with a decimal comma ('0,75', 3 rows)" in one_line(err)
    assert "give --decimal ','" in err
    code, out, _ = run(capsys, *argv, "--decimal", ",", "--format", "json")
    frame = pd.DataFrame({"y": [0, 1, 1], "p0": [0.75, 0.5, 0.25], "p1": [0.25, 0.5, 0.75]})
    assert code == 0 and json.loads(out)[0]["brier"] == pytest.approx(frame.ordinal.brier("y", ["p0", "p1"]))


@pytest.mark.parametrize(
    ("text", "columns", "sep"),
    [
        ("y;yhat;p0\n1;1;0,3\n0;1;0,5\n", (), ";"),  # decimal commas: ',' splits the lines unevenly
        ('model,y,yhat\n"a;b",1,2\n"c;d",1,1\n', (), ","),  # a ';' inside quotes
        ("score, normalised\ty\n0.5\t1\n0.25\t2\n", (), "\t"),  # a ',' in a tab file's header
        ("a,b;c\n1,2;3\n", ("a", "b;c"), ","),  # both split evenly: the columns asked for decide
        ("a,b;c\n1,2;3\n", ("a,b", "c"), ";"),
        ("y,yhat\n1,1\n0,1,3\n", (), ","),  # a line with a field too many: the header decides, pandas names the line
        ("y\n1\n2\n", (), ","),  # one column
    ],
)
def test_separator_detection(text, columns, sep):
    assert detect_separator(text.encode(), "f.csv", columns) == sep


def test_a_cut_last_line_is_left_out_of_the_sample():
    start = b"y;yhat;p\n1;1;0,5\n1;0;0,"  # the file goes on: its start ends inside a line
    assert detect_separator(start, "f.csv", whole=False) == ";"


@pytest.mark.parametrize(
    ("text", "argv", "message"),
    [
        ("a,b;c\n1,2;3\n", [], "cannot tell the separator of {path}: its header splits at ',' into 2 and at ';'"),
        ("y\tyhat\n1\t1\n", ["--sep", ";"], "it looks tab-separated: give --sep tab (or leave --sep out)"),
        ("y,yhat\n1,1\n", ["--sep", "::"], "--sep '::': give one character, e.g. --sep ';' or --sep tab"),
        ("y,yhat\n1,1\n", ["--decimal", "12"], "--decimal '12': give the one character that starts the decimals"),
        ("y,yhat\n1,1\n0,1,3\n", [], "{path}: line 3 has 3 fields but the header (line 1) has 2"),
        ("\n\n", [], "{path} is empty: there is nothing to score"),
        ("y,yhat\n1,1\n", ["--decimal", ","], "--decimal ',' is also the separator of {path}"),
        ("y,yhat\n1,1\n", ["--out", "{path}/x.csv"], "cannot write {path}/x.csv: {path} is not an existing folder"),
    ],
)
def test_separator_errors_are_one_line(capsys, tmp_path, text, argv, message):
    path = tmp_path / "f.csv"
    path.write_text(text)
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", *[a.format(path=path) for a in argv])
    assert code == 2 and message.format(path=path) in one_line(err)


def test_csv_options_on_a_parquet_file(capsys, tmp_path, frame):
    pytest.importorskip("pyarrow")
    path = tmp_path / "p.parquet"
    frame.to_parquet(path)
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--sep", ";", "--decimal", ",")
    assert code == 2 and "--sep and --decimal are for CSV files; " in one_line(err) and "is Parquet" in err


# --------------------------------------------------------------------------- rows and missing values


GRADES = "y,yhat\nNone,None\nmild,None\nsevere,mild\nNone,mild\nmild,mild\n"


def test_a_class_spelled_like_a_missing_value_is_a_class(capsys, tmp_path):
    # pandas' keep_default_na=False reading: a CSV has only one way to leave a label out, the empty field
    path = tmp_path / "grades.csv"
    path.write_text(GRADES)
    labels = ["None", "mild", "severe"]
    code, out, err = run(
        capsys, "score", path, "--true", "y", "--pred", "yhat", "--labels", *labels, "--metrics", "mae"
    )
    expected = pd.read_csv(path, keep_default_na=False).ordinal.mae("y", "yhat", labels=labels)
    assert code == 0 and err == "" and float(out.split()[2]) == pytest.approx(expected) == 0.6
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--labels", "mild", "severe")
    assert code == 2 and "warning: column 'y' holds 'None' (2 rows), read as a value" in err
    assert "pass --na-values None" in err and "outside the classes ['mild', 'severe']: 'None' (2 rows)" in err
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--labels", "mild", "severe", "--metrics", "mae"]
    code, _, err = run(capsys, *argv, "--na-values", "None")
    assert code == 2 and "column 'y' has 2 missing value(s)" in one_line(err)
    code, out, err = run(capsys, *argv, "--na-values", "None", "--dropna")
    kept = pd.read_csv(path, keep_default_na=False, na_values=["None"]).dropna()
    assert code == 0 and float(out.split()[2]) == kept.ordinal.mae("y", "yhat", labels=["mild", "severe"]) == 0.5
    assert "--dropna dropped 3 of 5 rows" in one_line(err)
    code, _, err = run(capsys, *argv, "--na-values", "None", "--labels", "None", "mild")
    assert code == 2 and "--na-values and --labels both name None" in one_line(err)


def test_number_columns_keep_pandas_missing_values_and_parquet_is_read_as_stored(capsys, tmp_path):
    path = tmp_path / "p.csv"
    path.write_text("y,yhat,model,p0,p1\nNA,NA,a,0.75,0.25\nok,ok,a,0.25,0.75\nNA,ok,b,NA,NA\nok,NA,b,NA,NA\n")
    argv = ["score", path, "--true", "y", "--pred", "yhat", "--labels", "NA", "ok", "--by", "model"]
    code, out, err = run(capsys, *argv, "--proba", "p0", "p1", "--metrics", "mae", "brier", "--format", "json")
    assert code == 0, err
    assert json.loads(out) == [  # model b has no probabilities ("NA" is missing in a number column)
        {"model": "a", "mae": 0.0, "brier": pytest.approx(2 * 0.25**2)},
        {"model": "b", "mae": 1.0, "brier": None},
    ]
    pytest.importorskip("pyarrow")
    parquet = tmp_path / "grades.parquet"
    pd.read_csv(io.StringIO(GRADES), keep_default_na=False).to_parquet(parquet)
    code, out, _ = run(capsys, "score", parquet, "--true", "y", "--pred", "yhat", "--labels", "None", "mild", "severe")
    assert code == 0
    code, _, err = run(capsys, "score", parquet, "--true", "y", "--pred", "yhat", "--na-values", "NA")
    assert code == 2 and "--na-values are for CSV files" in one_line(err)


def test_a_row_with_another_number_of_fields_than_the_header_is_refused(capsys, tmp_path):
    # pandas would take the extra first column as the index and score the wrong columns
    path = tmp_path / "shifted.csv"
    path.write_text("y,yhat\n0,0,2\n1,1,0\n2,2,1\n0,0,0\n1,1,2\n2,2,2\n")
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "mae", "accuracy")
    assert code == 2 and f"{path}: line 2 has 3 fields but the header (line 1) has 2" in one_line(err)
    assert "name every column in the header" in err
    path.write_text("y,yhat\n0,1\n\n1,1\n2\n")  # blank lines are skipped, and counted
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat")
    assert code == 2 and "line 5 has 1 field but the header (line 1) has 2" in one_line(err)
    assert "write an empty field for a missing value" in err


def test_a_separator_at_the_end_of_every_row(capsys, tmp_path):
    # accepted: the extra field is empty, nothing is lost, and pandas reads such a file with index_col=False
    path = tmp_path / "trailing.csv"
    path.write_text("y,yhat\n0,1,\n1,1,\n2,0,\n")
    code, out, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", "mae")
    expected = pd.read_csv(path, index_col=False).ordinal.mae("y", "yhat")
    assert code == 0 and err == "" and float(out.split()[2]) == pytest.approx(expected) == 1.0
    path.write_text("y,yhat\n0,1,\n1,1,3\n")  # an extra field that is not empty is refused
    code, _, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat")
    assert code == 2 and "line 3 has 3 fields but the header (line 1) has 2" in one_line(err)


# --------------------------------------------------------------------------- metric parameters


def test_two_variants_of_a_metric_each_named_by_its_parameters(capsys, tmp_path, frame, expected):
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    code, out, _ = run(capsys, "score", path, *SCORE, "oc", "amae[missing=zero]", "--format", "json")
    assert code == 0
    got = pd.DataFrame(json.loads(out)).set_index("model")
    assert list(got.columns) == [*METRICS, "oc", "amae[missing=zero]"]
    np.testing.assert_allclose(got[METRICS], expected)
    assert got["oc[beta=0.25]"].to_dict() == pytest.approx(
        frame.ordinal.oc("y", "yhat", by="model", beta=0.25).to_series().to_dict()
    )
    assert got["oc"].equals(got["oc[beta=0.75]"])  # the default, asked for under two names
    assert got["amae[missing=zero]"].to_numpy() == pytest.approx(
        frame.ordinal.amae("y", "yhat", by="model", missing="zero").values
    )


@pytest.mark.parametrize(
    ("metrics", "message"),
    [
        (["oc[bta=0.25]"], "metric 'oc' got unknown parameter(s) ['bta']; its parameters are: beta, gamma"),
        (["mae[gamma=2]"], "metric 'mae' got unknown parameter(s) ['gamma']; its parameters are: none"),
        (["oc[beta=0.25"], "--metrics 'oc[beta=0.25': write a metric as name[parameter=value, ...]"),
        (["oc[0.25]"], "--metrics 'oc[0.25]': '0.25' is not parameter=value"),
        (["oc[beta=0..25]"], "cannot read the value of beta, '0..25': give a number, a word or quoted text"),
        (["oc[beta=1, beta=2]"], "gives beta more than once"),
        (["oc[beta=0.25]", "oc[beta=.25]"], "--metrics names oc[beta=0.25] more than once"),
        (["ocx[beta=1]"], "no metric named 'ocx'"),
        (["rps[normalize=False]"], "--metrics rps[normalize=False]: it scores class probabilities"),
        (["oc[beta=-1]"], "beta must be a finite number >= 0, got -1"),
    ],
)
def test_bad_metric_parameters_are_one_line(capsys, tmp_path, frame, metrics, message):
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    code, out, err = run(capsys, "score", path, "--true", "y", "--pred", "yhat", "--metrics", *metrics)
    assert code == 2 and out == "" and message in one_line(err)


def test_metrics_lists_each_metric_s_parameters_in_the_syntax_of_metrics(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    code, out, _ = run(capsys, "metrics")
    assert code == 0 and "Parameters (defaults): oc[beta=0.75, gamma=1.0]." in out
    assert "Parameters (defaults): amae[missing=skip]." in out and "Give parameters in --metrics as" in out
    mae = next(line for line in out.splitlines() if line.startswith("mae "))
    assert "Parameters" not in mae


def test_a_cost_matrix_from_a_json_or_toml_file(capsys, tmp_path, frame, monkeypatch):
    path = tmp_path / "p.csv"
    frame.to_csv(path, index=False)
    (tmp_path / "cost.json").write_text(json.dumps(COST))
    (tmp_path / "cost.toml").write_text(f"# rows: true class\ncost = {COST}\n")
    metrics = ["d", "d[cost=@cost.json]", "expected_cost[cost=@cost.toml]"]
    monkeypatch.chdir(tmp_path)  # the file names are relative, as typed
    code, out, err = run(
        capsys, "score", "p.csv", "--true", "y", "--pred", "yhat", "--metrics", *metrics, "--format", "json"
    )
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["d[cost=@cost.json]"] == pytest.approx(frame.ordinal.d("y", "yhat", cost=COST))
    assert row["expected_cost[cost=@cost.toml]"] == pytest.approx(frame.ordinal.expected_cost("y", "yhat", cost=COST))
    assert row["d"] == pytest.approx(frame.ordinal.d("y", "yhat")) != row["d[cost=@cost.json]"]


@pytest.mark.parametrize(
    ("files", "metric", "message"),
    [
        ({}, "d[cost=@none.json]", "cannot read @none.json: No such file or directory"),
        ({"c.csv": "0,1\n1,0\n"}, "d[cost=@c.csv]", "@c.csv: a parameter file is .json (the value: [[0, 1], [1, 0]])"),
        ({"c.toml": "costs = [[0, 1], [1, 0]]"}, "d[cost=@c.toml]", "@c.toml does not set cost: a TOML file gives"),
        ({"c.json": "[[0, 1], [1, 0]"}, "d[cost=@c.json]", "cannot read @c.json as JSON: "),
        ({"c.json": "[[0, 1], [1, 0]]"}, "d[cost=@c.json]", "cost must be a 5x5 matrix (rows = true class"),
    ],
)
def test_bad_parameter_files(capsys, tmp_path, frame, files, metric, message, monkeypatch):
    frame.to_csv(tmp_path / "p.csv", index=False)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "score", "p.csv", "--true", "y", "--pred", "yhat", "--metrics", metric)
    assert code == 2 and message in one_line(err)


# --------------------------------------------------------------------------- --out: what the extension says


def read_back(path) -> pd.DataFrame:
    """A file the command wrote, as a table indexed by model."""
    suffix = path.suffix
    if suffix == ".csv":
        return pd.read_csv(path).set_index("model")
    if suffix == ".json":
        return pd.DataFrame(json.loads(path.read_text())).set_index("model")
    if suffix == ".parquet":
        return pd.read_parquet(path).set_index("model")
    if suffix == ".nc":
        with xr.open_dataset(path) as ds:
            return ds.load().to_dataframe()
    text = without_cues(path.read_text())
    lines = [line.strip("| ").split(" | ") if suffix == ".md" else line.split() for line in text.splitlines()]
    lines = [row for row in lines if set("".join(row)) != {"-", "|"}]  # a Markdown table's rule
    return pd.DataFrame(lines[1:], columns=lines[0]).set_index("model").astype(float)


@pytest.mark.parametrize("suffix", [".csv", ".json", ".md", ".txt", ".parquet", ".nc"])
@pytest.mark.slow
def test_every_out_extension_is_what_it_says_and_reads_back(tmp_path, frame, expected, suffix):
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    frame.to_csv(tmp_path / "p.csv", index=False)
    target = tmp_path / f"scores{suffix}"
    done = command("score", tmp_path / "p.csv", *SCORE, "--out", target)
    record = "" if suffix in (".parquet", ".nc") else f" (how it was computed: {target}-metadata.json)"
    said = f"wrote {target}{record}\n{NOTE}"
    assert done.returncode == 0 and done.stdout == b"" and done.stderr.decode() == said
    got = read_back(target)
    rounded = suffix in (".md", ".txt")  # text tables show 4 decimals
    np.testing.assert_allclose(got[METRICS], expected.round(4) if rounded else expected, atol=1e-12)
    assert list(got.index) == ["lr", "rf"]


def test_netcdf_keeps_what_the_python_api_gives(capsys, tmp_path, frame):
    frame = frame.assign(fold=np.arange(len(frame)) % 3)
    frame.to_csv(tmp_path / "p.csv", index=False)
    argv = ["score", tmp_path / "p.csv", "--true", "y", "--pred", "yhat", "--metrics", "oc[beta=0.25]", "mae"]
    code, _, _ = run(capsys, *argv, "--by", "model", "fold", "--out", tmp_path / "groups.nc")
    api = frame.ordinal.evaluate("y", "yhat", by=["model", "fold"], metrics=["oc[beta=0.25]", "mae"], observed=True)
    with xr.open_dataset(tmp_path / "groups.nc") as got:
        assert code == 0 and got["oc[beta=0.25]"].dims == ("group",)
        xr.testing.assert_allclose(got.load().set_index(group=["model", "fold"]), api, check_dim_order=True)
        assert json.loads(got["oc[beta=0.25]"].attrs["parameters"]) == {"beta": 0.25, "gamma": 1.0}
        assert got["mae"].attrs["direction"] == "lower is better"
    code, _, _ = run(capsys, *argv, "--n-resamples", 50, "--out", tmp_path / "pooled.nc")
    with xr.open_dataset(tmp_path / "pooled.nc") as got:
        assert code == 0 and list(got.data_vars) == [
            "oc[beta=0.25]",
            "oc[beta=0.25]_low",
            "oc[beta=0.25]_high",
            "mae",
            "mae_low",
            "mae_high",
        ]
        low, mae, high = (float(got[name]) for name in ("mae_low", "mae", "mae_high"))
        assert low < mae < high and mae == pytest.approx(frame.ordinal.mae("y", "yhat"))
        assert got["mae_low"].attrs["ci_method"] == "percentile"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--out", "r.xlsx"],
            "ordframe does not write .xlsx files; it writes .csv, .json, .md, .parquet, .nc and .txt",
        ),
        (["--format", "netcdf"], "--format netcdf writes a binary file: give it a name with --out FILE.nc"),
        (["--out", "r.nc", "--format", "csv"], "a netCDF file is named .nc and holds netCDF only"),
        (["--out", "r.csv", "--format", "netcdf"], "a netCDF file is named .nc and holds netCDF only"),
    ],
)
def test_output_format_errors(capsys, tmp_path, frame, argv, message, monkeypatch):
    frame.to_csv(tmp_path / "p.csv", index=False)
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, "score", "p.csv", "--true", "y", "--pred", "yhat", *argv)
    assert code == 2 and out == "" and message in one_line(err)
    assert not any(tmp_path.glob("r.*"))


@pytest.mark.slow
def test_parquet_without_pyarrow_names_the_extra(tmp_path, frame):
    pytest.importorskip("pyarrow")
    frame.to_csv(tmp_path / "p.csv", index=False)
    frame.to_parquet(tmp_path / "p.parquet")
    script = textwrap.dedent(
        """
        import sys

        class NoPyarrow:  # as if pyarrow were not installed
            def find_spec(self, name, path=None, target=None):
                if name.partition(".")[0] == "pyarrow":
                    raise ModuleNotFoundError(f"No module named {name!r}")

        sys.meta_path.insert(0, NoPyarrow())
        from ordframe._cli.main import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    for source, out in (("p.csv", "r.parquet"), ("p.parquet", "r.csv")):
        argv = ["score", tmp_path / source, "--true", "y", "--pred", "yhat", "--out", tmp_path / out]
        done = subprocess.run([sys.executable, "-c", script, *map(str, argv)], capture_output=True, text=True)
        assert done.returncode == 2 and 'Parquet needs pyarrow: pip install "ordframe[parquet]"' in one_line(
            done.stderr
        )


# --------------------------------------------------------------------------- the demo: --out first, then progress


@pytest.mark.slow
def test_demo_out_is_checked_before_training(tmp_path):
    taken = tmp_path / "results.csv"
    taken.write_text("an earlier result\n")
    for out, message in (
        (taken, f"--out {taken} is a file; the demo writes a folder of results"),
        (taken / "inside", f"--out {taken / 'inside'}: cannot write the results there: Not a directory"),
    ):
        done = command("demo", "--out", out)
        assert done.returncode == 2 and done.stdout == b"", done.stderr
        assert done.stderr.decode() == f"ordframe demo: error: {message}" + done.stderr.decode().split(message)[1]
        assert done.stderr.count(b"\n") == 1 and b"Traceback" not in done.stderr
    assert taken.read_text() == "an earlier result\n"


def test_demo_checks_its_folder_before_it_trains(capsys, tmp_path, monkeypatch):
    pytest.importorskip("sklearn")
    from ordframe._cli import demo

    monkeypatch.setattr(demo, "predictions", lambda *args: pytest.fail("trained before checking --out"))
    (tmp_path / "file").write_text("")
    code, out, err = run(capsys, "demo", "--out", tmp_path / "file")
    assert code == 2 and out == "" and "is a file" in one_line(err)
    code, _, err = run(capsys, "demo", "--reps", 1)
    assert code == 2 and "--reps must be at least 2" in one_line(err)
    (tmp_path / "folder" / "results.nc").mkdir(parents=True)
    code, out, err = run(capsys, "demo", "--out", tmp_path / "folder")
    assert code == 2 and "results.nc there is a folder, and the demo writes a file of that name" in one_line(err)


def test_a_file_that_cannot_be_written_is_one_line(capsys, monkeypatch, tmp_path):
    from ordframe._cli import score

    def unwritable(result, fmt, path, cues):
        raise IsADirectoryError(21, "Is a directory", str(path))

    monkeypatch.setattr(score, "write_file", unwritable)
    pd.DataFrame({"y": [0, 1, 2], "yhat": [0, 1, 1]}).to_csv(tmp_path / "p.csv", index=False)
    code, _, err = run(
        capsys, "score", tmp_path / "p.csv", "--true", "y", "--pred", "yhat", "--out", tmp_path / "r.csv"
    )
    assert (
        code == 2
        and one_line(err).strip() == f"ordframe score: error: cannot write {tmp_path / 'r.csv'}: Is a directory"
    )


def test_a_metric_parameter_error_names_the_metric(capsys, tmp_path):
    pd.DataFrame({"y": [0, 1, 2], "yhat": [0, 1, 1]}).to_csv(tmp_path / "p.csv", index=False)
    argv = ("score", tmp_path / "p.csv", "--true", "y", "--pred", "yhat", "--metrics", "oc[beta=0.5]", "uoc[beta=-1]")
    code, _, err = run(capsys, *argv)
    assert code == 2 and "metric 'uoc': beta must be a finite number >= 0, got -1" in one_line(err)
    (tmp_path / "cost.json").write_text('{"cost": [[0, 1, 2], [1, 0, 1], [2, 1, 0]]}')
    code, out, _ = run(
        capsys,
        "score",
        tmp_path / "p.csv",
        "--true",
        "y",
        "--pred",
        "yhat",
        "--metrics",
        "d[cost=@" + str(tmp_path / "cost.json") + "]",
    )
    assert code == 0 and out.split()[0].startswith("d[cost=@")


def test_demo_training_shows_progress_on_standard_error(capsys):
    pytest.importorskip("sklearn")
    from ordframe._cli.demo import predictions

    tables = predictions(["lev"], 2, progress=True)
    err = capsys.readouterr().err
    assert "cross_val_frame" in err and "fit" in err
    assert set(tables["lev"]["model"]) == {"logistic", "frank_hall", "rounded_ridge"}
    predictions(["lev"], 2)  # not a terminal: no bar
    assert capsys.readouterr().err == ""


# --------------------------------------------------------------------------- consoles that cannot show every character

ASCII = {"PYTHONIOENCODING": "ascii", "LANG": "C", "LC_ALL": "C"}


@pytest.mark.slow
def test_an_ascii_console_gets_plain_text(tmp_path):
    frame = pd.DataFrame({"y": [0, 1, 2, 1], "yhat": [0, 1, 1, 1], "modèle": ["é", "é", "ß", "ß"]})
    frame.to_csv(tmp_path / "p.csv", index=False)
    done = command(
        "score", tmp_path / "p.csv", "--true", "y", "--pred", "yhat", "--by", "modèle", "--metrics", "mae", env=ASCII
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode("ascii").split() == ["modele", "mae", "v", "\\xdf", "0.5", "e", "0.0"]
    done = command(
        "score",
        tmp_path / "p.csv",
        "--true",
        "y",
        "--pred",
        "yhat",
        "--by",
        "modèle",
        "--out",
        tmp_path / "r.json",
        env=ASCII,
    )
    assert done.returncode == 0 and json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))[0]["modèle"] == "ß"
    done = command("metrics", env=ASCII)  # a plugin's description may hold any character
    assert done.returncode == 0 and done.stderr == b"" and done.stdout.decode("ascii")


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown"])
@pytest.mark.slow
def test_data_on_an_ascii_console_keeps_every_character(tmp_path, fmt):
    frame = pd.DataFrame({"y": [0, 1, 2, 1], "yhat": [0, 1, 1, 1], "model": ["grade ≤ 3", "grade ≤ 3", "ß", "ß"]})
    frame.to_csv(tmp_path / "p.csv", index=False)
    argv = ("score", tmp_path / "p.csv", "--true", "y", "--pred", "yhat", "--by", "model", "--metrics", "mae")
    done = command(*argv, "--format", fmt, env=ASCII)
    assert done.returncode == 0, done.stderr
    text = done.stdout.decode("utf-8")  # what a program reads: UTF-8, as --out writes it
    assert "grade ≤ 3" in text and "ß" in text
    if fmt == "csv":
        pd.testing.assert_frame_equal(
            pd.read_csv(io.BytesIO(done.stdout)), pd.DataFrame({"model": ["grade ≤ 3", "ß"], "mae": [0.0, 0.5]})
        )


@pytest.mark.slow
def test_old_mac_line_ends_are_read_and_a_gzip_file_is_named(tmp_path):
    (tmp_path / "cr.csv").write_bytes(b"y;yhat\r0;1\r1;1\r2;2\r")
    done = command("score", tmp_path / "cr.csv", "--true", "y", "--pred", "yhat", "--metrics", "mae")
    assert done.returncode == 0 and done.stdout.split() == [b"mae", "↓".encode(), b"0.3333"], done.stderr
    import gzip

    packed = gzip.compress(b"y,yhat\n0,1\n1,1\n")
    (tmp_path / "p.csv.gz").write_bytes(packed)
    for source, stdin, name in ((tmp_path / "p.csv.gz", None, "p.csv.gz"), ("-", packed, "standard input")):
        done = command("score", source, "--true", "y", "--pred", "yhat", stdin=stdin)
        assert done.returncode == 2 and b"Traceback" not in done.stderr
        assert f"{name} is gzip-compressed: decompress it first (zcat FILE" in done.stderr.decode()


def test_the_demo_s_arrows_on_an_ascii_console():
    from ordframe import datasets
    from ordframe._cli import demo
    from ordframe._cli.console import Output

    rng = np.random.default_rng(0)
    tables = {}
    for name in ("lev", "swd", "esl"):  # predictions as the demo's models give them, without the training
        classes = datasets.load(name)[datasets.DATASETS[name].target].cat.categories
        y = np.tile(rng.integers(0, len(classes), 60), 9)
        yhat = np.clip(y + rng.integers(-1, 2, y.size), 0, len(classes) - 1)
        tables[name] = pd.DataFrame(
            {
                "rep": np.repeat(np.arange(3), 180),
                "model": np.tile(np.repeat(["logistic", "frank_hall", "rounded_ridge"], 60), 3),
                "y": pd.Categorical.from_codes(y, categories=classes, ordered=True),
                "yhat": pd.Categorical.from_codes(yhat, categories=classes, ordered=True),
            }
        )
    console = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    Output(console).write(demo.summary(demo.evaluate_all(tables)))
    console.flush()
    out = console.buffer.getvalue().decode("ascii")
    assert "oc v  " in out and "accuracy ^  " in out and "^ higher is better, v lower is better." in out
    assert "Demsar 2006" in out


def test_for_console_decides_every_stand_in():
    from ordframe._cli.console import for_console

    assert for_console("oc ↓ Demšar ≤ 1 – ß", "ascii") == "oc v Demsar <= 1 - \\xdf"
    assert for_console("oc ↓ Demšar", "utf-8") == "oc ↓ Demšar"
    assert for_console("Demšar é ↑", "latin-1") == "Demsar é ^"  # what the console can show stays
    assert for_console("↑", None) == "↑"


# --------------------------------------------------------------------------- the parser is light


@pytest.mark.slow
def test_help_and_version_need_neither_pandas_nor_xarray():
    """Without the package's own imports (``ordframe/__init__``), the parser loads no heavy module."""
    script = textwrap.dedent(
        """
        import contextlib, importlib.util, io, sys, types
        stub = types.ModuleType("ordframe")  # the package, without running its __init__
        stub.__path__ = importlib.util.find_spec("ordframe").submodule_search_locations
        sys.modules["ordframe"] = stub
        from ordframe._cli.main import main
        for argv in (["--help"], ["--version"], ["score", "--help"]):
            with contextlib.redirect_stdout(io.StringIO()), contextlib.suppress(SystemExit):
                main(argv)
        print(sorted(m for m in ("pandas", "xarray", "numpy") if m in sys.modules))
        """
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "[]\n", done.stderr


def test_an_empty_out_is_said_as_such(tmp_path, capsys):
    path = tmp_path / "t.csv"
    path.write_text("y,yhat\n0,1\n1,1\n2,0\n")
    assert main(["score", str(path), "--true", "y", "--pred", "yhat", "--out", ""]) == 2
    assert "--out is empty: give a file name" in capsys.readouterr().err
