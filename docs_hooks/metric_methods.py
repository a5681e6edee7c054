"""mkdocs hook: the API reference's table of metric functions and methods, made from the registry when the site is built.

Every registered metric is a function, ``ordframe.oc(y_true, y_pred)``, and a
method of the ``.ordinal`` accessors, both looked up at call time, so no
docstring lists them. ``<!-- metric methods -->`` on a page becomes the calls
(read from the real signatures) and one row per built-in metric with its
parameters and a link to its page under ``docs/metrics/``: MkDocs then checks
these links like any other (``--strict`` fails for a built-in metric without a
page).
"""

import inspect

import pandas as pd
import xarray as xr

import ordframe

MARKER = "<!-- metric methods -->"
BUILT_IN = "ordframe.metrics."

# (on what, how the call is written, where the metric is looked up, a built-in metric of each kind)
FRONT_ENDS = [
    ("label vectors", "ordframe", ordframe, "oc"),
    ("probability vectors", "ordframe", ordframe, "rps"),
    ("`df` a DataFrame: label columns", "df.ordinal", pd.DataFrame().ordinal, "oc"),
    ("`df` a DataFrame: probability columns", "df.ordinal", pd.DataFrame().ordinal, "rps"),
    ("`cube` a confusion cube, or `pred` labels against `true`", "cube.ordinal", xr.DataArray([0]).ordinal, "oc"),
    ("`proba` a probability DataArray", "proba.ordinal", xr.DataArray([0]).ordinal, "rps"),
]


def _call(prefix: str, function) -> str:
    own = set(ordframe.get_metric(function.__name__).defaults)
    signature = inspect.signature(function)
    kept = [p for name, p in signature.parameters.items() if name not in own]
    generic = signature.replace(parameters=kept)
    return f"`{prefix}.<metric>{str(generic)[:-1]}, **params)`"


def _table() -> str:
    lines = ["| on | call |", "|---|---|"]
    for where, prefix, namespace, example in FRONT_ENDS:
        lines.append(f"| {where} | {_call(prefix, getattr(namespace, example))} |")
    lines += ["", "| metric | kind | parameters | direction | what it measures |", "|---|---|---|---|---|"]
    for row in ordframe.list_metrics().itertuples():
        if not row.plugin.startswith(BUILT_IN):
            continue  # a plugin installed where the site is built has no page here
        params = ", ".join(f"`{k}={v!r}`" for k, v in row.parameters.items())
        lines.append(
            f"| [`{row.name}`](../metrics/{row.name}.md) | {row.kind} | {params} | {row.direction} | {row.description.replace('|', chr(92) + '|')} |"
        )
    return "\n".join(lines)


def on_page_markdown(markdown: str, **kwargs) -> str:
    return markdown.replace(MARKER, _table()) if MARKER in markdown else markdown
