"""Bulk actions under the per-process database roles (`manage.py setup_db_roles`; docs/bulk-actions.md,
docs/security/deployment.md): a web process connected as the web role takes each action in, and a
Celery worker connected as the worker role carries out its chunks, whose cancel, retry and replay
are the state machine's functions (triggers migration 0028), then runs (or stops) the runs, which
end where they should (docs/design/rules.md rule 13). No chunk is refused: the action is `done`
with no failed chunk behind it.

The processes are this module's own, on a broker database of their own (the stack's minus two, as
Schemathesis' web uses), so the stack's workers, connected as the owner, can take none of their
tasks; they share the test database, and the roles are made in it by the command, committed, and
dropped afterwards."""

from __future__ import annotations

import os
import subprocess
import sys
import uuid
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import psycopg
import pytest
import redis
from django.conf import settings

from tests.conftest import STACK_SETTINGS, TEST_BROKER_URL, Api, unique
from tests.factories import WorkflowFactory, chain, email_node
from tests.registry.test_registry_e2e import HOST, live_worker
from tests.support.smtp import free_port
from tests.support.stack import ROOT, Stack, wait_for
from tests.workers.helpers import fire, wait_terminal
from tests.workers.test_operator_actions import message_id
from triggers.actions import replay_key
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope, TriggerAction, TriggerInstance, TriggerStatus
from waits.models import EventWait

pytestmark = pytest.mark.e2e

ACTIONS = "/api/triggers/actions/"


def _owner_url(user: str | None = None) -> str:
    db = settings.DATABASES["default"]
    return f"postgres://{user or db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"


def _sibling_broker() -> str:
    broker = urlsplit(TEST_BROKER_URL)
    return urlunsplit(broker._replace(path=f"/{int(broker.path.strip('/') or 0) - 2}"))


@pytest.fixture(scope="module")
def roles_stack(
    django_db_setup, django_db_blocker, smtp_server, tmp_path_factory
) -> Iterator[tuple[Stack, dict[str, str], str]]:
    """gunicorn as the web role and one worker as the worker role (queues `default` and this
    module's own), on the test database (trust authentication on loopback) and a broker database
    of their own; the roles, the stack's API and the worker's queue."""
    suffix = uuid.uuid4().hex[:8]
    roles = {"web": f"nf_actions_web_{suffix}", "worker": f"nf_actions_worker_{suffix}"}
    queue = f"roles-{suffix}"
    broker = _sibling_broker()
    redis.Redis.from_url(broker).flushdb()
    workdir = tmp_path_factory.mktemp("roles")
    env = {
        **os.environ,
        **STACK_SETTINGS,
        "DJANGO_SETTINGS_MODULE": "notiflow.settings",
        "CELERY_BROKER_URL": broker,
        "EMAIL_URL": f"smtp://127.0.0.1:{smtp_server.port}",
        "DJANGO_STATIC_ROOT": str(workdir / "static"),
        "NOTIFLOW_METRICS_DIR": str(workdir / "metrics"),
        "PYTHONUNBUFFERED": "1",
    }
    subprocess.run(
        [
            sys.executable,
            "manage.py",
            "setup_db_roles",
            "--roles",
            "web,worker",
            "--web-role",
            roles["web"],
            "--worker-role",
            roles["worker"],
            "--no-password",
        ],
        cwd=ROOT,
        env={**env, "DATABASE_URL": _owner_url()},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    stack = Stack(env=env, workdir=workdir)
    try:
        stack.collectstatic()
        stack.web_process(
            "web", port := free_port(), env={"DATABASE_URL": _owner_url(roles["web"])}
        )
        stack.base_url = f"http://127.0.0.1:{port}"
        stack.worker(
            queue,
            queues=["default", queue],
            extra_env={"DATABASE_URL": _owner_url(roles["worker"])},
        )
        with django_db_blocker.unblock():
            _, stack.env["API_KEY"] = api_key_create(name=unique("roles"), scope=ApiKeyScope.ADMIN)
        api = Api(stack)
        wait_for(lambda: _answers(api), timeout=60, interval=0.2, message="the web role's gunicorn")
        live_worker(api, f"{queue}@{HOST}")
        yield stack, roles, queue
    except BaseException:
        print(stack.logs())
        raise
    finally:
        stack.stop()
        redis.Redis.from_url(broker).flushdb()
        with psycopg.connect(_owner_url(), autocommit=True) as owner:
            for name in roles.values():
                if owner.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [name]).fetchone():
                    owner.execute(f'DROP OWNED BY "{name}"')
                    owner.execute(f'DROP ROLE "{name}"')


def waiting_for_an_order() -> dict[str, Any]:
    """A run that waits for its order's `order.paid`, then emails."""
    hold = {
        "id": "hold",
        "type": "wait_event",
        "event": "order.paid",
        "match": {"order_id": "{{ payload.order_id }}"},
        "timeout": "1h",
    }
    return {
        "entry_node_id": "hold",
        "nodes": [hold, email_node("mail")],
        "edges": [{"from": "hold", "to": "mail"}],
    }


def _answers(api: Api) -> bool:
    try:
        return api.get("/api/health/").status_code == 200
    except Exception:
        return False


def act(api: Api, action: str, run_filter: dict[str, Any]) -> TriggerAction:
    """Ask for the action over the web role's API and wait until the worker has done it."""
    response = api.post(ACTIONS, {"action": action, "filter": run_filter})
    assert response.status_code == 202, response.text
    action_id = response.json()["action_id"]
    return wait_for(
        lambda: (a := TriggerAction.objects.get(pk=action_id)).status != "running" and a,
        timeout=60,
        message=f"bulk {action} {action_id} carried out",
    )


def assert_done_by_the_worker(action: TriggerAction, count: int, stack: Stack) -> None:
    """Done, every run acted on, and no chunk refused on the way (a refused chunk leaves its
    error in `last_error`, which a later chunk does not clear); the chunks were the worker's."""
    assert (action.status, action.matched, action.done) == ("done", count, count)
    assert (action.skipped, action.errors, action.attempts) == (0, 0, 0), action.last_error
    assert action.last_error == ""
    worker = next(p for p in stack.processes if p.name != "web")
    assert "workers.trigger_action_chunk[" in worker.log()


def test_a_worker_as_the_worker_role_cancels_retries_and_replays_in_bulk(
    roles_stack, django_db_blocker, smtp_server
):
    stack, roles, queue = roles_stack
    api = Api(stack)
    with django_db_blocker.unblock():
        # Retry: runs whose email failed for good (550 at its first delivery), retried.
        mail = WorkflowFactory(key=f"{queue}.mail", definition=chain(email_node("mail")))
        rejected = [f"reject1-{unique()}@example.com" for _ in range(2)]
        broken = [fire(api, mail, {"email": a, "name": "Ri"}) for a in rejected]
        for trigger_id in broken:
            trigger = wait_terminal(trigger_id)
            assert trigger.status == TriggerStatus.FAILED and "550" in trigger.last_error
        retry = act(api, "retry", {"ids": broken})
        assert_done_by_the_worker(retry, 2, stack)
        for trigger_id, address in zip(broken, rejected, strict=True):
            assert wait_terminal(trigger_id).status == TriggerStatus.COMPLETED
            assert smtp_server.handler.deliveries[message_id(trigger_id)] == 2
            assert len(smtp_server.handler.to(address)) == 1

        # Replay: runs that completed, each run again once as a new run of its own.
        accepted = [f"ok-{unique()}@example.com" for _ in range(2)]
        originals = [fire(api, mail, {"email": a, "name": "Ed"}) for a in accepted]
        for trigger_id in originals:
            assert wait_terminal(trigger_id).status == TriggerStatus.COMPLETED
        replay = act(api, "replay", {"ids": originals})
        assert_done_by_the_worker(replay, 2, stack)
        for trigger_id, address in zip(originals, accepted, strict=True):
            again = TriggerInstance.objects.get(idempotency_key=replay_key(replay.pk, trigger_id))
            assert wait_terminal(str(again.pk)).status == TriggerStatus.COMPLETED
            assert len(smtp_server.handler.to(address)) == 2  # the original's and the replay's

        # Cancel: runs waiting for an event, stopped before their email (their waits closed by
        # the cancel's hook); the event then resumes the one left, which sends.
        order = unique("order")
        held = WorkflowFactory(key=f"{queue}.held", definition=waiting_for_an_order())
        addresses = [f"ok-{unique()}@example.com" for _ in range(3)]
        runs = [fire(api, held, {"email": a, "name": "Cy", "order_id": order}) for a in addresses]
        wait_for(
            lambda: (
                set(TriggerInstance.objects.filter(pk__in=runs).values_list("status", flat=True))
                == {TriggerStatus.WAITING}
            ),
            timeout=30,
            message="the runs waiting for their event",
        )
        stopped, other = runs[:2], runs[2]
        cancel = act(api, "cancel", {"ids": stopped})
        assert_done_by_the_worker(cancel, 2, stack)
        event = {"name": "order.paid", "id": unique("paid"), "data": {"order_id": order}}
        posted = api.post("/api/events/", event)
        assert (posted.status_code, posted.json()["resumed"]) == (201, 1), posted.text
        assert wait_terminal(other).status == TriggerStatus.COMPLETED
        assert len(smtp_server.handler.to(addresses[2])) == 1
        for trigger_id, address in zip(stopped, addresses, strict=False):
            trigger = TriggerInstance.objects.get(pk=trigger_id)
            assert trigger.status == TriggerStatus.CANCELLED
            assert not trigger.steps.filter(node_id="mail").exists()  # type: ignore[attr-defined]
            assert EventWait.objects.get(trigger_id=trigger_id).resolved_by == "cancelled"
            assert smtp_server.handler.to(address) == []

    # The processes were connected as the roles all along.
    with psycopg.connect(_owner_url(), autocommit=True) as owner:
        users = {
            row[0]
            for row in owner.execute(
                "SELECT usename FROM pg_stat_activity WHERE usename = ANY(%s)",
                [list(roles.values())],
            )
        }
    assert users == set(roles.values())
