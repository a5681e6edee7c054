"""Optional numba kernels for the confusion metrics (the ``numba`` extra); numpy is the fallback.

As xarray does with numbagg: when numba is installed, the kernels below run
compiled, one pass per matrix with no temporaries the size of the stack;
without it (or with the environment variable ``ORDFRAME_NUMBA=0``) every
metric runs its numpy formulation. Both give the same values (to rounding;
the tests check them against each other on random cubes).

numba is imported, and a kernel compiled (cached on disk), on the first call
of an accelerated metric, never at ``import ordframe``.
"""

from __future__ import annotations

import functools
import importlib.util
import math
import os

import numpy as np

ENABLED = os.environ.get("ORDFRAME_NUMBA", "").strip() != "0" and importlib.util.find_spec("numba") is not None


def numba_version() -> str:
    import numba

    return numba.__version__


def _compiled(func):
    """``func`` compiled by numba on its first call (nopython, cached on disk, IEEE division: x / 0 is inf or NaN).

    No fast-math: operations run in the order written (a reassociated product of proportions could
    underflow where the written one does not).
    """

    @functools.cache
    def build():
        import numba

        return numba.njit(cache=True, nogil=True, error_model="numpy")(func)

    @functools.wraps(func)
    def call(*args):
        return build()(*args)

    return call


def _flat(counts):
    counts = np.asarray(counts)
    k = counts.shape[-1]
    return counts.reshape(-1, k, k), counts.shape[:-2]


# Matrices solved side by side: the innermost loops run over a block of matrices, whose sums and
# minima are independent (they pipeline and vectorise), rather than along one matrix's chain of
# dependent additions. A block's scratch (BLOCK_CELLS float64 per array) stays in the L1/L2 cache.
BLOCK = 64
BLOCK_CELLS = 8192


def _path_index_py(counts, beta, gamma, uniform, out):
    """OC (``uniform`` false) or UOC of every matrix of ``counts`` ``(M, K, K)`` into ``out`` ``(M,)``.

    OC: v = n, D = N + (sum n d)^(1/gamma), mu = beta / (N (K-1)^gamma);
    UOC: v = n / N_r on the K' observed rows, D = K' + K'^(1 - 1/gamma) (sum v d)^(1/gamma),
    mu = beta / K'. The index is 1 + W / D for the minimum W of sum_path (mu D v d - v), by the
    recurrence of ``oc._min_path`` (the same additions along a path), row by row.
    """
    m, k = counts.shape[0], counts.shape[1]
    dist = np.empty((k, k))
    for r in range(k):
        for c in range(k):
            dist[r, c] = float(abs(r - c)) ** gamma
    block = max(1, min(BLOCK, BLOCK_CELLS // (k * k)))
    v = np.empty((k, k, block))
    best = np.empty((k, k, block))
    n = np.empty(block)
    spread = np.empty(block)
    size = np.empty(block)
    norm = np.empty(block)
    lam = np.empty(block)
    for start in range(0, m, block):
        nb = min(block, m - start)
        for j in range(nb):
            n[j] = 0.0
            spread[j] = 0.0
        for r in range(k):
            if uniform:
                for j in range(nb):
                    size[j] = 0.0
                for c in range(k):
                    for j in range(nb):
                        size[j] += counts[start + j, r, c]
                for j in range(nb):
                    if size[j] > 0:
                        n[j] += 1.0  # K', the observed rows
                for c in range(k):
                    for j in range(nb):
                        x = counts[start + j, r, c] / size[j] if size[j] > 0 else 0.0
                        v[r, c, j] = x
                        spread[j] += x * dist[r, c]
            else:
                for c in range(k):
                    for j in range(nb):
                        x = float(counts[start + j, r, c])
                        v[r, c, j] = x
                        n[j] += x
                        spread[j] += x * dist[r, c]
        for j in range(nb):
            if uniform:
                norm[j] = n[j] + n[j] ** (1 - 1 / gamma) * spread[j] ** (1 / gamma)
                lam[j] = beta / n[j] * norm[j]
            else:
                norm[j] = n[j] + spread[j] ** (1 / gamma)
                lam[j] = beta / (n[j] * (k - 1) ** gamma) * norm[j]
        for j in range(nb):
            best[0, 0, j] = lam[j] * (v[0, 0, j] * dist[0, 0]) - v[0, 0, j]
        for c in range(1, k):
            for j in range(nb):
                best[0, c, j] = best[0, c - 1, j] + (lam[j] * (v[0, c, j] * dist[0, c]) - v[0, c, j])
        for r in range(1, k):
            for j in range(nb):
                best[r, 0, j] = best[r - 1, 0, j] + (lam[j] * (v[r, 0, j] * dist[r, 0]) - v[r, 0, j])
            for c in range(1, k):
                for j in range(nb):
                    w = min(min(best[r - 1, c - 1, j], best[r - 1, c, j]), best[r, c - 1, j])
                    best[r, c, j] = w + (lam[j] * (v[r, c, j] * dist[r, c]) - v[r, c, j])
        for j in range(nb):
            out[start + j] = 1 + best[k - 1, k - 1, j] / norm[j] if norm[j] > 0 else np.nan


_path_index = _compiled(_path_index_py)


def path_index(counts, beta, gamma, uniform: bool) -> np.ndarray:
    """OC or UOC of every matrix of ``counts`` ``(..., K, K)`` (int64 or float64), shape ``(...)``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _path_index(flat, float(beta), float(gamma), uniform, out)
    return out.reshape(stack)


def _summary_py(counts, weights, out, rows, cols, diag, wrows, want_cols, want_diag, want_wrows, want_chance):
    """Per matrix, in one pass: ``out`` = (N, trace, sum n w, chance), the row sums and, as asked, the column
    sums, the diagonal and sum_c n_rc w_rc (branches outside the inner loop, which is then a plain sum).

    ``chance`` (with ``want_chance``, which needs ``want_cols``) is sum_rc w_rc (N_r / N) (N_c / N), on
    proportions so that no product of two counts is formed.
    """
    m, k = counts.shape[0], counts.shape[1]
    for i in range(m):
        total = 0.0
        hits = 0.0
        weighted = 0.0
        for r in range(k):
            row = 0.0
            row_w = 0.0
            for c in range(k):
                x = counts[i, r, c]
                row += x
                row_w += x * weights[r, c]
            hits += counts[i, r, r]
            total += row
            weighted += row_w
            rows[i, r] = row
            if want_wrows:
                wrows[i, r] = row_w
        if want_cols:
            for c in range(k):
                column = 0.0
                for r in range(k):
                    column += counts[i, r, c]
                cols[i, c] = column
        if want_diag:
            for r in range(k):
                diag[i, r] = counts[i, r, r]
        out[0, i] = total
        out[1, i] = hits
        out[2, i] = weighted
        if want_chance:
            scale = 1.0 / total if total > 0 else np.nan
            expected = 0.0
            for r in range(k):
                for c in range(k):
                    expected += weights[r, c] * ((rows[i, r] * scale) * (cols[i, c] * scale))
            out[3, i] = expected


_summary = _compiled(_summary_py)


def summary(
    counts, weights, rows: bool = False, cols: bool = False, diag: bool = False, wrows: bool = False, chance=False
) -> dict:
    """Margins of every matrix of ``counts`` ``(..., K, K)`` in one pass: a dict of arrays over the stack.

    Always ``n`` (N), ``trace`` and ``wsum`` (sum_rc n_rc w_rc for the ``(K, K)`` ``weights``); as asked,
    ``rows`` (N_r), ``cols`` (N_c), ``diag`` and ``wrows`` (sum_c n_rc w_rc), ``(..., K)``, and ``chance``
    (sum_rc w_rc N_r N_c / N^2).
    """
    cols = cols or chance
    flat, stack = _flat(counts)
    k, m = flat.shape[-1], len(flat)
    wanted = {"rows": rows, "cols": cols, "diag": diag, "wrows": wrows}
    parts = {name: np.empty((m, k) if want or name == "rows" else (0, k)) for name, want in wanted.items()}
    out = np.empty((4, m))
    weights = np.ascontiguousarray(weights, dtype=np.float64)
    _summary(flat, weights, out, *parts.values(), cols, diag, wrows, chance)
    result = {name: parts[name].reshape(stack + (k,)) for name, want in wanted.items() if want}
    totals = {"n": out[0], "trace": out[1], "wsum": out[2], **({"chance": out[3]} if chance else {})}
    return result | {name: a.reshape(stack) for name, a in totals.items()}


def _pairs_py(counts, want, n, rows, cols, out, integral):
    """Per matrix, on proportions p = n / N (NaN for N = 0): the margins over N and one sum over pairs of cells.

    ``want`` 0: ``out`` = sum p_rc u_r v_c with u, v the centred mid-ranks of the margins (Spearman);
    1: sum p_ij (sum_{i'>i, j'>j} - sum_{i'>i, j'<j}) p_i'j', concordant minus discordant pairs over N^2
    (Kendall, Somers); 2: sum p_ij sum_{i'>=i, j'>=j} p_i'j' (r_int), and ``integral``: every count is
    integer-valued.
    """
    m, k = counts.shape[0], counts.shape[1]
    p = np.empty((k, k))
    below = np.empty(k)  # sum_{r' > r} p[r', c]
    tail = np.empty(k)  # sum_{r' >= r, c' >= c} p[r', c']
    u = np.empty(k)
    v = np.empty(k)
    for i in range(m):
        total = 0.0
        for r in range(k):
            for c in range(k):
                total += counts[i, r, c]
        n[i] = total
        scale = 1.0 / total if total > 0 else np.nan
        for c in range(k):
            cols[i, c] = 0.0
        for r in range(k):
            row = 0.0
            for c in range(k):
                p[r, c] = counts[i, r, c] * scale
                row += p[r, c]
                cols[i, c] += p[r, c]
            rows[i, r] = row
        s = 0.0
        if want == 0:
            # centred mid-ranks: cumsum_{<=r} - m_r / 2 - (sum m) / 2
            half_r, half_c = 0.0, 0.0
            for r in range(k):
                half_r += rows[i, r]
                half_c += cols[i, r]
            run_r, run_c = 0.0, 0.0
            for r in range(k):
                run_r += rows[i, r]
                run_c += cols[i, r]
                u[r] = run_r - rows[i, r] / 2 - half_r / 2
                v[r] = run_c - cols[i, r] / 2 - half_c / 2
            for r in range(k):
                row = 0.0
                for c in range(k):
                    row += p[r, c] * v[c]
                s += u[r] * row
        elif want == 1:
            for c in range(k):
                below[c] = 0.0
            for r in range(k - 1, -1, -1):
                after = 0.0  # sum_{c' > c} below[c']
                for c in range(k - 1, -1, -1):
                    s += p[r, c] * after
                    after += below[c]
                before = 0.0  # sum_{c' < c} below[c']
                for c in range(k):
                    s -= p[r, c] * before
                    before += below[c]
                for c in range(k):
                    below[c] += p[r, c]
        else:
            whole = True
            for r in range(k):
                for c in range(k):
                    x = float(counts[i, r, c])
                    whole = whole and x == math.floor(x)
            integral[i] = whole
            for c in range(k):
                tail[c] = 0.0
            for r in range(k - 1, -1, -1):
                suffix = 0.0  # sum_{c' >= c} p[r, c']
                for c in range(k - 1, -1, -1):
                    suffix += p[r, c]
                    tail[c] += suffix
                    s += p[r, c] * tail[c]
        out[i] = s


_pairs = _compiled(_pairs_py)


PAIRS = ("cov", "balance", "agree")


def pairs(counts, what: str) -> dict:
    """``_pairs`` of every matrix of ``counts`` ``(..., K, K)``: a dict of arrays over the stack, ``n``,
    ``rows`` and ``cols`` over N ``(..., K)``, and ``what``: ``"cov"``, ``"balance"`` or ``"agree"``
    (with ``integral``)."""
    flat, stack = _flat(counts)
    k, m = flat.shape[-1], len(flat)
    out = {"n": np.empty(m), "rows": np.empty((m, k)), "cols": np.empty((m, k)), what: np.empty(m)}
    integral = np.empty(m if what == "agree" else 0, np.bool_)
    _pairs(flat, PAIRS.index(what), out["n"], out["rows"], out["cols"], out[what], integral)
    if what == "agree":
        out["integral"] = integral
    return {name: a.reshape(stack + a.shape[1:]) for name, a in out.items()}


def _george_py(counts, cost, default, accuracy, tc, max_tc):
    """Per matrix: accuracy, TC = sum n_tp C_tp and max TC = sum_t n_t max_p C_tp (George, Lu & Chang 2016),
    with C the ``cost`` given, or (``default``) eq. 4 from the matrix's class sizes: NaN if a class is empty."""
    m, k = counts.shape[0], counts.shape[1]
    sizes = np.empty(k)
    for i in range(m):
        total = 0.0
        hits = 0.0
        for t in range(k):
            row = 0.0
            for q in range(k):
                row += counts[i, t, q]
            sizes[t] = row
            total += row
            hits += counts[i, t, t]
        accuracy[i] = hits / total
        spent = 0.0
        most = 0.0
        for t in range(k):
            worst = 0.0
            for q in range(k):
                if default:
                    inverse = 1.0 / sizes[q] if sizes[q] > 0 else np.nan
                    c = (total - sizes[t]) * inverse * abs(t - q)
                else:
                    c = cost[t, q]
                spent += counts[i, t, q] * c
                if np.isnan(c) or c > worst:  # a NaN cost propagates, as numpy's max does
                    worst = c
            most += sizes[t] * worst
        tc[i] = spent
        max_tc[i] = most


def _gerrity_py(counts, out):
    """Gerrity's (1992) score of every matrix, on proportions; NaN when the first or last true class is empty."""
    m, k = counts.shape[0], counts.shape[1]
    p = np.empty((k, k))
    rows = np.empty(k)
    a = np.empty(k)
    inverse_before = np.empty(k)
    a_from = np.empty(k)
    for i in range(m):
        total = 0.0
        for r in range(k):
            for c in range(k):
                total += counts[i, r, c]
        scale = 1.0 / total if total > 0 else np.nan
        for r in range(k):
            row = 0.0
            for c in range(k):
                p[r, c] = counts[i, r, c] * scale
                row += p[r, c]
            rows[r] = row
        if not (rows[0] > 0 and rows[k - 1] > 0 and k > 1):
            out[i] = np.nan
            continue
        below = 0.0
        for j in range(k - 1):  # a_j = (1 - P_j) / P_j, P_j the share of classes <= j
            below += rows[j]
            above = 0.0
            for q in range(k - 1, j, -1):
                above += rows[q]
            a[j] = above / below
        inverse_before[0] = 0.0
        for r in range(1, k):
            inverse_before[r] = inverse_before[r - 1] + 1.0 / a[r - 1]
        a_from[k - 1] = 0.0
        for c in range(k - 2, -1, -1):
            a_from[c] = a_from[c + 1] + a[c]
        s = 0.0
        for r in range(k):
            for c in range(k):
                low, high = min(r, c), max(r, c)
                s += p[r, c] * ((inverse_before[low] + a_from[high] - abs(r - c)) / (k - 1))
        out[i] = s


def _cem_ord_py(counts, out):
    """CEM-ORD of Amigó et al. (2020) of every matrix, on proportions; NaN for an empty matrix."""
    m, k = counts.shape[0], counts.shape[1]
    p = np.empty((k, k))
    shares = np.empty(k)
    middle = np.empty(k)
    for i in range(m):
        total = 0.0
        for r in range(k):
            for c in range(k):
                total += counts[i, r, c]
        scale = 1.0 / total if total > 0 else np.nan
        run = 0.0
        for r in range(k):
            row = 0.0
            for c in range(k):
                p[r, c] = counts[i, r, c] * scale
                row += p[r, c]
            shares[r] = row
            run += row
            middle[r] = run - row / 2
        found = 0.0
        best = 0.0
        for r in range(k):
            if shares[r] > 0:
                best += shares[r] * -np.log2(shares[r] / 2)
            for c in range(k):
                if p[r, c] > 0:
                    found += p[r, c] * -np.log2(shares[r] / 2 + abs(middle[r] - middle[c]))
        out[i] = found / best if best > 0 else np.nan


_george = _compiled(_george_py)
_gerrity = _compiled(_gerrity_py)
_cem_ord = _compiled(_cem_ord_py)


def george(counts, cost) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accuracy, TC and max TC of every matrix of ``counts`` ``(..., K, K)``; ``cost`` None for eq. 4."""
    flat, stack = _flat(counts)
    k, m = flat.shape[-1], len(flat)
    out = np.empty((3, m))
    given = np.zeros((k, k)) if cost is None else np.ascontiguousarray(cost, dtype=np.float64)
    _george(flat, given, cost is None, out[0], out[1], out[2])
    return out[0].reshape(stack), out[1].reshape(stack), out[2].reshape(stack)


def gerrity(counts) -> np.ndarray:
    """Gerrity's score of every matrix of ``counts`` ``(..., K, K)``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _gerrity(flat, out)
    return out.reshape(stack)


def cem_ord(counts) -> np.ndarray:
    """CEM-ORD of every matrix of ``counts`` ``(..., K, K)``."""
    flat, stack = _flat(counts)
    out = np.empty(len(flat))
    _cem_ord(flat, out)
    return out.reshape(stack)
