"""Runs in the admin: list, trigger page with its timeline, actions, send test, read-only logs."""

from __future__ import annotations

import json
import re
from datetime import timedelta
from html import unescape

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client
from django.utils import timezone
from django.utils.html import escape

from tests.factories import WorkflowFactory
from tests.triggers.support import claimed, failed, new_trigger, released
from triggers.models import TriggerEvent, TriggerInstance
from workers.models import SendLedger, StepExecutionLog

pytestmark = pytest.mark.django_db
LIST = "/admin/triggers/triggerinstance/"


def step_log(trigger: TriggerInstance, *, success: bool, error: str = "") -> StepExecutionLog:
    started = timezone.now()
    return StepExecutionLog.objects.create(
        trigger=trigger,
        workflow_id=trigger.workflow_id,
        node_id=trigger.current_node_id,
        node_type="email",
        attempt=1,
        started_at=started,
        finished_at=started + timedelta(milliseconds=42),
        input={"payload": trigger.payload},
        output={"message_id": "<m@x>"} if success else None,
        success=success,
        error=error,
    )


def test_list_filters_by_status_and_finds_an_exact_key_or_id(admin_client):
    done = failed(new_trigger())
    waiting = new_trigger()

    page = admin_client.get(LIST, {"status__exact": "failed"})
    shown = {t.pk for t in page.context["cl"].result_list}
    assert done.pk in shown and waiting.pk not in shown
    assert "SMTP 550 mailbox unavailable" in page.content.decode()

    TriggerInstance.objects.filter(pk=waiting.pk).update(cancellation_key="order-77")
    for term in (waiting.idempotency_key, str(waiting.pk), "order-77"):
        found = admin_client.get(LIST, {"q": term}).context["cl"].result_list
        assert [t.pk for t in found] == [waiting.pk]
    assert admin_client.get(LIST, {"q": "not-a-uuid"}).status_code == 200


def test_trigger_page_shows_payload_vars_and_one_ordered_timeline(admin_client):
    trigger = claimed(new_trigger(name="Zoë"), lease_seconds=60)
    step_log(trigger, success=False, error="SMTP 451 try later")

    page = admin_client.get(f"{LIST}{trigger.pk}/change/")
    assert page.status_code == 200
    kinds = [
        (row["kind"], getattr(row["item"], "to_status", None)) for row in page.context["timeline"]
    ]
    assert kinds == [("event", "enqueued"), ("event", "processing"), ("step", None)]
    html = page.content.decode()
    assert "Zoë" in html and "SMTP 451 try later" in html and "42 ms" in html
    assert 'name="_save"' not in html  # nothing to edit


def json_blocks(html: str) -> list[tuple[bool, str]]:
    """Every json_block on a page: (shown open, the JSON text)."""
    found = re.findall(
        r'<details class="json-block"( open)?><summary>[^<]*</summary><pre>(.*?)</pre>',
        html,
        re.DOTALL,
    )
    return [(bool(is_open), unescape(text)) for is_open, text in found]


def test_trigger_page_shows_payload_vars_and_step_json_indented(admin_client):
    trigger = claimed(new_trigger(), lease_seconds=60)
    step_log(trigger, success=True)
    html = admin_client.get(f"{LIST}{trigger.pk}/change/").content.decode()

    payload = TriggerInstance.objects.get(pk=trigger.pk).payload  # keys in the stored order
    assert json_blocks(html) == [
        (True, json.dumps(payload, indent=2)),
        (True, "{}"),  # vars: none yet
        (True, json.dumps({"message_id": "<m@x>"}, indent=2)),  # the step's output
        (True, json.dumps({"payload": payload}, indent=2)),  # and its input
    ]


def test_trigger_page_wraps_a_long_message_id_in_vars_instead_of_cutting_it(admin_client):
    trigger = claimed(new_trigger(), lease_seconds=60)
    long_id = "<" + "x" * 120 + "@notiflow.local>"
    released(trigger, vars_patch={"email_hello": {"message_id": long_id}})
    html = admin_client.get(f"{LIST}{trigger.pk}/change/").content.decode()

    vars_html = html[html.index('id="run-vars"') :]
    assert json_blocks(vars_html)[0] == (
        True,
        json.dumps({"email_hello": {"message_id": long_id}}, indent=2),
    )


def test_step_log_page_shows_input_and_output_json_indented(admin_client):
    trigger = new_trigger(name="Ann")
    log = step_log(trigger, success=True)
    html = admin_client.get(f"/admin/workers/stepexecutionlog/{log.pk}/change/").content.decode()

    assert json_blocks(html) == [
        (True, json.dumps({"message_id": "<m@x>"}, indent=2)),
        (True, json.dumps({"payload": trigger.payload}, indent=2, ensure_ascii=False)),
    ]
    assert f'href="{LIST}{trigger.pk}/change/"' in html  # its run, one click away


def test_send_ledger_page_shows_the_provider_answer_indented(admin_client):
    trigger = new_trigger()
    answer = {"provider": "twilio", "sid": "SM" + "0" * 32, "status": "queued"}
    ledger = SendLedger.objects.create(
        trigger=trigger,
        node_id="n",
        idempotency_key=f"{trigger.pk}:n",
        channel="sms",
        status="sent",
        result=answer,
    )
    html = admin_client.get(f"/admin/workers/sendledger/{ledger.pk}/change/").content.decode()

    stored = SendLedger.objects.get(pk=ledger.pk).result  # jsonb's own key order
    assert stored == answer
    assert json_blocks(html) == [(True, json.dumps(stored, indent=2))]


def enqueued_later(*, attempts: int, seconds: float, error: str = "") -> TriggerInstance:
    """A run released back to `enqueued`, due in `seconds`: a delay (attempts 0) or a retry."""
    trigger = claimed(new_trigger(), lease_seconds=60)
    return released(trigger, attempts=attempts, due_in=timedelta(seconds=seconds), error=error)


def list_row(client: Client, trigger: TriggerInstance) -> str:
    html = client.get(LIST, {"q": str(trigger.pk)}).content.decode()
    start = html.index("<tbody>", html.index('id="result_list"'))
    return html[start : html.index("</tbody>", start)]


def test_a_run_in_a_delay_shows_waiting_until_its_time_in_the_list_and_on_its_page(admin_client):
    trigger = enqueued_later(attempts=0, seconds=15 * 60)
    due = timezone.localtime(trigger.available_at).strftime("%Y-%m-%d %H:%M:%S")
    day, time = due.split()

    assert (
        f'<span class="nf-nowrap">waiting until</span> <span class="nf-nowrap">{day}</span> <span class="nf-nowrap">{time}</span>'
        in list_row(admin_client, trigger)
    )
    page = admin_client.get(f"{LIST}{trigger.pk}/change/").content.decode()
    assert f'<span id="run-waiting">waiting until {due}</span>' in page
    assert f'<td id="run-next-attempt">{due}</td>' in page


def test_a_run_waiting_to_retry_shows_which_retry_and_when(admin_client):
    trigger = enqueued_later(attempts=2, seconds=95, error="SMTP 451 try later")
    due = timezone.localtime(trigger.available_at).strftime("%Y-%m-%d %H:%M:%S")
    day, time = due.split()

    assert (
        f'<span class="nf-nowrap">retry 2 at</span> <span class="nf-nowrap">{day}</span> <span class="nf-nowrap">{time}</span>'
        in list_row(admin_client, trigger)
    )
    page = admin_client.get(f"{LIST}{trigger.pk}/change/").content.decode()
    assert f'<span id="run-waiting">retry 2 at {due}</span>' in page


def test_waiting_text_says_due_once_the_time_has_come_and_nothing_when_not_enqueued():
    from triggers.admin.runs import run_waiting

    trigger = enqueued_later(attempts=0, seconds=60)
    due = timezone.localtime(trigger.available_at).strftime("%Y-%m-%d %H:%M:%S")
    later = trigger.available_at + timedelta(seconds=1)

    assert str(run_waiting(trigger, now=later)) == f"due since {due}"
    assert run_waiting(failed(new_trigger())) is None
    assert run_waiting(claimed(new_trigger(), lease_seconds=60)) is None


LONG_ERROR = "SMTPRecipientsRefused: " + "550 5.1.1 <a&b@example.com> mailbox unavailable; " * 8


def test_trigger_list_is_five_columns_with_long_errors_cut_and_whole_in_a_tooltip(admin_client):
    trigger = failed(new_trigger(), error=LONG_ERROR)
    page = admin_client.get(LIST, {"q": str(trigger.pk)})

    columns = list(page.context["cl"].list_display)
    assert columns == [
        "action_checkbox",
        "short_id",
        "workflow_node",
        "status_badge",
        "error_excerpt",
        "created",
    ]
    row = list_row(admin_client, trigger)
    (error_cell,) = re.findall(r'<td class="field-error_excerpt">(.*?)</td>', row, re.S)
    assert error_cell == (
        f'<span class="nf-cut nf-fill" title="{escape(LONG_ERROR)}">{escape(LONG_ERROR)}</span>'
    )
    assert f'<span class="nf-id" title="{trigger.pk}">{str(trigger.pk)[:8]}</span>' in row
    assert f'title="at {trigger.current_node_id}"' in row  # the node, under the workflow


def test_step_log_list_is_five_columns_newest_first_with_long_errors_cut(admin_client):
    trigger = new_trigger()
    older = step_log(trigger, success=True)
    newer = StepExecutionLog.objects.create(
        trigger=trigger,
        workflow_id=trigger.workflow_id,
        node_id="sms",
        node_type="sms",
        attempt=1,
        started_at=older.started_at + timedelta(seconds=1),
        finished_at=older.started_at + timedelta(seconds=2),
        input={},
        output=None,
        success=False,
        error=LONG_ERROR,
    )
    page = admin_client.get("/admin/workers/stepexecutionlog/")

    assert list(page.context["cl"].list_display) == [
        "started",
        "run_short",
        "step",
        "result",
        "error_excerpt",
    ]
    assert [log.pk for log in page.context["cl"].result_list][:2] == [newer.pk, older.pk]
    html = page.content.decode()
    assert f'<span class="nf-cut nf-fill" title="{escape(LONG_ERROR)}">' in html
    assert f'href="{LIST}{trigger.pk}/change/"><span class="nf-id"' in html  # to the run
    assert "✗ failed" in html and "1000 ms" in html


def test_retry_now_puts_a_failed_trigger_back_with_attempts_reset(
    admin_client, django_capture_on_commit_callbacks
):
    trigger = failed(new_trigger())
    with django_capture_on_commit_callbacks() as nudges:
        response = admin_client.post(f"{LIST}{trigger.pk}/retry/")

    assert response.status_code == 302
    trigger.refresh_from_db()
    assert (trigger.status, trigger.attempts, trigger.last_error) == ("enqueued", 0, "")
    assert trigger.events.order_by("id").reverse()[0].actor == "admin:operator"
    assert len(nudges) == 1


def test_after_retry_the_banner_says_it_runs_shortly_and_the_page_follows_the_run(admin_client):
    """A worker may take the run (and fail it again) before the page loads: the banner must
    not claim a status the page contradicts ("Trigger is now enqueued." beside `failed`)."""
    trigger = failed(new_trigger())
    response = admin_client.post(f"{LIST}{trigger.pk}/retry/")

    assert response.status_code == 302
    assert response["Location"] == f"{LIST}{trigger.pk}/change/?watch=1"
    page = admin_client.get(response["Location"])
    texts = [str(m) for m in page.context["messages"]]
    assert texts == ["Back in the queue: a worker runs it shortly; this page follows it."]
    assert '<meta http-equiv="refresh" content="2">' in page.content.decode()


def test_cancel_says_the_new_status_and_stays_on_the_page(admin_client):
    trigger = new_trigger()
    response = admin_client.post(f"{LIST}{trigger.pk}/cancel/", follow=True)

    assert [str(m) for m in response.context["messages"]] == ["Trigger is now cancelled."]
    assert response.redirect_chain[-1][0] == f"{LIST}{trigger.pk}/change/"


def test_trigger_events_show_reason_and_actor_whole(admin_client):
    from triggers.state import trigger_cancel

    actor = "worker-host-with-a-long-name.internal:12345/8f3a2c1e-token"
    trigger_cancel(trigger_id=new_trigger().pk, actor=actor, reason="cancelled by the client")
    html = admin_client.get("/admin/triggers/triggerevent/").content.decode()

    reasons = re.findall(r'<td class="field-reason_cut">(.*?)</td>', html, re.S)
    actors = re.findall(r'<td class="field-actor_cut">(.*?)</td>', html, re.S)
    assert '<span class="nf-wrap">cancelled by the client</span>' in reasons
    assert f'<span class="nf-wrap">{actor}</span>' in actors  # not cut at 12em
    assert "nf-cut" not in "".join(reasons + actors)


def test_the_ledger_list_shows_the_node_id_part_of_the_key(admin_client):
    trigger = new_trigger()
    key = f"{trigger.pk}:welcome_email_for_new_customers"
    SendLedger.objects.create(
        trigger=trigger,
        node_id="welcome_email_for_new_customers",
        idempotency_key=key,
        channel="email",
        status="sent",
    )
    html = admin_client.get("/admin/workers/sendledger/").content.decode()

    (cell,) = re.findall(r'<t[hd] class="field-key">(.*?)</t[hd]>', html, re.S)
    shown = f"{str(trigger.pk)[:8]}…:welcome_email_for_new_customers"
    assert f'<span class="nf-id nf-wrap" title="{key}">{shown}</span>' in cell
    assert '<span class="nf-detail">email</span>' in cell  # the channel under it


def test_cancel_action_cancels_the_selected_and_skips_the_finished(admin_client):
    running, finished = new_trigger(), failed(new_trigger())
    response = admin_client.post(
        LIST,
        {"action": "cancel_selected", "_selected_action": [running.pk, finished.pk], "index": 0},
        follow=True,
    )

    running.refresh_from_db()
    finished.refresh_from_db()
    assert (running.status, finished.status) == ("cancelled", "failed")
    texts = [str(m) for m in response.context["messages"]]
    assert "1 trigger(s) cancelled." in texts
    assert any("1 skipped" in t and "already failed" in t for t in texts)


def test_requeue_button_moves_a_trigger_whose_lease_expired(admin_client):
    trigger = claimed(new_trigger(), lease_seconds=-1)
    assert admin_client.get(f"{LIST}{trigger.pk}/change/").context["can_requeue"]

    admin_client.post(f"{LIST}{trigger.pk}/requeue/")
    trigger.refresh_from_db()
    assert trigger.status == "enqueued" and trigger.leased_by == ""


def test_actions_need_the_change_permission(admin_client):
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_triggerinstance"))
    client = Client()
    client.force_login(viewer)
    trigger = failed(new_trigger())

    assert client.get(f"{LIST}{trigger.pk}/change/").status_code == 200
    assert client.post(f"{LIST}{trigger.pk}/retry/").status_code == 403
    trigger.refresh_from_db()
    assert trigger.status == "failed"


def test_send_test_triggers_the_workflow_with_a_generated_key_and_shows_the_run(admin_client):
    workflow = WorkflowFactory()
    payload = {"email": "ok-admin@example.com", "name": "Ann", "phone": "+1555"}
    response = admin_client.post(
        f"{LIST}send-test/{workflow.pk}/", {"payload": json.dumps(payload)}
    )

    trigger = TriggerInstance.objects.get(workflow=workflow)
    assert trigger.idempotency_key.startswith("admin-test-")
    assert trigger.payload == payload
    assert response.status_code == 302
    assert response["Location"] == f"{LIST}{trigger.pk}/change/?watch=1"
    assert trigger.events.get().actor == "admin:operator"


def test_send_test_with_a_payload_that_is_not_an_object_sends_nothing(admin_client):
    workflow = WorkflowFactory()
    admin_client.post(f"{LIST}send-test/{workflow.pk}/", {"payload": "[1, 2]"})

    assert not TriggerInstance.objects.filter(workflow=workflow).exists()


@pytest.mark.parametrize(
    "url",
    [
        "/admin/workers/stepexecutionlog/",
        "/admin/triggers/triggerevent/",
        "/admin/workers/sendledger/",
    ],
)
def test_logs_and_events_are_read_only_everywhere(admin_client, url):
    trigger = new_trigger()
    log = step_log(trigger, success=True)
    ledger = SendLedger.objects.create(
        trigger=trigger,
        node_id="n",
        idempotency_key=f"{trigger.pk}:n",
        channel="email",
        status="sent",
    )
    row = {
        "/admin/workers/stepexecutionlog/": log.pk,
        "/admin/triggers/triggerevent/": TriggerEvent.objects.filter(trigger=trigger)[0].pk,
        "/admin/workers/sendledger/": ledger.pk,
    }[url]

    assert admin_client.get(f"{url}add/").status_code == 403
    assert admin_client.post(f"{url}{row}/change/", {}).status_code == 403
    assert admin_client.post(f"{url}{row}/delete/", {"post": "yes"}).status_code == 403
    page = admin_client.get(f"{url}{row}/change/").content.decode()
    assert 'name="_save"' not in page


def test_the_workflow_page_names_the_whole_worker_command_for_a_queue_nobody_serves(
    admin_client,
):
    workflow = WorkflowFactory(queue="reports")
    page = admin_client.get(f"/admin/workflows/workflow/{workflow.pk}/change/").content.decode()

    assert "nobody serves it" in page
    assert "<code>celery -A notiflow worker -Q reports -n reports@%h</code>" in page


def test_the_run_page_names_its_recipient_with_a_link_to_their_page(admin_client):
    # Issue 44: the recipient was only inside `vars`.
    from recipients.models import Recipient

    ada = Recipient.objects.create(key="ada-run-page", email="ada@example.com")
    for recipient, shown in (
        (ada.key, f'href="/admin/recipients/recipient/{ada.key}/change/">{ada.key}</a>'),
        ("erased-person", '<code>erased-person</code> <span class="help">(no profile'),
        ("", "— (none: sends go to the addresses the nodes render)"),
    ):
        trigger = new_trigger()
        TriggerInstance.objects.filter(pk=trigger.pk).update(recipient=recipient)
        html = admin_client.get(f"{LIST}{trigger.pk}/change/").content.decode()
        row = html.split('id="run-recipient">', 1)[1].split("</td>", 1)[0]
        assert shown in row, row
