"""Random confusion cubes of a given design: class distribution, accuracy and error structure.

Every replicate is drawn at once (numpy's multinomial and hypergeometric
samplers take arrays of counts); the loops below run over the K classes,
never over replicates.
"""

from __future__ import annotations

import math
import numbers

import numpy as np
import xarray as xr

from ordframe._core.checks import check_count, new_dim, rng_of
from ordframe._core.dims import CUBE_DIMS, PRED, REPLICATE_DIM, TRUE
from ordframe.metrics._matrix import index_distance
from ordframe.simulate._draw import multinomials

FIXED = ("overall", "classwise")
SIZES = ("multinomial", "fixed")
SPREADS = ("hypergeometric", "sequential")


def confusion_cubes(
    k,
    n,
    *,
    accuracy,
    fixed="overall",
    largest=None,
    priors=None,
    sizes="multinomial",
    spread="hypergeometric",
    errors="uniform",
    n_resamples=1,
    replicate_dim=REPLICATE_DIM,
    seed=None,
) -> xr.DataArray:
    """Random confusion matrices of K ordinal classes and N samples with a fixed accuracy.

    Each replicate is drawn in three steps (rows = true class i, columns = predicted class j):

    1. **Class sizes** n_i. The class probabilities are ``priors``, or ``largest`` for class 1 (the
       first class) and (1 - largest) / (K - 1) for each other class, or 1 / K each. With
       ``sizes="multinomial"`` the sizes are a multinomial draw of N samples; with ``sizes="fixed"``
       they are N p_i rounded to whole numbers that sum to N (largest remainders first, ties to the
       later classes: N = 800, largest 0.75 gives 600, 66, 67, 67), the same in every replicate.
    2. **Correct predictions** n_ii. ``fixed="classwise"``: n_ii = round(accuracy n_i) in every class
       (halves rounded up), George, Lu & Chang's (2016) Acc_i = Acc (with multinomial sizes the
       overall accuracy then varies a little with the rounding). ``fixed="overall"``: the trace
       is T = round(accuracy N) exactly, so every replicate has the accuracy T / N. With
       ``spread="hypergeometric"`` T is spread over the classes by a multivariate hypergeometric
       draw (T samples drawn without replacement from the N, each class receiving those of its own),
       so E[n_ii] = T n_i / N. With multinomial sizes as well, the classes of the T correct samples and
       those of the N - T others are drawn instead as two independent multinomial draws (the classes of
       a random subset of i.i.d. samples are i.i.d., and independent of the rest's): the same
       distribution of (n_i, n_ii), from fewer and cheaper variates. With ``spread="sequential"`` class 1, 2, ... in turn receives a
       uniform whole number of the correct predictions left, between the fewest and the most that
       keep the rest feasible (n_ii <= n_i), and the last class the remainder: far more varied,
       often leaving whole classes perfectly or never predicted.
    3. **Errors**. The n_i - n_ii errors of row i go to the other classes. A float ``errors`` is a
       decay rate: a multinomial draw with probabilities proportional to w_ij = exp(-decay |i - j|),
       j != i (decay > 0 makes near errors likelier than far ones, decay < 0 the reverse);
       ``"uniform"`` is decay 0, every wrong class equally likely. ``"sequential"``: the wrong
       classes, from the first to the last, in turn receive a uniform whole number of the errors
       left (0 to all), the last the remainder.

    Every multinomial draw is a sequence of binomial ones, each by inversion of a table of binomial
    CDFs at one uniform variate per replicate (``numpy.random.Generator.random``); with the ``numba``
    extra the inversion is compiled, and gives the same numbers.

    ``sizes="fixed", spread="sequential", errors="sequential"`` with ``largest`` reproduces George,
    Lu & Chang's (2016) Table 3 for fixed overall accuracy (see the reproduction page); their
    Table 4 matrices (class sizes 600, 66, 67, 67) show the same features.

    Parameters
    ----------
    k : int
        The number of classes, >= 2.
    n : int
        The number of samples N of every matrix, >= 1.
    accuracy : float
        The accuracy, in [0, 1]: overall (``fixed="overall"``) or of every class (``"classwise"``).
    fixed : {"overall", "classwise"}
        Which accuracy is held fixed (step 2).
    largest : float, optional
        The share of class 1, the largest class, in [1/K, 1]; the other classes share the rest
        equally. Give ``largest`` or ``priors``, not both; neither means balanced classes.
    priors : array_like, optional
        The class probabilities p_1..p_K (>= 0, normalised to sum 1).
    sizes : {"multinomial", "fixed"}
        Whether the class sizes vary between replicates (step 1).
    spread : {"hypergeometric", "sequential"}
        How ``fixed="overall"`` spreads the correct predictions over the classes (step 2).
    errors : "uniform", "sequential" or float
        The error structure (step 3): ``"uniform"``, ``"sequential"``, or the decay rate of the error
        weights with the class distance.
    n_resamples : int
        The number of matrices drawn, >= 1.
    replicate_dim : str
        The name of the new dim of the replicates.
    seed : None, int, numpy.random.SeedSequence or numpy.random.Generator
        The random state; the same seed gives the same cube.

    Returns
    -------
    xarray.DataArray
        int64 counts with dims ``(replicate_dim, "true", "pred")``, classes labelled 1..K, named ``count``: a
        confusion cube for ``cube.ordinal.evaluate()`` and ``ordframe.simulate.prefers``.

    Raises
    ------
    TypeError
        If ``k``, ``n`` or ``n_resamples`` is not a whole number in range, or ``replicate_dim`` not a str.
    ValueError
        If an argument is out of range (the message names it and the value), or both ``largest``
        and ``priors`` are given.

    Examples
    --------
    >>> from ordframe.simulate import confusion_cubes
    >>> cube = confusion_cubes(4, 400, accuracy=0.6, largest=0.5, sizes="fixed", n_resamples=3, seed=1)
    >>> cube.sum(["true", "pred"]).values.tolist()
    [400, 400, 400]
    >>> cube.sum("pred").values[0].tolist()  # the class sizes
    [200, 66, 67, 67]
    >>> (cube.sel(true=cube.pred).sum("pred") / 400).values.tolist()  # the accuracy of each replicate
    [0.6, 0.6, 0.6]
    """
    k = check_count(k, "k", 2)
    n = check_count(n, "n", 1)
    n_resamples = check_count(n_resamples, "n_resamples", 1)
    replicate_dim = new_dim(replicate_dim, CUBE_DIMS, "replicate_dim")
    accuracy = _share(accuracy, "accuracy")
    if fixed not in FIXED:
        raise ValueError(f"fixed must be 'overall' or 'classwise' (which accuracy is held fixed), got {fixed!r}")
    if sizes not in SIZES:
        raise ValueError(
            f"sizes must be 'multinomial' (class sizes drawn per replicate) or 'fixed' (N p_i rounded), got {sizes!r}"
        )
    if spread not in SPREADS:
        raise ValueError(
            f"spread must be 'hypergeometric' or 'sequential' (how the correct predictions of fixed='overall' "
            f"are spread over the classes), got {spread!r}"
        )
    weights = None if isinstance(errors, str) and errors == "sequential" else _error_weights(k, errors)
    p = _priors(k, largest, priors)
    rng = rng_of(seed)

    trace = int(np.floor(accuracy * n + 0.5))
    if sizes == "multinomial" and fixed == "overall" and spread == "hypergeometric":
        # T of N samples of i.i.d. classes, drawn without replacement, have i.i.d. classes, and so do the others
        correct = multinomials(rng, trace, p, n_resamples)
        wrong = multinomials(rng, n - trace, p, n_resamples)
    else:
        if sizes == "fixed":
            class_sizes = np.broadcast_to(_apportion(n, p), (n_resamples, k))
        else:
            class_sizes = multinomials(rng, n, p, n_resamples)
        if fixed == "classwise":
            correct = np.floor(accuracy * class_sizes + 0.5).astype(np.int64)
        elif spread == "hypergeometric":
            correct = _hypergeometric(rng, class_sizes, trace)
        else:
            correct = _sequential(rng, np.full(n_resamples, trace), class_sizes)
        wrong = class_sizes - correct

    counts = np.empty((k, k, n_resamples), dtype=np.int64)  # each cell's replicates side by side
    for i in range(k):  # one vectorised draw per true class, over all replicates
        others = np.arange(k) != i
        if weights is None:
            counts[i, others] = _sequential(
                rng, wrong[:, i], np.broadcast_to(wrong[:, i, None], (n_resamples, k - 1))
            ).T
        else:
            counts[i] = multinomials(rng, wrong[:, i], weights[i], n_resamples).T
        counts[i, i] = correct[:, i]
    classes = np.arange(1, k + 1)
    counts = np.ascontiguousarray(np.moveaxis(counts, -1, 0))
    return xr.DataArray(counts, dims=(replicate_dim, TRUE, PRED), coords={TRUE: classes, PRED: classes}, name="count")


def _share(value, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real) or not 0 <= float(value) <= 1:
        raise ValueError(f"{name} must be a number in [0, 1], got {value!r}")
    return float(value)


def _priors(k: int, largest, priors) -> np.ndarray:
    """The class probabilities: ``priors`` normalised, ``largest`` for class 1 and the rest equal, or 1/K."""
    if largest is not None and priors is not None:
        raise ValueError("give largest= (the share of class 1) or priors= (every class's share), not both")
    if largest is not None:
        share = _share(largest, "largest")
        if share < 1 / k - 1e-12:
            raise ValueError(
                f"largest={largest!r} is below 1/K = {1 / k:.4g}, so class 1 would not be the largest; give a "
                f"share in [1/K, 1], or priors= for another class distribution"
            )
        return np.array([share] + [(1 - share) / (k - 1)] * (k - 1))
    if priors is None:
        return np.full(k, 1 / k)
    p = np.asarray(priors, dtype=np.float64)
    if p.shape != (k,) or not np.isfinite(p).all() or (p < 0).any() or p.sum() <= 0:
        raise ValueError(f"priors must be {k} finite numbers >= 0 (one per class) with a positive sum, got {priors!r}")
    return p / p.sum()


def _apportion(n: int, p: np.ndarray) -> np.ndarray:
    """N p rounded to whole numbers summing to N: floors, then +1 by largest remainder (ties: later classes)."""
    exact = n * p
    sizes = np.floor(exact).astype(np.int64)
    remainder = exact - sizes
    order = np.lexsort((-np.arange(len(p)), -np.round(remainder, 9)))
    sizes[order[: n - sizes.sum()]] += 1
    return sizes


def _sequential(rng: np.random.Generator, totals: np.ndarray, caps: np.ndarray) -> np.ndarray:
    """``totals`` split into parts <= ``caps`` (rows): each part in turn a uniform integer of the feasible range."""
    parts = np.empty_like(caps)
    left, room = totals.copy(), caps.sum(axis=1)
    for i in range(caps.shape[1] - 1):
        room = room - caps[:, i]
        parts[:, i] = rng.integers(np.maximum(0, left - room), np.minimum(caps[:, i], left), endpoint=True)
        left = left - parts[:, i]
    parts[:, -1] = left
    return parts


def _hypergeometric(rng: np.random.Generator, class_sizes: np.ndarray, total: int) -> np.ndarray:
    """A multivariate hypergeometric draw of ``total`` from every row of ``class_sizes``, by its marginals."""
    correct = np.empty_like(class_sizes)
    left, others = np.full(len(class_sizes), total), class_sizes.sum(axis=1)
    for i in range(class_sizes.shape[1] - 1):
        others = others - class_sizes[:, i]
        correct[:, i] = rng.hypergeometric(class_sizes[:, i], others, left)
        left = left - correct[:, i]
    correct[:, -1] = left
    return correct


def _error_weights(k: int, errors) -> np.ndarray:
    """Row i: the probabilities of the wrong classes j != i, proportional to exp(-decay |i - j|)."""
    if isinstance(errors, str) and errors == "uniform":
        decay = 0.0
    elif isinstance(errors, numbers.Real) and not isinstance(errors, bool) and math.isfinite(float(errors)):
        decay = float(errors)
    else:
        raise ValueError(
            f"errors must be 'uniform', 'sequential' or a finite decay rate (errors go to class j with weight "
            f"exp(-decay |i - j|)), got {errors!r}"
        )
    log_weight = -decay * index_distance(k)
    np.fill_diagonal(log_weight, -np.inf)
    weights = np.exp(log_weight - log_weight.max(axis=1, keepdims=True))
    return weights / weights.sum(axis=1, keepdims=True)
