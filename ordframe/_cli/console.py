"""Where the command's text goes: standard output and error, in what the console can show.

Every line the command prints goes through ``for_console``, which alone
decides how a character the console cannot encode (an ASCII console,
``PYTHONIOENCODING=ascii``) is shown: the arrows as ``^``, ``v`` and ``->``, accented
letters without their accents, anything else as a ``\\u`` escape. Data for
a program (CSV, JSON, Markdown) is never altered: it goes out as UTF-8, as
files written with ``--out`` do, whatever the console.
"""

from __future__ import annotations

import os
import sys
import unicodedata

from ordframe._cli.wording import OutputError

#: The width of the reports the commands print (``demo``, ``reproduce``).
WIDTH = 100
#: Stand-ins for characters that have no unaccented form.
PLAIN = {
    "↑": "^",
    "↓": "v",
    "→": "->",
    "−": "-",
    "–": "-",
    "—": "-",
    "…": "...",
    "≤": "<=",
    "≥": ">=",
    "×": "x",
    "±": "+/-",
    "’": "'",
    "“": '"',
    "”": '"',
}


def for_console(text: str, encoding: str | None) -> str:
    """``text`` as a console of ``encoding`` can show it: unchanged when it can (or the encoding is unknown)."""
    if not encoding:
        return text
    try:
        text.encode(encoding)
        return text
    except UnicodeEncodeError:
        return "".join(_plain(char, encoding) for char in text)
    except LookupError:
        return text


def _plain(char: str, encoding: str) -> str:
    for form in (char, PLAIN.get(char, ""), "".join(c for c in unicodedata.normalize("NFKD", char) if c.isascii())):
        try:
            if form:
                form.encode(encoding)
                return form
        except UnicodeEncodeError:
            pass
    return char.encode(encoding, "backslashreplace").decode(encoding)


def say(text: str) -> None:
    """One line on standard error (a message, not a result)."""
    stream = sys.stderr
    if stream is not None:
        print(for_console(text, getattr(stream, "encoding", None)), file=stream)


class Output:
    """Standard output for the commands, in what the console can show.

    A write that fails (``> /dev/full``) is an ``OutputError``; a closed
    pipe (``BrokenPipeError``) is left to the caller, which ends quietly.
    """

    def __init__(self, stream) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        return self._do(self.stream.write, for_console(text, getattr(self.stream, "encoding", None)))

    def write_data(self, text: str) -> int:
        """``text`` for a program to read (CSV, JSON, Markdown): never altered, so UTF-8 bytes when the console's
        encoding cannot hold it (as ``--out`` files are)."""
        if for_console(text, getattr(self.stream, "encoding", None)) == text:
            return self._do(self.stream.write, text)
        buffer = getattr(self.stream, "buffer", None)
        if buffer is None:
            raise OutputError(
                "standard output cannot hold every character of the result in its encoding: write it to a file "
                "with --out FILE (UTF-8), or set PYTHONIOENCODING=utf-8"
            )
        self._do(self.stream.flush)
        return self._do(buffer.write, text.encode("utf-8"))

    def flush(self) -> None:
        self._do(self.stream.flush)

    def isatty(self) -> bool:
        return self.stream.isatty()

    def _do(self, operation, *args):
        try:
            return operation(*args)
        except BrokenPipeError:
            raise
        except OSError as exc:
            raise OutputError(f"cannot write to standard output: {exc.strerror or exc}") from None


def discard_stdout() -> None:
    """Point standard output at the null device, so that the interpreter's last flush of it cannot fail."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (AttributeError, OSError, ValueError):  # not a real file (captured in a test): nothing to protect
        pass
