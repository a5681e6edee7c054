// The copy button of a `pycon` example (">>> " prompts and printed output) copies the code alone, ready to
// paste into a file or a plain REPL: the lines after the ">>> " and "... " prompts, without the prompts.
// As in doctest, a "..." line continues an example only until its first output line: after output, "..." is
// output (an elided traceback). The plain REPL ends a compound statement at an empty line only, so one follows
// each compound statement.
const COMPOUND = /^(@|(async\s+)?(def|class|for|while|if|with|try)\b)/

function copiedCode(text) {
  const examples = []
  let source = null // the lines of the example being read, null in output
  for (const line of text.split("\n")) {
    if (/^>>>( |$)/.test(line)) {
      source = [line.slice(4)]
      examples.push(source)
    } else if (source && /^\.\.\.( |$)/.test(line)) {
      source.push(line.slice(4))
    } else {
      source = null
    }
  }
  return examples
    .map(lines => (COMPOUND.test(lines[0]) && lines.at(-1) !== "" ? [...lines, ""] : lines).join("\n"))
    .join("\n")
}

// Material copies the text of an ancestor's data-copy attribute when there is one.
if (typeof document$ !== "undefined") {
  document$.subscribe(() => {
    for (const block of document.querySelectorAll(".language-pycon")) {
      const code = block.querySelector("code")
      if (code) block.dataset.copy = copiedCode(code.textContent)
    }
  })
}
