"""Bulk actions in the admin (docs/bulk-actions.md): the run list's cancel, retry and replay
actions answer with a confirmation page stating the dry run's count, whose POST starts one bulk
action (one per page, however often it is submitted) and goes to its page, which shows who asked,
the filter and the outcome. With real workers: test_actions_e2e.py's paths are the API's; the
action the admin starts is the same service's."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.test import Client, override_settings

from tests.factories import WorkflowFactory, chain, delay_node
from tests.triggers.support import failed, new_trigger
from triggers.models import TriggerAction, TriggerInstance

pytestmark = pytest.mark.django_db
LIST = "/admin/triggers/triggerinstance/"


def choose(client: Client, action: str, runs: list[TriggerInstance], **extra: Any) -> Any:
    return client.post(
        LIST, {"action": action, "_selected_action": [run.pk for run in runs], **extra}
    )


@pytest.fixture
def runs():
    workflow = WorkflowFactory(definition=chain(delay_node("wait", delay_ms=3_600_000)))
    return [new_trigger(workflow), new_trigger(workflow), failed(new_trigger(workflow))]


def test_the_confirmation_page_states_the_dry_runs_count_and_changes_nothing(admin_client, runs):
    page = choose(admin_client, "bulk_cancel", runs)

    assert page.status_code == 200
    text = page.content.decode()
    count = re.search(r'<p id="bulk-action-count">(.*?)</p>', text, re.S)
    assert count and "<strong>2</strong> of the 3" in count.group(1)
    assert "Yes, cancel 2 run(s)" in text
    assert not TriggerAction.objects.exists()
    assert {TriggerInstance.objects.get(pk=r.pk).status for r in runs[:2]} == {"enqueued"}


def test_confirming_starts_one_action_and_shows_it(admin_client, runs):
    page = choose(admin_client, "bulk_retry", runs).content.decode()
    key = re.search(r'name="idempotency_key" value="([^"]+)"', page)
    assert key

    for _ in range(2):  # a double submit
        answer = choose(admin_client, "bulk_retry", runs, post="yes", idempotency_key=key.group(1))
        assert answer.status_code == 302

    action = TriggerAction.objects.get()
    assert answer["Location"] == f"/admin/triggers/triggeraction/{action.pk}/change/"
    assert (action.action, action.matched, action.requested_by) == ("retry", 1, "admin:operator")
    assert action.filter == {"ids": sorted(str(r.pk) for r in runs)}
    shown = admin_client.get(answer["Location"]).content.decode()
    assert "1 matched: 0 done, 0 skipped, 0 error(s)" in shown
    assert str(runs[0].pk) in shown  # the filter


@override_settings(NOTIFLOW_ACTION_MAX=1)
def test_more_than_the_maximum_is_refused_with_the_count(admin_client, runs):
    answer = choose(admin_client, "bulk_replay", runs)
    assert answer.status_code == 302
    shown = admin_client.get(answer["Location"]).content.decode()
    assert "3 runs match" in shown
    assert not TriggerAction.objects.exists()


def test_an_operator_without_the_change_permission_is_not_offered_them(runs):
    from django.contrib.auth.models import Permission, User

    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_triggerinstance"))
    client = Client()
    client.force_login(viewer)
    assert "bulk_cancel" not in client.get(LIST).content.decode()
    assert "bulk_cancel" in _logged_in_superuser().get(LIST).content.decode()


def _logged_in_superuser() -> Client:
    from django.contrib.auth.models import User

    client = Client()
    client.force_login(User.objects.create_superuser("root", "r@example.com", "pw"))
    return client
