"""The results section written down: a table of models x metrics and a methods paragraph, from the results.

``results_table`` lays out the values of ``evaluate`` (models x metrics) with the intervals of ``ci`` and, given
``compare``'s result, marks the models that differ from the best one (or from ``control=``); ``methods_text``
writes what the results' attrs record (the metrics and their references, each interval's method and level, how
the replicates were drawn, the tests and their adjustment, the ordframe version) as a paragraph followed by its
references. Both return a string in Markdown, LaTeX or HTML, so a report page embeds them as they are.
"""

from __future__ import annotations

import html
import json
import re
from collections import ChainMap
from collections.abc import Callable, Hashable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import xarray as xr

from ordframe._core.checks import check_count, check_flag, orientation, significance
from ordframe._core.dims import BOUND_DIM, METRIC_DIM, MODEL_DIM, VERSUS_DIM
from ordframe._core.drawing import CELLS, CELLS_BY_CLASS, CLUSTERS, drawn_of
from ordframe._core.messages import number_text, show
from ordframe._core.version import VERSION_ATTR
from ordframe._inference.multiplicity import ADJUSTMENTS
from ordframe._inference.values import as_dataset
from ordframe._registry.interval_methods import INTERVAL_METHODS
from ordframe._registry.manager import get_metric

FORMATS = ("markdown", "latex", "html")
"""The formats of the table and the methods text."""

DAVISON_HINKLEY_1997 = (
    "A. C. Davison, D. V. Hinkley, Bootstrap Methods and their Application, Cambridge University Press, 1997"
)
#: Each adjustment of ``compare``'s p-values: how the text names it, its citation and its reference.
ADJUSTMENT_TEXTS: Mapping[str, tuple[str, str, str]] = {
    "holm": (
        "Holm's step-down method",
        "Holm 1979",
        "S. Holm, A simple sequentially rejective multiple test procedure, Scand. J. Stat. 6(2), 1979",
    ),
    "bh": (
        "Benjamini and Hochberg's step-up method, which controls the false discovery rate",
        "Benjamini & Hochberg 1995",
        "Y. Benjamini, Y. Hochberg, Controlling the false discovery rate: a practical and powerful approach to "
        "multiple testing, J. R. Stat. Soc. B 57(1), 1995",
    ),
}
assert set(ADJUSTMENT_TEXTS) == set(ADJUSTMENTS)

_LATEX = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}


def latex_text(text: str) -> str:
    """``text`` with LaTeX's special characters escaped, to be typeset as written."""
    return "".join(_LATEX.get(c, c) for c in str(text))


def markdown_cell(value) -> str:
    """A value as the text of a Markdown table cell: ``\\`` and ``|`` escaped, line breaks as ``<br>``."""
    text = str(value).replace("\\", "\\\\").replace("|", "\\|")
    return text.replace("\r\n", "<br>").replace("\n", "<br>").replace("\r", "<br>")


@dataclass(frozen=True)
class _Style:
    """How a format writes text: escaped, bold, as code, the direction arrows and the mark of a difference."""

    escape: Callable[[str], str]
    bold: Callable[[str], str]
    code: Callable[[str], str]
    up: str
    down: str
    target: str  # before a metric's best value
    mark: str
    at_most: str
    percent: str


def _style(format: str, ascii: bool) -> _Style:
    if format not in FORMATS:
        raise ValueError(f"format must be one of {FORMATS}, got {format!r}")
    if check_flag(ascii, "ascii") and format == "markdown":
        return _Style(markdown_cell, "**{}**".format, "`{}`".format, "^", "v", "->", "\\*", "<=", "%")
    if format == "markdown":
        return _Style(markdown_cell, "**{}**".format, "`{}`".format, "↑", "↓", "→", "†", "≤", "%")
    if format == "latex":
        return _Style(
            latex_text, r"\textbf{{{}}}".format, r"\texttt{{{}}}".format, r"$\uparrow$", r"$\downarrow$", r"$\to$",
            r"$^\dagger$", r"$\leq$", r"\%",
        )  # fmt: skip
    return _Style(
        html.escape, "<strong>{}</strong>".format, "<code>{}</code>".format, "&#8593;", "&#8595;", "&#8594;",
        "&#8224;", "&#8804;", "%",
    )  # fmt: skip


def _arrow(name: Hashable, attrs: Mapping, style: _Style) -> str:
    """Which way the metric ``name`` is better: up, down, or toward its target value."""
    return orientation(name, attrs).cue(style.up, style.down, style.target)


# --- the table -------------------------------------------------------------------------------------------------


def results_table(
    values,
    *,
    intervals: xr.Dataset | None = None,
    result: xr.Dataset | None = None,
    control: Hashable | None = None,
    model_dim: str = MODEL_DIM,
    digits: int = 3,
    format: str = "markdown",
    ascii: bool = False,
) -> str:
    """The results table: a row per model, a column per metric, each estimate with its interval.

    Each column's header carries its direction (↑ higher is better, ↓ lower is better, → the best value of a
    metric with a target); the best model of each metric is in bold; given ``compare``'s result, a model that
    differs from the best one of the metric (or from ``control``) at the result's level is marked †: its
    p-value, adjusted as the result says, is at most 1 - level. A note under the table (the caption in LaTeX
    and HTML) says all this, with each metric's interval method and level.

    Parameters
    ----------
    values : xarray.Dataset or DataArray
        The metrics on the data, a variable per metric with dim ``model_dim`` (or none, for one model):
        ``df.ordinal.evaluate(..., by="model")``.
    intervals : xarray.Dataset, optional
        The intervals of those metrics (dim ``bound``), from ``df.ordinal.ci`` or ``ordframe.ci``.
    result : xarray.Dataset, optional
        ``compare``'s result for the same models and metrics: the models that differ are marked.
    control : optional
        The model the others are tested against (default: each metric's best model); needs ``result``.
    model_dim : str
        The dim of the models (the ``by=`` or ``model=`` column).
    digits : int
        Decimals of the values.
    format : {"markdown", "latex", "html"}
        Markdown (a pipe table), LaTeX (a ``table`` with a ``booktabs`` tabular) or HTML (a ``<table>``,
        every label escaped).
    ascii : bool
        Markdown in ASCII characters only: ``^`` and ``v`` for the arrows, ``*`` for the mark.

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If the values have a dim other than ``model_dim``, the intervals or the result lack a metric or a
        model of the values, or ``control`` is not one of the models.

    Examples
    --------
    >>> cube = xr.DataArray(
    ...     [[[8, 2], [1, 9]], [[6, 4], [3, 7]]],
    ...     dims=("model", "true", "pred"),
    ...     coords={"model": ["a", "b"], "true": [0, 1], "pred": [0, 1]},
    ... )
    >>> print(results_table(cube.ordinal.evaluate(metrics=["accuracy", "mae"])))
    | model | accuracy ↑ | mae ↓ |
    |---|---:|---:|
    | a | **0.850** | **0.150** |
    | b | 0.650 | 0.350 |
    <BLANKLINE>
    ↑ higher is better, ↓ lower is better; bold: the best model of each metric.
    """
    style = _style(format, ascii)
    digits = check_count(digits, "digits", low=0)
    data = _models_only(as_dataset(values), model_dim, "values")
    models = list(data.indexes[model_dim]) if model_dim in data.dims else [""]
    names = list(data.data_vars)
    bounds = None if intervals is None else _intervals_of(intervals, data, model_dim)
    if control is not None and result is None:
        raise ValueError(f"control={control!r} names the model to test against: pass compare's result as result=")
    marked = {} if result is None else _differs(result, data, control, model_dim)
    cells = {}
    for name in names:
        estimate = _row_values(data[name])
        score = orientation(name, data[name].attrs).score(estimate)
        best = score == np.nanmax(score) if np.isfinite(score).any() else np.zeros(len(models), dtype=bool)
        column = []
        for i in range(len(models)):
            text = number_text(estimate[i], digits)
            text = style.bold(text) if best[i] else text
            if bounds is not None:
                low, high = bounds[name]
                text += f" [{number_text(low[i], digits)}, {number_text(high[i], digits)}]"
            column.append(text + (style.mark if name in marked and marked[name][i] else ""))
        cells[name] = column
    header = [
        style.escape(str(model_dim)),
        *(f"{style.escape(str(n))} {_arrow(n, data[n].attrs, style)}" for n in names),
    ]
    rows = [[style.escape(str(m)), *(cells[n][i] for n in names)] for i, m in enumerate(models)]
    note = _note(data, intervals, result, control, style)
    if format == "markdown":
        lines = ["| " + " | ".join(header) + " |", "|---|" + "---:|" * len(names)]
        lines += ["| " + " | ".join(row) + " |" for row in rows]
        return "\n".join([*lines, "", note]) + "\n"
    if format == "latex":
        lines = [
            r"\begin{table}[htbp]",
            r"\centering",
            rf"\caption{{{note}}}",
            r"\begin{tabular}{l" + "r" * len(names) + "}",
        ]
        lines += [r"\toprule", " & ".join(header) + r" \\", r"\midrule"]
        lines += [" & ".join(row) + r" \\" for row in rows]
        return "\n".join([*lines, r"\bottomrule", r"\end{tabular}", r"\end{table}"]) + "\n"
    head = "".join(f'<th scope="col">{h}</th>' for h in header)
    body = "\n".join(
        "<tr>" + f'<th scope="row">{row[0]}</th>' + "".join(f"<td>{c}</td>" for c in row[1:]) + "</tr>" for row in rows
    )
    return (
        f'<table class="ordframe-results">\n<caption>{note}</caption>\n<thead>\n<tr>{head}</tr>\n</thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table>\n"
    )


def _models_only(data: xr.Dataset, model_dim: str, what: str) -> xr.Dataset:
    """``data``, whose variables may have no dim but ``model_dim`` (with unique labels)."""
    others = [d for d in data.dims if d != model_dim]
    if others:
        raise ValueError(
            f"{what} have dims {show(others)} besides {model_dim!r}: the table has one row per model and one column "
            f"per metric. Select or reduce them first (e.g. .sel({others[0]}=...) or .mean({others[0]!r})), or name "
            "the models' dim with model_dim="
        )
    if model_dim in data.dims and not data.indexes[model_dim].is_unique:
        index = data.indexes[model_dim]
        raise ValueError(f"{what} list the models {show(list(index[index.duplicated()].unique()))} more than once")
    return data


def _row_values(values: xr.DataArray) -> np.ndarray:
    """The values of one metric, model by model."""
    return np.asarray(values.values, dtype=np.float64).reshape(-1)


def _same_models(other: xr.Dataset | xr.DataArray, data: xr.Dataset, model_dim: str, what: str):
    """``other`` with the models of ``data``, in its order: an error if the two do not have the same models."""
    if model_dim not in data.dims:
        return other
    if model_dim not in other.dims:
        raise ValueError(f"{what} has no dim {model_dim!r}, the models of the values")
    ours, theirs = data.indexes[model_dim], other.indexes[model_dim]
    if set(ours) != set(theirs):
        missing, extra = [m for m in ours if m not in theirs], [m for m in theirs if m not in ours]
        raise ValueError(
            f"{what} has other models than the values: {show(missing)} missing, {show(extra)} not in the values; "
            "compute both from the same models"
        )
    return other.sel({model_dim: list(ours)})


def _missing(names: Sequence, available, what: str, hint: str) -> None:
    lacking = [n for n in names if n not in available]
    if lacking:
        raise ValueError(f"{what} has no {show(lacking)} ({len(lacking)} of the values' metrics); {hint}")


def _intervals_of(intervals, data: xr.Dataset, model_dim: str) -> dict[Hashable, tuple[np.ndarray, np.ndarray]]:
    """The low and high bounds of every metric, model by model."""
    intervals = as_dataset(intervals)
    if BOUND_DIM not in intervals.dims:
        raise ValueError(f"intervals= has no dim {BOUND_DIM!r}: pass the result of df.ordinal.ci or ordframe.ci")
    _missing(list(data.data_vars), intervals.data_vars, "intervals=", "compute the intervals of every metric")
    intervals = _same_models(intervals, data, model_dim, "intervals=")
    _models_only(intervals.isel({BOUND_DIM: 0}, drop=True), model_dim, "intervals=")
    return {
        name: (
            _row_values(intervals[name].sel({BOUND_DIM: "low"})),
            _row_values(intervals[name].sel({BOUND_DIM: "high"})),
        )
        for name in data.data_vars
    }


def _differs(result: xr.Dataset, data: xr.Dataset, control, model_dim: str) -> dict[Hashable, np.ndarray]:
    """Per metric, the models whose adjusted p-value against the reference model is at most 1 - level."""
    if not isinstance(result, xr.Dataset) or "adjusted_p_value" not in result or METRIC_DIM not in result.dims:
        raise TypeError("result= takes compare's result (a Dataset with adjusted_p_value over metric, model, versus)")
    _missing(list(data.data_vars), result.indexes[METRIC_DIM], "result=", "compare every metric of the table")
    if model_dim not in data.dims:
        raise ValueError(f"result= compares models, but the values have no dim {model_dim!r}; name it with model_dim=")
    p = _same_models(result["adjusted_p_value"], data, model_dim, "result=")
    p = p.sel({VERSUS_DIM: list(data.indexes[model_dim])})
    models = list(data.indexes[model_dim])
    if control is not None and control not in models:
        raise ValueError(f"control={control!r} is not one of the models: {show(models)}")
    alpha = significance(float(result.attrs.get("ci_level", 0.95)))
    out = {}
    for name in data.data_vars:
        if control is None:
            score = orientation(name, data[name].attrs).score(_row_values(data[name]))
            if not np.isfinite(score).any():
                continue
            reference = models[int(np.nanargmax(score))]
        else:
            reference = control
        against = p.sel({METRIC_DIM: name, VERSUS_DIM: reference}).values
        out[name] = np.asarray(against <= alpha)
    return out


def _note(data: xr.Dataset, intervals, result, control, style: _Style) -> str:
    """What the table shows, in one sentence per part: the intervals, the arrows, bold, the mark."""
    parts = []
    if intervals is not None:
        parts.append("Estimates [" + _interval_phrase(as_dataset(intervals), list(data.data_vars), style) + "]")
    kinds = {_arrow(n, data[n].attrs, style) for n in data.data_vars}
    arrows = [
        f"{style.up} higher is better" if style.up in kinds else "",
        f"{style.down} lower is better" if style.down in kinds else "",
    ]
    arrows += [f"{k} best value {k[len(style.target) :]}" for k in sorted(kinds - {style.up, style.down})]
    parts.append(", ".join(a for a in arrows if a))
    parts.append("bold: the best model of each metric")
    if result is not None:
        adjust = result.attrs.get("adjust", "none")
        how = "" if adjust == "none" else f"{ADJUSTMENT_TEXTS[adjust][1].split(' ')[0]}-adjusted "
        versus = "the best model of the metric" if control is None else style.escape(str(control))
        level = float(result.attrs.get("ci_level", 0.95))
        parts.append(
            f"{style.mark}: differs from {versus} ({how}paired bootstrap p {style.at_most} {significance(level):g})"
        )
    return "; ".join(parts) + "."


def _interval_phrase(intervals: xr.Dataset, names: list, style: _Style) -> str:
    """``95% intervals: calibrated (oc), percentile (qwk, mae)``, from the intervals' attrs."""
    groups: dict[tuple[float, str], list[str]] = {}
    for name in names:
        attrs = ChainMap(intervals[name].attrs, intervals.attrs)
        if "ci_level" not in attrs or "ci_method" not in attrs:
            raise ValueError(
                f"intervals[{name!r}] does not say its level and method (ci_level, ci_method attrs): pass the "
                "result of df.ordinal.ci or ordframe.ci"
            )
        groups.setdefault((float(attrs["ci_level"]), str(attrs["ci_method"])), []).append(style.escape(str(name)))
    levels = sorted({level for level, _ in groups})
    if len(groups) == 1:
        ((level, method),) = groups
        return f"{level * 100:g}{style.percent} {style.escape(method)} interval"
    if len(levels) == 1:
        items = [f"{style.escape(method)} ({', '.join(ns)})" for (_, method), ns in groups.items()]
        return f"{levels[0] * 100:g}{style.percent} intervals: " + ", ".join(items)
    items = [
        f"{level * 100:g}{style.percent} {style.escape(method)} ({', '.join(ns)})"
        for (level, method), ns in groups.items()
    ]
    return "intervals: " + ", ".join(items)


# --- the methods text ------------------------------------------------------------------------------------------

_YEAR = re.compile(r"\b(1[89]\d\d|20\d\d)\b")
_AUTHOR = re.compile(r"^(?:[A-Z][a-z]?\.[ -]?)+ ?(?P<surname>\S.*)$")


def split_references(reference: str) -> list[str]:
    """The references of a ``Metric.reference`` (several are separated by ``"; "``); a part without a year, such
    as a remark, stays with the reference before it."""
    out: list[str] = []
    for part in reference.split("; "):
        if out and not _YEAR.search(part):
            out[-1] += f"; {part}"
        else:
            out.append(part)
    return out


def short_citation(reference: str) -> str:
    """A reference ``"J. S. Cardoso, R. Sousa, Measuring ..., 2011"`` cited by authors and year,
    ``"Cardoso & Sousa 2011"``; the reference itself where its authors or year cannot be read."""
    parts = reference.split(", ")
    surnames = []
    for part in parts:
        author = _AUTHOR.match(part)
        if author is None:
            break
        surnames.append(author["surname"])
    years = _YEAR.findall(reference)
    if not surnames or len(surnames) == len(parts) or not years:
        return reference
    if len(surnames) > 3:
        surnames = [f"{surnames[0]} et al."]
    names = surnames[0] if len(surnames) == 1 else f"{', '.join(surnames[:-1])} & {surnames[-1]}"
    return f"{names} {years[-1]}"


def _alphabetical(reference: str) -> str:
    """The key that lists references by their authors, then year (Hall 1986 before Hall & Martin 1988)."""
    return short_citation(reference).replace(" & ", ", ")


def _cited(citation: str) -> str:
    """An interval method's citation, ``"Efron (1987); Efron & Tibshirani (1993), ch. 14"``, as it reads in
    parentheses: ``"Efron 1987; Efron & Tibshirani 1993, ch. 14"``."""
    return re.sub(r" \((\d{4}[a-z]?)\)", r" \1", citation)


def _listed(items: Sequence[str]) -> str:
    """``a``, ``a and b``, ``a, b and c``."""
    return items[0] if len(items) == 1 else f"{', '.join(items[:-1])} and {items[-1]}"


class _References:
    """The references a text cites, in the order first cited, each once; ``cite`` gives the citation escaped."""

    def __init__(self, style: _Style) -> None:
        self.style = style
        self.entries: dict[str, None] = {}

    def cite(self, references: Sequence[str], citation: str) -> str:
        self.entries.update(dict.fromkeys(references))
        return self.style.escape(citation)


def methods_text(
    values=None,
    *,
    intervals: xr.Dataset | None = None,
    result: xr.Dataset | None = None,
    model_dim: str = MODEL_DIM,
    format: str = "markdown",
) -> str:
    """A methods paragraph written from the results' attrs, followed by the references it cites.

    It says which metrics were computed (with their parameters and references) for which groups, each
    interval's method and level (with its reference), how the bootstrap replicates were drawn (how many,
    the seed, samples or whole clusters, the strata), the tests of ``compare`` and their adjustment, and
    the ordframe version: text a reader can paste into a paper's methods section and edit.

    Parameters
    ----------
    values : xarray.Dataset or DataArray, optional
        The metrics on the data (``df.ordinal.evaluate``).
    intervals : xarray.Dataset, optional
        Their intervals (``df.ordinal.ci`` or ``ordframe.ci``).
    result : xarray.Dataset, optional
        ``compare``'s result.
    model_dim : str
        The dim of the models.
    format : {"markdown", "latex", "html"}
        Markdown (plain text with a list of references), LaTeX (escaped, the references an ``itemize``) or
        HTML (paragraphs and a list).

    Returns
    -------
    str

    Raises
    ------
    ValueError
        If none of ``values``, ``intervals`` and ``result`` is given.

    Examples
    --------
    >>> cube = xr.DataArray([[8, 2], [1, 9]], dims=("true", "pred"), coords={"true": [0, 1], "pred": [0, 1]})
    >>> print(methods_text(cube.ordinal.evaluate(metrics=["mae"])))  # doctest: +ELLIPSIS
    We report mae (Cardoso & Sousa 2011) on the whole data. Computed with ordframe ...
    <BLANKLINE>
    References
    <BLANKLINE>
    - J. S. Cardoso, R. Sousa, Measuring the performance of ordinal classification, IJPRAI 25(8), 2011
    """
    style = _style(format, False)
    if values is None and intervals is None and result is None:
        raise ValueError("methods_text writes what results record: pass values=, intervals= or result=")
    references = _References(style)
    data = None if values is None else as_dataset(values)
    bounds = None if intervals is None else as_dataset(intervals)
    sentences = []
    if data is not None:
        sentences.append(_metrics_sentence(data, model_dim, references, style))
    if bounds is not None:
        sentences.append(_intervals_sentence(bounds, references, style))
    if result is not None:
        drawn = None if bounds is None else _drawn_record(bounds)
        sentences.append(_comparison_sentence(result, model_dim, drawn, references, style))
    versions = sorted(
        {
            str(attrs[VERSION_ATTR])
            for source in (data, bounds, result)
            if source is not None
            for attrs in (source.attrs, *(v.attrs for v in source.data_vars.values()))
            if VERSION_ATTR in attrs
        }
    )
    sentences.append(f"Computed with ordframe {_listed(versions)}." if versions else "Computed with ordframe.")
    text = " ".join(sentences)
    entries = [style.escape(entry) for entry in sorted(references.entries, key=_alphabetical)]
    if format == "latex":
        items = "\n".join(rf"\item {entry}" for entry in entries)
        return f"{text}\n\n\\paragraph{{References}}\n\\begin{{itemize}}\n{items}\n\\end{{itemize}}\n"
    if format == "html":
        items = "\n".join(f"<li>{entry}</li>" for entry in entries)
        return f"<p>{text}</p>\n<p><strong>References</strong></p>\n<ul>\n{items}\n</ul>\n"
    return text + "\n\nReferences\n\n" + "\n".join(f"- {entry}" for entry in entries) + "\n"


def _metrics_sentence(data: xr.Dataset, model_dim: str, references: _References, style: _Style) -> str:
    named = []
    for name, variable in data.data_vars.items():
        label = style.escape(str(name))
        parameters = json.loads(variable.attrs.get("parameters", "{}"))
        shown = [
            f"{k} = {v:g}" for k, v in parameters.items() if isinstance(v, (int, float)) and not isinstance(v, bool)
        ]
        cited = []
        try:
            reference = get_metric(str(variable.attrs.get("metric", name))).reference
        except (KeyError, ValueError):  # a metric no longer registered: its name alone
            reference = ""
        if reference:
            entries = split_references(reference)
            cited.append(references.cite(entries, "; ".join(short_citation(e) for e in entries)))
        inside = "; ".join([style.escape(", ".join(shown)), *cited] if shown else cited)
        named.append(f"{label} ({inside})" if inside else label)
    groups = [style.escape(str(d)) for d in data.dims]
    where = f"for each {' and '.join(groups)}" if groups else "on the whole data"
    return f"We report {_listed(named)} {where}."


def _drawn_phrase(record: Mapping, references: _References, style: _Style) -> str:
    """How the replicates of a record (``drawn_of``) were drawn, as a phrase."""
    n, seed = record.get("n_resamples"), record.get("seed")
    seed_text = "seed not recorded" if seed in (None, "not recorded") else f"seed {seed}"
    how = str(record.get("method"))
    if how == CLUSTERS:
        cited = references.cite((DAVISON_HINKLEY_1997,), "Davison & Hinkley 1997, sec. 3.8")
        drawn = f"that resample whole clusters of {style.code(style.escape(str(record['cluster'])))} with replacement ({cited})"
    elif how in (CELLS, CELLS_BY_CLASS):
        within = " within each true class" if how == CELLS_BY_CLASS else ""
        drawn = f"that draw the cells of each confusion matrix multinomially{within}, as resampling its samples does"
    else:
        drawn = "that resample the samples with replacement, the same samples for every model"
        if "sample" in record:
            drawn += f" (identified by {style.code(style.escape(str(record['sample'])))})"
    if "strata" in record:
        strata = [style.code(style.escape(str(s))) for s in json.loads(record["strata"])]
        drawn += f", each stratum of {_listed(strata)} drawn apart with its size"
    return f"{n} bootstrap replicates ({seed_text}) {drawn}"


def _intervals_sentence(bounds: xr.Dataset, references: _References, style: _Style) -> str:
    groups: dict[tuple[float, str], list[str]] = {}
    for name, variable in bounds.data_vars.items():
        attrs = ChainMap(variable.attrs, bounds.attrs)
        key = (float(attrs.get("ci_level", float("nan"))), str(attrs.get("ci_method", "unrecorded")))
        groups.setdefault(key, []).append(style.escape(str(name)))
    phrases = []
    for (level, method), names in groups.items():
        entry = INTERVAL_METHODS.get(method)
        level_text = f"{level * 100:g}{style.percent}"
        if entry is None:
            phrases.append(f"the {level_text} {style.escape(method)} interval for {_listed(names)}")
            continue
        cited = references.cite(entry.references, _cited(entry.citation))
        phrases.append(
            f"the {level_text} {style.escape(method)} interval ({style.escape(entry.description)}; "
            f"{cited}) for {_listed(names)}"
        )
    record = _drawn_record(bounds)
    source = f", from {_drawn_phrase(record, references, style)}" if record else ""
    return f"Confidence intervals are {'; '.join(phrases)}{source}."


def _drawn_record(bounds: xr.Dataset) -> dict:
    """How the replicates of intervals were drawn, from their variables' attrs or their own."""
    return drawn_of(ChainMap(*(v.attrs for v in bounds.data_vars.values()), bounds.attrs))


def _comparison_sentence(
    result: xr.Dataset, model_dim: str, drawn: dict | None, references: _References, style: _Style
) -> str:
    attrs = result.attrs
    k = result.sizes.get(model_dim, 0)
    cited = references.cite((DAVISON_HINKLEY_1997,), "Davison & Hinkley 1997, ch. 4")
    text = f"The {k} models were compared pair by pair with two-sided paired bootstrap p-values ({cited})"
    adjust = str(attrs.get("adjust", "none"))
    if adjust in ADJUSTMENT_TEXTS:
        name, citation, reference = ADJUSTMENT_TEXTS[adjust]
        text += f", adjusted over the {k * (k - 1) // 2} pairs of each metric by {name} ({references.cite((reference,), citation)})"
    method = str(attrs.get("ci_method", ""))
    if method:
        entry = INTERVAL_METHODS.get(method)
        level_text = f"{float(attrs.get('ci_level', float('nan'))) * 100:g}{style.percent}"
        cite = "" if entry is None else f" ({references.cite(entry.references, _cited(entry.citation))})"
        text += f", and {level_text} {style.escape(method)} intervals of the differences{cite}"
    if attrs.get("estimate") == "replicate mean":
        text += "; differences and ranks are means over the replicates"
    record = drawn_of(attrs)
    if record and record == drawn:
        text += ", on the same replicates"
    elif record:
        text += f", on {_drawn_phrase(record, references, style)}"
    return text + "."
