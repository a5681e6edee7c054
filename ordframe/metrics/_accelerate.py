"""Optional numba kernels (the ``numba`` extra): the compiled twins of confusion metrics, and of parts of the
calibration decompositions and of ``simulate``'s draws; numpy is the fallback.

As xarray does with numbagg: when numba is installed, the kernels below run
compiled, one pass per matrix with no temporaries the size of the stack;
without it (or with the environment variable ``ORDFRAME_NUMBA=0``:
``options.COMPILED``) every metric runs its numpy formulation. Both give the
same values (to rounding; the tests check them against each other on random
cubes). A metric declares its twin (``Metric.compiled``) beside its numpy
kernel, in its family's module; ``benchmarks/bench_compiled.py`` measures
each against it.

numba is imported, and a kernel compiled (cached on disk), on the first call
of a compiled twin, never at ``import ordframe``; the bridge makes that call
only once a process's numpy work has paid for it (``Metric.kernel``). numba
caches beside this module, in ``__pycache__``, or where that is not writable
(an installed package in a read-only site-packages) in the user's cache
directory (``~/.cache/numba`` on Linux), or in ``NUMBA_CACHE_DIR`` if set.

Each kernel checks every count as it reads it (``_sound``) and raises a
ValueError for a negative, NaN or infinite one, so that the bridge makes no
pass over the cube of its own to validate it.
"""

from __future__ import annotations

import functools
import math

import numpy as np


def numba_version() -> str:
    import numba

    return numba.__version__


def _compiled(func, *helpers):
    """``func`` compiled by numba on its first call (nopython, cached on disk, IEEE division: x / 0 is inf or NaN).

    ``helpers`` name the functions of this module that ``func`` calls: they are compiled first and put
    in place of the Python functions, as numba needs, and inlined into ``func`` (a compiled call per
    matrix passes its arrays with reference counts, a sizeable share of a read at K = 5). No fast-math: operations run in the order written
    (a reassociated product of proportions could underflow where the written one does not).
    """

    @functools.cache
    def build():
        import numba

        def jit(f, **options):
            return numba.njit(cache=True, nogil=True, error_model="numpy", **options)(f)

        for name in helpers:
            if not isinstance(globals()[name], numba.core.dispatcher.Dispatcher):
                globals()[name] = jit(globals()[name], inline="always")
        return jit(func)

    @functools.wraps(func)
    def call(*args):
        return build()(*args)

    return call


def _flat(counts):
    """``counts`` as a C-contiguous ``(M, K, K)`` stack (a copy only of another layout: numba would compile every
    kernel again for it), and the stack's shape."""
    counts = np.ascontiguousarray(counts)
    k = counts.shape[-1]
    return counts.reshape(-1, k, k), counts.shape[:-2]


def _sound(x):
    """Whether a count is finite and >= 0 (NaN is not): each kernel checks the counts as it reads them.

    ``x - x == 0`` is false for an infinite or NaN float only; the compiler drops it for an integer, and for
    float64 counts it costs a fraction of ``x < inf`` (a comparison with a constant that stopped the
    kernels' loops from being vectorised: 2x the time of a whole read at K = 5).
    """
    return (x >= 0) & (x - x == 0)


# What a kernel returns: its counts were all ``_sound``, or not.
FINE, UNSOUND = range(2)


def _run(kernel, counts, *args):
    """``kernel(counts, *args)`` on an ``(M, K, K)`` stack; a ValueError if it met a count that is not
    ``_sound``.

    The kernels check every count as they read it, so the bridge leaves out its own check, one more
    pass over the cube; on this error it runs that check to say which counts.
    """
    if kernel(counts, *args) == UNSOUND:
        raise ValueError(
            "the confusion cube has counts that are negative, NaN or infinite; counts must be finite and >= 0"
        )


def _distances(k, gamma):
    """``|r - c| ** gamma`` as a ``(K, K)`` float64 array."""
    dist = np.empty((k, k))
    for r in range(k):
        for c in range(k):
            dist[r, c] = float(abs(r - c)) ** gamma
    return dist


def _power(x, e):
    """``x ** e``, without a call to ``pow`` for the exponents 1 and 0 (gamma = 1, the default): the
    same value, at a fraction of the cost per matrix."""
    if e == 1.0:
        return x
    if e == 0.0:
        return 1.0
    return x**e


# Matrices per block of the kernels that read a stack block by block, each block held as (K, K, LANES)
# floats (``_read_block``): 32 measured best at K = 5, 10, 30 (64 spills the cache at K = 30). Passed to
# a kernel as an argument: a constant trip count has LLVM unroll the loops over the lanes, and the
# unrolled code measured 1.1-1.25x slower.
LANES = 32


def _read_block(counts, start, n, v):
    """Matrices ``start`` to ``start + n`` of ``counts`` into the lanes of ``v`` (K, K, lanes) as floats, the lanes
    past ``n`` (the stack's last, short block) zero; whether every count read is ``_sound``.

    A kernel then runs each step on the vector of lanes, one matrix each: per matrix, its sums and
    recurrences are chains of dependent steps over a few cells, and K = 5 gives no loop to vectorise.
    """
    k, lanes = v.shape[0], v.shape[2]
    if n < lanes:
        v[:] = 0.0
    sound = True
    for b in range(n):
        for r in range(k):
            for c in range(k):
                x = counts[start + b, r, c]
                sound &= _sound(x)
                v[r, c, b] = x
    return sound


def _interval(pending, b, i):
    """Interval ``i`` (lo, hi, a, b, c, e) of lane ``b``'s stack in ``pending`` (element by element: a row as a
    view costs its reference count)."""
    return pending[b, i, 0], pending[b, i, 1], pending[b, i, 2], pending[b, i, 3], pending[b, i, 4], pending[b, i, 5]


def _under(lo, hi, a, b, c, e, x):
    """The integral over [lo, hi] of min(a + b beta, c + e beta), the lines crossing at ``x``."""
    return a * (x - lo) + b * (x * x - lo * lo) / 2 + c * (hi - x) + e * (hi * hi - x * x) / 2


def _lane_path(v, dist, lam, best, pen, left, left_t):
    """The minimum W of sum_path (lam v d - v) of each lane of ``v`` (K, K, lanes) into ``left``, and T = sum_path
    v d along the path found into ``left_t``: ``oc._min_path``'s recurrence and ties (diagonal first, then
    down, then right, by selects), each step on the vector of lanes. ``best``, ``pen``: (K, lanes) scratch.
    """
    k, lanes = v.shape[0], v.shape[2]
    for b in range(lanes):
        left_t[b] = v[0, 0, b] * dist[0, 0]
        left[b] = lam[b] * left_t[b] - v[0, 0, b]
        best[0, b], pen[0, b] = left[b], left_t[b]
    for c in range(1, k):
        d = dist[0, c]
        for b in range(lanes):
            vd = v[0, c, b] * d
            left[b] = left[b] + (lam[b] * vd - v[0, c, b])
            left_t[b] = left_t[b] + vd
            best[c, b], pen[c, b] = left[b], left_t[b]
    for r in range(1, k):
        d = dist[r, 0]
        for b in range(lanes):
            vd = v[r, 0, b] * d
            left[b] = best[0, b] + (lam[b] * vd - v[r, 0, b])
            left_t[b] = pen[0, b] + vd
        for c in range(1, k):
            d = dist[r, c]
            for b in range(lanes):
                diag, diag_t, up, up_t = best[c - 1, b], pen[c - 1, b], best[c, b], pen[c, b]
                down = up < diag
                w = up if down else diag
                t = up_t if down else diag_t
                right = left[b] < w
                w = left[b] if right else w
                t = left_t[b] if right else t
                best[c - 1, b], pen[c - 1, b] = left[b], left_t[b]
                vd = v[r, c, b] * d
                left[b] = w + (lam[b] * vd - v[r, c, b])
                left_t[b] = t + vd
        for b in range(lanes):
            best[k - 1, b], pen[k - 1, b] = left[b], left_t[b]


def _block_problem(counts, start, n, v, dist, gamma, uniform, scale, beta, sums, norm, mu):
    """Matrices ``start`` to ``start + n`` of ``counts`` into the lanes of ``v`` (``_read_block``), as UOC's quotients
    if ``uniform``, D into ``norm`` and mu into ``mu`` (``_path_index_py``); whether every count read is ``_sound``.
    ``sums`` (4, lanes): scratch, per lane a row's sum and sum n d, then K' (N for OC) and sum v d (indexed: with
    its rows as views, A_UOC measured 1.3-3.7x slower)."""
    k, lanes = v.shape[0], v.shape[2]
    sound = _read_block(counts, start, n, v)
    for b in range(lanes):
        sums[2, b] = 0.0
        sums[3, b] = 0.0
    for r in range(k):
        for b in range(lanes):
            sums[0, b] = 0.0
            sums[1, b] = 0.0
        for c in range(k):
            d = dist[r, c]
            for b in range(lanes):
                sums[0, b] += v[r, c, b]
                sums[1, b] += v[r, c, b] * d
        if not uniform:
            for b in range(lanes):
                sums[2, b] += sums[0, b]
                sums[3, b] += sums[1, b]
            continue
        for b in range(lanes):
            used = sums[0, b] > 0
            sums[2, b] += 1.0 if used else 0.0
            sums[3, b] += sums[1, b] / sums[0, b] if used else 0.0
            sums[0, b] = sums[0, b] if used else 1.0  # an empty row's zeros stay zeros
        for c in range(k):
            for b in range(lanes):
                v[r, c, b] /= sums[0, b]
    for b in range(lanes):
        if gamma != 1.0:
            sums[3, b] = sums[3, b] ** (1 / gamma)
        if uniform:
            norm[b] = sums[2, b] + (sums[2, b] ** (1 - 1 / gamma) * sums[3, b] if gamma != 1.0 else sums[3, b])
            mu[b] = beta / sums[2, b]
        else:
            norm[b] = sums[2, b] + sums[3, b]
            mu[b] = beta / (sums[2, b] * scale)
    return sound


def _take(pending, lines, j, b):
    """Lane ``b``'s first interval, [0, 1] with the lines (``lines`` (4, lanes)) of block lane ``j``."""
    pending[b, 0, 0], pending[b, 0, 1] = 0.0, 1.0
    for q in range(4):
        pending[b, 0, 2 + q] = lines[q, j]


def _block_lines(counts, first, n, v, dist, sums, norm, mu, zero, best, pen, left, left_t, lines):
    """``_block_problem`` for A_UOC (matrices ``first`` to ``first + n`` into ``v``, ``norm``, ``mu``), then into
    ``lines`` (4, lanes) the lines a + b beta and c + e beta (UOC(beta) = 1 + W / D) of each lane's minimising
    paths at beta = 0 (the DP at ``zero``) and at beta = 1: the diagonal, which minimises for every
    beta >= K' / D (lam = beta D / K' >= 1 gives every cell off the diagonal a cost v (lam d - 1) >= 0, and the
    diagonal visits every cell of cost -v it can). Whether every count read is ``_sound``. ``sums``, ``best``,
    ``pen``, ``left``, ``left_t``: scratch."""
    k, lanes = v.shape[0], v.shape[2]
    sound = _block_problem(counts, first, n, v, dist, 1.0, True, 1.0, 1.0, sums, norm, mu)
    _lane_path(v, dist, zero, best, pen, left, left_t)
    for b in range(lanes):
        lines[1, b] = mu[b] * left_t[b]
        lines[0, b] = 1 + left[b] / norm[b]
        left[b] = -v[0, 0, b]
    for r in range(1, k):
        for b in range(lanes):
            left[b] = left[b] - v[r, r, b]
    for b in range(lanes):
        lines[2, b] = 1 + left[b] / norm[b]
        lines[3, b] = 0.0
    return sound


def _auoc_lanes(counts, dist, tol, lanes, out):
    """A_UOC of every matrix of ``counts`` (M, K, K) into ``out``: ``oc.auoc``'s parametric search on ``lanes``
    matrices at a time, one pending interval of each solved in each round's one DP (``_lane_path``); whether every
    count read is ``_sound``.

    Each lane keeps its matrix's stack of intervals (lo, hi, a, b, c, e) in ``pending`` (lanes, depth, 6)
    (``top``: its height) and, each round, takes intervals off its stack until one has two distinct lines, whose
    crossing x (in ``at``) it solves. A path found below both lines at x splits the interval; the envelope on an
    interval that does not split is the minimum of its two lines, whose integral is added. Each lane takes its
    intervals in the order of one matrix's search, so a matrix's area is the same sum in any lane and round.

    A noisy matrix needs from 1 to dozens of DPs, so a lane whose matrix is done takes the next one: the matrices
    are read, divided and solved at beta = 0 a block at a time (``_block_lines``, into ``staged``) and a lane
    copies its matrix's quotients from there; when every lane is done at once (near-diagonal matrices: one DP
    each), the lanes take the whole block by trading it for theirs, without a copy.
    """
    m, k = counts.shape[0], counts.shape[1]
    staged = np.zeros((k, k, lanes))
    v = np.zeros((k, k, lanes))
    best = np.empty((k, lanes))
    pen = np.empty((k, lanes))
    left = np.empty(lanes)
    left_t = np.empty(lanes)
    zero = np.zeros(lanes)  # lam at beta = 0
    sums = np.empty((4, lanes))
    norm_s = np.empty(lanes)
    mu_s = np.empty(lanes)
    lines = np.empty((4, lanes))
    norm = np.empty(lanes)
    mu = np.empty(lanes)
    lam = np.empty(lanes)
    pending = np.empty((lanes, 16, 6))
    top = np.zeros(lanes, np.int64)
    owner = np.full(lanes, -1, np.int64)
    at = np.empty(lanes)
    solving = np.zeros(lanes, np.bool_)
    area = np.zeros(lanes)
    sound = True
    first, n, taken = 0, 0, 0  # the staged block: its first matrix, its size, how many of them lanes took
    while True:
        if taken == n and first + n < m:
            first += n
            n = min(lanes, m - first)
            taken = 0
            sound &= _block_lines(
                counts, first, n, staged, dist, sums, norm_s, mu_s, zero, best, pen, left, left_t, lines
            )
        idle = True  # every lane's search done: at the start, and after each round on near-diagonal matrices
        for b in range(lanes):
            idle &= top[b] == 0
        if idle and taken == 0:  # every lane trades its matrix for the staged block's in the same lane
            v, staged, norm, norm_s, mu, mu_s = staged, v, norm_s, norm, mu_s, mu
            for j in range(n):
                if norm[j] > 0:
                    owner[j], area[j], top[j] = first + j, 0.0, 1
                    _take(pending, lines, j, j)
                else:
                    out[first + j] = np.nan
            taken = n
        busy = False
        for b in range(lanes):
            lam[b] = 0.0
            solving[b] = False
            while True:
                while top[b]:  # intervals whose two lines are one close at once: their area needs no DP
                    i = top[b] - 1
                    lo, hi, a, slope, c, e = _interval(pending, b, i)
                    x = (c - a) / (slope - e) if slope > e else lo
                    x = min(max(x, lo), hi)
                    at[b] = x
                    if abs(a - c) + abs(slope - e) > tol:
                        lam[b] = x * mu[b] * norm[b]
                        solving[b] = busy = True
                        break
                    top[b] = i
                    area[b] += _under(lo, hi, a, slope, c, e, x)
                if solving[b]:
                    break
                if owner[b] >= 0:
                    out[owner[b]] = area[b]
                    owner[b] = -1
                if taken == n:  # the lane waits for the next round's block
                    break
                j = taken
                taken += 1
                if not norm_s[j] > 0:
                    out[first + j] = np.nan
                    continue
                for r in range(k):
                    for c in range(k):
                        v[r, c, b] = staged[r, c, j]
                owner[b], area[b], top[b], norm[b], mu[b] = first + j, 0.0, 1, norm_s[j], mu_s[j]
                _take(pending, lines, j, b)
        if not busy:
            if first + n == m and taken == n:
                return sound
            continue
        _lane_path(v, dist, lam, best, pen, left, left_t)
        for b in range(lanes):
            if not solving[b]:
                continue
            i = top[b] - 1
            lo, hi, a, slope, c, e = _interval(pending, b, i)
            x = at[b]
            pb = mu[b] * left_t[b]
            pa = 1 + left[b] / norm[b] - x * pb
            if pa + pb * x < min(a + slope * x, c + e * x) - tol:  # split [lo, hi] at x
                if i + 2 > pending.shape[1]:
                    grown = np.empty((lanes, 2 * pending.shape[1], 6))
                    grown[:, : pending.shape[1]] = pending
                    pending = grown
                below, above = (lo, x, a, slope, pa, pb), (x, hi, pa, pb, c, e)
                for q in range(6):
                    pending[b, i, q] = below[q]
                    pending[b, i + 1, q] = above[q]
                top[b] = i + 2
            else:  # the envelope on [lo, hi] is min(La, Lb)
                top[b] = i
                area[b] += _under(lo, hi, a, slope, c, e, x)
                if i == 0:
                    out[owner[b]] = area[b]
                    owner[b] = -1


def _path_index_py(counts, beta, gamma, uniform, area, tol, lanes, out):
    """OC (``uniform`` false) or UOC of every matrix of ``counts`` ``(M, K, K)`` into ``out`` ``(M,)``; with
    ``area`` (``uniform``, gamma = 1), A_UOC instead (``oc.auoc``'s search: ``_auoc_lanes``; ``tol``:
    ``oc.ENVELOPE_TOL``).

    OC: v = n, D = N + (sum n d)^(1/gamma), mu = beta / (N (K-1)^gamma);
    UOC: v = n / N_r on the K' observed rows, D = K' + K'^(1 - 1/gamma) (sum v d)^(1/gamma),
    mu = beta / K', with sum v d = sum_r (sum_c n_rc d_rc) / N_r. The index is 1 + W / D for the minimum W
    of sum_path (mu D v d - v), by the recurrence of ``oc._min_path`` (``_lane_path``).

    ``lanes`` matrices at a time (``_block_problem``): the sums, the divisions and the recurrence run on
    vectors of lanes, and so does A_UOC's search. UOC divides each count by N_r (not a multiplication by
    1 / N_r: a diagonal count gives exactly 1, a row scaled by an integer the same quotients, so a diagonal
    matrix scores exactly 0 and row scaling changes nothing).
    """
    m, k = counts.shape[0], counts.shape[1]
    dist = _distances(k, gamma)
    if area:
        return FINE if _auoc_lanes(counts, dist, tol, lanes, out) else UNSOUND
    v = np.zeros((k, k, lanes))
    best = np.empty((k, lanes))
    pen = np.empty((k, lanes))
    sums = np.empty((4, lanes))
    norm = np.empty(lanes)
    mu = np.empty(lanes)
    lam = np.empty(lanes)
    left = np.empty(lanes)
    left_t = np.empty(lanes)
    scale = _power(float(k - 1), gamma)
    sound = True
    for start in range(0, m, lanes):
        n = min(lanes, m - start)
        sound &= _block_problem(counts, start, n, v, dist, gamma, uniform, scale, beta, sums, norm, mu)
        for b in range(lanes):
            lam[b] = mu[b] * norm[b]
        _lane_path(v, dist, lam, best, pen, left, left_t)
        for b in range(n):
            out[start + b] = 1 + left[b] / norm[b] if norm[b] > 0 else np.nan
    return FINE if sound else UNSOUND


_path_index = _compiled(
    _path_index_py,
    "_sound",
    "_distances",
    "_read_block",
    "_power",
    "_lane_path",
    "_block_problem",
    "_block_lines",
    "_take",
    "_interval",
    "_under",
    "_auoc_lanes",
)


def path_index(counts, beta, gamma, uniform: bool) -> np.ndarray:
    """OC or UOC of every matrix of ``counts`` ``(..., K, K)`` (int64 or float64), shape ``(...)``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _run(_path_index, flat, float(beta), float(gamma), uniform, False, 0.0, LANES, out)
    return out.reshape(stack)


def _summary_py(counts, weights, out, want_chance):
    """Per matrix, in one pass: ``out`` = (N, sum n w, chance).

    ``chance`` (with ``want_chance``) is sum_r (N_r / N) sum_c w_rc (N_c / N), on proportions so that no
    product of two counts is formed.
    """
    m, k = counts.shape[0], counts.shape[1]
    rows = np.empty(k)
    cols = np.empty(k)
    sound = True
    for i in range(m):
        total = 0.0
        weighted = 0.0
        for c in range(k):
            cols[c] = 0.0
        for r in range(k):
            row = 0.0
            row_w = 0.0
            for c in range(k):
                x = counts[i, r, c]
                sound &= _sound(x)
                row += x
                row_w += x * weights[r, c]
                cols[c] += x
            total += row
            weighted += row_w
            rows[r] = row
        out[0, i] = total
        out[1, i] = weighted
        if want_chance:
            scale = 1.0 / total if total > 0 else np.nan
            for j in range(k):
                rows[j] *= scale
                cols[j] *= scale
            expected = 0.0
            for r in range(k):
                row = 0.0
                for c in range(k):
                    row += weights[r, c] * cols[c]
                expected += rows[r] * row
            out[2, i] = expected
    return FINE if sound else UNSOUND


_summary = _compiled(_summary_py, "_sound")


def summary(counts, weights, chance: bool = False) -> np.ndarray:
    """N and sum_rc n_rc w_rc (for the ``(K, K)`` ``weights``) of every matrix of ``counts`` ``(..., K, K)`` in
    one pass, and with ``chance`` sum_rc w_rc N_r N_c / N^2 (else NaN): shape ``(3, ...)``."""
    flat, stack = _flat(counts)
    out = np.full((3, len(flat)), np.nan)
    _run(_summary, flat, np.ascontiguousarray(weights, dtype=np.float64), out, chance)
    return out.reshape((3, *stack))


def mean_weight(counts, weights) -> np.ndarray:
    """sum_rc n_rc w_rc / N of every matrix of ``counts`` ``(..., K, K)`` for the ``(K, K)`` ``weights``."""
    n, weighted, _ = summary(counts, weights)
    return weighted / n


def weighted_kappa(counts, weights) -> np.ndarray:
    """1 - (sum w n / N) / (sum w N_r N_c / N^2) of every matrix, NaN where a denominator is zero."""
    n, weighted, chance = summary(counts, weights, chance=True)
    return 1.0 - (weighted / np.where(n > 0, n, np.nan)) / np.where(chance > 0, chance, np.nan)


def _margin_lanes(margin, suffix, used, untied, spread):
    """Of one margin m (K, lanes), per lane: the classes with samples into ``used``; sum_{i<j} m_i m_j, as
    sum_i m_i (sum_{j>=i} m_j - m_i) (``classic._pairs_not_tied``), into ``untied``; r_int's pairs of the
    margin, sum_i m_i (sum_{j>=i} m_j), into ``spread``. ``suffix``: scratch."""
    k, lanes = margin.shape
    for b in range(lanes):
        suffix[b] = 0.0
        used[b] = 0.0
        untied[b] = 0.0
        spread[b] = 0.0
    for i in range(k - 1, -1, -1):
        for b in range(lanes):
            m = margin[i, b]
            suffix[b] += m
            untied[b] += m * (suffix[b] - m)
            spread[b] += m * suffix[b]
            used[b] += 1.0 if m > 0 else 0.0


SPEARMAN, KENDALL, SOMERS, RINT, RINT_LARGE_SAMPLE = range(5)
ALL_PAIRS = slice(None)  # every rank statistic of ``pairs``, in that order
# Rank statistics are homogeneous of degree 0 in the counts: a matrix whose N lies in this range is
# used as it is (the products of Spearman's variances, of degree 6 in the counts, neither overflow
# nor underflow), others as proportions.
SAFE_TOTAL = (1e-40, 1e40)


def _stream_lanes(v, concord, nested, rows, above, total, balance, agree, run):
    """One streaming pass over each lane of ``v`` (K, K, lanes): row sums into ``rows``, column sums into
    ``above``, N into ``total``, C - D (if ``concord``) into ``balance``, r_int's sum over pairs (if ``nested``)
    into ``agree``. ``run``: (4, lanes) scratch.

    Row r is read after the rows above it, whose column sums so far are ``above``: a cell x at (r, c) is
    concordant with the mass above it and to its left, discordant with the mass above and to its right,
    so C - D = sum_rc x (2 sum_{c' < c} above_c' + above_c - sum above); r_int's sum over pairs
    (r', c') <= (r, c) in both classes, the cell with itself included, is sum_rc x (the mass above and
    to the left, its column included, + the row up to and including the cell).
    """
    k, lanes = v.shape[0], v.shape[2]
    left, row, cross, ahead = run[0], run[1], run[2], run[3]  # left: sum_{c' < c} above[c']
    for b in range(lanes):
        total[b] = 0.0
        balance[b] = 0.0
        agree[b] = 0.0
    for c in range(k):
        for b in range(lanes):
            above[c, b] = 0.0
    for r in range(k):
        for b in range(lanes):
            left[b] = 0.0
            row[b] = 0.0
            cross[b] = 0.0
            ahead[b] = 0.0
        for c in range(k):
            for b in range(lanes):
                x = v[r, c, b]
                a = above[c, b]
                row[b] += x
                if concord:
                    cross[b] += x * (2.0 * left[b] + a)
                if nested:
                    ahead[b] += x * (left[b] + a + row[b])
                left[b] += a
                above[c, b] = a + x
        for b in range(lanes):
            rows[r, b] = row[b]
            balance[b] += cross[b] - row[b] * total[b]  # total: the mass of the rows above
            agree[b] += ahead[b]
            total[b] += row[b]


def _column_lanes(v, cols, total, row):
    """Each lane's column sums into ``cols`` and N into ``total``; ``row``: scratch."""
    k, lanes = v.shape[0], v.shape[2]
    for b in range(lanes):
        total[b] = 0.0
    for c in range(k):
        for b in range(lanes):
            cols[c, b] = 0.0
    for r in range(k):
        for b in range(lanes):
            row[b] = 0.0
        for c in range(k):
            for b in range(lanes):
                x = v[r, c, b]
                row[b] += x
                cols[c, b] += x
        for b in range(lanes):
            total[b] += row[b]


def _spearman_lanes(v, cols, total, mid, sums, run):
    """Spearman's sums of each lane given its column sums ``cols`` and N: sum_rc u_r n_rc v_c, sum_r N_r u_r^2,
    sum_c N_c v_c^2 and the classes used by each margin, into the rows of ``sums`` (5, lanes), with u, v the
    centred mid-ranks (cumsum_{<r} + m_r / 2 - N / 2, v into ``mid``); the rows' sums are taken in the same
    read as the products. ``run``: (3, lanes) scratch."""
    k, lanes = v.shape[0], v.shape[2]
    s, var_r, var_c, used_r, used_c = sums[0], sums[1], sums[2], sums[3], sums[4]
    before, row, dot = run[0], run[1], run[2]
    for b in range(lanes):
        before[b] = 0.0
        var_c[b] = 0.0
        used_c[b] = 0.0
    for c in range(k):
        for b in range(lanes):
            mid[c, b] = before[b] + cols[c, b] / 2 - total[b] / 2
            before[b] += cols[c, b]
            var_c[b] += cols[c, b] * mid[c, b] ** 2
            used_c[b] += 1.0 if cols[c, b] > 0 else 0.0
    for b in range(lanes):
        s[b] = 0.0
        var_r[b] = 0.0
        before[b] = 0.0
        used_r[b] = 0.0
    for r in range(k):
        for b in range(lanes):
            row[b] = 0.0
            dot[b] = 0.0
        for c in range(k):
            for b in range(lanes):
                x = v[r, c, b]
                row[b] += x
                dot[b] += x * mid[c, b]
        for b in range(lanes):
            u = before[b] + row[b] / 2 - total[b] / 2
            before[b] += row[b]
            s[b] += u * dot[b]
            var_r[b] += row[b] * u**2
            used_r[b] += 1.0 if row[b] > 0 else 0.0


def _pairs_py(counts, wanted, integer, lanes, out):
    """Per matrix, the rank statistics flagged in ``wanted`` (indexed by SPEARMAN, KENDALL, SOMERS, RINT,
    RINT_LARGE_SAMPLE) into the same rows of ``out`` ``(5, M)``, each from one sum over pairs of cells:
    ``classic.spearman``, ``kendall_tau_b``, ``somers_d``, ``rint.rint`` or its large-sample form, with the
    same formulas and NaN rules. Rows not wanted are left as they are.

    ``lanes`` matrices at a time, each step on the vector of lanes (``_read_block``). The sums: C - D and
    r_int's sum p_ij sum_{i'>=i, j'>=j} p_i'j' from one streaming pass (``_stream_lanes``); Spearman's sum
    p_rc u_r v_c with u, v the centred mid-ranks of the margins from the column sums (that pass, or
    ``_column_lanes``) and one more (``_spearman_lanes``). Every ratio has the same degree in p above and
    below, so p is the counts as they are when N is in ``SAFE_TOTAL``, else the proportions n / N (as the
    numpy path; NaN for N = 0): a block with such a matrix has it scaled and its sums taken again.
    ``integer``: the counts' type is an integer one (every matrix gets r_int's exact formula without a look).
    """
    m, k = counts.shape[0], counts.shape[1]
    v = np.zeros((k, k, lanes))
    rows = np.empty((k, lanes))
    cols = np.empty((k, lanes))
    mid = np.empty((k, lanes))
    total = np.empty(lanes)  # N in the units of p: N as it is, or 1 for proportions
    counted = np.empty(lanes)  # N
    balance = np.empty(lanes)
    agree = np.empty(lanes)
    run = np.empty((4, lanes))
    sums = np.empty((5, lanes))
    margins = np.empty((2, 4, lanes))  # per margin: used, untied, spread, scratch
    sound = True
    low, high = SAFE_TOTAL
    concord = wanted[KENDALL] or wanted[SOMERS]
    nested = wanted[RINT] or wanted[RINT_LARGE_SAMPLE]
    check_whole = wanted[RINT] and not integer
    whole = np.empty(lanes, np.bool_)
    for start in range(0, m, lanes):
        n = min(lanes, m - start)
        sound &= _read_block(counts, start, n, v)
        if check_whole:  # float counts: which matrices are integer-valued (r_int's exact formula)
            for b in range(lanes):
                whole[b] = True
            for r in range(k):
                for c in range(k):
                    for b in range(lanes):
                        whole[b] &= v[r, c, b] == math.floor(v[r, c, b])
        scaled = False
        while True:
            if concord or nested:
                _stream_lanes(v, concord, nested, rows, cols, total, balance, agree, run)
            else:
                _column_lanes(v, cols, total, run[0])
            if scaled:
                break
            for b in range(lanes):
                counted[b] = total[b]
            for b in range(n):
                if not low < total[b] < high:
                    scale = 1.0 / total[b] if total[b] > 0 else np.nan
                    for r in range(k):
                        for c in range(k):
                            v[r, c, b] *= scale
                    scaled = True
            if not scaled:
                break
        if wanted[SPEARMAN]:
            _spearman_lanes(v, cols, total, mid, sums, run)
            for b in range(n):
                varies = sums[3, b] >= 2 and sums[4, b] >= 2
                out[SPEARMAN, start + b] = sums[0, b] / np.sqrt(sums[1, b] * sums[2, b]) if varies else np.nan
        if not (concord or nested):
            continue
        _margin_lanes(rows, margins[0, 3], margins[0, 0], margins[0, 1], margins[0, 2])
        _margin_lanes(cols, margins[1, 3], margins[1, 0], margins[1, 1], margins[1, 2])
        for b in range(n):
            varies = margins[0, 0, b] >= 2 and margins[1, 0, b] >= 2
            untied_r, untied_c = margins[0, 1, b], margins[1, 1, b]
            if wanted[KENDALL]:
                out[KENDALL, start + b] = balance[b] / np.sqrt(untied_r * untied_c) if varies else np.nan
            if wanted[SOMERS]:
                out[SOMERS, start + b] = balance[b] / untied_r if untied_r > 0 else np.nan
            for want in (RINT, RINT_LARGE_SAMPLE):
                if not wanted[want]:
                    continue
                if not varies:
                    out[want, start + b] = np.nan
                    continue
                exact = want == RINT and (integer or whole[b])
                unit = total[b]
                self_pairs = unit * (unit / counted[b]) if exact else 0.0  # the N pairs (a, a), in the units of p^2
                s1 = margins[0, 2, b] - self_pairs
                s2 = margins[1, 2, b] - self_pairs
                out[want, start + b] = -1.0 + 2.0 * (agree[b] - self_pairs) / np.sqrt(s1 * s2)
    return FINE if sound else UNSOUND


_pairs = _compiled(
    _pairs_py, "_sound", "_read_block", "_stream_lanes", "_column_lanes", "_spearman_lanes", "_margin_lanes"
)


def pairs(counts, want) -> np.ndarray:
    """A rank statistic (``want``: SPEARMAN, KENDALL, SOMERS, RINT or RINT_LARGE_SAMPLE) of every matrix of
    ``counts`` ``(..., K, K)``, or (``want`` = ALL_PAIRS) all five in one pass, shape ``(5, ...)`` (see ``_pairs_py``)."""
    flat, stack = _flat(counts)
    wanted = np.zeros(5, np.bool_)
    wanted[want] = True
    out = np.empty((5, len(flat)))
    _run(_pairs, flat, wanted, flat.dtype.kind in "iub", LANES, out)
    return out[want].reshape(out[want].shape[:-1] + stack)


def _george_py(counts, cost, default, accuracy, tc, max_tc):
    """Per matrix: accuracy, TC = sum n_tp C_tp and max TC = sum_t n_t max_p C_tp (George, Lu & Chang 2016),
    with C the ``cost`` given, or (``default``) eq. 4 from the matrix's class sizes: NaN if a class is empty.

    Eq. 4 is C[t, p] = (N - n_t) (|t - p| / n_p): the factor of the row is taken out of its sums.
    """
    m, k = counts.shape[0], counts.shape[1]
    sizes = np.empty(k)
    inverse = np.empty(k)
    highest = np.empty(k)  # a given cost's largest entry per row
    for t in range(k):
        highest[t] = 0.0
        for q in range(k):
            highest[t] = max(highest[t], cost[t, q])
    dist = _distances(k, 1.0)
    sound = True
    for i in range(m):
        total = 0.0
        hits = 0.0
        empty = False
        for t in range(k):
            row = 0.0
            for q in range(k):
                x = counts[i, t, q]
                sound &= _sound(x)
                row += x
            sizes[t] = row
            empty |= not row > 0
            total += row
            hits += counts[i, t, t]
        accuracy[i] = hits / total
        spent = 0.0
        most = 0.0
        if not default:
            for t in range(k):
                for q in range(k):
                    spent += counts[i, t, q] * cost[t, q]
                most += sizes[t] * highest[t]
        elif empty:  # eq. 4 divides by every class's size
            spent = most = np.nan
        else:
            for q in range(k):
                inverse[q] = 1.0 / sizes[q]
            for t in range(k):
                rest = total - sizes[t]
                row = 0.0
                worst = 0.0
                for q in range(k):
                    c = dist[t, q] * inverse[q]
                    row += counts[i, t, q] * c
                    worst = max(worst, c)
                spent += rest * row
                most += sizes[t] * (rest * worst)
        tc[i] = spent
        max_tc[i] = most
    return FINE if sound else UNSOUND


def _proportions(counts, i, p, rows):
    """Matrix ``i`` of ``counts`` as proportions p = n / N (NaN if N = 0) written into ``p``, its row sums
    into ``rows``; returns (N, whether its counts are ``_sound``)."""
    k = counts.shape[1]
    total = 0.0
    sound = True
    for r in range(k):
        for c in range(k):
            x = counts[i, r, c]
            sound &= _sound(x)
            total += x
    scale = 1.0 / total if total > 0 else np.nan
    for r in range(k):
        row = 0.0
        for c in range(k):
            p[r, c] = counts[i, r, c] * scale
            row += p[r, c]
        rows[r] = row
    return total, sound


def _gerrity_py(counts, lanes, out):
    """Gerrity's (1992) score of every matrix; NaN when the first or last true class is empty.

    With low = min(r, c) and high = max(r, c), s_rc (K - 1) = B_low + A_high - |r - c|, where
    B_j = sum_{i<j} 1 / a_i and A_j = sum_{j<=i<K} a_i depend on the true margin through the ratios a_i only.
    So sum_rc n_rc s_rc (K - 1) = sum_j (B_j L_j + A_j H_j) - sum_rc n_rc |r - c|, with L_j the count of the
    cells whose lower index is j (row j from column j on, and column j below it) and H_j of those whose
    higher index is j: the row sums, L, H and sum n |r - c| of a matrix, then O(K) steps, divided by N once;
    ``lanes`` matrices at a time, each step on the vector of lanes (``_read_block``).
    """
    m, k = counts.shape[0], counts.shape[1]
    dist = _distances(k, 1.0)
    v = np.zeros((k, k, lanes))
    rows = np.empty((k, lanes))
    low = np.empty((k, lanes))
    high = np.empty((k, lanes))
    ratio = np.empty((k, lanes))  # a_j = (1 - P_j) / P_j
    inverse = np.empty((k, lanes))
    total = np.empty(lanes)
    s = np.empty(lanes)
    before = np.empty(lanes)
    after = np.empty(lanes)
    sound = True
    for start in range(0, m, lanes):
        n = min(lanes, m - start)
        sound &= _read_block(counts, start, n, v)
        for j in range(k):
            for b in range(lanes):
                rows[j, b] = 0.0
                low[j, b] = 0.0
                high[j, b] = 0.0
        for b in range(lanes):
            s[b] = 0.0
        for r in range(k):
            for c in range(k):
                d = dist[r, c]
                j, h = min(r, c), max(r, c)
                for b in range(lanes):
                    x = v[r, c, b]
                    rows[r, b] += x
                    low[j, b] += x
                    high[h, b] += x
                    s[b] -= x * d
        for b in range(lanes):  # N (1 - P_j) into ratio, added from the last class down
            ratio[k - 2, b] = rows[k - 1, b]
        for j in range(k - 3, -1, -1):
            for b in range(lanes):
                ratio[j, b] = ratio[j + 1, b] + rows[j + 1, b]
        for b in range(lanes):
            total[b] = rows[0, b]
        for j in range(k - 1):  # total: N P_j; then a_j and 1 / a_j (N cancels)
            for b in range(lanes):
                if j:
                    total[b] += rows[j, b]
                inverse[j, b] = total[b] / ratio[j, b]
                ratio[j, b] = ratio[j, b] / total[b]
        for b in range(lanes):
            total[b] += rows[k - 1, b]
            before[b] = 0.0  # B_j
            after[b] = 0.0  # A_j
        for j in range(k - 1):
            for b in range(lanes):
                s[b] += before[b] * low[j, b]
                before[b] += inverse[j, b]
                after[b] += ratio[k - 2 - j, b]
                s[b] += after[b] * high[k - 2 - j, b]
        for b in range(n):
            defined = rows[0, b] > 0 and rows[k - 1, b] > 0 and k > 1
            out[start + b] = (s[b] + before[b] * low[k - 1, b]) / total[b] / (k - 1) if defined else np.nan
    return FINE if sound else UNSOUND


def _cem_ord_py(counts, out):
    """CEM-ORD of Amigó et al. (2020) of every matrix, on proportions; NaN for an empty matrix."""
    m, k = counts.shape[0], counts.shape[1]
    p = np.empty((k, k))
    shares = np.empty(k)
    middle = np.empty(k)
    sound = True
    for i in range(m):
        sound &= _proportions(counts, i, p, shares)[1]
        run = 0.0
        for r in range(k):
            run += shares[r]
            middle[r] = run - shares[r] / 2
        # found / best is the same in any base of the logarithm: the natural one is the fastest
        found = 0.0
        best = 0.0
        for r in range(k):
            half = shares[r] / 2
            if shares[r] > 0:
                best += shares[r] * -np.log(half)
            for c in range(k):
                if p[r, c] > 0:
                    found += p[r, c] * -np.log(half + abs(middle[r] - middle[c]))
        out[i] = found / best if best > 0 else np.nan
    return FINE if sound else UNSOUND


_george = _compiled(_george_py, "_sound", "_distances")
_gerrity = _compiled(_gerrity_py, "_sound", "_distances", "_read_block")
_cem_ord = _compiled(_cem_ord_py, "_sound", "_proportions")


def george(counts, cost) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accuracy, TC and max TC of every matrix of ``counts`` ``(..., K, K)``; ``cost`` None for eq. 4."""
    flat, stack = _flat(counts)
    k, m = flat.shape[-1], len(flat)
    out = np.empty((3, m))
    given = np.zeros((k, k)) if cost is None else np.ascontiguousarray(cost, dtype=np.float64)
    _run(_george, flat, given, cost is None, out[0], out[1], out[2])
    return out[0].reshape(stack), out[1].reshape(stack), out[2].reshape(stack)


def gerrity(counts) -> np.ndarray:
    """Gerrity's score of every matrix of ``counts`` ``(..., K, K)``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _run(_gerrity, flat, LANES, out)
    return out.reshape(stack)


def cem_ord(counts) -> np.ndarray:
    """CEM-ORD of every matrix of ``counts`` ``(..., K, K)``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _run(_cem_ord, flat, out)
    return out.reshape(stack)


def auoc(counts, tol) -> np.ndarray:
    """A_UOC of every matrix of ``counts`` ``(..., K, K)`` (``tol``: ``oc.ENVELOPE_TOL``)."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _run(_path_index, flat, 1.0, 1.0, True, True, float(tol), LANES, out)
    return out.reshape(stack)


CLASS_MEAN, CLASS_MAX, MIN_RECALL, GM_RECALL = range(4)


def _positive(values, n):
    """Whether the first ``n`` of ``values`` are all > 0."""
    for j in range(n):
        if not values[j] > 0:
            return False
    return True


def _per_class_py(counts, weights, want, missing_zero, out):
    """Per matrix, a summary over the true classes r of E_r = sum_c n_rc w_rc / N_r (CLASS_MEAN: their
    mean, CLASS_MAX: their maximum; ``classic.amae``, ``amse``, ``mmae``) or of the recalls n_rr / N_r
    (MIN_RECALL: ``ms``, GM_RECALL: ``gm``), over the classes with samples (``missing_zero``: the others
    count as 0, as ``classic._class_error``); NaN when no class has samples.

    GM_RECALL multiplies the recalls and takes one logarithm, exp(log(prod) / K'), unless the product
    underflows (then the sum of their logarithms).
    """
    m, k = counts.shape[0], counts.shape[1]
    recalls = np.empty(k)
    sound = True
    for i in range(m):
        total = 0.0
        used = 0
        acc = 0.0 if want != MIN_RECALL else np.inf
        if want == CLASS_MAX:
            acc = -np.inf
        elif want == GM_RECALL:
            acc = 1.0
        for r in range(k):
            row = 0.0
            row_w = 0.0
            for c in range(k):
                x = counts[i, r, c]
                sound &= _sound(x)
                row += x
                if want <= CLASS_MAX:
                    row_w += x * weights[r, c]
            total += row
            if row > 0:
                value = row_w / row if want <= CLASS_MAX else counts[i, r, r] / row
            elif missing_zero and want <= CLASS_MAX:
                value = 0.0
            else:
                continue
            used += 1
            if want == CLASS_MEAN:
                acc += value
            elif want == CLASS_MAX:
                acc = max(acc, value)
            elif want == MIN_RECALL:
                acc = min(acc, value)
            else:
                recalls[used - 1] = value
                acc *= value
        if used == 0 or not total > 0:
            out[i] = np.nan
        elif want == CLASS_MEAN:
            out[i] = acc / used
        elif want == GM_RECALL:
            if acc < 1e-290 and _positive(recalls, used):  # the product underflows: sum the logarithms
                acc = 0.0
                for r in range(used):
                    acc += np.log(recalls[r])
                out[i] = np.exp(acc / used)
            else:
                out[i] = np.exp(np.log(acc) / used)
        else:
            out[i] = acc
    return FINE if sound else UNSOUND


_per_class = _compiled(_per_class_py, "_sound", "_positive")


def per_class(counts, weights, want: int, missing_zero: bool = False) -> np.ndarray:
    """``_per_class_py`` of every matrix of ``counts`` ``(..., K, K)`` with ``(K, K)`` ``weights``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _run(_per_class, flat, np.ascontiguousarray(weights, dtype=np.float64), want, missing_zero, out)
    return out.reshape(stack)


def _threshold_py(proba, true, k, cdf, bits, squared, key):
    """One threshold's pass over the samples (``calibration.decompose`` without weights or groups): ``cdf`` +=
    ``proba[:, k]`` (``bits``: the same memory as uint64), the squared gaps (x - y)^2 of the forecasts x and the
    outcomes y = 1{true <= k}, and the keys that sort the forecasts with their outcomes (x's bits << 1 | y)."""
    for i in range(len(cdf)):
        x = cdf[i] + proba[i, k]
        cdf[i] = x
        y = true[i] <= k
        gap = x - (1.0 if y else 0.0)
        squared[i] = gap * gap
        key[i] = (bits[i] << np.uint64(1)) | (np.uint64(1) if y else np.uint64(0))


def _key_bins_py(key, bits, weight, events):
    """The runs of equal forecasts in sorted keys (a forecast's bits shifted up one, its outcome in the lowest
    bit; ``calibration.Bins.of``): each run's forecast bits, size and number of events, in order; returns the
    number of runs."""
    b = -1
    for i in range(len(key)):
        forecast = key[i] >> 1
        if b < 0 or forecast != bits[b]:
            b += 1
            bits[b] = forecast
            weight[b] = 0.0
            events[b] = 0.0
        weight[b] += 1.0
        events[b] += float(key[i] & 1)
    return b + 1


def _push(top, first, weight, weighted, events, group, start, pooled_weight, pooled_forecast, pooled_events):
    """PAV's step: a new pool (its first bin, weight, weight x forecast, events) on the stack of ``top`` + 1 pools,
    merged with the pool below while that one's frequency is >= its own (and, if ``group`` is not empty, it is
    of the same group); returns the new top."""
    top += 1
    start[top] = first
    pooled_weight[top] = weight
    pooled_forecast[top] = weighted
    pooled_events[top] = events
    while (
        top > 0
        and (len(group) == 0 or group[start[top]] == group[start[top - 1]])
        and pooled_events[top - 1] * pooled_weight[top] >= pooled_events[top] * pooled_weight[top - 1]
    ):  # the frequencies compared without a division (exact for counts)
        pooled_weight[top - 1] += pooled_weight[top]
        pooled_forecast[top - 1] += pooled_forecast[top]
        pooled_events[top - 1] += pooled_events[top]
        top -= 1
    return top


def _pav_py(weight, forecast, events, group, pool, start, pooled_weight, pooled_forecast, pooled_events):
    """The pool-adjacent-violators algorithm on bins sorted by forecast (within ``group``, if not empty): the
    isotonic regression of the bins' frequencies ``events / weight`` with weights ``weight``, as pools of
    adjacent bins with increasing frequencies (``calibration.Bins.pooled``).

    Each bin is pushed as a pool and merged down (``_push``; pools of equal frequency too, so the pools are the
    runs of equal fitted values). Writes the pool of every bin, each pool's first bin and its sums of weight,
    weight x forecast and events; returns the number of pools.
    """
    top = -1
    for b in range(len(weight)):
        top = _push(
            top, b, weight[b], weight[b] * forecast[b], events[b], group, start, pooled_weight, pooled_forecast,
            pooled_events,
        )  # fmt: skip
    for p in range(top + 1):
        end = start[p + 1] if p < top else len(weight)
        for b in range(start[p], end):
            pool[b] = p
    return top + 1


def _key_pav_py(key, start, pooled_weight, pooled_forecast, pooled_events):
    """``_key_bins_py`` and ``_pav_py`` in one pass over sorted keys (no groups): each run of equal forecasts is
    pushed on the PAV stack as it ends, never stored. Writes the pools' sums; returns their number."""
    no_group = np.zeros(0, np.int64)
    cell = np.zeros(1, np.uint64)
    forecast = cell.view(np.float64)  # the forecast whose bits are in cell[0]
    top = -1
    bins = 0
    size = 0.0
    ones = 0.0
    for i in range(len(key)):
        bits = key[i] >> 1
        if i > 0 and bits != cell[0]:
            top = _push(
                top, bins, size, size * forecast[0], ones, no_group, start, pooled_weight, pooled_forecast,
                pooled_events,
            )  # fmt: skip
            bins += 1
            size = 0.0
            ones = 0.0
        cell[0] = bits
        size += 1.0
        ones += float(key[i] & 1)
    if len(key):
        top = _push(
            top, bins, size, size * forecast[0], ones, no_group, start, pooled_weight, pooled_forecast, pooled_events
        )
    return top + 1


def _binned_terms_py(weight, forecast, events, base, reliability, resolution, gap):
    """Murphy's terms of every bin, with the operations of ``calibration.decompose``'s numpy path (so the sums
    are the same): w (f - o)^2, w (o - base)^2 and |w f - e|, with o = e / w."""
    for b in range(len(weight)):
        frequency = events[b] / weight[b]
        miss = forecast[b] - frequency
        reliability[b] = weight[b] * (miss * miss)
        spread = frequency - base
        resolution[b] = weight[b] * (spread * spread)
        gap[b] = abs(weight[b] * forecast[b] - events[b])


_threshold = _compiled(_threshold_py)
_key_bins = _compiled(_key_bins_py)
_pav = _compiled(_pav_py, "_push")
_key_pav = _compiled(_key_pav_py, "_push")
_binned_terms = _compiled(_binned_terms_py)


def thresholds(proba, true):
    """Per threshold k = 1, ..., K - 1 of ``proba`` ``(n, K)``: the squared gaps (x_k - y_k)^2 and the unsorted keys
    (``_threshold_py``); the arrays are reused from one threshold to the next."""
    n = len(true)
    cdf, squared, key = np.zeros(n), np.empty(n), np.empty(n, np.uint64)
    for k in range(proba.shape[-1] - 1):
        _threshold(proba, true, k, cdf, cdf.view(np.uint64), squared, key)
        yield squared, key


def key_bins(key) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``_key_bins_py`` of sorted uint64 ``key``: the runs' forecasts (float64), sizes and events."""
    bits, weight, events = np.empty(len(key), np.uint64), np.empty(len(key)), np.empty(len(key))
    n = _key_bins(key, bits, weight, events)
    return bits[:n].view(np.float64), weight[:n], events[:n]


def key_pools(key) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The PAV pools of the bins of sorted uint64 ``key`` (``_key_pav_py``): their forecasts (the weighted means),
    weights and events."""
    sums = np.empty((3, len(key)))
    m = _key_pav(key, np.empty(len(key), np.int64), sums[0], sums[1], sums[2])
    return sums[1, :m] / sums[0, :m], sums[0, :m], sums[2, :m]


def binned_terms(weight, forecast, events, base: float) -> np.ndarray:
    """``_binned_terms_py``: rows reliability, resolution and |w f - e| of every bin, ``(3, bins)``."""
    out = np.empty((3, len(weight)))
    _binned_terms(weight, forecast, events, base, out[0], out[1], out[2])
    return out


def pav(weight, forecast, events, group) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``_pav_py`` (``group`` None: one group): the pool of every bin, the pools' first bins, and their sums of
    weight, weight x forecast and events."""
    n = len(weight)
    pool, start = np.empty(n, np.int64), np.empty(n, np.int64)
    sums = np.empty((3, n))
    no_group = np.zeros(0, np.int64)
    m = _pav(weight, forecast, events, no_group if group is None else group, pool, start, sums[0], sums[1], sums[2])
    return pool, start[:m], sums[0, :m], sums[1, :m], sums[2, :m]


def _invert_py(table, guide, steps, u, n, low, width, out):
    """``simulate._draw.binomials``' inversion: the variate of replicate i is the number of entries <= u_i + 2 r of
    row r = n_i - low of ``table`` (``width`` entries a row), at most n_i. The search starts at ``guide[r, g]``,
    that number for u = g / ``steps`` with g = floor(u_i steps), and walks up a step or two (numpy's path bisects
    the same numbers)."""
    for i in range(len(u)):
        row = n[i] - low
        base = row * width
        key = u[i] + 2.0 * row
        j = guide[row * steps + int(u[i] * steps)]
        while j < width and table[base + j] <= key:
            j += 1
        out[i] = min(j, n[i])


invert = _compiled(_invert_py)
