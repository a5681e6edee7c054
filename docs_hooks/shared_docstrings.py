"""griffe extension: a docstring filled by ``ordframe._core.docstrings.fill_doc`` is shown as it is filled.

mkdocstrings reads the source, where such a docstring still has its ``{name}`` placeholders; this extension
replaces it with the ``__doc__`` of the imported function (griffe's way for docstrings made at run time).
"""

import inspect

import griffe

DECORATOR = "fill_doc"


def filled(func: griffe.Function) -> bool:
    """Whether ``func`` is decorated with ``fill_doc`` (bare or called with texts)."""
    return any(str(d.value).split("(")[0].rsplit(".", 1)[-1] == DECORATOR for d in func.decorators)


class SharedDocstrings(griffe.Extension):
    def on_function(self, *, func: griffe.Function, **kwargs) -> None:
        if not filled(func) or func.docstring is None:
            return
        func.docstring.value = inspect.getdoc(griffe.dynamic_import(func.path)) or ""
