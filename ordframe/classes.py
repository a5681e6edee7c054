"""Class order: which labels exist, in which order, and the integer code of every label.

The order is decided once, by the first rule that applies (DESIGN.md):

1. ``labels=[...]`` given: that order; values outside it are an error.
2. A pandas ordered Categorical: its categories.
3. Numeric or boolean labels: the sorted union of the observed values.
4. Anything else: an error asking for ``labels=`` or an ordered Categorical.

Codes are positions in that order, so distances are index distances.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

MAX_SHOWN = 5
_NUMERIC_INFERRED = {"integer", "floating", "mixed-integer-float", "boolean", "decimal"}


def _show(values) -> str:
    return ", ".join(repr(v.item() if hasattr(v, "item") else v) for v in values)


def first_rows(series: pd.Series, mask: np.ndarray) -> str:
    """The index labels of the first few rows where ``mask`` holds, for error messages."""
    rows = [repr(r) for r in series.index[mask][:MAX_SHOWN]]
    if int(mask.sum()) > MAX_SHOWN:
        rows.append("...")
    return f"[{', '.join(rows)}]"


def missing_error(column: str, series: pd.Series, mask: np.ndarray) -> ValueError:
    """The error for missing values in a label (or group) column."""
    n = int(mask.sum())
    return ValueError(
        f"column {column!r} has {n} missing value(s) (NaN/None/NA), first at rows {first_rows(series, mask)}; "
        "fill them, or pass dropna=True to drop those rows (the count dropped is reported)"
    )


def is_ordered(series: pd.Series) -> bool:
    """Whether ``series`` is a pandas ordered Categorical."""
    return isinstance(series.dtype, pd.CategoricalDtype) and bool(series.dtype.ordered)


def _is_numeric(series: pd.Series) -> bool:
    if isinstance(series.dtype, pd.CategoricalDtype):
        return False
    if pd.api.types.is_numeric_dtype(series.dtype) or pd.api.types.is_bool_dtype(series.dtype):
        return not pd.api.types.is_complex_dtype(series.dtype)
    return series.dtype == object and pd.api.types.infer_dtype(series, skipna=True) in _NUMERIC_INFERRED


def class_order(columns: dict[str, pd.Series], labels=None) -> pd.Index:
    """The ordered classes for the label ``columns`` (``{column name: values}``), missing values excluded."""
    if labels is not None:
        classes = pd.Index(list(labels) if not isinstance(labels, pd.Index) else labels)
        if classes.hasnans:
            raise ValueError("labels= contains a missing value; list only real class labels, in order")
        if not classes.is_unique:
            dup = classes[classes.duplicated()].unique()
            raise ValueError(f"labels= lists {_show(dup)} more than once; each class must appear once, in order")
    else:
        ordered = {name: s.dtype.categories for name, s in columns.items() if is_ordered(s)}
        if ordered:
            (first, classes), *others = ordered.items()
            for name, cats in others:
                if not cats.equals(classes):
                    raise ValueError(
                        f"columns {first!r} and {name!r} are ordered Categoricals with different categories "
                        f"({list(classes)} vs {list(cats)}); give both the same categories or pass labels="
                    )
        elif all(_is_numeric(s) for s in columns.values()):
            observed = [pd.unique(s.dropna().to_numpy()) for s in columns.values()]
            classes = pd.Index(np.unique(np.concatenate(observed)))
        else:
            kinds = ", ".join(f"{name!r} ({s.dtype})" for name, s in columns.items())
            raise TypeError(
                f"cannot tell the class order of {kinds}: the labels are not numeric. Pass labels=[...] "
                "in order (lowest first), or make the columns pandas ordered Categoricals"
            )
    if len(classes) < 2:
        raise ValueError(
            f"an ordinal problem needs at least two classes; the class order is {list(classes)}. "
            "Pass labels= with every class, observed or not"
        )
    return classes


def encode(column: str, series: pd.Series, classes: pd.Index) -> np.ndarray:
    """Integer codes (positions in ``classes``) of a label column; a missing value gets -1.

    A value that is neither missing nor one of ``classes`` is an error listing
    the offending values and their counts.
    """
    if isinstance(series.dtype, pd.CategoricalDtype) and series.dtype.categories.equals(classes):
        codes = series.array.codes
    elif pd.api.types.is_numeric_dtype(classes.dtype) and classes.is_monotonic_increasing and _is_numeric(series):
        values = series.to_numpy()
        codes = np.searchsorted(classes.to_numpy(), values).clip(0, len(classes) - 1)
        bad = classes.to_numpy()[codes] != values
        codes = np.where(bad, -1, codes)
    else:
        codes = classes.get_indexer(series)
    unknown = codes < 0
    if unknown.any():
        unknown[unknown] = series[unknown].notna().to_numpy()
    if unknown.any():
        counts = series[unknown].value_counts()
        shown = ", ".join(f"{v!r} ({c} row{'s' if c > 1 else ''})" for v, c in counts.head(MAX_SHOWN).items())
        more = f" and {len(counts) - MAX_SHOWN} more" if len(counts) > MAX_SHOWN else ""
        raise ValueError(
            f"column {column!r} has {int(unknown.sum())} value(s) outside the classes {list(classes)}: "
            f"{shown}{more}. Add them to labels= (in order) or remove those rows"
        )
    return codes
