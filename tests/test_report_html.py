"""The HTML report: one self-contained page with every section, escaped labels, no request to another server."""

import base64
import doctest
import html
import os
import re
import shutil
import subprocess
import warnings
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ordframe
import ordframe.plot
from ordframe._cli.main import main

SECTIONS = ["classes", "results", "comparison", "confusion", "reliability", "methods"]
PROBA = ["p0", "p1", "p2"]
MODELS = ("tree", "<script>alert(1)</script>")  # a model's name that a page must escape


class Page(HTMLParser):
    """The tags, the ids and every src and href of a page."""

    def __init__(self, text: str):
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.links: list[str] = []
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        self.tags.append(tag)
        for name, value in attrs:
            if name == "id":
                self.ids.append(value)
            if name in ("src", "href"):
                self.links.append(value)


def predictions(models=("tree", "majority"), n=30, seed=0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    frames = []
    for i, name in enumerate(models):
        yhat = np.full(n, 1) if name == "majority" else np.clip(y + rng.integers(-1, 2, n) * (i % 2), 0, 2)
        proba = rng.dirichlet(np.ones(3), n) * 0.4
        proba[np.arange(n), yhat] += 0.6
        frames.append(
            pd.DataFrame({"sample": range(n), "model": name, "y": y, "yhat": yhat, **dict(zip(PROBA, proba.T))})
        )
    return pd.concat(frames, ignore_index=True)


@pytest.fixture
def undrawn(monkeypatch):
    """The report without its figures drawn (matplotlib's time): what the page says of the data, quickly."""
    import ordframe._page.report as report

    for name in ("class_counts", "confusion", "reliability_figure"):
        monkeypatch.setattr(report, name, lambda *args, **kwargs: None)
    monkeypatch.setattr(report, "figure_html", lambda fig, alt, caption="": f'<img alt="{html.escape(alt)}">')


def without_figures(page: str) -> str:
    """The page with its embedded figures left out (their SVG holds ids drawn at random)."""
    return re.sub(r'src="data:[^"]*"', 'src=""', page)


@pytest.fixture(scope="module")
def full_page():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # few replicates, said by ci and compare
        return ordframe.report_html(
            predictions(models=MODELS),
            "y",
            "yhat",
            proba=PROBA,
            metrics=["mae", "rps"],
            sample="sample",
            n_resamples=20,
            seed=0,
        )


def test_the_page_is_one_file_with_every_section_and_nothing_from_elsewhere(full_page):
    page = Page(full_page)
    assert set(SECTIONS) <= set(page.ids)
    assert "<script>" not in full_page and "&lt;script&gt;alert(1)&lt;/script&gt;" in full_page
    assert "script" not in page.tags and "link" not in page.tags  # no scripts, no style sheets of its own
    assert page.tags.count("img") == 1 + 2 + 2  # class counts, a matrix per model, a diagram per threshold
    for link in page.links:
        assert link.startswith(("#", "data:image/svg+xml;base64,")), link[:60]
    assert not re.search(r"url\(|@import", full_page)  # the style loads nothing either
    for link in page.links:
        if link.startswith("data:"):  # each figure is a whole SVG document
            assert base64.b64decode(link.split(",", 1)[1]).rstrip().endswith(b"</svg>")


def test_the_results_table_holds_each_models_estimates(full_page):
    df = predictions(models=MODELS)
    results = full_page.split('id="results"')[1].split("</section>")[0]
    for name, rows in df.groupby("model"):
        name = html.escape(name)
        mae = (rows["y"] - rows["yhat"]).abs().mean()  # the mean absolute error, computed here
        row = results.split(f'<th scope="row">{name}</th>')[1].split("</tr>")[0]
        assert re.match(rf"<td>(<strong>)?{mae:.3f}(</strong>)? \[", row), (name, row)
    assert "paired bootstrap" in full_page and "<strong>References</strong>" in full_page


def test_the_pairwise_table_has_every_pair_of_every_metric_once(full_page):
    comparison = full_page.split('id="comparison"')[1].split("</section>")[0]
    assert comparison.count("<tr>") == 1 + 2  # the header and the one pair of models per metric
    assert comparison.count('scope="rowgroup"') == 2


def test_labels_are_escaped(undrawn):
    df = predictions(models=("<script>alert(1)</script>", "a & b"))
    page = ordframe.report_html(df, "y", "yhat", metrics=["mae"])
    assert "<script>" not in page and "script" not in Page(page).tags
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page and "a &amp; b" in page


def test_without_probabilities_or_replicates_the_page_says_what_it_leaves_out(undrawn):
    page = ordframe.report_html(predictions(), "y", "yhat", metrics=["mae", "oc"])
    ids = Page(page).ids
    assert "reliability" not in ids and "comparison" not in ids
    assert "no reliability diagrams: no class probabilities were given" in page
    assert "no comparison of the models: it needs bootstrap replicates" in page
    assert {"classes", "results", "confusion", "methods"} <= set(ids)


def test_one_model_without_a_model_column(undrawn):
    df = predictions(models=("tree",)).drop(columns="model")
    page = ordframe.report_html(df, "y", "yhat", metrics=["mae"], model=None)
    assert "no comparison" not in page and Page(page).tags.count("img") == 2


def test_a_filtered_shuffled_reindexed_frame_gives_the_report_of_its_rows(undrawn):
    df = predictions(models=("tree", "majority", "other"))
    kept = df[df["model"] != "other"]
    shuffled = kept.sample(frac=1, random_state=1).set_axis(np.arange(len(kept))[::-1] * 7)
    fresh = kept.reset_index(drop=True)
    want = ordframe.report_html(fresh, "y", "yhat", metrics=["mae", "qwk"])
    got = ordframe.report_html(shuffled, "y", "yhat", metrics=["mae", "qwk"])
    assert without_figures(got) == without_figures(want)


def test_dropna_is_said_with_the_count(undrawn):
    df = predictions()
    df.loc[[3, 40], "yhat"] = np.nan
    with pytest.raises(ValueError, match="yhat"):
        ordframe.report_html(df, "y", "yhat", metrics=["mae"])
    with pytest.warns(ordframe.DroppedRowsWarning):
        page = ordframe.report_html(df, "y", "yhat", metrics=["mae"], dropna=True)
    assert "58 predictions" in page and "2 rows of the frame left out" in page


def test_given_results_are_used_as_they_are(undrawn):
    df = predictions()
    values = df.ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])
    values["mae"][:] = [0.123, 0.456]  # not what the frame gives: the page shows what it was handed
    page = ordframe.report_html(df, "y", "yhat", values=values)
    assert "0.123" in page and "0.456" in page


def folds(models=("exact", "reversed")) -> pd.DataFrame:
    """Cross-validated predictions of 30 samples in 3 folds, mostly class 0: a model exact, a model reversed."""
    y = np.repeat([0, 1, 2], [20, 5, 5])
    predicted = {"exact": y, "reversed": 2 - y}
    return pd.concat(
        [
            pd.DataFrame({"sample": range(30), "fold": np.arange(30) % 3, "model": m, "y": y, "yhat": predicted[m]})
            for m in models
        ],
        ignore_index=True,
    )


def test_baselines_are_shown_and_a_metric_that_ranks_one_above_a_model_flagged(undrawn):
    from ordframe.sklearn import add_baselines

    df = add_baselines(folds(), "y", "yhat", repeat=None).sample(frac=1, random_state=0)  # any row order
    with pytest.warns(ordframe.BaselineWarning, match="reversed") as caught:
        page = ordframe.report_html(df, "y", "yhat", metrics=["mae", "qwk"])
    assert len(caught) == 1
    # predicting 2 - y puts 20 of 30 samples two classes off: every constant predictor does better on MAE and QWK
    assert page.count("<li><strong>") == 2 and "baseline: majority above reversed" in page
    assert "above exact" not in page and "no constant baselines" not in page


def test_the_comparison_leaves_out_the_pairs_of_two_baselines(undrawn):
    from ordframe.sklearn import add_baselines

    df = add_baselines(folds(), "y", "yhat", repeat=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        page = ordframe.report_html(df, "y", "yhat", metrics=["mae"], sample="sample", n_resamples=50, seed=0)
    comparison = page.split('id="comparison"')[1].split("</section>")[0]
    # 2 models and 3 baselines: the model pair and each model against each baseline, 1 + 2 * 3 rows
    assert comparison.count("<tr>") == 1 + 1 + 2 * 3
    assert not re.search(r"baseline: \w+</td><td[^>]*>baseline: ", comparison)


def test_given_values_flagged_by_evaluate_are_not_flagged_again(undrawn):
    from ordframe.sklearn import add_baselines

    df = add_baselines(folds(), "y", "yhat", repeat=None)
    with pytest.warns(ordframe.BaselineWarning):
        values = df.ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])
    with warnings.catch_warnings():
        warnings.simplefilter("error", ordframe.BaselineWarning)
        page = ordframe.report_html(df, "y", "yhat", values=values)
    assert "baseline: median above reversed" in page


def test_without_baselines_or_beaten_ones_the_page_says_so(undrawn):
    from ordframe.sklearn import add_baselines

    assert "no constant baselines of the training folds" in ordframe.report_html(folds(), "y", "yhat", metrics=["mae"])
    page = ordframe.report_html(
        add_baselines(folds(("exact",)), "y", "yhat", repeat=None), "y", "yhat", metrics=["mae"]
    )
    assert "Every metric ranks every model above them" in page and "no constant baselines" not in page


def test_class_counts_draws_the_counts_of_each_class():
    df = predictions()
    cube = df.ordinal.confusion("y", "yhat", by="model")
    fig = ordframe.plot.class_counts(cube)
    bars = fig.axes[0].containers
    heights = {c.get_label(): [b.get_height() for b in c] for c in bars}
    true = df[df["model"] == "tree"]["y"].value_counts().reindex([0, 1, 2], fill_value=0)
    assert heights["true"] == true.tolist()
    for name in ("tree", "majority"):
        predicted = df[df["model"] == name]["yhat"].value_counts().reindex([0, 1, 2], fill_value=0)
        assert heights[f"{name} (predicted)"] == predicted.tolist(), name


def test_class_counts_gives_each_model_its_true_bars_when_their_samples_differ():
    df = predictions()
    df = df[~((df["model"] == "tree") & (df["y"] == 0))]
    fig = ordframe.plot.class_counts(df.ordinal.confusion("y", "yhat", by="model", labels=[0, 1, 2]))
    labels = [c.get_label() for c in fig.axes[0].containers]
    assert labels == ["majority (true)", "majority (predicted)", "tree (true)", "tree (predicted)"]


def command(tmp_path, words: str) -> int:
    """``ordframe`` run on a file of predictions, ``FILE`` in ``words`` standing for it."""
    source = tmp_path / "predictions.csv"
    predictions().to_csv(source, index=False)
    return main(words.replace("FILE", str(source)).split())


def test_the_command_writes_the_report(tmp_path, capsys, undrawn):
    out = tmp_path / "report.html"
    code = command(tmp_path, f"report FILE --true y --pred yhat --by model --metrics mae --out {out}")
    assert code == 0, capsys.readouterr().err
    page = out.read_text(encoding="utf-8")
    assert {"classes", "results", "confusion", "methods"} <= set(Page(page).ids)
    assert capsys.readouterr().err.startswith(f"wrote {out}\nno baselines: ")  # no --fold: said once


def test_score_writes_the_report_beside_its_table(tmp_path, capsys, undrawn):
    out = tmp_path / "report.html"
    code = command(tmp_path, f"score FILE --true y --pred yhat --by model --metrics mae --report {out}")
    assert code == 0
    captured = capsys.readouterr()
    assert "majority" in captured.out and "mae" in captured.out
    assert f"wrote {out}" in captured.err and "<!DOCTYPE html>" in out.read_text(encoding="utf-8")


def test_score_with_folds_flags_the_baselines_once_and_reports_them(tmp_path, capsys, undrawn):
    out, source = tmp_path / "report.html", tmp_path / "cv.csv"
    folds().to_csv(source, index=False)
    words = f"score {source} --true y --pred yhat --by model --metrics mae --fold fold --sample sample --report {out}"
    assert main(words.split()) == 0
    err = capsys.readouterr().err
    assert err.count("warning: mae ranks") == 1 and "no baselines" not in err
    assert "baseline: majority above reversed" in out.read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--out", "report.txt"], "--out 'report.txt': give the HTML file to write"),
        (["--out", "missing/report.html"], "missing is not an existing folder"),
        (["--out", "r.html", "--by", "model", "sample"], "the report compares the models of one --by column"),
        (["--out", "r.html", "--marker", "s"], "not yet the score metrics; score the marker with ordframe score"),
    ],
)
def test_the_command_says_what_is_wrong_before_reading_the_file(tmp_path, capsys, monkeypatch, options, message):
    monkeypatch.chdir(tmp_path)
    code = main(["report", "no-such-file.csv", "--true", "y", "--pred", "yhat", *options])
    assert code == 2
    assert message in capsys.readouterr().err


# --- the page in a browser ---------------------------------------------------------------------------------------

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")


def renders_in_chromium(page: Path, width: int) -> None:
    """Headless Chromium opens ``page`` from disk at ``width`` pixels: no console message, a screenshot that is not
    blank. Without Chromium the test is skipped, except in CI (CI=true), where it fails."""
    if CHROMIUM is None:
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail("chromium is not installed; CI checks the HTML report in it (apt-get install chromium)")
        pytest.skip("chromium is not installed")
    from PIL import Image

    shot = page.with_name(f"{page.stem}-{width}.png")
    done = subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--disable-gpu",
            "--no-sandbox",
            "--enable-logging=stderr",
            "--v=0",
            "--hide-scrollbars",
            f"--window-size={width},3000",
            f"--screenshot={shot}",
            page.as_uri(),
        ],  # fmt: skip
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    console = [line for line in done.stderr.splitlines() if "CONSOLE" in line]
    assert not console, console
    with Image.open(shot) as image:
        assert image.size[0] == width
        colours = image.convert("RGB").getcolors(maxcolors=1 << 16)
    assert colours is None or len(colours) > 10, "a blank screenshot"


@pytest.mark.slow
@pytest.mark.parametrize("width", [1200, 390])
def test_the_report_renders_in_chromium_without_console_errors(tmp_path, full_page, width):
    page = tmp_path / "report.html"
    page.write_text(full_page, encoding="utf-8")
    renders_in_chromium(page, width)


TUTORIAL = Path(__file__).resolve().parent.parent / "docs" / "comparing-models.md"


@pytest.fixture(scope="module")
def study_report(tmp_path_factory):
    """The report that the tutorial's ten-line study writes, its block run as a doctest in a folder of its own."""
    text = TUTORIAL.read_text()
    start = text.index("## The whole study in ten lines")
    body = re.search(r"^```pycon\n(.*?)^```", text[start:], re.S | re.M).group(1)
    folder = tmp_path_factory.mktemp("study")
    here = os.getcwd()
    os.chdir(folder)
    try:
        runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ordframe.BaselineWarning)  # the study's point, said on the page
            runner.run(doctest.DocTestParser().get_doctest(body, {}, "study", str(TUTORIAL), 0))
    finally:
        os.chdir(here)
    assert runner.summarize(verbose=False).failed == 0
    return folder / "report.html"


@pytest.mark.slow
@pytest.mark.parametrize("width", [1200, 390])
def test_the_tutorials_study_writes_a_report_that_renders_in_chromium(study_report, width):
    page = study_report.read_text(encoding="utf-8")
    assert set(SECTIONS) - {"reliability"} <= set(Page(page).ids)
    assert '<ul class="flagged">' in page and "baseline: median above tree" in page  # OC ranks it first
    renders_in_chromium(study_report, width)
