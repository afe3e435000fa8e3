"""The funnel by tenant and the in-app marks in it (issues 48 §3 and 49 §3, docs/funnel.md,
"Tenants" and "In-app messages"): runs the engine steps for a tenant and without one, counted by
the rollup's triggers (deliveries migration 0007) and its sweep (0008) under the run's tenant, read with `?tenant=`;
an in-app message's first seen mark counts `delivered`, its first read `opened`, once each."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.db import connection

from deliveries.funnel import OUTCOMES, funnel_counted
from deliveries.suppression import suppression_add
from inbox.models import InboxMessage
from inbox.services import inbox_mark
from tenants.services import tenant_put
from tests.conftest import unique
from tests.deliveries.test_funnel import funnel, payload, report
from tests.factories import chain, email_node
from tests.inbox.test_inapp_node import inapp_node
from tests.tenants.conftest import acme  # noqa: F401 (fixture)
from tests.triggers.test_explain import api, locmem, step  # noqa: F401 (fixtures)
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog

pytestmark = [pytest.mark.django_db]


def run_of(first: TriggerInstance, person: dict[str, Any], tenant: str = "") -> TriggerInstance:
    """Another run of `first`'s workflow version for `tenant` (or none), stepped to its end."""
    run = TriggerInstance.objects.create(
        workflow=first.workflow, workflow_version=first.workflow_version,
        idempotency_key=unique("k"), payload=person, status="enqueued",
        current_node_id=first.workflow_version.definition["entry_node_id"],
        available_at=first.available_at,
        tenant=tenant, recipient=first.recipient,
    )  # fmt: skip
    return to_the_end(run)


def to_the_end(run: TriggerInstance) -> TriggerInstance:
    while run.status == "enqueued":
        run = step(run)
    return run


def test_a_tenants_funnel_counts_its_runs_steps_and_reports_only(api, acme):  # noqa: F811
    first = to_the_end(due_trigger(chain(email_node("mail")), payload("ann"), tenant="acme"))
    theirs = run_of(first, payload("bo"), tenant="acme")
    opted_out = payload("cy")
    suppression_add(channel="email", recipient=opted_out["email"], reason="unsubscribed")
    run_of(first, opted_out, tenant="acme")  # skipped: an acme send a rule stopped
    untenanted = run_of(first, payload("di"))
    report(first, "delivered")
    report(first, "opened")
    report(theirs, "delivered")
    report(untenanted, "delivered")
    report(untenanted, "bounced")
    key = first.workflow.key

    (mail,) = funnel(api, key, tenant="acme")["nodes"]
    assert mail["counts"] == {
        **dict.fromkeys(OUTCOMES, 0), "sent": 2, "skipped": 1, "delivered": 2, "opened": 1,
    }  # fmt: skip
    (every,) = funnel(api, key)["nodes"]
    assert every["counts"]["sent"] == 3 and every["counts"]["delivered"] == 3
    assert every["counts"]["bounced"] == 1 and every["counts"]["skipped"] == 1
    tenant_put(tenant_id="globex", fields={"name": "Globex"})
    (none,) = funnel(api, key, tenant="globex")["nodes"]
    assert none["counts"] == dict.fromkeys(OUTCOMES, 0)


def test_an_unknown_tenant_is_a_400_naming_it(api):  # noqa: F811
    workflow = due_trigger().workflow
    response = api.get(f"/api/workflows/{workflow.key}/funnel/", {"tenant": "no-such-tenant"})
    assert response.status_code == 400
    assert "does not exist" in response.json()["errors"]["tenant"][0]


def test_a_step_is_counted_under_the_tenant_its_own_step_log_saw(acme):  # noqa: F811
    """The funnel takes the tenant from the step log it counts (its `input`), asking no other
    table: a step log whose input names a tenant is counted under it, whatever the run row says
    (here: none)."""
    run = to_the_end(due_trigger(chain(email_node("mail")), payload("ann")))
    log = StepExecutionLog.objects.get(trigger=run)
    assert "tenant" not in log.input
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO step_log (trigger_id, workflow_id, node_id, node_type, attempt, "
            "started_at, finished_at, input, output, success, error) SELECT trigger_id, "
            "workflow_id, node_id, node_type, 2, started_at, finished_at, "
            'input || \'{"tenant": {"id": "acme"}}\', output, success, error '
            "FROM step_log WHERE id = %s",
            [log.pk],
        )

    def sent(tenant: str) -> int:
        start = log.started_at - timedelta(hours=1)
        rows = funnel_counted(workflow=run.workflow, start=start, end=start + timedelta(hours=3),
                              tenant=tenant)  # fmt: skip
        return sum(count for *_, outcome, count in rows if outcome == "sent")

    assert (sent(""), sent("acme")) == (1, 1)


def inbox_run(tenant: str, person: str) -> InboxMessage:
    run = to_the_end(
        due_trigger(chain(inapp_node()), {"name": "Ann", "amount": "3"}, recipient=person,
                    tenant=tenant)
    )  # fmt: skip
    assert run.status == "completed"
    return InboxMessage.objects.get(trigger_id=run.pk)


def test_an_inapp_message_first_seen_is_delivered_and_first_read_opened_once(api, acme):  # noqa: F811
    person = unique("ann")
    message = inbox_run("acme", person)
    key = message.workflow_key
    other = InboxMessage.objects.get(trigger_id=run_of(
        TriggerInstance.objects.get(pk=message.trigger_id), {"name": "Bo", "amount": "1"},
        tenant="acme",
    ).pk)  # fmt: skip

    def counts(**params: str) -> dict[str, int]:
        (bell,) = funnel(api, key, **params)["nodes"]
        assert (bell["node"], bell["channel"]) == ("bell", "inapp")
        return {k: v for k, v in bell["counts"].items() if v}

    assert counts(tenant="acme") == {"sent": 2}
    inbox_mark(recipient=person, mark="seen", ids=[str(message.pk)])
    inbox_mark(recipient=person, mark="seen", ids=[str(message.pk)])  # changes nothing
    assert counts(tenant="acme") == {"sent": 2, "delivered": 1}
    inbox_mark(recipient=person, mark="read", ids=[str(message.pk)])
    inbox_mark(recipient=person, mark="unread", ids=[str(message.pk)])
    inbox_mark(recipient=person, mark="read", ids=[str(message.pk)])  # read again: opened once
    assert counts(tenant="acme") == {"sent": 2, "delivered": 1, "opened": 1}
    inbox_mark(recipient=person, mark="read", ids=[str(other.pk)])  # read unseen: seen too
    assert counts(tenant="acme") == {"sent": 2, "delivered": 2, "opened": 2}
    assert counts() == counts(tenant="acme")
    message.refresh_from_db()
    assert message.read_at is not None and message.first_read_at < message.read_at
