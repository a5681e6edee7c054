"""Size and power of the cross-validation tests under an algorithm-level null, with Monte-Carlo errors.

    python benchmarks/bench_cv_size.py --jobs 2 --output benchmarks/results_cv_size.md   # the full study
    python benchmarks/bench_cv_size.py --smoke                                           # the checks only (seconds)

Data sets of n = 150: a latent z ~ N(0, 1), cut into K = 5 equally likely ordinal classes. Two learners of the
same kind (least squares of the class position, rounded and clipped to the classes; 1-nearest-neighbour; a
decision tree of depth 4) are each fitted on their own noisy copy of the signal, x_m = z + s_m e_m, beside a
pure-noise feature. Under the null s_a = s_b = 0.8: the two *algorithms* are equal in distribution, though
their fitted models differ on every data set. Under the alternative s_a = 0.6 (model a is better).

Every data set is cross-validated with stratified r x k designs (1 x 5, 5 x 5, 10 x 5, 10 x 10; the splits of
scikit-learn's ``RepeatedStratifiedKFold``), the out-of-fold predictions go into one long frame, and ordframe
scores MAE per model, repeat and fold (``df.ordinal.evaluate(..., by=["model", "repeat", "fold"])``). The
tests at 5%, two-sided, on those J = r k fold values with ``test_train_ratio = 1 / (k - 1)``:

- ``corrected_ttest`` (Nadeau & Bengio 2003) with each rule for the degrees of freedom: J - 1 (Nadeau &
  Bengio 2003; the corrected repeated k-fold test of Bouckaert & Frank 2004), k - 1 (``df="fold"``, Bouckaert
  2003, who found the effective degrees of freedom of repeated cross-validation far below J - 1), and
  min(J - 1, 10), a fixed cap between the two;
- ``bayesian_correlated_ttest`` (Corani & Benavoli 2015, rope 0), a rejection where P(a better) or
  P(b better) > 0.975, with the same rules: with rope 0 it is the same decision as the t-test (checked on
  every data set);
- ``corrected_ci``: the interval of the fold differences, the same statistic (a rejection where the 95%
  interval excludes 0; checked on every data set of 5 x 5 against the t-test);
- ``df.ordinal.compare(..., cluster="subject")`` on the pooled predictions of 5 x 5 (the paired cluster
  bootstrap of the subjects), under the null: a test of the fitted models on these data.

Each rate is the share of the R data sets that reject, with its Monte-Carlo standard error
sqrt(q (1 - q) / R). The same data sets serve every learner and design (common random numbers).
"""

from __future__ import annotations

import argparse
import math
import sys
import time
import warnings
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr
from scipy.stats import norm

sys.path.insert(0, str(Path(__file__).resolve().parent))
from machine_info import emit, machine  # noqa: E402

import ordframe  # noqa: E402

N, K = 150, 5
NOISE, BETTER = 0.8, 0.6  # the noise of both learners' signal under the null; model a's under the alternative
ALPHA = 0.05
DESIGNS = ((1, 5), (5, 5), (10, 5), (10, 10))  # (repeats, folds)
LEARNERS = ("least squares", "1-NN", "tree")
RULES = ("J - 1", "k - 1", "min(J - 1, 10)")
COMPARE_DESIGN = (5, 5)


def df_of(rule: str, r: int, k: int):
    """The ``df=`` argument that gives each rule for r repeats of k folds."""
    return {"J - 1": r * k - 1, "k - 1": "fold", "min(J - 1, 10)": min(r * k - 1, 10)}[rule]


def data_set(rng: np.random.Generator, noise_a: float):
    """Ordinal classes y (0..K-1) and the two learners' features ``{"a": X_a, "b": X_b}``."""
    z = rng.standard_normal(N)
    y = np.searchsorted(norm.ppf(np.arange(1, K) / K), z)
    features = {
        m: np.column_stack([z + s * rng.standard_normal(N), rng.standard_normal(N)])
        for m, s in (("a", noise_a), ("b", NOISE))
    }
    return y, features


def fit_predict(learner: str, x_train, y_train, x_test) -> np.ndarray:
    from sklearn.linear_model import LinearRegression
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.tree import DecisionTreeClassifier

    if learner == "least squares":
        return LinearRegression().fit(x_train, y_train).predict(x_test).round().clip(0, K - 1).astype(int)
    model = KNeighborsClassifier(1) if learner == "1-NN" else DecisionTreeClassifier(max_depth=4, random_state=0)
    return model.fit(x_train, y_train).predict(x_test)


def cross_validate(learner: str, y, features, r: int, k: int, seed: int) -> pd.DataFrame:
    """The out-of-fold predictions of both models: one row per subject, repeat and model."""
    from sklearn.model_selection import RepeatedStratifiedKFold

    splits = RepeatedStratifiedKFold(n_splits=k, n_repeats=r, random_state=seed).split(features["a"], y)
    frames = []
    for split, (train, test) in enumerate(splits):
        for model, x in features.items():
            yhat = fit_predict(learner, x[train], y[train], x[test])
            frames.append(
                pd.DataFrame(
                    {
                        "subject": test,
                        "repeat": split // k,
                        "fold": split % k,
                        "model": model,
                        "y": y[test],
                        "yhat": yhat,
                    }
                )
            )
    return pd.concat(frames, ignore_index=True)


def tests(cv: pd.DataFrame, r: int, k: int) -> dict:
    """``{(test, rule): rejected}`` of one cross-validation, and the t statistic."""
    mae = cv.ordinal.evaluate("y", "yhat", by=["model", "repeat", "fold"], labels=range(K), metrics=["mae"])["mae"]
    dims = {"model_dim": "model", "dim": ["repeat", "fold"], "test_train_ratio": 1 / (k - 1)}
    out = {}
    for rule in RULES:
        df = df_of(rule, r, k)
        corrected = ordframe.corrected_ttest(mae, df=df, **dims).sel(metric="mae", model="a", versus="b")
        bayes = ordframe.bayesian_correlated_ttest(mae, df=df, **dims).sel(metric="mae", model="a", versus="b")
        out[("t", rule)] = bool(corrected["p_value"] < ALPHA)
        out[("bayes", rule)] = bool(max(bayes["p_model_better"], bayes["p_versus_better"]) > 1 - ALPHA / 2)
        if (r, k) == COMPARE_DESIGN:
            difference = mae.sel(model="a") - mae.sel(model="b")
            low, high = ordframe.corrected_ci(difference, dim=["repeat", "fold"], test_train_ratio=1 / (k - 1), df=df)
            out[("ci", rule)] = bool(low > 0 or high < 0)
    out["t_stat"] = float(corrected["t"])  # the same under every rule
    return out


def one_data_set(task) -> tuple:
    learner, index, stream, compare_b = task
    rng = np.random.default_rng(stream.spawn(1)[0])  # the splits and compare's draws
    seeds = rng.integers(2**31, size=len(DESIGNS))
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a class missing from a training fold (the tree, 1-NN)
        for hypothesis, noise_a in (("null", NOISE), ("alternative", BETTER)):
            y, features = data_set(np.random.default_rng(stream), noise_a)  # the same draws, a's noise scaled
            for (r, k), seed in zip(DESIGNS, seeds):
                cv = cross_validate(learner, y, features, r, k, int(seed))
                out[(hypothesis, r, k)] = tests(cv, r, k)
                if compare_b and hypothesis == "null" and (r, k) == COMPARE_DESIGN:
                    result = cv.ordinal.compare(
                        "y", "yhat", model="model", sample="subject", strata=["repeat", "fold"], cluster="subject",
                        labels=range(K), metrics=["mae"], n_resamples=compare_b, seed=rng,
                    )  # fmt: skip
                    out["compare"] = bool(result["p_value"].sel(metric="mae", model="a", versus="b") < ALPHA)
    return learner, index, out


def run(learners, r_sets: int, r_compare: int, b: int, jobs: int = 1, seed: int = 0, log: bool = True) -> dict:
    """``{learner: [per data set results]}``; data set i has the same random stream for every learner."""
    streams = np.random.SeedSequence(seed).spawn(r_sets)
    tasks = [(m, i, streams[i], b if i < r_compare else 0) for m in learners for i in range(r_sets)]
    results: dict = {m: [None] * r_sets for m in learners}
    start = time.perf_counter()
    with ProcessPoolExecutor(jobs) as pool:
        for done, (learner, index, out) in enumerate(pool.map(one_data_set, tasks, chunksize=4), 1):
            results[learner][index] = out
            if log and done % 50 == 0:
                print(
                    f"{done}/{len(tasks)} data sets, {time.perf_counter() - start:.0f} s", file=sys.stderr, flush=True
                )
    return results


def rate(hits) -> str:
    hits = np.asarray(hits, dtype=float)
    q = hits.mean()
    return f"{q:.3f} ({math.sqrt(q * (1 - q) / hits.size):.3f})"


def check(results: dict) -> None:
    """The Bayesian decision (rope 0) and the interval's are the t-test's, on every data set."""
    for sets in results.values():
        for out in sets:
            for key, tested in out.items():
                if isinstance(key, tuple):
                    for rule in RULES:
                        assert tested[("bayes", rule)] == tested[("t", rule)], (key, rule)
                        if ("ci", rule) in tested:
                            assert tested[("ci", rule)] == tested[("t", rule)], (key, rule)


def report(results: dict, r_compare: int, b: int, seconds: float, command: str) -> str:
    learners = list(results)
    r_sets = len(results[learners[0]])
    out = ["# Size and power of the cross-validation tests", "", "| machine | |", "|---|---|"]
    import sklearn

    out += [f"| {k} | {v} |" for k, v in machine([("scikit-learn", sklearn.__version__)])]
    default = ordframe.corrected_ttest(
        xr.DataArray(np.arange(12.0).reshape(2, 2, 3) ** 1.5, dims=("model", "repeat", "fold")),
        dim=["repeat", "fold"],
        test_train_ratio=0.5,
    ).attrs["df"]
    out += [
        "",
        f"R = {r_sets} data sets per cell (the same data sets for every learner and design), n = {N}, K = {K}; "
        f"a rate of 0.05 has a Monte-Carlo standard error of {math.sqrt(0.05 * 0.95 / r_sets):.4f}, each rate "
        f"is followed by its own in parentheses. Total time {seconds / 60:.1f} min. The default `df` of "
        f"`corrected_ttest`, `corrected_ci` and `bayesian_correlated_ttest` at the run: `{default}`. See the "
        "docstring of `benchmarks/bench_cv_size.py` for the construction.",
        "",
        f"Reproduce with `{command}`.",
        "",
        "## Size: rejections of a true algorithm-level null at 5% (noise 0.8 and 0.8)",
        "",
        "`corrected_ttest` with each rule for the degrees of freedom. `bayesian_correlated_ttest` "
        "(P > 0.975 either way, rope 0) made the same decision as the t-test with the same rule on every data "
        "set, and so did the `corrected_ci` interval of the differences at 5 x 5 (checked by the script): its "
        "column is the t-test's.",
        "",
        "| learner | r x k | J | " + " | ".join(f"df = {rule}" for rule in RULES) + " | SD of t |",
        "|---|---|---|" + "---|" * len(RULES) + "---|",
    ]
    worst = {rule: 0.0 for rule in RULES}
    for m in learners:
        for r, k in DESIGNS:
            cells = [out_[("null", r, k)] for out_ in results[m]]
            hits = {rule: [c[("t", rule)] for c in cells] for rule in RULES}
            for rule in RULES:
                worst[rule] = max(worst[rule], float(np.mean(hits[rule])))
            sd = np.std([c["t_stat"] for c in cells], ddof=1)
            out.append(
                f"| {m} | {r} x {k} | {r * k} | " + " | ".join(rate(hits[rule]) for rule in RULES) + f" | {sd:.2f} |"
            )
    out += [
        "",
        f"## Power: rejections at 5% when model a's noise is {BETTER} (b's {NOISE})",
        "",
        "| learner | r x k | " + " | ".join(f"df = {rule}" for rule in RULES) + " |",
        "|---|---|" + "---|" * len(RULES),
    ]
    for m in learners:
        for r, k in DESIGNS:
            cells = [out_[("alternative", r, k)] for out_ in results[m]]
            out.append(
                f"| {m} | {r} x {k} | " + " | ".join(rate([c[("t", rule)] for c in cells]) for rule in RULES) + " |"
            )
    out += [
        "",
        f'## `compare(cluster="subject")` on the pooled {COMPARE_DESIGN[0]} x {COMPARE_DESIGN[1]} predictions, '
        "under the null",
        "",
        f"The paired cluster bootstrap of the subjects (B = {b}), MAE, p < 0.05, on the first {r_compare} data sets:",
        "",
        "| learner | rejections |",
        "|---|---|",
    ]
    out += [f"| {m} | {rate([o['compare'] for o in results[m][:r_compare]])} |" for m in learners]
    out += [
        "",
        "## The rule",
        "",
        "Worst cell of each rule over every learner and design (the default must stay at or below 0.075): "
        + ", ".join(f"{rule}: {worst[rule]:.3f}" for rule in RULES)
        + ".",
    ]
    return "\n".join(out) + "\n"


def smoke() -> None:
    """Two data sets of least squares: the checks only (the Bayesian and interval decisions are the t-test's)."""
    results = run(("least squares",), 2, 1, 20, jobs=1, log=False)
    check(results)
    report(results, 1, 20, 0.0, "smoke")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", help="write the markdown report to this file (else print it)")
    parser.add_argument("--r", type=int, default=300, help="data sets per cell")
    parser.add_argument("--r-compare", type=int, default=200, help="data sets for compare(cluster=)")
    parser.add_argument("--b", type=int, default=200, help="bootstrap replicates of compare(cluster=)")
    parser.add_argument("--jobs", type=int, default=1, help="data sets run in this many processes")
    parser.add_argument("--learners", nargs="+", choices=LEARNERS, default=LEARNERS)
    parser.add_argument("--smoke", action="store_true", help="tiny sizes: the checks only (seconds)")
    args = parser.parse_args()
    if args.smoke:
        smoke()
        print("bench_cv_size smoke: the Bayesian and interval decisions are the t-test's")
        return
    start = time.perf_counter()
    results = run(args.learners, args.r, min(args.r_compare, args.r), args.b, jobs=args.jobs)
    check(results)
    command = "python benchmarks/bench_cv_size.py " + " ".join(sys.argv[1:])
    text = report(results, min(args.r_compare, args.r), args.b, time.perf_counter() - start, command)
    emit(text, args.output)


if __name__ == "__main__":
    main()
