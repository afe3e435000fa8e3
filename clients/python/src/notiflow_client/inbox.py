"""The in-app inbox from a client's backend: a recipient's token, computed as Notiflow computes
it, and the widget's HTML with it, for any web framework (`notiflow_client.django` wraps it in a
template tag).

A token is the HMAC-SHA256 of the recipient's id under the inbox secret (Notiflow's
`NOTIFLOW_INBOX_SECRET`), in hex. Once the person's tokens were rotated or the person erased,
their generation N (from 1) is part of it: `N.` + the HMAC of `N:<id>` under a purpose of its
own, so no id's token of one generation is another id's of another. Computing it costs no
request; `Notiflow.recipients.inbox_token(id)` asks the server for the current one instead."""

from __future__ import annotations

import hashlib
import hmac
from html import escape

_PURPOSE = b"notiflow.inbox.recipient:"
_PURPOSE_GENERATIONS = b"notiflow.inbox.recipient.generation:"
# Where Notiflow serves the widget (its static files), under its base URL.
WIDGET_PATH = "/static/notiflow/inbox.js"


def inbox_token(recipient_id: object, secret: str, generation: int = 0) -> str:
    """The inbox token of `recipient_id` (a string, or anything whose `str` is the id, such as
    a user's primary key) at `generation` [0]."""
    if not secret:
        raise ValueError("no inbox secret: the token would be anyone's to compute")
    key = str(recipient_id)
    if not generation:
        return hmac.new(secret.encode(), _PURPOSE + key.encode(), hashlib.sha256).hexdigest()
    message = _PURPOSE_GENERATIONS + f"{generation}:{key}".encode()
    return f"{generation}.{hmac.new(secret.encode(), message, hashlib.sha256).hexdigest()}"


def inbox_widget(recipient_id: object, *, url: str, secret: str, generation: int = 0) -> str:
    """The widget's `<script>` and `<notiflow-inbox>` element for `recipient_id`, served by and
    reading the Notiflow at `url` (list the page's origin in its
    `NOTIFLOW_INBOX_ALLOWED_ORIGINS`), every value escaped."""
    base = url.rstrip("/")
    token = inbox_token(recipient_id, secret, generation)
    return (
        f'<script src="{escape(base + WIDGET_PATH)}" defer></script>'
        f'<notiflow-inbox api="{escape(base)}" recipient="{escape(str(recipient_id))}" '
        f'token="{escape(token)}"></notiflow-inbox>'
    )
