"""The fetch node (docs/guide/fetch.md) against a loopback stand-in (tests/support/fetch.py),
stepped in-process: its answer in `vars.fetch_<id>` for later nodes and `when` edges; every class
of failure as rule 7 and the issue say (no answer, timeouts and 5xx transient, 429 put back
without an attempt up to its limit, other 4xx permanent unless `on_error: continue`, a body too
big permanent); redirects followed with each hop checked; every SSRF form refused before a byte
is sent; credentials sent as a header and shown nowhere; a change carries an Idempotency-Key of
its run and node; requests signed with the Standard Webhooks scheme when a secret is set.

Loopback is allowed explicitly (`loopback`): the address rule is the webhooks' and refuses it."""

from __future__ import annotations

import json
import socket
import time
from collections.abc import Iterator
from datetime import timedelta

import pytest
from django.core import mail
from django.utils import timezone

from events.signing import secret_generate, signature
from tests.factories import chain, email_node, sms_node
from tests.support.fetch import FetchStandIn
from tests.workers.helpers import due_trigger, node_output
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog
from workers.services.engine import step_execute
from workflows.validation import workflow_validate

pytestmark = pytest.mark.django_db

CREDENTIALS = {"shop": {"header": "X-Api-Key", "value": "s3cret-key"}, "bearer": "Bearer t0ken"}


@pytest.fixture
def stand_in() -> Iterator[FetchStandIn]:
    server = FetchStandIn()
    server.start()
    yield server
    server.stop()


@pytest.fixture
def loopback(settings):
    settings.NOTIFLOW_FETCH_ALLOW_PRIVATE = True  # the stand-in is on loopback
    settings.NOTIFLOW_FETCH_CREDENTIALS = json.dumps(CREDENTIALS)
    settings.EMAIL_BACKEND = "django.core.mail.backends.locmem.EmailBackend"


def fetch_node(url: str, node_id: str = "order", **fields) -> dict:
    return {"id": node_id, "type": "fetch", "url": url, **fields}


def step(trigger: TriggerInstance) -> TriggerInstance:
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    trigger.refresh_from_db()
    return trigger


def fetched(node: dict, payload: dict | None = None, **fields) -> TriggerInstance:
    """One step of a run whose only node is `node`."""
    return step(due_trigger(chain(node), payload or {"order_id": "o-1"}, **fields))


def log_of(trigger: TriggerInstance, node_id: str = "order") -> StepExecutionLog:
    return StepExecutionLog.objects.filter(trigger=trigger, node_id=node_id).latest("id")


# --- answers ----------------------------------------------------------------------------------


def test_a_json_answer_lands_in_vars_with_a_safe_subset_of_its_headers(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/json")))

    assert trigger.status == "completed", trigger.last_error
    answer = trigger.vars["fetch_order"]
    assert answer["status"] == 200
    assert answer["body"] == {"status": "shipped", "items": [1, 2]}
    assert answer["headers"]["content-type"] == "application/json"
    assert answer["headers"]["x-request-id"] == "r-1" and answer["headers"]["etag"] == '"v1"'
    assert "set-cookie" not in answer["headers"]
    assert abs(timezone.datetime.fromisoformat(answer["fetched_at"]) - timezone.now()) < timedelta(
        minutes=1
    )
    log = log_of(trigger)
    assert node_output(log) == answer
    decision = log.output["decision"]
    assert (decision["decision"], decision["rule"], decision["evidence"]["status"]) == (
        "passed",
        "fetch",
        200,
    )


def test_a_text_answer_is_its_text(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/text")))
    assert trigger.vars["fetch_order"]["body"] == "plain words"


def test_later_nodes_and_when_edges_read_the_answer(loopback, stand_in):
    definition = {
        "entry_node_id": "order",
        "nodes": [
            fetch_node(stand_in.url("/json")),
            email_node("mail", subject="Order {{ vars.fetch_order.body.status }}"),
            sms_node("text"),
        ],
        "edges": [
            {"from": "order", "to": "mail", "when": 'vars.fetch_order.body.status == "shipped"'},
            {"from": "order", "to": "text"},
        ],
    }
    trigger = due_trigger(
        definition, {"email": "a@example.com", "name": "Al", "phone": "+15550199"}
    )
    step(trigger)
    trigger = step(trigger)
    assert trigger.status == "completed"
    assert [m.subject for m in mail.outbox] == ["Order shipped"]


def test_the_url_headers_and_body_are_rendered_and_a_change_carries_an_idempotency_key(
    loopback, stand_in
):
    node = fetch_node(
        stand_in.url("/echo?order={{ payload.order_id }}"),
        method="POST",
        headers={"X-Order": "{{ payload.order_id }}", "Accept": "application/json"},
        body='{"order": "{{ payload.order_id }}"}',
    )
    trigger = fetched(node)

    echoed = trigger.vars["fetch_order"]["body"]
    assert echoed["method"] == "POST" and echoed["body"] == '{"order": "o-1"}'
    assert echoed["headers"]["x-order"] == "o-1"
    assert echoed["headers"]["idempotency-key"] == f"{trigger.pk}:order"
    assert echoed["headers"]["content-type"] == "application/json"
    assert stand_in.seen("/echo")[0].path == "/echo?order=o-1"


def test_a_get_carries_no_idempotency_key(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/echo")))
    assert "idempotency-key" not in trigger.vars["fetch_order"]["body"]["headers"]


# --- failures ---------------------------------------------------------------------------------


@pytest.mark.parametrize("code", [500, 502, 503, 408])
def test_5xx_and_408_are_transient_and_retried(loopback, stand_in, code):
    trigger = fetched(fetch_node(stand_in.url(f"/status/{code}")))
    assert (trigger.status, trigger.attempts, trigger.current_node_id) == ("enqueued", 1, "order")
    assert f"answered {code}" in trigger.last_error
    assert log_of(trigger).output["decision"]["decision"] == "retrying"


@pytest.mark.parametrize("code", [400, 401, 403, 404, 410, 422])
def test_other_4xx_are_permanent(loopback, stand_in, code):
    trigger = fetched(fetch_node(stand_in.url(f"/status/{code}")))
    assert trigger.status == "failed" and f"answered {code}" in trigger.last_error


def test_on_error_continue_records_a_permanent_failure_in_vars_and_goes_on(loopback, stand_in):
    definition = chain(
        fetch_node(stand_in.url("/status/404"), on_error="continue"),
        email_node("mail", subject="{{ vars.fetch_order.status }}", to="a@example.com"),
    )
    trigger = step(due_trigger(definition, {"name": "Al"}))

    assert trigger.current_node_id == "mail" and trigger.last_error == ""
    failed = trigger.vars["fetch_order"]
    assert failed["status"] == 404 and "answered 404" in failed["error"]
    decision = log_of(trigger).output["decision"]
    assert decision["decision"] == "passed" and "on_error: continue" in decision["reason"]
    assert step(trigger).status == "completed" and mail.outbox[0].subject == "404"


def test_on_error_continue_retries_a_transient_failure_until_the_last_attempt(
    loopback, stand_in, settings
):
    node = fetch_node(stand_in.url("/status/503"), on_error="continue")
    first = fetched(node)
    assert first.status == "enqueued" and first.attempts == 1  # retried, not given up
    last = fetched(node, attempts=settings.NOTIFLOW_MAX_RETRIES)
    assert last.status == "completed" and last.vars["fetch_order"]["status"] == 503


def test_no_answer_within_the_deadline_is_transient_and_the_deadline_holds(loopback, stand_in):
    for path in ("/hang", "/drip"):
        started = time.monotonic()
        trigger = fetched(fetch_node(stand_in.url(path), timeout="1s"))
        assert time.monotonic() - started < 4, path
        assert trigger.status == "enqueued" and trigger.attempts == 1
        assert "no answer" in trigger.last_error


def test_a_refused_connection_is_transient(loopback, stand_in):
    with socket.socket() as bound:  # a port taken and let go: nothing listens there
        bound.bind(("127.0.0.1", 0))
        port = bound.getsockname()[1]
    trigger = fetched(fetch_node(f"http://127.0.0.1:{port}/json"))
    assert trigger.status == "enqueued" and "no answer" in trigger.last_error


def test_an_answer_over_the_size_cap_is_permanent(loopback, stand_in, settings):
    settings.NOTIFLOW_FETCH_MAX_BYTES = 1000
    assert fetched(fetch_node(stand_in.url("/big/1000"))).status == "completed"
    trigger = fetched(fetch_node(stand_in.url("/big/1001")))
    assert trigger.status == "failed" and "NOTIFLOW_FETCH_MAX_BYTES" in trigger.last_error


def test_a_429_puts_the_step_back_for_its_retry_after_without_an_attempt(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/retry-after/120")))

    assert (trigger.status, trigger.attempts, trigger.last_error) == ("enqueued", 0, "")
    assert trigger.vars["fetch_order"] == {"rate_limited_seconds": 120.0}
    wait = (trigger.available_at - timezone.now()).total_seconds()
    assert 100 < wait <= 121
    assert not StepExecutionLog.objects.filter(trigger=trigger).exists()  # not an attempt


def test_429s_past_the_rate_limit_wait_count_as_a_transient_failure(loopback, stand_in, settings):
    settings.NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT = 150
    trigger = fetched(fetch_node(stand_in.url("/retry-after/100")))
    assert trigger.attempts == 0
    TriggerInstance.objects.filter(pk=trigger.pk).update(
        available_at=timezone.now() - timedelta(seconds=1)
    )
    trigger = step(trigger)  # 100 s waited, another 100 would pass 150
    assert trigger.attempts == 1 and "NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT" in trigger.last_error


def test_a_429_without_retry_after_waits_the_default(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/retry-after/-")))
    assert trigger.vars["fetch_order"] == {"rate_limited_seconds": 30.0}


# --- redirects --------------------------------------------------------------------------------


def test_redirects_are_followed_up_to_five(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/redirect/5")))
    assert trigger.status == "completed" and trigger.vars["fetch_order"]["body"]["method"] == "GET"
    trigger = fetched(fetch_node(stand_in.url("/redirect/6")))
    assert trigger.status == "failed" and "more than 5 redirects" in trigger.last_error


def test_a_303_turns_a_post_into_a_get_and_a_307_keeps_it(loopback, stand_in):
    see_other = fetched(fetch_node(stand_in.url("/see-other"), method="POST", body="{}"))
    assert see_other.vars["fetch_order"]["body"]["method"] == "GET"
    assert see_other.vars["fetch_order"]["body"]["body"] == ""
    temporary = fetched(fetch_node(stand_in.url("/temporary"), method="POST", body="{}"))
    assert temporary.vars["fetch_order"]["body"]["method"] == "POST"
    assert temporary.vars["fetch_order"]["body"]["body"] == "{}"


def test_each_redirect_hop_is_checked_against_the_address_rule(stand_in, settings, monkeypatch):
    # The stand-in's own address counts as public here; where it redirects to does not.
    settings.NOTIFLOW_FETCH_ALLOW_PRIVATE = False
    monkeypatch.setattr("events.addresses.is_public", lambda address: address == "127.0.0.1")
    inward = f"http://127.0.0.2:{stand_in.port}/json"
    trigger = fetched(fetch_node(stand_in.url(f"/to?url={inward}")))

    assert trigger.status == "failed" and "address refused" in trigger.last_error
    assert [r.path.split("?")[0] for r in stand_in.seen()] == ["/to"]


# --- SSRF -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "localhost",
        "[::1]",
        "[::ffff:127.0.0.1]",
        "10.0.0.1",
        "192.168.1.1",
        "169.254.169.254",
        "0.0.0.0",  # noqa: S104 (the address refused, not one bound)
        "[fd00::1]",
        "[64:ff9b::7f00:1]",
        "2130706433",  # 127.0.0.1 as one number
    ],
)
def test_every_non_public_address_is_refused_before_anything_is_sent(stand_in, settings, host):
    settings.NOTIFLOW_FETCH_ALLOW_PRIVATE = False
    trigger = fetched(fetch_node(f"http://{host}:{stand_in.port}/json"))
    assert trigger.status == "failed", trigger.last_error
    assert "address refused" in trigger.last_error
    assert host.strip("[]") not in trigger.last_error  # a fixed phrase: nothing about the host
    assert stand_in.seen() == []


def test_a_url_that_renders_to_another_scheme_is_refused(loopback, stand_in):
    trigger = fetched(fetch_node("{{ payload.url }}"), {"url": "file:///etc/passwd"})
    assert trigger.status == "failed" and "address refused" in trigger.last_error


# --- credentials and signatures ---------------------------------------------------------------


def test_a_credential_is_sent_as_its_header_and_shown_nowhere(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/echo"), credential="shop"))

    assert stand_in.seen("/echo")[0].headers["X-Api-Key"] == "s3cret-key"
    assert "s3cret" not in json.dumps(trigger.vars["fetch_order"]["headers"])
    log = log_of(trigger)
    stored = json.dumps([log.input, log.output, trigger.vars, trigger.payload, log.error])
    assert "s3cret" not in stored.replace(json.dumps(trigger.vars["fetch_order"]["body"]), "")
    bare = fetched(fetch_node(stand_in.url("/status/401"), credential="bearer"))
    assert stand_in.seen("/status/401")[0].headers["Authorization"] == "Bearer t0ken"
    assert "t0ken" not in bare.last_error


def test_a_credential_does_not_follow_a_redirect_to_another_origin(loopback, stand_in):
    elsewhere = stand_in.url("/echo", host="localhost")
    trigger = fetched(fetch_node(stand_in.url(f"/to?url={elsewhere}"), credential="shop"))
    assert trigger.status == "completed", trigger.last_error
    assert "x-api-key" not in trigger.vars["fetch_order"]["body"]["headers"]
    assert stand_in.seen("/to")[0].headers["X-Api-Key"] == "s3cret-key"


def test_an_unknown_credential_fails_naming_it(loopback, stand_in):
    trigger = fetched(fetch_node(stand_in.url("/json"), credential="nope"))
    assert trigger.status == "failed" and "credential 'nope'" in trigger.last_error
    assert stand_in.seen() == []


def test_requests_are_signed_with_the_standard_webhooks_scheme(loopback, stand_in, settings):
    settings.NOTIFLOW_FETCH_SIGNING_SECRET = secret = secret_generate()
    trigger = fetched(fetch_node(stand_in.url("/echo"), method="POST", body='{"a": 1}'))
    (seen,) = stand_in.seen("/echo")
    expected = signature(
        secret,
        message_id=seen.headers["webhook-id"],
        timestamp=int(seen.headers["webhook-timestamp"]),
        body=seen.body,
    )
    assert seen.headers["webhook-signature"] == expected
    assert seen.headers["webhook-id"] == f"{trigger.pk}:order"


# --- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("fields", "where", "says"),
    [
        ({"url": "ftp://shop.example.com/x"}, "url", "http or https"),
        ({"url": "https://user:pw@shop.example.com/"}, "url", "user name or password"),
        ({"method": "TRACE"}, "method", "must be one of"),
        ({"body": "{}"}, "body", "a GET sends no body"),
        ({"headers": {"Authorization": "Bearer x"}}, "headers", "credential"),
        ({"headers": {"Host": "x"}}, "headers", "set by Notiflow"),
        ({"headers": {"X-A": "{{ oops"}}, "headers", "X-A"),
        ({"headers": {"bad name": "x"}}, "headers", "not a header name"),
        ({"credential": "no spaces"}, "credential", "a credential's name"),
        ({"timeout": "10m"}, "timeout", "NOTIFLOW_FETCH_TIMEOUT_SECONDS"),
        ({"timeout": "soon"}, "timeout", "soon"),
        ({"on_error": "ignore"}, "on_error", "must be one of"),
        ({"retries": 3}, "retries", "is not a field of fetch nodes"),
    ],
)
def test_a_bad_field_is_refused_naming_it(fields, where, says):
    node = {"id": "order", "type": "fetch", "url": "https://shop.example.com/x", **fields}
    errors = [(e.field, e.message) for e in workflow_validate(chain(node))]
    assert any(f == f"nodes[0].{where}" and says in m for f, m in errors), errors


def test_a_good_node_is_valid():
    node = fetch_node(
        "https://shop.example.com/api/orders/{{ payload.order_id }}",
        method="POST",
        headers={"Accept": "application/json"},
        body="{}",
        credential="shop",
        timeout="5s",
        on_error="continue",
    )
    assert workflow_validate(chain(node)) == []
