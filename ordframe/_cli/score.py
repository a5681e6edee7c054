"""``ordframe score``: read a prediction file, score it (per group), print or write the result."""

from __future__ import annotations

import re
import shlex
import shutil
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.baselines import flag_baselines
from ordframe._bridge.evaluate import evaluate_cube, evaluate_frame, evaluate_frame_rows
from ordframe._cli.console import say
from ordframe._cli.files import STDIN, decimal_mark, read_parameter, read_predictions, separator
from ordframe._cli.formats import output_format
from ordframe._cli.output import render, write_file
from ordframe._cli.wording import UsageError
from ordframe._core.checks import rng_of
from ordframe._core.dims import BOOTSTRAP_DIM, BOUND_DIM, CUBE_DIMS, METRIC_DIM, OBSERVED_DIM, VERSUS_DIM
from ordframe._core.drawing import Resampling
from ordframe._core.messages import did_you_mean, show
from ordframe._inference.compare import frame_compare
from ordframe._inference.intervals import ci, frame_ci
from ordframe._inputs.selection import Selection
from ordframe._registry.manager import get_metric, metric_names
from ordframe._registry.request import METRIC_SETS, MetricSpec, default_metrics, parse_metric
from ordframe._resampling.cubes import bootstrap_cube
from ordframe._resampling.paired import paired_replicates
from ordframe.sklearn import add_baselines

NO_BASELINES = (
    "no baselines: the constant baselines of the training folds need the folds; give --fold COL (and --repeat COL "
    "for a repeated cross-validation) and --sample COL"
)


def typed_labels(tokens: list[str] | None, column: pd.Series):
    """``--labels`` tokens as the label column's type: numbers for a numeric column, booleans for a True/False one."""
    if tokens is None:
        return None
    if len(tokens) < 2:
        raise UsageError(f"--labels {' '.join(tokens)}: give every class (at least two), in order, lowest first")
    if _is_boolean(column):
        words = {"false": False, "true": True}
        if not all(t.lower() in words for t in tokens):
            raise UsageError(
                f"--labels {' '.join(tokens)}: column {column.name!r} holds True and False, so its classes are "
                "False and True: give --labels False True (or True False), lowest first"
            )
        typed: list[object] = [words[t.lower()] for t in tokens]
    elif pd.api.types.is_numeric_dtype(column.dtype):
        try:
            values = [float(t) for t in tokens]
        except ValueError:
            raise UsageError(
                f"--labels {' '.join(tokens)}: column {column.name!r} is numeric, so its labels must be numbers"
            ) from None
        typed = [int(v) if v.is_integer() and pd.api.types.is_integer_dtype(column.dtype) else v for v in values]
    else:
        typed = list(tokens)
    repeated = [tokens[i] for i, v in enumerate(typed) if typed.index(v) < i]
    if repeated:
        raise UsageError(
            f"--labels {' '.join(tokens)}: {', '.join(repeated)} names a class already given; name each class once"
        )
    return typed


def _is_boolean(column: pd.Series) -> bool:
    """A True/False column: a bool dtype, or objects that are booleans and missing values (a CSV with gaps)."""
    if pd.api.types.is_bool_dtype(column.dtype):
        return True
    return column.dtype == object and pd.api.types.infer_dtype(column, skipna=True) == "boolean"


def requested_metrics(args) -> dict[str, tuple[str, dict]]:
    """``--metrics`` as ``{output name: (metric, params)}``: the core set by default, ``all`` every score.

    ``all`` leaves out the totals that are not scores (``METRIC_SETS["totals"]``).
    ``oc[beta=0.25]`` gives parameters (its result is called so); ``@FILE``
    reads a value from a JSON or TOML file (``d[cost=@costs.json]``).
    """
    if args.metrics is None:
        core, proba = list(METRIC_SETS["core"]), list(METRIC_SETS["core_proba"])
        names = (
            (core if args.pred else []) + (proba if args.proba else []) + (metric_names("score") if args.marker else [])
        )
        return {name: (name, {}) for name in names}
    if "all" in args.metrics:
        if len(args.metrics) > 1:
            raise UsageError(f"--metrics all means every metric: give it alone, or names only (got {args.metrics})")
        names = default_metrics(
            probabilities=bool(args.proba), predicted=bool(args.pred), marked=args.marker is not None
        )
        return {name: (name, {}) for name in names if name not in METRIC_SETS["totals"]}
    specs = [_metric_spec(text) for text in args.metrics]
    repeated = _repeated([spec.label for spec in specs])
    if repeated:
        raise UsageError(
            f"--metrics names {', '.join(repeated)} more than once: name each metric once "
            "(or each variant, e.g. 'oc[beta=0.25]' 'oc[beta=0.75]')"
        )
    needs = {  # each kind of metric: whether its input is given, its verb (one metric, several) and what it needs
        "proba": (args.proba, ("scores", "score"), "class probabilities: pass the probability columns with --proba"),
        "score": (args.marker, ("orders", "order"), "the classes by a continuous score: pass its column with --marker"),
        "confusion": (
            args.pred or args.proba,
            ("scores", "score"),
            "predicted labels: pass their column with --pred (or the probability columns with --proba)",
        ),
    }
    for kind, (given, (verb, verbs), what) in needs.items():
        named = [spec.label for spec in specs if get_metric(spec.name).kind == kind]
        if named and not given:
            it = f"these {verbs}" if len(named) > 1 else f"it {verb}"
            raise UsageError(f"--metrics {' '.join(named)}: {it} {what}")
    return {spec.label: (spec.name, spec.params) for spec in specs}


def _metric_spec(text: str) -> MetricSpec:
    """One ``--metrics`` word; a comma list given as one word is an error that shows the space-separated form."""
    try:
        spec = parse_metric(text, argument="--metrics", read=read_parameter)
        get_metric(spec.name).params(spec.params)  # an unknown metric or parameter, said before the file is read
        return spec
    except (KeyError, ValueError, TypeError):
        words = [word.strip() for word in re.split(r",(?![^\[]*\])", text)]  # the commas outside brackets
        if len(words) < 2 or not all(words):
            raise
    raise UsageError(
        f"--metrics {text!r}: the metrics are separated by spaces, not commas: give --metrics "
        + " ".join(map(shlex.quote, words))
    )


def _repeated(names: list) -> list:
    """The names that occur more than once, in order of first occurrence."""
    return [n for i, n in enumerate(names) if names.count(n) > 1 and names.index(n) == i]


def check_options(df: pd.DataFrame, args, metrics: dict) -> None:
    """The options' own mistakes, said in their words before the library sees them."""
    _check_numbers(args)
    _check_columns(df, args)
    _check_probability_columns(df, args, metrics)
    _check_by_columns(df, args, metrics)


def _check_numbers(args) -> None:
    """--seed, --n-resamples and --level, and the bootstrap's options (--ci too) given without --n-resamples."""
    if args.seed < 0:
        raise UsageError(f"--seed must be a whole number >= 0, got {args.seed}")
    if args.n_resamples is not None and args.n_resamples < 1:
        raise UsageError(f"--n-resamples must be a whole number of replicates >= 1, got {args.n_resamples}")
    if args.level is not None and not 0 < args.level < 1:
        raise UsageError(f"--level must be a number between 0 and 1, e.g. 0.95, got {args.level}")
    bootstrap = {
        "--sample": args.sample if args.fold is None else None,  # with --fold, the baselines' samples too
        "--strata": args.strata,
        "--cluster": args.cluster,
        "--compare": args.compare,
        "--ci": args.ci,
        "--level": args.level is not None,
    }
    given = [option for option, value in bootstrap.items() if value]
    if given and args.n_resamples is None:
        raise UsageError(f"{' '.join(given)}: these options apply to a bootstrap; give --n-resamples N too")


def _check_columns(df: pd.DataFrame, args) -> None:
    """Every column an option names is in the file, and --by and --proba name each once."""
    for option, names in (("--by", args.by), ("--proba", args.proba)):
        repeated = _repeated(names or [])
        if repeated:
            raise UsageError(f"{option} names {', '.join(repeated)} more than once: name each column once")
    named = [args.true, args.pred, args.marker, *(args.proba or []), *(args.by or []), *_paired_columns(args)]
    for column in [*named, *_fold_columns(args)]:
        if column is not None and column not in df.columns:
            raise UsageError(
                f"column {column!r} is not in the file; its columns are: {', '.join(map(str, df.columns))}"
                + did_you_mean(column, df.columns)
            )


def _check_probability_columns(df: pd.DataFrame, args, metrics: dict) -> None:
    """--proba: numbers (not with a decimal comma), one per --labels class, and intervals it can have per group."""
    rows_given = args.proba or args.marker  # metrics of rows, which a resampled cube does not have
    if args.n_resamples and rows_given and args.by and not _paired(args) and _method(args) not in (None, "percentile"):
        kinds = {"proba": "probability", "score": "score"}
        proba = [name for name, _ in metrics.values() if get_metric(name).kind in kinds]
        if proba:
            words = " and ".join(dict.fromkeys(kinds[get_metric(name).kind] for name in proba))
            raise UsageError(
                f"--ci {args.ci}: the {words} metrics ({', '.join(proba)}) get percentile intervals per --by "
                "group (each group's rows resampled apart); give --ci percentile or auto, or, for models that "
                "predict the same samples, name the sample column with --sample (a paired bootstrap)"
            )
    for column in args.proba or []:
        values = df[column]
        if pd.api.types.is_numeric_dtype(values):
            continue
        commas = values[values.astype(str).str.fullmatch(r"\s*\d*,\d+\s*")]
        if len(commas):
            raise UsageError(
                f"--proba column {column!r} holds numbers with a decimal comma ({commas.iloc[0]!r}, {len(commas)} "
                "rows): give --decimal ','"
            )
    if args.proba and args.labels and len(args.proba) != len(args.labels):
        raise UsageError(
            f"--proba names {len(args.proba)} columns but --labels {len(args.labels)} classes: pass --labels "
            "naming the class of each --proba column, in the same order"
        )


def _check_by_columns(df: pd.DataFrame, args, metrics: dict) -> None:
    """--by: one column with two models or more for --compare, and names that no dim or result column has."""
    if args.compare:
        if len(args.by or []) != 1:
            raise UsageError("--compare compares the models of one --by column: give --by MODEL_COLUMN")
        models = df[args.by[0]].dropna().unique()
        if len(models) == 1:
            raise UsageError(
                f"column {args.by[0]!r} has one model, {show(models)}: nothing to compare; --compare needs the "
                "rows of two models or more"
            )
    for column in args.by or []:
        if column in CUBE_DIMS:
            raise UsageError(
                f"--by column {column!r} has the name of a dim of the confusion matrices ({', '.join(CUBE_DIMS)}); "
                "rename that column in the file"
            )
    if args.by:  # the result has one column per --by column and per metric: they need different names
        outputs = list(metrics)
        if args.n_resamples is not None:
            outputs = [f"{name}{end}" for name in outputs for end in ("", "_low", "_high")]
        clash = [column for column in args.by if column in outputs]
        if clash:
            raise UsageError(
                f"--by column {clash[0]!r} has the name of a column of the result (a metric); "
                "rename that column in the file"
            )


def _paired_columns(args) -> list:
    """The columns of a paired bootstrap: --sample, --strata and --cluster."""
    return [c for c in (args.sample, *(args.strata or []), args.cluster) if c is not None]


def _fold_columns(args) -> list:
    """The columns of the cross-validation's design: --fold and --repeat."""
    return [c for c in (args.fold, args.repeat) if c is not None]


def with_baselines(df: pd.DataFrame, args) -> pd.DataFrame:
    """The file's rows and, with ``--fold``, the rows of the constant baselines of its training folds as models of
    the ``--by`` column (``add_baselines``)."""
    if args.fold is None:
        given = [
            option for option, value in (("--repeat", args.repeat), ("--no-baselines", not args.baselines)) if value
        ]
        if given:
            raise UsageError(f"{' '.join(given)}: these options apply to the baselines of --fold; give --fold COL too")
        return df
    if not args.baselines:
        return df
    _check_columns(df, args)
    models = [column for column in args.by or [] if column not in _fold_columns(args)]
    sample = args.sample or args.cluster
    if len(models) != 1 or args.pred is None or sample is None:
        raise UsageError(
            f"--fold {args.fold}: the baselines are added as models of one --by column, with a --pred column, and "
            "their training samples are counted once by --sample (or --cluster): give --by MODEL, --pred COL and "
            "--sample COL, or --no-baselines"
        )
    if not isinstance(df[models[0]].dtype, pd.CategoricalDtype):  # the file's models (sorted), then the baselines
        df = df.assign(**{models[0]: df[models[0]].astype("category")})
    return add_baselines(
        df,
        args.true,
        args.pred,
        proba=args.proba,
        labels=typed_labels(args.labels, df[args.true]),
        model=models[0],
        sample=sample,
        repeat=args.repeat,
        fold=args.fold,
    )


def note_baselines(args) -> None:
    """Models (``--by``) without ``--fold`` have no baselines: say so, once, when the command has done its work."""
    if args.by and args.fold is None:
        say(NO_BASELINES)


def _paired(args) -> bool:
    """A paired bootstrap of the --by models (sample ids, strata, clusters, comparisons), not one per group.

    Without ``--by``, probabilities too: the one group's rows are resampled by the paired bootstrap of one model,
    which gives a probability metric every interval (its BCa from the jackknife of the samples).
    """
    return bool(_paired_columns(args) or args.compare or ((args.proba or args.marker) and not args.by))


def score_result(df: pd.DataFrame, args, metrics: dict) -> xr.Dataset:
    """One variable per metric (and ``_low``/``_high`` ones with a bootstrap), over the ``--by`` groups that occur."""
    check_options(df, args, metrics)
    labels = typed_labels(args.labels, df[args.true])
    by = args.by or None
    # like pandas' groupby: only the --by combinations that occur (the dense layout if a column is named like its dim)
    observed = by is not None and OBSERVED_DIM not in map(str, by)
    selection = Selection(
        args.true,
        args.pred,
        args.proba,
        by,
        labels,
        dropna=args.dropna,
        renormalize=args.renormalize,
        observed=observed,
        marker=args.marker,
    )
    if args.n_resamples is None:
        return evaluate_frame(df, selection, metrics)
    with _each_warning_once():  # the estimates and the replicates check the same rows, and warn alike
        if _paired(args):
            return _paired_intervals(df, args, metrics, selection.but(observed=False))
        return _group_intervals(df, args, metrics, selection)


@contextmanager
def _each_warning_once() -> Iterator[None]:
    """The warnings given inside, each distinct one once, when the block ends (or fails)."""
    seen: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            yield
    finally:
        for message in {(w.category, str(w.message)): w.message for w in seen}.values():
            warnings.warn(message, stacklevel=1)


def _group_intervals(df: pd.DataFrame, args, metrics: dict, selection: Selection) -> xr.Dataset:
    """Intervals of each --by group, its cube (or with --proba, its rows) resampled apart."""
    by = selection.by
    values, rows = evaluate_frame_rows(df, selection, metrics)
    flag_baselines(values)
    # the replicates and the intervals add dims named bootstrap and bound: a --by column may have either name
    hidden = {name: f"__by_{i}__" for i, name in enumerate(by) if name in (BOOTSTRAP_DIM, BOUND_DIM)}
    values = values.rename(hidden)
    cube = rows.cube(warned=True).rename(hidden) if args.pred or args.proba else None  # none of a --marker alone
    rng = rng_of(args.seed)  # the replicates, then the calibrated interval's double bootstrap
    if args.proba or args.marker:  # metrics of rows, not of a cube
        strata = [hidden.get(column, column) for column in by]
        draws = Resampling(args.n_resamples, rng, strata=strata)
        replicates = _group_replicates(df.rename(columns=hidden), selection.but(by=None), draws, metrics, values)
    else:
        assert cube is not None  # the cube of --pred
        replicates = evaluate_cube(bootstrap_cube(cube, args.n_resamples, seed=rng), metrics)
    method = _method(args)
    of_rows = [out for out, (name, _) in metrics.items() if get_metric(name).kind != "confusion"]
    if method is None and of_rows:  # as the docs say: per group, percentile (BCa needs the frame's paired path)
        bounds = xr.merge(
            [
                ci(replicates[of_rows], level=_level(args), method="percentile", seed=rng),
                ci(replicates.drop_vars(of_rows), level=_level(args), method=None, cube=cube, seed=rng),
            ],
            combine_attrs="drop",
        )
    else:
        bounds = ci(replicates, level=_level(args), method=method, cube=cube, seed=rng)
    return _with_bounds(values, bounds).rename({inside: name for name, inside in hidden.items()})


def _group_replicates(
    df: pd.DataFrame, selection: Selection, draws: Resampling, metrics: dict, layout: xr.Dataset
) -> xr.Dataset:
    """Every metric on bootstrap replicates of each group's rows (``draws.strata``), drawn apart.

    A probability or score metric is computed on rows, which a resampled cube does not have; the replicates take
    the layout of ``layout``, the estimates (the groups that occur).
    """
    replicates, _ = paired_replicates(df, selection, draws, metrics)
    if OBSERVED_DIM in layout.dims:
        replicates = replicates.stack({OBSERVED_DIM: list(draws.strata)}).sel(
            {OBSERVED_DIM: layout.indexes[OBSERVED_DIM]}
        )
    return replicates


def _method(args) -> str | None:
    """``--ci`` as ``method=``: ``auto`` (or no ``--ci``) is each metric's own interval (None)."""
    return None if args.ci in (None, "auto") else args.ci


def _level(args) -> float:
    """``--level`` as ``level=``: 0.95 when not given (the parser leaves it unset, so that a given one is told)."""
    return 0.95 if args.level is None else args.level


def _with_bounds(values: xr.Dataset, bounds: xr.Dataset) -> xr.Dataset:
    """Every metric followed by its ``_low`` and ``_high`` bounds."""
    variables = {}
    for name, value in values.data_vars.items():
        variables[name] = value
        for bound in ("low", "high"):
            variables[f"{name}_{bound}"] = bounds[name].sel({BOUND_DIM: bound}, drop=True)
    return xr.Dataset(variables)


def _paired_intervals(df: pd.DataFrame, args, metrics: dict, selection: Selection) -> xr.Dataset:
    """Intervals (or with --compare, the comparison) from the paired bootstrap of the --by models."""
    draws = Resampling(args.n_resamples, args.seed, args.sample, args.strata, args.cluster)
    if args.compare:
        method = _method(args) or "percentile"
        result = frame_compare(df, selection, draws, metrics, level=_level(args), method=method)
        return _pairs_table(result, str(args.by[0]))
    bounds = frame_ci(df, selection, draws, metrics, level=_level(args), method=_method(args))
    return _with_bounds(evaluate_frame(df, selection, metrics), bounds)


def _pairs_table(result: xr.Dataset, model: str) -> xr.Dataset:
    """One row per metric and pair of models (each pair once): difference, interval, p-values, bootstrap share."""
    names = list(result[model].values)
    first, second = np.triu_indices(len(names), 1)
    columns = {
        "difference": result["difference"],
        "low": result["interval"].sel({BOUND_DIM: "low"}, drop=True),
        "high": result["interval"].sel({BOUND_DIM: "high"}, drop=True),
        "p_value": result["p_value"],
        "adjusted_p_value": result["adjusted_p_value"],
        "bootstrap_share_better": result["bootstrap_share_better"],
    }
    rows = pd.MultiIndex.from_product([list(result[METRIC_DIM].values), range(len(first))])
    index = pd.MultiIndex.from_arrays(
        [
            rows.get_level_values(0),
            [names[first[i]] for i in rows.get_level_values(1)],
            [names[second[i]] for i in rows.get_level_values(1)],
        ],
        names=[METRIC_DIM, model, VERSUS_DIM],
    )
    data = {}
    for name, values in columns.items():
        matrix = values.transpose(METRIC_DIM, model, VERSUS_DIM).values
        data[name] = (OBSERVED_DIM, matrix[:, first, second].reshape(-1))
    return xr.Dataset(data, coords=xr.Coordinates.from_pandas_multiindex(index, OBSERVED_DIM), attrs=result.attrs)


def _hint_groups(df: pd.DataFrame, used: list) -> None:
    """Without ``--by`` every row is pooled: say so when the file has columns that look like models or folds."""
    small = [
        str(c)
        for c in df.columns
        if c not in used and not pd.api.types.is_float_dtype(df[c]) and 1 < df[c].nunique() <= 50
    ]
    if small:
        warnings.warn(
            f"the file's rows are scored as one group; to score each model or fold, add --by with some of "
            f"{', '.join(small[:5])}{', ...' if len(small) > 5 else ''}",
            UserWarning,
            stacklevel=1,
        )


def read_file(args) -> tuple[pd.DataFrame, dict]:
    """The prediction file's columns that the options name, and ``--metrics`` (checked before the file is read)."""
    metrics = requested_metrics(args)
    label_columns = tuple(
        dict.fromkeys(
            c for c in (args.true, args.pred, *(args.by or []), *_paired_columns(args), *_fold_columns(args)) if c
        )
    )
    both = sorted(set(args.na_values or ()) & set(args.labels or ()))
    if both:
        raise UsageError(
            f"--na-values and --labels both name {', '.join(both)}: a value is a class or a missing value, not both"
        )
    df = read_predictions(
        args.file,
        sep=separator(args.sep),
        decimal=decimal_mark(args.decimal),
        na_values=tuple(args.na_values or ()),
        columns=tuple(dict.fromkeys([*label_columns, *(args.proba or []), *([args.marker] if args.marker else [])])),
        labels=label_columns,
        classes=tuple(args.labels or ()),
    )
    return df, metrics


def score(args, out) -> int:
    """Score a prediction file (``ordframe score``) and print or write the result."""
    if args.true is None or (args.pred is None and not args.proba and args.marker is None):
        raise UsageError("score needs --true COL and --pred COL (or --proba COLS, or --marker COL)")
    if args.out is not None and not args.out.strip():
        raise UsageError("--out is empty: give a file name (e.g. --out scores.csv), or - for standard output")
    to_file = args.out is not None and args.out != STDIN  # "-": standard output
    fmt = output_format(args.out if to_file else None, args.format)
    folder = Path(args.out).parent if to_file else None
    if folder is not None and not folder.is_dir():  # said before the file is read and scored
        raise UsageError(f"cannot write {args.out}: {folder} is not an existing folder")
    if args.report is not None:
        from ordframe._cli.report import check_report, write_report

        check_report(args, args.report, "--report")
    df, metrics = read_file(args)
    df = with_baselines(df, args)
    result = score_result(df, args, metrics)
    cues = {name: get_metric(metric).orientation.cue() for name, (metric, _) in metrics.items()}
    if to_file:
        written = write_file(result, fmt, args.out, cues)
        say(f"wrote {args.out}" + (f" (how it was computed: {written[1]})" if len(written) > 1 else ""))
    else:
        width = shutil.get_terminal_size().columns if out.isatty() else None
        text = render(result, fmt, width=width, cues=cues)
        if fmt == "table":
            out.write(text)
        else:
            out.write_data(text)
    if args.report is not None:
        write_report(df, args, metrics, args.report, warned=True)
    if not args.by:
        _hint_groups(df, [args.true, args.pred, *(args.proba or [])])
    note_baselines(args)
    return 0
