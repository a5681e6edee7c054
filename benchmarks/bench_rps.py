"""Per-sample RPS: ordframe against one numpy.cumsum pass and against dlordinal's per-sample loop.

Run: python benchmarks/bench_rps.py [--n 10000000] [--k 5] [--loop-n 1000000]
     python benchmarks/bench_rps.py --smoke      # tiny sizes, the checks only (seconds)

Rows (best of --repeat runs, float64 throughout):

* ``numpy.cumsum`` -- the baseline: one cumulative sum over the (n, K) array.
* ``kernel`` -- ordframe.metrics.proba.rps through the proba bridge's blocked
  kernel (``ordframe._bridge.apply.proba_kernel``: what every accessor call
  runs after validation).
* ``accessor`` -- ``proba.ordinal.rps(true, dim=[])``: label encoding,
  validation of every row (range, sums, NaN) and the kernel.
* ``accessor mean`` -- ``proba.ordinal.rps(true)``, the mean over samples.
* ``dlordinal loop`` -- a port of dlordinal's ``ranked_probability_score``
  (dlordinal 2.x, ``dlordinal/metrics/metrics.py``): one-hot, cumulative sums,
  then a Python loop over samples. dlordinal imports torch, which is not
  installed here, so the function body is ported; it runs on --loop-n samples
  and ordframe's mean is timed on the same samples for the ratio.
* ``xskillscore.rps`` -- on the --loop-n samples too, if xskillscore is installed.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import resource
import subprocess
import time

import numpy as np
import xarray as xr

import ordframe
from ordframe._bridge.apply import prepare, proba_kernel
from ordframe.metrics.proba import rps


def dlordinal_rps(y_true, y_proba):
    """Port of dlordinal.metrics.ranked_probability_score: unnormalised RPS, mean over samples, per-sample loop."""
    y_true, y_proba = np.array(y_true), np.array(y_proba)
    onehot = np.zeros(y_proba.shape)
    onehot[np.arange(len(y_true)), y_true] = 1
    onehot, y_proba = onehot.cumsum(axis=1), y_proba.cumsum(axis=1)
    total = 0
    for i in range(len(y_true)):
        if y_true[i] in np.arange(y_proba.shape[1]):
            total += np.power(y_proba[i] - onehot[i], 2).sum()
        else:
            total += 1
    return total / len(y_true)


def numpy_rps(proba, true):
    """The baseline's values: per-sample RPS from cumulative sums, normalised by K - 1."""
    k = proba.shape[1]
    cdf = np.cumsum(proba, axis=1)[:, :-1]
    step = (np.arange(k - 1)[None, :] >= true[:, None]).astype(np.float64)
    return ((cdf - step) ** 2).sum(axis=1) / (k - 1)


def best(fn, repeat):
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def data(n, k, seed=0):
    rng = np.random.default_rng(seed)
    proba = rng.random((n, k))
    proba /= proba.sum(axis=1, keepdims=True)
    true = rng.integers(0, k, n)
    return proba, true


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=10_000_000)
    parser.add_argument("--k", type=int, default=5)
    parser.add_argument("--loop-n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one repeat: the checks only")
    args = parser.parse_args()
    if args.smoke:
        args.n, args.loop_n, args.repeat = 20_000, 2_000, 1
    n, k = args.n, args.k

    proba, true = data(n, k)
    proba_da = xr.DataArray(proba, dims=("sample", "class"), coords={"class": np.arange(k)})
    true_da = xr.DataArray(true, dims="sample")
    metric = ordframe.get_metric("rps")
    kernel = proba_kernel(metric, prepare(metric, {"normalize": True}, k))
    expected = numpy_rps(proba, true)
    np.testing.assert_allclose(kernel(proba, true), expected, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(proba_da.ordinal.rps(true_da, dim=[]).values, expected, rtol=1e-12, atol=1e-15)

    rows = {}
    rows["numpy.cumsum"] = best(lambda: np.cumsum(proba, axis=-1), args.repeat)
    rows["kernel"] = best(lambda: kernel(proba, true), args.repeat)
    rows["accessor"] = best(lambda: proba_da.ordinal.rps(true_da, dim=[]), args.repeat)
    rows["accessor mean"] = best(lambda: proba_da.ordinal.rps(true_da), args.repeat)
    np.testing.assert_allclose(kernel(proba, true), rps(proba, true), rtol=1e-12, atol=1e-15)

    m = args.loop_n
    small, small_true = proba[:m], true[:m]
    small_da, small_true_da = proba_da[:m], true_da[:m]
    loop = best(lambda: dlordinal_rps(small_true, small), 1)
    ours = best(lambda: small_da.ordinal.rps(small_true_da, normalize=False), args.repeat)
    assert np.isclose(
        dlordinal_rps(small_true[:1000], small[:1000]),
        small_da[:1000].ordinal.rps(small_true_da[:1000], normalize=False),
    )
    peers = {"dlordinal loop (port)": loop}
    try:
        import xskillscore as xs

        obs = xr.DataArray(np.eye(k)[small_true], dims=("sample", "category"))
        fct = small_da.rename({"class": "category"}).drop_vars("category")
        peers["xskillscore.rps"] = best(
            lambda: xs.rps(obs, fct, None, dim="sample", input_distributions="p").values, args.repeat
        )
    except ImportError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024

    cpu = subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines()
    model = next((line.split(":", 1)[1].strip() for line in cpu if line.startswith("Model name")), platform.processor())
    if args.smoke:
        print(f"bench_rps smoke: n = {n:,}; kernel and accessor equal the numpy cumsum RPS; dlordinal port agrees")
        return
    print(f"# per-sample RPS, n = {n:,}, K = {k}, float64")
    print(
        f"date {datetime.date.today()}, {model}, {os.cpu_count()} CPUs, numpy {np.__version__}, "
        f"xarray {xr.__version__}, python {platform.python_version()}, peak RSS {peak:.0f} MiB"
    )
    print()
    base = rows["numpy.cumsum"]
    print(f"| n = {n:,} | seconds | / numpy.cumsum |")
    print("|---|---|---|")
    for name, seconds in rows.items():
        print(f"| {name} | {seconds:.3f} | {seconds / base:.2f} |")
    print()
    print(f"| n = {m:,} (mean RPS, unnormalised) | seconds | / ordframe |")
    print("|---|---|---|")
    print(f"| ordframe accessor mean | {ours:.3f} | 1.00 |")
    for name, seconds in peers.items():
        print(f"| {name} | {seconds:.3f} | {seconds / ours:.1f} |")


if __name__ == "__main__":
    main()
