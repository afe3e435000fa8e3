"""Pages a newcomer can read (issue 46): the README stays a front page of at most 15 KB, and what
it does not say at length is on a page of the site, none of which grows past 40 KB: every page
under docs/ (the references generated from the code included: a reference that outgrows a page
is split by what it lists), and the repository's pages the site brings in (the README, the
benchmarks, the Python client's README; scripts/docs_site.py's REPOSITORY_PAGES). A page that
would pass the bound is split along its sections into a folder of pages, as docs/design/ was."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README_MOST = 15 * 1024
PAGE_MOST = 40 * 1024
REPOSITORY_PAGES = [ROOT / "README.md", ROOT / "BENCHMARKS.md", ROOT / "clients/python/README.md"]


def pages() -> list[Path]:
    return [*sorted((ROOT / "docs").rglob("*.md")), *REPOSITORY_PAGES]


def too_big(path: Path, most: int = PAGE_MOST) -> str | None:
    """Why `path` is too long to read as one page, or None."""
    size = len(path.read_bytes())
    if size <= most:
        return None
    return f"{path.name} is {size} bytes, over {most}: split it along its sections"


def test_the_readme_is_at_most_15_kb():
    assert too_big(ROOT / "README.md", README_MOST) is None, "move what it says at length to docs/"


@pytest.mark.parametrize("path", pages(), ids=lambda path: str(path.relative_to(ROOT)))
def test_no_page_of_the_site_is_over_40_kb(path):
    assert too_big(path) is None


def test_the_pages_checked_are_every_page_of_the_site():
    checked = {str(path.relative_to(ROOT)) for path in pages()}
    assert {
        "docs/guide/api.md",
        "docs/upgrading.md",
        "docs/decisions/README.md",
        "docs/design/index.md",
        "docs/design/api.md",
        "docs/security/index.md",
        "docs/reference/settings.md",
        "BENCHMARKS.md",
        "README.md",
    } <= checked
    assert not (ROOT / "docs" / "design.md").exists()


def test_a_page_over_the_bound_is_reported(tmp_path):
    page = tmp_path / "long.md"
    page.write_text("x" * (PAGE_MOST + 1))
    assert (
        too_big(page)
        == f"long.md is {PAGE_MOST + 1} bytes, over {PAGE_MOST}: split it along its sections"
    )
    page.write_text("x" * PAGE_MOST)
    assert too_big(page) is None
