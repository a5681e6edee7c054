"""From numpy kernels to labelled results: the one bridge for confusion and probability metrics.

Both kinds get the same guarantees here:

* parameters are completed from the metric's defaults, labelled ones (a cost
  matrix as a DataArray or DataFrame) are aligned to the class order, and the
  kernel is run once on a tiny input so that bad parameters fail at the call,
  even when the data are dask-backed and nothing else is computed yet;
* the kernel's output shape and dtype are checked, naming the metric, and an
  exception a kernel raises names the metric and the plugin that registered it
  (``call_kernel``);
* kernels run through ``xarray.apply_ufunc(..., dask="parallelized")``: a metric's compiled twin
  (``Metric.compiled``) when the compiled kernels are on and the work pays for it (``Metric.kernel``), and the terms it shares with the other
  metrics of one cube (``Metric.needs``) computed once for them all (``needed_terms``);
* a 0-d result becomes a float, and NaN comes with one ``RuntimeWarning``
  that says why.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Mapping
from typing import NamedTuple

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._core.checks import check_nonnegative
from ordframe._core.dims import CLASS_DIM, CUBE_DIMS, PRED, TRUE
from ordframe._core.drawing import drawn_of
from ordframe._core.messages import warn
from ordframe._core.version import VERSION_ATTR, ordframe_version
from ordframe._registry.manager import BUILTIN_MODULES, PluginError, plugin_of
from ordframe._registry.metric import Metric

# Probability kernels see at most this many samples at a time: their temporaries
# stay in the CPU cache and memory stays flat however many samples there are.
BLOCK_ROWS = 1 << 16


def check_cube(cube) -> None:
    """Raise unless ``cube`` is a confusion cube: dims ``true`` and ``pred`` with the same classes, valid counts."""
    if not isinstance(cube, xr.DataArray):
        raise TypeError(f"a confusion cube is an xarray.DataArray, got {type(cube).__name__}")
    missing = [d for d in CUBE_DIMS if d not in cube.dims]
    if missing:
        raise ValueError(
            f"a confusion cube needs dims 'true' and 'pred' (rows = true class); this array has dims "
            f"{tuple(cube.dims)}. Build one with df.ordinal.confusion(...) or pred.ordinal.confusion(true)."
        )
    if cube.sizes[TRUE] != cube.sizes[PRED]:
        raise ValueError(f"a confusion cube must be square, got true={cube.sizes[TRUE]} and pred={cube.sizes[PRED]}")
    if cube.sizes[TRUE] < 2:
        raise ValueError(f"an ordinal problem needs at least two classes; this cube has {cube.sizes[TRUE]}")
    if cube.dtype.kind not in "iufb":
        raise TypeError(f"a confusion cube holds counts (real numbers >= 0), got dtype {cube.dtype}")


def cube_classes(cube: xr.DataArray) -> tuple[xr.DataArray, pd.Index | None]:
    """The cube with ``pred`` in the order of ``true`` (a permutation is reordered by label), and its classes.

    Duplicate class labels, or ``pred`` labels that are not those of ``true``,
    are an error. A cube without class coordinates is used by position.
    """
    labelled = [d for d in CUBE_DIMS if d in cube.indexes]
    if not labelled:
        return cube, None
    if len(labelled) == 1:
        raise ValueError(f"the cube has class labels on {labelled[0]!r} only; give 'true' and 'pred' the same labels")
    true, pred = cube.indexes[TRUE], cube.indexes[PRED]
    for name, index in ((TRUE, true), (PRED, pred)):
        if not index.is_unique:
            raise ValueError(
                f"the cube's {name!r} coordinate lists {list(index[index.duplicated()].unique())} "
                "more than once; each class must appear once"
            )
    if not pred.equals(true):
        if len(pred) != len(true) or not pred.isin(true).all():
            raise ValueError(
                f"the cube's 'pred' classes {list(pred)} are not its 'true' classes {list(true)}; "
                "both dims must hold the same class labels"
            )
        cube = cube.reindex(pred=true)
    return cube, true


def check_counts(values: np.ndarray) -> np.ndarray:
    """The counts; an error for negative, NaN or infinite counts.

    One reduction decides (the minimum, for floats also the maximum: NaN
    propagates through both); only a cube that fails is examined cell by cell
    for the message.
    """
    if not values.size or values.dtype.kind in "ub":
        return values
    if values.dtype.kind == "i":
        if values.min() >= 0:
            return values
    elif values.min() >= 0 and values.max() < np.inf:
        return values
    return check_nonnegative(values, "the confusion cube", "count")


class Counts(NamedTuple):
    """A cube's counts ``(..., true, pred)`` as its kernels see them, with its classes (``confusion_counts``)."""

    counts: xr.DataArray
    classes: pd.Index | None
    checked: bool  # validated already (in memory); lazy counts are checked chunk by chunk in the kernel
    # The terms that metrics computed on these counts share (``needed_terms``), by term, kernel and parameters;
    # None: each kernel computes its own (lazy counts, or a single metric's call).
    terms: dict | None = None


def confusion_counts(cube: xr.DataArray, check: bool = True) -> Counts:
    """The cube checked (``check_cube``), ``pred`` in the order of ``true``, the counts laid out for the kernels.

    In-memory counts are validated here (unless ``check`` is false: a kernel that ``checks_itself``
    will), once for every metric computed on them (``apply_confusion(..., counts=)``), which also share
    the terms they need (``needed_terms``); dask-backed ones in each chunk.
    """
    check_cube(cube)
    cube, classes = cube_classes(cube)
    counts = cube if cube.dims[-2:] == CUBE_DIMS else cube.transpose(..., *CUBE_DIMS)
    if counts.dtype not in (np.int64, np.float64):  # as every kernel gets them (``confusion_kernel``), once
        counts = counts.astype(np.float64)
    checked = check and getattr(counts.data, "chunks", None) is None  # lazy: checked chunk by chunk in the kernel
    if checked:
        check_counts(counts.values)
    return Counts(counts, classes, checked, {} if checked else None)


def checks_itself(metric: Metric, cells: int) -> bool:
    """Whether the kernel that runs on ``cells`` counts checks them itself, in the pass in which it reads them:
    a compiled twin (``Metric.compiles``). The bridge's own check, one more pass over the cube, is then left
    out; when such a kernel raises a ValueError, the bridge's check runs to give the error that names the
    counts."""
    return metric.compiles(cells)


def kernel_input(counts: np.ndarray, compiled: bool) -> np.ndarray:
    """``counts`` as a confusion kernel gets them: float64, as the plugin contract says, except that a compiled
    twin reads int64 counts as they are (no copy); numpy formulations would sum them in integers, which wrap."""
    if counts.dtype == np.float64 or (compiled and counts.dtype == np.int64):
        return counts
    return counts.astype(np.float64)


def needed_terms(metric: Metric, params: Mapping, counts: Counts) -> dict:
    """The terms ``metric`` needs (``Metric.needs``) as its kernel's keyword arguments, each computed once on
    ``counts`` for every metric that needs it with the same parameters; none where ``counts`` are not shared
    (``Counts.terms`` None). A compiled twin gets a term's compiled twin; a term without a kernel for the one
    that runs (``Term.func`` None: compiled only) is left to the kernel."""
    if counts.terms is None or not metric.needs:
        return {}
    compiled = checks_itself(metric, counts.counts.size)
    out = {}
    for term in metric.needs:
        func = term.kernel(compiled)
        if func is None:
            continue
        taken = {n: v for n, v in params.items() if n in term.parameters}
        key = (term.name, func, parameters_json(taken))
        if key not in counts.terms:
            counts.terms[key] = quiet(func, kernel_input(counts.counts.values, compiled), **taken)
        out[term.name] = counts.terms[key]
    return out


def _align_param(name: str, value, classes: pd.Index | None, metric: Metric):
    """A labelled class-by-class parameter (DataArray with ``true``/``pred`` coords, or DataFrame) in class order."""
    if isinstance(value, pd.DataFrame):
        if classes is None:
            return value.to_numpy()
        value = xr.DataArray(value.to_numpy(), dims=CUBE_DIMS, coords={TRUE: value.index, PRED: value.columns})
    if not isinstance(value, xr.DataArray) or set(value.dims) != set(CUBE_DIMS):
        return value
    value = value.transpose(*CUBE_DIMS)
    if classes is None or not all(d in value.indexes for d in CUBE_DIMS):
        return value.values
    absent = [c for c in classes if c not in value.indexes[TRUE] or c not in value.indexes[PRED]]
    if absent:
        raise ValueError(
            f"metric {metric.name!r}: the {name} matrix has no row or column for the classes {absent}; "
            f"label its rows and columns with the classes {list(classes)}"
        )
    extra = sorted({c for d in CUBE_DIMS for c in value.indexes[d] if c not in classes}, key=str)
    if extra:
        raise ValueError(
            f"metric {metric.name!r}: the {name} matrix has rows or columns for {len(extra)} labels that are not "
            f"classes: {extra}; the classes are {list(classes)}: pass labels= with every class, or drop those "
            f"rows and columns"
        )
    return value.sel({TRUE: classes, PRED: classes}).values


# The parameters ``prepare`` checked where every value given is a single value (a number, a str, ...), by metric,
# values, K and classes: its probe run of the kernel (0.8 ms for A_UOC's numpy kernel, twice a small call's own
# work for OC's) is made once per process for each, not on every call or accumulator. At most this many are kept.
_PREPARED: dict[tuple, tuple[Metric, dict]] = {}
_PREPARED_MOST = 1 << 10


def prepare(metric: Metric, given: Mapping, k: int, classes: pd.Index | None = None) -> dict:
    """The kernel's parameters: defaults updated with ``given``, labelled ones aligned, all checked by a probe run
    (once per process for single values: ``_PREPARED``)."""
    single = all(isinstance(value, (bool, int, float, str, type(None))) for value in given.values())
    key = (
        (metric.name, tuple(sorted(given.items())), k, None if classes is None else tuple(classes)) if single else None
    )
    known = _PREPARED.get(key) if key is not None else None
    if known is not None and known[0] is metric:  # a metric registered anew under its name is checked anew
        return dict(known[1])
    params = metric.params(dict(given))
    params = {name: _align_param(name, value, classes, metric) for name, value in params.items()}
    try:
        if metric.kind == "confusion":  # int64 counts, as a cube's: a compiled twin compiles for them only
            confusion_kernel(metric, params, cells=k * k)(np.ones((1, k, k), np.int64))
        elif metric.kind == "score":  # one group, every class at one score value
            score_kernel(metric, params)(np.ones((1, 1, k)), np.array([0, 1]))
        else:
            proba_kernel(metric, params)(np.full((1, k), 1.0 / k), np.zeros(1, np.int64))
    except (ValueError, TypeError) as exc:  # a parameter's error names its metric: several may take `beta`
        if type(exc) in (ValueError, TypeError) and metric.name not in str(exc):
            raise type(exc)(f"metric {metric.name!r}: {exc}") from None
        raise
    if key is not None:
        if len(_PREPARED) >= _PREPARED_MOST:
            _PREPARED.clear()
        _PREPARED[key] = (metric, params)
    return dict(params)


def checked_output(metric: Metric, out, shape: tuple, given: str) -> np.ndarray:
    """A kernel's output as float64; an error naming the metric if its shape or dtype is wrong."""
    out = np.asarray(out)
    if out.shape != shape:
        raise ValueError(
            f"metric {metric.name!r}: its kernel returned shape {out.shape} for {given}; "
            f"a {metric.kind} kernel must return shape {shape}"
        )
    if out.dtype.kind not in "fiub":
        raise TypeError(f"metric {metric.name!r}: its kernel returned dtype {out.dtype}; it must return real numbers")
    return out.astype(np.float64, copy=False)


def quiet(func, *args, **kwargs):
    """Call a kernel with numpy's floating-point warnings silenced (a NaN result says what went wrong).

    ``numpy.errstate`` is local to the thread (a context variable), so kernels
    running in threads or under dask's threaded scheduler leave the process's
    warning filters as they were.
    """
    with np.errstate(all="ignore"):
        return func(*args, **kwargs)


def call_kernel(metric: Metric, plugin: str | None, func, *inputs, **params):
    """``func``, ``metric``'s kernel, on ``inputs`` (under ``quiet``); an exception it raises names the metric
    and ``plugin``.

    A ``ValueError`` or ``TypeError`` (how a kernel rejects bad parameters)
    keeps its type; a built-in kernel's own message is kept as it is (it names
    what is wrong in the user's words). Any other exception, except
    ``KeyboardInterrupt``, is a fault of the kernel: a ``PluginError``.
    The kernel's exception is chained either way.
    """
    try:
        return quiet(func, *inputs, **params)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:
        error = kernel_error(metric, plugin, exc)
        if error is exc:
            raise
        raise error from exc


def kernel_error(metric: Metric, plugin: str | None, exc: BaseException) -> Exception:
    """The error for an exception ``exc`` raised by ``metric``'s kernel (see ``call_kernel``)."""
    builtin = plugin in BUILTIN_MODULES
    if isinstance(exc, (ValueError, TypeError)):
        if builtin:
            return exc
        where = f"metric {metric.name!r}" + (f" (plugin {plugin!r})" if plugin else "")
        return (ValueError if isinstance(exc, ValueError) else TypeError)(f"{where}: {exc}")
    what = f"the kernel of metric {metric.name!r}" + (f" (plugin {plugin!r})" if plugin else "")
    error = f"{type(exc).__name__}: {exc}" if str(exc) else type(exc).__name__
    if builtin:
        advice = "this is a bug in ordframe: please report it, with the input that gives it"
    else:
        advice = (
            f"this is a fault of the plugin: report it to its authors; meanwhile name the metrics you want "
            f"with metrics=[...], leaving {metric.name!r} out"
            + (f", or remove the plugin with ordframe.unregister({plugin!r})" if plugin else "")
        )
    return PluginError(f"{what} failed with {error}; {advice}", metric.name, plugin)


def confusion_kernel(metric: Metric, params: dict, checked: bool = False, terms: Mapping | None = None, *, cells: int):
    """``metric``'s kernel for a cube of ``cells`` counts (``Metric.kernel``) on counts ``(..., K, K)``
    (``kernel_input``), its inputs (unless ``checked``, or the kernel ``checks_itself``) and output checked
    (``params`` prepared; ``terms``: from ``needed_terms``).
    """
    plugin = plugin_of(metric)  # looked up now: a lazy computation may run where the registry differs
    compiled = metric.compiles(cells)
    func = metric.kernel(cells)
    check = not (checked or compiled)
    terms = terms or {}

    def kernel(counts):
        if check:
            check_counts(counts)
        counts = kernel_input(counts, compiled)
        try:
            out = call_kernel(metric, plugin, func, counts, **params, **terms)
        except ValueError:
            if not check:
                check_counts(counts)  # the kernel's checks_itself: invalid counts get the cube's error
            raise
        return checked_output(metric, out, counts.shape[:-2], f"counts of shape {counts.shape}")

    return kernel


def proba_kernel(metric: Metric, params: dict):
    """``metric``'s kernel on probabilities ``(..., K)`` and class codes ``(...)``, in blocks, its output
    checked (``params`` prepared); a negative code (a dropped sample) scores NaN."""
    plugin = plugin_of(metric)

    def scores(proba, codes):  # one block: vectorised, in the CPU cache
        dropped = codes < 0  # samples left out by dropna: any valid class for the kernel, NaN after
        some = dropped.any()
        score = call_kernel(
            metric, plugin, metric.func, proba, np.where(dropped, 0, codes) if some else codes, **params
        )
        out = checked_output(metric, score, codes.shape, f"probabilities of shape {proba.shape}")
        return np.where(dropped, np.nan, out) if some else out

    def kernel(proba, true):
        shape = proba.shape[:-1]
        flat = proba.reshape(-1, proba.shape[-1])
        codes = (true if np.shape(true) == shape else np.broadcast_to(true, shape)).reshape(-1)
        if len(codes) <= BLOCK_ROWS:
            return scores(flat, codes).reshape(shape)
        out = np.empty(len(codes))
        for start in range(0, len(codes), BLOCK_ROWS):
            out[start : start + BLOCK_ROWS] = scores(
                flat[start : start + BLOCK_ROWS], codes[start : start + BLOCK_ROWS]
            )
        return out.reshape(shape)

    return kernel


def score_kernel(metric: Metric, params: dict):
    """``metric``'s kernel on a marker table's counts ``(..., R, K)`` and group starts ``(G + 1,)``
    (``_inputs/marker.py``), its output checked: one value per group ``(..., G)`` (``params`` prepared)."""
    plugin = plugin_of(metric)

    def kernel(counts, starts):
        out = call_kernel(metric, plugin, metric.func, counts, starts, **params)
        return checked_output(metric, out, (*counts.shape[:-2], len(starts) - 1), f"counts of shape {counts.shape}")

    return kernel


def apply_confusion(metric: Metric, cube: xr.DataArray, given: Mapping, counts: Counts | None = None) -> xr.DataArray:
    """Compute ``metric`` on every matrix of ``cube``; a DataArray over the other dims.

    ``counts``, from ``confusion_counts(cube)``, lets several metrics share one validation of the cube and
    the terms they need.
    """
    if counts is None:  # this metric alone: its kernel computes its own terms
        counts = confusion_counts(cube, check=not checks_itself(metric, cube.size))._replace(terms=None)
    classes = counts.classes
    params = prepare(metric, given, counts.counts.sizes[TRUE], classes)
    result = xr.apply_ufunc(
        confusion_kernel(
            metric, params, counts.checked, needed_terms(metric, params, counts), cells=counts.counts.size
        ),
        counts.counts,
        input_core_dims=[list(CUBE_DIMS)],
        dask="parallelized",
        output_dtypes=[np.float64],
        dask_gufunc_kwargs={"allow_rechunk": True},  # a matrix is only K x K: joining its chunks is cheap
    )
    out = labelled(result.rename(metric.name), metric, params, classes)
    out.attrs.update(drawn_of(cube.attrs))  # replicates say how they were drawn
    return out


def confusion_values(metric: Metric, counts: np.ndarray, classes: pd.Index, given: Mapping) -> np.ndarray:
    """``metric`` on in-memory counts ``(..., K, K)`` (int64, or float64 with weights) of ``classes``, unlabelled:
    what ``apply_confusion`` computes on a cube of them, with the same checks, for a call on one set of samples."""
    if not checks_itself(metric, counts.size):
        check_counts(counts)
    params = prepare(metric, given, len(classes), classes)
    return confusion_kernel(metric, params, checked=True, cells=counts.size)(counts)


def proba_values(metric: Metric, proba: np.ndarray, codes: np.ndarray, classes: pd.Index, given: Mapping) -> np.ndarray:
    """One score per sample of the ``proba`` metric on in-memory probabilities and codes, unlabelled: what
    ``apply_proba`` computes, for a call on one set of samples."""
    return proba_kernel(metric, prepare(metric, given, len(classes), classes))(proba, codes)


def apply_proba(
    metric: Metric, proba: xr.DataArray, codes: xr.DataArray, classes: pd.Index, given: Mapping, class_dim=CLASS_DIM
) -> xr.DataArray:
    """One score per sample of the ``proba`` metric (lazy for dask-backed inputs); NaN for dropped samples."""
    params = prepare(metric, given, len(classes), classes)
    scores = xr.apply_ufunc(
        proba_kernel(metric, params),
        proba,
        codes,
        input_core_dims=[[class_dim], []],
        dask="parallelized",
        output_dtypes=[np.float64],
    )
    return labelled(scores.rename(metric.name), metric, params, classes)


def labelled(result: xr.DataArray, metric: Metric, params: Mapping, classes: pd.Index | None) -> xr.DataArray:
    """``result`` with attrs that say what it is: the metric, its parameters, direction (``higher_is_better``, or
    ``best`` for a metric whose best value is a target), bounds, classes and the ordframe version that computed it.

    Every attr is a string or a number, so it survives ``to_netcdf``; the
    parameters (matrices in class order) are JSON: ``json.loads(result.attrs["parameters"])``.
    """
    result.attrs = {
        "metric": metric.name,
        "parameters": parameters_json(params),
        "direction": metric.direction,
        **(
            {"best": metric.best} if metric.best is not None else {"higher_is_better": int(metric.orientation.sign > 0)}
        ),
        "metric_bounds": [float(b) for b in metric.bounds],  # not "bounds": CF reserves it for a variable name
        **({} if classes is None else {"classes": json.dumps([str(c) for c in classes])}),
        VERSION_ATTR: ordframe_version(),
    }
    return result


def parameters_json(params: Mapping) -> str:
    """A metric's parameters as JSON, matrices as nested lists: what a result's ``parameters`` attr holds."""
    return json.dumps(params, default=lambda v: np.asarray(v).tolist())


def as_output(result: xr.DataArray, out: Hashable) -> xr.DataArray:
    """``result`` named ``out``, the name a ``metrics=`` dict gave it, recorded in an ``output`` attr where it is
    not the metric's own: a variable renamed later (``(1 - accuracy).rename("error_rate")``) is then told apart
    from one named by the call (``metrics={"oc_25": ("oc", {"beta": 0.25})}``), whose attrs are its own."""
    result = result.rename(out)
    if str(out) != result.attrs.get("metric"):
        result.attrs["output"] = str(out)
    return result


def as_scalar(result: xr.DataArray | np.ndarray, metric: Metric, empty: Callable[[], bool]):
    """A 0-d result as a float (computed if lazy), NaN with one ``RuntimeWarning`` that says why.

    ``empty()`` tells whether there were no samples (or their weights summed to 0).
    """
    if result.ndim:
        return result
    value = float(result)
    if np.isnan(value):
        if empty():
            reason = "there are no samples (or their weights sum to 0)"
        else:
            reason = metric.undefined or (
                "a per-sample score is NaN" if metric.kind == "proba" else "the kernel returned NaN"
            )
        warn(f"{metric.name} is undefined for this input and is NaN: {reason}", RuntimeWarning)
    return value
