// The copy button of a `pycon` example (">>> " prompts and printed output) copies the code alone, ready to
// paste into a file or a plain REPL: the lines after the ">>> " and "... " prompts, without the prompts.
// Material copies the text of an ancestor's data-copy attribute when there is one.
document$.subscribe(() => {
  for (const block of document.querySelectorAll(".language-pycon")) {
    const code = block.querySelector("code")
    if (!code) continue
    block.dataset.copy = code.textContent
      .split("\n")
      .filter(line => /^(>>>|\.\.\.)( |$)/.test(line))
      .map(line => line.slice(4))
      .join("\n")
  }
})
