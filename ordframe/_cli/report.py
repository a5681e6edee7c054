"""``ordframe report`` (and ``ordframe score --report``): the HTML report of a prediction file, written to a file."""

from __future__ import annotations

import warnings
from pathlib import Path

import pandas as pd

from ordframe._cli.console import say
from ordframe._cli.score import _level, _method, check_options, note_baselines, read_file, typed_labels, with_baselines
from ordframe._cli.wording import UsageError
from ordframe._core.messages import BaselineWarning
from ordframe._page.report import report_html


def check_report(args, path: str, option: str) -> None:
    """An HTML file in an existing folder, one --by column at most and no --marker, said before the file is read."""
    if args.by is not None and len(args.by) > 1:
        raise UsageError(
            f"--by {' '.join(args.by)}: the report compares the models of one --by column; combine the columns "
            "into one in the file, or report each group apart"
        )
    if args.marker is not None:
        raise UsageError(
            f"--marker {args.marker}: the report shows the metrics of labels and probabilities, not yet the score "
            f"metrics; score the marker with ordframe score ... --marker {args.marker}"
        )
    if not path.strip() or Path(path).suffix.lower() not in (".html", ".htm"):
        raise UsageError(f"{option} {path!r}: give the HTML file to write, e.g. {option} report.html")
    folder = Path(path).parent
    if not folder.is_dir():
        raise UsageError(f"cannot write {path}: {folder} is not an existing folder")


def write_report(df: pd.DataFrame, args, metrics: dict, path: str, warned: bool = False) -> None:
    """The report of the options' columns of ``df``, written to ``path``; ``warned``: the flags of the baselines
    were shown already (by ``score``)."""
    check_options(df, args, metrics)
    with warnings.catch_warnings():
        if warned:
            warnings.simplefilter("ignore", BaselineWarning)
        page = _page(df, args, metrics)
    Path(path).write_text(page, encoding="utf-8")
    say(f"wrote {path}")


def _page(df: pd.DataFrame, args, metrics: dict) -> str:
    return report_html(
        df,
        args.true,
        args.pred,
        proba=args.proba,
        metrics="all" if metrics is None else metrics,
        model=args.by[0] if args.by else None,
        labels=typed_labels(args.labels, df[args.true]),
        sample=args.sample,
        strata=args.strata,
        cluster=args.cluster,
        n_resamples=args.n_resamples,
        seed=args.seed,
        level=_level(args),
        method=_method(args),
        dropna=args.dropna,
        renormalize=args.renormalize,
    )


def report(args, out) -> int:
    """Write the HTML report of a prediction file (``ordframe report``)."""
    if args.true is None or args.pred is None:
        raise UsageError("report needs --true COL and --pred COL (and --proba COLS for the reliability diagrams)")
    check_report(args, args.out, "--out")
    df, metrics = read_file(args)
    write_report(with_baselines(df, args), args, metrics, args.out)
    note_baselines(args)
    return 0
