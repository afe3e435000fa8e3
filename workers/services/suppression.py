"""The suppression list (docs/design.md, "Deliveries"): recipients that no send may reach, checked
before every provider call. Delivery events, one-click unsubscribes and operators add to it
(deliveries/); only operators remove from it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import formataddr, getaddresses
from typing import Any

from django.conf import settings
from django.core import signing

from notiflow.db import fetchall_prepared
from workers.models import Suppression, SuppressionReason, SuppressionScope
from workers.sql import SUPPRESSED_SQL
from workflows.semantics import Rendered, RenderError, recipient_check, recipients_of


def recipient_normalise(channel: str, recipient: str) -> str:
    """The form a recipient is stored and compared in: an email address trimmed and in lower
    case (providers report addresses in any case), a phone number as given (E.164 already)."""
    value = recipient.strip()
    return value.lower() if channel == "email" else value


def suppression_add(
    *,
    channel: str,
    recipient: str,
    reason: SuppressionReason | str,
    scope: SuppressionScope | str = SuppressionScope.ALL,
    source: str = "",
) -> tuple[Suppression, bool]:
    """Suppress `recipient` on `channel` in `scope`; (the row, whether it is new). Adding one
    that exists changes nothing (the first reason and source stay): idempotent, as providers
    repeat their events."""
    return Suppression.objects.get_or_create(
        channel=channel,
        recipient=recipient_normalise(channel, recipient),
        scope=scope,
        defaults={"reason": reason, "source": source[:200]},
    )


@dataclass(frozen=True)
class Hit:
    """A suppression that stops a send: whom, in which scope, why, since when."""

    recipient: str
    scope: str
    reason: str
    created_at: datetime


def suppressed_among(*, channel: str, recipients: Iterable[str], marketing: bool) -> dict[str, Hit]:
    """Which of `recipients` may not be sent to, by normalised recipient: suppressed in scope
    `all`, or in `marketing` when the message is a marketing one. One prepared, indexed query:
    it runs before every send (through the ORM it cost a step more than a millisecond of CPU)."""
    wanted = sorted({recipient_normalise(channel, r) for r in recipients})
    if not wanted:
        return {}
    scopes = [SuppressionScope.ALL.value]
    if marketing:
        scopes.append(SuppressionScope.MARKETING.value)
    params = {"sup_channel": channel, "sup_recipients": wanted, "sup_scopes": scopes}
    return {row[0]: Hit(*row) for row in fetchall_prepared(SUPPRESSED_SQL, params)}


class Suppressed(Exception):
    """Every recipient of a send is suppressed; the message says who and why, starting
    `suppressed:`."""


def suppression_screen(
    *, node: dict[str, Any], rendered: Rendered, marketing: bool
) -> tuple[Rendered, list[str]]:
    """The send's rendered fields without its suppressed recipients, and those left out; raises
    Suppressed when none is left. Several email recipients of whom some are suppressed: the
    message goes to the others (docs/design.md, "Suppression and unsubscribe")."""
    channel = str(node["type"])
    recipients = recipients_of(node, rendered)
    blocked = suppressed_among(channel=channel, recipients=recipients, marketing=marketing)
    if not blocked:
        return rendered, []
    left_out = [r for r in recipients if recipient_normalise(channel, r) in blocked]
    if len(left_out) == len(recipients):
        reasons = "; ".join(_why(blocked[recipient_normalise(channel, r)]) for r in left_out)
        raise Suppressed(f"suppressed: {reasons}")
    kept = [
        formataddr(pair)
        for pair in getaddresses([rendered["to"]])
        if recipient_normalise(channel, pair[1]) not in blocked
    ]
    return {**rendered, "to": ", ".join(kept)}, left_out


def _why(row: Hit) -> str:
    scope = " from marketing" if row.scope == SuppressionScope.MARKETING else ""
    return f"{row.recipient} ({row.reason}{scope}, {row.created_at:%Y-%m-%d})"


# One-click unsubscribe (RFC 8058): a link that proves which recipient of which channel asked,
# without a login, and expires. Made here, where messages are sent; read by deliveries' view.
UNSUBSCRIBE_SALT = "notiflow.unsubscribe"


def unsubscribe_token(*, channel: str, recipient: str) -> str:
    return signing.dumps(
        {"c": channel, "r": recipient_normalise(channel, recipient)}, salt=UNSUBSCRIBE_SALT
    )


def unsubscribe_token_read(token: str) -> tuple[str, str]:
    """(channel, recipient) of a token this service signed within
    NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS; signing.BadSignature (or its SignatureExpired) otherwise."""
    data = signing.loads(
        token,
        salt=UNSUBSCRIBE_SALT,
        max_age=timedelta(days=settings.NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS),
    )
    if not isinstance(data, dict) or not isinstance(data.get("r"), str):
        raise signing.BadSignature("not an unsubscribe token")
    return str(data.get("c") or "email"), data["r"]


def unsubscribe_headers(*, recipient: str) -> dict[str, str]:
    """The RFC 8058 headers of a marketing email to `recipient`; LookupError when the service has
    no public URL to point them at."""
    if not settings.NOTIFLOW_PUBLIC_URL:
        raise LookupError(
            "a marketing email carries a one-click unsubscribe link, and NOTIFLOW_PUBLIC_URL "
            "(where recipients reach this service) is not set"
        )
    token = unsubscribe_token(channel="email", recipient=recipient)
    url = f"{settings.NOTIFLOW_PUBLIC_URL}/deliveries/unsubscribe/{token}/"
    return {"List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def recipient_checked(*, channel: str, recipient: str) -> str:
    """`recipient` as the sends of `channel` name it (one email address; an E.164 number, its
    punctuation dropped), normalised; ValueError saying what is wrong. The run semantics' own
    check (workflows.semantics), so the list holds what sends can match."""
    if channel not in ("email", "sms"):
        raise ValueError(f"unknown channel {channel!r} (email, sms)")
    try:
        checked = recipient_check({"id": "suppression", "type": channel}, {"to": recipient})
    except RenderError as exc:
        raise ValueError(str(exc).removeprefix("node 'suppression': ")) from None
    return recipient_normalise(channel, checked["to"])
