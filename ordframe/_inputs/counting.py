"""Counting rows into cells, and what the counts say about the classes (the warnings about suspicious labels).

Every front end that builds confusion cubes, per-group totals or retention
curves counts its coded rows with ``count_cells``, which reads each row's
codes once, block by block in the CPU cache.

With the optional ``numba`` extra, rows are counted by two compiled steps per
block once numpy's count has taken as much time in the process as the compiled
one's first call costs (the rule of ski rental, ``_core/compiling.py``): combine
the codes into a cell index two columns at a time, checking that each code
falls on its axis, then add the rows to their cells. Until then, and without
numba (or with ``ORDFRAME_NUMBA=0``), numpy's count combines the codes and
bincounts them, checking each block's lowest and highest code while the block
is in the CPU cache on inputs of at least ``CHECKED_ROWS`` rows. Where the
count that will run checks every code (``checks_codes``: the rule and the
rows, the one question that ``count_cells`` and the front ends ask), spans
read from a sample of the rows (``classes.sampled_range``) are confirmed by
the count itself: each column is read once. Both give a naive count's values
(the tests check them). numba is imported, and the steps compiled (cached on
disk), on the first count that uses them, never at ``import ordframe``.
"""

from __future__ import annotations

import functools
import math

import numpy as np
import pandas as pd

from ordframe._core import compiling
from ordframe._core.arguments import about
from ordframe._core.messages import LabelWarning, show, warn

# A group that would expect at least this many true samples of a class it lacks is warned about.
MIN_EXPECTED = 5

# Rows are combined in blocks that stay in the CPU cache (numpy's steps take larger ones: each step is a call).
BLOCK_ROWS = 1 << 17
COMPILED_BLOCK_ROWS = 1 << 15
# From this many rows on, numpy's count checks every code too (below, it trusts them).
CHECKED_ROWS = 1 << 20
# numpy's count per row (two group and two label columns; ``benchmarks/bench_first_call.py --threshold``): what
# an input would take it, beforehand.
NUMPY_SECONDS_PER_ROW = 2e-9


class OutsideAxis(LookupError):
    """A code fell outside its axis (``0 <= code - offset < size`` fails): the span it was counted over is wrong."""


def count_cells(codes, sizes, *, offsets=None, weights=None) -> np.ndarray:
    """Count rows per cell of an array of shape ``sizes``.

    ``codes[i]`` holds each row's index along axis ``i`` (plus ``offsets[i]``,
    which is subtracted). ``weights`` (one per row) makes the counts float sums.
    Where it ``checks_codes``, a row whose index falls outside its axis raises
    ``OutsideAxis``; elsewhere the codes must be on their axes.
    """
    sizes = [int(s) for s in sizes]
    offsets = [int(o) for o in offsets] if offsets else [0] * len(sizes)
    rows = len(codes[0])
    if compiling.takes_over(_count_compiled, rows * NUMPY_SECONDS_PER_ROW):
        return _count_compiled(codes, sizes, offsets, weights)
    return compiling.timed(_count_compiled, _count_numpy, codes, sizes, offsets, weights, checks_codes(rows))


def checks_codes(rows: int) -> bool:
    """Whether ``count_cells`` of ``rows`` rows, called now, checks every code: the compiled count checks each, and
    runs where the rule says so (``_core/compiling.py``); numpy's count checks them from ``CHECKED_ROWS`` rows on
    (on fewer, it trusts them)."""
    return rows >= CHECKED_ROWS or compiling.compiles(_count_compiled, rows * NUMPY_SECONDS_PER_ROW)


def _count_compiled(codes, sizes: list[int], offsets: list[int], weights) -> np.ndarray:
    """``count_cells`` by the compiled steps: each block's cell index built two columns at a time, then tallied."""
    pair, one, tally, tally_weighted = _steps()
    n = len(codes[0])
    out = np.zeros(math.prod(sizes), np.int64 if weights is None else np.float64)
    cell = np.empty(min(n, COMPILED_BLOCK_ROWS), np.int64)
    axes = list(zip(codes, offsets, sizes))
    for start in range(0, n, COMPILED_BLOCK_ROWS):
        stop = min(n, start + COMPILED_BLOCK_ROWS)
        block, inside = cell[: stop - start], True
        for i in range(0, len(axes) - 1, 2):
            (a, a_offset, a_size), (b, b_offset, b_size) = axes[i], axes[i + 1]
            inside &= pair(block, a[start:stop], a_offset, a_size, b[start:stop], b_offset, b_size, i == 0)
        if len(axes) % 2:
            a, a_offset, a_size = axes[-1]
            inside &= one(block, a[start:stop], a_offset, a_size, len(axes) == 1)
        if not inside:
            raise OutsideAxis
        if weights is None:
            tally(block, out)
        else:
            tally_weighted(block, weights[start:stop], out)
    return out.reshape(sizes)


def _count_numpy(codes, sizes: list[int], offsets: list[int], weights, check: bool) -> np.ndarray:
    """``count_cells`` in numpy: cell indices built block by block, bincounted; with ``check``, each block's
    codes checked to fall on their axes as the block is read (else they are assumed to)."""
    total = math.prod(sizes)
    strides = [math.prod(sizes[i + 1 :]) for i in range(len(sizes))]
    shift = sum(o * s for o, s in zip(offsets, strides))
    shift = (shift + 2**63) % 2**64 - 2**63
    n = len(codes[0])
    kind = np.float64 if weights is not None else np.int64
    if n <= BLOCK_ROWS and not check:  # one block: its cell index at once, in place in intp (no buffers)
        if len(sizes) == 1:
            cell = codes[0].astype(np.intp)
        else:  # the first two columns in one step
            cell = np.multiply(codes[0], sizes[1], dtype=np.intp)
            cell += codes[1]
        for code, size in zip(codes[2:], sizes[2:]):
            cell *= size
            cell += code
        if shift:
            cell -= shift
        return np.bincount(cell, weights=weights, minlength=total).astype(kind, copy=False).reshape(sizes)
    # The cell index is built in the narrowest integer type that holds every
    # partial sum (less memory traffic); int64 wraps harmlessly otherwise.
    bound = sum(abs(o) * s for o, s in zip(offsets, strides)) + total
    dtype = next((t for t in (np.int16, np.int32) if bound < np.iinfo(t).max), np.int64)
    # Blocks are never smaller than a few times the cube, so adding block counts stays cheap. When that is
    # the whole of the rows (many groups), one bincount runs over the cell index of every row, built block
    # by block: the result, not the rows, is then what takes the memory.
    block = max(BLOCK_ROWS, 4 * total)
    whole = block >= n
    step = BLOCK_ROWS if whole else block
    out = np.zeros(0 if whole else total, kind)
    m = min(n, step)
    index_buf, code_buf = np.empty(m, dtype), np.empty(m, dtype)
    cells = np.empty(n if whole else m, np.intp)
    for start in range(0, n, step):  # cache blocking: each block vectorised
        stop = min(n, start + step)
        index, code_part = index_buf[: stop - start], code_buf[: stop - start]
        cell = cells[start:stop] if whole else cells[: stop - start]
        if check:
            _check_block([code[start:stop] for code in codes], sizes, offsets)
        np.copyto(index, codes[0][start:stop], casting="unsafe")
        for size, code in zip(sizes[1:], codes[1:]):
            index *= dtype(size)
            np.copyto(code_part, code[start:stop], casting="unsafe")
            index += code_part
        if shift:
            index -= dtype(shift)
        np.copyto(cell, index)
        if not whole:
            out += np.bincount(cell, weights=None if weights is None else weights[start:stop], minlength=total)
    if whole:
        out = np.bincount(cells, weights=weights, minlength=total).astype(kind, copy=False)  # no rows: int64
    return out.reshape(sizes)


def _check_block(block, sizes: list[int], offsets: list[int]) -> None:
    """``OutsideAxis`` unless every code of the block's columns is in ``offset .. offset + size - 1``."""
    for code, size, offset in zip(block, sizes, offsets):
        if int(code.min()) < offset or int(code.max()) >= offset + size:
            raise OutsideAxis


def _pair(cell, a, a_offset, a_size, b, b_offset, b_size, first):
    """``cell = (cell * a_size + a - a_offset) * b_size + b - b_offset`` (``cell`` taken as 0 if ``first``); whether
    every ``a - a_offset`` is in ``0 .. a_size - 1`` and every ``b - b_offset`` in ``0 .. b_size - 1``.

    Compiled by ``_steps``: two columns a step, as the passes over ``cell`` cost more than the checks.
    """
    bad = 0
    a_top, b_top = a_size - 1, b_size - 1
    for i in range(len(cell)):
        d, e = np.int64(a[i]) - a_offset, np.int64(b[i]) - b_offset
        bad |= d | (a_top - d) | e | (b_top - e)  # negative iff one is below 0 or above its top
        cell[i] = ((0 if first else cell[i] * a_size) + d) * b_size + e
    return bad >= 0


def _one(cell, a, a_offset, a_size, first):
    """``_pair`` for one column: ``cell = cell * a_size + a - a_offset``."""
    bad = 0
    a_top = a_size - 1
    for i in range(len(cell)):
        d = np.int64(a[i]) - a_offset
        bad |= d | (a_top - d)
        cell[i] = (0 if first else cell[i] * a_size) + d
    return bad >= 0


def _tally(cell, out):
    """One row added to each of its cells."""
    for i in range(len(cell)):
        out[cell[i]] += 1


def _tally_weighted(cell, weights, out):
    """Each row's weight added to its cell."""
    for i in range(len(cell)):
        out[cell[i]] += weights[i]


@functools.cache
def _steps():
    """The steps of ``_count_compiled``, compiled by numba (nopython, cached on disk)."""
    import numba

    jit = numba.njit(cache=True, nogil=True)
    return jit(_pair), jit(_one), jit(_tally), jit(_tally_weighted)


def warn_predicted_only(counts: np.ndarray, classes: pd.Index, pred_name) -> None:
    """A ``LabelWarning`` if classes inferred from the labels seen occur only among the predictions.

    Such values (often unrounded regression outputs, e.g. 3.3) become classes of
    their own in the order of the values: they change K and every index distance.
    """
    k = len(classes)
    matrix = counts.reshape(-1, k, k).sum(axis=0)
    only = (matrix.sum(axis=1) == 0) & (matrix.sum(axis=0) > 0)
    if not only.any():
        return
    values = classes[only]
    fractional = pd.api.types.is_float_dtype(values.dtype) and not np.array_equal(values, np.round(values))
    hint = (
        "They are not whole numbers: if they are regression outputs, round them to the classes. " if fractional else ""
    )
    warn(
        about(
            LabelWarning,
            "column {column!r} predicts {count} value(s) that no true label has ({values}); they count as classes of "
            "their own, placed in the order of the values (K = {k} in all). {hint}Pass {labels:[...]} to declare the "
            "classes (then such values are an error)",
            "labels",
            column=pred_name,
            count=len(values),
            values=show(values),
            k=k,
            hint=hint,
        )
    )


def warn_classes_differ(counts: np.ndarray, classes: pd.Index, group_names: list) -> None:
    """A ``LabelWarning`` if some group lacks a class that its size makes unlikely to be missing by chance.

    Inferred classes are the union over all groups (several data sets in one
    call): a group with its own, narrower set of classes is then scored with
    a K and class positions that are not its own. A class counts as missing
    from a group when the group has no true sample of it although it would
    expect at least ``MIN_EXPECTED`` from the class's share overall (small
    folds that miss a rare class do not warn).
    """
    k = len(classes)
    true = counts.reshape(-1, k, k).sum(axis=-1)  # (groups, K)
    if true.all():  # every group has every class
        return
    sizes, overall = true.sum(axis=-1), true.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = sizes[:, None] * overall[None, :] / overall.sum()
    lacking = (true == 0) & (expected >= MIN_EXPECTED)
    if not lacking.any():
        return
    warn(
        about(
            LabelWarning,
            "{count} group(s) of {groups} have no true sample of classes that their size makes common ({classes}): "
            "the classes are the union over all groups (K = {k}), so K-dependent indices (oc, uoc, amae, ...) differ "
            "from evaluating each group alone. If the groups are different data sets, evaluate them separately; pass "
            "{labels:[...]} to keep this K",
            "labels",
            count=int(lacking.any(axis=1).sum()),
            groups=", ".join(map(repr, group_names)),
            classes=show(classes[lacking.any(axis=0)]),
            k=k,
        )
    )


def drop_absent_classes(counts: np.ndarray, classes: pd.Index, codes=None) -> tuple[np.ndarray, pd.Index]:
    """Counts ``(..., K, K)`` over a span of integer classes, without the classes that no label has.

    ``codes`` (the class codes of the true and predicted labels) are looked at
    when weights are used, since a weight of zero would hide a class in the counts.
    """
    k = len(classes)
    if codes is None:
        matrix = counts.reshape(-1, k, k).sum(axis=0)
        seen = (matrix.sum(axis=0) + matrix.sum(axis=1)) > 0
    else:
        seen = np.logical_or.reduce([np.bincount(c, minlength=k) > 0 for c in codes])
    if seen.all():
        return counts, classes
    return np.compress(seen, np.compress(seen, counts, axis=-1), axis=-2), classes[seen]
