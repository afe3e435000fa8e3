"""The suppression list (docs/design.md, "Deliveries"): recipients that no send may reach, checked
before every provider call. Delivery events, one-click unsubscribes and operators add to it
(deliveries/); only operators remove from it."""

from __future__ import annotations

from collections.abc import Iterable

from workers.models import Suppression, SuppressionReason, SuppressionScope


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


def suppressed_among(
    *, channel: str, recipients: Iterable[str], marketing: bool
) -> dict[str, Suppression]:
    """Which of `recipients` may not be sent to, by normalised recipient: suppressed in scope
    `all`, or in `marketing` when the message is a marketing one. One indexed query."""
    wanted = {recipient_normalise(channel, r) for r in recipients}
    if not wanted:
        return {}
    scopes = (
        [SuppressionScope.ALL, SuppressionScope.MARKETING] if marketing else [SuppressionScope.ALL]
    )
    rows = Suppression.objects.filter(channel=channel, recipient__in=wanted, scope__in=scopes)
    return {row.recipient: row for row in rows}
