"""Progress of long computations in chunks: a tqdm bar when a run takes more than a couple of seconds.

``progress=None`` (the default) shows the bar only in an interactive terminal
and only once the first chunk says the whole run will take longer than
``AUTO_SECONDS``; ``True`` always shows it, ``False`` never.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator

from ordframe._core.checks import check_progress

AUTO_SECONDS = 2.0


def chunks(
    total: int, size: int, *, progress: bool | None = None, desc: str = "", unit: str = "replicate"
) -> Iterator[tuple[int, int]]:
    """``(start, stop)`` of consecutive chunks of ``size`` items out of ``total``, with an optional progress bar."""
    progress = check_progress(progress)
    bar = None
    started = time.perf_counter()
    try:
        for start in range(0, total, size):
            stop = min(total, start + size)
            yield start, stop
            if bar is None and stop < total and _show(progress, time.perf_counter() - started, stop / total):
                from tqdm.auto import tqdm

                bar = tqdm(total=total, initial=stop, desc=desc, unit=unit, leave=False)
            elif bar is not None:
                bar.update(stop - start)
    finally:
        if bar is not None:
            bar.close()


def _show(progress: bool | None, elapsed: float, done: float) -> bool:
    if progress is not None:
        return progress
    return sys.stderr.isatty() and elapsed / done > AUTO_SECONDS
