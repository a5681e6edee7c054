"""How the command line words errors: in its own options, never in Python argument names.

The command checks its own options before it calls the library and words
those errors itself (``score.check_options``, ``typed_labels``,
``requested_metrics``, ``output_format``). What is left are the library's
messages about the data (labels outside the classes, missing values,
probabilities that are not probabilities), which depend on the file. Those
carry the argument they are about and keep their template
(``ordframe._core.arguments.about``): the command words each argument as its
option and says how it counts rows.
"""

from __future__ import annotations

from typing import Any

from ordframe._core.arguments import Rows, Wording, worded

# Python arguments -> the options that give them
OPTIONS = {
    "labels": "--labels",
    "dropna": "--dropna",
    "renormalize": "--renormalize",
    "proba": "--proba",
    "marker": "--marker",
    "pred": "--pred",
    "by": "--by",
    "model": "--by",  # with --compare, the --by column holds the models
    "sample": "--sample",
    "strata": "--strata",
    "cluster": "--cluster",
    "n_resamples": "--n-resamples",
    "repeat": "--repeat",
    "fold": "--fold",
}


class CommandLine(Wording):
    """The command's words: an argument is its option (``--cluster site``), rows are counted from the header; a
    file has no dtypes and the options no dicts, so their advice is left out."""

    advice = {name: "" for name in Wording.advice}

    def keyword(self, name: str, shown: str | None, value: Any) -> str:
        if name not in OPTIONS:  # no option gives it: the command never passes it
            return super().keyword(name, shown, value)
        if shown == "=":
            return f"{OPTIONS[name]} {' '.join(map(str, value)) if isinstance(value, (list, tuple)) else value}"
        return OPTIONS[name]

    def rows(self, rows: Rows) -> str:
        return f"{rows} (counted from 0, after the header)"


COMMAND_LINE = CommandLine()


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


def for_the_command_line(message: BaseException) -> str:
    """An error or warning as the command says it: the library's about an argument in the command's options."""
    if (words := worded(message, COMMAND_LINE)) is not None:
        return words
    if isinstance(message, KeyError) and message.args:  # str() of a KeyError is its message quoted
        return str(message.args[0])
    return str(message)
