"""``ordframe metrics``: the registered metrics, and the plugins that failed to load."""

from __future__ import annotations

import shutil
import textwrap

from ordframe._registry import manager as registry
from ordframe._registry.request import metric_label


def metrics(args, out) -> int:
    """Print the registered metrics (name, kind, direction, description; wrapped to the terminal) and failed plugins."""
    table = registry.list_metrics()
    failed, table = table[table["status"] != "ok"], table[table["status"] == "ok"]
    table = table.assign(direction=table["direction"].str.replace(" is better", "", regex=False))
    columns = ["name", "kind", "direction"]
    widths = [max(len(c), table[c].str.len().max()) for c in columns]
    indent = sum(widths) + 2 * len(columns)
    width = shutil.get_terminal_size().columns
    if width < indent + 30:  # a narrow terminal: each description on its own lines
        indent, width = 4, max(width, 34)
    narrow = indent == 4  # each metric's name on a line of its own, the rest below it
    header = "  ".join(c.ljust(w) for c, w in zip(columns, widths))
    print("name\n    kind, direction: description" if narrow else header + "  description", file=out)
    for row in table.itertuples(index=False):
        description = row.description + ("" if row.plugin.startswith("ordframe.") else f" (plugin {row.plugin})")
        defaults = dict(registry.get_metric(row.name).defaults)
        if defaults:
            description += f" Parameters (defaults): {metric_label(row.name, defaults)}."
        if narrow:
            print(row.name, file=out)
            first, description = " " * indent, f"{row.kind}, {row.direction}: {description}"
        else:
            first = "  ".join(getattr(row, c).ljust(w) for c, w in zip(columns, widths)) + "  "
        print(textwrap.fill(description, width, initial_indent=first, subsequent_indent=" " * indent), file=out)
    for row in failed.itertuples(index=False):
        print(textwrap.fill(f"plugin {row.plugin} {row.status}", width, subsequent_indent=" " * 4), file=out)
    advice = (
        "Give parameters in --metrics as 'oc[beta=0.25]'. Bounds and references: ordframe.list_metrics() in Python."
    )
    print("\n" + textwrap.fill(advice, width), file=out)
    return 0
