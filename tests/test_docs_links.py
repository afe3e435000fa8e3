"""The docs point at what exists (issue 30): every relative link in README.md and docs/*.md
names a file that exists, and its `#anchor`, if any, is a heading of that markdown file as GitHub
slugs it; a page's contents list names every section; the chaos command they quote is the one
`make chaos` runs."""

from __future__ import annotations

import os
import re
import subprocess
import unicodedata
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]

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
    assert broken(readme, "docs/design.md#glossary") is None
    assert broken(readme, "docs/nothing.md") == "docs/nothing.md: no file docs/nothing.md"
    assert broken(readme, "docs/design.md#no-such-heading") == (
        "docs/design.md#no-such-heading: no heading #no-such-heading in docs/design.md"
    )
    assert broken(readme, "#no-such-heading") == (
        "#no-such-heading: no heading #no-such-heading in README.md"
    )


def contents_list(path: Path) -> set[str] | None:
    """The anchors a page's contents list links to: the links before its first `##` heading, when
    some of them point into the page itself; None for a page without one."""
    text = without_code(path.read_text())
    first_section = re.search(r"^## ", text, re.M)
    intro = text[: first_section.start()] if first_section else text
    listed = {
        target[1:] for target in (match[1] for match in _LINK.finditer(intro)) if target[:1] == "#"
    }
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


def words(command: str) -> list[str]:
    return command.replace("\\\n", " ").split()


def test_the_chaos_command_the_docs_quote_is_the_one_make_chaos_runs():
    """README.md and docs/reliability.md quote what `make chaos` runs with its defaults (a dry
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
    for document in (ROOT / "README.md", ROOT / "docs" / "reliability.md"):
        found = quoted.search(document.read_text())
        assert found, f"{document.name} does not quote the make chaos command"
        assert words(found[1]) == words(runs), document.name
