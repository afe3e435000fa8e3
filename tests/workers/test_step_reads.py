"""What a step reads only when it needs it (issue 38): the run's recipient only for a node that
reads it (workflows.semantics.recipient_read), and the events' JSON only when some webhook
endpoint exists to hear them (the claim says so: `notiflow_claim_v2`'s `announced_to`)."""

from __future__ import annotations

import pytest
from django.core import mail

from events import catalog
from events.models import OutboxEvent, WebhookEndpoint
from events.services.endpoints import endpoint_create
from tests.factories import chain, delay_node, email_node, window_node
from tests.workers.helpers import run_to_the_end
from workers.services import engine
from workflows.semantics import recipient_read


def test_a_node_reads_the_recipient_when_it_sends_delivers_or_names_it():
    assert recipient_read(email_node("mail"), [])
    assert recipient_read({"id": "bell", "type": "inapp", "title": "t", "body": "b"}, [])
    assert recipient_read(window_node(), [])  # no zone given: the recipient's
    assert not recipient_read(delay_node(), [])
    assert recipient_read(delay_node(until="{{ recipient.properties.renews }}"), [])
    assert recipient_read(delay_node(), [{"to": "x", "when": "recipient.locale == 'de'"}])
    assert not recipient_read(delay_node(), [{"to": "x", "when": "payload.vip"}])
    assert not recipient_read({"id": "x", "type": "no-such-type"}, [])


@pytest.mark.django_db
def test_no_endpoint_no_events_built_and_an_endpoint_hears_them(monkeypatch, settings):
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"
    WebhookEndpoint.objects.all().delete()
    built: list[object] = []

    def counted(*args: object, **kwargs: object) -> list[object]:
        built.append(args)  # counts the builds, and builds nothing
        return []

    monkeypatch.setattr(engine, "step_announcements", counted)
    trigger = run_to_the_end(chain(email_node("mail")), {"email": "ada@example.com", "name": "Ada"})
    assert trigger.status == "completed" and len(mail.outbox) == 1
    assert built == []  # the claim found no endpoint: nothing was built
    monkeypatch.undo()

    endpoint_create(url="http://127.0.0.1:9/hook", events=["*"])
    heard = run_to_the_end(chain(email_node("mail")), {"email": "bo@example.com", "name": "Bo"})
    types = set(OutboxEvent.objects.filter(trigger_id=heard.pk).values_list("type", flat=True))
    assert {catalog.MESSAGE_SENT, catalog.TRIGGER_COMPLETED} <= types
