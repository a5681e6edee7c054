"""The ``ordframe`` command: ``score`` a prediction file or write its ``report``, ``demo``, ``reproduce`` the papers'
values, list ``metrics``.

Errors are one line on standard error and a non-zero exit code, never a
traceback: 2 for a mistake in the command line or the input (and for an
output that cannot be written), 1 when a metric's kernel fails (a fault of
its plugin). A closed output pipe (``ordframe score ... | head``) ends quietly.

The parser is built from light modules only; each command imports what it
needs (pandas, xarray, the metrics) when it runs, so ``--help`` and
``--version`` cost no more than the package's own import.
"""

from __future__ import annotations

import argparse
import sys
import warnings

from ordframe._cli.console import Output, discard_stdout, say
from ordframe._cli.formats import FORMATS, WRITES
from ordframe._cli.wording import OutputError, UsageError, for_the_command_line, plugin_failure
from ordframe._registry.interval_methods import INTERVAL_METHODS, methods
from ordframe._registry.request import METRIC_SETS


class _Version(argparse.Action):
    """``--version``: read from the installed package's metadata when asked, not when the parser is built."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from importlib.metadata import version

        print(f"ordframe {version('ordframe')}")
        parser.exit()


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(prog="ordframe", description="Order-aware evaluation of ordinal classifiers.")
    main_parser.add_argument("--version", action=_Version, help="show the version and exit")
    commands = main_parser.add_subparsers(dest="command", required=True)
    options = argparse.ArgumentParser(add_help=False)  # what score and report read: the file and its columns
    options.add_argument(
        "file", help="a CSV or Parquet file with one row per prediction ('-' or /dev/stdin: standard input)"
    )
    options.add_argument("--true", help="the column of true labels")
    options.add_argument("--pred", help="the column of predicted labels")
    options.add_argument("--proba", nargs="+", metavar="COL", help="probability columns, in class order")
    options.add_argument(
        "--marker", metavar="COL", help="a continuous score per row, for the score metrics (orc, vus, ...; default all)"
    )
    options.add_argument("--by", nargs="+", metavar="COL", help="one result per combination of these columns")
    options.add_argument(
        "--metrics",
        nargs="+",
        metavar="NAME",
        help="metric names, with parameters as in 'oc[beta=0.25]' (quote it for the shell; a value from a file: "
        "'d[cost=@costs.json]'), or 'all' "
        f"(default: {' '.join(METRIC_SETS['core'])}, and {' '.join(METRIC_SETS['core_proba'])} with --proba)",
    )
    options.add_argument(
        "--labels",
        nargs="+",
        metavar="LABEL",
        help="the classes in order, lowest first (numbers for a numeric column, False True for a boolean one)",
    )
    options.add_argument(
        "--sep",
        metavar="SEP",
        help="the CSV file's separator: one character, or 'tab' (default: found in the file: ',', ';' or tab)",
    )
    options.add_argument(
        "--decimal", metavar="CHAR", help="the CSV file's decimal mark, e.g. ',' for 0,25 (default '.')"
    )
    options.add_argument(
        "--na-values",
        nargs="+",
        metavar="STR",
        help="strings that mean a missing value in the CSV file, e.g. NA (default: an empty field; in number "
        "columns such as --proba also pandas' NA, NaN, null, ...). Label columns (--true, --pred, --by, --sample, "
        "--strata, --cluster) keep every other value, so a class called None or NA stays a class",
    )
    options.add_argument(
        "--n-resamples",
        type=int,
        metavar="N",
        help="add confidence intervals (columns _low, _high) from N bootstrap replicates",
    )
    options.add_argument("--level", type=float, help="the confidence level of --n-resamples intervals (default 0.95)")
    options.add_argument(
        "--ci",
        choices=["auto", *methods("frame")],
        help="the interval of --n-resamples: auto (each metric's own, chosen by coverage: calibrated for OC), "
        + ", ".join(f"{name} ({INTERVAL_METHODS[name].description})" for name in methods("frame"))
        + f"; default auto; with --compare, auto is percentile and only {', '.join(methods('differences'))} apply",
    )
    options.add_argument(
        "--sample",
        metavar="COL",
        help="with --n-resamples: the column naming each sample across the --by models (a paired bootstrap); "
        "with --fold: the samples whose training labels fit the baselines",
    )
    options.add_argument(
        "--strata",
        nargs="+",
        metavar="COL",
        help="with --n-resamples: columns whose groups are resampled apart, e.g. fold (scored together)",
    )
    options.add_argument(
        "--cluster",
        metavar="COL",
        help="with --n-resamples: the column of clusters drawn whole (patients, subjects: a repeated CV's rows)",
    )
    options.add_argument(
        "--fold",
        metavar="COL",
        help="the column of the cross-validation folds: the constant baselines of each fold's training labels "
        "(majority, prior, median) are added as --by models, and a metric that ranks one above a model is flagged; "
        "needs --sample (or --cluster) naming each sample",
    )
    options.add_argument(
        "--repeat", metavar="COL", help="with --fold: the column of the repeats of a repeated cross-validation"
    )
    options.add_argument(
        "--no-baselines",
        dest="baselines",
        action="store_false",
        help="with --fold: do not add the constant baselines",
    )
    options.add_argument(
        "--seed", type=int, default=0, help="random seed of the bootstrap, a whole number >= 0 (default 0)"
    )
    options.add_argument(
        "--renormalize", action="store_true", help="divide each row of --proba values by its sum instead of requiring 1"
    )
    options.add_argument(
        "--dropna",
        action="store_true",
        help="drop rows with a missing label, group value or probability from every metric (the count is reported)",
    )
    scorer = commands.add_parser(
        "score",
        parents=[options],
        help="score a prediction file (CSV or Parquet)",
        description="Score a prediction file (CSV or Parquet): one row of metrics per --by group.",
        epilog="Errors are one line on standard error, with exit code 2 for a mistake in the options or the file, "
        "and 1 when a metric's kernel fails (a fault of its plugin).",
    )
    scorer.add_argument(
        "--compare",
        action="store_true",
        help="with --n-resamples and one --by column of two models or more: compare every pair (differences, intervals, "
        "p-values adjusted by Holm's method) instead of scoring each",
    )
    scorer.add_argument(
        "--format",
        choices=FORMATS,
        help=f"output format (default: what the --out file's extension names, of {WRITES}; else table); "
        "parquet and netcdf go only to a file with their extension",
    )
    scorer.add_argument(
        "--out", metavar="FILE", help="write the result to FILE instead of standard output ('-': standard output)"
    )
    scorer.add_argument(
        "--report",
        metavar="FILE.html",
        help="also write the HTML report of the same options to FILE.html (see ordframe report --help)",
    )
    reporter = commands.add_parser(
        "report",
        parents=[options],
        help="write the HTML report of a prediction file",
        description="Write one self-contained HTML page (figures embedded, no network requests) that reports a "
        "prediction file: the class distribution, the results table, with --n-resamples the intervals and the "
        "comparison of every pair of --by models, the confusion matrices with their OC paths, with --proba the "
        "reliability diagrams, and the methods text with its references.",
    )
    reporter.add_argument("--out", required=True, metavar="FILE.html", help="the HTML file to write")
    reporter.set_defaults(compare=False)  # the report compares the --by models whenever it draws replicates
    reproducer = commands.add_parser(
        "reproduce",
        help="reproduce the published values of the papers ordframe implements",
        description="Compute every built-in metric on the worked examples of the papers ordframe implements, beside "
        "the published values, and simulate George, Lu & Chang's (2016) Table 3 (exit code 1 if a value differs).",
    )
    reproducer.add_argument(
        "--pairs",
        type=int,
        default=10_000,
        help="pairs of matrices per cell of George et al.'s (2016) simulation, Table 3 (default 10000, as the paper)",
    )
    reproducer.add_argument("--seed", type=int, default=2016, help="seed of that simulation (default 2016)")
    demo_parser = commands.add_parser(
        "demo",
        help="three ordinal models on the bundled data sets, evaluated",
        description="Train three kinds of ordinal model on the bundled data sets (repeated train/test splits), "
        "evaluate them, rank them over the data sets and compare them within each; print a summary and write the "
        'results to a folder. Needs scikit-learn: pip install "ordframe[demo]".',
    )
    demo_parser.add_argument("--reps", type=int, default=5, help="train/test splits per data set (default 5)")
    demo_parser.add_argument(
        "--out", default="ordframe-demo", help="folder for the results, checked before training (default ordframe-demo)"
    )
    demo_parser.add_argument("--quick", action="store_true", help="three data sets, three splits")
    commands.add_parser(
        "metrics",
        help="list the registered metrics and plugins",
        description="List the registered metrics (name, kind, direction, description, parameters) and the plugins "
        "that failed to load.",
    )
    return main_parser


def command(name: str):
    """The function that runs a command, imported when it runs."""
    if name == "score":
        from ordframe._cli.score import score

        return score
    if name == "report":
        from ordframe._cli.report import report

        return report
    if name == "demo":
        from ordframe._cli.demo import demo

        return demo
    if name == "reproduce":
        from ordframe._cli.reproduce import reproduce

        return reproduce
    from ordframe._cli.listing import metrics

    return metrics


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    out = Output(sys.stdout)

    def show_warning(message, category, *_, **__):
        say(f"ordframe {args.command}: warning: {for_the_command_line(message)}")

    def error(message: str) -> None:
        say(f"ordframe {args.command}: error: {message}")

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show_warning
            code = command(args.command)(args, out)
        out.flush()  # a full disk shows here, when the text was buffered
        return code
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        discard_stdout()
        return 0
    except OutputError as exc:
        error(str(exc))
        discard_stdout()
        return 2
    except OSError as exc:  # a file the command writes (the demo's results) cannot be written
        error(f"cannot write {exc.filename}: {exc.strerror}" if exc.filename else f"cannot write: {exc}")
        return 2
    except (UsageError, KeyError, ValueError, TypeError, MemoryError) as exc:
        error(for_the_command_line(exc))
        return 2
    except RuntimeError as exc:
        from ordframe._registry.manager import BUILTIN_MODULES, PluginError

        if not isinstance(exc, PluginError):
            raise
        error(plugin_failure(exc.metric, exc.plugin, exc.__cause__, builtin=exc.plugin in BUILTIN_MODULES))
        return 1


if __name__ == "__main__":
    sys.exit(main())
