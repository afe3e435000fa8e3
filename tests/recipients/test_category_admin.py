"""The admin's categories (docs/design.md, "Preferences"): the operator makes a category with a
checkbox per channel, which becomes its `defaults`, and sees them in the list."""

from __future__ import annotations

import re

import pytest

from recipients.models import Category

pytestmark = pytest.mark.django_db


def test_an_operator_makes_a_category_whose_boxes_become_its_defaults(admin_client):
    made = admin_client.post(
        "/admin/recipients/category/add/",
        {"slug": "comments", "name": "Comments", "description": "Replies", "default_email": "on"},
    )

    assert made.status_code == 302, made.content.decode()[:2000]
    assert Category.objects.get(slug="comments").defaults == {"email": True, "sms": False}
    listing = admin_client.get("/admin/recipients/category/").content.decode()
    assert "email on, sms off" in listing


def test_the_form_shows_the_stored_defaults_and_the_slug_is_fixed(admin_client):
    Category.objects.create(slug="digest", defaults={"sms": False})

    page = admin_client.get("/admin/recipients/category/digest/change/").content.decode()

    boxes = dict(re.findall(r'<input type="checkbox" name="default_(\w+)"[^>]*?( checked)?>', page))
    assert boxes == {"email": " checked", "sms": ""}
    assert 'name="slug"' not in page  # read-only once made: workflows name it
