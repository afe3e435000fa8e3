"""The inbox token and widget a client's backend renders (the token's equality with the
server's is tests/client/test_inbox_e2e.py, which has the server's code at hand)."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from notiflow_client import inbox_token, inbox_widget


def test_generation_zero_is_the_bare_hmac_of_the_id_and_later_ones_carry_their_number():
    bare = hmac.new(b"s3cret", b"notiflow.inbox.recipient:42", hashlib.sha256).hexdigest()
    assert inbox_token(42, "s3cret") == inbox_token("42", "s3cret") == bare
    later = inbox_token("42", "s3cret", generation=3)
    assert later.startswith("3.") and len(later) == 66 and later[2:] != bare
    assert inbox_token("42", "other") != bare


def test_no_secret_is_refused():
    with pytest.raises(ValueError, match="secret"):
        inbox_token("42", "")


def test_the_widget_names_its_notiflow_and_escapes_every_value():
    html = inbox_widget('"><script>x', url="https://n.example/", secret="s3cret")
    assert html.startswith(
        '<script src="https://n.example/static/notiflow/inbox.js" defer></script>'
    )
    assert 'api="https://n.example"' in html
    assert "<script>x" not in html and 'recipient="&quot;&gt;&lt;script&gt;x"' in html
    assert f'token="{inbox_token(chr(34) + "><script>x", "s3cret")}"' in html
