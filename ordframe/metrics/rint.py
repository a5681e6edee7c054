"""The r_int coefficient of Pinto da Costa, Alonso and Cardoso, in its corrected form.

r_int compares the order relations of the true and predicted classes over all
ordered pairs of distinct observations: S1 holds the pairs (a, b) with
true(a) <= true(b), S2 those with pred(a) <= pred(b), and

    r_int = -1 + 2 card(S1 n S2) / sqrt(card(S1) card(S2)).

From the confusion matrix (rows = true class), seed 001's corrected counts are

    card(S1)      = sum_i sum_{j>=i} n_i. n_j. - N
    card(S2)      = sum_i sum_{j>=i} n_.i n_.j - N
    card(S1 n S2) = sum_{i,j} n_ij sum_{i'>=i, j'>=j} n_i'j' - N

and the inner quadruple sum is a 2-D suffix sum, so the cost is O(K^2).
"""

import numpy as np

from ..hookspecs import hookimpl
from ..metric import Metric
from ._matrix import classes_first, in_blocks, suffix_sum

REFERENCE = (
    "J. Pinto da Costa, H. Alonso, J. S. Cardoso, The unimodal model for the classification of ordinal data, "
    "Neural Networks 21(1), 2008; formula as corrected in their later note (seed 001)"
)


def _ordered_pairs(margin, tail, n):
    """sum_i m_i sum_{j>=i} m_j - N, from a margin m and its suffix sums (class axis first).

    The number of ordered pairs (a, b) of distinct observations with class(a) <= class(b).
    """
    return (margin * tail).sum(axis=0) - n


@in_blocks
def rint(counts):
    """r_int = -1 + 2 card(S1 n S2) / sqrt(card(S1) card(S2)), Pinto da Costa et al.'s corrected formula.

    NaN when the true or the predicted classes take a single value (one
    observed class in the rows or in the columns, which includes N < 2):
    a constant variable has no order to compare.
    """
    x = classes_first(counts)  # x[i, j] has the stack's shape
    tail = suffix_sum(suffix_sum(x, 0), 1)  # tail[i, j] = sum_{i' >= i, j' >= j} n_i'j'
    n = tail[0, 0]
    rows, cols = x.sum(axis=1), x.sum(axis=0)
    agree = np.einsum("ij...,ij...->...", x, tail) - n
    value = -1.0 + 2.0 * agree / np.sqrt(_ordered_pairs(rows, tail[:, 0], n) * _ordered_pairs(cols, tail[0], n))
    varies = ((rows > 0).sum(axis=0) >= 2) & ((cols > 0).sum(axis=0) >= 2)
    return np.where(varies, value, np.nan)


@hookimpl
def ordframe_metrics():
    return [
        Metric(
            "rint", "confusion", rint, True, (-1.0, 1.0),
            description="Agreement of the order relations of true and predicted class over pairs of observations.",
            reference=REFERENCE,
            undefined="every sample has the same true class or the same predicted class (a constant variable has no order)",
        )
    ]
