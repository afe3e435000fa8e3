"""The API's tables stay complete: every path of the OpenAPI schema appears in docs/design/api.md's
HTTP API tables and in docs/guide/api.md's, the table the README had (issue 19: "the README's API
table is complete"; issue 46 moved it)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from drf_spectacular.generators import SchemaGenerator

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = {"/api/schema/", "/api/docs/"}


def documented_paths() -> list[str]:
    """Every operation path of the schema, `{trigger_id}` written as the docs write it, `<id>`
    (`{category_slug}`: `<slug>`)."""
    schema = SchemaGenerator().get_schema(request=None, public=True)
    paths = []
    for path in schema["paths"]:
        if path in PUBLIC:
            continue
        paths.append(re.sub(r"\{(\w+_)?(\w+)\}", r"<\2>", path))
    return paths


def table_rows(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if line.startswith("| `"))


@pytest.mark.parametrize("document", ["docs/design/api.md", "docs/guide/api.md"])
def test_every_api_path_is_in_the_tables(document):
    rows = table_rows((ROOT / document).read_text())
    missing = []
    for path in documented_paths():
        # docs/guide/api.md writes a sub-path of the row before as `…/rotate-secret/`.
        rest = path.rsplit(">/", 1)[-1] if ">/" in path else ""
        tail = f"…/{rest}" if rest else None
        if f" {path}" not in rows and f"`{path}" not in rows and not (tail and tail in rows):
            missing.append(path)
    assert missing == [], f"{document} lacks {missing}"
