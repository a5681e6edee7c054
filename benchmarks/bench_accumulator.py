"""Benchmark: ``ordframe.Accumulator`` in a loop over batches, against numpy counting the same batches.

An epoch of ``--samples`` samples (K = 5) is fed batch by batch, with one
group value per batch (``epoch=0``), for several batch sizes:

* labels only: ``acc.update(y, yhat, epoch=0)``, against the floor of one
  ``numpy.bincount`` of the batch's precomputed cell codes added to a running
  total;
* probabilities: ``acc.update(y, y_proba=p, epoch=0)`` (the accumulator keeps
  the sums of every probability metric's scores), against the floor of the
  bincount of the most probable classes plus those metrics' kernels called on
  the batch directly.

Process CPU time per sample, minimum of ``--repeats`` epochs. The
accumulator's cube and scores are checked against the whole epoch's.
``--baseline DIR`` also runs the same on the source tree in DIR (``git
archive COMMIT ordframe | tar -x -C DIR``) in a subprocess with
``PYTHONPATH=DIR``, right after, and reports its ratios beside these (each
over the floors of its own run). From a checkout whose ``ordframe`` is not
the one installed, run it with ``PYTHONPATH=.``.

    python benchmarks/bench_accumulator.py > benchmarks/results_accumulator.md
    python benchmarks/bench_accumulator.py --baseline DIR > benchmarks/results_accumulator.md
    python benchmarks/bench_accumulator.py --smoke      # tiny sizes, the checks only
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

import numpy as np
import pandas as pd
from machine_info import machine

import ordframe
from ordframe._registry.manager import get_metric

K = 5
KERNELS = [get_metric(name).func for name in ordframe.Accumulator(range(K))._proba_outputs]


def epoch_data(n: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    yhat = np.clip(y + rng.integers(-1, 2, n), 0, K - 1)
    return y, yhat, rng.dirichlet(np.ones(K), n)


def cpu(func, repeats: int) -> float:
    best = np.inf
    for _ in range(repeats):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return best


def run(n: int, batch: int, repeats: int, seed: int) -> dict:
    y, yhat, p = epoch_data(n, seed)
    starts = range(0, n, batch)

    def floor_labels():
        total = np.zeros(K * K, np.int64)
        for s in starts:
            total += np.bincount(y[s : s + batch] * K + yhat[s : s + batch], minlength=K * K)
        return total

    def floor_proba():
        total, scores = np.zeros(K * K, np.int64), np.zeros(len(KERNELS))
        for s in starts:
            pb, yb = p[s : s + batch], y[s : s + batch]
            total += np.bincount(yb * K + pb.argmax(axis=1), minlength=K * K)
            scores += [kernel(pb, yb).sum() for kernel in KERNELS]
        return total, scores

    def labels():
        acc = ordframe.Accumulator(range(K))
        for s in starts:
            acc.update(y[s : s + batch], yhat[s : s + batch], epoch=0)
        return acc

    def probabilities():
        acc = ordframe.Accumulator(range(K))
        for s in starts:
            acc.update(y[s : s + batch], y_proba=p[s : s + batch], epoch=0)
        return acc

    cube = labels().cube().sel(epoch=0).values
    np.testing.assert_array_equal(cube.reshape(-1), floor_labels())
    frame = pd.DataFrame({"y": y, **{f"p{k}": p[:, k] for k in range(K)}})
    expected = frame.ordinal.evaluate("y", proba=[f"p{k}" for k in range(K)], labels=list(range(K)))
    result = probabilities().evaluate().sel(epoch=0)
    for name in expected:
        np.testing.assert_allclose(float(result[name]), float(expected[name]), rtol=1e-12)
    return {
        "batch": batch,
        "floor labels": cpu(floor_labels, repeats) / n,
        "labels": cpu(labels, repeats) / n,
        "floor proba": cpu(floor_proba, repeats) / n,
        "proba": cpu(probabilities, repeats) / n,
    }


def baseline_results(directory: str, args) -> list[dict]:
    """The results of the source tree in ``directory``, run the same way in a subprocess."""
    command = [sys.executable, __file__, "--json", "--samples", str(args.samples), "--repeats", str(args.repeats)]
    command += ["--seed", str(args.seed), "--batches", *map(str, args.batches)]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(directory)}
    return json.loads(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=100_000)
    parser.add_argument("--batches", type=int, nargs="+", default=[64, 256, 4096])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", help="a source tree run the same way, its ratios reported beside these")
    parser.add_argument("--json", action="store_true", help="print the results as JSON (for --baseline)")
    parser.add_argument("--smoke", action="store_true", help="tiny sizes, one run: the checks only")
    args = parser.parse_args(argv)
    if args.smoke:
        args.samples, args.batches, args.repeats = 2_000, [256], 1
    load = os.getloadavg()
    results = [run(args.samples, b, args.repeats, args.seed) for b in args.batches]
    if args.json:
        print(json.dumps(results))
        return 0
    if args.smoke:
        print("bench_accumulator smoke: the accumulated cube and scores equal those of the whole epoch")
        return 0
    before = {r["batch"]: r for r in baseline_results(args.baseline, args)} if args.baseline else {}
    out = ["# Benchmark: `ordframe.Accumulator` over batches", ""]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine()]
    out += [
        f"| load average (1 min) before / after | {load[0]:.2f} / {os.getloadavg()[0]:.2f} |",
        "",
        f"One epoch of {args.samples:,} samples, K = {K}, fed batch by batch with `epoch=0`. Process CPU time per "
        f"sample, minimum of {args.repeats} epochs. Floors: numpy on the same batches (one `bincount` of "
        "precomputed cell codes; with probabilities, the bincount of the most probable classes and every "
        "probability metric's kernel called directly). The accumulator checks every batch as the accessors check a DataFrame (missing values, labels outside the "
        "classes, probabilities), which is what its time per batch buys.",
        "",
    ]
    if before:
        tree = os.path.basename(os.path.normpath(args.baseline))
        out += [f'"before" is the same on the tree `{tree}` (`--baseline`), run right after in a subprocess.', ""]
    out += [
        "| batch | labels: floor | `update(y, yhat)` | / floor | per batch | probabilities: floor | "
        "`update(y, y_proba=p)` | / floor | per batch |"
        + (" before: labels / floor | before: probabilities / floor |" if before else ""),
        "|---|---|---|---|---|---|---|---|---|" + ("---|---|" if before else ""),
    ]
    for r in results:
        b = r["batch"]
        line = (
            f"| {b:,} | {r['floor labels'] * 1e9:.0f} ns | {r['labels'] * 1e9:.0f} ns | "
            f"{r['labels'] / r['floor labels']:.1f} | {r['labels'] * b * 1e3:.3f} ms | "
            f"{r['floor proba'] * 1e9:.0f} ns | {r['proba'] * 1e9:.0f} ns | {r['proba'] / r['floor proba']:.2f} | "
            f"{r['proba'] * b * 1e3:.3f} ms |"
        )
        if b in before:
            old = before[b]
            line += f" {old['labels'] / old['floor labels']:.1f} | {old['proba'] / old['floor proba']:.2f} |"
        out.append(line)
    out += [
        "",
        "Reproduce with `python benchmarks/bench_accumulator.py > benchmarks/results_accumulator.md` "
        "(`--baseline DIR`, `--samples`, `--batches`, `--repeats`, `--seed`).",
    ]
    print("\n".join(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
