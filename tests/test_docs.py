"""The documentation's interactive examples (```pycon blocks) are doctests: what a page shows is what ordframe does.

A ```python block whose first line is ``# name.py`` is a module the page's
examples import; it is written to a temporary directory on ``sys.path``.
"""

import doctest
import re
from pathlib import Path

import pytest

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
