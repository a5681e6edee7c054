"""``ordframe demo``: three kinds of ordinal model on the bundled data sets, evaluated the ordinal way.

On every bundled data set, repeated stratified train/test splits
(``ordframe.sklearn.cross_val_frame``) train

* a multiclass logistic regression (class order ignored),
* the Frank & Hall decomposition (K - 1 binary "is the class above k?"
  logistic regressions; Frank & Hall 2001, Cardoso & Sousa 2011, Sec. 4.4,
  an ordinal model), and
* a ridge regression on the class index, rounded and clipped to the classes,

then evaluates every test set at once (one cube per data set, model and
repetition), averages over repetitions with xarray, ranks the models over the
data sets (Friedman test, Demšar 2006) and compares them within each data
set with the corrected resampled t-test (Nadeau & Bengio 2003). It prints a
summary and writes the results (netCDF and CSV) to a folder, which is
checked before the training starts. Needs scikit-learn (``pip install
"ordframe[demo]"``). In a terminal, a progress bar on standard error follows
each data set's training.
"""

from __future__ import annotations

import importlib.util
import sys
import tempfile
import textwrap
import time
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ordframe import datasets
from ordframe._bridge.evaluate import evaluate_frame
from ordframe._cli.console import WIDTH
from ordframe._cli.wording import UsageError
from ordframe._inference.friedman import friedman
from ordframe._inference.ttest import corrected_ci, corrected_ttest
from ordframe._inputs.frame import frame_rows
from ordframe._inputs.selection import Selection

METRICS = {  # the indices printed, with what a newcomer needs to read them
    "accuracy": "share of exact predictions",
    "mae": "mean absolute error, in classes",
    "qwk": "quadratic weighted kappa: agreement beyond chance, far errors weigh more",
    "oc": "Ordinal Classification Index (Cardoso & Sousa 2011): errors and their order in one number",
    "uoc": "OC with every true class weighted equally (Silva et al. 2018): rare classes count fully",
    "rint": "agreement of the true and predicted order over pairs of samples (Pinto da Costa et al. 2008)",
}
TEST_SIZE = 0.3


def predictions(names: list[str], reps: int, progress: bool | None = None) -> dict[str, pd.DataFrame]:
    """Per data set, the test-set predictions of every model and repetition, by ``cross_val_frame``.

    ``progress``: a bar over each data set's fits (``None``: in a terminal, for a run of more than a few seconds).
    """
    from sklearn.model_selection import StratifiedShuffleSplit

    from ordframe._cli.demo_models import models
    from ordframe.sklearn import cross_val_frame

    out = {}
    with warnings.catch_warnings():
        # tiny classes: sklearn's stratification warns; rounded_ridge has no probabilities, which the demo does not use
        warnings.simplefilter("ignore", UserWarning)
        for name in names:
            frame = datasets.load(name)
            target = datasets.DATASETS[name].target
            x, codes = frame.drop(columns=target).to_numpy(dtype=np.float64), frame[target].cat.codes.to_numpy()
            classes = list(frame[target].cat.categories)
            splits = StratifiedShuffleSplit(n_splits=reps, test_size=TEST_SIZE, random_state=0)
            # on the class codes: the models take the class order from sorted labels, which "L" < "B" < "R" is not
            table = cross_val_frame(models(), x, codes, labels=range(len(classes)), cv=splits, progress=progress)
            out[name] = pd.DataFrame(
                {
                    "rep": table.groupby(["repeat", "fold"]).ngroup(),  # the split (its test sets overlap: repeats)
                    "model": table["model"].astype(str),  # text: the results list the models by name
                    "y": table["true"].cat.rename_categories(classes),
                    "yhat": table["pred"].cat.rename_categories(classes),
                }
            )
    return out


def evaluate_all(tables: dict[str, pd.DataFrame]) -> xr.Dataset:
    """Every metric with dims (dataset, model, rep): each data set evaluated with its own classes."""
    parts = [evaluate_frame(t, Selection("y", "yhat", by=["model", "rep"]), list(METRICS)) for t in tables.values()]
    return xr.concat(parts, dim=pd.Index(list(tables), name="dataset"), combine_attrs="drop_conflicts")


def summary(results: xr.Dataset) -> str:
    """The printed report: mean and interval over repetitions per data set, ranks over data sets, pairwise tests."""
    lines = []
    mean = results.mean("rep")
    ratio = TEST_SIZE / (1 - TEST_SIZE)
    interval = corrected_ci(results, dim="rep", test_train_ratio=ratio)
    for dataset in results["dataset"].values:
        table = pd.DataFrame(
            {
                model: [
                    "{:.3f} [{:.3f}, {:.3f}]".format(
                        float(mean[m].sel(dataset=dataset, model=model)),
                        *interval[m].sel(dataset=dataset, model=model).values,
                    )
                    for m in METRICS
                ]
                for model in results["model"].values
            },
            index=[f"{m} {'↑' if results[m].attrs['higher_is_better'] else '↓'}" for m in METRICS],
        )
        lines += [f"{dataset}: mean [95% interval] over {results.sizes['rep']} test sets", table.to_string(), ""]
    lines += [
        "↑ higher is better, ↓ lower is better. Intervals: corrected resampled t (Nadeau & Bengio 2003),",
        "which allows for the training data that the splits share. The indices:",
        *(f"  {m:<10}{text}" for m, text in METRICS.items()),
        "Indices can rank models differently: uoc weighs a rare class as much as a common one.",
        "",
    ]
    ranks = friedman(mean, model_dim="model", dim="dataset")
    p_values = ranks["iman_davenport_p_value"].to_series()  # Demšar's recommendation: the chi-square is conservative
    significant = [str(m) for m, p in p_values.items() if p < 0.05]
    lines += [
        f"Average rank over the {results.sizes['dataset']} data sets (1 = best, in each metric's direction; "
        "Friedman test, Demšar 2006):",
        ranks["average_rank"].to_pandas().round(2).to_string(),
        "Friedman test p-values (Iman-Davenport F): " + ", ".join(f"{m} {p:.3f}" for m, p in p_values.items()) + ".",
        *textwrap.wrap(
            (
                f"The models differ significantly (p < 0.05) in {', '.join(significant)}"
                if significant
                else "No metric shows a significant difference between the models (all p >= 0.05)"
            )
            + f"; two models' average ranks must differ by at least {float(ranks['critical_difference'].max()):.2f} "
            "(Nemenyi) to be told apart.",
            width=WIDTH,
        ),
        "",
    ]
    pair = {"model": "frank_hall", "versus": "logistic"}
    tests = corrected_ttest(results[["mae", "oc"]], model_dim="model", dim="rep", test_train_ratio=ratio).sel(pair)
    table = pd.DataFrame(
        {
            f"{m} difference [95% interval]": [
                "{:+.3f} [{:+.3f}, {:+.3f}]  p = {:.3f}".format(
                    float(part["difference"]), *part["interval"].values, float(part["p_value"])
                )
                for part in (tests.sel(metric=m, dataset=d) for d in results["dataset"].values)
            ]
            for m in ("mae", "oc")
        },
        index=pd.Index(results["dataset"].values, name="dataset"),
    )
    lines += [
        "Frank & Hall minus logistic regression, paired over the same test sets (corrected resampled t-test,",
        "Nadeau & Bengio 2003; lower is better for both, so a negative difference favours Frank & Hall):",
        table.to_string(),
    ]
    return "\n".join(lines)


RESULT_FILES = ("results.nc", "results.csv")


def results_folder(out: str) -> Path:
    """The ``--out`` folder, created and checked for writing before anything is trained."""
    folder = Path(out)
    if folder.exists() and not folder.is_dir():
        raise UsageError(
            f"--out {out} is a file; the demo writes a folder of results (results.nc, results.csv, figures): "
            "name a folder, e.g. --out ordframe-demo"
        )
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=folder):
            pass
    except OSError as exc:
        raise UsageError(f"--out {out}: cannot write the results there: {exc.strerror or exc}") from None
    taken = [name for name in RESULT_FILES if (folder / name).is_dir()]
    if taken:
        raise UsageError(
            f"--out {out}: {', '.join(taken)} there is a folder, and the demo writes a file of that name: "
            "remove it, or name another folder"
        )
    return folder


def run(out: str = "ordframe-demo", reps: int = 5, quick: bool = False, stream=sys.stdout) -> int:
    """Train, evaluate, summarise and write the results; the exit code."""
    if importlib.util.find_spec("sklearn") is None:  # looked for, not imported: that takes a while
        raise UsageError('the demo needs scikit-learn: pip install "ordframe[demo]"')
    folder = results_folder(out)
    names = ["lev", "swd", "esl"] if quick else list(datasets.DATASETS)
    reps = 3 if quick else reps
    start = time.perf_counter()
    print(
        f"Training 3 models on {len(names)} bundled data sets, {reps} stratified train/test splits each "
        f"({1 - TEST_SIZE:.0%} train, {TEST_SIZE:.0%} test) ...",
        file=stream,
    )
    stream.flush()  # before the progress bars, which go to standard error
    tables = predictions(names, reps, progress=sys.stderr.isatty())  # the demo takes longer than a bar's threshold
    results = evaluate_all(tables)
    print(f"... done in {time.perf_counter() - start:.0f} s.\n", file=stream)
    print(summary(results), file=stream)
    netcdf, table = RESULT_FILES
    results.to_netcdf(folder / netcdf)
    results.to_dataframe().to_csv(folder / table)
    written = [netcdf, table, *plots(tables, results, folder)]
    print(
        f"\nResults written to {folder.resolve()}/:", *textwrap.wrap(", ".join(written), WIDTH), sep="\n  ", file=stream
    )
    return 0


def demo(args, out) -> int:
    """Run the demo (``ordframe demo``)."""
    if args.reps < 2:
        raise UsageError(f"--reps must be at least 2 (the intervals need two test sets), got {args.reps}")
    return run(args.out, reps=args.reps, quick=args.quick, stream=out)


def plots(tables: dict[str, pd.DataFrame], results: xr.Dataset, folder: Path) -> list[str]:
    """PNG figures, if matplotlib is installed: confusion matrices with their OC paths, fold spreads, ranks."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return []
    from ordframe import plot

    names = []
    for name in list(tables)[:2]:
        cube = frame_rows(tables[name], Selection("y", "yhat", by="model")).cube()  # every repetition's test set pooled
        figure = plot.confusion(cube, normalize="true", path="oc")
        figure.suptitle(
            f"{name}: the test sets of all repetitions pooled (so OC differs a little from the mean), rows normalised"
        )
        names.append(f"confusion_{name}.png")
        figure.savefig(folder / names[-1], dpi=110, bbox_inches="tight")
    first = list(tables)[0]
    figure = plot.distribution(results["oc"].sel(dataset=first), model_dim="model", dim="rep")
    figure.axes[0].set_title(f"{first}: OC on each of the {results.sizes['rep']} test sets, per model")
    names.append("oc_over_repetitions.png")
    figure.savefig(folder / names[-1], dpi=110, bbox_inches="tight")
    figure = plot.critical_difference(friedman(results.mean("rep"), model_dim="model", dim="dataset"), metric="oc")
    names.append("critical_difference_oc.png")
    figure.savefig(folder / names[-1], dpi=110, bbox_inches="tight")
    plt.close("all")
    return names
