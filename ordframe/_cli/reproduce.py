"""``ordframe reproduce``: every built-in metric on the papers' worked examples, beside the published values."""

from __future__ import annotations

import math
import textwrap

import numpy as np
import pandas as pd
import xarray as xr

from ordframe import _papers as papers
from ordframe._bridge.apply import apply_confusion
from ordframe._bridge.scores import array_scores, mean_scores
from ordframe._cli.console import WIDTH
from ordframe._core.dims import CUBE_DIMS
from ordframe._core.progress import chunks
from ordframe._inputs.probability import array_inputs
from ordframe._registry import manager as registry
from ordframe.simulate import confusion_cubes, prefers

#: George, Lu & Chang (2016) Table 3 as ordframe reads its design (docs/reproduction.md says why): class sizes
#: N p_i rounded (class 1 the largest), correct predictions and errors spread by sequential uniform draws.
TABLE3_DESIGN = {"sizes": "fixed", "spread": "sequential", "errors": "sequential"}
#: The page of the documentation that explains the reproduction (its title: a pip user has no docs folder).
DOCS_PAGE = '"Reproducing the papers\' published values"'


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


def george_table3(
    pairs: int = 10_000, seed: int = 2016, level: float = 0.95, progress: bool | None = None
) -> pd.DataFrame:
    """George, Lu & Chang's (2016) Table 3 simulated: every cell's published share beside ordframe's and its interval.

    Each cell draws ``pairs`` pairs of independent matrices of its design (``TABLE3_DESIGN``) with equal
    accuracy; ``prefers`` gives the share in which each metric favours the matrix of lower cost (TC with
    George's cost), pairs of equal cost left out, and its Clopper-Pearson interval at ``level``. ``progress``:
    a bar over the cells on standard error (``None``: in a terminal, for a run of more than a few seconds).
    """
    rows = []
    cells = [(design, *cell) for design in papers.GEORGE_2016_TABLE3 for cell in design.printed.items()]
    for start, _ in chunks(len(cells), 1, progress=progress, desc="ordframe reproduce: Table 3", unit="cell"):
        design, (accuracy, largest), printed = cells[start]
        rng = np.random.default_rng([seed, design.simulation, round(100 * accuracy), round(100 * (largest or 0))])
        a, b = (
            confusion_cubes(
                design.k, design.n, accuracy=accuracy, fixed=design.fixed, largest=largest,
                n_resamples=pairs, seed=rng, **TABLE3_DESIGN,
            )
            for _ in range(2)
        )  # fmt: skip
        result = prefers(a, b, metrics=list(printed), reference="cost", level=level)
        for metric, text in printed.items():
            low, high = result["interval"].sel(metric=metric).values
            share, published = float(result["agree"].sel(metric=metric)), float(text)
            # both shares are Monte-Carlo estimates: the published one from 10,000 pairs
            spread = np.sqrt(share * (1 - share) / int(result["pairs"]) + published * (1 - published) / 10_000)
            z = 0.0 if share == published else (share - published) / spread
            rows.append(
                {
                    "simulation": design.simulation,
                    "accuracy": accuracy,
                    "largest": "Bal" if largest is None else f"{largest:.2f}",
                    "metric": metric,
                    "published": text,
                    "ordframe": round(share, 3),
                    "low": round(float(low), 3),
                    "high": round(float(high), 3),
                    "inside": "yes" if low <= published <= high else "no",
                    "z": round(z, 1),
                    "pairs": int(result["pairs"]),
                }
            )
    return pd.DataFrame(rows)


def _print_table3(pairs: int, seed: int, out) -> pd.DataFrame:
    table = george_table3(pairs, seed)
    print(f"\n== George, Lu & Chang (2016), Table 3 (simulated: {pairs} pairs per cell, seed {seed}) ==", file=out)
    _paragraph(
        "Share of equal-accuracy pairs in which the metric favours the lower-cost matrix (pairs of equal cost left "
        "out), with its 95% Monte-Carlo interval; z = (ordframe - published) / the standard error of their "
        f"difference. The documentation's page {DOCS_PAGE} explains the design and every cell outside.",
        out,
    )
    shown = table.pivot_table(
        index=["simulation", "metric"],
        columns=["accuracy", "largest"],
        values="ordframe",
        sort=False,
    )
    print(table.drop(columns="pairs").to_string(index=False), file=out)
    print("\nordframe's shares laid out as the paper's table:", file=out)
    print(shown.to_string(), file=out)
    inside, close = (table["inside"] == "yes").sum(), (table["z"].abs() <= 1.96).sum()
    _paragraph(
        f"\nTable 3: {inside} of {len(table)} published cells inside ordframe's 95% interval; {close} within 1.96 "
        "standard errors of the difference of the two Monte-Carlo estimates (z, the paper's 10,000 pairs included).",
        out,
    )
    return table


def _paragraph(text: str, out) -> None:
    """``text`` wrapped at the reports' width (a leading blank line kept)."""
    print("\n" * (len(text) - len(text.lstrip("\n"))) + textwrap.fill(text.lstrip("\n"), WIDTH), file=out)


def _print_source(part: pd.DataFrame, out) -> None:
    """One paper's values; a note (why a value is skipped) as a numbered footnote below them, wrapped."""
    notes = part["note"].astype(bool).to_numpy()
    shown = part.drop(columns=["source", "note"])
    marks = np.cumsum(notes)
    shown["agrees"] = [
        f"{agrees} [{mark}]" if note else agrees for agrees, note, mark in zip(shown["agrees"], notes, marks)
    ]
    print(shown.to_string(index=False), file=out)
    for mark, note in enumerate(part["note"][notes], 1):
        print(textwrap.fill(note, WIDTH, initial_indent=f"[{mark}] ", subsequent_indent="    "), file=out)


def reproduce(args, out) -> int:
    """Print every built-in metric on the papers' worked examples next to the published values, and the
    simulation of George et al.'s Table 3 (exit code 1 if a worked example differs or d ever prefers the
    costlier matrix)."""
    tables = [
        _published_rows(papers.CONFUSION_CASES, _confusion_value),
        _published_rows(papers.PROBA_CASES, _proba_value),
    ]
    table = pd.concat([t for t in tables if len(t)], ignore_index=True)
    for source, part in table.groupby("source", sort=False):
        print(f"\n== {source} ==", file=out)
        _print_source(part, out)
    counts = table["agrees"].value_counts()
    _paragraph(
        f"\n{counts.get('yes', 0)} published values reproduced, {counts.get('NO', 0)} not, "
        f"{counts.get('skipped', 0)} skipped as misprints in the papers (the numbered note below each says why).",
        out,
    )
    simulated = _print_table3(getattr(args, "pairs", 10_000), getattr(args, "seed", 2016), out)
    d_exact = (simulated.loc[simulated["metric"] == "d", "ordframe"] == 1.0).all()
    print(f"d favours the lower-cost matrix in every pair of every cell: {'yes' if d_exact else 'NO'}.", file=out)
    return 1 if counts.get("NO", 0) or not d_exact else 0
