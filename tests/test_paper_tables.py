"""Every value the papers print for their worked confusion matrices.

The cases and published values are transcribed in the data files of
``ordframe._papers`` (one JSON file per paper); the values that are misprints in
the papers are skipped there, with the reason. The layout of those files is
checked here too.
"""

import math
from importlib import resources

import numpy as np
import pytest
import xarray as xr

import ordframe
from ordframe import _papers as papers
from ordframe._papers import (
    CONFUSION_CASES,
    GEORGE_2016_TABLE3,
    GEORGE_2016_TABLES,
    PROBA_CASES,
    iter_checks,
    metric_name,
)
from ordframe._registry.request import parse_metric

CHECKS = list(iter_checks(CONFUSION_CASES))
SKIPPED = [(case, key) for case in CONFUSION_CASES for key in case.skip]


def _value(case, key):
    cube = xr.DataArray(np.array(case.matrix), dims=("true", "pred"))
    method = getattr(cube.ordinal, metric_name(key))
    return method(**case.params.get(key, {}))


@pytest.mark.parametrize("case, key", CHECKS, ids=[f"{c.id}-{k}" for c, k in CHECKS])
def test_published_value(case, key):
    published = case.values[key]
    if math.isnan(published):  # printed "NA": the metric is undefined there
        with pytest.warns(RuntimeWarning, match="undefined"):
            assert math.isnan(_value(case, key))
    else:
        assert _value(case, key) == pytest.approx(published, abs=case.abs_tol(key))


@pytest.mark.parametrize("case, key", SKIPPED, ids=[f"{c.id}-{k}" for c, k in SKIPPED])
def test_known_misprint_differs(case, key):
    """A value skipped as a misprint really is not reproducible from the printed matrix."""
    assert abs(_value(case, key) - case.values[key]) > case.abs_tol(key), case.skip[key]


def test_every_paper_table_is_checked():
    assert len(CHECKS) > 200
    assert {metric_name(k) for _, k in CHECKS} >= {
        "mer",
        "mae",
        "mse",
        "amae",
        "mmae",
        "spearman",
        "kendall_tau_b",
        "rint",
        "oc",
        "uoc",
        "auoc",
        "d",
        "mc",
    }


# ---------------------------------------------------------------------------- the data files

FILES = sorted(f.name.removesuffix(".json") for f in resources.files(papers).iterdir() if f.name.endswith(".json"))
FILE_KEYS = {"paper", "comment", "matrix_rows", "tables", "cost_example", "table3"}
TABLE_KEYS = {"source", "comment", "columns", "params", "tolerance", "note", "cases"}
CASE_KEYS = {"name", "comment", "matrix", "proba", "true_index", "printed", "exact", "skip", "note"}


@pytest.mark.parametrize("name", FILES)
def test_a_data_file_has_the_documented_layout(name):
    data = papers._read(name)
    assert set(data) <= FILE_KEYS, set(data) - FILE_KEYS
    assert data.get("matrix_rows", "true") in ("true", "predicted")
    for table in data["tables"]:
        assert set(table) <= TABLE_KEYS, (table["source"], set(table) - TABLE_KEYS)
        assert table["source"].startswith(data["paper"] + ", ")
        columns = table["columns"]
        assert len(set(columns)) == len(columns) and set(table.get("params", {})) <= set(columns), table["source"]
        for case in table["cases"]:
            where = f"{table['source']}, {case['name']}"
            assert set(case) <= CASE_KEYS, (where, set(case) - CASE_KEYS)
            assert ("matrix" in case) != ("proba" in case and "true_index" in case), where
            assert len(case["printed"]) == len(columns), where
            assert set(case.get("skip", {})) | set(case.get("exact", ())) <= set(columns), where


def test_every_data_file_is_loaded_and_every_case_comes_from_one():
    authors = [papers._read(name)["paper"] + ", " for name in FILES]
    cases = CONFUSION_CASES + PROBA_CASES
    assert all(sum(case.source.startswith(a) for a in authors) == 1 for case in cases)
    assert all(any(case.source.startswith(a) for case in cases) for a in authors)


def test_every_matrix_is_square_and_holds_counts():
    for case in CONFUSION_CASES:
        k = len(case.matrix)
        assert k >= 2 and all(len(row) == k for row in case.matrix), case.id
        assert all(type(n) is int and n >= 0 for row in case.matrix for n in row) and any(map(any, case.matrix)), (
            case.id
        )
    for case in PROBA_CASES:
        assert sum(case.proba) == pytest.approx(1) and min(case.proba) >= 0 and 0 <= case.true_index < len(case.proba)


def test_george_matrices_are_read_transposed_to_rows_true():
    """The true-class sizes the text states for Table 1's data sets: the paper prints rows = predicted."""
    sizes = {tuple(map(sum, case.matrix)) for case in GEORGE_2016_TABLES if case.source.endswith("Table 2")}
    assert sizes == {(24, 57, 57, 39), (31, 12, 13), (16, 30, 32, 417, 84)}


def test_every_value_key_is_a_metric_request_its_params_agree_with():
    for case in CONFUSION_CASES + PROBA_CASES:
        assert case.printed and case.values.keys() == case.printed.keys() == case.precision.keys(), case.id
        assert set(case.params) | set(case.skip) | set(case.tolerance) <= set(case.values), case.id
        assert all(reason.strip() for reason in case.skip.values()), case.id
        for key in case.values:
            spec = parse_metric(key)
            assert spec.label == key and ordframe.get_metric(spec.name).name == metric_name(key)
            assert spec.params.items() <= dict(case.params.get(key, {})).items(), (case.id, key)


def test_table3_prints_every_cell_of_every_design():
    for design in GEORGE_2016_TABLE3:
        assert len(design.printed) == 6  # two accuracies, three class distributions
        for cells in design.printed.values():
            assert list(cells) == ["d", "amae", "kendall_tau_b"]
            assert all(0 <= float(text) <= 1 and len(text.split(".")[1]) == 3 for text in cells.values())
