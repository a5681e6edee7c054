"""The documentation's interactive examples (```pycon blocks) are doctests: what a page shows is what ordframe does.

A ```python block whose first line is ``# name.py`` is a module the page's
examples import; it is written to a temporary directory on ``sys.path``.
"""

import doctest
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import xarray as xr

DOCS = Path(__file__).resolve().parent.parent / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
BLOCK = re.compile(r"^```(pycon|python)\n(.*?)^```", re.S | re.M)
MODULE = re.compile(r"# (\w+)\.py\n")


def test_the_docs_have_examples():
    assert sum("```pycon" in p.read_text() for p in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples(page, tmp_path, monkeypatch, restore_registry):
    monkeypatch.syspath_prepend(str(tmp_path))
    text = page.read_text()
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    globs = {"__name__": "__docs__"}
    for block in BLOCK.finditer(text):
        kind, body = block.groups()
        if kind == "python":
            if module := MODULE.match(body):
                (tmp_path / f"{module.group(1)}.py").write_text(body)
            continue
        line = text[: block.start()].count("\n") + 1
        test = parser.get_doctest(body, globs, f"{page.name}:{line}", str(page), line)
        runner.run(test, clear_globs=False)
        globs = test.globs
    assert runner.summarize(verbose=False).failed == 0


MODULES = sorted(
    ".".join(p.relative_to(DOCS.parent).with_suffix("").parts)
    for p in (DOCS.parent / "ordframe").rglob("*.py")
    if p.name not in ("__main__.py", "__init__.py")  # a package __init__ imported again would re-register
)


@pytest.mark.parametrize("module", MODULES)
def test_docstring_examples(module, restore_registry):
    """Every ``Examples`` section of the public API runs and shows what ordframe does."""
    import importlib

    globs = {"np": np, "pd": pd, "xr": xr}
    result = doctest.testmod(
        importlib.import_module(module), extraglobs=globs, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0
