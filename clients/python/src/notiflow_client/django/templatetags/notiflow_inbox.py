"""`{% notiflow_inbox recipient_id %}`: Notiflow's in-app inbox widget for the recipient, with
their token computed here on the server (`notiflow_client.inbox_token`), so the secret never
reaches the browser. Reads `settings.NOTIFLOW_URL` (where Notiflow serves the widget and its
API) and `settings.NOTIFLOW_INBOX_SECRET`; `url="…"` points one tag elsewhere. After a rotate or
an erase, pass `generation=N` (what the rotate's token starts with, `N.`)."""

from __future__ import annotations

from django import template
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.utils.safestring import SafeString, mark_safe

from notiflow_client.inbox import inbox_widget

register = template.Library()


@register.simple_tag
def notiflow_inbox(recipient_id: object, url: str = "", generation: int = 0) -> SafeString:
    base = url or getattr(settings, "NOTIFLOW_URL", "")
    secret = getattr(settings, "NOTIFLOW_INBOX_SECRET", "")
    if not base or not secret:
        raise ImproperlyConfigured(
            "{% notiflow_inbox %} needs NOTIFLOW_URL and NOTIFLOW_INBOX_SECRET"
        )
    html = inbox_widget(recipient_id, url=base, secret=secret, generation=int(generation))
    return mark_safe(html)  # noqa: S308 (inbox_widget escapes every value it inserts)
