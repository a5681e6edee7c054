"""The HTML report of an evaluation: ``report_html``, one page with the figures, the tables and the methods text.

From a long frame of predictions (one row per sample and model) it computes what it is not given: the metrics
on the data, with ``n_resamples`` their intervals and the comparison of every pair of models (on the same
replicates: one seed for both), the confusion cube and, with probabilities, the reliability curves. The page
shows the class distribution, the results table, the pairwise comparison, the confusion matrices with their
optimal OC paths, the reliability diagrams and the methods paragraph with its references.
"""

from __future__ import annotations

import html
import json
from collections.abc import Hashable
from typing import Any

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.baselines import FLAG, NAMES, flag_baselines
from ordframe._bridge.evaluate import evaluate_frame_rows
from ordframe._core.checks import direction_text, rng_of, significance
from ordframe._core.dims import BOUND_DIM, METRIC_DIM, MODEL_DIM, PRED, THRESHOLD_DIM, TRUE, VERSUS_DIM
from ordframe._core.docstrings import fill_doc
from ordframe._core.drawing import Resampling
from ordframe._core.messages import number_text
from ordframe._core.version import ordframe_version
from ordframe._diagnostics.calibration import frame_samples, reliability
from ordframe._inference.compare import frame_compare
from ordframe._inference.intervals import frame_ci
from ordframe._inference.results_section import ADJUSTMENT_TEXTS, methods_text, results_table
from ordframe._inference.values import as_dataset
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection
from ordframe._page.document import Section, figure_html, gallery, page, scrolling
from ordframe._registry.request import METRIC_SETS
from ordframe.plot import class_counts, confusion
from ordframe.plot import reliability as reliability_figure

TITLE = "Evaluation report"


@fill_doc(
    column="column name",
    values="column name",
    row="row",
    aligned="",
    missing="label or model",
)
def report_html(
    frame: pd.DataFrame,
    true: Hashable,
    pred: Hashable,
    *,
    proba=None,
    metrics=None,
    model: str | None = MODEL_DIM,
    labels=None,
    sample: Hashable | None = None,
    strata=None,
    cluster: Hashable | None = None,
    n_resamples: int | None = None,
    seed: Any = None,
    level: float = 0.95,
    method: str | None = None,
    dropna: bool = False,
    renormalize: bool = False,
    values: xr.Dataset | None = None,
    intervals: xr.Dataset | None = None,
    result: xr.Dataset | None = None,
    progress: bool | None = None,
) -> str:
    """One self-contained HTML page that reports an evaluation: figures, tables and the methods text.

    The page holds the class distribution (true and predicted labels per class,
    [`ordframe.plot.class_counts`][ordframe.plot.class_counts]), the results table
    ([`results_table`][results_table]), the comparison of every pair of models, the confusion matrices with
    their optimal OC paths ([`ordframe.plot.confusion`][ordframe.plot.confusion]), the reliability diagrams
    when there are probabilities ([`ordframe.plot.reliability`][ordframe.plot.reliability]) and the methods
    paragraph with its references ([`methods_text`][methods_text]). Its style is inline and its figures are
    embedded SVG images: it loads nothing from elsewhere, opens from disk and reads on a phone's screen.

    What is not given is computed from ``frame``: ``values`` as ``df.ordinal.evaluate``, and with
    ``n_resamples``, ``intervals`` as ``df.ordinal.ci`` and ``result`` as ``df.ordinal.compare`` (two models
    or more), both from the same paired bootstrap replicates (one seed, drawn from ``seed`` if it is not an
    int, and recorded).

    Parameters
    ----------
    frame : pandas.DataFrame
        The predictions, one row per sample and model (the long frame of a cross-validation).
    {true}
    pred : column name
        The predicted labels.
    {proba_optional}
    metrics : str, list or dict, optional
        The metrics, as in ``df.ordinal.evaluate`` (default: the ``"core"`` set of ``METRIC_SETS``, and
        ``"core_proba"`` with ``proba``; with ``values`` and no ``metrics``, the metrics of ``values``).
    model : column name or None
        The column of the models (None: the frame holds one model's predictions).
    {labels}
    {sample}
    {strata}
    {cluster}
    n_resamples : int, optional
        Bootstrap replicates for the intervals and the comparison (default: neither, unless given as
        ``intervals`` and ``result``).
    {seed_replicates}
    level : float
        The confidence level of the intervals and the comparison.
    method : str, optional
        The intervals' method, as in ``df.ordinal.ci`` (default: each metric's own); the comparison's intervals
        are percentile ones.
    {dropna_proba}
    {renormalize}
    values : xarray.Dataset, optional
        The metrics on the data, ``df.ordinal.evaluate(..., by=model)``, if already computed.
    intervals : xarray.Dataset, optional
        Their intervals, ``df.ordinal.ci(..., by=model)``, if already computed.
    result : xarray.Dataset, optional
        ``df.ordinal.compare(..., model=model)``'s result, if already computed.
    {progress}

    Returns
    -------
    str
        The page, to write to a file: ``Path("report.html").write_text(page, encoding="utf-8")``.

    Raises
    ------
    ValueError
        As ``df.ordinal.evaluate``, ``ci`` and ``compare`` for the frame's columns, and as
        [`results_table`][results_table] when ``values``, ``intervals`` and ``result`` do not match.

    Examples
    --------
    >>> df = pd.DataFrame(
    ...     {
    ...         "model": ["tree"] * 6 + ["majority"] * 6,
    ...         "y": [0, 1, 2, 2, 1, 0] * 2,
    ...         "yhat": [0, 1, 2, 1, 1, 0] + [1] * 6,
    ...     }
    ... )
    >>> import ordframe
    >>> text = ordframe.report_html(df, "y", "yhat", metrics=["mae", "accuracy"])
    >>> text.startswith("<!DOCTYPE html>"), 'id="confusion"' in text
    (True, True)
    """
    models_by = [] if model is None else [model]
    selection = Selection(
        true, pred, proba, models_by, labels, dropna=dropna, renormalize=renormalize, by_keyword="model"
    )
    # one seed for the intervals, the comparison and the reliability bands: the same replicates, recorded
    seed = seed if isinstance(seed, (int, np.integer)) else int(rng_of(seed).integers(2**32))
    if metrics is None:
        metrics = (
            list(values.data_vars)
            if values is not None
            else [*METRIC_SETS["core"], *(METRIC_SETS["core_proba"] if proba is not None else ())]
        )
    if values is None:
        values, rows = evaluate_frame_rows(frame, selection, metrics)
        cube = rows.cube(warned=True)
    else:
        values = as_dataset(values).copy()
        cube = frame_rows(frame, selection).cube()
    if not any(FLAG in v.attrs for v in values.data_vars.values()):  # evaluate's values are flagged already
        flag_baselines(values)
    model_dim = MODEL_DIM if model is None else model
    models = values.sizes.get(model_dim, 1)
    if n_resamples is not None and (intervals is None or (result is None and models > 1)):
        draws = Resampling(n_resamples, seed, sample, strata, cluster, progress)
        if intervals is None:
            intervals = frame_ci(frame, selection, draws, metrics, level=level, method=method)
        if result is None and models > 1:
            result = frame_compare(frame, selection, draws, metrics, level=level)
    missing = (
        []
        if _baselines(values, model_dim)
        else ["no constant baselines of the training folds (cross-validated predictions get them from add_baselines)"]
    )
    sections = [_classes_section(cube, model_dim), _results_section(values, intervals, result, model_dim)]
    if result is not None:
        sections.append(_comparison_section(result, values, model_dim))
    elif models > 1:
        missing.append("no comparison of the models: it needs bootstrap replicates")
    sections.append(_confusion_section(cube, model_dim))
    if proba is not None:
        curves = reliability(frame_samples(frame, selection), seed=seed)
        sections.append(_reliability_section(curves))
    else:
        missing.append("no reliability diagrams: no class probabilities were given")
    text = methods_text(values, intervals=intervals, result=result, model_dim=model_dim, format="html")
    sections.append(Section("methods", "Methods", text))
    return page(TITLE, _summary(frame, cube, model, models, missing), sections, _footer())


def _summary(frame: pd.DataFrame, cube: xr.DataArray, model, models: int, missing: list[str]) -> str:
    """What the page is about: the rows, classes and models, and what it leaves out, and why."""
    classes = ", ".join(html.escape(str(c)) for c in cube[TRUE].values)
    samples = int(cube.sum())
    of = "" if model is None else f" of {models} model{'s' if models != 1 else ''} (column <code>{_e(model)}</code>)"
    text = f"<p>{samples} predictions{of}, {cube.sizes[TRUE]} classes in order: {classes}.</p>\n"
    if len(frame) != samples:
        left = len(frame) - samples
        text += f"<p>{left} row{'s' if left != 1 else ''} of the frame left out (dropna=True: missing values).</p>\n"
    if missing:
        text += "<p>Not shown: " + "; ".join(missing) + ".</p>\n"
    return text


def _footer() -> str:
    return f"Written by ordframe {_e(ordframe_version())}."


def _e(value) -> str:
    return html.escape(str(value))


def _classes_section(cube: xr.DataArray, model_dim: str) -> Section:
    true = cube.sum(PRED).transpose(..., TRUE).values.reshape(-1, cube.sizes[TRUE])
    if (true == true[0]).all():
        counts = ", ".join(f"{c}: {int(n)}" for c, n in zip(cube[TRUE].values, true[0]))
        alt = f"Bars of the samples per class, true ({counts}) and as each model predicts"
    else:
        alt = "Bars of the samples per class, true (which differ between the models) and as each model predicts"
    body = (
        "<p>The true labels per class (hatched) beside the labels each model predicts: a model that puts most "
        "samples in one class stands out.</p>\n" + figure_html(class_counts(cube, model_dim=model_dim), alt)
    )
    return Section("classes", "Class distribution", body)


def _results_section(values: xr.Dataset, intervals, result, model_dim: str) -> Section:
    table = results_table(values, intervals=intervals, result=result, model_dim=model_dim, format="html")
    return Section("results", "Results", scrolling(table, "results table") + _baselines_text(values, model_dim))


def _baselines(values: xr.Dataset, model_dim: str) -> list:
    """The constant baselines among the models of ``values``."""
    return [m for m in values.indexes[model_dim] if m in NAMES] if model_dim in values.indexes else []


def _baselines_text(values: xr.Dataset, model_dim: str) -> str:
    """What the constant baselines say: each metric that ranks one above a model, flagged, or that none does."""
    if not _baselines(values, model_dim):
        return ""
    intro = (
        "<p>The rows <em>baseline: &hellip;</em> are constant predictors fitted on each training fold's labels: "
        "they use none of the features, so a model should rank above them."
    )
    flagged = [(name, json.loads(v.attrs[FLAG])) for name, v in values.data_vars.items() if FLAG in v.attrs]
    if not flagged:
        return intro + " Every metric ranks every model above them.</p>\n"
    items = "".join(
        f"<li><strong>{_e(name)}</strong> ranks "
        + ", ".join(f"{_e(pair['baseline'])} above {_e(pair['model'])}" for pair in pairs)
        + "</li>"
        for name, pairs in flagged
    )
    return (
        intro + " Flagged: a metric that ranks a baseline above a model; either the model has learnt less than "
        "the class frequencies, or the metric rewards the class imbalance more than skill.</p>\n"
        f'<ul class="flagged">{items}</ul>\n'
    )


def _comparison_section(result: xr.Dataset, values: xr.Dataset, model_dim: str) -> Section:
    """Every pair of models once per metric (but two constant baselines): the difference, its interval and the
    adjusted p-value."""
    level = float(result.attrs.get("ci_level", 0.95))
    alpha = significance(level)
    models = list(result[model_dim].values)
    pairs = [(a, b) for i, a in enumerate(models) for b in models[i + 1 :] if not {a, b} <= set(NAMES)]
    rows = []
    for metric in result[METRIC_DIM].values:
        direction = direction_text(values[metric].attrs) if metric in values else ""
        below = f"<br><small>{_e(direction)}</small>" if direction else ""
        for j, (first, second) in enumerate(pairs):
            at = {METRIC_DIM: metric, model_dim: first, VERSUS_DIM: second}
            low, high = (float(result["interval"].sel(at).sel({BOUND_DIM: b})) for b in ("low", "high"))
            difference = float(result["difference"].sel(at))
            p = float(result["adjusted_p_value"].sel(at))
            head = f'<th scope="rowgroup" rowspan="{len(pairs)}">{_e(metric)}{below}</th>' if j == 0 else ""
            rows.append(
                f'<tr>{head}<td class="label">{_e(first)}</td><td class="label">{_e(second)}</td>'
                f"<td>{number_text(difference, 3)} [{number_text(low, 3)}, {number_text(high, 3)}]</td>"
                f"<td>{number_text(p, 3)}{' &#8224;' if p <= alpha else ''}</td></tr>"
            )
    adjust = str(result.attrs.get("adjust", "none"))
    adjusted = f"adjusted by {ADJUSTMENT_TEXTS[adjust][0]}" if adjust in ADJUSTMENT_TEXTS else "not adjusted"
    caption = (
        f"Difference of the metric, first model minus second, on the data, with its {level * 100:g}% "
        f"{_e(result.attrs.get('ci_method', ''))} interval from the paired bootstrap; p-value {adjusted}; "
        f"&#8224;: p &#8804; {alpha:g}."
    )
    table = (
        f"<table>\n<caption>{caption}</caption>\n<thead>\n<tr>"
        + "".join(f'<th scope="col" class="label">{h}</th>' for h in ("metric", "model", "versus"))
        + "".join(f'<th scope="col">{h}</th>' for h in ("difference", "adjusted p"))
        + "</tr>\n</thead>\n<tbody>\n"
        + "\n".join(rows)
        + "\n</tbody>\n</table>\n"
    )
    return Section("comparison", "Pairwise comparison", scrolling(table, "pairwise comparison"))


def _confusion_section(cube: xr.DataArray, model_dim: str) -> Section:
    """One figure per model, so that each stays readable when a phone's screen shows one at a time."""
    models = list(cube[model_dim].values) if model_dim in cube.dims else [None]
    figures = []
    for name in models:
        one = cube if name is None else cube.sel({model_dim: [name]})
        title = "" if name is None else f" of {name}"
        alt = f"Confusion matrix{title} (rows: true class, columns: predicted class) with its optimal OC path"
        figures.append(figure_html(confusion(one, col=None if name is None else model_dim), alt))
    body = (
        "<p>Rows are the true classes, columns the predicted ones; the line through the cells is the optimal "
        "path of OC (Cardoso &amp; Sousa 2011), whose value is in each panel's title.</p>\n" + gallery(figures)
    )
    return Section("confusion", "Confusion matrices", body)


def _reliability_section(curves: xr.Dataset) -> Section:
    """One figure per threshold, every model's curve in it."""
    figures = []
    for threshold in curves[THRESHOLD_DIM].values:
        alt = f"Reliability diagram of the event Y <= {threshold}, with consistency bands"
        fig = reliability_figure(curves.sel({THRESHOLD_DIM: [threshold]}))
        fig.suptitle("")  # the level of the bands, which it says, is in the text above the figures
        figures.append(figure_html(fig, alt))
    level = float(curves.attrs.get("level", 0.9))
    body = (
        "<p>For each threshold k, the forecast P(Y &#8804; k) against its recalibrated value; a calibrated "
        f"model follows the diagonal, and the shaded {level * 100:g}% consistency band shows the sampling noise "
        "(Dimitriadis, Gneiting &amp; Jordan 2021).</p>\n" + gallery(figures)
    )
    return Section("reliability", "Reliability diagrams", body)
