"""Terms that several metrics take from the same counts, computed once within one call (``shared_terms``).

``evaluate`` and ``simulate.prefers`` run many metrics on one cube; some of them start from the same
terms (George's accuracy, TC and max TC; the rank statistics' sums over pairs of cells). The bridge opens
``shared_terms`` around its metrics, and a kernel asks ``shared`` for such a term: inside the block it is
computed on the first request and reused, outside it is computed every time.
"""

from __future__ import annotations

import contextlib
import contextvars

import numpy as np

_SHARED: contextvars.ContextVar[dict | None] = contextvars.ContextVar("ordframe_shared_terms", default=None)


@contextlib.contextmanager
def shared_terms():
    """Within the block, terms that several metrics take from the same counts (``shared``) are computed once.

    The bridge opens it around the metrics of one ``evaluate`` or ``prefers`` call, which read one
    cube and do not change it. A context variable: local to the thread, and kernels that dask runs
    elsewhere compute their terms as usual.
    """
    token = _SHARED.set({})
    try:
        yield
    finally:
        _SHARED.reset(token)


def shared(name: str, counts: np.ndarray, key, compute):
    """``compute()``, or inside ``shared_terms`` the value it had for the same ``name``, ``key`` and array.

    The array is known by its memory (address, shape, strides, dtype) and held until the block ends, so
    that no other array can take its place there; ``key`` None (parameters that are not hashable) computes
    every time. The value is shared: a caller that returns part of it returns a copy.
    """
    memo = _SHARED.get()
    if memo is None or key is None:
        return compute()
    counts = np.asarray(counts)
    ident = (name, counts.__array_interface__["data"][0], counts.shape, counts.strides, counts.dtype.str, key)
    if ident not in memo:
        memo[ident] = (counts, compute())
    return memo[ident][1]


def sharing() -> bool:
    """Whether a ``shared_terms`` block is open (in this thread)."""
    return _SHARED.get() is not None
