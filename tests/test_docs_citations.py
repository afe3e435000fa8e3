"""Citations of the docs stay true (issue 46): code, tests, SQL, configuration and pages cite a page
and its section as `docs/design/deliveries.md, "Suppression and unsubscribe"`. Every page so cited
exists (a citation of a page that was split, `docs/design.md`, fails here and names the file and
line), and a quoted section right after it is a heading of that page or a term it defines in bold,
so a citation cannot outlive the text it points at."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

from tests.test_docs_links import ROOT, without_code

# `docs/<path>.md` (or BENCHMARKS.md), then optionally `, "Section"` or ` "Section"`; a comment's
# continuation (`#`, `--`, a docstring's indentation) may come between the two.
CITATION = re.compile(
    r"(?<![\w/.-])((?:docs/[\w./-]+|BENCHMARKS)\.md)"
    r'(?:(?:,|:)?(?:\s|\n\s*(?:#|--)?\s*)"([^"\n]{2,80})")?'
)
# The tests of the checks themselves cite missing pages on purpose.
EXEMPT = {"tests/test_docs_links.py", "tests/test_docs_citations.py"}
_HEADING = re.compile(r"^#{1,6} +(.+?)\s*#*\s*$", re.M)
_BOLD = re.compile(r"\*\*([^*\n]{2,80}?)[.:]?\*\*")


def tracked_files() -> list[Path]:
    names = subprocess.run(
        ["git", "ls-files", "*.py", "*.sql", "*.toml", "*.yml", "*.md", "Makefile", "Procfile"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in names if name not in EXEMPT and (ROOT / name).exists()]


def _plain(text: str) -> str:
    return re.sub(r"[`*]", "", text).strip().lower()


def names_in(page: Path) -> list[str]:
    """The headings of a page and the terms it defines in bold, lower case, without markup."""
    text = without_code(page.read_text())
    return [_plain(m[1]) for m in _HEADING.finditer(text)] + [
        _plain(m[1]) for m in _BOLD.finditer(text)
    ]


def stale(path: Path) -> list[str]:
    """The citations in `path` of a page that does not exist or of a section it does not have."""
    found = []
    text = path.read_text(errors="replace")
    for match in CITATION.finditer(text):
        cited, section = match[1], match[2]
        line = text.count("\n", 0, match.start()) + 1
        page = ROOT / cited
        if not page.exists():
            found.append(f"{path.relative_to(ROOT)}:{line}: {cited}: no such page")
            continue
        if section and not any(name.startswith(_plain(section)) for name in names_in(page)):
            found.append(f'{path.relative_to(ROOT)}:{line}: {cited}: no section "{section}"')
    return found


def test_every_cited_page_and_section_exists():
    found = [problem for path in tracked_files() for problem in stale(path)]
    assert found == []


def test_a_citation_of_a_split_page_or_a_missing_section_is_reported(tmp_path, monkeypatch):
    monkeypatch.setattr("tests.test_docs_citations.ROOT", tmp_path)
    (tmp_path / "docs" / "design").mkdir(parents=True)
    (tmp_path / "docs" / "design" / "waits.md").write_text(
        "# Waiting for events\n\n- **Message waits.** ...\n"
    )
    code = tmp_path / "module.py"
    code.write_text(
        '"""Waits (docs/design/waits.md, "Waiting for events"; docs/design/waits.md,\n'
        '"Message waits"; docs/design.md, "Waiting for events").\n'
        '# docs/design/waits.md, "No such section"\n"""\n'
    )
    assert stale(code) == [
        "module.py:2: docs/design.md: no such page",
        'module.py:3: docs/design/waits.md: no section "No such section"',
    ]
