"""The reference pages under docs/reference/ are the ones the code renders (notiflow/
docs_reference.py): a setting, node type, channel, metric, command flag or webhook event added,
changed or removed in the code makes its committed page stale, and this fails until it is
written again. To accept a change: `make docs-reference` (NOTIFLOW_SNAPSHOT_UPDATE=1 python -m
pytest tests/test_docs_reference.py), then review `git diff docs/reference`."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from notiflow.docs_reference import PAGES

REFERENCE = Path(__file__).resolve().parent.parent / "docs" / "reference"
UPDATE = os.environ.get("NOTIFLOW_SNAPSHOT_UPDATE") == "1"


@pytest.mark.parametrize("page", sorted(PAGES))
def test_the_committed_reference_page_is_the_one_the_code_renders(page):
    rendered = PAGES[page]()
    committed = REFERENCE / page
    if UPDATE:
        committed.write_text(rendered)
        return
    assert committed.exists(), f"docs/reference/{page} is missing: run make docs-reference"
    assert committed.read_text() == rendered, (
        f"docs/reference/{page} is stale: run make docs-reference and review the diff"
    )
