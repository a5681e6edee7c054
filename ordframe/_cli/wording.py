"""How the command line words errors: in its own options, never in Python argument names.

The command checks its own options before it calls the library and words
those errors itself (``score.check_options``, ``typed_labels``,
``requested_metrics``, ``output_format``). What is left are the library's
messages about the data (labels outside the classes, missing values,
probabilities that are not probabilities), which depend on the file: they are
reworded here. ``PHRASES`` are whole library sentences, and a test checks that
each one still occurs in a library message, so that a rewording in the
library cannot break them silently; ``ARGUMENTS`` then turn any remaining
Python argument into its option.
"""

from __future__ import annotations

import re

# library sentences -> command-line sentences
PHRASES = [
    (
        r"Pass labels=\[\.\.\.\] in order \(lowest first\), or make the columns pandas ordered Categoricals "
        r"\(polars: an Enum\)",
        "Pass --labels with the classes in order, lowest first",
    ),
    (
        r"pass labels=\[\.\.\.\] naming the class of each column, in order \(or a dict label -> column\)",
        "pass --labels naming the class of each --proba column, in the same order",
    ),
    (r"in evaluate with pred=, a by group", "with --pred, a --by group"),
    (r"first at rows (\[[^\]]*\])", r"first at rows \1 (counted from 0, after the header)"),
    (r"\bproba lists", "--proba lists"),
]
# Python arguments -> options, in any message
ARGUMENTS = [
    (r"labels=\[\.\.\.\]", "--labels"),
    (r"\blabels=", "--labels"),
    (r"dropna=True", "--dropna"),
    (r"renormalize=True", "--renormalize"),
    (r"\bproba=", "--proba"),
    (r"\bpred=", "--pred"),
    (r"\bcluster='([^']*)'", r"--cluster \1"),
    (r"\bcluster=", "--cluster"),
    (r"\bstrata=", "--strata"),
    (r"\bsample=", "--sample"),
    (r"\b(?:by|model)=(?=[\s,)]|$)", "--by"),  # the --by columns: the groups, or with --compare the models
    (r"\bn_resamples\b=?", "--n-resamples"),
]
OPTIONS = PHRASES + ARGUMENTS


class UsageError(Exception):
    """A mistake in the command line or the input file: reported in one line, exit code 2."""


class OutputError(UsageError):
    """Standard output cannot be written (a full disk, a closed device): reported in one line, exit code 2."""


def plugin_failure(metric: str | None, plugin: str | None, cause: BaseException | None, builtin: bool) -> str:
    """What the command says when a metric's kernel fails (an ``ordframe.PluginError``)."""
    error = "" if cause is None else f" with {type(cause).__name__}" + (f": {cause}" if str(cause) else "")
    where = f"metric {metric!r}" + ("" if builtin or plugin is None else f" (plugin {plugin!r})")
    if builtin:
        return f"{where} failed{error}; this is a bug in ordframe: please report it, with the file that gives it"
    return (
        f"{where} failed{error}; this is a fault of the plugin: report it to its authors. Meanwhile leave it out: "
        "name the metrics you want with --metrics (ordframe metrics lists them)"
    )


def for_the_command_line(message: str) -> str:
    """A library message with the command's options in place of Python arguments (``labels=`` -> ``--labels``)."""
    for pattern, words in OPTIONS:
        message = re.sub(pattern, words, message)
    return message
