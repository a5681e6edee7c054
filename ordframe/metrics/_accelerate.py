"""Optional numba kernels for the confusion metrics (the ``numba`` extra); numpy is the fallback.

As xarray does with numbagg: when numba is installed, the kernels below run
compiled, one pass per matrix with no temporaries the size of the stack;
without it (or with the environment variable ``ORDFRAME_NUMBA=0``) every
metric runs its numpy formulation. Both give the same values (to rounding;
the tests check them against each other on random cubes).

numba is imported, and a kernel compiled (cached on disk), on the first call
of an accelerated metric, never at ``import ordframe``.

Each kernel checks every count as it reads it (``_sound``) and raises a
ValueError for a negative, NaN or infinite one, so that the bridge makes no
pass over the cube of its own to validate it (``checks_counts``).
"""

from __future__ import annotations

import functools
import math

import numpy as np

from ordframe._core.options import COMPILED as ENABLED


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
    counts = np.asarray(counts)
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
    pass over the cube (``checks_counts``); on this error it runs that check to say which counts.
    """
    if kernel(counts, *args) == UNSOUND:
        raise ValueError(
            "the confusion cube has counts that are negative, NaN or infinite; counts must be finite and >= 0"
        )


def checks_counts(func):
    """Mark a metric's kernel that, compiled, raises a ValueError for invalid counts itself:
    ``func.checks_counts()`` says whether it does now (numba on)."""
    func.checks_counts = lambda: ENABLED
    return func


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


# Below this K, UOC's kernel divides a row's counts in the loop that sums v d: the vectorised division
# loop (and a division more per row) costs more than it saves on rows this short (measured at K = 5).
SHORT_ROWS = 8


def _path_index_py(counts, beta, gamma, uniform, area, tol, out):
    """OC (``uniform`` false) or UOC of every matrix of ``counts`` ``(M, K, K)`` into ``out`` ``(M,)``; with
    ``area`` (``uniform``, gamma = 1), A_UOC instead (``oc.auoc``'s search, below; ``tol``: ``oc.ENVELOPE_TOL``).

    OC: v = n, D = N + (sum n d)^(1/gamma), mu = beta / (N (K-1)^gamma);
    UOC: v = n / N_r on the K' observed rows, D = K' + K'^(1 - 1/gamma) (sum v d)^(1/gamma),
    mu = beta / K'. The index is 1 + W / D for the minimum W of sum_path (mu D v d - v), by the
    recurrence of ``oc._min_path`` (each cell adds its cost to the smallest of its diagonal, upper and
    left predecessors), row by row: ``best`` holds the previous row's minima.

    One read of each matrix into the float scratch ``v``, whose sums run a chain of additions per row
    (the rows' chains overlap). UOC divides each count by N_r (not a multiplication by 1 / N_r: a
    diagonal count gives exactly 1, a row scaled by an integer the same quotients, so a diagonal matrix
    scores exactly 0 and row scaling changes nothing; sum v d too, as sum_c v_rc d_rc or, past
    ``SHORT_ROWS``, (sum_c n_rc d_rc) / N_r). All of it inline: a call per matrix to a compiled helper
    (its arrays passed with reference counts) costs more than half a read of the cube at K = 5.
    """
    m, k = counts.shape[0], counts.shape[1]
    dist = _distances(k, gamma)
    v = np.empty((k, k))
    vd = np.empty((k, k))
    best = np.empty(k)
    pen = np.empty(k)
    pending = np.empty((16, 6))
    scale = _power(float(k - 1), gamma)
    sound = True
    for i in range(m):
        mass = 0.0
        spread = 0.0
        for r in range(k):
            size = 0.0
            far = 0.0
            for c in range(k):
                x = counts[i, r, c]
                sound &= _sound(x)
                v[r, c] = x
                size += v[r, c]
                far += v[r, c] * dist[r, c]
            if not uniform:
                mass += size
                spread += far
            elif size > 0:
                mass += 1.0
                if k < SHORT_ROWS:  # the row's sum v d as the quotients are made, one loop
                    far = 0.0
                    for c in range(k):
                        v[r, c] /= size
                        far += v[r, c] * dist[r, c]
                    spread += far
                else:  # the divisions vectorised, alone in their loop; sum v d = (sum_c n_rc d_rc) / N_r
                    spread += far / size
                    for c in range(k):
                        v[r, c] /= size
        if gamma != 1.0:
            spread = spread ** (1 / gamma)
        if uniform:
            norm = mass + (mass ** (1 - 1 / gamma) * spread if gamma != 1.0 else spread)
            mu = beta / mass
        else:
            norm = mass + spread
            mu = beta / (mass * scale)
        if not norm > 0:
            out[i] = np.nan
            continue
        if not area:
            lam = mu * norm
            left = lam * (v[0, 0] * dist[0, 0]) - v[0, 0]
            best[0] = left
            for c in range(1, k):
                left = left + (lam * (v[0, c] * dist[0, c]) - v[0, c])
                best[c] = left
            for r in range(1, k):
                diag = best[0]
                left = diag + (lam * (v[r, 0] * dist[r, 0]) - v[r, 0])
                best[0] = left
                for c in range(1, k):
                    up = best[c]
                    left = min(min(diag, up), left) + (lam * (v[r, c] * dist[r, c]) - v[r, c])
                    best[c] = left
                    diag = up
            out[i] = 1 + left / norm
            continue
        # A_UOC: ``oc.auoc``'s parametric search, a stack of intervals (lo, hi, a, b, c, e) in ``pending`` (grown
        # when full). Its DPs, with T = sum_path v d along a minimising path (``oc._min_path``'s ties: diagonal
        # first, then down, then right, chosen by selects, not branches: the comparisons follow the data and
        # would be mispredicted), run at beta = 0, at beta = 1, then at the crossing x of each pending
        # interval's two lines: one DP in the loop, each round's beta set by the round before.
        for r in range(k):
            for c in range(k):
                vd[r, c] = v[r, c] * dist[r, c]
        top = -2  # -2, -1: the lines at beta = 0 and 1 are still to come
        under = 0.0
        at = 0.0  # the beta of the next DP
        lo = hi = a = b = c_ = e = 0.0
        while True:
            lam = at * mu * norm
            left = lam * vd[0, 0] - v[0, 0]
            left_t = vd[0, 0]
            best[0], pen[0] = left, left_t
            for c in range(1, k):
                left = left + (lam * vd[0, c] - v[0, c])
                left_t = left_t + vd[0, c]
                best[c], pen[c] = left, left_t
            for r in range(1, k):
                diag, diag_t = best[0], pen[0]
                left = diag + (lam * vd[r, 0] - v[r, 0])
                left_t = diag_t + vd[r, 0]
                best[0], pen[0] = left, left_t
                for c in range(1, k):
                    up, up_t = best[c], pen[c]
                    down = up < diag
                    w = up if down else diag
                    t = up_t if down else diag_t
                    right = left < w
                    w = left if right else w
                    t = left_t if right else t
                    left = w + (lam * vd[r, c] - v[r, c])
                    left_t = t + vd[r, c]
                    best[c], pen[c] = left, left_t
                    diag, diag_t = up, up_t
            pb = mu * left_t  # the line A + B beta of the path found: UOC(beta) = 1 + W / D
            pa = 1 + left / norm - at * pb
            if top == -2:
                a, b, top, at = pa, pb, -1, 1.0
                continue
            if top == -1:  # (element by element below: a row of ``pending`` as a view costs its reference count)
                first = (0.0, 1.0, a, b, pa, pb)
                for j in range(6):
                    pending[0, j] = first[j]
                top = 1
            elif pa + pb * at < min(a + b * at, c_ + e * at) - tol:  # a path below both lines at x = at
                if top + 2 > len(pending):
                    grown = np.empty((2 * len(pending), 6))
                    grown[:top] = pending[:top]
                    pending = grown
                below, above = (lo, at, a, b, pa, pb), (at, hi, pa, pb, c_, e)
                for j in range(6):
                    pending[top, j] = below[j]
                    pending[top + 1, j] = above[j]
                top += 2
            else:  # the envelope on [lo, hi] is min(La, Lb): its integral
                under += a * (at - lo) + b * (at * at - lo * lo) / 2 + c_ * (hi - at) + e * (hi * hi - at * at) / 2
            probe = False
            while top and not probe:
                top -= 1
                lo, hi, a, b = pending[top, 0], pending[top, 1], pending[top, 2], pending[top, 3]
                c_, e = pending[top, 4], pending[top, 5]
                at = (c_ - a) / (b - e) if b > e else lo
                at = min(max(at, lo), hi)
                probe = abs(a - c_) + abs(b - e) > tol  # two distinct lines: is there a path below both at x?
                if not probe:
                    under += a * (at - lo) + b * (at * at - lo * lo) / 2 + c_ * (hi - at) + e * (hi * hi - at * at) / 2
            if not probe:
                break
        out[i] = under
    return FINE if sound else UNSOUND


_path_index = _compiled(_path_index_py, "_sound", "_distances", "_power")


def path_index(counts, beta, gamma, uniform: bool) -> np.ndarray:
    """OC or UOC of every matrix of ``counts`` ``(..., K, K)`` (int64 or float64), shape ``(...)``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _run(_path_index, flat, float(beta), float(gamma), uniform, False, 0.0, out)
    return out.reshape(stack)


def _summary_py(counts, weights, out, want_chance):
    """Per matrix, in one pass: ``out`` = (N, trace, sum n w, chance).

    ``chance`` (with ``want_chance``) is sum_r (N_r / N) sum_c w_rc (N_c / N), on proportions so that no
    product of two counts is formed.
    """
    m, k = counts.shape[0], counts.shape[1]
    rows = np.empty(k)
    cols = np.empty(k)
    sound = True
    for i in range(m):
        total = 0.0
        hits = 0.0
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
            hits += counts[i, r, r]
            total += row
            weighted += row_w
            rows[r] = row
        out[0, i] = total
        out[1, i] = hits
        out[2, i] = weighted
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
            out[3, i] = expected
    return FINE if sound else UNSOUND


_summary = _compiled(_summary_py, "_sound")


def summary(counts, weights, chance: bool = False) -> dict:
    """N, trace and ``wsum`` (sum_rc n_rc w_rc for the ``(K, K)`` ``weights``) of every matrix of ``counts``
    ``(..., K, K)`` in one pass, and with ``chance`` sum_rc w_rc N_r N_c / N^2: a dict of arrays over the stack."""
    flat, stack = _flat(counts)
    out = np.empty((4, len(flat)))
    _run(_summary, flat, np.ascontiguousarray(weights, dtype=np.float64), out, chance)
    names = ("n", "trace", "wsum", "chance")[: 4 if chance else 3]
    return {name: out[j].reshape(stack) for j, name in enumerate(names)}


def _margin_terms(margin):
    """Of one margin m, in one loop: whether two classes or more have samples; sum_{i<j} m_i m_j, as
    sum_i m_i (sum_{j>=i} m_j - m_i) (``classic._pairs_not_tied``); and r_int's pairs of the margin,
    sum_i m_i (sum_{j>=i} m_j), over N^2."""
    used = 0
    suffix = 0.0
    untied = 0.0
    spread = 0.0
    for i in range(margin.shape[0] - 1, -1, -1):
        m = margin[i]
        suffix += m
        untied += m * (suffix - m)
        spread += m * suffix
        used += m > 0
    return used >= 2, untied, spread


SPEARMAN, KENDALL, SOMERS, RINT, RINT_LARGE_SAMPLE = range(5)
ALL_PAIRS = slice(None)  # every rank statistic of ``pairs``, in that order
# Rank statistics are homogeneous of degree 0 in the counts: a matrix whose N lies in this range is
# used as it is (the products of Spearman's variances, of degree 6 in the counts, neither overflow
# nor underflow), others as proportions.
SAFE_TOTAL = (1e-40, 1e40)


def _stream_pairs(counts, i, rows, above, concord, nested):
    """One streaming pass over matrix ``i`` of ``counts``: its row sums into ``rows``, its column sums into
    ``above``, and (N, C - D if ``concord``, r_int's sum over pairs if ``nested``, whether its counts are
    ``_sound``).

    Row r is read after the rows above it, whose column sums so far are ``above``: a cell x at (r, c) is
    concordant with the mass above it and to its left, discordant with the mass above and to its right,
    so C - D = sum_rc x (2 sum_{c' < c} above_c' + above_c - sum above); r_int's sum over pairs
    (r', c') <= (r, c) in both classes, the cell with itself included, is sum_rc x (the mass above and
    to the left, its column included, + the row up to and including the cell).
    """
    k = counts.shape[1]
    sound = True
    for c in range(k):
        above[c] = 0.0
    total = 0.0
    balance = 0.0
    agree = 0.0
    for r in range(k):
        left = 0.0  # sum_{c' < c} above[c']
        run = 0.0  # the row up to and including the cell
        cross = 0.0
        ahead = 0.0
        for c in range(k):
            x = counts[i, r, c]
            sound &= _sound(x)
            a = above[c]
            run += x
            if concord:
                cross += x * (2.0 * left + a)
            if nested:
                ahead += x * (left + a + run)
            left += a
            above[c] = a + x
        rows[r] = run
        balance += cross - run * total  # total: the mass of the rows above, sum above
        agree += ahead
        total += run
    return total, balance, agree, sound


def _column_sums(counts, i, cols):
    """Matrix ``i``'s column sums into ``cols``; returns (N, whether its counts are ``_sound``)."""
    k = counts.shape[1]
    sound = True
    for c in range(k):
        cols[c] = 0.0
    total = 0.0
    for r in range(k):
        row = 0.0
        for c in range(k):
            x = counts[i, r, c]
            sound &= _sound(x)
            row += x
            cols[c] += x
        total += row
    return total, sound


def _spearman_sums(counts, i, cols, total, v):
    """Spearman's sums of matrix ``i`` given its column sums ``cols`` and N: (sum_rc u_r n_rc v_c,
    sum_r N_r u_r^2, sum_c N_c v_c^2, whether both margins use two classes or more), with u, v the centred
    mid-ranks (cumsum_{<r} + m_r / 2 - N / 2); the rows' sums are taken in the same read as the products."""
    k = counts.shape[1]
    run = 0.0
    var_c = 0.0
    used_c = 0
    for c in range(k):
        v[c] = run + cols[c] / 2 - total / 2
        run += cols[c]
        var_c += cols[c] * v[c] ** 2
        used_c += cols[c] > 0
    s = 0.0
    var_r = 0.0
    before = 0.0
    used_r = 0
    for r in range(k):
        row = 0.0
        dot = 0.0
        for c in range(k):
            x = counts[i, r, c]
            row += x
            dot += x * v[c]
        u = before + row / 2 - total / 2
        before += row
        s += u * dot
        var_r += row * u**2
        used_r += row > 0
    return s, var_r, var_c, used_r >= 2 and used_c >= 2


def _pairs_py(counts, wanted, integer, out):
    """Per matrix, the rank statistics flagged in ``wanted`` (indexed by SPEARMAN, KENDALL, SOMERS, RINT,
    RINT_LARGE_SAMPLE) into the same rows of ``out`` ``(5, M)``, each from one sum over pairs of cells:
    ``classic.spearman``, ``kendall_tau_b``, ``somers_d``, ``rint.rint`` or its large-sample form, with the
    same formulas and NaN rules. Rows not wanted are left as they are.

    The sums: C - D and r_int's sum p_ij sum_{i'>=i, j'>=j} p_i'j' from one streaming read of the matrix
    (``_stream_pairs``); Spearman's sum p_rc u_r v_c with u, v the centred mid-ranks of the margins from
    the column sums (that read, or ``_column_sums``) and one more read (``_spearman_sums``). Every ratio
    has the same degree in p above and below, so p is the counts as they are when N is in
    ``SAFE_TOTAL``, else the proportions n / N (as the numpy path; NaN for N = 0). ``integer``: the
    counts' type is an integer one (every matrix gets r_int's exact formula without a look).
    """
    m, k = counts.shape[0], counts.shape[1]
    rows = np.empty(k)
    cols = np.empty(k)
    v = np.empty(k)
    sound = True
    low, high = SAFE_TOTAL
    concord = wanted[KENDALL] or wanted[SOMERS]
    nested = wanted[RINT] or wanted[RINT_LARGE_SAMPLE]
    spearman = wanted[SPEARMAN]
    proportions = np.empty((1, k, k))  # a matrix whose N is outside SAFE_TOTAL, as proportions
    p = proportions[0]
    balance = agree = 0.0
    for i in range(m):
        if concord or nested:
            total, balance, agree, fine = _stream_pairs(counts, i, rows, cols, concord, nested)
        else:
            total, fine = _column_sums(counts, i, cols)
        sound &= fine
        unit = total  # N in the units of p: N as it is, or 1 for proportions
        scaled = not low < total < high
        if scaled:
            _proportions(counts, i, p, rows)
            if concord or nested:
                unit, balance, agree, _ = _stream_pairs(proportions, 0, rows, cols, concord, nested)
            else:
                unit, _ = _column_sums(proportions, 0, cols)
        if spearman:
            if scaled:
                s, var_r, var_c, varies = _spearman_sums(proportions, 0, cols, unit, v)
            else:
                s, var_r, var_c, varies = _spearman_sums(counts, i, cols, unit, v)
            out[SPEARMAN, i] = s / np.sqrt(var_r * var_c) if varies else np.nan
        if not (concord or nested):
            continue
        varies_r, untied_r, spread_r = _margin_terms(rows)
        varies_c, untied_c, spread_c = _margin_terms(cols)
        varies = varies_r and varies_c
        if wanted[KENDALL]:
            out[KENDALL, i] = balance / np.sqrt(untied_r * untied_c) if varies else np.nan
        if wanted[SOMERS]:
            out[SOMERS, i] = balance / untied_r if untied_r > 0 else np.nan
        for want in (RINT, RINT_LARGE_SAMPLE):
            if not wanted[want]:
                continue
            if not varies:
                out[want, i] = np.nan
                continue
            whole = want == RINT
            if whole and not integer:
                for r in range(k):
                    for c in range(k):
                        x = float(counts[i, r, c])
                        whole = whole and x == math.floor(x)
            self_pairs = unit * (unit / total) if whole else 0.0  # the N pairs (a, a), in the units of p^2
            s1 = spread_r - self_pairs
            s2 = spread_c - self_pairs
            out[want, i] = -1.0 + 2.0 * (agree - self_pairs) / np.sqrt(s1 * s2)
    return FINE if sound else UNSOUND


_pairs = _compiled(
    _pairs_py, "_sound", "_stream_pairs", "_column_sums", "_proportions", "_spearman_sums", "_margin_terms"
)


def pairs(counts, want) -> np.ndarray:
    """A rank statistic (``want``: SPEARMAN, KENDALL, SOMERS, RINT or RINT_LARGE_SAMPLE) of every matrix of
    ``counts`` ``(..., K, K)``, or (``want`` = ALL_PAIRS) all five in one pass, shape ``(5, ...)`` (see ``_pairs_py``)."""
    flat, stack = _flat(counts)
    wanted = np.zeros(5, np.bool_)
    wanted[want] = True
    out = np.empty((5, len(flat)))
    _run(_pairs, flat, wanted, flat.dtype.kind in "iub", out)
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


def _gerrity_py(counts, out):
    """Gerrity's (1992) score of every matrix; NaN when the first or last true class is empty.

    With low = min(r, c) and high = max(r, c), s_rc (K - 1) = B_low + A_high - |r - c|, where
    B_j = sum_{i<j} 1 / a_i and A_j = sum_{j<=i<K} a_i depend on the true margin through the ratios a_i only.
    So sum_rc n_rc s_rc (K - 1) = sum_j (B_j L_j + A_j H_j) - sum_rc n_rc |r - c|, with L_j the count of the
    cells whose lower index is j (row j from column j on, and column j below it) and H_j of those whose
    higher index is j: one read of the matrix gathers the row sums, L, H and sum n |r - c|, and the
    rest is O(K) per matrix, divided by N once.
    """
    m, k = counts.shape[0], counts.shape[1]
    dist = _distances(k, 1.0)
    rows = np.empty(k)
    low = np.empty(k)
    high = np.empty(k)
    above = np.empty(k)
    below = np.empty(k)
    a = np.empty(k)
    inverse = np.empty(k)
    sound = True
    for i in range(m):
        for j in range(k):
            low[j] = 0.0
            high[j] = 0.0
        total = 0.0
        far = 0.0
        for r in range(k):
            left = 0.0  # the row before the diagonal: into H_r
            row_far = 0.0  # a chain of additions per row: the rows' chains overlap
            for c in range(r):
                x = counts[i, r, c]
                sound &= _sound(x)
                left += x
                low[c] += x
                row_far += x * dist[r, c]
            right = 0.0  # the row from the diagonal on: into L_r
            for c in range(r, k):
                x = counts[i, r, c]
                sound &= _sound(x)
                right += x
                high[c] += x
                row_far += x * dist[r, c]
            low[r] += right
            high[r] += left
            rows[r] = left + right
            total += rows[r]
            far += row_far
        if not (rows[0] > 0 and rows[k - 1] > 0 and k > 1):
            out[i] = np.nan
            continue
        run = 0.0
        for j in range(k - 1, 0, -1):  # above[j - 1] = N (1 - P_(j-1)), added from the last class down
            run += rows[j]
            above[j - 1] = run
        run = 0.0
        for j in range(k - 1):  # below[j] = N P_j, P_j the share of classes <= j
            run += rows[j]
            below[j] = run
        for j in range(k - 1):  # a_j = (1 - P_j) / P_j and 1 / a_j (N cancels): two vectorised divisions
            a[j] = above[j] / below[j]
            inverse[j] = below[j] / above[j]
        s = -far
        before = 0.0  # B_j
        after = 0.0  # A_j
        for j in range(k - 1):
            s += before * low[j]
            before += inverse[j]
            after += a[k - 2 - j]
            s += after * high[k - 2 - j]
        s += before * low[k - 1]
        out[i] = s / total / (k - 1)
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
_gerrity = _compiled(_gerrity_py, "_sound", "_distances")
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
    _run(_gerrity, flat, out)
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
    _run(_path_index, flat, 1.0, 1.0, True, True, float(tol), out)
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
