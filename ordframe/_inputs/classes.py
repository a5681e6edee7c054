"""Class order: which labels exist, in which order, and the integer code of every label.

The order is decided once, by the first rule that applies:

1. ``labels=[...]`` given: that order (``declared_order``); values outside it are an error.
2. A pandas ordered Categorical: its categories (``inferred_order``).
3. Numeric or boolean labels: the sorted union of the observed values.
4. Anything else: an error asking for ``labels=`` or an ordered Categorical.

Codes are positions in that order, so distances are index distances. Integer
and boolean labels are coded by offset into a small table, categoricals
through their category codes and arrow strings by a lookup of each string's
bytes among the classes' (a perfect hash of the classes): no sort and no hash
table of the rows.
"""

from __future__ import annotations

import functools
import sys
from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np
import pandas as pd

from ordframe._core import compiling
from ordframe._core.arguments import Rows, about
from ordframe._core.checks import as_sequence
from ordframe._core.messages import MAX_SHOWN, show, show_counts

# Integer labels whose values span at most this many integers are counted and
# coded through a table over the span; wider ones are hashed.
MAX_INT_SPAN = 1 << 16
# Integer labels without labels= whose values span at most this many integers
# are counted over the whole span, and the values no row has are dropped after.
MAX_COUNTED_SPAN = 256
LAZY = "lazy"  # object labels whose missing values have not been looked for yet
# Codes are computed this many rows at a time, so temporaries stay in the CPU cache.
BLOCK_ROWS = 1 << 16
# A range read from a sample (``sampled_range``) reads this many rows at each end and this many between.
SAMPLE_ROWS = 1 << 12
# pyarrow's lookup of arrow strings per row (``benchmarks/bench_first_call.py --threshold``): what a column would
# take it (``_arrow_string_codes``).
STRING_SECONDS = 1e-8
_NUMERIC_INFERRED = {"integer", "floating", "mixed-integer-float", "boolean", "decimal"}


@dataclass
class Labels:
    """One column (or array) of labels, as numpy values plus where they are missing.

    ``kind`` is ``"category"`` (``values`` are category codes, -1 missing),
    ``"int"`` (integers or booleans), ``"float"`` (NaN missing) or ``"object"``.
    Where object labels are missing is found only when asked (``missing``) or
    while they are coded (``encode``, whose factorization finds them for
    free): a separate ``isna`` pass over strings costs as much as coding them.
    """

    name: Hashable
    values: Any  # a numpy array, or a pandas ExtensionArray for strings and other extension types
    kind: str
    _missing: np.ndarray | None | str = None  # a mask, None (nothing missing), or LAZY
    categories: pd.Index | None = None
    ordered: bool = False
    dtype: object = None  # the dtype the user gave (for messages)

    def __len__(self) -> int:
        return len(self.values)

    @property
    def missing(self) -> np.ndarray | None:
        """Where labels are missing (``None`` if nowhere)."""
        if isinstance(self._missing, str):
            self._missing = _mask(np.asarray(pd.isna(self.values)))
        return self._missing

    @functools.cached_property
    def span(self) -> tuple[int, int] | None:
        """``(lowest, highest)`` of integer (not boolean) labels without missing values; else ``None``."""
        return value_range(self.values) if self._spanned else None

    def sampled_span(self) -> tuple[int, int] | None:
        """``span`` read from a sample of the labels (``sampled_range``): within the span, to be confirmed."""
        return sampled_range(self.values) if self._spanned else None

    @property
    def _spanned(self) -> bool:
        """Whether the labels have a ``span``: integers (not booleans), none missing, at least one."""
        return self.kind == "int" and self.missing is None and self.categories is None and len(self) > 0

    def take(self, keep: np.ndarray) -> Labels:
        """The labels at the positions where ``keep`` holds."""
        missing = self._missing if isinstance(self._missing, str) or self._missing is None else self._missing[keep]
        return Labels(self.name, self.values[keep], self.kind, missing, self.categories, self.ordered, self.dtype)

    def series(self) -> pd.Series:
        """The labels as a pandas Series with a default index (for messages)."""
        if self.kind == "category":
            return pd.Series(pd.Categorical.from_codes(self.values, self.categories))
        if self.kind == "int" and self.categories is not None:  # booleans, held as 0 and 1
            return pd.Series(self.values.astype(bool))
        return pd.Series(self.values)

    @property
    def is_numeric(self) -> bool:
        if self.kind in ("int", "float"):
            return True
        return self.kind == "object" and pd.api.types.infer_dtype(self.values, skipna=True) in _NUMERIC_INFERRED


def labels_of(name: Hashable, data) -> Labels:
    """``Labels`` of a pandas Series or a numpy array of labels (no copy where it can be avoided)."""
    labels = _labels_of(name, data)
    labels.dtype = data.dtype
    return labels


def _labels_of(name: Hashable, data) -> Labels:
    dtype = data.dtype
    if isinstance(dtype, pd.CategoricalDtype):
        categorical = data.array if isinstance(data, pd.Series) else pd.Categorical(data)  # a Series': no copy
        codes = np.asarray(cast(pd.Categorical, categorical).codes)
        missing = codes < 0 if codes.size and codes.min() < 0 else None
        return Labels(name, codes, "category", missing, dtype.categories, bool(dtype.ordered))
    if isinstance(dtype, np.dtype):
        values = data.to_numpy() if isinstance(data, pd.Series) else np.asarray(data)  # numpy asks a Series twice
        if dtype.kind == "b":
            return Labels(name, values.view(np.uint8), "int", categories=pd.Index([False, True]))
        if dtype.kind in "iu" and (dtype != np.uint64 or values.size == 0 or values.max() < 2**63):
            return Labels(name, values.astype(np.int64, copy=False) if dtype == np.uint64 else values, "int")
        if dtype.kind == "f":
            missing = np.isnan(values)
            return Labels(name, values, "float", missing if missing.any() else None)
        if dtype.kind in "mM":  # datetimes and timedeltas: compare as pandas scalars, not as integers
            values = pd.Series(values.reshape(-1)).astype(object).to_numpy()
        values = values.astype(object, copy=False)
    else:  # a pandas extension dtype (nullable integers and booleans, strings, arrow, ...)
        series = data if isinstance(data, pd.Series) else pd.Series(data)
        numeric = pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_numeric_dtype(dtype)
        missing = np.asarray(series.isna()) if numeric else np.zeros(0, bool)
        has_missing = bool(missing.any())
        if pd.api.types.is_bool_dtype(dtype) or pd.api.types.is_integer_dtype(dtype):
            values = series.to_numpy(dtype=np.int64, na_value=0)
            bools = pd.api.types.is_bool_dtype(dtype)
            values = values.astype(np.uint8) if bools else values
            return Labels(
                name, values, "int", missing if has_missing else None, pd.Index([False, True]) if bools else None
            )
        if pd.api.types.is_float_dtype(dtype):
            values = series.to_numpy(dtype=np.float64, na_value=np.nan)
            return Labels(name, values, "float", missing if has_missing else None)
        return Labels(name, series.array, "object", LAZY)  # strings and others: coded by pandas as they are
    return Labels(name, values, "object", LAZY)


# --------------------------------------------------------------------------- the order


def declared_order(labels) -> pd.Index:
    """The classes given by ``labels=``, in that order: a list, tuple, range, array or Index of distinct labels."""
    if isinstance(labels, pd.MultiIndex):
        raise about(TypeError, "{labels} must be a flat list of class labels, got a MultiIndex", "labels", labels)
    if isinstance(labels, pd.Index):
        classes = labels if labels.name is None else labels.rename(None)
    else:
        if isinstance(labels, np.ndarray) and labels.ndim != 1:
            raise about(
                TypeError,
                "{labels} must be one-dimensional, got an array of shape {shape}",
                "labels",
                labels,
                shape=labels.shape,
            )
        classes = pd.Index(as_sequence(labels, "labels"), tupleize_cols=False)
    if classes.hasnans:
        raise about(
            ValueError, "{labels} contains a missing value; list only real class labels, in order", "labels", labels
        )
    if not classes.is_unique:
        raise about(
            ValueError,
            "{labels} lists {repeated} more than once; each class must appear once, in order",
            "labels",
            labels,
            repeated=show(classes[classes.duplicated()].unique()),
        )
    return check_two(classes)


def check_two(classes: pd.Index) -> pd.Index:
    """``classes``, or an error if there are fewer than two."""
    if len(classes) < 2:
        raise about(
            ValueError,
            "an ordinal problem needs at least two classes; the class order is {order}. "
            "Pass {labels} with every class, observed or not",
            "labels",
            order=list(classes),
        )
    return classes


def inferred_order(columns: list[Labels]) -> pd.Index:
    """The classes of label ``columns`` without ``labels=``: ordered categories, or the sorted numeric values seen.

    Missing values (marked in each column) are not classes. The caller checks
    that there are two (``check_two``): a part of a larger frame may see fewer.
    """
    ordered = [(c, c.categories) for c in columns if c.kind == "category" and c.ordered and c.categories is not None]
    if ordered:
        (first, categories), *others = ordered
        for other, other_categories in others:
            if not other_categories.equals(categories):
                raise about(
                    ValueError,
                    "columns {first!r} and {other!r} are ordered Categoricals with different categories "
                    "({categories} vs {others}); give both the same categories or pass {labels}",
                    "labels",
                    first=first.name,
                    other=other.name,
                    categories=list(categories),
                    others=list(other_categories),
                )
        return categories
    if not any(len(c) for c in columns):  # no label at all: no class (the caller says two are needed)
        return pd.Index([])
    check_orderable(columns)
    if all(c.kind == "int" for c in columns):
        return _observed_integers(columns)
    observed = [pd.unique(c.values if c.missing is None else c.values[~c.missing]) for c in columns]
    return pd.Index(np.unique(np.concatenate(observed)))


def check_orderable(columns: list[Labels]) -> None:
    """An error unless the labels are numbers or booleans, whose order is their value (rule 3)."""
    if not all(c.is_numeric for c in columns):
        kinds = ", ".join(f"{c.name!r} ({_kind(c)})" for c in columns)
        why = (
            "an unordered Categorical has no order, even with numbers for categories"
            if any(c.kind == "category" for c in columns)
            else "the labels are not numeric"
        )
        raise about(
            TypeError,
            "cannot tell the class order of {kinds}: {why}. Pass {labels:[...]} with the classes in order, lowest "
            "first{or_categorical}",
            "labels",
            kinds=kinds,
            why=why,
        )


def _kind(column: Labels) -> str:
    return "unordered category" if column.kind == "category" else str(column.dtype)


def _observed_integers(columns: list[Labels]) -> pd.Index:
    """The sorted distinct values of integer columns: a presence table over their span, or a sort if wide."""
    kept = [c.values if c.missing is None else c.values[~c.missing] for c in columns]
    kept = [v for v in kept if v.size]
    if not kept:
        return pd.Index([], dtype=np.int64)
    ranges = [value_range(v) for v in kept]
    low, high = min(low for low, _ in ranges), max(high for _, high in ranges)
    boolean = all(c.categories is not None for c in columns)
    if high - low < MAX_INT_SPAN:
        seen = np.zeros(high - low + 1, bool)
        for v in kept:
            for start in range(0, len(v), BLOCK_ROWS):
                seen[np.subtract(v[start : start + BLOCK_ROWS], low, dtype=np.intp)] = True  # no int16 wrap
        values = np.flatnonzero(seen) + low
    else:
        values = np.unique(np.concatenate([np.unique(v) for v in kept]))
    return pd.Index(values.astype(bool) if boolean else values)


def value_range(values: np.ndarray) -> tuple[int, int]:
    """``(lowest, highest)`` of non-empty integer ``values``, both read in one pass (block by block, in the CPU cache)."""
    if len(values) <= BLOCK_ROWS:
        return int(values.min()), int(values.max())
    lows, highs = [], []
    for start in range(0, len(values), BLOCK_ROWS):
        block = values[start : start + BLOCK_ROWS]
        lows.append(block.min())
        highs.append(block.max())
    return int(min(lows)), int(max(highs))


def samples_fewer(rows: int) -> bool:
    """Whether the sample of ``sampled_range`` reads fewer than ``rows`` values (else the range is read at once)."""
    return rows > 3 * SAMPLE_ROWS


def sampled_range(values: np.ndarray) -> tuple[int, int]:
    """``(lowest, highest)`` of a sample of non-empty integer ``values``: the first and the last ``SAMPLE_ROWS``,
    and ``SAMPLE_ROWS`` spread evenly between.

    A claim about the range, read at almost no cost: the range holds it, and is
    it when the values are sorted or shuffled, unless a value is rare. It is
    confirmed by counting every row over it (``counting.count_cells`` checks
    each code), and the exact ``value_range`` replaces it where it was wrong.
    Values no more than the sample (``samples_fewer``: rows that ``dropna``
    left, say) give their range.
    """
    if not samples_fewer(len(values)):
        return value_range(values)
    step = len(values) // SAMPLE_ROWS
    sample = np.concatenate([values[:SAMPLE_ROWS], values[-SAMPLE_ROWS:], values[::step]])  # 2 reductions, not 6
    return int(sample.min()), int(sample.max())


def _mask(mask: np.ndarray) -> np.ndarray | None:
    """``mask``, or ``None`` if it holds nowhere."""
    return mask if mask.any() else None


def integer_span(columns: list[Labels], *, sampled: bool = False) -> tuple[int, int] | None:
    """``(lowest, highest)`` over integer (not boolean) label columns without missing values, else ``None``.

    With ``sampled``, the spans are read from samples of the columns (``Labels.sampled_span``).
    """
    spans = [c.sampled_span() if sampled else c.span for c in columns]
    known = [s for s in spans if s is not None]
    if not spans or len(known) < len(spans):
        return None
    return min(low for low, _ in known), max(high for _, high in known)


def offset_of(column: Labels, classes: pd.Index) -> int | None:
    """The ``offset`` with ``label - offset`` = code, when integer labels can serve as their own codes.

    That is when the classes are the consecutive integers ``offset .. offset + K - 1``,
    in that order, and every label is one of them; otherwise ``None`` (use ``encode``).
    """
    if column.span is None or not pd.api.types.is_integer_dtype(classes.dtype) or not len(classes):
        return None
    low, high = int(classes[0]), int(classes[-1])
    # distinct integers in increasing order (both cached by the Index) from low to high: consecutive
    if not (high - low == len(classes) - 1 and classes.is_monotonic_increasing and classes.is_unique):
        return None
    lowest, highest = column.span
    return low if low <= lowest and highest <= high else None


def class_order(columns: list[Labels], labels=None) -> pd.Index:
    """The ordered classes of label ``columns``: ``labels`` if given (rule 1), else inferred (rules 2-4)."""
    return declared_order(labels) if labels is not None else check_two(inferred_order(columns))


# --------------------------------------------------------------------------- codes


def code_dtype(k: int) -> np.dtype:
    """The narrowest signed integer type that holds the codes -1 .. k - 1."""
    return np.dtype(np.int8 if k < 2**7 else np.int16 if k < 2**15 else np.int32 if k < 2**31 else np.int64)


def encode(column: Labels, classes: pd.Index) -> np.ndarray:
    """Integer codes (positions in ``classes``) of a label column; a missing value gets -1.

    A value that is neither missing nor one of ``classes`` is an error listing
    the offending values and their counts.
    """
    codes, unknown = codes_of(column, classes)
    if unknown is not None:
        raise unknown_error(column, unknown, classes)
    return codes


def codes_of(column: Labels, classes: pd.Index) -> tuple[np.ndarray, np.ndarray | None]:
    """``encode``'s codes, -1 also where a value is neither missing nor a class, and where that is (``None``
    if nowhere)."""
    dtype = code_dtype(len(classes))
    if not len(classes):  # a part of a frame with no rows left: no label can have a code
        codes = np.full(len(column), -1, dtype)
    elif column.kind == "category" and column.categories is not None and column.categories.equals(classes):
        return column.values, None  # every category is a class: only missing values (-1) lack a code
    elif column.kind == "category" and column.categories is not None:
        table = np.append(classes.get_indexer(column.categories), -1).astype(dtype)  # code -1 -> last entry
        codes = table[column.values]
    elif column.kind == "int" and (table_info := _integer_table(classes, dtype)) is not None:
        low, table = table_info
        codes = np.empty(len(column), dtype)
        for start in range(0, len(column), BLOCK_ROWS):
            block = column.values[start : start + BLOCK_ROWS]
            shifted = np.subtract(block, low, dtype=np.intp) if low else block  # no int16 wrap
            inside = (shifted >= 0) & (shifted < len(table))
            codes[start : start + BLOCK_ROWS] = np.where(inside, table[np.where(inside, shifted, 0)], -1)
    elif (
        column.kind in ("int", "float")
        and pd.api.types.is_numeric_dtype(classes.dtype)
        and classes.is_monotonic_increasing
    ):
        sorted_classes = classes.to_numpy()
        at = np.searchsorted(sorted_classes, column.values).clip(0, len(classes) - 1)
        codes = np.where(sorted_classes[at] == column.values, at, -1).astype(dtype)
    else:
        if isinstance(column.values, np.ndarray):  # Python objects: one hash lookup per label
            codes = classes.get_indexer(pd.Index(column.values, dtype=object, tupleize_cols=False)).astype(dtype)
            if isinstance(column._missing, str):  # missing labels are among those that are not classes
                missing = np.zeros(len(codes), bool)
                missing[codes < 0] = pd.isna(column.values[codes < 0])
                column._missing = _mask(missing)
        elif (arrow := _arrow_string_codes(column, classes, dtype)) is not None:
            codes = arrow
        else:  # other pandas arrays: factorize, then code the few distinct values
            distinct_codes, distinct = pd.factorize(column.values)
            table = np.append(classes.get_indexer(pd.Index(distinct, tupleize_cols=False)), -1).astype(dtype)
            codes = table[distinct_codes]  # -1 (missing) takes the last entry, -1
            if isinstance(column._missing, str):
                column._missing = _mask(distinct_codes < 0)
    unknown = codes < 0
    if column.missing is not None:
        unknown &= ~column.missing
        if column.kind != "category":
            codes = np.where(column.missing, -1, codes).astype(dtype, copy=False)
    return codes, unknown if unknown.any() else None


def _arrow_string_codes(column: Labels, classes: pd.Index, dtype) -> np.ndarray | None:
    """Codes of arrow-backed strings, -1 where missing or not a class; ``None`` for other pandas arrays.

    Each string is looked up among the classes' bytes, with no Python object per row and no hash table of
    the rows: by pyarrow's ``index_in`` until its time would have paid for compiling the coder (the rule of ski
    rental, ``_core/compiling.py``), then compiled over arrow's buffers (``_code_strings``, or ``_code_views`` for
    string views).
    """
    if not isinstance(column.values, pd.arrays.ArrowExtensionArray):
        return None
    import pyarrow as pa
    import pyarrow.compute as pc

    chunked = column.values.__arrow_array__()
    if not (
        pa.types.is_string(chunked.type)
        or pa.types.is_large_string(chunked.type)
        or pa.types.is_string_view(chunked.type)
    ):
        return None
    texts = tuple((code, label.encode()) for code, label in enumerate(classes) if isinstance(label, str))
    predicted = len(column) * STRING_SECONDS  # pyarrow's lookup is charged what it would take, not timed
    lookup = _string_lookup(texts) if compiling.takes_over(_code_strings, predicted, charged=True) else None
    if lookup is None:
        strings = chunked.cast(pa.large_string()) if pa.types.is_string_view(chunked.type) else chunked  # no kernel
        found = pc.index_in(strings, value_set=pa.array([classes[code] for code, _ in texts], pa.string()))
        table = np.array([code for code, _ in texts] + [-1], dtype)  # position among the text classes -> code
        codes = table[pc.fill_null(found, -1).to_numpy()]
    else:
        codes = np.empty(len(column), dtype)
        start = 0
        for chunk in chunked.chunks:
            views = pa.types.is_string_view(chunk.type)
            coder = _compiled_coders()[views]
            coder(
                *(_view_buffers(chunk) if views else _string_buffers(chunk)), *lookup, codes[start : start + len(chunk)]
            )
            start += len(chunk)
    if isinstance(column._missing, str):
        column._missing = _mask(chunked.is_null().to_numpy(zero_copy_only=False)) if chunked.null_count else None
    return codes


def _string_buffers(chunk) -> tuple:
    """What ``_code_strings`` reads of an arrow string array: offsets, bytes, and the bytes as uint64 at every byte."""
    import pyarrow as pa

    _, offsets, data = chunk.buffers()
    width = np.int32 if pa.types.is_string(chunk.type) else np.int64
    bounds = np.frombuffer(offsets, width)[chunk.offset : chunk.offset + len(chunk) + 1]
    data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
    return bounds, data, np.ndarray((max(0, len(data) - 7),), np.uint64, data, strides=(1,))


def _view_buffers(chunk) -> tuple:
    """What ``_code_views`` reads of an arrow string view array: its records, where its data buffers are and
    their sizes."""
    _, records, *buffers = chunk.buffers()
    views = np.frombuffer(records, np.uint64).reshape(-1, 2)[chunk.offset : chunk.offset + len(chunk)]
    return views, np.array([b.address for b in buffers], np.uint64), np.array([b.size for b in buffers], np.int64)


# A perfect hash of the classes' bytes: its slots are tried for this many multipliers per table size.
_HASH_TRIES = 32
_GOLDEN = 0x9E3779B97F4A7C15


def _string_key(text: bytes) -> tuple[int, int, int]:
    """The compiled lookup's key of a string (``_find``): its first 8 bytes, its last bytes after them (up to 8)
    as little-endian integers, and its length."""
    return int.from_bytes(text[:8], "little"), int.from_bytes(text[max(8, len(text) - 8) :], "little"), len(text)


def _slot(key: tuple[int, int, int], multiplier: int, shift: int) -> int:
    """The slot of a key in a table of 2^(64 - ``shift``) slots: ``_find``'s hash, in Python integers."""
    head, tail, length = key
    return ((((head ^ (tail * _GOLDEN)) + length) % 2**64 * multiplier) % 2**64) >> shift


@functools.cache
def _string_lookup(texts: tuple[tuple[int, bytes], ...]):
    """The tables of the compiled lookup (``_find``) for the text classes ``texts`` (code, bytes): a perfect hash
    of their keys; ``None`` on a big-endian machine or where two keys are equal (then pyarrow's lookup runs)."""
    keys = [_string_key(t) for _, t in texts]
    if sys.byteorder != "little" or len(set(keys)) < len(keys):
        return None
    rng = np.random.default_rng(0)
    bits = max(1, 2 * len(keys) - 1).bit_length()
    while True:
        for _ in range(_HASH_TRIES):
            multiplier = int(rng.integers(0, 2**62)) * 2 + 1
            slots = [_slot(key, multiplier, 64 - bits) for key in keys]
            if len(set(slots)) == len(slots):
                return _hash_tables(texts, keys, slots, bits, multiplier)
        bits += 1


def _hash_tables(texts, keys, slots, bits, multiplier):
    """``_find``'s tables: per slot of the hash, its class's key, code and where its bytes start."""
    size = 1 << bits
    head, tail = np.zeros(size, np.uint64), np.zeros(size, np.uint64)
    length, position = np.full(size, -1, np.int64), np.full(size, -1, np.int64)
    starts = np.zeros(size, np.int64)  # where the class's bytes start in ``flat``
    flat = np.frombuffer(b"".join(t for _, t in texts) or b"\0", np.uint8)
    at = 0
    for (code, _), slot, (h, t, n) in zip(texts, slots, keys):
        head[slot], tail[slot], length[slot], position[slot], starts[slot] = h, t, n, code, at
        at += n
    return head, tail, length, position, starts, flat, np.uint64(multiplier), np.uint64(64 - bits)


def _load(data, at, count):
    """``count`` (0 to 8) bytes of ``data`` from ``at`` as a little-endian integer."""
    value = np.uint64(0)
    for j in range(count):
        value |= np.uint64(data[at + j]) << np.uint64(8 * j)
    return value


# The masks of a uint64's lowest 0 to 8 bytes.
_LOW_BYTES = np.array([(1 << (8 * count)) - 1 for count in range(9)], np.uint64)


def _find_short(head_key, n, head, length, position, multiplier, shift):
    """``_find`` for a string of at most 8 bytes (``head_key``): the tail of its key is 0, as that of every class
    this short, so its length tells them apart."""
    slot = np.int64(((head_key + np.uint64(n)) * multiplier) >> shift)
    return position[slot] if (head[slot] == head_key) & (length[slot] == n) else -1


def _find(head_key, tail_key, n, data, at, head, tail, length, position, starts, flat, multiplier, shift):
    """The code of the string of ``n`` bytes with key ``(head_key, tail_key, n)`` (``_string_key``), -1 if no
    class has it: its slot in the classes' perfect hash holds the same key and, for strings longer than 16
    bytes, the same bytes between (the string's are ``data[at + 8 : at + n - 8]``)."""
    slot = np.int64((((head_key ^ (tail_key * np.uint64(_GOLDEN))) + np.uint64(n)) * multiplier) >> shift)
    same = (head[slot] == head_key) & (tail[slot] == tail_key) & (length[slot] == n)
    first = starts[slot]
    for j in range(8, n - 8 if same else 8):
        same &= data[at + j] == flat[first + j]
    return position[slot] if same else -1


def _code_bytes(data, at, n, head, tail, length, position, starts, flat, multiplier, shift):
    """The code of the string ``data[at : at + n]`` among the classes (``_find``)."""
    h = _load(data, at, min(n, 8))
    t = _load(data, at + max(8, n - 8), min(max(n - 8, 0), 8))
    return _find(h, t, n, data, at, head, tail, length, position, starts, flat, multiplier, shift)


def _code_strings(bounds, data, words, head, tail, length, position, starts, flat, multiplier, shift, out):
    """The code of each string (``data[bounds[i]:bounds[i + 1]]``) among the classes, -1 if none.

    ``words[j]`` is the 8 bytes of ``data`` from byte j (a uint64 view with a stride of one byte): a string of
    at most 8 bytes is one load.
    """
    end = bounds[0]
    for i in range(len(out)):
        at, end = end, bounds[i + 1]
        n = end - at
        if n <= 8 and at < len(words):
            out[i] = _find_short(words[at] & _LOW_BYTES[n], n, head, length, position, multiplier, shift)
        else:
            out[i] = _code_bytes(data, at, n, head, tail, length, position, starts, flat, multiplier, shift)


def _code_views(records, addresses, sizes, head, tail, length, position, starts, flat, multiplier, shift, out):
    """The code of each string view among the classes, -1 if none.

    A view is a 16-byte record (two little-endian uint64): the string's length in its first 4 bytes, then the
    string itself if it has at most 12 bytes, else its first 4 bytes, the index of its data buffer (at
    ``addresses``, of ``sizes`` bytes) and its offset there. A record pointing outside the buffers (that of a
    missing value, which arrow leaves undefined) gets -1.
    """
    for i in range(len(out)):
        low, high = records[i, 0], records[i, 1]
        n = np.int64(low & np.uint64(0xFFFFFFFF))
        h = (low >> np.uint64(32)) | (high << np.uint64(32))  # the record's bytes 4-11: the string's first 8
        if n <= 8:
            out[i] = _find_short(h & _LOW_BYTES[n], n, head, length, position, multiplier, shift)
        elif n <= 12:  # the string's bytes 8-11 are the record's last 4; none between the key's
            t = (high >> np.uint64(32)) & _LOW_BYTES[n - 8]
            out[i] = _find(h, t, n, flat, 0, head, tail, length, position, starts, flat, multiplier, shift)
        else:
            buffer, at = np.int64(high & np.uint64(0xFFFFFFFF)), np.int64(high >> np.uint64(32))
            if buffer < len(addresses) and at + n <= sizes[buffer]:
                data = _memory(addresses[buffer], at + n)
                out[i] = _code_bytes(data, at, n, head, tail, length, position, starts, flat, multiplier, shift)
            else:
                out[i] = -1


def _memory(address, size):
    """The ``size`` bytes of memory from ``address`` as a uint8 array, without a copy."""
    import ctypes

    return np.ctypeslib.as_array((ctypes.c_uint8 * int(size)).from_address(int(address)))


@functools.cache
def _compiled_coders():
    """``_code_strings`` and ``_code_views`` compiled by numba (nopython, cached on disk)."""
    import numba
    from numba.core import cgutils, types

    @numba.extending.intrinsic
    def pointer(typingctx, address):
        def codegen(context, builder, signature, args):
            return builder.inttoptr(args[0], cgutils.voidptr_t)

        return types.voidptr(address), codegen

    def memory(address, size):
        return numba.carray(pointer(address), size, np.uint8)

    global _load, _find_short, _find, _code_bytes, _memory
    jit = numba.njit(cache=True, nogil=True)
    if not isinstance(_load, numba.core.dispatcher.Dispatcher):
        inline = numba.njit(cache=True, nogil=True, inline="always")
        _load, _find_short, _find, _code_bytes, _memory = map(inline, (_load, _find_short, _find, _code_bytes, memory))
    return jit(_code_strings), jit(_code_views)


def _integer_table(classes: pd.Index, dtype) -> tuple[int, np.ndarray] | None:
    """``(low, table)`` with ``table[v - low]`` the code of integer label ``v`` (-1 if none), for integer classes of small span."""
    values = classes.to_numpy()
    if values.dtype.kind == "b":
        values = values.astype(np.int64)
    if values.dtype.kind not in "iu":
        if values.dtype.kind != "f" or not np.array_equal(values, np.round(values)):
            return None
        values = values.astype(np.int64)
    low, high = int(values.min()), int(values.max())
    if high - low >= MAX_INT_SPAN:
        return None
    table = np.full(high - low + 1, -1, dtype)
    table[np.subtract(values, low, dtype=np.intp)] = np.arange(len(values))
    return low, table


def unknown_error(column: Labels, unknown: np.ndarray, classes: pd.Index) -> ValueError:
    """The error for values of ``column`` (where ``unknown`` holds) that are not among ``classes``."""
    counts = column.series()[unknown].value_counts()
    counts = counts[counts > 0]  # a Categorical counts every category, those with no row outside too
    return about(
        ValueError,
        "column {column!r} has {count} value(s) outside the classes {classes}: {counts}. Add them to {labels} "
        "(in order) or remove those rows",
        "labels",
        column=column.name,
        count=int(unknown.sum()),
        classes=list(classes),
        counts=show_counts(counts),
    )


def missing_values_error(column, count: int, first: list) -> ValueError:
    """The error for ``count`` missing values in a label (or group) column, first at the rows labelled ``first``.

    It carries ``missing = (column, count, first)``, so that the parts of a dask frame can say it of the whole.
    """
    shown = [repr(r) for r in first[:MAX_SHOWN]] + (["..."] if count > MAX_SHOWN else [])
    error = about(
        ValueError,
        "column {column!r} has {count} missing value(s) (NaN/None/NA), first at rows {rows}; "
        "fill them, or pass {dropna:True} to drop those rows (the count dropped is reported)",
        "dropna",
        False,
        column=column,
        count=count,
        rows=Rows(f"[{', '.join(shown)}]"),
    )
    error.missing = (column, count, list(first[:MAX_SHOWN]))  # type: ignore[attr-defined]
    return error


def missing_error(column, index, mask: np.ndarray) -> ValueError:
    """The error for missing values in a label (or group) column; ``index`` names the rows."""
    return missing_values_error(column, int(np.count_nonzero(mask)), list(index[np.asarray(mask)][:MAX_SHOWN]))
