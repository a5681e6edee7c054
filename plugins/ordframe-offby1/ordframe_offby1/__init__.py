"""ordframe plugin: ``accuracy_off1``, the share of predictions within one class of the truth."""

import numpy as np

import ordframe


def accuracy_off1(counts):
    """sum_{|r - c| <= 1} n_rc / N on a confusion matrix (rows = true), vectorised over leading axes."""
    k = counts.shape[-1]
    near = np.abs(np.subtract.outer(np.arange(k), np.arange(k))) <= 1
    return (counts * near).sum(axis=(-2, -1)) / counts.sum(axis=(-2, -1))


@ordframe.hookimpl
def ordframe_metrics():
    return [
        ordframe.Metric(
            name="accuracy_off1",
            kind="confusion",
            func=accuracy_off1,
            higher_is_better=True,
            bounds=(0.0, 1.0),
            description="Share of predictions at most one class away from the true class.",
            reference="P. A. Gutiérrez et al., Ordinal regression methods: survey and experimental study, IEEE TKDE 28(1), 2016",
            share=True,
            interval="jeffreys",
        )
    ]
