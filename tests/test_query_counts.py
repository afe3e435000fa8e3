"""Each hot-path step costs a pinned number of statements (issue 32 §6, in the style of Zulip's
`assert_database_query_count`): a send step (email), a delay, a throttle, a digest's opener, a
run joining it and the opener's closing step, a webhook delivery. A change that adds a statement
to one of them fails here, listing what the step now sends; if the statement is worth its round
trip, pin the new number in the same commit and say why.

Counted in-process with Django's CaptureQueriesContext: the prepared statements of common/db.py
run through the same query log. Each step is measured after a first run of its workflow (the
compiled workflow version is cached per process: the steady state is what is pinned). Inside a
test's transaction each `atomic` block is a SAVEPOINT pair where production has BEGIN/COMMIT:
those are pinned apart, as the step's transactions.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from events.models import DeliveryStatus
from events.services.dispatcher import delivery_send
from events.services.endpoints import endpoint_ping
from recipients.models import Recipient
from tests.events.support import endpoint_on
from tests.factories import (
    WorkflowFactory,
    chain,
    delay_node,
    digest_node,
    email_node,
    sms_node,
    throttle_node,
)
from triggers.models import TriggerInstance
from workers.models import Digest
from workers.services.engine import step_execute

pytestmark = [pytest.mark.django_db]

PAYLOAD = {"email": "ada@example.com", "name": "Ada", "phone": "+15550199", "user": "u1"}


@pytest.fixture(autouse=True)
def locmem_email():
    with override_settings(EMAIL_BACKEND="django.core.mail.backends.locmem.EmailBackend"):
        yield


def is_transaction_control(sql: str) -> bool:
    return sql.lstrip().upper().startswith(("SAVEPOINT", "RELEASE SAVEPOINT", "ROLLBACK TO"))


def assert_statements(
    name: str, action: Callable[[], Any], *, statements: int, transactions: int
) -> Any:
    """Run `action`; fail unless it sent exactly `statements` statements in `transactions`
    atomic blocks, listing each statement it sent when it did not."""
    with CaptureQueriesContext(connection) as captured:
        result = action()
    sent = [query["sql"] for query in captured.captured_queries]
    work = [sql for sql in sent if not is_transaction_control(sql)]
    blocks = sum(sql.lstrip().upper().startswith("SAVEPOINT") for sql in sent)
    if (len(work), blocks) != (statements, transactions):
        listing = "\n".join(f"  {i}. {' '.join(sql.split())[:240]}" for i, sql in enumerate(sent))
        pytest.fail(
            f"{name}: {len(work)} statements in {blocks} transactions, pinned at {statements} "
            f"in {transactions}. A new statement is a new round trip on the hot path: remove "
            f"it, or pin the new count with the reason. What it sent:\n{listing}",
            pytrace=False,
        )
    return result


def trigger_of(workflow, payload: dict[str, Any] | None = None) -> TriggerInstance:
    version = workflow.current_version
    return TriggerInstance.objects.create(
        workflow=workflow,
        workflow_version=version,
        idempotency_key=f"k{TriggerInstance.objects.count()}",
        payload=payload or PAYLOAD,
        status="enqueued",
        current_node_id=version.definition["entry_node_id"],
        available_at=timezone.now() - timedelta(days=1),
    )


def warm(definition: dict[str, Any]):
    """A workflow of `definition` whose version this process has compiled already (one step of
    a first run of it)."""
    workflow = WorkflowFactory(definition=definition)
    step_execute(
        trigger_id=str(trigger_of(workflow, {**PAYLOAD, "user": "warm"}).pk), worker_id="w"
    )
    return workflow


def stepped(trigger: TriggerInstance) -> Callable[[], Any]:
    return lambda: step_execute(trigger_id=str(trigger.pk), worker_id="w")


def test_a_send_step_claims_and_releases_in_two_statements():
    trigger = trigger_of(warm(chain(email_node("mail"), sms_node("text"))))
    # The claim (opening the ledger, reading the suppression list's generation), the release
    # (ledger, step log). The suppression check is made against the list this process read
    # when the generation moved (the warm-up's step did: deliveries/suppression.py).
    assert_statements("email step", stepped(trigger), statements=2, transactions=1)


def test_a_send_step_after_the_suppression_list_changed_reads_it_once_more():
    from deliveries.suppression import suppression_add

    workflow = warm(chain(email_node("mail"), sms_node("text")))
    suppression_add(channel="email", recipient="someone-else@example.com", reason="manual")
    # The claim, the channel's list (its generation moved), the release; then as before.
    assert_statements("email step", stepped(trigger_of(workflow)), statements=3, transactions=1)
    assert_statements("email step", stepped(trigger_of(workflow)), statements=2, transactions=1)


def test_a_send_step_checks_a_list_too_long_to_hold_in_a_statement(monkeypatch):
    from deliveries.suppression import SUPPRESSIONS, suppression_add

    monkeypatch.setattr(SUPPRESSIONS, "limit", 1)
    workflow = warm(chain(email_node("mail"), sms_node("text")))
    for name in ("a", "b"):
        suppression_add(channel="email", recipient=f"{name}@example.com", reason="manual")
    # The claim, the list (two rows: not held), the suppression look-up, the release; then the
    # claim, the look-up, the release.
    assert_statements("email step", stepped(trigger_of(workflow)), statements=4, transactions=1)
    assert_statements("email step", stepped(trigger_of(workflow)), statements=3, transactions=1)


def test_a_send_step_for_a_recipient_reads_the_profile_in_one_statement_more():
    """docs/design/recipients.md, "Recipients" and "Preferences": only a run that names a recipient reads
    it, once a step, with what its preferences need (the send is decided by them here)."""
    workflow = warm(chain(email_node("mail", to=""), sms_node("text")))
    recipient = Recipient.objects.create(
        key="query-count-ada", email="ada@example.com", preferences={"channels": {"sms": False}}
    )
    first, trigger = trigger_of(workflow), trigger_of(workflow)
    TriggerInstance.objects.filter(pk__in=[first.pk, trigger.pk]).update(recipient=recipient.key)
    stepped(first)()  # the warm-up's run had no address: this one reads the suppression list
    # The claim, the recipient (profile, preferences, category defaults), the release.
    assert_statements("email step for a recipient", stepped(trigger), statements=3, transactions=1)


def test_a_send_step_for_a_recipient_of_a_tenant_costs_no_statement_more(monkeypatch):
    """docs/tenants.md: the person's preferences for the run's tenant come in the recipient's
    statement; the tenant (its context, locale and category defaults) from this process's copy,
    which asks the change log's largest id at most once per RECHECK_SECONDS (warmed here, and
    kept warm whatever the machine's load)."""
    from tenants.selectors import TENANTS
    from tenants.services import tenant_put

    tenant_put(tenant_id="query-count-acme", fields={"name": "Acme"})
    workflow = warm(chain(email_node("mail", to="", subject="{{ tenant.name }}")))
    recipient = Recipient.objects.create(key="query-count-ada", email="ada@example.com")
    first, trigger = trigger_of(workflow), trigger_of(workflow)
    TriggerInstance.objects.filter(pk__in=[first.pk, trigger.pk]).update(
        recipient=recipient.key, tenant="query-count-acme"
    )
    stepped(first)()
    TENANTS.value()
    monkeypatch.setattr(TENANTS, "_recheck", 3600.0)
    # The claim, the recipient (with the preferences for the tenant), the release.
    assert_statements("email step for a tenant", stepped(trigger), statements=3, transactions=1)
    TENANTS.forget()


def test_a_delay_step_is_its_claim_and_its_release():
    trigger = trigger_of(warm(chain(delay_node(), sms_node("text"))))
    assert_statements("delay step", stepped(trigger), statements=2, transactions=1)


def test_a_delay_step_of_a_run_for_a_recipient_does_not_read_it():
    """Only a step whose node reads the recipient (it sends or delivers, its templates or
    conditions name it, a window's time zone) reads it (workflows.semantics.recipient_read)."""
    trigger = trigger_of(warm(chain(delay_node(), sms_node("text"))))
    TriggerInstance.objects.filter(pk=trigger.pk).update(recipient="query-count-ada")
    assert_statements("delay step", stepped(trigger), statements=2, transactions=1)


def test_an_inapp_step_stores_its_message_with_its_release():
    bell = {"id": "bell", "type": "inapp", "title": "Hi {{ payload.name }}", "body": "Ready"}
    trigger = trigger_of(warm(chain(bell, sms_node("text"))))
    TriggerInstance.objects.filter(pk=trigger.pk).update(recipient="query-count-ada")
    # The claim, the recipient (its preferences), the release with the message
    # (`notiflow_release_v2`: it was a statement of its own after the release).
    assert_statements("inapp step", stepped(trigger), statements=3, transactions=1)


def test_a_throttle_step_takes_its_lock_and_its_pass_in_one_statement_each():
    trigger = trigger_of(warm(chain(throttle_node(), sms_node("text"))))
    # The claim, the key's advisory lock, the pass (counted and taken), the release.
    assert_statements("throttle step", stepped(trigger), statements=4, transactions=2)


def test_a_digest_opener_a_run_joining_it_and_the_closing_step_are_pinned():
    workflow = warm(chain(digest_node(), email_node("mail")))
    opener, joiner = trigger_of(workflow), trigger_of(workflow)
    # The claim; the lock, my entry?, an open digest?, the new digest and its first entry; the
    # release.
    assert_statements("digest opener", stepped(opener), statements=7, transactions=2)
    # The claim; the lock, my entry?, the open digest, my entry; the release.
    assert_statements("digest join", stepped(joiner), statements=6, transactions=2)
    Digest.objects.filter(opener_id=opener.pk).update(
        closes_at=timezone.now() - timedelta(seconds=1)
    )
    TriggerInstance.objects.filter(pk=opener.pk).update(
        available_at=timezone.now() - timedelta(days=1)
    )
    # The claim; the lock, my entry, closing it, its entries; the release.
    assert_statements("digest close", stepped(opener), statements=6, transactions=2)


def test_a_webhook_delivery_is_pinned(receiver):
    endpoint, _ = endpoint_on(receiver)
    warmup = endpoint_ping(endpoint).deliveries.get()
    assert delivery_send(warmup.pk, worker_id="w") == DeliveryStatus.DELIVERED
    delivery = endpoint_ping(endpoint).deliveries.get()
    # The claim and the fenced finish, one database function each (events migration 0004), each
    # its own transaction in autocommit: the leased-work primitive's two round trips (was 9 in 2
    # transactions through the ORM).
    status = assert_statements(
        "webhook delivery",
        lambda: delivery_send(delivery.pk, worker_id="w"),
        statements=2,
        transactions=0,
    )
    assert status == DeliveryStatus.DELIVERED


def test_a_chat_step_costs_three_statements_wherever_its_address_comes_from(
    chat_server,
):
    from recipients.models import Recipient
    from tests.factories import slack_node, teams_node

    url = chat_server.url("/slack/ok/pinned")
    trigger = trigger_of(warm(chain(slack_node("chat", webhook_url=url), sms_node("text"))))
    # As an email step: the claim, the release (the webhook URL checked against the list held).
    assert_statements("slack step", stepped(trigger), statements=2, transactions=1)

    Recipient.objects.create(key="pinned", channels={"teams": {"webhook_url": url}})
    trigger = trigger_of(warm(chain(teams_node("team"), sms_node("text"))))
    TriggerInstance.objects.filter(pk=trigger.pk).update(recipient="pinned")
    # No address on the node, so none to look up in the suppression list; the step's read of
    # its recipient instead, whose channels hold the address (workers/channels/chat.py).
    assert_statements("teams step", stepped(trigger), statements=3, transactions=1)
