"""The results written down: the table, the methods text, and the record of how results were made in every file."""

import json
import re
import warnings
import xml.etree.ElementTree as ET
from importlib.metadata import version

import numpy as np
import pandas as pd
import pytest
import xarray as xr

from ordframe._cli.main import main
from ordframe._cli.output import METADATA_SUFFIX, write_file
from ordframe._cli.score import NO_BASELINES
from ordframe._inference.results_section import (
    ADJUSTMENT_TEXTS,
    latex_text,
    methods_text,
    results_table,
    short_citation,
    split_references,
)
from ordframe._registry.interval_methods import INTERVAL_METHODS
from ordframe._registry.manager import get_metric, metric_names

METRICS = ["oc", "qwk", "mae"]
MODELS = ["good", "fair", "poor"]


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(7)
    n = 48
    y = rng.integers(0, 4, n)
    parts = [
        pd.DataFrame(
            {
                "sid": np.arange(n),
                "subject": np.arange(n) // 2,
                "model": model,
                "y": y,
                "yhat": np.clip(np.round(y + rng.normal(0, noise, n)), 0, 3).astype(int),
            }
        )
        for model, noise in zip(MODELS, (0.3, 1.0, 2.0))
    ]
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def results(frame):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # few replicates and clusters: the tests read the layout, not the numbers
        values = frame.ordinal.evaluate("y", "yhat", by="model", metrics=METRICS)
        intervals = frame.ordinal.ci(
            "y", "yhat", by="model", metrics=METRICS, n_resamples=100, seed=3, sample="sid", cluster="subject"
        )
        result = frame.ordinal.compare("y", "yhat", metrics=METRICS, n_resamples=100, seed=3, sample="sid")
    return values, intervals, result


def markdown_rows(text: str) -> dict[str, list[str]]:
    """The body of a Markdown table: model -> its cells."""
    lines = [line for line in text.splitlines() if line.startswith("| ")][1:]
    return {cells[0]: cells[1:] for cells in (line.strip("| ").split(" | ") for line in lines)}


def two_models(counts, models, metric) -> xr.Dataset:
    """``metric`` of two 2 x 2 confusion matrices, one per model."""
    cube = xr.DataArray(
        counts, dims=("model", "true", "pred"), coords={"model": models, "true": [0, 1], "pred": [0, 1]}
    )
    return cube.ordinal.evaluate(metrics=[metric])


def cell_numbers(cell: str) -> list[float]:
    return [float(x) for x in re.findall(r"-?\d+\.\d+", cell)]


def test_every_cell_is_the_estimate_and_its_interval_and_the_best_is_bold(results):
    values, intervals, _ = results
    rows = markdown_rows(results_table(values, intervals=intervals, digits=4))
    assert list(rows) == list(values["model"].values)
    for j, name in enumerate(METRICS):
        direction = get_metric(name).higher_is_better
        column = {model: values[name].sel(model=model).item() for model in rows}
        best = (max if direction else min)(column.values())
        for model, cells in rows.items():
            estimate, low, high = cell_numbers(cells[j])
            expected = [column[model], *intervals[name].sel(model=model).values]
            np.testing.assert_allclose([estimate, low, high], expected, atol=5e-5, err_msg=name)
            assert cells[j].startswith("**") == (column[model] == best), (name, model)


def test_a_model_is_marked_where_its_adjusted_p_value_against_the_best_or_the_control_is_at_most_alpha(results):
    values, _, result = results
    for control in (None, "fair"):
        rows = markdown_rows(results_table(values, result=result, control=control))
        for j, name in enumerate(METRICS):
            sign = 1 if get_metric(name).higher_is_better else -1
            scores = {m: sign * values[name].sel(model=m).item() for m in rows}
            reference = control or max(scores, key=scores.get)
            for model, cells in rows.items():
                p = result["adjusted_p_value"].sel(metric=name, model=model, versus=reference).item()
                assert cells[j].endswith("†") == (p <= 0.05), (name, model, control)


def test_the_header_says_each_direction_and_ascii_is_ascii(results):
    values, intervals, result = results
    text = results_table(values, intervals=intervals, result=result)
    assert text.splitlines()[0] == "| model | oc ↓ | qwk ↑ | mae ↓ |"
    plain = results_table(values, intervals=intervals, result=result, ascii=True)
    assert plain.isascii() and plain.splitlines()[0] == "| model | oc v | qwk ^ | mae v |"
    assert "95% intervals: basic (oc), percentile (qwk, mae)" in text
    assert "Holm-adjusted paired bootstrap p ≤ 0.05" in text


def test_the_table_follows_the_labels_not_the_positions(frame, results):
    """A shuffled, filtered, re-indexed frame, and intervals whose models come in another order, give the same table."""
    values, intervals, _ = results
    shuffled = frame.sample(frac=1, random_state=1).set_axis(np.arange(len(frame))[::-1])
    kept = shuffled[shuffled["model"] != "nobody"]
    again = kept.ordinal.evaluate("y", "yhat", by="model", metrics=METRICS).sortby("model")
    expected = results_table(values.sortby("model"), intervals=intervals)
    assert results_table(again, intervals=intervals.isel(model=[2, 0, 1])) == expected


def test_html_is_one_well_formed_table_with_every_label_escaped():
    values = two_models([[[5, 1], [2, 4]], [[3, 3], [3, 3]]], ["<b>&x</b>", "a|b_c"], "accuracy")
    page = results_table(values, format="html")
    root = ET.fromstring(page)  # well formed: every label escaped
    assert root.tag == "table" and [th.text for th in root.iter("th")][2:] == ["<b>&x</b>", "a|b_c"]
    latex = results_table(values, format="latex")
    assert r"\toprule" in latex and r"\bottomrule" in latex and r"a|b\_c" in latex and r"<b>\&x</b>" in latex
    assert r"a\|b_c" in results_table(values)  # Markdown: the pipe escaped
    assert (
        latex_text("50% of $x_1$ ~ #{a}^\\")
        == r"50\% of \$x\_1\$ \textasciitilde{} \#\{a\}\textasciicircum{}\textbackslash{}"
    )


def test_mistakes_are_said(results):
    values, intervals, result = results
    with pytest.raises(ValueError, match=r"values have dims 'fold' besides 'model'.*\.mean\('fold'\)"):
        results_table(values.expand_dims(fold=[0, 1]))
    with pytest.raises(ValueError, match=r"intervals= has no 'mae' \(1 of the values' metrics\)"):
        results_table(values, intervals=intervals.drop_vars("mae"))
    with pytest.raises(ValueError, match=r"intervals= has other models than the values: 'poor' missing"):
        results_table(values, intervals=intervals.sel(model=["good", "fair"]))
    with pytest.raises(ValueError, match=r"control='best' is not one of the models: 'fair', 'good', 'poor'"):
        results_table(values, result=result, control="best")
    with pytest.raises(ValueError, match=r"control='good' names the model to test against: pass compare's result"):
        results_table(values, control="good")
    with pytest.raises(ValueError, match=r"format must be one of \('markdown', 'latex', 'html'\), got 'docx'"):
        results_table(values, format="docx")
    with pytest.raises(ValueError, match="pass values=, intervals= or result="):
        methods_text()


def test_the_methods_text_says_what_the_attrs_record(results):
    values, intervals, result = results
    text = methods_text(values, intervals=intervals, result=result)
    paragraph, references = text.split("\n\nReferences\n\n")
    assert "oc (beta = 0.75, gamma = 1; Cardoso & Sousa 2011)" in paragraph and "qwk (Cohen 1968)" in paragraph
    assert (
        f"the 95% basic interval ({INTERVAL_METHODS['basic'].description}; Davison & Hinkley 1997, eq. 5.6) for oc"
        in paragraph
    )
    assert "100 bootstrap replicates (seed 3) that resample whole clusters of `subject`" in paragraph
    assert "adjusted over the 3 pairs of each metric by Holm's step-down method (Holm 1979)" in paragraph
    assert paragraph.endswith(f"Computed with ordframe {version('ordframe')}.")
    listed = references.splitlines()
    assert len(listed) == len(set(listed))
    for entry in (get_metric("qwk").reference, *INTERVAL_METHODS["basic"].references, ADJUSTMENT_TEXTS["holm"][2]):
        assert f"- {entry}" in listed
    latex = methods_text(values, intervals=intervals, result=result, format="latex")
    assert r"Cardoso \& Sousa 2011" in latex and r"\begin{itemize}" in latex and "95\\% basic" in latex
    ET.fromstring(f"<div>{methods_text(values, intervals=intervals, result=result, format='html')}</div>")


@pytest.mark.parametrize("name", metric_names(None))
def test_every_metric_reference_is_cited_by_authors_and_year(name):
    for reference in split_references(get_metric(name).reference):
        cited = short_citation(reference)
        assert cited != reference and re.fullmatch(r"\D+ (19|20)\d\d", cited), (name, cited)


def test_every_interval_method_has_its_references():
    for name, entry in INTERVAL_METHODS.items():
        years = re.findall(r"\((\d{4})\)", entry.citation)
        assert len(entry.references) == len(years), name
        assert all(any(year in reference for reference in entry.references) for year in years), name


def test_every_result_records_the_version(results):
    for result in results:
        for attrs in (result.attrs, *(v.attrs for v in result.data_vars.values())):
            if attrs:
                assert attrs["ordframe_version"] == version("ordframe")
    assert results[1]["oc"].attrs["ci_method"] == "basic" and results[1]["oc"].attrs["seed"] == 3


@pytest.mark.parametrize("fmt", ["csv", "json", "markdown", "table", "netcdf", "parquet"])
def test_every_out_file_records_how_its_numbers_were_made(tmp_path, results, fmt):
    if fmt == "parquet":
        pytest.importorskip("pyarrow")
    _, intervals, result = results
    table = xr.Dataset({"oc": intervals["oc"].sel(bound="low", drop=True)}, attrs=result.attrs)
    path = str(tmp_path / f"scores.{fmt}")
    written = write_file(table, fmt, path)
    if fmt == "netcdf":
        with xr.open_dataset(path) as got:
            attrs, column = got.attrs, got["oc"].attrs
    elif fmt == "parquet":
        record = pd.read_parquet(path).attrs
        attrs, column = record["attrs"], record["columns"]["oc"]
    else:
        assert written == [path, path + METADATA_SUFFIX]
        record = json.loads((tmp_path / f"scores.{fmt}{METADATA_SUFFIX}").read_text(encoding="utf-8"))
        attrs, column = record["attrs"], record["columns"]["oc"]
    assert attrs["ordframe_version"] == version("ordframe") and attrs["adjust"] == "holm"
    assert (column["ci_method"], column["ci_level"], column["n_resamples"], column["seed"]) == ("basic", 0.95, 100, 3)
    assert column["cluster"] == "subject" and list(column["metric_bounds"]) == [0.0, 1.0]


def test_score_says_where_the_record_is(capsys, tmp_path, frame):
    frame.head(24).to_csv(tmp_path / "p.csv", index=False)
    code = main(
        ["score", str(tmp_path / "p.csv"), "--true", "y", "--pred", "yhat", "--metrics", "mae", "--by", "model"]
        + ["--out", str(tmp_path / "s.csv")]
    )
    err = capsys.readouterr().err
    assert (
        code == 0
        and err
        == f"wrote {tmp_path / 's.csv'} (how it was computed: {tmp_path / 's.csv'}{METADATA_SUFFIX})\n{NO_BASELINES}\n"
    )
    record = json.loads((tmp_path / f"s.csv{METADATA_SUFFIX}").read_text(encoding="utf-8"))
    assert record["columns"]["mae"]["metric_bounds"] == [0.0, "inf"]
    assert pd.read_csv(tmp_path / "s.csv").columns.tolist() == ["model", "mae"]  # the CSV itself reads as before


def test_a_metric_with_a_target_is_best_nearest_it():
    values = two_models([[[5, 3], [0, 5]], [[6, 1], [2, 4]]], ["over", "near"], "mean_signed_error")
    errors = values["mean_signed_error"].values  # 3/13 and 1/13 - 2/13: the second is nearer 0
    rows = markdown_rows(results_table(values))
    assert results_table(values).splitlines()[0] == "| model | mean_signed_error →0 |"
    assert [rows[m][0].startswith("**") for m in ("over", "near")] == list(abs(errors) == abs(errors).min())
    with pytest.raises(ValueError, match=r"'mean_signed_error' does not say which values are better"):
        results_table(values.drop_attrs())
