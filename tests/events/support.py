"""Helpers for the webhook tests: endpoints on the test receiver, and verification of what it
got with the Standard Webhooks reference library (not Notiflow's own code)."""

from __future__ import annotations

from typing import Any

from standardwebhooks.webhooks import Webhook

from events.models import WebhookEndpoint
from events.services.endpoints import endpoint_create
from tests.conftest import unique
from tests.support.receiver import Receiver, Request


def endpoint_on(
    receiver: Receiver, kind: str = "ok", events: list[str] | None = None, **fields: Any
) -> tuple[WebhookEndpoint, str]:
    """An endpoint on the receiver under a path of its own (`/<kind>/<unique>`), and that path."""
    path = f"/{kind}/{unique('hook')}"
    endpoint = endpoint_create(url=receiver.url(path), events=events or ["*"], **fields)
    return endpoint, path


def verified(request: Request, secret: str) -> dict[str, Any]:
    """The event of `request`, once the reference verifier accepts its signature (it raises
    otherwise: a wrong signature, or a timestamp too far from now)."""
    return Webhook(secret).verify(request.body, request.headers)


def types_of(requests: list[Request]) -> list[str]:
    return [request.event["type"] for request in requests]
