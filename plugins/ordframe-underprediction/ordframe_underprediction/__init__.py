"""ordframe plugin: ``underprediction``, the share of samples predicted below their true class."""

import numpy as np

import ordframe


def underprediction(counts, margin=1):
    """sum_{r - c >= margin} n_rc / N on confusion matrices (rows r = true class), vectorised over leading axes.

    The share of samples predicted at least ``margin`` classes below their true class: under-grading, the error a
    clinician fears most; Epstein et al. (2012) report it for the Gleason grades of biopsies against those of the
    prostatectomies. NaN for an empty matrix.
    """
    if isinstance(margin, (bool, np.bool_)) or not isinstance(margin, (int, np.integer)) or margin < 1:
        raise ValueError(
            f"margin must be an integer >= 1 (a number of class positions; 1: any under-prediction), got {margin!r}"
        )
    k = counts.shape[-1]
    below = np.subtract.outer(np.arange(k), np.arange(k)) >= margin
    return (counts * below).sum(axis=(-2, -1)) / counts.sum(axis=(-2, -1))


@ordframe.hookimpl
def ordframe_metrics():
    return [
        ordframe.Metric(
            name="underprediction",
            kind="confusion",
            func=underprediction,
            higher_is_better=False,
            bounds=(0.0, 1.0),
            description="Share of samples predicted at least `margin` classes below their true class (under-grading).",
            reference="J. I. Epstein, Z. Feng, B. J. Trock, P. M. Pierorazio, Upgrading and downgrading of prostate cancer from biopsy to radical prostatectomy, European Urology 61(5), 2012",
            undefined="the confusion matrix is empty",
            share=True,
            interval="percentile",  # the coverage suite's pick: it covers, and is the narrowest
        )
    ]
