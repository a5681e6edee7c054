"""Skill scores: a metric's improvement over a reference forecast, as a share of the most it could improve.

For a metric S with the perfect value S_perfect (its bound in its good direction: 0 for MAE or RPS, 1 for
accuracy or QWK) and a reference forecast scoring S_ref,

    SS = (S - S_ref) / (S_perfect - S_ref)

(Murphy 1988; Wilks 2011, ch. 8): 1 for a perfect forecast, 0 for the reference itself, negative for a
forecast worse than the reference. With S_perfect = 0 it is ``1 - S / S_ref``, the ranked probability skill
score (RPSS) of the RPS and the Brier skill score (BSS) of the Brier score. It is undefined (NaN, with an
``UndefinedSkillWarning``) when the metric has no finite perfect value or the reference is itself perfect.

A metric whose best value is a target inside its range (``Metric.best``: the mean signed error's 0) has no
skill score and is refused: a value past the target is not an improvement, so ``S_perfect - S_ref`` is no
largest possible improvement (a model at +0.3 against a reference at -0.2 would score 2.5, above the perfect
1), and climatology's forecast is unbiased by construction (mean signed error 0: a perfect reference).
``compare`` and ``friedman`` rank such a metric by the distance from its target instead. Given ``perfect=`` or
``higher_is_better=``, ``skill`` takes the values as they are, as for any metric.

The references:

* **climatology** (default): the class prior ``q`` of the true labels of the data scored, in every group
  (``{"prior": labels}``: the frequencies of a training set's labels; ``{"distribution": q}``: any fixed
  distribution). A probability metric scores the forecast that gives every sample ``q``: with ``f_c`` the
  share of samples of true class c, ``S_ref = sum_c f_c s(q, c)``. A confusion metric scores the expected
  confusion matrix of a forecaster that draws its prediction from ``q`` independently of the truth,
  ``n_ij = n_i. q_j`` (the random reference forecast of the categorical skill scores: Wilks 2011, ch. 8;
  Gandin & Murphy 1992). A one-hot ``q`` is the constant forecast of one class (always the majority
  class, say), whose expected matrix has every sample in that column.
* **another model** in the same result, ``{"model": "baseline"}``: paired, the reference's value on the same
  samples (and, with a bootstrap, on the same replicate).

Both depend on the true-class counts only, so the reference is scored on every bootstrap replicate from the
replicate's own counts (and, for climatology, its own prior): model and reference come from the same draw.
"""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Hashable, Mapping
from dataclasses import dataclass

import numpy as np
import pandas as pd
import xarray as xr

from ordframe._bridge.apply import apply_confusion, apply_proba, cube_classes, labelled
from ordframe._bridge.evaluate import evaluate_frame_rows
from ordframe._core.checks import check_level, directions, ranking, target_of
from ordframe._core.dims import BOOTSTRAP_DIM, CLASS_DIM, CUBE_DIMS, PRED, TRUE
from ordframe._core.drawing import Resampling
from ordframe._core.messages import show, warn
from ordframe._inference.intervals import interval_of, parameters_of, percentile, reflected, valid_share
from ordframe._inference.values import check_label
from ordframe._inputs.classes import encode, labels_of
from ordframe._inputs.selection import Selection
from ordframe._registry import manager as registry
from ordframe._registry.interval_methods import methods
from ordframe._registry.metric import Metric
from ordframe._registry.request import metric_request
from ordframe._resampling.paired import paired_replicates, paired_samples

CLIMATOLOGY = "climatology"
#: The keys of ``reference=`` that give a class distribution, not a model.
DISTRIBUTION_KEYS = ("prior", "distribution")
#: The intervals of a frame's skill: percentile, or basic (reflected about the skill on the data).
SKILL_METHODS = methods("skill")
# A distribution given by the user must sum to 1 within this.
_SUM_TOLERANCE = 1e-6


class UndefinedSkillWarning(RuntimeWarning):
    """A skill score that is NaN because it is undefined, with the reason.

    Either the metric has no finite perfect value (its bound in its good direction is infinite, so no
    forecast can be "perfect"), or the reference scores the perfect value itself (e.g. climatology on
    data with one class only), which makes ``(S - S_ref) / (S_perfect - S_ref)`` 0/0.
    """


def perfect_score(higher_is_better: bool, bounds) -> float:
    """The perfect value of a metric: its upper bound if higher is better, else its lower bound."""
    low, high = (float(b) for b in bounds)
    return high if higher_is_better else low


def no_skill(name, best: float) -> ValueError:
    """The error for the skill of a metric whose best value is the target ``best``."""
    return ValueError(
        f"{name!r} has no skill score: its best value is a target, {best:g}, not a bound in a direction, so a "
        "value past it is no improvement and (S - S_ref) / (S_perfect - S_ref) no share of the largest one. "
        "Compare models by their distance from it with ordframe.compare, df.ordinal.compare or "
        f"ordframe.friedman instead: they rank |value - {best:g}|"
    )


@dataclass(frozen=True)
class Reference:
    """A parsed ``reference=``: a class distribution (``prior`` None: each group's own) or a model label."""

    text: str  # what the result's attrs say
    prior: np.ndarray | None = None  # (K,), for a distribution given or learnt from training labels
    dim: Hashable | None = None  # the dim of the reference model
    label: Hashable | None = None

    @property
    def is_model(self) -> bool:
        return self.dim is not None


def parse_reference(reference, classes: pd.Index | None, dims) -> Reference:
    """``reference=`` as a ``Reference``; ``classes`` the class order, ``dims`` the dims a model may be chosen on."""
    if isinstance(reference, str):
        if reference != CLIMATOLOGY:
            raise ValueError(
                f"reference={reference!r} is not known: give 'climatology', {{'prior': training labels}}, "
                f"{{'distribution': probabilities}} or {{<model dim>: <label>}}"
            )
        return Reference("climatology: the class prior of the true labels scored, in each group")
    if not isinstance(reference, Mapping) or len(reference) != 1:
        raise TypeError(
            "reference= must be 'climatology' or a dict with one entry: {'prior': training labels}, "
            f"{{'distribution': probabilities}} or {{<model dim>: <label>}} (e.g. {{'model': 'baseline'}}), "
            f"got {reference!r}"
        )
    ((key, value),) = reference.items()
    if key in DISTRIBUTION_KEYS:
        if classes is None:
            raise ValueError(
                f"reference={{{key!r}: ...}} needs the class labels: the cube has none; label its 'true' and "
                "'pred' dims"
            )
        if key == "prior":
            q = _training_prior(value, classes)
            return Reference(f"the class prior of {int(_length(value))} training labels: {_shown(q, classes)}", q)
        q = _distribution(value, classes)
        return Reference(f"the fixed distribution {_shown(q, classes)}", q)
    if key not in [str(d) for d in dims] and key not in dims:
        raise ValueError(
            f"reference={{{key!r}: {value!r}}}: {key!r} is not 'prior', 'distribution' or a dim of the models "
            f"({show(list(dims))}); a model reference names the dim of the models and the reference's label, "
            "e.g. reference={'model': 'baseline'} with by='model'"
        )
    return Reference(f"{key}={value!r}", dim=key, label=value)


def _length(values) -> int:
    return len(values) if hasattr(values, "__len__") else 0


def _shown(q: np.ndarray, classes: pd.Index) -> str:
    return "{" + ", ".join(f"{c!r}: {round(float(p), 4)}" for c, p in zip(classes, q)) + "}"


def _training_prior(values, classes: pd.Index) -> np.ndarray:
    """The class frequencies of training labels (a list, array or Series of labels among ``classes``)."""
    if isinstance(values, (str, bytes, Mapping)) or np.ndim(values) == 0:
        raise TypeError(
            f"reference={{'prior': ...}} takes the training set's labels (a list, array or Series), got {values!r}; "
            "for probabilities use {'distribution': [...]}"
        )
    array = values if isinstance(values, pd.Series) else np.asarray(values)
    if array.ndim != 1 or not len(array):
        raise ValueError(
            f"reference={{'prior': ...}} needs one training label per sample (1-d, not empty), got shape {np.shape(values)}"
        )
    column = labels_of("reference prior", array)
    codes = encode(column, classes).astype(np.int64)
    if (codes < 0).any():
        raise ValueError(
            f"reference={{'prior': ...}} has {int((codes < 0).sum())} missing label(s); drop them from the training labels"
        )
    return np.bincount(codes, minlength=len(classes)) / len(codes)


def _distribution(value, classes: pd.Index) -> np.ndarray:
    """A fixed class distribution: a list in class order, or a dict (or Series) label -> probability (others 0)."""
    if isinstance(value, (Mapping, pd.Series)):
        items = dict(value.items())
        unknown = [label for label in items if label not in classes]
        if unknown:
            raise ValueError(
                f"reference={{'distribution': ...}} names {show(unknown)}, which are not classes ({show(list(classes))})"
            )
        q = np.array([float(items.get(c, 0.0)) for c in classes])
    else:
        q = np.asarray(value, dtype=np.float64)
        if q.shape != (len(classes),):
            raise ValueError(
                f"reference={{'distribution': ...}} needs one probability per class in class order "
                f"({len(classes)}: {show(list(classes))}), got shape {q.shape}; or give a dict label -> probability"
            )
    if not np.isfinite(q).all() or (q < 0).any() or abs(q.sum() - 1) > _SUM_TOLERANCE:
        raise ValueError(
            f"reference={{'distribution': ...}} must be probabilities (finite, >= 0, summing to 1), got "
            f"{q.tolist()} (sum {q.sum():.6g}); divide by the sum if these are counts"
        )
    return q


def reference_cube(true_counts: xr.DataArray, prior: np.ndarray | None) -> xr.DataArray:
    """The expected confusion cube of a forecaster drawing from ``prior`` independently of the truth.

    ``n_ij = n_i. q_j`` from the true-class counts ``n_i.`` (dims ``(..., "true")``); ``prior`` None: each
    matrix's own class prior ``q = n_i. / N`` (an empty matrix stays empty).
    """
    if prior is None:
        total = true_counts.sum(TRUE)
        q = (true_counts / total.where(total > 0)).fillna(0.0)
    else:
        q = xr.DataArray(
            prior, dims=TRUE, coords={TRUE: true_counts[TRUE].values} if TRUE in true_counts.coords else {}
        )
    return (true_counts * q.rename({TRUE: PRED})).transpose(..., *CUBE_DIMS)


def climatology_score(metric: Metric, params: Mapping, true_counts: xr.DataArray, prior: np.ndarray | None):
    """The metric of the climatological reference forecast, from the true-class counts ``(..., "true")``.

    A confusion metric on ``reference_cube``; a probability metric as ``sum_c f_c s(q, c)``, the mean score of
    the forecast ``q`` over the samples, ``f_c`` their share of true class c (NaN for no sample).
    """
    if metric.kind == "confusion":
        return apply_confusion(metric, reference_cube(true_counts, prior), params)
    classes = true_counts.indexes.get(TRUE, pd.RangeIndex(true_counts.sizes[TRUE]))
    total = true_counts.sum(TRUE)
    if prior is None:
        q = (true_counts / total.where(total > 0)).fillna(1.0 / len(classes)).rename({TRUE: CLASS_DIM})
    else:
        q = xr.DataArray(prior, dims=CLASS_DIM)
    proba = (
        q.expand_dims({TRUE: len(classes)})
        .assign_coords({CLASS_DIM: np.asarray(classes)})
        .drop_vars(TRUE, errors="ignore")
    )
    codes = xr.DataArray(np.arange(len(classes)), dims=TRUE)
    scores = apply_proba(metric, proba.transpose(..., CLASS_DIM), codes, classes, params)
    counts = true_counts.drop_vars(TRUE, errors="ignore")
    with np.errstate(invalid="ignore", divide="ignore"):
        mean = (counts * scores).where(counts > 0, 0.0).sum(TRUE) / total.where(total > 0)
    return labelled(mean.rename(metric.name), metric, params, classes)


def skill_values(values: xr.DataArray, reference, perfect: float, name, warn_undefined: bool = True) -> xr.DataArray:
    """``(values - reference) / (perfect - reference)``, NaN where undefined (said once with ``warn_undefined``)."""
    if not math.isfinite(perfect):
        if warn_undefined:
            warn(
                f"the skill of {name!r} is undefined (NaN): its perfect value is {perfect} (the bound in its good "
                "direction is infinite), so no improvement is a share of the largest possible one. Compare the "
                "values themselves, or pass perfect= with a finite target value",
                UndefinedSkillWarning,
            )
        return xr.full_like(values, np.nan, dtype=np.float64).drop_attrs(deep=False)
    gap = perfect - reference
    perfect_reference = gap == 0
    if warn_undefined and bool(np.any(perfect_reference)):
        undefined = xr.zeros_like(values, dtype=bool) | perfect_reference  # the result's elements
        warn(
            f"the skill of {name!r} is undefined (NaN) in {int(undefined.sum())} of {undefined.size} element(s): the "
            f"reference scores the perfect value {perfect} there (e.g. climatology on data of one class), so no "
            "forecast can improve on it",
            UndefinedSkillWarning,
        )
    with np.errstate(invalid="ignore", divide="ignore"):
        out = (values - reference) / xr.where(perfect_reference, np.nan, gap) + 0.0  # + 0.0: no -0.0
    return out.drop_attrs(deep=False)


def skill_attrs(attrs: Mapping, reference_text: str, perfect: float) -> dict:
    """The attrs of skill values: what they are the skill of, against what; higher is better, at most 1.

    No ``metric`` attr: a skill score is not the metric, so ``ci`` gives it the percentile interval and
    ``compare`` ranks it by these attrs.
    """
    kept = {k: attrs[k] for k in ("parameters", "classes") if k in attrs}
    return {
        "skill_of": str(attrs.get("metric", "")),
        **kept,
        "reference": reference_text,
        "perfect_score": float(perfect),
        "direction": "higher is better",
        "higher_is_better": 1,
        "metric_bounds": [float("-inf"), 1.0],
    }


def skill(values, reference=CLIMATOLOGY, *, cube: xr.DataArray | None = None, perfect=None, higher_is_better=None):
    """The skill score of metric values against a reference: ``(S - S_ref) / (S_perfect - S_ref)``.

    The skill of metric values already computed, e.g. the paired bootstrap replicates of several models
    (``df.ordinal.evaluate(..., by="model", n_resamples=n)``) against one of them; for a frame's skill with
    its intervals in one call see [`df.ordinal.skill`][ordframe._accessors.pandas.OrdinalFrameAccessor.skill].

    Parameters
    ----------
    values : xarray.DataArray or xarray.Dataset
        Metric values, with the attrs every ordframe result carries (``higher_is_better`` and
        ``metric_bounds`` give the perfect value; ``metric`` and ``parameters`` what a climatological
        reference is scored with). xarray keeps attrs through arithmetic, so values named unlike their
        ``metric`` attr and unlike their ``output`` attr (e.g. ``(1 - accuracy).rename("error_rate")``)
        are refused, since the attrs may be stale, unless ``higher_is_better=`` or ``perfect=`` is given.
    reference : "climatology", dict, xarray.DataArray, xarray.Dataset or float
        ``{dim: label}``: the values of the model ``label`` along ``dim`` (paired: the same replicate of
        the reference for every replicate of the models). ``"climatology"``, ``{"prior": training labels}``
        or ``{"distribution": probabilities}``: the climatological forecast (see the module's description
        on the page), scored from the true-class counts of ``cube``. Reference scores (a DataArray, a
        Dataset by variable name, or a finite number): used as they are, broadcast against ``values``.
    cube : xarray.DataArray, optional
        For a climatological reference: the confusion cube(s) the values were computed on, with the
        values' dims (a bootstrap's replicate cubes for replicates), e.g. ``cube.ordinal.bootstrap(2000)``.
    perfect : float or dict, optional
        The perfect value (by variable name with a dict), instead of the bound in the metric's good
        direction read from the attrs.
    higher_is_better : bool or dict, optional
        Which way is better, as in [`compare`][ordframe.compare]: None (default) reads each variable's
        ``higher_is_better`` attr; True or False applies to every variable; a dict gives it by variable name.
        The perfect value is then the bound of ``metric_bounds`` in that direction (pass ``perfect=`` instead
        if the values' range is not the metric's, e.g. ``100 * accuracy``).

    Returns
    -------
    xarray.DataArray or xarray.Dataset
        Skill scores like ``values``, with attrs ``skill_of`` (the metric), ``reference``, ``perfect_score``
        and ``higher_is_better`` = 1 (at most 1; 0 is the reference's skill).

    Raises
    ------
    ValueError
        For a reference that is not one of the forms above (a NaN or infinite number too), a label that is
        not along ``dim``, a climatological reference without ``cube`` (or with a cube whose dims are not
        those of the values), values without the attrs that give their perfect value or named unlike their
        metric (without ``higher_is_better=`` or ``perfect=``), values of a metric whose best value is a
        target (a ``best`` attr; without ``higher_is_better=`` or ``perfect=``), or a distribution that does
        not sum to 1.
    TypeError
        For ``perfect=`` and ``higher_is_better=`` both given for one variable.

    Warns
    -----
    UndefinedSkillWarning
        Where the skill is NaN because it is undefined: no finite perfect value, or a perfect reference.

    Notes
    -----
    Murphy (1988) for the skill score; Wilks (2011, ch. 8) for the climatological and random reference
    forecasts. With a perfect value of 0 the skill is ``1 - S / S_ref``: the RPSS of the RPS and the BSS of
    the Brier score. The sample climatology is fitted to the samples scored, so under a proper score the
    skill against it is biased low on small test sets (as the RPSS of small ensembles is: Weigel, Liniger &
    Appenzeller 2007); a training prior is not.

    Examples
    --------
    >>> import ordframe
    >>> df = pd.DataFrame({"y": [0, 1, 2, 2] * 25, "yhat": [0, 1, 2, 1] * 25, "model": "a"})
    >>> both = pd.concat([df, df.assign(yhat=1, model="baseline")])
    >>> values = both.ordinal.evaluate("y", "yhat", by="model", metrics=["mae"])
    >>> ordframe.skill(values, {"model": "baseline"})["mae"].values.tolist()
    [0.6666666666666666, 0.0]
    >>> cube = both.ordinal.confusion("y", "yhat", by="model")  # climatology: MAE 0.875 (prior 1/4, 1/4, 1/2)
    >>> ordframe.skill(cube.ordinal.mae(), "climatology", cube=cube).round(4).values.tolist()
    [0.7143, 0.1429]
    """
    if isinstance(values, xr.Dataset):
        perfect_of = perfect if isinstance(perfect, Mapping) else dict.fromkeys(values.data_vars, perfect)
        better = directions(higher_is_better, list(values.data_vars))
        skills = {}
        for name, v in values.items():
            ref = reference[name] if isinstance(reference, xr.Dataset) else reference
            skills[name] = skill(v, ref, cube=cube, perfect=perfect_of.get(name), higher_is_better=better[name])
        return xr.Dataset(skills, attrs=values.attrs)
    if not isinstance(values, xr.DataArray):
        raise TypeError(f"values must be an xarray DataArray or Dataset, got {type(values).__name__}")
    name = values.name if values.name is not None else values.attrs.get("metric", "values")
    best = _perfect_of(values, perfect, directions(higher_is_better, [name])[name], name)
    if isinstance(reference, (xr.DataArray, numbers.Real)) and not isinstance(reference, bool):
        text = "the reference scores given"
        ref = reference.drop_attrs(deep=False) if isinstance(reference, xr.DataArray) else _finite_reference(reference)
    else:
        parsed = parse_reference(reference, _classes_of(values, cube), values.dims)
        text = parsed.text
        if parsed.is_model:
            check_label(parsed.label, values, str(parsed.dim), f"reference={{{parsed.dim!r}: ...}}")
            ref = values.sel({parsed.dim: parsed.label}, drop=True).drop_attrs(deep=False)
        else:
            ref = _cube_reference(values, cube, parsed, name)
    out = skill_values(values, ref, best, name)
    return out.assign_attrs(skill_attrs({**values.attrs, "metric": name}, text, best)).rename(values.name)


def _perfect_of(values: xr.DataArray, perfect, higher_is_better: bool | None, name) -> float:
    """``perfect=`` if given, else the bound of the values' ``metric_bounds`` in the direction given or in the attrs."""
    if perfect is not None:
        if higher_is_better is not None:
            raise TypeError(
                f"perfect= and higher_is_better= are both given for {name!r}: perfect= is the perfect value itself, "
                "give one of them"
            )
        if isinstance(perfect, bool) or not isinstance(perfect, (int, float)):
            raise TypeError(f"perfect= must be a number (or a dict of numbers by variable), got {perfect!r}")
        return float(perfect)
    attrs = values.attrs
    best = target_of(attrs)
    if higher_is_better is None and best is not None:
        raise no_skill(name, best)
    if "metric_bounds" not in attrs or (higher_is_better is None and "higher_is_better" not in attrs):
        raise ValueError(
            f"{name!r} does not say its perfect value (no 'higher_is_better' and 'metric_bounds' attrs, which "
            "ordframe results carry): compute it with an ordframe metric, or pass perfect= (e.g. perfect=0.0 for "
            "an error)"
        )
    better = ranking(name, attrs, higher_is_better, strict=True).sign > 0  # the perfect value follows the direction
    return perfect_score(better, attrs["metric_bounds"])


def _finite_reference(reference: numbers.Real) -> float:
    if not math.isfinite(reference):
        raise ValueError(
            f"reference={reference!r} is not a finite score: the skill against it would be NaN everywhere; give "
            "the reference's score, 'climatology' or {<model dim>: <label>} (e.g. {'model': 'baseline'})"
        )
    return float(reference)


def _classes_of(values: xr.DataArray, cube) -> pd.Index | None:
    if cube is not None:
        return cube_classes(cube)[1]
    classes = values.attrs.get("classes")
    return None if classes is None else pd.Index(json.loads(classes))


def _cube_reference(values: xr.DataArray, cube, parsed: Reference, name) -> xr.DataArray:
    """A climatological reference's score on every matrix of ``cube`` (the values' own cubes)."""
    if cube is None:
        raise ValueError(
            f"a climatological reference of {name!r} is scored from the true-class counts of the cube the values "
            "were computed on: pass cube= (for bootstrap replicates, the replicate cubes), or use "
            "df.ordinal.skill(...), which has them"
        )
    if "metric" not in values.attrs:
        raise ValueError(f"{name!r} has no 'metric' attr: which metric scores the climatological reference?")
    metric = registry.get_metric(values.attrs["metric"])
    params = parameters_of(metric, values.attrs, name)
    cube, _ = cube_classes(cube)
    stack = [d for d in cube.dims if d not in CUBE_DIMS]
    if sorted(map(str, stack)) != sorted(map(str, values.dims)):
        raise ValueError(
            f"cube= has the stack dims {show(stack)}, the values of {name!r} {show(list(values.dims))}: pass the "
            "cube the values were computed on"
        )
    reference = climatology_score(metric, params, cube.sum(PRED), parsed.prior)
    try:
        xr.align(values, reference, join="exact")
    except ValueError:
        raise ValueError(
            f"cube= is not labelled like the values of {name!r} (another coordinate along a shared dim): pass the "
            "cube the values were computed on"
        ) from None
    return reference.drop_attrs(deep=False)


def frame_skill(
    df: pd.DataFrame,
    selection: Selection,
    draws: Resampling,
    metric,
    *,
    resampled: bool,
    reference=CLIMATOLOGY,
    level: float = 0.95,
    method: str = "percentile",
) -> xr.Dataset:
    """The skill of ``metric`` for every ``by`` group of a frame, and if ``resampled`` its paired intervals.

    A confusion metric scores ``pred`` (or, without it, the most probable class of ``proba``), a probability
    metric ``proba``. Not ``resampled``, ``draws.sample`` and ``draws.strata`` only check the draws:
    every ``by`` group predicts every sample once, with one true label.
    """
    level = check_level(level)
    if method not in SKILL_METHODS:
        raise ValueError(f"method must be one of {SKILL_METHODS} for the interval of a skill score, got {method!r}")
    request = metric_request(metric, None, argument="metric")
    if len(request) != 1:
        raise ValueError(f"metric= names one metric, got {show(list(request))}; call skill once per metric")
    ((label, (chosen, params)),) = request.items()
    if chosen.best is not None:
        raise no_skill(label, chosen.best)
    if chosen.kind == "score":
        raise ValueError(
            f"{chosen.name!r} is a score metric, whose chance value is fixed (0.5 for the ordinal c-index): a skill "
            "score against a reference forecast does not apply; compare models with df.ordinal.compare(..., marker=)"
        )
    proba, pred = selection.proba, selection.pred
    if chosen.kind == "proba" and proba is None:
        raise TypeError(f"{chosen.name!r} scores class probabilities: pass proba= (the probability columns)")
    if chosen.kind == "confusion" and pred is None and proba is None:
        raise TypeError(f"{chosen.name!r} scores predicted labels: pass pred= (or proba=, for the most probable class)")
    if chosen.kind == "proba":
        selection = selection.but(pred=None)  # a probability metric reads the probabilities only
    if not resampled and (draws.sample is not None or draws.strata):
        paired_samples(df, selection, draws, resampled=False)
    wanted = {label: (chosen.name, params)}
    estimate, rows = evaluate_frame_rows(df, selection, wanted)
    # the true-class counts, over the classes scored (integer labels keep those that occur)
    cube = rows.cube(warned=True)
    parsed = parse_reference(reference, cube.indexes[TRUE], list(selection.by))
    score = estimate[label]
    best = perfect_score(chosen.orientation.sign > 0, chosen.bounds)
    reference_score = _reference_of(score, parsed, chosen, params, cube)
    variables = {
        "skill": skill_values(score, reference_score, best, label),
        "score": score,
        "reference_score": xr.broadcast(reference_score, score)[0].drop_attrs(deep=False),
    }
    attrs = {"metric": label, **skill_attrs(score.attrs, parsed.text, best)}
    if resampled:
        replicates, cubes = paired_replicates(df, selection, draws, wanted, pool=True)
        values = replicates[label]
        reference_replicates = _reference_of(values, parsed, chosen, params, cubes)
        skills = skill_values(values, reference_replicates, best, label, warn_undefined=False).transpose(
            ..., BOOTSTRAP_DIM
        )
        undefined = "the skill is undefined on them: the metric is, or the reference is perfect there"
        share = valid_share(skills, BOOTSTRAP_DIM, name=label, undefined=undefined, adjustable=False)
        low, high = percentile(skills, BOOTSTRAP_DIM, (1 - level) / 2)
        if method == "basic":
            low, high = reflected(low, high, variables["skill"], 1.0)
        variables["interval"] = interval_of(low, high, skills, level, method, share).drop_attrs(deep=False)
        attrs.update({"ci_level": level, "ci_method": method, "ci_valid_share": share})
        attrs["n_resamples"] = draws.n_resamples
    variables["skill"] = variables["skill"].assign_attrs(skill_attrs(score.attrs, parsed.text, best))
    return xr.Dataset(variables, attrs=attrs)


def _reference_of(values: xr.DataArray, parsed: Reference, metric: Metric, params, cube) -> xr.DataArray:
    """The reference's score for every element of ``values`` (a model's, or climatology's from ``cube``)."""
    if parsed.is_model:
        check_label(parsed.label, values, str(parsed.dim), f"reference={{{parsed.dim!r}: ...}}")
        return values.sel({parsed.dim: parsed.label}, drop=True).drop_attrs(deep=False)
    return climatology_score(metric, params, cube.sum(PRED), parsed.prior).drop_attrs(deep=False)
