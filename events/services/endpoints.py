"""Webhook endpoints: create, change, rotate the secret, enable, delete, ping (docs/design/events.md,
"Events and webhooks"). The API and the admin both come here."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from django.db import transaction
from django.db.models.functions import Now

from events import catalog
from events.addresses import AddressRefused, url_check
from events.dispatch import deliveries_enqueue_on_commit
from events.models import OutboxEvent, WebhookDelivery, WebhookEndpoint
from events.services.dispatcher import endpoint_disable, endpoint_enable
from events.signing import secret_generate
from workflows.models import Workflow

MAX_URL_LENGTH = 2000
MAX_DESCRIPTION_LENGTH = 500


class EndpointInvalid(ValueError):
    """What is wrong with an endpoint's fields: {field: message}."""

    def __init__(self, errors: dict[str, str]):
        super().__init__("; ".join(f"{name}: {message}" for name, message in errors.items()))
        self.errors = errors


@dataclass(frozen=True)
class EndpointFields:
    url: str
    events: list[str]
    workflows: list[str]
    description: str


def endpoint_fields_check(
    *,
    url: str,
    events: Sequence[str],
    workflows: Sequence[str],
    description: str,
    check_url: bool = True,
    known_workflows: Sequence[str] = (),
) -> EndpointFields:
    """The fields, checked and normalised; EndpointInvalid naming each field that is wrong.
    `check_url=False` takes the URL as it is, and keys in `known_workflows` need no workflow
    (both already stored: see endpoint_update_check)."""
    errors: dict[str, str] = {}
    if len(url) > MAX_URL_LENGTH:
        errors["url"] = f"at most {MAX_URL_LENGTH} characters"
    elif check_url:
        try:
            url_check(url)
        except AddressRefused as exc:
            errors["url"] = str(exc)
    unknown = sorted(set(events) - catalog.SUBSCRIBABLE)
    if not events:
        errors["events"] = 'list at least one event type, or "*" for all'
    elif unknown:
        known = ", ".join(sorted(catalog.SUBSCRIBABLE))
        errors["events"] = f"unknown event type(s) {', '.join(unknown)}; known: {known}"
    new_keys = set(workflows) - set(known_workflows)
    missing = sorted(
        new_keys - set(Workflow.objects.filter(key__in=new_keys).values_list("key", flat=True))
    )
    if missing:
        errors["workflows"] = f"no workflow with the key(s) {', '.join(missing)}"
    if len(description) > MAX_DESCRIPTION_LENGTH:
        errors["description"] = f"at most {MAX_DESCRIPTION_LENGTH} characters"
    if errors:
        raise EndpointInvalid(errors)
    # "*" stands for every type: keep it alone rather than beside names it already covers.
    normalised = [catalog.ALL] if catalog.ALL in events else sorted(set(events))
    return EndpointFields(url, normalised, sorted(set(workflows)), description)


def endpoint_create(
    *,
    url: str,
    events: Sequence[str],
    workflows: Sequence[str] = (),
    description: str = "",
    actor: str = "",
) -> WebhookEndpoint:
    """A new endpoint with a new secret (read it from the returned object: it is shown once).
    It receives the events of changes that commit after it was created."""
    fields = endpoint_fields_check(
        url=url, events=events, workflows=workflows, description=description
    )
    return WebhookEndpoint.objects.create(
        url=fields.url,
        events=fields.events,
        workflows=fields.workflows,
        description=fields.description,
        secret=secret_generate(),
        created_by=actor[:150],
    )


def endpoint_update_check(
    endpoint: WebhookEndpoint,
    *,
    url: str | None = None,
    events: Sequence[str] | None = None,
    workflows: Sequence[str] | None = None,
    description: str | None = None,
) -> EndpointFields:
    """The fields endpoint_update would store, checked; EndpointInvalid naming each one wrong.

    The URL is checked only when it changes, and only the workflow keys it adds must name a
    workflow: the URL is checked again at every send anyway, and a stored URL whose host stopped
    resolving, or a workflow deleted since, must not keep an operator from disabling the
    endpoint or editing its other fields."""
    new_url = endpoint.url if url is None else url
    return endpoint_fields_check(
        url=new_url,
        events=endpoint.events if events is None else events,
        workflows=endpoint.workflows if workflows is None else workflows,
        description=endpoint.description if description is None else description,
        check_url=new_url != endpoint.url,
        known_workflows=endpoint.workflows,
    )


@transaction.atomic
def endpoint_update(
    endpoint: WebhookEndpoint,
    *,
    url: str | None = None,
    events: Sequence[str] | None = None,
    workflows: Sequence[str] | None = None,
    description: str | None = None,
    enabled: bool | None = None,
) -> WebhookEndpoint:
    """Change what is given. Enabling a disabled endpoint delivers the events it kept;
    disabling one keeps them."""
    fields = endpoint_update_check(
        endpoint, url=url, events=events, workflows=workflows, description=description
    )
    endpoint.url, endpoint.events = fields.url, fields.events
    endpoint.workflows, endpoint.description = fields.workflows, fields.description
    endpoint.save(update_fields=["url", "events", "workflows", "description", "updated_at"])
    if enabled is True and not endpoint.enabled:
        endpoint_enable(endpoint.pk)
    elif enabled is False and endpoint.enabled:
        endpoint_disable(endpoint.pk, reason="disabled by an operator")
    endpoint.refresh_from_db()
    return endpoint


def endpoint_rotate_secret(endpoint: WebhookEndpoint) -> WebhookEndpoint:
    """A new secret, at once: every request from now on is signed with it."""
    endpoint.secret = secret_generate()
    endpoint.save(update_fields=["secret", "updated_at"])
    return endpoint


@transaction.atomic
def endpoint_delete(endpoint: WebhookEndpoint) -> None:
    """Delete the endpoint and its pending and past deliveries; the attempt log stays until
    retention takes it with its events."""
    WebhookDelivery.objects.filter(endpoint=endpoint).delete()
    endpoint.delete()


@transaction.atomic
def endpoint_ping(endpoint: WebhookEndpoint) -> OutboxEvent:
    """Send a `notiflow.ping` event to this endpoint alone (enabled or not: a ping to a disabled
    endpoint waits, as its other events do)."""
    event = OutboxEvent.objects.create(
        type=catalog.PING,
        data={"endpoint": str(endpoint.pk), "message": "ping from Notiflow"},
    )
    delivery = WebhookDelivery.objects.create(
        event=event, endpoint=endpoint, nudged_at=Now() if endpoint.enabled else None
    )
    if endpoint.enabled:
        deliveries_enqueue_on_commit([delivery.pk])
    return event
