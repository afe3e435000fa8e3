"""Microsoft Teams: one POST of a message with an Adaptive Card attachment to an incoming-webhook
or Workflows ("When a Teams webhook request is received") URL; plain text goes as a card of one
TextBlock, the one shape both accept.

Neither answers a message id nor de-duplicates: a resend from the crash window may post twice
(the ledger's send_count shows it). A 429 with Retry-After waits without an attempt (RateLimited);
transport errors and 5xx are transient; any other non-2xx (a redirect included: it is not
followed) is permanent. A legacy connector answers 200 with an error text (`Microsoft Teams
endpoint returned HTTP error 429 ...`), read the same way.
"""

from __future__ import annotations

import json
import re
from typing import Any

from django.conf import settings

from events.addresses import Target
from events.services.sender import PinnedPostFailed, pinned_post
from workers.errors import PermanentError, TransientError
from workers.providers import provider_wait

_LEGACY_ERROR = re.compile(r"returned HTTP error (\d{3})")
# How much of an answer's body is read: enough for a legacy connector's error text.
ANSWER_READ_BYTES = 4096


def teams_card_of_text(text: str) -> dict[str, Any]:
    return {
        "type": "AdaptiveCard",
        "$schema": "http://adaptivecards.io/schemas/adaptive-card.json",
        "version": "1.4",
        "body": [{"type": "TextBlock", "text": text, "wrap": True}],
    }


def teams_message(card: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "message",
        "attachments": [
            {
                "contentType": "application/vnd.microsoft.card.adaptive",
                "contentUrl": None,
                "content": card,
            }
        ],
    }


def teams_webhook_post(target: Target, *, card: dict[str, Any], idempotency_key: str) -> None:
    """POST one card to the checked webhook address (pinned: events.services.sender); raises
    RateLimited, TransientError or PermanentError."""
    try:
        answer = pinned_post(
            target,
            body=json.dumps(teams_message(card)).encode(),
            headers={"Content-Type": "application/json", "Idempotency-Key": idempotency_key},
            seconds=settings.NOTIFLOW_CHAT_TIMEOUT_SECONDS,
            read_limit=ANSWER_READ_BYTES,
        )
    except PinnedPostFailed as exc:
        raise TransientError(f"teams: {exc}") from exc
    status, body = answer.status, answer.body.decode("utf-8", "replace")[:200]
    legacy = _LEGACY_ERROR.search(body) if status == 200 else None
    if legacy:
        status = int(legacy.group(1))
    if 200 <= status < 300:
        return
    if status == 429:
        limited = provider_wait("teams", answer.header("Retry-After"))
        if limited is not None:
            raise limited
        raise TransientError(f"teams: HTTP 429: {body}")
    if status >= 500:
        raise TransientError(f"teams: HTTP {status}: {body}")
    raise PermanentError(f"teams: HTTP {status}: {body}")
