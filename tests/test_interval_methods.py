"""The table of interval methods (``ordframe._registry.interval_methods``): every place that lists methods reads it,
and a method added to it fails here until its bounds function, its docs and its coverage run are done."""

import argparse
import ast
import importlib.util
import inspect
import re
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import ordframe
from ordframe._cli.main import parser
from ordframe._inference import agreement, compare, intervals, skill
from ordframe._registry import interval_methods
from ordframe._registry.interval_methods import INTERVAL_METHODS, PLACES, methods
from ordframe._registry.manager import metric_names

ROOT = Path(__file__).resolve().parent.parent
NAMES = list(INTERVAL_METHODS)


@pytest.mark.parametrize("name", NAMES)
def test_every_method_has_its_bounds_function(name):
    bounds = INTERVAL_METHODS[name].bounds
    assert callable(vars(intervals).get(bounds)), (
        f"interval method {name!r}: ordframe/_inference/intervals.py has no bounds function {bounds}"
    )
    function = intervals.bounds_function(name)
    assert list(inspect.signature(function).parameters) == ["values", "dim", "alpha", "data"], (
        f"interval method {name!r}: its bounds function must take (values, dim, alpha, data)"
    )


@pytest.mark.parametrize("name", NAMES)
def test_every_method_has_its_docs_row_and_its_section(name):
    """The table of docs/uncertainty.md is made from ``INTERVAL_METHODS`` (docs_hooks/interval_methods.py); the
    method's own paragraph, with its formula, is written by hand below it."""
    spec = importlib.util.spec_from_file_location("interval_methods_hook", ROOT / "docs_hooks" / "interval_methods.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    page = (ROOT / "docs" / "uncertainty.md").read_text()
    assert hook.MARKER in page, "docs/uncertainty.md lost the table of interval methods"
    rows = [line for line in hook.on_page_markdown(page).splitlines() if line.startswith(f"| `{name}` |")]
    entry = INTERVAL_METHODS[name]
    assert len(rows) == 1 and entry.description in rows[0] and entry.citation in rows[0], (
        f"interval method {name!r}: no row of its own in the table of docs/uncertainty.md"
    )
    assert f'- `"{name}"`' in page, f'interval method {name!r}: docs/uncertainty.md has no paragraph "- `"{name}"`"'


@pytest.mark.parametrize("name", NAMES)
def test_every_method_has_its_command_line_choice_where_it_applies(name):
    commands = next(a for a in parser()._actions if isinstance(a, argparse._SubParsersAction))
    score = commands.choices["score"]
    option = next(a for a in score._actions if "--ci" in a.option_strings)
    offered = name in option.choices
    assert offered == ("frame" in INTERVAL_METHODS[name].places), (
        f"interval method {name!r}: ordframe score --ci offers the methods of df.ordinal.ci, {option.choices}"
    )
    assert (INTERVAL_METHODS[name].description in " ".join(score.format_help().split())) == offered


@pytest.mark.parametrize("name", NAMES)
def test_every_default_has_its_coverage_run(name):
    """A metric may default to a method only after ``benchmarks/bench_coverage.py`` measured it: the benchmark's
    ``COST`` (the methods a default can be, cheapest first) lists every method of ordinary replicates."""
    source = (ROOT / "benchmarks" / "bench_coverage.py").read_text()
    cost = next(
        ast.literal_eval(node.value)
        for node in ast.parse(source).body
        if isinstance(node, ast.Assign) and [t.id for t in node.targets if isinstance(t, ast.Name)] == ["COST"]
    )
    own_replicates = INTERVAL_METHODS[name].drawn_by is not None
    assert (name in cost) != own_replicates, (
        f"interval method {name!r}: benchmarks/bench_coverage.py's COST must list it, in order of cost, "
        "and a coverage run must measure it before a metric defaults to it"
    )


def test_every_default_is_the_one_its_coverage_run_picked():
    """Every confusion and score metric, and Krippendorff's alpha's interval over items, defaults to the method that
    ``benchmarks/bench_coverage.py`` picked by the rule (its family's section of ``results_coverage.md``, the
    column "the rule picks"): a new metric or a changed default fails here until its coverage run is recorded."""
    picked = {}
    for line in (ROOT / "benchmarks" / "results_coverage.md").read_text().splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 10 and cells[0] != "metric" and not cells[0].startswith("-"):
            picked[cells[0]] = cells[7]
    defaults = {m: ordframe.get_metric(m).interval for kind in ("confusion", "score") for m in metric_names(kind)}
    defaults["krippendorff_alpha"] = agreement.INTERVAL
    differ = {m: (default, picked.get(m)) for m, default in defaults.items() if picked.get(m) != default}
    assert not differ, (
        f"(registered default, the coverage run's pick) differ for {differ}: run benchmarks/bench_coverage.py "
        "(--family confusion, score or agreement) and set the default it picks"
    )


def test_the_doors_read_the_table():
    assert methods("replicates") == tuple(NAMES)
    assert compare.DIFFERENCE_METHODS == methods("differences")
    assert skill.SKILL_METHODS == methods("skill")
    assert interval_methods.choices("replicates", none=True) in ordframe.ci.__doc__
    assert interval_methods.choices("frame", none=True) in pd.DataFrame().ordinal.ci.__doc__
    with pytest.raises(ValueError, match=re.escape(f"one of {methods('frame')} for a frame")):
        intervals._check_method("m_out_of_n", "frame")
    for name in NAMES:
        intervals._check_method(name, "replicates")


def test_the_entries_are_consistent():
    for name, entry in INTERVAL_METHODS.items():
        assert entry.name == name and set(entry.places) <= set(PLACES)
        if entry.instead is not None:  # what a default becomes where the design rules the method out
            instead = INTERVAL_METHODS[entry.instead]
            assert "frame" in instead.places and instead.clusters(frame=True), name
    with pytest.raises(ValueError, match=r"interval method 'x': needs must be of \('estimate'"):
        interval_methods.IntervalMethod("x", "x_interval", "", "", needs=("the moon",))


def test_the_table_imports_nothing_heavy():
    """The command line's parser reads it: ``ordframe --help`` loads no numpy."""
    tree = ast.parse(Path(interval_methods.__file__).read_text())
    imported = {
        (node.module if isinstance(node, ast.ImportFrom) else alias.name).split(".")[0]
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert imported <= sys.stdlib_module_names, f"the table imports {sorted(imported - sys.stdlib_module_names)}"


def test_a_metric_declares_only_a_method_of_the_table_and_the_field_it_needs():
    def kernel(counts):
        return np.zeros(counts.shape[:-2])

    with pytest.raises(ValueError, match=r"interval must be one of \('percentile'"):
        ordframe.Metric("x", "confusion", kernel, higher_is_better=True, bounds=(0, 1), interval="no_such_method")
    with pytest.raises(
        ValueError,
        match="interval='intersection' needs the per-class values whose worst the metric is: set per_class= too",
    ):
        ordframe.Metric("x", "confusion", kernel, higher_is_better=True, bounds=(0, 1), interval="intersection")


def _default(metric, **design):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        chosen = intervals.interval_method(ordframe.get_metric(metric), None, **design)
    return chosen, bool(caught)


# The default rule as docs/uncertainty.md states it ("The default interval"): (metric, its default) -> the method and
# whether a warning says why, on a frame, a frame with clusters, replicates with a cube, the same of clusters, and
# replicates without a cube.
DEFAULTS = {
    "mae": ["percentile"] * 5,
    "auoc": ["basic", "basic", "basic", "basic", "percentile!"],
    "gm": ["bca", "bca", "bca", "basic!", "percentile!"],
    "oc": ["calibrated", "basic", "calibrated", "basic", "percentile!"],
    "within_k": ["jeffreys", "jeffreys", "jeffreys", "jeffreys", "percentile!"],
    "ms": ["intersection", "basic", "intersection", "basic", "percentile!"],
}
DESIGNS = [
    {"frame": True, "clusters": False},
    {"frame": True, "clusters": True},
    {"clusters": False},
    {"clusters": True},
    {"clusters": False, "cube": False},
]


@pytest.mark.parametrize("metric", DEFAULTS)
def test_the_default_rule(metric):
    assert [_default(metric, **design) for design in DESIGNS] == [
        (expected.rstrip("!"), expected.endswith("!")) for expected in DEFAULTS[metric]
    ]


def test_an_m_out_of_n_default_is_bca_on_a_frame_and_itself_on_replicates():
    metric = ordframe.Metric(
        "m_of_n_metric", "confusion", lambda counts: counts[..., 0, 0], higher_is_better=True, interval="m_out_of_n"
    )
    assert intervals.interval_method(metric, None, clusters=True, frame=True) == "bca"
    assert intervals.interval_method(metric, None, clusters=True) == "m_out_of_n"
