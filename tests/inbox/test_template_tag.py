"""`{% notiflow_inbox %}` renders the widget with the token computed on the server, escaped."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.db import connection
from django.template import Context, Template
from django.test.utils import CaptureQueriesContext

from inbox.services import inbox_token_rotate
from inbox.tokens import recipient_token
from recipients.models import Recipient

WIDGET = Path(__file__).resolve().parents[2] / "inbox" / "static" / "notiflow" / "inbox.js"


def render(source: str, **context: object) -> str:
    return Template("{% load notiflow_inbox %}" + source).render(Context(context))


def test_the_tag_renders_the_script_and_the_element_with_the_token():
    html = render("{% notiflow_inbox who %}", who=42)
    assert '<script src="/static/notiflow/inbox.js" defer></script>' in html
    assert f'recipient="42" token="{recipient_token("42")}"' in html


@pytest.mark.django_db
def test_the_tag_renders_the_token_of_the_generation_it_is_given_and_reads_no_database():
    Recipient.objects.create(key="43")
    rotated = inbox_token_rotate(recipient_key="43")
    assert rotated is not None and rotated.startswith("1.")
    with CaptureQueriesContext(connection) as queries:
        html = render("{% notiflow_inbox who generation=1 %}", who=43)
    assert f'token="{rotated}"' in html and len(queries) == 0


def test_the_recipient_and_the_api_are_escaped():
    html = render('{% notiflow_inbox who api="https://n.example/" %}', who='"><script>x')
    assert "<script>x" not in html and "&quot;&gt;&lt;script&gt;x" in html
    assert 'src="https://n.example/static/notiflow/inbox.js"' in html


def test_the_widget_stays_small():
    assert WIDGET.stat().st_size <= 20 * 1024  # the bound: no framework, no build step
