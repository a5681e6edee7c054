"""``ordframe reproduce``: every built-in metric on the papers' worked examples, beside the published values."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import xarray as xr

from ordframe import _papers as papers
from ordframe._bridge.apply import apply_confusion
from ordframe._bridge.scores import array_scores, mean_scores
from ordframe._core.dims import CUBE_DIMS
from ordframe._inputs.probability import array_inputs
from ordframe._registry import manager as registry


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
                    "agrees": "skipped" if key in case.skip else ("yes" if ok else "NO"),
                    "note": case.skip.get(key, ""),
                }
            )
    return pd.DataFrame(rows)


def _confusion_value(case, name, params):
    cube = xr.DataArray(np.array(case.matrix), dims=CUBE_DIMS)
    return float(apply_confusion(registry.get_metric(name), cube, params))


def _proba_value(case, name, params):
    proba = xr.DataArray([case.proba], dims=("sample", "class"), coords={"class": range(len(case.proba))})
    true = xr.DataArray([case.true_index], dims="sample")
    inputs = array_inputs(proba, true)
    return float(mean_scores(array_scores(registry.get_metric(name), inputs, params)))


def reproduce(args, out) -> int:
    """Print every built-in metric on the papers' worked examples next to the published values."""
    tables = [
        _published_rows(papers.CONFUSION_CASES, _confusion_value),
        _published_rows(papers.PROBA_CASES, _proba_value),
    ]
    table = pd.concat([t for t in tables if len(t)], ignore_index=True)
    with pd.option_context("display.max_rows", None, "display.width", 250, "display.max_colwidth", 80):
        for source, part in table.groupby("source", sort=False):
            print(f"\n== {source} ==", file=out)
            shown = part.drop(columns="source")
            if not shown["note"].astype(bool).any():
                shown = shown.drop(columns="note")
            print(shown.to_string(index=False), file=out)
    counts = table["agrees"].value_counts()
    print(
        f"\n{counts.get('yes', 0)} published values reproduced, {counts.get('NO', 0)} not, "
        f"{counts.get('skipped', 0)} skipped as misprints in the papers (the note beside each says why).",
        file=out,
    )
    return 1 if counts.get("NO", 0) else 0
