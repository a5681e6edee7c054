"""mkdocs hook: a default that is a named constant shows its value in the API reference (``model_dim="model"``).

mkdocstrings prints a default as written in the source, e.g. ``model_dim=MODEL_DIM``, which tells a reader
nothing they can type. The parameter tables name the constant's module in a ``title``
(``ordframe._core.dims.MODEL_DIM``); this hook reads that constant and writes its value, as the
source would spell it, both in the tables and in the signature above them.
"""

import html
import importlib
import json
import re

TITLED = re.compile(r'<span title="(ordframe(?:\.\w+)+)\.([A-Z][A-Z0-9_]*)">\2</span>')
IN_SIGNATURE = re.compile(r'<span class="n">([A-Z][A-Z0-9_]*)</span>')


def on_post_page(content: str, page, **kwargs) -> str:
    values: dict[str, str] = {}

    def titled(match: re.Match) -> str:
        module, name = match.groups()
        value = getattr(importlib.import_module(module), name, None)
        if not isinstance(value, (str, int, float)) or isinstance(value, bool):
            return match.group(0)
        values[name] = html.escape(
            json.dumps(value) if isinstance(value, str) else repr(value)
        )  # as the source writes it
        return f'<span title="{module}.{name}">{values[name]}</span>'

    content = TITLED.sub(titled, content)
    return IN_SIGNATURE.sub(
        lambda m: f'<span class="s2">{values[m.group(1)]}</span>' if m.group(1) in values else m.group(0), content
    )
