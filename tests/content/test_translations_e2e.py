"""Translations end to end (docs/translations.md): a catalog PUT over the live API, a workflow
whose email translates, a trigger in French: the stack's worker sends the French email with the
plural French's rule chooses; a PATCH of the catalog reaches the worker within a second."""

from __future__ import annotations

import time
from typing import Any

import pytest

from tests.conftest import unique
from tests.workers.helpers import wait_terminal

pytestmark = pytest.mark.e2e

# A locale of this test's own: what it commits stays out of the other tests' catalogs.
LOCALE = "fr-BE"
MESSAGES = {
    "order": {
        "subject": "Commande de {{ name }}",
        "items": {"one": "{{ count }} article", "other": "{{ count }} articles"},
    }
}


def put(api: Any, path: str, body: dict[str, Any], method: str = "put") -> Any:
    return getattr(api.session, method)(api.base + path, json=body, timeout=10)


@pytest.fixture
def french(api):
    assert put(api, f"/api/translations/{LOCALE}/", {"messages": MESSAGES}).status_code == 201
    yield
    api.delete(f"/api/translations/{LOCALE}/")


def send(api: Any, workflow: str, address: str, count: int) -> str:
    response = api.post(
        "/api/triggers/",
        {
            "workflow": workflow,
            "idempotency_key": unique("k"),
            "locale": LOCALE,
            "payload": {"email": address, "name": "Zoé", "n": count},
        },
    )
    assert response.status_code == 201, response.text
    return str(response.json()["id"])


def test_a_french_email_with_a_plural_on_a_real_worker(api, french, smtp_server):
    workflow = unique("translated")
    created = api.post(
        "/api/workflows/",
        {
            "key": workflow,
            "name": "Translated",
            "default_locale": LOCALE,
            "nodes": [
                {
                    "id": "mail",
                    "type": "email",
                    "to": "{{ payload.email }}",
                    "subject": '{{ "order.subject" | t: name: payload.name }}',
                    "body": '{{ "order.items" | t: count: payload.n }}',
                }
            ],
        },
    )
    assert created.status_code == 201, created.text

    for count, expected in ((0, "0 article"), (3, "3 articles")):
        address = f"fr-{unique()}@example.com"
        trigger = wait_terminal(send(api, workflow, address, count))
        assert trigger.status == "completed", trigger.last_error
        (mail,) = smtp_server.handler.to(address)
        assert (mail.subject, mail.body.strip()) == ("Commande de Zoé", expected)

    # A change of the catalog reaches the worker's cache within a second of its commit.
    patched = put(
        api,
        f"/api/translations/{LOCALE}/",
        {"messages": {"order": {"subject": "Votre commande, {{ name }}"}}},
        method="patch",
    )
    assert patched.status_code == 200
    # The claim: a trigger made a second after the change is rendered with it (no retry).
    time.sleep(1.0)
    address = f"fr-{unique()}@example.com"
    trigger = wait_terminal(send(api, workflow, address, 1))
    assert trigger.status == "completed", trigger.last_error
    (mail,) = smtp_server.handler.to(address)
    assert mail.subject == "Votre commande, Zoé"
