"""Brier/RPS decompositions (CORP and Murphy's binned) of n x K probabilities against one numpy.cumsum pass.

Run: python benchmarks/bench_calibration.py [--n 1000000] [--k 5] [--repeat 5] [--out results_calibration.md]
     python benchmarks/bench_calibration.py --smoke      # tiny sizes, the checks only (seconds)

Rows (the minimum process CPU time of --repeat interleaved runs, float64 throughout; every timed call is
single-threaded, and CPU time is what the other jobs of a shared machine disturb least):

* ``numpy.cumsum`` -- the baseline: ``numpy.cumsum(proba, axis=-1)`` over the (n, K) array.
* ``kernel corp`` / ``kernel binned`` -- ``ordframe.metrics.calibration.decompose``: every threshold's
  Brier decomposition and ECE (one sort per threshold; CORP adds an isotonic regression: a compiled PAV with
  the ``numba`` extra, scipy's without).
* ``kernel corp, weights`` -- the same with sample weights (argsort path).
* ``kernel corp, 10 groups`` -- ten groups at once (argsort, then a radix sort of the group codes).
* ``accessor corp`` -- ``proba.ordinal.calibration(true)``: validation of every row, labels, the kernel.
* ``floor: sorts`` / ``floor: sorts + isotonic`` -- what any exact method must do at least: sort each
  threshold's forecasts (a plain ``numpy.sort``, K - 1 of them), then (CORP) sort them with their outcomes and
  run one ``scipy.optimize.isotonic_regression`` on the outcomes in that order (the forecasts are distinct here).

Checks before timing: the RPS of the decomposition equals the cumsum RPS, the identity
score = MCB - DSC + UNC (and REL - RES + UNC) holds to 1e-12, and on the first 20,000 samples every
threshold's terms equal scipy's isotonic regression / Murphy's formulas computed threshold by threshold.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import numpy as np
import xarray as xr
from scipy.optimize import isotonic_regression

import ordframe  # noqa: F401
from ordframe.metrics.calibration import decompose

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from machine_info import emit, machine  # noqa: E402


def data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(k), n)
    return proba, rng.integers(0, k, n)


def reference(proba, true):
    """Per threshold, with one scipy isotonic regression and Murphy's sums on the distinct forecasts."""
    out = {"corp": [], "binned": []}
    for k in range(proba.shape[1] - 1):
        x = proba[:, : k + 1].sum(axis=1)
        y = (true <= k).astype(float)
        values, inverse = np.unique(x, return_inverse=True)
        n = np.bincount(inverse).astype(float)
        freq = np.bincount(inverse, y) / n
        base, score = y.mean(), np.mean((x - y) ** 2)
        unc = base * (1 - base)
        fitted = isotonic_regression(freq, weights=n).x[inverse]
        recal = np.mean((fitted - y) ** 2)
        out["corp"].append([score, score - recal, unc - recal, unc])
        rel = np.sum(n * (values - freq) ** 2) / len(x)
        res = np.sum(n * (freq - base) ** 2) / len(x)
        out["binned"].append([score, rel, res, unc])
    return {m: np.array(v) for m, v in out.items()}


def check(proba, true):
    k = proba.shape[1]
    cdf = np.cumsum(proba, axis=1)[:, :-1]
    step = (np.arange(k - 1)[None, :] >= true[:, None]).astype(np.float64)
    rps = np.mean(((cdf - step) ** 2).sum(axis=1) / (k - 1))
    small = reference(proba[:20_000], true[:20_000])
    for method in ("corp", "binned"):
        components, _ = decompose(proba, true, method=method)
        assert abs(components[0, :, 0].mean() - rps) < 1e-12
        identity = components[..., 0] - (components[..., 1] - components[..., 2] + components[..., 3])
        assert np.abs(identity).max() < 1e-12
        ours, _ = decompose(proba[:20_000], true[:20_000], method=method)
        np.testing.assert_allclose(ours[0], small[method], rtol=0, atol=1e-12)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--out", default=None, help="also write the report to this file")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat: the checks only")
    args = parser.parse_args()
    if args.smoke:
        args.n, args.repeat = 30_000, 1
    proba, true = data(args.n, args.k)
    check(proba, true)
    weights = np.random.default_rng(1).random(args.n) + 0.5
    groups = np.random.default_rng(2).integers(0, 10, args.n)
    proba_da = xr.DataArray(proba, dims=("sample", "class"), coords={"class": np.arange(args.k)})
    true_da = xr.DataArray(true, dims="sample")
    cdf = np.cumsum(proba[:, :-1], axis=1).T.copy()
    events = np.arange(args.k - 1)[:, None] >= true[None, :]

    def sorts():
        return [np.sort(c) for c in cdf]

    def sorts_isotonic():  # the outcomes in the forecasts' order (the sort of the packed keys), then PAV
        keys = [np.sort((c.view(np.uint64) << np.uint64(1)) | e) for c, e in zip(cdf, events)]
        return [isotonic_regression((key & np.uint64(1)).astype(np.float64)) for key in keys]

    runs = {
        "numpy.cumsum": lambda: np.cumsum(proba, axis=-1),
        "kernel corp": lambda: decompose(proba, true, method="corp"),
        "kernel binned": lambda: decompose(proba, true, method="binned"),
        "kernel corp, weights": lambda: decompose(proba, true, weights=weights, method="corp"),
        "kernel corp, 10 groups": lambda: decompose(proba, true, groups, 10, method="corp"),
        "accessor corp": lambda: proba_da.ordinal.calibration(true_da),
        "floor: sorts": sorts,
        "floor: sorts + isotonic": sorts_isotonic,
    }
    if args.smoke:
        for run in runs.values():
            run()
        print(f"bench_calibration smoke: n = {args.n:,}; RPS, identities and the per-threshold reference agree")
        return
    load_before = os.getloadavg()
    times = {name: np.inf for name in runs}
    for _ in range(args.repeat):  # interleaved, so that a burst of load hits every row alike
        for name, run in runs.items():
            start = time.process_time()
            run()
            times[name] = min(times[name], time.process_time() - start)
    load_after = os.getloadavg()
    base = times["numpy.cumsum"]
    out = [f"# Benchmark: calibration decompositions, n = {args.n:,}, K = {args.k}", "", "| machine | |", "|---|---|"]
    out += [f"| {k} | {v} |" for k, v in machine()]
    out += [f"| load average before / after | {load_before[0]:.2f} / {load_after[0]:.2f} |", ""]
    out += ["| run | CPU seconds | / numpy.cumsum |", "|---|---|---|"]
    out += [f"| {name} | {seconds:.3f} | {seconds / base:.2f} |" for name, seconds in times.items()]
    report = "\n".join(out) + "\n"
    emit(report, args.out)


if __name__ == "__main__":
    main()
