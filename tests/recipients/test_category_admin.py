"""The admin's categories (docs/design/recipients.md, "Preferences"): the operator makes a category with a
checkbox per channel, which becomes its `defaults`, and sees them in the list."""

from __future__ import annotations

import re

import pytest

from recipients.models import Category
from recipients.preferences import known_channels

pytestmark = pytest.mark.django_db


def test_an_operator_makes_a_category_whose_boxes_become_its_defaults(admin_client):
    made = admin_client.post(
        "/admin/recipients/category/add/",
        {"slug": "comments", "name": "Comments", "description": "Replies", "default_email": "on"},
    )

    assert made.status_code == 302, made.content.decode()[:2000]
    # Every channel some node type sends on has its box; only email's was ticked.
    channels = known_channels()
    assert {"email", "sms"} <= set(channels)
    assert Category.objects.get(slug="comments").defaults == {c: c == "email" for c in channels}
    listing = admin_client.get("/admin/recipients/category/").content.decode()
    assert "email on, " in listing and "sms off" in listing


def test_the_form_shows_the_stored_defaults_and_the_slug_is_fixed(admin_client):
    Category.objects.create(slug="digest", defaults={"sms": False})

    page = admin_client.get("/admin/recipients/category/digest/change/").content.decode()

    boxes = dict(re.findall(r'<input type="checkbox" name="default_(\w+)"[^>]*?( checked)?>', page))
    assert boxes == {c: "" if c == "sms" else " checked" for c in known_channels()}
    assert 'name="slug"' not in page  # read-only once made: workflows name it


def test_a_category_in_use_offers_the_channels_its_workflows_send_on_and_keeps_the_others(
    admin_client,
):
    # Issue 44: the form listed every channel whatever the category's workflows send on.
    from tests.factories import WorkflowFactory, chain, email_node

    Category.objects.create(slug="billing", defaults={"push": False})
    WorkflowFactory(definition={**chain(email_node("mail")), "preference_category": "billing"})
    page = admin_client.get("/admin/recipients/category/billing/change/").content.decode()
    boxes = re.findall(r'<input type="checkbox" name="default_(\w+)"', page)
    assert boxes == ["email", "push"]  # email sent on; push has a default already
    assert "Email on by default" in page

    saved = admin_client.post(
        "/admin/recipients/category/billing/change/", {"name": "Billing", "default_push": "on"}
    )
    assert saved.status_code == 302, saved.content.decode()[:2000]
    assert Category.objects.get(slug="billing").defaults == {"email": False, "push": True}


def test_deleting_in_the_admin_follows_the_apis_rules(admin_client):
    # Issue 44: the admin deleted a category workflows name and left it in people's preferences.
    from recipients.models import Recipient
    from tests.factories import WorkflowFactory, chain, email_node

    Category.objects.create(slug="billing")
    Category.objects.create(slug="old")
    workflow = WorkflowFactory(
        definition={**chain(email_node("mail")), "preference_category": "billing"}
    )
    person = Recipient.objects.create(
        key="ada", preferences={"categories": {"old": {"email": False}, "billing": {"sms": False}}}
    )

    refused = admin_client.post("/admin/recipients/category/billing/delete/", {"post": "yes"})
    assert refused.status_code == 302
    assert refused.url == "/admin/recipients/category/billing/change/"
    page = admin_client.get(refused.url).content.decode()
    assert f"workflows {workflow.key} name it" in page
    assert Category.objects.filter(slug="billing").exists()

    deleted = admin_client.post("/admin/recipients/category/old/delete/", {"post": "yes"})
    assert deleted.status_code == 302, deleted.content.decode()[:2000]
    assert not Category.objects.filter(slug="old").exists()
    person.refresh_from_db()
    assert person.preferences["categories"] == {"billing": {"sms": False}}
    listing = admin_client.get("/admin/recipients/category/").content.decode()
    assert 'value="delete_selected"' not in listing
