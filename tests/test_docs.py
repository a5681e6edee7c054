"""The documentation's interactive examples (```pycon blocks) are doctests: what a page shows is what ordframe does.

A ```python block whose first line is ``# name.py`` is a module the page's
examples import; it is written to a temporary directory on ``sys.path``.
"""

import ast
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


class PrintedChecker(doctest.OutputChecker):
    """Output as printed, but for spaces at the ends of lines (the page's Markdown strips those pandas pads its index
    names with) and empty lines at the end (a ``print`` of text that ends in a newline)."""

    def check_output(self, want: str, got: str, optionflags: int) -> bool:
        def strip(text: str) -> str:
            return "\n".join(line.rstrip() for line in text.splitlines()).rstrip("\n") + "\n"

        return super().check_output(strip(want), strip(got), optionflags)


def test_the_docs_have_examples():
    assert sum("```pycon" in p.read_text() for p in PAGES) >= 10


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(DOCS)))
def test_page_examples(page, tmp_path, monkeypatch, restore_registry):
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.chdir(tmp_path)  # the files an example writes
    text = page.read_text()
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(checker=PrintedChecker(), optionflags=doctest.ELLIPSIS)
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


# The API reference: pages of ``::: path`` directives that mkdocstrings renders from the docstrings.
REFERENCE = DOCS / "reference"
DIRECTIVE = re.compile(r"^::: (\S+)", re.M)
ROLE = re.compile(r":(?:meth|func|class|data|attr|mod|exc|obj):`")
SECTION = re.compile(r"^(Parameters|Other Parameters)\n-+\n(.*?)(?=^\S[^\n]*\n-+\n|\Z)", re.S | re.M)


def _documented_paths() -> list[str]:
    return [path for page in sorted(REFERENCE.glob("*.md")) for path in DIRECTIVE.findall(page.read_text())]


def _resolve(path: str):
    import importlib

    parts = path.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ImportError(path)


def test_the_reference_documents_every_public_name():
    import ordframe

    documented = set(_documented_paths())
    modules = ("metrics", "plot", "sklearn")
    public = {f"ordframe.{name}" for name in (*ordframe.__all__, *modules)}
    assert sorted(public - documented) == []


def test_the_reference_documents_nothing_private():
    for path in _documented_paths():
        _resolve(path)  # every directive names something that exists
        assert not path.rsplit(".", 1)[-1].startswith("_"), path


def test_docstrings_have_no_sphinx_roles():
    """mkdocstrings shows ``:meth:`x``` as it is: cross-references are written ``[`x`][x]`` (Markdown)."""
    found = [
        f"{path.relative_to(DOCS.parent)}:{n}"
        for path in sorted((DOCS.parent / "ordframe").rglob("*.py"))
        for n, line in enumerate(path.read_text().splitlines(), 1)
        if ROLE.search(line)
    ]
    assert found == []


def _documented_objects():
    """Every function and method the reference renders (members of documented classes and modules too)."""
    import inspect

    seen = set()
    stack = [_resolve(path) for path in _documented_paths()]
    while stack:
        obj = stack.pop()
        if id(obj) in seen:
            continue
        seen.add(id(obj))
        if inspect.ismodule(obj):
            for name, member in vars(obj).items():
                exported = name in getattr(obj, "__all__", ())
                defined_here = getattr(member, "__module__", None) == obj.__name__
                is_submodule = inspect.ismodule(member) and member.__name__.startswith(obj.__name__ + ".")
                if exported or not name.startswith("_") and (defined_here or is_submodule):
                    stack.append(member)
        elif inspect.isclass(obj):
            yield obj
            methods = [getattr(m, "__func__", m) for n, m in vars(obj).items() if not n.startswith("_")]
            stack += [m for m in methods if inspect.isfunction(m)]
        elif inspect.isfunction(obj):
            yield obj


def test_a_parameters_section_lists_every_parameter():
    """A numpydoc ``Parameters`` section names every parameter of the signature, and only those.

    An entry for several parameters gives their type (``beta, gamma : float``): without one,
    mkdocstrings shows the first one's annotation as the type of them all.
    """
    import inspect

    wrong = {}
    for obj in _documented_objects():
        sections = SECTION.findall(inspect.getdoc(obj) or "")
        if not sections:
            continue
        entries = [line for _, body in sections for line in body.splitlines() if line and not line[0].isspace()]
        named = {name.strip().lstrip("*") for line in entries for name in line.split(" : ")[0].split(",")}
        parameters = set(inspect.signature(obj).parameters) - {"self", "cls"}
        untyped = [line for line in entries if "," in line and " : " not in line]
        if named != parameters or untyped:
            wrong[obj.__qualname__] = {
                "missing": sorted(parameters - named),
                "unknown": sorted(named - parameters),
                "several without a type": untyped,
            }
    assert wrong == {}


def test_fill_doc_indents_a_shared_text_like_its_placeholder():
    from ordframe._core.docstrings import fill_doc

    @fill_doc(entry="x : int\n    The {what}.", what="value")
    def f(x):
        """Summary.

        Parameters
        ----------
        {entry}
            More about it.
        """

    assert f.__doc__ == "Summary.\n\nParameters\n----------\nx : int\n    The value.\n    More about it."


def test_fill_doc_leaves_an_escaped_name_as_it_is_written():
    from ordframe._core.docstrings import fill_doc

    @fill_doc(entry="metrics : dict\n    ``{name: (name, {{params}})}``, {what}.", what="checked")
    def f(metrics):
        """{entry}"""

    assert f.__doc__ == "metrics : dict\n    ``{name: (name, {params})}``, checked."


def test_fill_doc_names_a_placeholder_that_no_text_fills():
    from ordframe._core.docstrings import fill_doc

    with pytest.raises(KeyError, match=r"names \{entry\}.*fill_doc\(entry=...\)"):

        @fill_doc
        def f():
            """{entry}"""


def test_no_docstring_of_the_reference_keeps_a_placeholder():
    """A docstring with ``{name}`` placeholders shows them unless ``fill_doc`` fills them."""
    import inspect

    placeholder = re.compile(r"^\s*\{\w+\}\s*$", re.M)
    assert [obj.__qualname__ for obj in _documented_objects() if placeholder.search(inspect.getdoc(obj) or "")] == []


@pytest.mark.parametrize(
    ("module", "path", "placeholder"),
    [
        ("ordframe.plot._reliability", "ReliabilityDisplay.from_cv_results", "{drawn}"),
        ("ordframe._accessors.pandas", "OrdinalFrameAccessor.evaluate", "{cluster}"),  # fill_doc(**words)
    ],
)
def test_the_reference_shows_a_docstring_as_fill_doc_fills_it(module, path, placeholder):
    """docs_hooks/shared_docstrings.py: mkdocstrings reads the source; the extension gives it the filled docstring."""
    import importlib
    import inspect

    griffe = pytest.importorskip("griffe")  # installed with the docs extra
    hook = f"{DOCS.parent / 'docs_hooks' / 'shared_docstrings.py'}:SharedDocstrings"
    loaded = griffe.load(module, extensions=griffe.load_extensions(hook), search_paths=[str(DOCS.parent)])
    owner, name = path.split(".")
    method = getattr(getattr(importlib.import_module(module), owner), name)
    assert loaded[path].docstring.value == inspect.getdoc(method)
    assert placeholder in inspect.getsource(method)


ACCESSORS = ("pandas.OrdinalFrameAccessor", "xarray.OrdinalArrayAccessor", "dask.OrdinalDaskFrameAccessor")
FRONT_END = ("labels", "weights", "renormalize", "observed", "replicate_dim", "progress")


@pytest.mark.parametrize("accessor", ACCESSORS)
def test_an_accessor_documents_a_front_end_keyword_alike_in_every_method(accessor):
    """The keywords every door passes on unchanged read the same in each method (the shared texts of
    ``ordframe._core.docstrings``; a method may add a line of its own below)."""
    import inspect

    cls = _resolve(f"ordframe._accessors.{accessor}")
    entries: dict[str, dict[str, str]] = {}
    for name, method in vars(cls).items():
        if name.startswith("_") or not inspect.isfunction(method):
            continue
        for _, body in SECTION.findall(inspect.getdoc(method)):
            lines = body.splitlines()
            for header, first in zip(lines, lines[1:]):
                keyword = header.split(" : ")[0]
                if keyword in FRONT_END:
                    entries.setdefault(keyword, {})[name] = f"{header}\n{first}"
    assert entries.keys() >= {"labels", "weights"}
    differing = {keyword: texts for keyword, texts in entries.items() if len(set(texts.values())) > 1}
    assert differing == {}


def test_every_metric_page_shows_the_metrics_default_interval():
    """The ``interval`` row of a metric's table is the method ``ci(..., method=None)`` uses for it."""
    import ordframe

    shown = {}
    for page in sorted((DOCS / "metrics").glob("*.md")):
        text = page.read_text()
        name = re.search(r"^\| name \| `(\w+)` \|", text, re.M)
        if name:
            row = re.search(r"^\| interval \| `(\w+)`", text, re.M)
            shown[name.group(1)] = row.group(1) if row else None
    builtin = [m for m in ordframe.list_metrics()["name"] if m in shown]
    assert len(builtin) >= 20
    assert {m: shown[m] for m in builtin} == {m: ordframe.get_metric(m).interval for m in builtin}


def test_the_frame_accessor_reference_lists_every_method():
    from ordframe._accessors.pandas import OrdinalFrameAccessor

    text = (DOCS / "reference" / "frame-accessor.md").read_text()
    listed = set(re.search(r"members: \[(.*?)\]", text).group(1).replace(" ", "").split(","))
    methods = {
        name for name, value in vars(OrdinalFrameAccessor).items() if callable(value) and not name.startswith("_")
    }
    assert sorted(methods - listed) == []


def _hook(name: str):
    import importlib.util

    spec = importlib.util.spec_from_file_location(f"{name}_hook", DOCS.parent / "docs_hooks" / f"{name}.py")
    hook = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(hook)
    return hook


def test_the_reference_shows_a_constant_default_by_its_value():
    """docs_hooks/constants.py: ``model_dim=MODEL_DIM`` becomes ``model_dim="model"``, in the table and the signature."""
    hook = _hook("constants")
    page = (
        '<span class="n">model_dim</span><span class="o">=</span><span class="n">MODEL_DIM</span>'
        '<td><code><span title="ordframe._core.dims.MODEL_DIM">MODEL_DIM</span></code></td>'
        '<span class="n">UNKNOWN</span>'
    )
    out = hook.on_post_page(page, None)
    assert '<span class="s2">&quot;model&quot;</span>' in out
    assert '<span title="ordframe._core.dims.MODEL_DIM">&quot;model&quot;</span>' in out
    assert '<span class="n">UNKNOWN</span>' in out  # a name no table resolves stays as it is


def test_a_figure_too_large_for_a_browser_fails_the_build(caplog):
    """docs_hooks/figures.py: an inline SVG of thousands of shapes kept a page from opening; the strict build stops it."""
    import types

    hook = _hook("figures")
    page = types.SimpleNamespace(file=types.SimpleNamespace(src_uri="calibration.md"))
    described = "<dc:description>curves</dc:description>"
    small = f"<svg>{described}<path d='M 0 0'/></svg>"
    shape = '<path d="M 0 0 L 1 1"/>'
    large = f"<svg>{described}{shape * 60_000}</svg>"
    with caplog.at_level("WARNING", logger="mkdocs.hooks.figures"):
        assert 'aria-label="curves"' in hook.on_page_content(small, page)
        assert not caplog.records
        hook.on_page_content(large, page)
    assert [r.getMessage() for r in caplog.records] == [
        "calibration.md: a figure of 1.4 MB of SVG; draw dense marks as an image (rasterized=True) or fewer of them"
    ]


def test_the_training_templates_compile():
    """The templates no test can run (a PyTorch loop, a Keras callback, torch.distributed) are Python at least."""
    blocks = [b.group(2) for b in BLOCK.finditer((DOCS / "streaming.md").read_text()) if b.group(1) == "python"]
    assert len(blocks) >= 3
    for block in blocks:
        compile(block, "streaming.md", "exec")


def test_the_pytorch_template_trains_then_validates_without_gradients():
    import ast

    (loop,) = [
        b.group(2) for b in BLOCK.finditer((DOCS / "streaming.md").read_text()) if "import torch\n" in b.group(2)
    ]
    (epochs,) = [node for node in ast.parse(loop).body if isinstance(node, ast.For)]
    steps = ast.unparse(epochs)
    order = [steps.find(step) for step in ("model.train()", ".backward()", "model.eval()", "with torch.no_grad()")]
    assert -1 not in order and order == sorted(order), steps
    assert "acc.update(" in steps.split("with torch.no_grad()")[1]


def test_the_install_section_names_every_dependency_and_extra():
    tomllib = pytest.importorskip("tomllib")
    project = tomllib.loads((DOCS.parent / "pyproject.toml").read_text())["project"]
    text = (DOCS / "index.md").read_text().split("## Install", 1)[1].split("\n## ", 1)[0]
    named = re.search(r"it depends on ([^.]+)\.", text.replace("\n", " ")).group(1)
    listed = [name.strip() for name in re.split(r",| and ", named) if name.strip()]
    assert listed == [re.match(r"[\w-]+", requirement).group() for requirement in project["dependencies"]]
    assert f"Python {project['requires-python'].removeprefix('>=')} or newer" in text
    (block,) = re.findall(r"```text\n(.*?)```", text, re.S)
    assert sorted(re.findall(r'"\.\[(\w+)\]"', block)) == sorted(project["optional-dependencies"])
    assert max(len(line) for line in block.splitlines()) <= 80  # the whole comment in view on a desktop


def test_the_404_page_links_relatively():
    """docs_hooks/not_found.py: root-absolute links (no site_url) would point at the file system's root."""
    assert "docs_hooks/not_found.py" in (DOCS.parent / "mkdocs.yml").read_text()
    page = (
        '<link href="/assets/main.css"><a href="/index.html">x</a><script src="/javascripts/copy-pycon.js"></script>'
        '<a href="https://example.org/a">y</a><img src="//cdn.example.org/i.png">'
        '<script id="__config" type="application/json">{"base": "/", "features": []}</script>'
    )
    out = _hook("not_found").on_post_template(page, "404.html", None)
    assert out == (
        '<link href="assets/main.css"><a href="index.html">x</a><script src="javascripts/copy-pycon.js"></script>'
        '<a href="https://example.org/a">y</a><img src="//cdn.example.org/i.png">'
        '<script id="__config" type="application/json">{"base": ".", "features": []}</script>'
    )
    assert _hook("not_found").on_post_template(page, "sitemap.xml", None) == page


def test_option_names_in_a_first_column_do_not_break():
    """docs/stylesheets/extra.css: "--pred COL" stays on one line in the command's options table."""
    css = (DOCS / "stylesheets" / "extra.css").read_text()
    rule = re.search(r"^([^{}/]*td:first-child code) \{([^}]*)\}", css, re.M)
    assert rule and "white-space: nowrap;" in rule.group(2)
    assert re.search(r"^\| `--[a-z]", (DOCS / "cli.md").read_text(), re.M)  # a table of options, names first


def _built_text(page: Path) -> str:
    """The page's Markdown with its ```python exec="on" blocks replaced by what they print (as markdown-exec does)."""
    import contextlib
    import io

    sessions: dict[str, dict] = {}

    def run(match: re.Match) -> str:
        options, body = match.groups()
        session = re.search(r'session="([^"]+)"', options)
        globs = sessions.setdefault(session.group(1), {}) if session else {}
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(body, str(page), "exec"), globs)
        return out.getvalue()

    return re.sub(r'^```python (exec="on"[^\n]*)\n(.*?)^```', run, page.read_text(), flags=re.S | re.M)


@pytest.mark.slow  # builds the page's figure
def test_a_classifier_name_means_one_classifier_on_the_oc_page():
    """The OC page's tables of classifiers from two papers: no name in both, and no pandas HTML table."""
    import matplotlib

    matplotlib.use("Agg")
    text = _built_text(DOCS / "metrics" / "oc.md")
    assert "<table" not in text  # Markdown tables, styled as every other table of the site
    tables = re.findall(r"^\| classifier \|.*\n\|[-|]+\|\n((?:\|.*\n)+)", text, re.M)
    names = [{row.split("|")[1].strip() for row in rows.splitlines()} for rows in tables]
    assert len(names) == 2 and {"A", "B", "C", "D"} <= names[0], names
    assert names[0].isdisjoint(names[1]), names


def test_the_tutorials_whole_study_is_at_most_ten_lines():
    """The study of comparing-models.md (cross-validation, intervals, comparison, baselines, table, methods, report)
    stays at most ten statements after its imports: a line that packs two statements counts two."""
    text = (DOCS / "comparing-models.md").read_text()
    start = text.index("## The whole study in ten lines")
    body = BLOCK.search(text, start).group(2)
    statements = [
        node
        for example in doctest.DocTestParser().get_examples(body)
        for node in ast.parse(example.source).body
        if not isinstance(node, (ast.Import, ast.ImportFrom))
    ]
    assert 8 <= len(statements) <= 10, [ast.unparse(node)[:60] for node in statements]
    called = {
        node.func.attr
        for s in statements
        for node in ast.walk(s)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
    }
    assert {"ci", "compare", "results_table", "methods_text", "report_html"} <= called
