"""The widget Notiflow serves stays small. Client sites render it with notiflow-client's
`{% notiflow_inbox %}` tag (clients/python; tests/client/test_django_tag_e2e.py), Notiflow has
no template tag of its own: a client site needs nothing of Notiflow's server."""

from __future__ import annotations

from pathlib import Path

WIDGET = Path(__file__).resolve().parents[2] / "inbox" / "static" / "notiflow" / "inbox.js"


def test_the_widget_stays_small():
    assert WIDGET.stat().st_size <= 20 * 1024  # the bound: no framework, no build step
