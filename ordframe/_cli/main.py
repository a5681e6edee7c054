"""The ``ordframe`` command: ``score`` a prediction file, ``demo``, ``reproduce`` the papers' values, list ``metrics``.

Errors are one line on standard error and a non-zero exit code, never a
traceback: 2 for a mistake in the command line or the input (and for an
output that cannot be written), 1 when a metric's kernel fails (a fault of
its plugin). A closed output pipe (``ordframe score ... | head``) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import sys
import warnings

from ordframe import __version__
from ordframe._cli.listing import metrics
from ordframe._cli.reproduce import reproduce
from ordframe._cli.score import FORMATS, score
from ordframe._cli.wording import OutputError, UsageError, for_the_command_line, plugin_failure
from ordframe._registry.manager import BUILTIN_MODULES, PluginError
from ordframe._registry.request import METRIC_SETS


class Output:
    """Standard output for the commands: a write that fails (``> /dev/full``) is an ``OutputError``.

    A closed pipe (``BrokenPipeError``) is left to ``main``, which ends quietly.
    """

    def __init__(self, stream) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self._do(self.stream.write, text)

    def flush(self) -> None:
        self._do(self.stream.flush)

    def isatty(self) -> bool:
        return self.stream.isatty()

    def _do(self, operation, *args):
        try:
            return operation(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"cannot write to standard output: {exc.strerror or exc}") from None


def _discard_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush of it cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # not a real file (captured in a test): nothing to protect
        pass


def demo(args, out) -> int:
    """Run the demo (``ordframe demo``)."""
    from ordframe._cli.demo import run

    if args.reps < 2:
        raise UsageError("--reps must be at least 2")
    return run(args.out, reps=args.reps, quick=args.quick, stream=out)


def parser() -> argparse.ArgumentParser:
    main_parser = argparse.ArgumentParser(prog="ordframe", description="Order-aware evaluation of ordinal classifiers.")
    main_parser.add_argument("--version", action="version", version=f"ordframe {__version__}")
    commands = main_parser.add_subparsers(dest="command", required=True)
    scorer = commands.add_parser(
        "score",
        help="score a prediction file (CSV or Parquet)",
        description="Score a prediction file (CSV or Parquet): one row of metrics per --by group.",
        epilog="Errors are one line on standard error, with exit code 2 for a mistake in the options or the file, "
        "and 1 when a metric's kernel fails (a fault of its plugin).",
    )
    scorer.add_argument(
        "file", help="a CSV or Parquet file with one row per prediction ('-': read it from standard input)"
    )
    scorer.add_argument("--true", help="the column of true labels")
    scorer.add_argument("--pred", help="the column of predicted labels")
    scorer.add_argument("--proba", nargs="+", metavar="COL", help="probability columns, in class order")
    scorer.add_argument("--by", nargs="+", metavar="COL", help="one result per combination of these columns")
    scorer.add_argument(
        "--metrics",
        nargs="+",
        metavar="NAME",
        help=f"metric names, or 'all' (default: {' '.join(METRIC_SETS['core'])}, and {' '.join(METRIC_SETS['core_proba'])} with --proba)",
    )
    scorer.add_argument(
        "--labels",
        nargs="+",
        metavar="LABEL",
        help="the classes in order, lowest first (numbers for a numeric column, False True for a boolean one)",
    )
    scorer.add_argument("--bootstrap", type=int, metavar="N", help="add 95%% percentile intervals from N replicates")
    scorer.add_argument(
        "--seed", type=int, default=0, help="random seed of the bootstrap, a whole number >= 0 (default 0)"
    )
    scorer.add_argument(
        "--renormalize", action="store_true", help="divide each row of --proba values by its sum instead of requiring 1"
    )
    scorer.add_argument(
        "--dropna",
        action="store_true",
        help="drop rows with a missing label, group value or probability from every metric (the count is reported)",
    )
    scorer.add_argument(
        "--format",
        choices=FORMATS,
        help="output format (default: from the --out extension .csv/.json/.md/.parquet/.txt, else table); "
        "parquet only to a .parquet file",
    )
    scorer.add_argument(
        "--out", metavar="FILE", help="write the result to FILE instead of standard output ('-': standard output)"
    )
    commands.add_parser("reproduce", help="reproduce the published values of the papers ordframe implements")
    demo_parser = commands.add_parser("demo", help="three ordinal models on the bundled data sets, evaluated")
    demo_parser.add_argument("--reps", type=int, default=5, help="train/test splits per data set (default 5)")
    demo_parser.add_argument("--out", default="ordframe-demo", help="folder for the results (default ordframe-demo)")
    demo_parser.add_argument("--quick", action="store_true", help="three data sets, three splits")
    commands.add_parser("metrics", help="list the registered metrics and plugins")
    return main_parser


def main(argv=None) -> int:
    args = parser().parse_args(argv)
    run = {"score": score, "reproduce": reproduce, "demo": demo, "metrics": metrics}[args.command]
    out = Output(sys.stdout)

    def show_warning(message, category, *_, **__):
        print(f"ordframe {args.command}: warning: {for_the_command_line(str(message))}", file=sys.stderr)

    def error(message: str) -> None:
        print(f"ordframe {args.command}: error: {message}", file=sys.stderr)

    try:
        with warnings.catch_warnings():
            warnings.showwarning = show_warning
            code = run(args, out)
        out.flush()  # a full disk shows here, when the text was buffered
        return code
    except BrokenPipeError:  # the reader went away (``| head``): stop quietly
        _discard_stdout()
        return 0
    except OutputError as exc:
        error(str(exc))
        _discard_stdout()
        return 2
    except PluginError as exc:
        error(plugin_failure(exc.metric, exc.plugin, exc.__cause__, builtin=exc.plugin in BUILTIN_MODULES))
        return 1
    except (UsageError, KeyError, ValueError, TypeError, MemoryError) as exc:
        message = exc.args[0] if isinstance(exc, KeyError) and exc.args else exc
        error(for_the_command_line(str(message)))
        return 2


if __name__ == "__main__":
    sys.exit(main())
