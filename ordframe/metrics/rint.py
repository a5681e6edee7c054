"""The r_int coefficient of Pinto da Costa, Alonso & Cardoso (2008), in its corrected form.

r_int compares the order relations of the true and predicted classes over all
ordered pairs of distinct observations: S1 holds the pairs (a, b) with
true(a) <= true(b), S2 those with pred(a) <= pred(b), and

    r_int = -1 + 2 card(S1 n S2) / sqrt(card(S1) card(S2)).

From the confusion matrix (rows = true class), the corrected counts of the
authors' later note are

    card(S1)      = sum_i sum_{j>=i} n_i. n_j. - N
    card(S2)      = sum_i sum_{j>=i} n_.i n_.j - N
    card(S1 n S2) = sum_{i,j} n_ij sum_{i'>=i, j'>=j} n_i'j' - N

and the inner quadruple sum is a 2-D suffix sum, so the cost is O(K^2).

The "- N" terms remove the N pairs (a, a) of an observation with itself, so
they are exact only when the counts are numbers of observations. On weighted
or proportion cubes (non-integer counts) they are not: [[0.5, 0], [0, 0.5]]
would give -3. The kernel therefore decides per matrix:

* every count integer-valued: the exact finite formula above;
* otherwise the large-sample form, the limit of the formula when every count
  is multiplied by c -> infinity (the "- N" terms vanish against the N^2
  ones): card(S1) ~ sum_i sum_{j>=i} n_i. n_j., and so on. It depends on the
  weights' scale not at all, lies in [-1, 1] (card(S1 n S2) <= card(S1),
  card(S2) term by term) and is exactly 1 for a diagonal matrix.

Everything is computed on proportions p = n / N, so that no product of two
counts is formed (no overflow at 1e160, no underflow at 1e-160); the exact
formula becomes card(S1) / N^2 = sum_i sum_{j>=i} p_i. p_j. - 1/N, etc.
"""

import numpy as np

from ordframe._registry.hookspecs import hookimpl
from ordframe._registry.metric import Metric
from ordframe.metrics import _accelerate
from ordframe.metrics._matrix import RANKS, classes_first, in_blocks, rank_statistic, suffix_sum

REFERENCE = (
    "J. Pinto da Costa, H. Alonso, J. S. Cardoso, The unimodal model for the classification of ordinal data, "
    "Neural Networks 21(1), 2008; formula as corrected in their later note"
)


def _rint(x, exact):
    """r_int of classes-first counts ``x`` (K, K, ...); ``exact`` selects the finite formula per matrix.

    With p = n / N, the three cardinalities divided by N^2 are
    sum_{i,j} p_ij sum_{i'>=i, j'>=j} p_i'j' and sum_i p_i sum_{j>=i} p_j for each margin,
    less 1/N where ``exact`` holds. Sums of products of proportions stay in [0, 1]
    whatever the scale of the counts.
    """
    rows, cols = x.sum(axis=1), x.sum(axis=0)
    varies = ((rows > 0).sum(axis=0) >= 2) & ((cols > 0).sum(axis=0) >= 2)
    inv_n = 1.0 / np.where(varies, rows.sum(axis=0), np.nan)  # NaN (not 1/0) where undefined: no warnings
    p = x * inv_n
    tail = suffix_sum(suffix_sum(p, 0), 1)  # tail[i, j] = sum_{i' >= i, j' >= j} p_i'j'
    self_pairs = np.where(exact, inv_n, 0.0)  # the N pairs (a, a), over N^2
    agree = np.einsum("ij...,ij...->...", p, tail) - self_pairs
    s1 = (rows * inv_n * tail[:, 0]).sum(axis=0) - self_pairs
    s2 = (cols * inv_n * tail[0]).sum(axis=0) - self_pairs
    return np.where(varies, -1.0 + 2.0 * agree / np.sqrt(s1 * s2), np.nan)


def rint(counts):
    """r_int = -1 + 2 card(S1 n S2) / sqrt(card(S1) card(S2)), Pinto da Costa et al.'s corrected formula.

    A matrix whose counts are all integer-valued (numbers of observations, also
    when as large as 1e160) gets the exact finite formula with its "- N" terms
    for the pairs of an observation with itself; any other matrix (weights,
    proportions) gets the large-sample form without them, its limit when the
    counts are scaled up, which is scale-invariant and stays in [-1, 1]. See
    the module docstring.

    NaN when the true or the predicted classes take a single value (one
    observed class in the rows or in the columns, which includes N < 2 for
    integer counts): a constant variable has no order to compare.
    """
    return _rint_numpy(counts)


def _rint_compiled(counts, *, ranks=None):
    return rank_statistic(counts, _accelerate.RINT, ranks)


@in_blocks
def _rint_numpy(counts):
    x = classes_first(counts)  # x[i, j] has the stack's shape
    return _rint(x, (x == np.round(x)).all(axis=(0, 1)))


def _rint_large_sample(counts):
    """The large-sample form of r_int for every matrix, integer-valued or not (the "- N" terms dropped)."""
    return _rint(classes_first(np.asarray(counts)), False)


@hookimpl
def ordframe_metrics():
    return [
        Metric(
            "rint",
            "confusion",
            rint,
            True,
            (-1.0, 1.0),
            description="Agreement of the order relations of true and predicted class over pairs of observations.",
            reference=REFERENCE,
            undefined="every sample has the same true class or the same predicted class (a constant variable has no order)",
            compiled=_rint_compiled,
            needs=(RANKS,),
        )
    ]
