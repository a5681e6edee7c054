"""Benchmark: the cluster bootstrap, and the stratified paired bootstrap with probabilities.

Two ratios, each against a baseline measured in the same run:

1. **Cluster bootstrap vs the paired pattern bootstrap on the same rows.** A
   repeated cross-validation (3 repeats x 5 folds, 3 models, K = 5, S
   subjects): ``df.ordinal.bootstrap(..., strata=["repeat", "fold"],
   cluster="subject")`` against the same call without ``cluster=`` (each
   repeat's rows drawn apart), labels only and with RPS (target: at most 2x).
2. **300 uneven strata with probabilities vs one stratum of the same
   samples**: ``evaluate(proba=..., strata="site", n_resamples=B)`` with one site
   of most samples and 299 small ones, against one site holding them all
   (target: at most 2x; the hostile review of 2026-11 measured 12x).

Run::

    python benchmarks/bench_inference.py > benchmarks/results_inference.md
    python benchmarks/bench_inference.py --smoke     # tiny sizes (seconds)
"""

from __future__ import annotations

import argparse
import time
import warnings

import numpy as np
import pandas as pd
from machine_info import machine

import ordframe  # noqa: F401  (registers the accessor)

K = 5
PROBA = [f"p{c}" for c in range(K)]


def best(func, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        func()
        times.append(time.perf_counter() - start)
    return min(times)


def repeated_cv(subjects: int, models: int = 3, repeats: int = 3, folds: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    y = rng.integers(0, K, subjects)
    effect = rng.normal(0, 0.7, subjects)
    parts = []
    for repeat in range(repeats):
        fold = rng.permutation(np.arange(subjects) % folds)
        for m in range(models):
            latent = y + effect + rng.normal(0, 0.5 + 0.2 * m, subjects)
            proba = rng.dirichlet(np.ones(K), subjects)
            parts.append(
                pd.DataFrame(
                    {
                        "subject": np.arange(subjects),
                        "repeat": repeat,
                        "fold": fold,
                        "y": y,
                        "yhat": np.clip(np.round(latent), 0, K - 1).astype(int),
                        "model": f"m{m}",
                        **dict(zip(PROBA, proba.T)),
                    }
                )
            )
    return pd.concat(parts, ignore_index=True)


def cluster_ratio(subjects: int, replicates: int, repeat: int) -> list[str]:
    df = repeated_cv(subjects)
    common = {"sample": "subject", "strata": ["repeat", "fold"], "seed": 0}
    rows = []
    for label, call in (
        (
            "labels (`bootstrap`)",
            lambda **kw: df.ordinal.bootstrap("y", "yhat", model="model", n_resamples=replicates, **common, **kw),
        ),
        (
            "RPS and MAE (`evaluate(proba=..., n_resamples=)`)",
            lambda **kw: df.ordinal.evaluate(
                "y", "yhat", proba=PROBA, metrics=["rps", "mae"], by="model", n_resamples=replicates, **common, **kw
            ),
        ),
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # the repeated-CV warning of the baseline, which is the point
            paired = best(call, repeat)
        clustered = best(lambda: call(cluster="subject"), repeat)
        ratio = clustered / paired
        rows.append(
            f"| {label} | {paired:.3f} s | {clustered:.3f} s | **{ratio:.2f}** | <= 2: {'met' if ratio <= 2 else 'NOT met'} |"
        )
    return [
        f"## 1. Cluster bootstrap: 3 repeats x 5 folds x 3 models x {subjects:,} subjects ({len(df):,} rows), "
        f"{replicates:,} replicates",
        "",
        '| metrics | paired pattern bootstrap (strata drawn apart) | `cluster="subject"` | ratio | target |',
        "|---|---|---|---|---|",
        *rows,
        "",
    ]


def strata_ratio(samples: int, replicates: int, repeat: int) -> list[str]:
    rng = np.random.default_rng(0)
    small = 299 * 5
    y = rng.integers(0, 3, samples)
    parts = [
        pd.DataFrame({"s": np.arange(samples), "y": y, "yhat": rng.integers(0, 3, samples), "model": m}) for m in "ab"
    ]
    df = pd.concat(parts, ignore_index=True)
    df[["p0", "p1", "p2"]] = rng.dirichlet(np.ones(3), len(df))
    site = np.r_[np.zeros(samples - small, int), np.repeat(np.arange(1, 300), 5)]
    many = df.assign(site=np.tile(site, 2))
    one = df.assign(site=0)

    def run(frame):
        return frame.ordinal.evaluate(
            "y",
            "yhat",
            proba=["p0", "p1", "p2"],
            by="model",
            sample="s",
            strata="site",
            metrics=["mae", "rps"],
            n_resamples=replicates,
            seed=0,
        )

    single, uneven = best(lambda: run(one), repeat), best(lambda: run(many), repeat)
    ratio = uneven / single
    return [
        f"## 2. Stratified paired bootstrap with probabilities: 2 models x {samples:,} samples, {replicates:,} replicates",
        "",
        "| strata | time | ratio | target |",
        "|---|---|---|---|",
        f"| one stratum | {single:.3f} s | 1 | |",
        f"| 300 strata: one of {samples - small:,} samples, 299 of 5 | {uneven:.3f} s | **{ratio:.2f}** | "
        f"<= 2: {'met' if ratio <= 2 else 'NOT met'} |",
        "",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--subjects", type=int, default=20_000)
    parser.add_argument("--samples", type=int, default=21_495)
    parser.add_argument("--replicates", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat (seconds)")
    args = parser.parse_args()
    if args.smoke:
        args.subjects, args.samples, args.replicates, args.repeat = 300, 2000, 20, 1
    first = cluster_ratio(args.subjects, args.replicates, args.repeat)
    second = strata_ratio(args.samples, args.replicates, args.repeat)
    if args.smoke:
        print("bench_inference smoke: the cluster and stratified bootstraps ran")
        return
    out = ["# Benchmark: cluster and stratified paired bootstraps", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    out += ["", *first, *second]
    out += [
        'Reproduce with `pip install -e ".[bench]"` and '
        "`python benchmarks/bench_inference.py > benchmarks/results_inference.md` (`--help` for sizes)."
    ]
    print("\n".join(out))


if __name__ == "__main__":
    main()
