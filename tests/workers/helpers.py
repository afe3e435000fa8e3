from __future__ import annotations

from tests.support.stack import wait_for
from triggers.models import TERMINAL_STATUSES, TriggerInstance


def fire(api, workflow, payload, key=None) -> str:
    from tests.conftest import unique

    response = api.post(
        "/api/triggers/",
        {"workflow": workflow.key, "idempotency_key": key or unique("key"), "payload": payload},
    )
    assert response.status_code == 201, response.text
    return response.json()["id"]


def wait_terminal(trigger_id: str, timeout: float = 30) -> TriggerInstance:
    def terminal():
        trigger = TriggerInstance.objects.get(pk=trigger_id)
        return trigger if trigger.status in TERMINAL_STATUSES else None

    return wait_for(
        terminal, timeout=timeout, interval=0.05, message=f"trigger {trigger_id} terminal"
    )
