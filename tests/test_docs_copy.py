"""The copy button of a ```pycon example (docs/javascripts/copy-pycon.js) gives code that the plain Python REPL runs.

The script runs in node; what it copies is checked against doctest's reading of the block (which lines are
code) and the REPL's own compiler (where a compound statement needs an empty line to end).
"""

import code
import doctest
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parent.parent / "docs"
SCRIPT = DOCS / "javascripts" / "copy-pycon.js"
PYCON = re.compile(r"^```pycon\n(.*?)^```", re.S | re.M)
RUN = f"""
const vm = require("vm"), fs = require("fs")
vm.runInThisContext(fs.readFileSync({json.dumps(str(SCRIPT))}, "utf8"))
const blocks = JSON.parse(fs.readFileSync(0, "utf8"))
process.stdout.write(JSON.stringify(blocks.map(copiedCode)))
"""


class CompilingRepl(code.InteractiveConsole):
    """The REPL's reading of its input, line by line, without running it: what a paste gets before any code runs."""

    def __init__(self):
        super().__init__()
        self.errors: list[str] = []

    def runcode(self, code):
        pass

    def showsyntaxerror(self, filename=None, **kwargs):
        self.errors.append(self.buffer[-1] if self.buffer else "")


def expected_copy(block: str) -> str:
    """Each example's code as doctest reads it, then an empty line wherever the REPL still waits for more."""
    lines = []
    for example in doctest.DocTestParser().get_examples(block):
        source = example.source.rstrip("\n").split("\n")
        repl = CompilingRepl()
        waiting = [repl.push(line) for line in source][-1]
        lines += [*source, ""] if waiting else source
    return "\n".join(lines)


def copied(blocks: list[str]) -> list[str]:
    node = shutil.which("node")
    if node is None:
        pytest.skip("node runs the copy button's script")
    out = subprocess.run([node, "-e", RUN], input=json.dumps(blocks), capture_output=True, text=True, check=True)
    return json.loads(out.stdout)


EXAMPLES = {
    "a loop, then a statement": (
        ">>> for x in range(2):\n...     y = x\n>>> y\n1\n",
        "for x in range(2):\n    y = x\n\ny",
    ),
    "a one-line compound statement": (">>> if True: z = 1\n>>> z\n1\n", "if True: z = 1\n\nz"),
    "a statement over several lines": (">>> z = (\n...     1\n... )\n>>> z\n1\n", "z = (\n    1\n)\nz"),
    "an elided traceback": (
        ">>> 1 / 0\nTraceback (most recent call last):\n...\nZeroDivisionError: division by zero\n>>> 2\n2\n",
        "1 / 0\n2",
    ),
    "a loop that ends itself": (
        ">>> for x in range(2):\n...     print(x)\n...\n0\n1\n",
        "for x in range(2):\n    print(x)\n",
    ),
}


@pytest.mark.slow  # a node process
def test_the_copy_button_leaves_out_output_and_ends_compound_statements():
    blocks, wanted = zip(*EXAMPLES.values())
    assert dict(zip(EXAMPLES, copied(list(blocks)))) == dict(zip(EXAMPLES, wanted))
    assert [expected_copy(block) for block in blocks] == list(wanted)


@pytest.mark.slow  # a node process
def test_every_copied_example_of_the_docs_reads_in_the_plain_repl():
    pages = sorted(DOCS.rglob("*.md"))
    blocks = {f"{p.relative_to(DOCS)}:{m.start()}": m.group(1) for p in pages for m in PYCON.finditer(p.read_text())}
    assert len(blocks) >= 100
    differing, unreadable = {}, {}
    for (where, block), text in zip(blocks.items(), copied(list(blocks.values()))):
        if text != expected_copy(block):
            differing[where] = text
        repl = CompilingRepl()
        waiting = [repl.push(line) for line in text.split("\n")]
        if repl.errors or waiting[-1]:
            unreadable[where] = repl.errors or "waits for more input at the end"
    assert differing == {}
    assert unreadable == {}
