"""The docs point at what exists (issue 30, issue 32 §6): every relative link in README.md,
clients/python/README.md and every page written by hand under docs/ names a file that exists, and its
`#anchor`, if any, is a heading of that markdown file as GitHub slugs it; every repository path
they quote as code exists; a page of docs/ with more than a few sections has a contents list,
which names every section in the page's order; the decision records' index lists every record;
the chaos command they quote is the one `make chaos` runs."""

from __future__ import annotations

import os
import re
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.sources import PACKAGES

ROOT = Path(__file__).resolve().parent.parent
DECISIONS = ROOT / "docs" / "decisions"
# Every page written by hand: docs/ and its sections (design/, security/, guide/, decisions/, ...),
# not the references generated from the code (docs/reference/, held to it by their own tests).
WRITTEN = sorted(
    path
    for path in (ROOT / "docs").rglob("*.md")
    if path.relative_to(ROOT / "docs").parts[0] != "reference"
)
DOCUMENTS = [ROOT / "README.md", ROOT / "clients" / "python" / "README.md", *WRITTEN]
# A page of docs/ with more sections than this has a contents list.
MOST_SECTIONS_WITHOUT_CONTENTS = 5

_FENCE = re.compile(r"^ {0,3}(```|~~~).*?^ {0,3}\1[^\n]*$", re.M | re.S)
_CODE_SPAN = re.compile(r"(`+)(?!`).+?(?<!`)\1(?!`)", re.S)
# [text](target) and ![alt](target), the target up to the first space or ")"; an optional title.
_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
_HEADING = re.compile(r"^ {0,3}(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.M)
_EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.I)  # https:, mailto:, …


def without_code(text: str) -> str:
    """The markdown with its fenced code blocks blanked: a `#` line in a shell block is no heading,
    a `[x](y)` in one no link."""
    return _FENCE.sub(lambda match: "\n" * match[0].count("\n"), text)


def github_slug(heading: str) -> str:
    """The anchor GitHub gives a heading: its text without markup, lower case, with every
    character but letters, digits, `_`, `-` and spaces dropped and each space made a `-`."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # a link: its text
    text = re.sub(r"<[^>]+>", "", text)  # inline HTML
    text = text.lower()
    kept = "".join(
        char
        for char in text
        if char in " -"
        or unicodedata.category(char)[0] in "LMN"
        or unicodedata.category(char) == "Pc"
    )
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """The anchors of a markdown file's headings; a repeated slug gets -1, -2… as on GitHub."""
    seen: dict[str, int] = {}
    found = set()
    for match in _HEADING.finditer(without_code(path.read_text())):
        slug = github_slug(match[2])
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        found.add(slug if count == 0 else f"{slug}-{count}")
    return found


def relative_links(path: Path) -> Iterator[str]:
    text = _CODE_SPAN.sub("", without_code(path.read_text()))
    for match in _LINK.finditer(text):
        target = match[1]
        if not _EXTERNAL.match(target):
            yield target


def broken(path: Path, target: str) -> str | None:
    """Why `target`, linked from `path`, reaches nothing; None when it reaches its file and
    heading."""
    file_part, _, anchor = target.partition("#")
    linked = (path.parent / file_part).resolve() if file_part else path
    if ROOT not in linked.parents and linked != ROOT:
        return f"{target}: outside the repository"
    if not linked.exists():
        return f"{target}: no file {linked.relative_to(ROOT)}"
    if anchor and linked.suffix == ".md" and anchor not in anchors(linked):
        return f"{target}: no heading #{anchor} in {linked.relative_to(ROOT)}"
    if anchor and linked.suffix != ".md":
        return f"{target}: an anchor into a file that is not markdown"
    return None


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_in_the_docs_reaches_an_existing_file_and_heading(path):
    links = list(relative_links(path))
    assert links, f"no relative link found in {path.name}: the link pattern is wrong"
    assert [problem for link in links if (problem := broken(path, link))] == []


@pytest.mark.parametrize(
    ("heading", "slug"),
    [
        ("The chaos harness (`make chaos`)", "the-chaos-harness-make-chaos"),
        (
            "Celery: a worker outlives a Redis restart (the `<5.7` pin)",
            "celery-a-worker-outlives-a-redis-restart-the-57-pin",
        ),
        ("Least privilege (`setup_db_roles`)", "least-privilege-setup_db_roles"),
        ("Timing and flow-control nodes", "timing-and-flow-control-nodes"),
        (
            "DRF: the trigger's representation written out",
            "drf-the-triggers-representation-written-out",
        ),
        ("Issue 20: brokers and the scaling curve", "issue-20-brokers-and-the-scaling-curve"),
        ("A [linked](https://example.com) *word*", "a-linked-word"),
        ("Déjà vu — twice", "déjà-vu--twice"),
    ],
)
def test_anchors_follow_githubs_slug_rules(heading, slug):
    assert github_slug(heading) == slug


def test_a_repeated_heading_gets_a_numbered_anchor_and_a_heading_in_code_none(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Notes\n\n## Setup\n\n```sh\n# not a heading\n```\n\n## Setup\n")
    assert anchors(page) == {"notes", "setup", "setup-1"}


def test_a_missing_file_or_heading_is_reported_naming_it():
    readme = ROOT / "README.md"
    assert broken(readme, "docs/design/glossary.md#glossary") is None
    assert broken(readme, "docs/nothing.md") == "docs/nothing.md: no file docs/nothing.md"
    assert broken(readme, "docs/design/index.md#no-such-heading") == (
        "docs/design/index.md#no-such-heading: no heading #no-such-heading in docs/design/index.md"
    )
    assert broken(readme, "#no-such-heading") == (
        "#no-such-heading: no heading #no-such-heading in README.md"
    )


def contents_list(path: Path) -> list[str] | None:
    """The anchors a page's contents list links to, in its order: the links of the list items
    before its first `##` heading that point into the page itself; None for a page without one."""
    text = without_code(path.read_text())
    first_section = re.search(r"^## ", text, re.M)
    intro = text[: first_section.start()] if first_section else text
    items = "\n".join(re.findall(r"^ {0,3}(?:[-*+]|\d+\.) .*$", intro, re.M))
    listed = [
        target[1:] for target in (match[1] for match in _LINK.finditer(items)) if target[:1] == "#"
    ]
    return listed or None


def sections(path: Path) -> list[str]:
    text = without_code(path.read_text())
    return [github_slug(match[2]) for match in _HEADING.finditer(text) if match[1] == "##"]


@pytest.mark.parametrize(
    "path",
    [path for path in DOCUMENTS if contents_list(path) is not None],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_a_pages_contents_list_names_every_section(path):
    listed = contents_list(path)
    assert listed is not None
    assert [section for section in sections(path) if section not in listed] == []


@pytest.mark.parametrize(
    "path",
    [path for path in WRITTEN if path.parent != DECISIONS],
    ids=lambda path: str(path.relative_to(ROOT)),
)
def test_a_page_of_many_sections_has_a_contents_list_in_the_pages_order(path):
    """A page that loses its contents list, or grows past a few sections without one, fails here
    (the test above only checks the lists that exist)."""
    found = sections(path)
    if len(found) <= MOST_SECTIONS_WITHOUT_CONTENTS:
        return
    listed = contents_list(path)
    assert listed is not None, f"{path.name} has {len(found)} sections and no contents list"
    assert [anchor for anchor in listed if anchor in found] == found


def test_the_contents_check_fails_on_a_page_whose_list_misses_a_section(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Page\n\n- [One](#one)\n- [Three](#three)\n\n## One\n\n## Two\n\n## Three\n")
    listed = contents_list(page)
    assert listed == ["one", "three"]
    assert [section for section in sections(page) if section not in listed] == ["two"]


# A repository path quoted as code: under a top-level folder of the repository, naming a file by
# its extension or a folder by its trailing slash (`workers/services/engine.py`, `tests/ops/`,
# `tests/test_x.py::test_y`); a migration's short name (`triggers/0009`) names no file.
_CODE_PATH = re.compile(r"`((?:\.\./)*[\w.-]+/(?:[\w.-]+/)*(?:[\w-]+\.\w+|))(?:::\w+)?`")
TOP_LEVEL = {
    *PACKAGES,
    "tests",
    "scripts",
    "docs",
    "bench",
    "chaos",
    "hosts",
    "templates",
    "clients",
}


def quoted_paths(path: Path) -> Iterator[str]:
    for match in _CODE_PATH.finditer(without_code(path.read_text())):
        quoted = match[1]
        top = quoted.lstrip("./").split("/", 1)[0]
        if top in TOP_LEVEL or quoted.startswith("../"):
            yield quoted


@pytest.mark.parametrize("path", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_repository_path_the_docs_quote_exists(path):
    quoted = list(quoted_paths(path))
    missing = [
        name
        for name in quoted
        if not (ROOT / name).exists() and not (path.parent / name).resolve().exists()
    ]
    assert missing == []


def test_a_quoted_path_that_moved_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("`workers/services/engine.py`, `notiflow/leases.py`, `triggers/0009`, `N/s`\n")
    assert list(quoted_paths(page)) == ["workers/services/engine.py", "notiflow/leases.py"]
    assert not (ROOT / "notiflow/leases.py").exists()


def test_the_decision_records_index_lists_every_record():
    records = sorted(path.name for path in DECISIONS.glob("[0-9][0-9][0-9][0-9]-*.md"))
    assert records, "no decision record under docs/decisions/"
    listed = [link for link in relative_links(DECISIONS / "README.md") if link[:1].isdigit()]
    assert sorted(listed) == records


def words(command: str) -> list[str]:
    return command.replace("\\\n", " ").split()


def test_the_chaos_command_the_docs_quote_is_the_one_make_chaos_runs():
    """docs/guide/reliability-overview.md and docs/reliability/chaos.md quote what `make chaos` runs with its defaults (a dry
    run: nothing is started; the environment's N, KILLS... would change the defaults)."""
    dry = subprocess.run(
        ["make", "-n", "-s", "chaos"],
        cwd=ROOT,
        env={"PATH": os.environ["PATH"]},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    runs = dry.stdout[dry.stdout.index(".venv/bin/python -m chaos") :]
    quoted = re.compile(r"^(\.venv/bin/python -m chaos --broker .*?)\n```", re.M | re.S)
    for document in (
        ROOT / "docs" / "guide" / "reliability-overview.md",
        ROOT / "docs" / "reliability" / "chaos.md",
    ):
        found = quoted.search(document.read_text())
        assert found, f"{document.name} does not quote the make chaos command"
        assert words(found[1]) == words(runs), document.name
