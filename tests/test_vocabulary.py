"""One public vocabulary: every keyword of every public signature is in the table of docs/architecture.md.

The table ("### Keywords") is the source: a keyword that a public function, accessor method, display,
``simulate`` function, metric function or CLI option takes must have a row, and where the row gives a default,
every signature that has a default for it must have that one (or the exception the row names for it).
"""

import ast
import inspect
import re
from pathlib import Path

import pytest

import ordframe
import ordframe.plot
import ordframe.simulate
import ordframe.sklearn
from ordframe._accessors.dask import OrdinalDaskFrameAccessor
from ordframe._accessors.pandas import OrdinalFrameAccessor
from ordframe._accessors.xarray import OrdinalArrayAccessor
from ordframe._cli.main import parser
from ordframe._registry.manager import metric_names

ARCHITECTURE = Path(__file__).parents[1] / "docs" / "architecture.md"
VARIADIC = (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)


def keyword_table() -> dict:
    """``{keyword: (default or None, {callable token: default})}`` from the table's rows."""
    text = ARCHITECTURE.read_text(encoding="utf-8")
    section = text.split("### Keywords", 1)[1].split("\n### ", 1)[0]
    table = {}
    for line in section.splitlines():
        if not line.startswith("| `"):
            continue
        names, _meaning, default = (cell.strip() for cell in line.strip("|").split(" | "))
        main, exceptions = None, {}
        for i, part in enumerate(p.strip() for p in default.split(";") if p.strip()):
            literal, _, where = part.partition(":")
            value = ast.literal_eval(literal.strip().strip("`"))
            if i == 0 and not where:
                main = (value,)
            for token in re.findall(r"`([^`]+)`", where):
                exceptions[token] = value
        for name in re.findall(r"`([^`]+)`", names):
            assert name not in table, f"{name!r} has two rows"
            table[name] = (main, exceptions)
    return table


def public_signatures():
    """``(label, parameter)`` for every parameter of every public callable (labels as the table's exceptions name them)."""
    callables = {}
    for name in ordframe.__all__:
        obj = getattr(ordframe, name)
        if inspect.isfunction(obj) and name != "hookimpl":  # hookimpl is pluggy's marker, with pluggy's words
            callables[name] = obj
    for module in (ordframe.plot, ordframe.simulate, ordframe.sklearn):
        short = module.__name__.split(".")[-1]
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj):
                callables[f"{short}.{name}"] = obj
            elif isinstance(obj, type):
                for method, member in vars(obj).items():
                    if (
                        not method.startswith("_")
                        and isinstance(member, (classmethod, staticmethod))
                        or (not method.startswith("_") and inspect.isfunction(member))
                    ):
                        callables[f"{name}.{method}"] = getattr(obj, method)
    accessors = {"df": OrdinalFrameAccessor, "da": OrdinalArrayAccessor, "ddf": OrdinalDaskFrameAccessor}
    for short, cls in {**accessors, "Accumulator": ordframe.Accumulator}.items():
        for method, member in vars(cls).items():
            if inspect.isfunction(member) and (
                not method.startswith("_") or (method, short) == ("__init__", "Accumulator")
            ):
                callables[f"{short}.{method}"] = member
    for name in metric_names():
        own = set(ordframe.get_metric(name).params({}))
        for parameter in inspect.signature(getattr(ordframe, name)).parameters.values():
            if parameter.name not in own:  # a metric's own parameters are on its page
                yield f"ordframe.{name}", parameter
    for label, function in callables.items():
        for parameter in inspect.signature(function).parameters.values():
            if parameter.name not in ("self", "cls") and parameter.kind not in VARIADIC:
                yield label, parameter


def cli_options():
    """``(label, dest, default)`` of every option of every ``ordframe`` command."""
    commands = next(a for a in parser()._actions if a.dest == "command" or hasattr(a, "choices") and a.choices)
    for command, sub in commands.choices.items():
        for action in sub._actions:
            if action.dest != "help":
                yield f"ordframe {command}", action.dest, action.default


TABLE = keyword_table()


def expected(keyword: str, label: str):
    main, exceptions = TABLE[keyword]
    parts = label.split(".")
    for token, value in exceptions.items():
        if token == label or token in parts:
            return (value,)
    return main


def test_every_keyword_of_every_public_signature_has_a_row():
    missing = sorted({(p.name, label) for label, p in public_signatures() if p.name not in TABLE})
    missing += sorted({(dest, label) for label, dest, _ in cli_options() if dest not in TABLE})
    assert not missing, f"keywords without a row in docs/architecture.md's table: {missing}"


def test_every_default_is_the_tables():
    wrong = []
    for label, parameter in public_signatures():
        if parameter.name in TABLE and parameter.default is not inspect.Parameter.empty:
            want = expected(parameter.name, label)
            if want is not None and parameter.default != want[0]:
                wrong.append(f"{label}({parameter.name}={parameter.default!r}), the table says {want[0]!r}")
    for label, dest, default in cli_options():
        want = expected(dest, label) if dest in TABLE else None
        if want is not None and default is not None and default != want[0]:
            wrong.append(f"{label} --{dest.replace('_', '-')} {default!r}, the table says {want[0]!r}")
    assert not wrong, "defaults that differ from docs/architecture.md's table:\n" + "\n".join(wrong)


@pytest.mark.parametrize("old", ["n", "n_boot", "n_samples", "replicates", "bootstrap", "inner", "alpha", "predicted"])
def test_retired_words_are_gone(old):
    """The number of replicates has one name, n_resamples; significance is said with level."""
    takers = sorted({label for label, p in public_signatures() if p.name == old})
    allowed = {"n": ["simulate.confusion_cubes"], "replicates": ["ci"]}.get(old, [])  # a sample size; the data
    assert takers == allowed
