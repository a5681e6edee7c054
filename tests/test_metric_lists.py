"""The lists of built-in metrics kept by hand agree with the registry: README.md's table, the docs' metric index
and pages, and the site's navigation. A metric added to the registry without its page, row or nav entry fails
here, named; so does a row left behind by a metric removed."""

import re
from pathlib import Path

import pytest

import ordframe
from ordframe._registry.manager import BUILTIN_MODULES

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs" / "metrics"
# Pages of docs/metrics/ that are not a registered metric's.
NOT_METRICS = {"index", "aursc"}


def builtin_metrics() -> dict[str, dict]:
    table = ordframe.list_metrics()
    rows = table[table["plugin"].isin(BUILTIN_MODULES)]
    return {row["name"]: row.to_dict() for _, row in rows.iterrows()}


BUILTIN = builtin_metrics()


def readme_names() -> set[str]:
    """The names in backticks in the first column of README.md's metric table (the one headed `| name |`)."""
    lines = (ROOT / "README.md").read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| name | what it measures"))
    names: set[str] = set()
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        names |= set(re.findall(r"`(\w+)`", line.split("|")[1]))
    return names


def index_rows() -> dict[str, list[str]]:
    """The metric index's table rows, by the metric they link to: their cells."""
    rows = {}
    for line in (DOCS / "index.md").read_text().splitlines():
        found = re.match(r"\| \[`(\w+)`\]\((\w+)\.md\) \|", line)
        if found:
            assert found.group(1) == found.group(2), f"the index row of {found.group(1)!r} links {found.group(2)}.md"
            rows[found.group(1)] = [cell.strip() for cell in line.strip("|").split("|")]
    return rows


def nav_pages() -> set[str]:
    return set(re.findall(r"metrics/(\w+)\.md", (ROOT / "mkdocs.yml").read_text())) - NOT_METRICS


@pytest.mark.parametrize("name", sorted(BUILTIN))
def test_every_builtin_metric_has_its_page_index_row_nav_entry_and_readme_row(name):
    assert (DOCS / f"{name}.md").is_file(), f"metric {name!r} has no page docs/metrics/{name}.md"
    rows = index_rows()
    assert name in rows, f"metric {name!r} has no row in docs/metrics/index.md's table"
    parameters = set(re.findall(r"`(\w+)`", rows[name][3]))
    declared = set(BUILTIN[name]["parameters"] or ())
    assert parameters == declared, (
        f"metric {name!r}: docs/metrics/index.md lists the parameters {sorted(parameters)}, "
        f"the registry {sorted(declared)}"
    )
    assert name in nav_pages(), f"metric {name!r} has no entry metrics/{name}.md in mkdocs.yml's nav"
    assert name in readme_names(), f"metric {name!r} has no row in README.md's metric table"


def test_no_list_names_a_metric_the_registry_does_not_have():
    pages = {p.stem for p in DOCS.glob("*.md")} - NOT_METRICS
    for where, names in [
        ("docs/metrics/ (pages)", pages),
        ("docs/metrics/index.md", set(index_rows())),
        ("mkdocs.yml's nav", nav_pages()),
        ("README.md's metric table", readme_names()),
    ]:
        unknown = sorted(names - set(BUILTIN))
        assert not unknown, f"{where} names {unknown}, which no built-in metric has"
