"""When a compiled routine takes over from its numpy formulation: the rule of ski rental, in seconds.

A compiled routine's first call in a process costs numba's import and its compilation, or its load from numba's
cache on disk (``COMPILED_SECONDS``, measured by ``benchmarks/bench_first_call.py --threshold``), which a small
input never repays. So the numpy formulation runs, timed, until the time it has taken in the process, with what
the next call would take it (predicted by the caller from its own cost per unit of work), reaches that cost; then
the compiled routine runs, at every size. Never more than twice what the better choice in hindsight would have
cost (Karlin et al. 1988). Its time, not its work: a small call costs the numpy formulation a fixed part too.

Each routine is a key of its own (a metric's compiled twin, the compiled count, the compiled string coder).
Without numba, or with ``ORDFRAME_NUMBA=0`` (``options.COMPILED``), nothing switches.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from ordframe._core import options

T = TypeVar("T")

#: What a compiled routine's first call in a process costs with numba's cache warm, in seconds: the time its
#: numpy formulation may take before the compiled routine takes over.
COMPILED_SECONDS = 0.4
#: The time each routine's numpy formulation has taken in this process (infinite once the compiled one took over).
SPENT: dict[Hashable, float] = {}


def compiles(routine: Hashable, predicted: float) -> bool:
    """Whether ``routine`` runs compiled on work its numpy formulation would take ``predicted`` seconds on."""
    return options.COMPILED and SPENT.get(routine, 0.0) + predicted >= COMPILED_SECONDS


def takes_over(routine: Hashable, predicted: float, *, charged: bool = False) -> bool:
    """``compiles``; where it does, from now on at every size. ``charged``: where it does not, ``predicted`` is
    added to what ``routine`` has spent, for a numpy formulation that is not run through ``timed``."""
    if not compiles(routine, predicted):
        if charged:
            SPENT[routine] = SPENT.get(routine, 0.0) + predicted
        return False
    SPENT[routine] = float("inf")
    return True


def timed(routine: Hashable, func: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``func(*args, **kwargs)``, ``routine``'s numpy formulation; its time is added to what ``routine`` has spent."""
    start = time.perf_counter()
    try:
        return func(*args, **kwargs)
    finally:
        SPENT[routine] = SPENT.get(routine, 0.0) + time.perf_counter() - start


def steady_state() -> None:
    """Every compiled routine from now on at every size, as in a process whose numpy work has paid for them.

    For what measures the steady state (ordframe's benchmarks, and their dask workers through ``client.run``).
    """
    global COMPILED_SECONDS
    COMPILED_SECONDS = 0.0
