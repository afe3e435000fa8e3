"""`{% notiflow_inbox recipient_id %}`: the in-app inbox widget for a Django site (README's
integration snippet). It renders the widget's script and its element with the recipient's token,
computed here on the server (inbox/tokens.py), so the secret never reaches the browser. The
tag reads no database (it runs in the client's site, which has none of Notiflow's): it computes
the token of `generation` [0]; after a rotate or an erase, pass the generation the rotate's
token starts with (`<generation>.`), or ask POST /api/recipients/<id>/inbox-token/.
`api="https://notiflow.example"` points it at Notiflow when it is not this site (list the site in
NOTIFLOW_INBOX_ALLOWED_ORIGINS there)."""

from __future__ import annotations

from django import template
from django.templatetags.static import static
from django.utils.html import format_html

from inbox.tokens import recipient_token

register = template.Library()


@register.simple_tag
def notiflow_inbox(recipient_id: object, api: str = "", generation: int = 0) -> str:
    recipient = str(recipient_id)
    script = (
        f"{api.rstrip('/')}{static('notiflow/inbox.js')}" if api else static("notiflow/inbox.js")
    )
    return format_html(
        '<script src="{}" defer></script>'
        '<notiflow-inbox api="{}" recipient="{}" token="{}"></notiflow-inbox>',
        script,
        api,
        recipient,
        recipient_token(recipient, int(generation)),
    )
