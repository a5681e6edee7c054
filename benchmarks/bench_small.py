"""Benchmark: small calls (one set of samples, one batch, one scorer call) against what a user would write instead.

Four sections, each timed per call in one run, interleaved round-robin:

* the functions like ``sklearn.metrics`` at n = 100 and 1,000, K = 5:
  ``ordframe.mae``, ``mae(labels=)``, ``qwk``, ``oc``, ``rps`` and
  ``df.ordinal.mae`` on a two-column frame, against scikit-learn's
  ``mean_absolute_error`` (the target's baseline) and ``cohen_kappa_score``,
  and numpy written by hand (a MAE one-liner; QWK from a bincount in four
  lines). "the labelled path" is ``ordframe.mae`` as it was computed before
  (a DataFrame of the vectors, its labelled cube, ``xarray.apply_ufunc``),
  composed from the same library functions;
* ``Accumulator.update`` per batch of 256 labels, K = 5, against numpy's
  ``bincount`` of the batch's cell codes added to a running total; with
  probabilities, against numpy's ``argmax`` counted the same way plus the sums
  of the probability kernels that the accumulator keeps, called directly;
* a confusion cube of ``CUBE_ROWS`` = 10^5 rows, K = 5, ``by=["model", "fold"]`` (4 models x 25 folds, int64
  columns), ``df.ordinal.confusion`` with ``labels=range(5)`` and with the classes inferred, against one
  ``numpy.bincount`` of the same rows' precomputed int64 cell codes: in the steady state (the compiled count,
  once a process's numpy counting has paid for it, ``_core/compiling.py``) and before the switch (numpy's
  count, what a process's first calls run); and the count alone (``count_cells`` of the four columns), so that
  the rest of a call, the front end, is the difference;
* scikit-learn scorers on a fitted ``DecisionTreeClassifier(max_depth=4)`` and
  a fold of 200 samples: ``ordframe.sklearn.make_scorer`` against
  scikit-learn's ``neg_mean_absolute_error`` scorer.

Process CPU time per call: each candidate runs in loops of about 0.05 s, the
minimum of ``--repeats`` loops. Every ordframe value is checked against its
baseline's (scikit-learn's MAE and QWK, numpy's counts and score sums).
``--baseline DIR`` also times the ordframe rows of the source tree in DIR
(``git archive COMMIT ordframe | tar -x -C DIR``, DIR named after the commit)
in a subprocess with ``PYTHONPATH=DIR``, right after, beside these. From a
checkout whose ``ordframe`` is not the one installed, run it with
``PYTHONPATH=.`` (the script's folder, not the checkout, comes first on
``sys.path``).

    python benchmarks/bench_small.py > benchmarks/results_small.md
    python benchmarks/bench_small.py --baseline DIR > benchmarks/results_small.md
    python benchmarks/bench_small.py --smoke      # tiny loops, the checks only
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import time
import warnings

import numpy as np
import pandas as pd
from machine_info import machine

import ordframe
from ordframe._core import compiling
from ordframe._inputs import counting
from ordframe.sklearn import make_scorer

K = 5
BATCH = 256
CUBE_ROWS, MODELS, FOLDS = 100_000, 4, 25
FOLD = 200
LOOP_SECONDS = 0.05


def labels(n: int, seed: int):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, K, n)
    return y, np.clip(y + rng.integers(-1, 2, n), 0, K - 1), rng.dirichlet(np.ones(K), n)


def numpy_qwk(y, p):
    counts = np.bincount(y * K + p, minlength=K * K).reshape(K, K).astype(float)
    expected = np.outer(counts.sum(axis=1), counts.sum(axis=0)) / counts.sum()
    weights = (np.arange(K)[:, None] - np.arange(K)[None, :]) ** 2
    return 1 - (weights * counts).sum() / (weights * expected).sum()


def labelled_path(y, p):
    """``ordframe.mae(y, p)`` as it was computed before the small path: a DataFrame, a labelled cube, apply_ufunc."""
    from ordframe._bridge.apply import apply_confusion, as_scalar
    from ordframe._inputs.frame import frame_rows
    from ordframe._inputs.selection import Selection
    from ordframe._inputs.vectors import PRED, TRUE, vectors_frame
    from ordframe._registry.manager import get_metric

    metric = get_metric("mae")
    frame, _ = vectors_frame(y, p)
    rows = frame_rows(frame, Selection(TRUE, PRED))
    return as_scalar(apply_confusion(metric, rows.cube(), {}), metric, rows.empty)


def function_rows(n: int, seed: int, baselines: bool) -> list[tuple[str, str, object]]:
    """``(section, name, call)`` of the functions at ``n`` samples, their results checked."""
    y, p, proba = labels(n, seed)
    frame = pd.DataFrame({"y": y, "yhat": p})
    section = f"functions, n = {n:,}"
    ours = [
        ("`ordframe.mae(y, p)`", lambda: ordframe.mae(y, p)),
        ("`ordframe.mae(y, p, labels=range(5))`", lambda: ordframe.mae(y, p, labels=range(K))),
        ("`ordframe.qwk(y, p)`", lambda: ordframe.qwk(y, p)),
        ("`ordframe.oc(y, p)`", lambda: ordframe.oc(y, p)),
        ("`ordframe.rps(y, proba)`", lambda: ordframe.rps(y, proba)),
        ('`df.ordinal.mae("y", "yhat")`', lambda: frame.ordinal.mae("y", "yhat")),
        ("the labelled path (`ordframe.mae` before)", lambda: labelled_path(y, p)),
    ]
    rows = [(section, name, call) for name, call in ours]
    if not baselines:
        return rows
    from sklearn.metrics import cohen_kappa_score, mean_absolute_error

    assert ordframe.mae(y, p) == mean_absolute_error(y, p) == labelled_path(y, p)
    assert abs(ordframe.qwk(y, p) - cohen_kappa_score(y, p, weights="quadratic")) < 1e-12
    assert abs(numpy_qwk(y, p) - ordframe.qwk(y, p)) < 1e-12
    return [
        (section, "numpy MAE one-liner", lambda: np.abs(y - p).mean()),
        (section, "numpy QWK (bincount + 4 lines)", lambda: numpy_qwk(y, p)),
        (section, "scikit-learn `mean_absolute_error`", lambda: mean_absolute_error(y, p)),
        (
            section,
            'scikit-learn `cohen_kappa_score(weights="quadratic")`',
            lambda: cohen_kappa_score(y, p, weights="quadratic"),
        ),
        *rows,
    ]


def accumulator_rows(seed: int, baselines: bool) -> list[tuple[str, str, object]]:
    """``(section, name, call)`` of ``Accumulator.update`` per batch and of the numpy floors, checked."""
    from ordframe._registry.manager import get_metric

    y, p, proba = labels(BATCH, seed)
    section = f"`Accumulator.update`, batches of {BATCH}, K = {K}"
    plain, grouped, scored = (ordframe.Accumulator(range(K)) for _ in range(3))
    rows = [
        (section, "`update(y, p)`", lambda: plain.update(y, p)),
        (section, "`update(y, p, epoch=0)`", lambda: grouped.update(y, p, epoch=0)),
        (section, "`update(y, y_proba=proba, epoch=0)`", lambda: scored.update(y, y_proba=proba, epoch=0)),
    ]
    if not baselines:
        return rows
    kept = [get_metric(str(name)) for name in ordframe.Accumulator(range(K))._proba_outputs]
    total, sums = np.zeros(K * K, np.int64), np.zeros(len(kept))

    def floor_labels():
        total[:] += np.bincount(y * K + p, minlength=K * K)

    def floor_proba():
        total[:] += np.bincount(y * K + proba.argmax(axis=1), minlength=K * K)
        sums[:] += [metric.func(proba, y, **metric.defaults).sum() for metric in kept]

    acc = ordframe.Accumulator(range(K))
    acc.update(y, y_proba=proba, epoch=0)
    floor_proba()
    result = acc.evaluate().sel(epoch=0)
    for metric, value in zip(kept, sums):
        assert abs(float(result[metric.name]) - value / BATCH) <= 1e-12 * abs(value)
    assert (acc.cube().sel(epoch=0).values.reshape(-1) == total).all()
    names = ", ".join(m.name for m in kept)
    return [
        (section, "numpy `bincount` accumulate", floor_labels),
        (section, f"numpy `argmax` + `bincount` + score sums ({names})", floor_proba),
        *rows,
    ]


def cube_frame(seed: int) -> pd.DataFrame:
    """``CUBE_ROWS`` rows of int64 labels and groups."""
    rng = np.random.default_rng(seed + 1)  # groups drawn apart from the labels
    y, p, _ = labels(CUBE_ROWS, seed)
    return pd.DataFrame(
        {"model": rng.integers(0, MODELS, CUBE_ROWS), "fold": rng.integers(0, FOLDS, CUBE_ROWS), "y": y, "yhat": p}
    )


@contextlib.contextmanager
def budget(seconds: float):
    """As in a process whose compiled routines take over after ``seconds`` of numpy work, none spent yet: 0, the
    steady state (every compiled routine at every size); infinite, the calls before the switch."""
    saved = compiling.COMPILED_SECONDS, compiling.SPENT
    compiling.COMPILED_SECONDS, compiling.SPENT = seconds, {}
    try:
        yield
    finally:
        compiling.COMPILED_SECONDS, compiling.SPENT = saved


def at_budget(seconds: float, call):
    """``call``, run under ``budget(seconds)``."""

    def run():
        with budget(seconds):
            return call()

    return run


def cube_calls(frame: pd.DataFrame) -> dict[str, object]:
    return {
        '`df.ordinal.confusion("y", "yhat", by=["model", "fold"], labels=range(5))`': lambda: frame.ordinal.confusion(
            "y", "yhat", by=["model", "fold"], labels=range(K)
        ),
        '`df.ordinal.confusion("y", "yhat", by=["model", "fold"])` (classes inferred)': lambda: frame.ordinal.confusion(
            "y", "yhat", by=["model", "fold"]
        ),
    }


def cube_rows(seed: int, baselines: bool) -> list[tuple[str, str, object]]:
    """``(section, name, call)`` of the confusion cube of ``CUBE_ROWS`` rows and of its bincount floor, checked."""
    frame = cube_frame(seed)
    section = f'confusion cube, {CUBE_ROWS:,} rows, K = {K}, `by=["model", "fold"]` ({MODELS * FOLDS} groups)'
    codes = [frame[name].to_numpy() for name in ("model", "fold", "y", "yhat")]
    calls = {
        **cube_calls(frame),
        "the count alone (`count_cells` of the four columns)": lambda: counting.count_cells(
            codes, [MODELS, FOLDS, K, K]
        ),
    }
    rows = [
        (section, f"{name}, {state}", at_budget(seconds, call))
        for state, seconds in (("steady state", 0.0), ("before the switch", np.inf))
        for name, call in calls.items()
    ]
    if not baselines:
        return rows
    cells = ((frame["model"].to_numpy() * FOLDS + frame["fold"].to_numpy()) * K + frame["y"].to_numpy()) * K
    cells += frame["yhat"].to_numpy()
    size = MODELS * FOLDS * K * K
    floor = np.bincount(cells, minlength=size)
    for _, _, call in rows:
        assert (np.asarray(call()).reshape(-1) == floor).all()
    return [(section, "numpy `bincount` of precomputed cell codes", lambda: np.bincount(cells, minlength=size)), *rows]


def count_before_switch(seed: int, calls: int = 20) -> float:
    """The seconds numpy's count takes of one cube call (the first of ``cube_calls``) before the switch, as the
    rule times them (wall)."""
    run = next(iter(cube_calls(cube_frame(seed)).values()))
    with budget(np.inf):
        for _ in range(calls):
            run()
        return compiling.SPENT[counting._count_compiled] / calls


def scorer_rows(seed: int, baselines: bool) -> list[tuple[str, str, object]]:
    """``(section, name, call)`` of scorer calls on one fold, checked."""
    from sklearn.tree import DecisionTreeClassifier

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(1000, 4))
    y = np.clip(np.round(X[:, 0] * 1.5 + 2 + rng.normal(size=1000) * 0.5), 0, K - 1).astype(int)
    model = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X[FOLD:], y[FOLD:])
    X_test, y_test = X[:FOLD], y[:FOLD]
    section = f"scikit-learn scorers, a fitted `DecisionTreeClassifier(max_depth=4)`, a fold of {FOLD}"
    rows = [
        (section, f'`make_scorer("{name}", labels=range(5))`', make_scorer(name, labels=range(K)))
        for name in ("mae", "qwk", "oc", "rps")
    ]
    rows = [(section, name, lambda s=s: s(model, X_test, y_test)) for section, name, s in rows]
    if not baselines:
        return rows
    from sklearn.metrics import get_scorer

    mae = get_scorer("neg_mean_absolute_error")
    assert make_scorer("mae", labels=range(K))(model, X_test, y_test) == mae(model, X_test, y_test)
    return [(section, "scikit-learn `neg_mean_absolute_error` scorer", lambda: mae(model, X_test, y_test)), *rows]


def cpu_times(rows, repeats: int, smoke: bool) -> dict[tuple[str, str], float]:
    """The minimum CPU time per call of each row, loops interleaved round-robin."""
    loops = {}
    for section, name, call in rows:
        call()  # compiled kernels and caches warm
        start, count = time.process_time(), 0
        while time.process_time() - start < (0.002 if smoke else LOOP_SECONDS / 5):
            call()
            count += 1
        loops[section, name] = 1 if smoke else max(1, count * 5)
    best = dict.fromkeys(loops, np.inf)
    for _ in range(repeats):
        for section, name, call in rows:
            number = loops[section, name]
            start = time.process_time()
            for _ in range(number):
                call()
            best[section, name] = min(best[section, name], (time.process_time() - start) / number)
    return best


def measure(seed: int, repeats: int, smoke: bool, baselines: bool) -> dict[tuple[str, str], float]:
    rows = [
        *function_rows(100, seed, baselines),
        *function_rows(1000, seed, baselines),
        *accumulator_rows(seed, baselines),
        *cube_rows(seed, baselines),
        *scorer_rows(seed, baselines),
    ]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no call here may warn
        return cpu_times(rows, repeats, smoke)


def baseline_times(directory: str, args) -> dict[tuple[str, str], float]:
    """The ordframe rows timed on the source tree in ``directory``, in a subprocess."""
    command = [sys.executable, __file__, "--json", "--repeats", str(args.repeats), "--seed", str(args.seed)]
    env = {**os.environ, "PYTHONPATH": os.path.abspath(directory)}
    out = subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout
    return {(section, name): t for section, name, t in json.loads(out)}


TARGETS = {
    "functions": ("scikit-learn `mean_absolute_error`", 1.0, "<= 1x (stretch: <= 50 us)"),
    "`Accumulator": ("numpy `bincount` accumulate", 20.0, "labels <= 20x"),
    "confusion cube": ("numpy `bincount` of precomputed cell codes", 4.0, "<= 4x"),
    "scikit-learn scorers": ("scikit-learn `neg_mean_absolute_error` scorer", None, "reported"),
}


def report(times, before, load, args, count_seconds: float) -> str:
    out = ["# Benchmark: small calls", ""]
    out += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in machine()]
    out += [
        f"| load average (1 min) before / after | {load:.2f} / {os.getloadavg()[0]:.2f} |",
        "",
        f"Process CPU time per call, the minimum of {args.repeats} loops of about {LOOP_SECONDS} s each, every "
        "candidate interleaved round-robin in one run; the ratio is over the section's baseline in the same run. "
        "Every ordframe value is checked against its baseline's.",
    ]
    if before:
        tree = os.path.basename(os.path.normpath(args.baseline))
        out += [
            "",
            f'"before" is the same rows on the tree `{tree}` (`--baseline`), timed right after in a subprocess.',
        ]
    sections = list(dict.fromkeys(section for section, _ in times))
    for section in sections:
        key = next(k for k in TARGETS if section.startswith(k))
        baseline, _, target = TARGETS[key]
        proba_floor = next((n for s, n in times if s == section and n.startswith("numpy `argmax`")), None)
        out += [
            "",
            f"## {section}",
            "",
            f"Target: {target}" + ("; probabilities <= 3x their floor" if proba_floor else "") + ".",
            "",
        ]
        header = "| candidate | us per call | / baseline |" + (" before: us | before / baseline |" if before else "")
        out += [header, "|---|---|---|" + ("---|---|" if before else "")]
        base = times[section, baseline]
        for (s, name), t in times.items():
            if s != section:
                continue
            ref = times[section, proba_floor] if proba_floor and "y_proba" in name else base
            line = f"| {name} | {t * 1e6:,.1f} | {t / ref:.2f} |"
            if before:
                b = before.get((section, name))
                line += " |" * 2 if b is None else f" {b * 1e6:,.1f} | {b / ref:.2f} |"
            out.append(line)
        if key == "confusion cube":
            out += [
                "",
                f"Before the switch, numpy's count takes {count_seconds * 1e3:.2f} ms of each call (wall): a loop of "
                f"such calls switches to the compiled count after about {compiling.COMPILED_SECONDS / count_seconds:,.0f} "
                f"calls (`COMPILED_SECONDS` = {compiling.COMPILED_SECONDS} s of counting), and from then on runs the "
                "steady state.",
            ]
    out += [
        "",
        "Reproduce with `python benchmarks/bench_small.py > benchmarks/results_small.md` (`--baseline DIR`, "
        "`--repeats`, `--seed`).",
    ]
    return "\n".join(out)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--baseline", help="a source tree whose ordframe rows are timed beside these")
    parser.add_argument("--json", action="store_true", help="print the ordframe rows' times as JSON (for --baseline)")
    parser.add_argument("--smoke", action="store_true", help="tiny loops: the checks only")
    args = parser.parse_args(argv)
    if args.json:
        times = measure(args.seed, args.repeats, False, baselines=False)
        print(json.dumps([[s, n, t] for (s, n), t in times.items()]))
        return 0
    load = os.getloadavg()[0]
    times = measure(args.seed, 1 if args.smoke else args.repeats, args.smoke, baselines=True)
    count_seconds = count_before_switch(args.seed, 1 if args.smoke else 20)
    if args.smoke:
        print("bench_small smoke: every small call equals its baseline's value")
        return 0
    before = baseline_times(args.baseline, args) if args.baseline else {}
    print(report(times, before, load, args, count_seconds))
    return 0


if __name__ == "__main__":
    sys.exit(main())
