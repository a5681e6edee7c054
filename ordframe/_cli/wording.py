"""How the command line words errors: in its own options, never in Python argument names."""

from __future__ import annotations

import re

# ``score``'s default: the common indices and the order-aware ones of the papers (``--metrics all``: every metric)
# library words -> command-line words, for the messages of errors and warnings
OPTIONS = [
    (
        r"Pass labels=\[\.\.\.\] in order \(lowest first\), or make the columns pandas ordered Categoricals",
        "Pass --labels with the classes in order, lowest first",
    ),
    (
        r"pass labels=\[\.\.\.\] naming the class of each column, in order \(or a dict label -> column\)",
        "pass --labels naming the class of each --proba column, in the same order",
    ),
    (
        r"pass the probability columns \(proba=\) or, for a DataArray, class_dim= naming its class dim",
        "pass the probability columns with --proba",
    ),
    (r"n must be a whole number of replicates", "--bootstrap must be a whole number of replicates"),
    (r"in evaluate with pred=, a by group", "with --pred, a --by group"),
    (r"labels=\[\.\.\.\]", "--labels"),
    (r"\blabels=", "--labels"),
    (r"dropna=True", "--dropna"),
    (r"\bproba=", "--proba"),
    (r"\bpred=", "--pred"),
    (r"first at rows (\[[^\]]*\])", r"first at rows \1 (counted from 0, after the header)"),
    (r"renormalize=True", "--renormalize"),
    (r"\bby= names", "--by names"),
    (r"\bproba lists", "--proba lists"),
    (r"rename it, e\.g\. df\.rename\(columns=\{.*?\}\)", "rename that column in the file"),
]


class UsageError(Exception):
    """A mistake in the command line or the input file: reported in one line, exit code 2."""


def for_the_command_line(message: str) -> str:
    """A library message with the command's options in place of Python arguments (``labels=`` -> ``--labels``)."""
    for pattern, words in OPTIONS:
        message = re.sub(pattern, words, message)
    return message
