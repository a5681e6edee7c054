"""The layers of the package, as docs/architecture.md draws them: what each may import, and nothing runs back up.

Every ``import`` of an ordframe module is read from the source (function-level
ones too), so a dependency hidden in a function is caught like any other.
Internal code never calls the ``.ordinal`` accessors (only the accessors
themselves and the command line's help are written in terms of them).
"""

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "ordframe"

#: layer -> the layers its modules may import (besides modules of their own layer).
MAY_IMPORT = {
    "_core": set(),
    "datasets": set(),
    "_papers": set(),
    "_registry": {"_core"},
    "metrics": {"_core", "_registry"},
    "_inputs": {"_core"},
    "_bridge": {"_core", "_registry", "_inputs"},
    "_resampling": {"_core", "_registry", "_inputs", "_bridge"},
    "_inference": {"_core", "_registry", "_inputs", "_bridge", "_resampling"},
    "simulate": {"_core", "_registry", "metrics", "_inputs", "_bridge", "_resampling", "_inference"},
    "_diagnostics": {"_core", "_registry", "metrics", "_inputs", "_bridge"},
    "sklearn": {"_core", "_registry", "_inputs", "_bridge"},
    "plot": {"_core", "_registry", "_inputs", "_bridge", "_diagnostics"},
    "_accessors": {"_core", "_registry", "_inputs", "_bridge", "_resampling", "_inference", "_diagnostics"},
    "_page": {"_core", "_registry", "_inputs", "_bridge", "_resampling", "_inference", "_diagnostics", "plot"},
    "__init__": {
        "_core",
        "_registry",
        "metrics",
        "_accessors",
        "_diagnostics",
        "_inference",
        "_page",
        "_resampling",
        "datasets",
        "simulate",
    },
    "_cli": {"__init__", "_core", "_registry", "_inputs", "_bridge", "_resampling", "_inference", "_diagnostics"}
    | {"datasets", "plot", "_papers", "simulate", "_page", "sklearn"},
    "__main__": {"_cli"},
}


def layer(path: Path) -> str:
    relative = path.relative_to(PACKAGE)
    return (
        relative.parts[0].removesuffix(".py") if len(relative.parts) > 1 or relative.stem != "__init__" else "__init__"
    )


def imported_layers(path: Path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "ordframe":
            parts = node.module.split(".")
            if len(parts) == 1:  # from ordframe import x
                found |= {alias.name if alias.name in ("datasets", "simulate") else "__init__" for alias in node.names}
            else:
                found.add(parts[1])
        elif isinstance(node, ast.ImportFrom) and node.level:
            raise AssertionError(f"{path}: relative import; ordframe's modules import by absolute name")
        elif isinstance(node, ast.Import):
            found |= {alias.name.split(".")[1] for alias in node.names if alias.name.startswith("ordframe.")}
    return found


MODULES = sorted(PACKAGE.rglob("*.py"))


def test_every_module_belongs_to_a_layer():
    assert {layer(p) for p in MODULES} <= set(MAY_IMPORT)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_a_module_imports_only_the_layers_below_it(path):
    own = layer(path)
    upward = imported_layers(path) - MAY_IMPORT[own] - {own}
    assert not upward, f"{path.relative_to(PACKAGE)} ({own}) imports {sorted(upward)}"


def test_the_layers_have_no_circle():
    order, seen = [], set()

    def visit(name, stack=()):
        assert name not in stack, f"circle: {' -> '.join((*stack, name))}"
        if name not in seen:
            seen.add(name)
            for lower in MAY_IMPORT[name]:
                visit(lower, (*stack, name))
            order.append(name)

    for name in MAY_IMPORT:
        visit(name)
    assert len(order) == len(MAY_IMPORT)


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_internal_code_never_calls_the_accessors(path):
    if layer(path) == "_accessors":
        return
    uses = [
        node.lineno
        for node in ast.walk(ast.parse(path.read_text()))
        if isinstance(node, ast.Attribute) and node.attr == "ordinal"  # messages and examples may name it
    ]
    assert not uses, f"{path.relative_to(PACKAGE)} uses .ordinal at lines {uses}"


def test_internals_are_private_and_the_public_names_are_exported():
    import ordframe

    public = {p.name for p in PACKAGE.iterdir() if not p.name.startswith("_") and p.suffix in ("", ".py")}
    assert public - {"py.typed"} == {"metrics", "plot", "sklearn.py", "datasets", "simulate"}
    for name in ordframe.__all__:
        assert getattr(ordframe, name) is not None
    assert {"bootstrap_cube", "jackknife", "report_cube", "george_cost", "METRIC_SETS"} <= set(ordframe.__all__)


@pytest.mark.slow
def test_ordframe_imports_and_scores_without_its_optional_dependencies():
    """The core install (no extra) has none of dask, polars, matplotlib, scikit-learn, pyarrow or torch."""
    import subprocess
    import sys

    optional = ("dask", "distributed", "polars", "matplotlib", "sklearn", "pyarrow", "torch", "statsmodels", "baycomp")
    code = (
        "import sys\n"
        f"for name in {optional!r}:\n"
        "    sys.modules[name] = None  # any import of it raises ImportError\n"
        "import pandas as pd, ordframe\n"
        "df = pd.DataFrame({'y': [0, 1, 2, 2] * 5, 'yhat': [0, 1, 1, 2] * 5, 'model': 'a'})\n"
        "assert df.ordinal.evaluate('y', 'yhat', n_resamples=20, seed=0)['oc'].sizes == {'bootstrap': 20}\n"
        "assert ordframe.oc([0, 1, 2], [0, 1, 2]) == 0\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_the_stub_lists_exactly_the_public_names():
    """``__init__.pyi`` is the one list of public names: the package's ``__getattr__`` reads it, type checkers read it."""
    import ordframe

    stub = ast.parse((PACKAGE / "__init__.pyi").read_text())
    listed = {
        alias.asname or alias.name for node in stub.body if isinstance(node, ast.ImportFrom) for alias in node.names
    }
    assert listed == set(ordframe.__all__)


IMPORT_ORDERS = {
    "ordframe first": "import ordframe, pandas as pd, xarray as xr",
    "pandas first": "import pandas as pd, ordframe, xarray as xr",
    "xarray first": "import xarray as xr, ordframe, pandas as pd",
    # an ordframe layer imports pandas for the first time: the hook must not import a half-imported layer
    "a public name first": "import ordframe; ordframe.compare; import pandas as pd, xarray as xr",
    "a metric function first": "import ordframe; assert ordframe.oc([0, 1], [0, 1]) == 0; import pandas as pd, xarray as xr",
    "the datasets first": "import ordframe; ordframe.datasets.load('esl'); import pandas as pd, xarray as xr",
}


@pytest.mark.parametrize("imports", IMPORT_ORDERS.values(), ids=IMPORT_ORDERS.keys())
@pytest.mark.slow
def test_the_accessors_are_registered_in_any_import_order(imports):
    import subprocess
    import sys

    code = (
        f"{imports}\n"
        "df = pd.DataFrame({'y': [0, 1, 2], 'yhat': [0, 1, 1]})\n"
        "assert df.ordinal.mae('y', 'yhat') == 1 / 3\n"
        "assert float(xr.DataArray([0, 1, 1], dims='sample').ordinal.mae(xr.DataArray([0, 1, 2], dims='sample'), "
        "dim='sample')) == 1 / 3\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_importing_ordframe_imports_no_frame_library():
    import subprocess
    import sys

    code = (
        "import sys, ordframe\n"
        "heavy = {'numpy', 'pandas', 'xarray', 'scipy', 'dask', 'polars', 'matplotlib'} & set(sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


@pytest.mark.slow
def test_a_pandas_call_imports_no_dask_of_its_own():
    """Scoring pandas rows, no module of ordframe imports dask (xarray does, where dask is installed: a DataArray
    checks whether its data are a dask array). Every import statement and ``import_module`` call is watched,
    of a module loaded already too, and the module that makes it recorded."""
    import subprocess
    import sys

    code = (
        "import builtins, importlib, sys\n"
        "import pandas as pd, ordframe\n"
        "asked, real_import, real_module = set(), builtins.__import__, importlib.import_module\n"
        "def note(name, caller):\n"
        "    if name.partition('.')[0] in ('dask', 'distributed') and caller.startswith('ordframe'):\n"
        "        asked.add((caller, name))\n"
        "def spy(name, globals=None, locals=None, fromlist=(), level=0):\n"
        "    note(name if level == 0 else '', (globals or {}).get('__name__', ''))\n"
        "    return real_import(name, globals, locals, fromlist, level)\n"
        "def spy_module(name, package=None):\n"
        "    note(name, sys._getframe(1).f_globals.get('__name__', ''))\n"
        "    return real_module(name, package)\n"
        "builtins.__import__, importlib.import_module = spy, spy_module\n"
        "df = pd.DataFrame({'y': [0, 1, 2, 2], 'yhat': [0, 1, 1, 2], 'g': [0, 0, 1, 1]})\n"
        "df.ordinal.mae('y', 'yhat'), df.ordinal.evaluate('y', 'yhat', by='g'), ordframe.oc([0, 1, 2], [0, 2, 2])\n"
        "assert not asked, asked\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
