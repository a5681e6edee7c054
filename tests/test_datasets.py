"""The bundled datasets: contents as documented, ordered targets, intact files, names, the table and the docs page."""

import contextlib
import csv
import doctest
import fnmatch
import hashlib
import io
import re
from importlib import resources
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ordframe.datasets
from ordframe.datasets import DATASETS

ROOT = Path(__file__).resolve().parent.parent

# What the datasets' documentation records (rows, columns in file order, target, class counts in class order),
# transcribed independently of the module's metadata so that both are checked against it.
WINE_FEATURES = [
    "fixed acidity",
    "volatile acidity",
    "citric acid",
    "residual sugar",
    "chlorides",
    "free sulfur dioxide",
    "total sulfur dioxide",
    "density",
    "pH",
    "sulphates",
    "alcohol",
]
EXPECTED = {
    "winequality_red": (1599, [*WINE_FEATURES, "quality"], {3: 10, 4: 53, 5: 681, 6: 638, 7: 199, 8: 18}),
    "esl": (
        488,
        ["in1", "in2", "in3", "in4", "out1"],
        {1: 2, 2: 12, 3: 38, 4: 100, 5: 116, 6: 135, 7: 62, 8: 19, 9: 4},
    ),
    "lev": (1000, ["In1", "In2", "In3", "In4", "Out1"], {0: 93, 1: 280, 2: 403, 3: 197, 4: 27}),
    "swd": (1000, [*(f"In{i}" for i in range(1, 11)), "Out1"], {2: 32, 3: 352, 4: 399, 5: 217}),
    "balance_scale": (
        625,
        ["left-weight", "left-distance", "right-weight", "right-distance", "class"],
        {"L": 288, "B": 49, "R": 288},
    ),
}
NAMES = list(EXPECTED)
LIST_COLUMNS = ["title", "rows", "classes", "target", "class_order", "source", "citation", "licence"]


def shipped_bytes(name):
    return resources.files("ordframe.datasets").joinpath(DATASETS[name].file).read_bytes()


def test_the_datasets_are_the_documented_ones():
    assert list(DATASETS) == NAMES


@pytest.mark.parametrize("name", NAMES)
def test_load_gives_the_documented_rows_columns_and_class_counts(name):
    rows, columns, counts = EXPECTED[name]
    df = ordframe.datasets.load(name)
    assert isinstance(df, pd.DataFrame)
    assert df.shape == (rows, len(columns))
    assert df.columns.tolist() == columns
    assert df.index.equals(pd.RangeIndex(rows))
    target = df[columns[-1]]
    assert isinstance(target.dtype, pd.CategoricalDtype)
    assert target.cat.ordered
    assert target.cat.categories.tolist() == list(counts)
    assert not target.isna().any()
    assert target.value_counts(sort=False).to_dict() == counts


@pytest.mark.parametrize("name", NAMES)
def test_the_class_order_is_numeric_order_or_left_balanced_right(name):
    order = ordframe.datasets.load(name)[DATASETS[name].target].cat.categories.tolist()
    if name == "balance_scale":
        assert order == ["L", "B", "R"]
    else:
        assert order == sorted(order) and all(isinstance(c, int) for c in order)
    assert list(DATASETS[name].class_order) == order


def test_the_balance_scale_order_follows_the_moments():
    """L < B < R is the order of the right moment minus the left one, which decides the class."""
    df = ordframe.datasets.load("balance_scale")
    moment = df["right-weight"] * df["right-distance"] - df["left-weight"] * df["left-distance"]
    assert (df["class"].cat.codes - 1).tolist() == np.sign(moment).tolist()


@pytest.mark.parametrize("name", NAMES)
def test_features_are_the_values_of_the_file(name):
    """Every feature value is the number its token in the file denotes; the target's tokens are its labels."""
    df = ordframe.datasets.load(name)
    text = shipped_bytes(name).decode("ascii")
    header, *records = list(csv.reader(io.StringIO(text)))
    assert header == df.columns.tolist()
    tokens = np.array(records)
    features = df.iloc[:, :-1]
    assert all(pd.api.types.is_numeric_dtype(t) for t in features.dtypes)
    assert (features.to_numpy(dtype=float) == tokens[:, :-1].astype(float)).all()
    assert (df.iloc[:, -1].astype(str).to_numpy() == tokens[:, -1]).all()


@pytest.mark.parametrize("name", NAMES)
def test_the_shipped_file_has_the_recorded_sha256(name):
    assert hashlib.sha256(shipped_bytes(name)).hexdigest() == DATASETS[name].sha256


@pytest.mark.parametrize("name", NAMES)
def test_the_files_are_plain_ascii_csv_with_lf_line_endings(name):
    data = shipped_bytes(name)
    assert data.isascii()
    assert b"\r" not in data
    assert data.endswith(b"\n")


@pytest.mark.parametrize("name", NAMES)
def test_the_metadata_matches_the_documentation(name):
    rows, columns, counts = EXPECTED[name]
    info = DATASETS[name]
    assert info.name == name
    assert info.rows == rows
    assert [*info.features, info.target] == columns
    assert list(info.class_order) == list(counts)
    assert re.fullmatch(r"[0-9a-f]{64}", info.sha256)
    for text in (info.title, info.description, info.source, info.conversion, info.citation, info.licence):
        assert text.strip()


def test_the_metadata_is_read_only():
    with pytest.raises(TypeError):
        DATASETS["new"] = DATASETS["esl"]  # type: ignore[index]
    with pytest.raises(AttributeError):
        DATASETS["esl"].rows = 1  # type: ignore[misc]


def test_every_call_gives_a_new_frame():
    first = ordframe.datasets.load("esl")
    first.loc[0, "in1"] = -1
    assert ordframe.datasets.load("esl").loc[0, "in1"] != -1


@pytest.mark.parametrize("name", NAMES)
def test_the_metrics_run_on_every_dataset(name):
    target = DATASETS[name].target
    df = ordframe.datasets.load(name)
    lowest = df[target].cat.categories[0]
    mae = df.assign(pred=lowest).ordinal.mae(target, "pred")
    codes = df[target].cat.codes
    assert mae == pytest.approx(codes.mean())


@pytest.mark.parametrize("spelling", ["ESL", "Esl", " esl ", "Balance-Scale", "balance scale", "WINEQUALITY_RED"])
def test_names_are_matched_case_insensitively(spelling):
    df = ordframe.datasets.load(spelling)
    key = spelling.strip().lower().replace("-", "_").replace(" ", "_")
    assert df.shape[0] == DATASETS[key].rows


@pytest.mark.parametrize(
    ("name", "suggestion"),
    [("wine", "'winequality_red'"), ("balance", "'balance_scale'"), ("levv", "'lev'"), ("sdw", "'swd'")],
)
def test_an_unknown_name_lists_the_datasets_and_suggests_close_ones(name, suggestion):
    with pytest.raises(ValueError, match=f"no dataset named '{name}'") as error:
        ordframe.datasets.load(name)
    message = str(error.value)
    assert all(n in message for n in NAMES)
    assert f"did you mean {suggestion}" in message


def test_an_unknown_name_without_close_matches_still_lists_the_datasets():
    with pytest.raises(
        ValueError, match=r"no dataset named 'iris' \(the datasets are winequality_red, esl, lev, swd, balance_scale\)$"
    ):
        ordframe.datasets.load("iris")


def test_a_name_that_is_not_a_string_is_a_type_error():
    with pytest.raises(TypeError, match="name must be a str"):
        ordframe.datasets.load(3)  # type: ignore[arg-type]


def test_list_has_one_row_per_dataset_with_the_documented_columns():
    table = ordframe.datasets.list()
    assert table.index.name == "name"
    assert table.index.tolist() == NAMES
    assert table.columns.tolist() == LIST_COLUMNS
    for name, (rows, columns, counts) in EXPECTED.items():
        row = table.loc[name]
        assert row["rows"] == rows
        assert row["classes"] == len(counts)
        assert row["target"] == columns[-1]
        assert list(row["class_order"]) == list(counts)
        for column in ("title", "source", "citation", "licence"):
            assert row[column] == getattr(DATASETS[name], column)


def test_the_module_examples():
    """The docstring Examples (tests/test_docs.py skips package ``__init__`` modules)."""
    result = doctest.testmod(ordframe.datasets, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10
    assert result.failed == 0


def test_the_docs_page_builds_its_dataset_sections_from_the_metadata():
    """The page's ``exec="on"`` block (run by markdown-exec when the site is built) runs and covers every dataset."""
    page = (ROOT / "docs" / "datasets.md").read_text()
    blocks = re.findall(r'^```python exec="on"\n(.*?)^```', page, re.S | re.M)
    assert blocks
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        for block in blocks:
            exec(block, {"__name__": "__docs__"})
    text = out.getvalue()
    for info in DATASETS.values():
        for field in (info.title, info.source, info.citation, info.licence, info.sha256):
            assert field in text


def test_the_files_ship_in_the_wheel():
    """Every data file matches a ``package-data`` pattern of pyproject.toml."""
    tomllib = pytest.importorskip("tomllib")
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    patterns = config["tool"]["setuptools"]["package-data"].get("ordframe.datasets", [])
    for info in DATASETS.values():
        assert any(fnmatch.fnmatch(info.file, p) for p in patterns), info.file
