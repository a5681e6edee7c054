"""Settings, changed with ``set_options`` (from then on, or inside a ``with`` block).

They live in a ``contextvars.ContextVar``, like numpy's ``errstate``: a value set in one thread or asyncio task is
seen by that thread or task only, and a block restores exactly what its own context had.
"""

from __future__ import annotations

import contextvars
import importlib.util
import numbers
import os
from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

#: Whether ordframe's compiled kernels run (metrics and counting): numba is installed (the ``numba`` extra) and the
#: environment variable ``ORDFRAME_NUMBA`` is not ``0``. Without them the numpy formulations give the same values.
COMPILED = os.environ.get("ORDFRAME_NUMBA", "").strip() != "0" and importlib.util.find_spec("numba") is not None

DEFAULTS: Mapping[str, Any] = MappingProxyType({"max_cube_bytes": 2**30})
"""``max_cube_bytes``: the largest dense confusion cube (or per-group table) ordframe allocates, in bytes."""

_CURRENT: contextvars.ContextVar[Mapping[str, Any]] = contextvars.ContextVar("ordframe_options", default=DEFAULTS)


def current_options() -> Mapping[str, Any]:
    """The options in force in the calling thread or task (read-only)."""
    return _CURRENT.get()


class set_options:
    """Set ordframe options: ``ordframe.set_options(max_cube_bytes=4 * 2**30)``.

    Used as a context manager, the previous values come back at the end of the block. Options belong to the
    calling thread or asyncio task (a ``contextvars.ContextVar``, as numpy's ``errstate``): a block in one thread
    never changes another's, and a new thread starts from the defaults, so set the options inside the function
    a thread runs (or run it in ``contextvars.copy_context()``).

    Parameters
    ----------
    **options
        ``max_cube_bytes`` (int): refuse to build a dense grouped cube larger than
        this (default 1 GiB); ``observed=True`` stacks only the group combinations
        that occur instead.

    Raises
    ------
    ValueError
        For an unknown option or an invalid value.
    """

    def __init__(self, **options: Any) -> None:
        unknown = sorted(set(options) - set(DEFAULTS))
        if unknown:
            raise ValueError(f"unknown option(s) {unknown}; the options are {sorted(DEFAULTS)}")
        limit = options.get("max_cube_bytes", DEFAULTS["max_cube_bytes"])
        if isinstance(limit, bool) or not isinstance(limit, numbers.Integral) or limit <= 0:
            raise ValueError(f"max_cube_bytes must be a positive integer number of bytes, got {limit!r}")
        self._token = _CURRENT.set(MappingProxyType({**_CURRENT.get(), **options}))

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        _CURRENT.reset(self._token)


def check_allocation(n_bytes: int, what: str, hint: str = "") -> None:
    """Refuse to allocate ``n_bytes`` for ``what`` when that exceeds ``max_cube_bytes``."""
    limit = _CURRENT.get()["max_cube_bytes"]
    if n_bytes > limit:
        raise MemoryError(
            f"{what} would need {_bytes(n_bytes)}, more than max_cube_bytes = {_bytes(limit)}; {hint}raise the "
            "limit with ordframe.set_options(max_cube_bytes=...) if the memory is there"
        )


def _bytes(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
