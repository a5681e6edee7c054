"""The ``ordframe`` command: ``ordframe demo`` and ``ordframe metrics``."""

from __future__ import annotations

import argparse
import math
import sys

import numpy as np
import pandas as pd
import xarray as xr

from . import papers, registry
from .apply import apply_confusion
from .dims import CUBE_DIMS


def _published_rows(cases, compute) -> pd.DataFrame:
    rows = []
    for case in cases:
        for key, published in case.values.items():
            name = papers.metric_name(key)
            if name not in registry.metric_names():
                continue
            value = compute(case, name, dict(case.params.get(key, {})))
            ok = (math.isnan(value) and math.isnan(published)) or abs(value - published) <= case.abs_tol(key)
            rows.append(
                {
                    "source": case.source,
                    "case": case.name,
                    "value": key,
                    "published": case.printed[key],
                    "ordframe": round(value, 4),
                    "agrees": "skipped: see note" if key in case.skip else ("yes" if ok else "NO"),
                }
            )
    return pd.DataFrame(rows)


def _confusion_value(case, name, params):
    cube = xr.DataArray(np.array(case.matrix), dims=CUBE_DIMS)
    return float(apply_confusion(registry.get_metric(name), cube, params))


def _proba_value(case, name, params):
    proba = xr.DataArray([case.proba], dims=("sample", "class"), coords={"class": range(len(case.proba))})
    true = xr.DataArray([case.true_index], dims="sample")
    return getattr(proba.ordinal, name)(true, **params)


def demo(out=sys.stdout) -> int:
    """Print every built-in metric on the seed papers' worked examples next to the published values."""
    tables = [
        _published_rows(papers.CONFUSION_CASES, _confusion_value),
        _published_rows(papers.PROBA_CASES, _proba_value),
    ]
    table = pd.concat([t for t in tables if len(t)], ignore_index=True)
    with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_colwidth", 40):
        for source, part in table.groupby("source", sort=False):
            print(f"\n== {source} ==", file=out)
            print(part.drop(columns="source").to_string(index=False), file=out)
    counts = table["agrees"].value_counts()
    print(
        f"\n{counts.get('yes', 0)} published values reproduced, {counts.get('NO', 0)} not, "
        f"{len(table) - counts.get('yes', 0) - counts.get('NO', 0)} skipped as known misprints "
        "(see DESIGN.md and ordframe/papers.py).",
        file=out,
    )
    return 1 if counts.get("NO", 0) else 0


def metrics(out=sys.stdout) -> int:
    """Print the table of registered metrics."""
    with pd.option_context("display.max_rows", None, "display.width", 200, "display.max_colwidth", 60):
        print(registry.list_metrics().drop(columns="reference").to_string(index=False), file=out)
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="ordframe", description="Order-aware evaluation of ordinal classifiers.")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("demo", help="reproduce the seed papers' published values")
    commands.add_parser("metrics", help="list the registered metrics and plugins")
    args = parser.parse_args(argv)
    return {"demo": demo, "metrics": metrics}[args.command]()


if __name__ == "__main__":
    sys.exit(main())
