"""Messages about an argument of a call, which carry it: whoever reports one words the argument its own way.

A library message names arguments as Python spells them (``labels=[...]``);
the command line names the same thing by its option (``--labels``). So a
message is kept as a template with its argument and data, and worded when it
is shown: ``str()`` of the error is Python's wording, and
``message.worded(wording)`` another one. This module imports nothing heavy:
the command line reads it before pandas is imported.
"""

from __future__ import annotations

from typing import Any


class Rows(str):
    """The rows a message points at, ``[3, 5, ...]`` (the labels of a frame's index): a wording may say how it counts."""


class Wording:
    """How a message spells what it names: Python's words, ``labels=``; the command line has its own."""

    def keyword(self, name: str, shown: str | None, value: Any) -> str:
        """``name`` alone (``shown`` None), ``name=`` + ``shown`` (``labels=[...]``), or ``=``: ``name=<value!r>``."""
        if shown is None:
            return name
        return f"{name}={value!r}" if shown == "=" else f"{name}={shown}"

    def rows(self, rows: Rows) -> str:
        return rows


class ArgumentMessage(Exception):
    """An error or warning about one argument of a call: ``argument`` (its Python keyword), and ``value``, the
    value given, where it matters.

    ``template`` is a ``str.format`` template in which every field that is no key of ``data`` names an argument
    by its keyword, spelled by the wording: ``{labels}`` is ``labels=``, ``{labels:[...]}`` ``labels=[...]``,
    ``{dropna:True}`` ``dropna=True``, ``{cluster:=}`` the argument with ``value`` (``cluster='site'``) and
    ``{n_resamples!s}`` the bare name; the command line says ``--labels``, ``--dropna`` or ``--cluster site``.
    """

    def __init__(self, template: str, argument: str, value: Any = None, **data: Any):
        self.template, self.argument, self.value, self.data = template, argument, value, data
        super().__init__(self.worded(Wording()))

    def worded(self, wording: Wording) -> str:
        """The message in ``wording``'s words."""
        fields = {name: wording.rows(v) if isinstance(v, Rows) else v for name, v in self.data.items()}
        return self.template.format_map(_Fields(fields, wording, self.value))

    def __reduce__(self):  # pickled by dask's workers: rebuilt from its parts, not from its message
        return _rebuilt, (type(self), self.template, self.argument, self.value, self.data)


def _rebuilt(cls: type[ArgumentMessage], template: str, argument: str, value: Any, data: dict) -> ArgumentMessage:
    return cls(template, argument, value, **data)


class _Fields(dict):
    """A template's data, and for any other field the argument it names, spelled by the wording."""

    def __init__(self, data: dict, wording: Wording, value: Any):
        super().__init__(data)
        self.wording, self.value = wording, value

    def __missing__(self, name: str) -> _Keyword:
        return _Keyword(name, self.wording, self.value)


class _Keyword:
    """An argument named in a template: ``{name}``, ``{name:shown}`` or ``{name!s}``."""

    def __init__(self, name: str, wording: Wording, value: Any):
        self.name, self.wording, self.value = name, wording, value

    def __format__(self, shown: str) -> str:
        return self.wording.keyword(self.name, shown, self.value)

    def __str__(self) -> str:
        return self.wording.keyword(self.name, None, self.value)


class ArgumentValueError(ArgumentMessage, ValueError):
    """A ``ValueError`` about one argument (``argument``, ``value``)."""


class ArgumentTypeError(ArgumentMessage, TypeError):
    """A ``TypeError`` about one argument (``argument``, ``value``)."""


class ArgumentWarning(ArgumentMessage, UserWarning):
    """A warning about one argument (``argument``, ``value``)."""
