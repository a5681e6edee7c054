"""Path-based indices: OC (Cardoso & Sousa 2011) and UOC, A_UOC (Silva, Pinto & Cardoso 2018).

A path runs from cell (0, 0) to (K-1, K-1) of a confusion matrix (rows = true
class) with steps down, right or diagonal: the monotone, hence consistent,
paths of Cardoso & Sousa. Every index here is

    min over paths of  1 - S / D + mu * T,   S = sum_path v,  T = sum_path v d

for a benefit ``v`` per cell (counts for OC, row-normalised counts for UOC),
``d = |r - c| ** gamma``, and a per-matrix normaliser ``D`` and weight ``mu``.
Multiplying by ``D > 0`` turns this into one minimum-cost path with cell cost
``lam v d - v`` (``lam = mu D``), solved by dynamic programming over the
2K - 1 anti-diagonals: O(K) numpy steps, each over a whole diagonal of every
stacked matrix (O(K^2) work per matrix). The index is ``1 + W / D`` for the
minimum cost W. With integer counts a diagonal matrix gives W = -D exactly,
hence exactly 0; otherwise the rounding error is of the order of 1e-16.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from ordframe._registry.hookspecs import hookimpl
from ordframe._registry.metric import Metric
from ordframe.metrics import _accelerate
from ordframe.metrics._matrix import in_blocks, index_distance, total

CARDOSO_SOUSA = "J. S. Cardoso, R. Sousa, Measuring the performance of ordinal classification, IJPRAI 25(8), 2011"
SILVA = (
    "W. Silva, J. R. Pinto, J. S. Cardoso, A uniform performance index for ordinal classification "
    "with imbalanced classes, IJCNN 2018"
)

# A_UOC: a path found at an intersection point must beat the two known lines
# by more than this to open a new piece of the envelope (values are O(1); the
# rounding noise of one evaluation is ~1e-16).
ENVELOPE_TOL = 1e-13
# The powers of gamma that float64 handles on any matrix of up to 10^9 samples and K <= 1000.
GAMMA_RANGE = (0.1, 10.0)


def check_params(beta, gamma):
    """Silva, Pinto & Cardoso (2018) eq. 16: beta >= 0, gamma > 0; gamma also within ``GAMMA_RANGE``.

    Outside that range ``|r - c| ** gamma`` and the Minkowski norm's power
    ``1 / gamma`` overflow or underflow in float64 on ordinary matrices.
    """
    if isinstance(beta, bool) or not isinstance(beta, (int, float, np.number)) or not math.isfinite(beta) or beta < 0:
        raise ValueError(f"beta must be a finite number >= 0, got {beta!r}")
    low, high = GAMMA_RANGE
    if isinstance(gamma, bool) or not isinstance(gamma, (int, float, np.number)) or not low <= gamma <= high:
        raise ValueError(
            f"gamma must be a number in [{low}, {high}] (> 0; outside that range the distances' powers "
            f"overflow in float64), got {gamma!r}"
        )


class _Problem(NamedTuple):
    """Per matrix: min over paths of 1 - S / D + mu T, with S = sum_path v and T = sum_path v d."""

    gains: np.ndarray  # (2, K*K, M): v and v d per cell, in anti-diagonal order, stack axis last
    norm: np.ndarray  # D, (M,); not > 0 (0 or NaN) where the index is undefined
    mu: np.ndarray  # (M,)

    @property
    def lam(self):
        """The weight of ``v d`` in the DP's cell cost ``lam v d - v`` (the objective times D)."""
        return self.mu * self.norm

    def value(self, cost):
        """The index from the DP's minimum cost (W = D (index - 1))."""
        return 1 + cost / self.norm


@functools.cache
def _diagonals(k: int):
    """Cell order by anti-diagonal then row, per diagonal ``(first position, lowest row, highest row)``, and
    the ``(K, K)`` table of each cell's position in that order."""
    order, spans = [], []
    for s in range(2 * k - 1):
        lo, hi = max(0, s - k + 1), min(s, k - 1)
        spans.append((len(order), lo, hi))
        order.extend(r * k + s - r for r in range(lo, hi + 1))
    order = np.array(order)
    position = np.empty(k * k, np.intp)
    position[order] = np.arange(k * k)
    return order, tuple(spans), position.reshape(k, k)


def _gains(v: np.ndarray, gamma: float) -> np.ndarray:
    """Benefits ``(M, K, K)`` -> ``(2, K*K, M)``: v and v |r - c|^gamma in anti-diagonal order, stack axis last."""
    m, k = v.shape[0], v.shape[-1]
    order = _diagonals(k)[0]
    out = np.empty((2, k * k, m))
    out[0] = np.take(v.reshape(m, k * k), order, axis=1).T
    np.multiply(out[0], index_distance(k, gamma).ravel()[order, None], out=out[1])
    return out


# The sums over a whole matrix below run over its trailing (contiguous) axes, so
# every matrix gets the same bits whatever the stack it is computed in.


def _oc_problem(counts, beta, gamma) -> _Problem:
    """Cardoso & Sousa eq. 7: v = n, D = N + (sum n d)^(1/gamma), mu = beta_raw = beta / (N (K-1)^gamma)."""
    k = counts.shape[-1]
    n = total(counts)
    norm = n + total(counts * index_distance(k, gamma)) ** (1 / gamma)
    return _Problem(_gains(counts, gamma), norm, beta / (n * (k - 1) ** gamma))


def _uoc_problem(counts, beta, gamma) -> _Problem:
    """Silva, Pinto & Cardoso eq. 28: v = p = n / N_r on the K' observed rows (other rows are 0),
    D = K' + K'^(1 - 1/gamma) (sum p d)^(1/gamma), mu = beta / K'."""
    rows = counts[..., :1].copy()
    for c in range(1, counts.shape[-1]):  # N_r by K vectorised additions (a reduction over K is slower)
        rows += counts[..., c : c + 1]
    p = counts / np.where(rows > 0, rows, 1.0)  # an unobserved row stays all zeros
    kp = total(rows > 0).astype(np.float64)
    norm = kp + kp ** (1 - 1 / gamma) * total(p * index_distance(counts.shape[-1], gamma)) ** (1 / gamma)
    return _Problem(_gains(p, gamma), norm, beta / kp)


# Move codes: the step that leads into a cell.
DIAG, DOWN, RIGHT = 0, 1, 2


def _min_path(gains: np.ndarray, lam: np.ndarray, *, slope: bool = False, moves: bool = False):
    """Minimum over paths of ``sum_path (lam v d - v)`` for every matrix, ``gains`` as from ``_gains``.

    Returns ``(W, T, code)``: the minimum ``(M,)``; if ``slope``, T = sum_path v d
    of a minimising path; if ``moves``, the step into each cell on its best
    path (``(K*K, M)`` int8, ties prefer diagonal, then down, then right).
    """
    _, kk, m = gains.shape
    k = math.isqrt(kk)
    cost = lam * gains[1] - gains[0]
    # Three rotating anti-diagonals; slot r + 1 holds row r and slot 0 the
    # virtual row -1. A diagonal is read at most one slot beyond its cells,
    # and those slots are kept at +inf. The start cell's diagonal predecessor
    # is the virtual cell (-1, -1) of cost 0 on diagonal -2 (buffer -2 % 3 = 1).
    best = np.full((3, k + 2, m), np.inf)
    best[1, 0] = 0.0
    penalty = np.zeros((3, k + 2, m)) if slope else None
    code = np.empty((kk, m), np.int8) if moves else None
    for s, (first, lo, hi) in enumerate(_diagonals(k)[1]):
        cur, prev, prev2 = s % 3, (s - 1) % 3, (s - 2) % 3
        cells = slice(first, first + hi - lo + 1)
        up = slice(lo, hi + 1)  # cell (r-1, c) on diagonal s-1, and (r-1, c-1) on s-2
        here = slice(lo + 1, hi + 2)  # the cells themselves, and (r, c-1) on diagonal s-1
        diag_w, up_w, left_w = best[prev2, up], best[prev, up], best[prev, here]
        if slope or moves:
            down = up_w < diag_w
            w = np.where(down, up_w, diag_w)
            right = left_w < w
            w = np.where(right, left_w, w)
            if slope:
                t = np.where(right, penalty[prev, here], np.where(down, penalty[prev, up], penalty[prev2, up]))
                np.add(t, gains[1, cells], out=penalty[cur, here])
            if moves:
                code[cells] = np.where(right, RIGHT, np.where(down, DOWN, DIAG))
        else:
            w = np.minimum(diag_w, up_w)
            np.minimum(w, left_w, out=w)
        np.add(w, cost[cells], out=best[cur, here])
        best[cur, lo] = best[cur, hi + 2] = np.inf
    last = (2 * k - 2) % 3
    return best[last, k], (penalty[last, k] if slope else None), code


def _flat(counts) -> np.ndarray:
    counts = np.asarray(counts, dtype=np.float64)
    return counts.reshape((-1,) + counts.shape[-2:])


def _index(problem: _Problem, stack) -> np.ndarray:
    return problem.value(_min_path(problem.gains, problem.lam)[0]).reshape(stack)


@in_blocks
def _oc_numpy(counts, beta, gamma):
    return _index(_oc_problem(_flat(counts), beta, gamma), np.shape(counts)[:-2])


@in_blocks
def _uoc_numpy(counts, beta, gamma):
    return _index(_uoc_problem(_flat(counts), beta, gamma), np.shape(counts)[:-2])


def oc(counts, beta=0.75, gamma=1.0):
    """Ordinal Classification Index (Cardoso & Sousa 2011, eq. 7), rows = true class.

    OC = min over paths of 1 - sum_path n_rc / (N + (sum_all n_rc |r-c|^gamma)^(1/gamma))
    + beta_raw sum_path n_rc |r-c|^gamma, with beta_raw = beta / (N (K-1)^gamma)
    (``beta`` is relative to the maximum penalty, as in the paper's tables).
    NaN for an empty matrix.
    """
    check_params(beta, gamma)
    return _oc_numpy(counts, beta, gamma)


def _oc_compiled(counts, beta=0.75, gamma=1.0):
    check_params(beta, gamma)
    return _accelerate.path_index(counts, beta, gamma, uniform=False)


def uoc(counts, beta=0.75, gamma=1.0):
    """Uniform Ordinal Classification Index (Silva, Pinto & Cardoso 2018, eq. 28), rows = true class.

    With p_rc = n_rc / N_r over the K' observed rows (rows with N_r = 0 contribute
    nothing; the path still runs on the K x K grid with the original |r - c|),
    UOC = min over paths of 1 - sum_path p / (K' + K'^(1-1/gamma) (sum_all p d)^(1/gamma))
    + (beta / K') sum_path p d, d = |r-c|^gamma. NaN when no row is observed.
    """
    check_params(beta, gamma)
    return _uoc_numpy(counts, beta, gamma)


def _uoc_compiled(counts, beta=0.75, gamma=1.0):
    check_params(beta, gamma)
    return _accelerate.path_index(counts, beta, gamma, uniform=True)


def auoc(counts):
    """A_UOC = integral of UOC(beta, gamma=1) over beta in [0, 1] (Silva, Pinto & Cardoso 2018, eq. 23), computed exactly.

    UOC(beta) = min over paths of A_path + beta B_path is the lower envelope of
    one line per path, concave and piecewise linear. Its pieces are found by
    parametric search (Eisner & Severance 1976; Gusfield's parametric
    shortest paths): solve the DP at beta = 0 and 1; for an interval whose end
    lines La, Lb cross at x, solve the DP at x; if its path beats both lines
    there, it is a new piece and both halves are searched again, else the
    envelope on the interval is min(La, Lb) and its integral is added in
    closed form. Every matrix's pending intervals are solved together in one
    DP per round; the number of rounds is bounded by the number of envelope
    pieces. NaN when no row is observed. Its compiled twin runs the same
    search on 32 matrices at a time, one pending interval of each per DP, a
    matrix whose search is done making way for the next one, and takes the
    line at beta = 1 without a DP: the diagonal path minimises for every
    beta >= K' / D (there every cell off the diagonal costs >= 0).
    """
    return _auoc_numpy(counts)


def _auoc_compiled(counts):
    return _accelerate.auoc(counts, ENVELOPE_TOL)


@in_blocks
def _auoc_numpy(counts):
    problem = _uoc_problem(_flat(counts), 1.0, 1.0)  # mu = 1 / K': the slope per unit of T
    ok = np.flatnonzero(problem.norm > 0)
    gains, norm, mu = problem.gains[:, :, ok], problem.norm[ok], problem.mu[ok]

    def line(owner, beta):
        """(A, B) with UOC(b) = A + B b along the path that is optimal at ``beta`` (one per owner)."""
        w, t, _ = _min_path(gains[:, :, owner], beta * mu[owner] * norm[owner], slope=True)
        b = mu[owner] * t
        return 1 + w / norm[owner] - beta * b, b

    # Pending intervals [lo, hi] of one matrix each, with line (a, b) optimal at lo and (c, e) at hi.
    owner, lo, hi = np.arange(len(ok)), np.zeros(len(ok)), np.ones(len(ok))
    (a, b), (c, e) = line(owner, 0.0), line(owner, 1.0)
    area = np.zeros(len(ok))
    while len(owner):
        x = np.clip(np.divide(c - a, b - e, out=lo.copy(), where=b > e), lo, hi)
        probe = np.flatnonzero(np.abs(a - c) + np.abs(b - e) > ENVELOPE_TOL)  # two distinct lines
        pa, pb = line(owner[probe], x[probe])
        split = np.zeros(len(owner), bool)
        split[probe] = pa + pb * x[probe] < np.minimum(a + b * x, c + e * x)[probe] - ENVELOPE_TOL
        new_a, new_b = np.zeros(len(owner)), np.zeros(len(owner))
        new_a[probe], new_b[probe] = pa, pb
        done = ~split
        piece = a * (x - lo) + b * (x * x - lo * lo) / 2 + c * (hi - x) + e * (hi * hi - x * x) / 2
        area += np.bincount(owner[done], weights=piece[done], minlength=len(ok))
        j = np.flatnonzero(split)
        owner = np.concatenate([owner[j], owner[j]])
        lo, hi = np.concatenate([lo[j], x[j]]), np.concatenate([x[j], hi[j]])
        a, c = np.concatenate([a[j], new_a[j]]), np.concatenate([new_a[j], c[j]])
        b, e = np.concatenate([b[j], new_b[j]]), np.concatenate([new_b[j], e[j]])
    out = np.full(len(problem.norm), np.nan)
    out[ok] = area
    return out.reshape(np.shape(counts)[:-2])


def _cells(counts, problem_of, beta, gamma):
    """Cells ``(..., 2K-1, 2)`` of a minimising path, (row, col) per step, padded with -1."""
    check_params(beta, gamma)
    flat = _flat(counts)
    k, m = flat.shape[-1], len(flat)
    # Solve on the matrix flipped on both axes (|r - c| is unchanged): the
    # step into a flipped cell is then the step out of the original cell, so
    # following the codes from the flipped end walks forward from (0, 0).
    problem = problem_of(flat[:, ::-1, ::-1], beta, gamma)
    code = _min_path(problem.gains, problem.lam, moves=True)[2]
    position = _diagonals(k)[2]
    cells = np.full((m, 2 * k - 1, 2), -1, np.int64)
    r, c = np.zeros(m, np.int64), np.zeros(m, np.int64)
    on = problem.norm > 0
    cells[on, 0] = 0
    for i in range(1, 2 * k - 1):
        on &= (r < k - 1) | (c < k - 1)
        step = code[position[k - 1 - r, k - 1 - c], np.arange(m)]
        r += on & (step != RIGHT)
        c += on & (step != DOWN)
        cells[on, i, 0], cells[on, i, 1] = r[on], c[on]
    return cells.reshape(np.shape(counts)[:-2] + cells.shape[1:])


def oc_cells(counts, beta, gamma):
    """Cells of an OC-minimising path: ``(..., 2K-1, 2)`` int64 (row, col) per step, -1 after (K-1, K-1)."""
    return _cells(counts, _oc_problem, beta, gamma)


def uoc_cells(counts, beta, gamma):
    """Cells of a UOC-minimising path: ``(..., 2K-1, 2)`` int64 (row, col) per step, -1 after (K-1, K-1)."""
    return _cells(counts, _uoc_problem, beta, gamma)


@hookimpl
def ordframe_metrics():
    unit = (0.0, 1.0)
    return [
        Metric(
            "oc",
            "confusion",
            oc,
            False,
            unit,
            description="Ordinal Classification Index: best consistent path's benefit vs its distance to the diagonal.",
            reference=CARDOSO_SOUSA,
            undefined="the confusion matrix is empty (N = 0)",
            interval="calibrated",
            compiled=_oc_compiled,
        ),
        Metric(
            "uoc",
            "confusion",
            uoc,
            False,
            unit,
            description="Uniform OC: OC on row-normalised counts, robust to class imbalance.",
            reference=SILVA,
            undefined="no true class has samples (K' = 0)",
            compiled=_uoc_compiled,
        ),
        Metric(
            "auoc",
            "confusion",
            auoc,
            False,
            unit,
            description="Area under UOC(beta) for beta in [0, 1] (gamma = 1), computed exactly.",
            reference=SILVA,
            undefined="no true class has samples (K' = 0)",
            interval="basic",
            compiled=_auoc_compiled,
        ),
    ]
