"""Soft delete in the admin: the bulk action with its confirmation page (reason, CSRF), the
"deleted" list filter (default: not deleted), the trigger page. End to end, with a worker, in
tests/workers/test_soft_delete_e2e.py."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import Permission, User
from django.test import Client

from tests.triggers.support import failed, new_trigger
from triggers.models import TriggerInstance
from triggers.state import MAX_DELETE_REASON_LENGTH, trigger_delete

pytestmark = pytest.mark.django_db
LIST = "/admin/triggers/triggerinstance/"


def ask(client: Client, *triggers: TriggerInstance, query: str = ""):
    """The action chosen in the list: answers with the confirmation page."""
    return client.post(
        LIST + query,
        {"action": "soft_delete_selected", "_selected_action": [t.pk for t in triggers]},
    )


def confirm(client: Client, *triggers: TriggerInstance, reason: str = "", query: str = ""):
    return client.post(
        LIST + query,
        {
            "action": "soft_delete_selected",
            "_selected_action": [t.pk for t in triggers],
            "post": "yes",
            "reason": reason,
        },
        follow=True,
    )


def test_the_action_first_asks_for_a_reason_and_deletes_nothing(admin_client):
    one, two = new_trigger(), new_trigger()

    page = ask(admin_client, one, two)

    assert page.status_code == 200
    html = page.content.decode()
    assert "Soft delete these runs?" in html and 'name="reason"' in html
    assert str(one.pk) in html and str(two.pk) in html
    assert 'name="csrfmiddlewaretoken"' in html and 'name="post" value="yes"' in html
    assert not TriggerInstance.objects.filter(pk__in=[one.pk, two.pk], deleted_at__isnull=False)


def test_confirming_soft_deletes_the_selected_with_the_reason_and_the_operator(admin_client):
    one, two, other = new_trigger(), failed(new_trigger()), new_trigger()

    response = confirm(admin_client, one, two, reason="wrong audience")

    assert response.status_code == 200
    for trigger in (one, two):
        stored = TriggerInstance.objects.get(pk=trigger.pk)
        assert stored.deleted_at is not None and stored.delete_reason == "wrong audience"
        assert stored.status == trigger.status
        event = stored.events.order_by("-id")[0]
        assert (event.reason, event.actor) == ("deleted: wrong audience", "admin:operator")
    assert TriggerInstance.objects.get(pk=other.pk).deleted_at is None
    assert "2 trigger(s) soft-deleted." in [str(m) for m in response.context["messages"]]


def test_already_deleted_runs_are_left_as_they_were(admin_client):
    gone = trigger_delete(trigger_id=new_trigger().pk, actor="ops", reason="first")
    live = new_trigger()

    response = confirm(admin_client, gone, live, reason="second", query="?deleted=all")

    assert TriggerInstance.objects.get(pk=gone.pk).delete_reason == "first"
    assert TriggerInstance.objects.get(pk=live.pk).delete_reason == "second"
    texts = [str(m) for m in response.context["messages"]]
    assert (
        "1 trigger(s) soft-deleted." in texts and "1 already deleted: left as they were." in texts
    )


def test_an_overlong_reason_shows_the_page_again_with_the_error(admin_client):
    trigger = new_trigger()

    response = confirm(admin_client, trigger, reason="x" * (MAX_DELETE_REASON_LENGTH + 1))

    assert "Soft delete these runs?" in response.content.decode()
    assert response.context["form"].errors["reason"]
    assert TriggerInstance.objects.get(pk=trigger.pk).deleted_at is None


def test_the_confirmation_is_csrf_protected():
    client = Client(enforce_csrf_checks=True)
    client.force_login(User.objects.create_superuser("csrf", "c@example.com", "pw"))
    trigger = new_trigger()

    response = confirm(client, trigger, reason="no token")

    assert response.status_code == 403
    assert TriggerInstance.objects.get(pk=trigger.pk).deleted_at is None


def test_soft_delete_needs_the_change_permission_and_hard_delete_is_never_offered(admin_client):
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_triggerinstance"))
    client = Client()
    client.force_login(viewer)
    trigger = new_trigger()

    operator_actions = dict(admin_client.get(LIST).context["action_form"].fields["action"].choices)
    viewer_page = client.get(LIST)

    assert "soft_delete_selected" in operator_actions
    assert "delete_selected" not in operator_actions
    assert viewer_page.context["action_form"] is None or "soft_delete_selected" not in dict(
        viewer_page.context["action_form"].fields["action"].choices
    )
    confirm(client, trigger, reason="viewer")
    assert TriggerInstance.objects.get(pk=trigger.pk).deleted_at is None


def shown(client: Client, query: str = "") -> set:
    return {t.pk for t in client.get(LIST + query).context["cl"].result_list}


def test_the_list_shows_runs_not_deleted_unless_the_filter_says_otherwise(admin_client):
    live = new_trigger()
    gone = trigger_delete(trigger_id=new_trigger().pk, actor="ops")

    assert live.pk in shown(admin_client) and gone.pk not in shown(admin_client)
    assert live.pk in shown(admin_client, "?deleted=no")
    assert gone.pk not in shown(admin_client, "?deleted=no")
    assert shown(admin_client, "?deleted=yes") == {gone.pk}
    assert {live.pk, gone.pk} <= shown(admin_client, "?deleted=all")
    html = admin_client.get(LIST + "?deleted=all").content.decode()
    assert html.count('class="nf-deleted"') == 1


def test_the_filter_offers_not_deleted_as_the_selected_default(admin_client):
    page = admin_client.get(LIST)
    (spec,) = [f for f in page.context["cl"].filter_specs if f.title == "deleted"]
    choices = list(spec.choices(page.context["cl"]))
    assert [(c["display"], c["selected"]) for c in choices] == [
        ("Not deleted", True),
        ("Deleted", False),
        ("All", False),
    ]


def test_the_trigger_page_shows_when_and_why_it_was_deleted_and_offers_no_retry(admin_client):
    trigger = failed(new_trigger())
    before = admin_client.get(f"{LIST}{trigger.pk}/change/")
    assert before.context["can_retry"]
    trigger_delete(trigger_id=trigger.pk, actor="ops", reason="customer asked")

    page = admin_client.get(f"{LIST}{trigger.pk}/change/")

    html = page.content.decode()
    assert page.status_code == 200 and not page.context["can_retry"]
    assert '<td id="run-deleted">' in html and "customer asked" in html
    assert "Retry now</button>" not in html
    assert "deleted: customer asked" in html  # its event in the timeline


def test_the_run_page_offers_soft_delete_through_the_actions_confirmation(admin_client):
    trigger = new_trigger()
    page = admin_client.get(f"/admin/triggers/triggerinstance/{trigger.pk}/change/").content
    form = re.search(
        rb"<form[^>]*>(?:(?!</form>).)*Soft delete(?:(?!</form>).)*</form>", page, re.S
    )
    assert form is not None, "no Soft delete button on the run's page"
    fields = dict(re.findall(rb'name="(action|_selected_action)" value="([^"]+)"', form.group(0)))
    assert fields == {
        b"action": b"soft_delete_selected",
        b"_selected_action": str(trigger.pk).encode(),
    }
    # What the button posts is the action's first step: the page asking the reason.
    asked = admin_client.post(
        "/admin/triggers/triggerinstance/",
        {"action": "soft_delete_selected", "_selected_action": [trigger.pk]},
    )
    assert asked.status_code == 200 and 'name="reason"' in asked.content.decode()
    confirm(admin_client, trigger, reason="sent by mistake")
    trigger.refresh_from_db()
    assert trigger.delete_reason == "sent by mistake"
    page = admin_client.get(f"/admin/triggers/triggerinstance/{trigger.pk}/change/").content
    assert b"soft_delete_selected" not in page  # deleted already: no button
