"""George, Lu and Chang's cost-sensitive distance d and its components (TC, max TC, MC).

ordframe's matrices have rows = true class t and columns = predicted class p;
the paper stores the transpose (its c_ij is for predicted i, true j). With
n_t the true-class sizes (row sums) and N their total, the default cost
(eq. 4) is

    C[t, p] = (N - n_t) / n_p * |t - p|,

TC = sum C[t, p] n_tp (eq. 5), max TC is the largest TC any matrix with the
same true-class sizes and an empty diagonal can reach (eq. 6), MC = TC / max TC
and d = sqrt((1 - Acc)^2 + MC^2) (eq. 7). Eq. 6 is a linear programme that
separates by true class: each class sends all its n_t samples to its most
costly wrong class, so max TC = sum_t n_t max_{p != t} C[t, p] exactly.

The five metrics are functions of the accuracy, TC and max TC of a matrix (``GEORGE``): ``evaluate``
computes them once for all five (``Metric.needs``); with the ``numba`` extra in one compiled pass.
"""

import numpy as np

from ordframe._registry.hookspecs import hookimpl
from ordframe._registry.metric import Metric, Term
from ordframe.metrics import _accelerate
from ordframe.metrics._matrix import classes_first, cost_matrix, in_blocks, index_distance

REFERENCE = (
    "N. I. George, T.-P. Lu, C.-W. Chang, Cost-sensitive performance metric for comparing multiple "
    "ordinal classifiers, Artificial Intelligence Research 5(1), 2016"
)


def _default_cost(sizes):
    """Eq. 4 on class sizes laid out ``(K, ...)``: cost ``(K, K, ...)``, NaN in the column of an empty class."""
    k = sizes.shape[0]
    rest = sizes.sum(axis=0) - sizes  # N - n_t
    inverse = np.divide(1.0, sizes, out=np.full(sizes.shape, np.nan), where=sizes > 0)  # 1 / n_p
    cost = rest[:, None] * inverse[None, :]
    cost *= index_distance(k).reshape((k, k) + (1,) * (sizes.ndim - 1))
    return cost


def george_cost(class_sizes):
    """George et al.'s default cost matrix, C[t, p] = (N - n_t) / n_p |t - p| (George, Lu & Chang 2016, eq. 4).

    The cost that ``d``, ``mc``, ``tc``, ``max_tc`` and ``chance_distance`` use when no ``cost=`` is
    given, built from the true class sizes of the evaluated matrix. Build it from other sizes (say, the
    training set's) and pass it as ``cost=`` to use those instead.

    Parameters
    ----------
    class_sizes : array_like
        The sizes n_1..n_K of the classes in their order, shape ``(..., K)``; N is their sum.

    Returns
    -------
    numpy.ndarray
        Shape ``(..., K, K)``, rows = true class t, columns = predicted class p, zero diagonal. The
        column of a class without samples (n_p = 0) is NaN: its cost is undefined.

    Examples
    --------
    >>> from ordframe.metrics.cost import george_cost
    >>> george_cost([10, 20, 70]).round(2)
    array([[0.  , 4.5 , 2.57],
           [8.  , 0.  , 1.14],
           [6.  , 1.5 , 0.  ]])
    """
    sizes = np.moveaxis(np.asarray(class_sizes, dtype=np.float64), -1, 0)
    return np.moveaxis(_default_cost(sizes), (0, 1), (-2, -1))


def _user_cost(cost, k):
    cost = cost_matrix(cost, k, "George's d")
    if (cost < 0).any() or np.diagonal(cost).any():
        raise ValueError(
            "George's d: a cost matrix must be >= 0 with a zero diagonal (a correct prediction costs nothing)"
        )
    return cost


def _terms(counts, cost=None):
    """Accuracy, TC and max TC of every matrix (eqs. 1, 5 and 6)."""
    return tuple(np.moveaxis(_terms_numpy(counts, cost), -1, 0))


def _terms_compiled(counts, cost=None):
    return _accelerate.george(counts, None if cost is None else _user_cost(cost, counts.shape[-1]))


#: Accuracy, TC and max TC: computed once for those of d, MC, TC, max TC and the chance distance that
#: ``evaluate`` computes with the same ``cost``.
GEORGE = Term("george", _terms, compiled=_terms_compiled)


def _given(counts, cost, george):
    """``george``, or the terms of one compiled pass: what the compiled twins below give their numpy kernels."""
    return _terms_compiled(counts, cost) if george is None else george


@in_blocks
def _terms_numpy(counts, cost):
    x = classes_first(counts)  # x[t, p] has the stack's shape
    k, sizes = len(x), x.sum(axis=1)
    if cost is None:
        cost = _default_cost(sizes)
    else:
        cost = _user_cost(cost, k).reshape((k, k) + (1,) * (x.ndim - 2))
    accuracy = np.trace(x) / sizes.sum(axis=0)
    # Costs are >= 0 and zero on the diagonal, so a row's maximum is its maximum over p != t.
    return np.stack([accuracy, np.einsum("tp...,tp...->...", x, cost), (sizes * cost.max(axis=1)).sum(axis=0)], -1)


def tc(counts, cost=None, *, george=None):
    """Total misclassification cost TC = sum_{t,p} C[t, p] n_tp (eq. 5)."""
    return (_terms(counts, cost) if george is None else george)[1].copy()


def max_tc(counts, cost=None, *, george=None):
    """max TC = sum_t n_t max_{p != t} C[t, p], the exact solution of eq. 6."""
    return (_terms(counts, cost) if george is None else george)[2].copy()


def mc(counts, cost=None, *, george=None):
    """Misclassification cost MC = TC / max TC, in [0, 1]."""
    _, total_cost, most = _terms(counts, cost) if george is None else george
    return total_cost / most


def d(counts, cost=None, *, george=None):
    """Distance to the ideal point: d = sqrt((1 - Acc)^2 + MC^2) (eq. 7), in [0, sqrt(2)]."""
    accuracy, total_cost, most = _terms(counts, cost) if george is None else george
    return _length(1.0 - accuracy, total_cost / most)


def _length(x, y):
    """sqrt(x^2 + y^2) of arrays in [0, 1] (or NaN); ``numpy.hypot`` where the squares would lose precision
    (below 1e-290), which elsewhere is an order of magnitude slower for the same value (to rounding)."""
    squares = x * x + y * y
    tiny = squares < 1e-290
    if not np.any(tiny):
        return np.sqrt(squares)
    if np.ndim(squares) == 0:
        return np.hypot(x, y)
    length = np.sqrt(squares)
    length[tiny] = np.hypot(x[tiny], y[tiny])
    return length


def chance_distance(counts, cost=None, *, george=None):
    """George's tie-break for equal d: |Acc + MC - 1| / sqrt(2), the distance from the line Acc + MC = 1."""
    accuracy, total_cost, most = _terms(counts, cost) if george is None else george
    return np.abs(accuracy + total_cost / most - 1.0) / np.sqrt(2.0)


def _tc_compiled(counts, cost=None, *, george=None):
    return tc(counts, cost, george=_given(counts, cost, george))


def _max_tc_compiled(counts, cost=None, *, george=None):
    return max_tc(counts, cost, george=_given(counts, cost, george))


def _mc_compiled(counts, cost=None, *, george=None):
    return mc(counts, cost, george=_given(counts, cost, george))


def _d_compiled(counts, cost=None, *, george=None):
    return d(counts, cost, george=_given(counts, cost, george))


def _chance_distance_compiled(counts, cost=None, *, george=None):
    return chance_distance(counts, cost, george=_given(counts, cost, george))


_UNDEFINED_COST = "the default cost needs every class to have true samples (it divides by the class size)"
_UNDEFINED = _UNDEFINED_COST + ", or max TC is zero (a cost matrix that is zero where the samples are)"


@hookimpl
def ordframe_metrics():
    costs = (0.0, float("inf"))
    return [
        Metric(
            "d",
            "confusion",
            d,
            False,
            (0.0, float(np.sqrt(2.0))),
            description="George's cost-sensitive distance of (Acc, MC) from the ideal point (1, 0).",
            reference=REFERENCE,
            undefined=_UNDEFINED,
            compiled=_d_compiled,
            needs=(GEORGE,),
        ),
        Metric(
            "mc",
            "confusion",
            mc,
            False,
            (0.0, 1.0),
            description="Misclassification cost TC / max TC (George et al.).",
            reference=REFERENCE,
            undefined=_UNDEFINED,
            compiled=_mc_compiled,
            needs=(GEORGE,),
        ),
        Metric(
            "tc",
            "confusion",
            tc,
            False,
            costs,
            description="Total misclassification cost under George's class-size weighted cost (or a given one).",
            reference=REFERENCE,
            undefined=_UNDEFINED_COST,
            interval="bca",
            compiled=_tc_compiled,
            needs=(GEORGE,),
        ),
        Metric(
            "max_tc",
            "confusion",
            max_tc,
            False,
            costs,
            description="The largest TC possible with these true-class sizes (MC's normaliser; not a score).",
            reference=REFERENCE,
            undefined=_UNDEFINED_COST,
            interval="basic",
            compiled=_max_tc_compiled,
            needs=(GEORGE,),
        ),
        Metric(
            "chance_distance",
            "confusion",
            chance_distance,
            True,
            (0.0, float(1.0 / np.sqrt(2.0))),
            description="George's tie-break for equal d: |Acc + MC - 1| / sqrt(2); farther is better.",
            reference=REFERENCE,
            undefined=_UNDEFINED,
            compiled=_chance_distance_compiled,
            needs=(GEORGE,),
        ),
    ]
