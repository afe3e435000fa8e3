"""The recipient's page in the admin shows their inbox (issue 35): their in-app messages, newest
first, with when each was seen, read and archived, and the counts their bell shows."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone

from recipients.models import Recipient
from tests.conftest import unique
from tests.inbox.test_feed_api import message

pytestmark = pytest.mark.django_db


def panel_of(html: str) -> str:
    found = re.search(r'<div class="module recipient-panel">\s*<h2>Inbox.*?</div>', html, re.S)
    assert found, "no inbox panel on the page"
    return found.group(0)


def test_the_inbox_panel_lists_the_persons_messages_with_their_states_and_counts(admin_client):
    ada = Recipient.objects.create(key=unique("ada"))
    now = timezone.now()
    message(ada.key, "Oldest, archived", age=300, seen_at=now, read_at=now, archived_at=now)
    read = message(ada.key, "Read one", age=200, seen_at=now, read_at=now)
    message(ada.key, "Seen only", age=100, seen_at=now)
    message(ada.key, "Brand new <b>", age=0, category="billing")
    message(unique("someone-else"), "Not Ada's")

    html = admin_client.get(f"/admin/recipients/recipient/{ada.pk}/change/").content.decode()
    panel = panel_of(html)
    # Counts as the bell's (archived messages are out of them): 2 unread, 1 unseen, 3 in all.
    assert "Inbox — 2 unread, 1 unseen of 3" in panel
    titles = re.findall(r"<tr><td><a [^>]*>.*?title=\"([^\"]*)\"", panel, re.S)
    assert titles == ["Brand new &lt;b&gt;", "Seen only", "Read one", "Oldest, archived"], titles
    assert "Not Ada" not in panel and "<b>" not in panel
    assert f"/admin/inbox/inboxmessage/{read.pk}/change/" in panel
    rows = re.findall(r"<tr>(.*?)</tr>", panel, re.S)[1:]
    # Seen, Read, Archived: a time where it happened, a dash where not.
    states = [re.findall(r"<td>(.*?)</td>", row, re.S)[-3:] for row in rows]
    dashes = [[cell.strip() == "—" for cell in cells] for cells in states]
    assert dashes == [
        [True, True, True],
        [False, True, True],
        [False, False, True],
        [False, False, False],
    ], states
    assert "billing" in rows[0]


def test_a_person_without_messages_gets_an_empty_inbox_panel(admin_client):
    bob = Recipient.objects.create(key=unique("bob"))
    html = admin_client.get(f"/admin/recipients/recipient/{bob.pk}/change/").content.decode()
    assert "No in-app message for this recipient." in panel_of(html)
