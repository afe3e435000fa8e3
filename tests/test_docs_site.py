"""The documentation site builds in strict mode (mkdocs.yml; `make docs`): a broken link, a page
missing from the nav's targets or an unknown anchor fails `make test` here, so CI builds it. And
the hook that brings the repository's pages outside docs/ into the site (scripts/docs_site.py)
sends each link that leaves docs/ to the page it names, or checks the file it names exists."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MKDOCS = Path(sys.executable).parent / "mkdocs"
# The hook module as MkDocs loads it: from its path (scripts/ is no package).
_spec = importlib.util.spec_from_file_location("docs_site", ROOT / "scripts" / "docs_site.py")
assert _spec and _spec.loader
docs_site = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(docs_site)
REPOSITORY_PAGES, link_rewritten = docs_site.REPOSITORY_PAGES, docs_site.link_rewritten


def build(config: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(MKDOCS), "build", "--strict", "--config-file", str(config), "--site-dir", str(site)],
        cwd=ROOT,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_site_builds_in_strict_mode(tmp_path):
    built = build(ROOT / "mkdocs.yml", tmp_path / "site")
    assert built.returncode == 0, built.stderr[-3000:]
    assert "WARNING" not in built.stderr
    for page in ("index.html", "design/index.html", "reference/settings/index.html"):
        assert (tmp_path / "site" / page).exists(), page


def test_a_broken_anchor_fails_the_strict_build(tmp_path):
    """The same configuration over a copy of docs/ with one bad anchor added: strict mode stops."""
    docs = tmp_path / "docs"
    subprocess.run(["cp", "-r", str(ROOT / "docs"), str(docs)], check=True)
    with (docs / "upgrading.md").open("a") as page:
        page.write("\nSee [the rules](design/rules.md#no-such-rule).\n")
    config = tmp_path / "mkdocs.yml"
    text = (ROOT / "mkdocs.yml").read_text()
    config.write_text(
        text.replace("docs_dir: docs", f"docs_dir: {docs}").replace(
            "  - scripts/docs_site.py", f"  - {ROOT / 'scripts' / 'docs_site.py'}"
        )
    )
    built = build(config, tmp_path / "site")
    assert built.returncode == 1
    assert "does not contain an anchor '#no-such-rule'" in built.stderr


@pytest.mark.parametrize(
    ("page", "target", "in_site"),
    [
        (
            "design/rules.md",
            "../../BENCHMARKS.md#targets",
            "../benchmarks.md#targets",
        ),
        ("decisions/0005-celery-below-5-7.md", "../../README.md", "../index.md"),
        ("index.md", "docs/design/glossary.md", "design/glossary.md"),
        ("index.md", "docs/images/admin-workflow-page.png", "images/admin-workflow-page.png"),
        ("guide/api.md", "../../BENCHMARKS.md#targets", "../benchmarks.md#targets"),
        ("client.md", "../../README.md#quick-start", "index.md#quick-start"),
        ("upgrading.md", "../constraints.txt", ""),
        ("design/rules.md", "../security/keys.md#rate-limits", None),
        ("design/rules.md", "https://example.com/", None),
    ],
)
def test_a_link_that_leaves_docs_reaches_its_page_in_the_site(page, target, in_site):
    assert link_rewritten(page, target) == in_site


def test_a_link_to_a_repository_file_that_is_missing_is_a_warning(caplog):
    assert link_rewritten("upgrading.md", "../constraints.txt.old") == ""
    assert "docs/upgrading.md links to ../constraints.txt.old" in caplog.text


def test_the_pages_brought_in_exist():
    assert [source for source in REPOSITORY_PAGES if not (ROOT / source).exists()] == []
