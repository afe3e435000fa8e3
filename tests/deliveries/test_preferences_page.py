"""The hosted preference page (docs/design/recipients.md, "Preferences"; docs/security/recipients.md): its signed link
is the only credential; it lists the categories the person has received with a checkbox per
channel, saves on a plain form POST (no JavaScript, no CSRF token: the URL is the proof),
changes only the switches it showed, and a forged or expired link changes nothing. The one-click
unsubscribe of a run for a recipient turns that run's category off on email."""

from __future__ import annotations

import time

import pytest
from django.test import Client

from deliveries.models import Suppression
from deliveries.preferences_page import categories_received
from deliveries.services import unsubscribe_record
from deliveries.suppression import Unsubscribing
from recipients.models import Category, Recipient
from recipients.preferences import preferences_token
from tests.factories import chain, email_node
from tests.workers.helpers import due_trigger

pytestmark = pytest.mark.django_db


@pytest.fixture
def person() -> Recipient:
    """Ada, who received a `comments` run and a required `account` one."""
    Category.objects.create(slug="comments", name="Comments", description="Replies to you")
    Category.objects.create(slug="account", name="Account")
    Category.objects.create(slug="digest", name="Digest", defaults={"sms": False})
    ada = Recipient.objects.create(key="ada", name="Ada")
    due_trigger({**chain(email_node("mail")), "preference_category": "comments"}, recipient="ada")
    due_trigger(
        {**chain(email_node("mail")), "preference_category": "account", "required": True},
        recipient="ada",
    )
    return ada


def url(recipient: str) -> str:
    return f"/deliveries/preferences/{preferences_token(recipient)}/"


def test_the_page_lists_what_the_person_received_with_a_box_per_channel(client, person):
    page = client.get(url("ada"))

    assert page.status_code == 200 and page["Cache-Control"] == "no-store"
    assert page["X-Frame-Options"] == "DENY" and page["Referrer-Policy"] == "same-origin"
    html = page.content.decode()
    assert "Comments" in html and "Replies to you" in html
    assert "Account" not in html  # required: no preference turns it off
    assert "Digest" not in html  # never received
    assert '<input type="checkbox" name="comments.email" value="on" checked> Email</label>' in html
    # Issue 44: only the channels the category's workflows send on, labelled for people.
    assert 'name="comments.sms"' not in html and 'name="comments.teams"' not in html
    assert categories_received("ada") == {"comments": {"email"}}


def test_a_plain_post_saves_the_boxes_it_showed_without_a_csrf_token(person):
    browser = Client(enforce_csrf_checks=True)
    person.preferences = {"categories": {"digest": {"email": False}}}
    person.save()

    saved = browser.post(
        url("ada"), {"shown": ["comments.email", "comments.sms"], "comments.sms": "on"}
    )

    assert saved.status_code == 200 and b"Saved." in saved.content
    person.refresh_from_db()
    assert person.preferences["categories"] == {
        # email turned off; sms was on by default and left on: not stored (it follows defaults)
        "comments": {"email": False},
        "digest": {"email": False},  # not shown on the form: unchanged
    }
    # The page now shows what was saved, and the category set before (on the channel set).
    html = saved.content.decode()
    assert '<input type="checkbox" name="comments.email" value="on"> Email</label>' in html
    assert '<input type="checkbox" name="digest.email" value="on"> Email</label>' in html


def test_saving_stores_only_what_the_person_changed_so_defaults_still_reach_them(client, person):
    # Issue 44: saving stored every switch, so a person who saved once no longer followed a
    # category's defaults.
    Category.objects.filter(slug="comments").update(defaults={"email": True})
    client.post(url("ada"), {"shown": ["comments.email"], "comments.email": "on"})
    person.refresh_from_db()
    assert not (person.preferences.get("categories") or {}).get("comments")

    Category.objects.filter(slug="comments").update(defaults={"email": False})
    html = client.get(url("ada")).content.decode()
    assert '<input type="checkbox" name="comments.email" value="on"> Email</label>' in html

    client.post(url("ada"), {"shown": ["comments.email"], "comments.email": "on"})
    person.refresh_from_db()
    assert person.preferences["categories"]["comments"] == {"email": True}


def test_the_page_offers_the_channels_of_the_categorys_active_workflows(client, person):
    from tests.factories import WorkflowFactory

    slack = {"id": "chat", "type": "slack", "text": "hi", "channel": "#c"}
    WorkflowFactory(definition={**chain(slack), "preference_category": "comments"})
    html = client.get(url("ada")).content.decode()
    assert 'name="comments.slack" value="on" checked> Slack</label>' in html
    assert 'name="comments.email"' in html and 'name="comments.sms"' not in html


def test_switches_of_unknown_categories_or_channels_are_ignored(client, person):
    client.post(
        url("ada"), {"shown": ["nope.email", "comments.fax", "comments"], "nope.email": "on"}
    )

    person.refresh_from_db()
    assert not person.preferences.get("categories")


def test_a_forged_or_expired_link_is_a_400_and_changes_nothing(
    client, person, monkeypatch, settings
):
    token = preferences_token("ada")

    forged = client.post(f"/deliveries/preferences/{token[:-3]}abc/", {"shown": ["comments.email"]})
    later = time.time() + (settings.NOTIFLOW_PREFERENCES_LINK_MAX_AGE_DAYS + 1) * 86400
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)
    expired = client.post(f"/deliveries/preferences/{token}/", {"shown": ["comments.email"]})

    assert forged.status_code == 400 and b"not valid" in forged.content
    assert expired.status_code == 400 and b"expired" in expired.content
    person.refresh_from_db()
    assert person.preferences == {}


def test_the_link_of_an_erased_person_is_a_404(client):
    assert client.get(url("erased")).status_code == 404


def test_a_one_click_unsubscribe_of_a_run_for_a_recipient_turns_its_category_off(person):
    trigger = due_trigger({**chain(email_node("mail")), "category": "marketing"}, recipient="ada")

    unsubscribe_record(
        unsubscribing=Unsubscribing("email", "ada@example.com", f"{trigger.pk}:mail")
    )

    person.refresh_from_db()
    assert person.preferences["categories"] == {"marketing": {"email": False}}
    assert Suppression.objects.filter(recipient="ada@example.com", scope="marketing").exists()


def test_a_one_click_unsubscribe_of_a_run_without_a_recipient_changes_no_preference(person):
    trigger = due_trigger({**chain(email_node("mail")), "category": "marketing"})

    unsubscribe_record(unsubscribing=Unsubscribing("email", "bo@example.com", f"{trigger.pk}:mail"))

    assert Recipient.objects.filter(preferences={}).count() == 1


# What Firefox and Chrome send for a link followed from a mail.
BROWSER_ACCEPTS = [
    "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8",
    "text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,"
    "*/*;q=0.8,application/signed-exchange;v=b3;q=0.7",
]


@pytest.mark.parametrize("accept", BROWSER_ACCEPTS)
def test_a_browser_with_its_accept_header_gets_the_page_and_saves_it(client, person, accept):
    page = client.get(url("ada"), HTTP_ACCEPT=accept)
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    saved = client.post(url("ada"), {"comments.email": "on"}, HTTP_ACCEPT=accept)
    assert saved.status_code == 200 and saved["Content-Type"].startswith("text/html")


def test_the_page_sets_changes_and_clears_quiet_hours(person):
    person.timezone = "Europe/Paris"
    person.save()
    page = Client().get(url("ada")).content.decode()
    assert "Quiet hours" in page and "(Europe/Paris)" in page
    assert '<input type="time" name="quiet_start" value="">' in page

    saved = Client().post(
        url("ada"),
        {"quiet_shown": "1", "quiet_start": "22:00", "quiet_end": "07:30", "quiet_days": ["fri"]},
    )
    assert saved.status_code == 200 and b"Saved." in saved.content
    person.refresh_from_db()
    assert person.quiet_hours == {"start": "22:00", "end": "07:30", "days": ["fri"]}
    assert '<input type="time" name="quiet_start" value="22:00">' in saved.content.decode()

    # Every day ticked is every day; both times emptied is none.
    every = [d for d in ("mon", "tue", "wed", "thu", "fri", "sat", "sun")]
    Client().post(
        url("ada"),
        {"quiet_shown": "1", "quiet_start": "23:00", "quiet_end": "06:00", "quiet_days": every},
    )
    person.refresh_from_db()
    assert person.quiet_hours == {"start": "23:00", "end": "06:00"}
    Client().post(url("ada"), {"quiet_shown": "1", "quiet_start": "", "quiet_end": ""})
    person.refresh_from_db()
    assert person.quiet_hours == {}


def test_a_form_that_did_not_show_quiet_hours_leaves_them(person):
    person.quiet_hours = {"start": "22:00", "end": "08:00"}
    person.save()
    Client().post(url("ada"), {"shown": ["comments.email"]})
    person.refresh_from_db()
    assert person.quiet_hours == {"start": "22:00", "end": "08:00"}


def test_refused_quiet_hours_save_nothing_and_say_why(person):
    refused = Client().post(
        url("ada"),
        {"shown": ["comments.email"], "quiet_shown": "1", "quiet_start": "22:00", "quiet_end": ""},
    )
    assert refused.status_code == 200 and b"Saved." not in refused.content
    assert b"Quiet hours not saved: end" in refused.content
    person.refresh_from_db()
    assert person.quiet_hours == {} and person.preferences == {}  # email not turned off either
