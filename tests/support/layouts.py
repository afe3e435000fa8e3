"""A layout and partials for the layout tests (docs/layouts.md), stored through the services as
the API stores them: `brand` (HTML and text, with the `footer` partial, which translates), and
`greeting` for a node's body; and `logo`, reading `payload.logo`."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from content.selectors import PIECES
from content.services import catalog_patch, layout_put, partial_put

BRAND_HTML = '<html><body><h1>Example</h1>{{ content }}{% render "footer" %}</body></html>'
BRAND_TEXT = '{{ content }}\n-- \n{{ "footer.legal" | t }}'
PARTIALS = {
    "footer": '<small>{{ "footer.legal" | t }}</small>',
    "greeting": "Hello {{ payload.name }},",
}


@pytest.fixture
def layouts(catalogs: Any) -> Iterator[None]:
    """The layout and partials above, stored; this process's cache forgets them afterwards (the
    test's rollback takes the rows away). `footer.legal` is added to the catalogs (after them:
    tests.support.catalogs)."""
    catalog_patch(locale="en", messages={"footer": {"legal": "Example Inc."}}, actor="tests")
    catalog_patch(locale="fr", messages={"footer": {"legal": "Exemple SA"}}, actor="tests")
    for key, content in PARTIALS.items():
        partial_put(key=key, content=content, actor="tests")
    layout_put(key="brand", name="Brand", html=BRAND_HTML, text=BRAND_TEXT, actor="tests")
    # One that reads what a payload may lack: a run without it fails in the layout.
    layout_put(key="logo", name="Logo", html='<img src="{{ payload.logo }}">{{ content }}')
    yield
    PIECES.forget()
