"""mkdocs hook: the table of interval methods, made from ``ordframe._registry.interval_methods`` when the site is built.

``<!-- interval methods -->`` on a page becomes one row per method: where it
applies, what it needs beyond the replicates, whether it takes replicates that
drew whole clusters, what it is, its reference, and the built-in metrics whose
default it is. A method added to the table gets its row here, and
``tests/test_docs.py`` checks the table.
"""

import ordframe
from ordframe._registry.interval_methods import INTERVAL_METHODS, METRIC_FIELDS, NEEDS

MARKER = "<!-- interval methods -->"
BUILT_IN = "ordframe.metrics."
#: How each place is called.
CALLS = {
    "replicates": "`ordframe.ci`",
    "frame": "`df.ordinal.ci`",
    "differences": "`compare`",
    "skill": "`skill`",
}


def _needs(entry) -> str:
    parts = [NEEDS[need] for need in entry.needs]
    if entry.metric is not None:
        field = METRIC_FIELDS[entry.metric]
        parts.append(f"{field.kind} (`{field.setting}`)")
    if entry.drawn_by is not None:
        parts.append(f"replicates of its own, `{entry.drawn_by}`")
    return "; ".join(parts) or "nothing"


def _clusters(entry) -> str:
    if entry.clusters(frame=False):
        return "yes"
    instead = f" (a default becomes `{entry.instead}`)" if entry.instead else ""
    return ("on a frame" if entry.clusters(frame=True) else "no") + instead


def table() -> str:
    """The Markdown table of ``INTERVAL_METHODS``."""
    metrics = ordframe.list_metrics()
    built_in = [row.name for row in metrics.itertuples() if row.plugin.startswith(BUILT_IN)]
    lines = [
        "| method | applies to | needs beyond the replicates | with `cluster=` | what it is | reference | default of |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, entry in INTERVAL_METHODS.items():
        where = ", ".join(CALLS[place] for place in entry.places)
        if entry.instead is not None and "frame" not in entry.places:
            where += f" (a default becomes `{entry.instead}` on a frame)"
        default_of = ", ".join(f"`{m}`" for m in built_in if ordframe.get_metric(m).interval == name)
        lines.append(
            f"| `{name}` | {where} | {_needs(entry)} | {_clusters(entry)} | {entry.description} | "
            f"{entry.citation} | {default_of} |"
        )
    return "\n".join(lines)


def on_page_markdown(markdown: str, **kwargs) -> str:
    return markdown.replace(MARKER, table()) if MARKER in markdown else markdown
