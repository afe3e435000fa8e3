"""The push channels end to end: a real worker (its own queue, configured with a VAPID key pair
and an FCM service account through the environment, as in production) sends a run's webpush and
push nodes to the loopback push services of tests/support/push.py."""

from __future__ import annotations

import json
import os
import signal
from collections.abc import Iterator

import pytest

from recipients.models import Recipient
from tests.conftest import unique
from tests.factories import WorkflowFactory, chain, push_node, webpush_node
from tests.support.push import FcmService, PushService
from tests.support.stack import wait_for
from tests.workers.helpers import wait_terminal
from tests.workers.test_crash_recovery import worker_pid
from tests.workers.test_providers_e2e import own_workers
from triggers.models import TriggerInstance
from triggers.services import TriggerRequest, triggers_create
from workers.models import SendLedger
from workers.providers.push import vapid_key_pair
from workers.services.push import address_id

pytestmark = pytest.mark.e2e

PAYLOAD = {"name": "Ann", "order": 7}


@pytest.fixture(scope="module")
def services() -> Iterator[tuple[PushService, FcmService, tuple[str, str]]]:
    vapid = vapid_key_pair()
    web, fcm = PushService(vapid_public_key=vapid[1]), FcmService()
    web.start()
    fcm.start()
    yield web, fcm, vapid
    web.stop()
    fcm.stop()


@pytest.fixture
def push_queue(e2e, api, services) -> Iterator[str]:
    _, fcm, (private_key, public_key) = services
    queue = unique("push")
    env = {
        "NOTIFLOW_VAPID_PRIVATE_KEY": private_key,
        "NOTIFLOW_VAPID_PUBLIC_KEY": public_key,
        "NOTIFLOW_VAPID_SUBJECT": "mailto:ops@example.com",
        "NOTIFLOW_WEBPUSH_ALLOW_HTTP": "true",
        "NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON": json.dumps(fcm.service_account()),
        "NOTIFLOW_FCM_BASE_URL": fcm.url,
    }
    processes = own_workers(e2e, api, queue, 1, **env)
    yield queue
    for process in processes:
        process.stop()


def test_a_run_pushes_to_every_browser_and_device_of_its_recipient(api, push_queue, services):
    web, fcm, _ = services
    laptop, flaky, expired = unique("ok-laptop"), unique("fail1-desk"), unique("gone-old")
    phone, tablet = unique("ok-phone"), unique("unregistered-tablet")
    subscriptions = [web.subscribe(name) for name in (laptop, flaky, expired)]
    recipient = Recipient.objects.create(
        key=unique("person"), channels={"webpush": subscriptions, "fcm": [phone, tablet]}
    )
    workflow = WorkflowFactory(
        key=f"{push_queue}.shipped",
        definition=chain(webpush_node("browser"), push_node("phone", url="https://shop.example/7")),
    )
    request = TriggerRequest(workflow.key, unique("key"), PAYLOAD, recipient=recipient.key)
    ((trigger, created),) = triggers_create([request])
    assert created

    trigger = wait_terminal(str(trigger.pk))
    assert trigger.status == "completed", trigger.last_error

    # One message per subscription, each decrypted by its own browser; the 503 of `flaky` was
    # retried without sending to `laptop` again.
    assert [len(web.messages[n]) for n in (laptop, flaky, expired)] == [1, 1, 0]
    assert web.counts[laptop] == 1
    assert web.messages[laptop][0]["title"] == "Hi Ann"
    (message,) = fcm.messages[phone]
    assert message["data"]["url"] == "https://shop.example/7"

    recipient.refresh_from_db()
    assert recipient.channels == {"webpush": subscriptions[:2], "fcm": [phone]}
    assert trigger.vars["webpush_browser"]["gone"] == [address_id(subscriptions[2])]
    assert trigger.vars["push_phone"]["gone"] == [address_id(tablet)]
    ledgers = {row.node_id: row for row in SendLedger.objects.filter(trigger_id=trigger.pk)}
    assert (ledgers["browser"].send_count, ledgers["phone"].send_count) == (2, 1)
    assert all(row.status == "sent" for row in ledgers.values())


def test_a_worker_killed_mid_fan_out_resends_only_to_the_unanswered_subscription(
    api, e2e, services
):
    """The crash window of docs/design/channels.md, "Push channels": the first subscription's outcome is
    committed before the second is tried; the worker dies while the second is in flight; the
    run's next claim (after the lease expires) sends to the second and third only."""
    web, _, (private_key, public_key) = services
    queue = unique("pushcrash")
    env = {
        "NOTIFLOW_VAPID_PRIVATE_KEY": private_key,
        "NOTIFLOW_VAPID_PUBLIC_KEY": public_key,
        "NOTIFLOW_VAPID_SUBJECT": "mailto:ops@example.com",
        "NOTIFLOW_WEBPUSH_ALLOW_HTTP": "true",
        # Longer than the test needs to see the request and kill its worker, under the stack's
        # soft time limit (5 s).
        "NOTIFLOW_PUSH_TIMEOUT_SECONDS": "4",
    }
    processes = own_workers(e2e, api, queue, 1, **env)
    first, held, last = unique("ok-first"), unique("hang1-held"), unique("ok-last")
    recipient = Recipient.objects.create(
        key=unique("person"), channels={"webpush": [web.subscribe(n) for n in (first, held, last)]}
    )
    workflow = WorkflowFactory(key=f"{queue}.shipped", definition=chain(webpush_node("browser")))
    request = TriggerRequest(workflow.key, unique("key"), PAYLOAD, recipient=recipient.key)
    ((trigger, _),) = triggers_create([request])
    try:
        wait_for(lambda: web.counts[held] == 1, timeout=20, interval=0.02, message="in flight")
        running = TriggerInstance.objects.get(pk=trigger.pk)
        os.kill(worker_pid(running), signal.SIGKILL)  # the pool process running the step

        trigger = wait_terminal(str(trigger.pk), timeout=45)
    finally:
        for process in processes:
            process.stop()
    assert trigger.status == "completed", trigger.last_error
    assert [web.counts[n] for n in (first, held, last)] == [1, 2, 1]
    assert [len(web.messages[n]) for n in (first, held, last)] == [1, 1, 1]
    assert trigger.events.filter(reason="lease expired; reclaimed").count() == 1
    ledger = SendLedger.objects.get(trigger_id=trigger.pk)
    assert ledger.status == "sent" and ledger.send_count == 2
