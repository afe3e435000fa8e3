"""API keys in the admin and on the command line: unique names, the key shown once, revoking,
and the hash never on a page."""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime, timedelta
from io import StringIO

import pytest
from django.contrib.admin.models import LogEntry
from django.contrib.auth.models import Permission, User
from django.core.management import CommandError, call_command
from django.db import IntegrityError
from django.test import Client
from django.utils import timezone
from rest_framework.test import APIClient

from tests.factories import WorkflowFactory
from triggers.api_keys import ApiKeyNameTaken, api_key_create, api_key_revoke
from triggers.models import ApiKey

pytestmark = pytest.mark.django_db
KEYS = "/admin/triggers/apikey/"


def api_status(key: str) -> int:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return client.get("/api/workflows/").status_code


def shown_key(html: str) -> str:
    (key,) = re.findall(r'id="api-key"[^>]*value="([^"]+)"', html)
    return key


# --- add: the name in, the key out, once ----------------------------------------------------


def test_add_form_asks_for_name_scope_workflows_and_expiry(admin_client):
    html = admin_client.get(f"{KEYS}add/").content.decode()

    fields = set(re.findall(r'<(?:input|textarea|select)[^>]* name="([^"]+)"', html))
    assert fields == {"csrfmiddlewaretoken", "name", "scope", "workflows", "expires_at", "_save"}
    assert re.search(r'<option value="trigger" selected>', html)  # the default scope


def test_adding_a_key_shows_it_once_and_the_key_works(admin_client):
    response = admin_client.post(f"{KEYS}add/", {"name": "billing", "scope": "trigger"})

    assert response.status_code == 200  # the page itself: no redirect that could carry the key
    key = shown_key(response.content.decode())
    stored = ApiKey.objects.get(name="billing")
    assert stored.key_hash == hashlib.sha256(key.encode()).hexdigest()
    assert "no-store" in response["Cache-Control"]
    assert api_status(key) == 200
    assert LogEntry.objects.get(object_id=str(stored.pk)).is_addition()

    for url in (KEYS, f"{KEYS}{stored.pk}/change/", f"{KEYS}{stored.pk}/history/"):
        assert key not in admin_client.get(url).content.decode(), url


def test_the_hash_is_on_no_page(admin_client):
    created = admin_client.post(f"{KEYS}add/", {"name": "billing", "scope": "admin"})
    created = created.content.decode()
    stored = ApiKey.objects.get(name="billing")
    pages = {
        "created": created,
        "list": admin_client.get(KEYS).content.decode(),
        "key": admin_client.get(f"{KEYS}{stored.pk}/change/").content.decode(),
        "history": admin_client.get(f"{KEYS}{stored.pk}/history/").content.decode(),
    }

    for page, html in pages.items():
        assert stored.key_hash not in html, page
        assert stored.key_hash[:12] not in html, page
        assert "hash" not in html.lower().replace("keeps only its hash", ""), page
    assert f"{stored.prefix}…" in pages["key"]  # what identifies a key instead


def test_a_name_in_use_is_refused_in_the_admin_form(admin_client):
    api_key_create(name="billing")
    response = admin_client.post(f"{KEYS}add/", {"name": " billing ", "scope": "trigger"})

    assert response.status_code == 200
    html = response.content.decode()
    assert "an API key named &#x27;billing&#x27; already exists" in html
    assert 'id="api-key"' not in html
    assert ApiKey.objects.filter(name="billing").count() == 1


def test_only_scope_workflows_and_expiry_can_change_and_a_key_cannot_be_deleted(admin_client):
    api_key, _ = api_key_create(name="billing")

    html = admin_client.get(f"{KEYS}{api_key.pk}/change/").content.decode()
    fields = set(re.findall(r'<(?:input|textarea|select)[^>]* name="([^"]+)"', html))
    assert {"scope", "workflows", "expires_at_0", "expires_at_1"} <= fields  # date, time
    assert not fields & {"name", "prefix", "key_hash", "created_at", "revoked_at"}
    assert admin_client.post(f"{KEYS}{api_key.pk}/delete/", {"post": "yes"}).status_code == 403
    assert ApiKey.objects.filter(pk=api_key.pk).exists()


# --- revoke ---------------------------------------------------------------------------------


def test_revoke_button_revokes_now_and_the_key_stops_working(admin_client):
    api_key, key = api_key_create(name="billing")
    assert 'id="revoke-key"' in admin_client.get(f"{KEYS}{api_key.pk}/change/").content.decode()
    before = timezone.now()

    response = admin_client.post(f"{KEYS}{api_key.pk}/revoke/")

    assert response.status_code == 302
    api_key.refresh_from_db()
    assert api_key.revoked_at is not None and api_key.revoked_at >= before
    assert api_status(key) == 401
    page = admin_client.get(f"{KEYS}{api_key.pk}/change/").content.decode()
    assert 'id="revoke-key"' not in page and "revoked " in page
    assert LogEntry.objects.filter(object_id=str(api_key.pk), change_message="Revoked.").exists()


def test_revoke_action_revokes_the_selected_and_keeps_an_earlier_revocation(admin_client):
    active, key = api_key_create(name="active")
    old, _ = api_key_create(name="old")
    earlier = timezone.now() - timedelta(days=3)
    ApiKey.objects.filter(pk=old.pk).update(revoked_at=earlier)
    _, other_key = api_key_create(name="untouched")

    response = admin_client.post(
        KEYS,
        {"action": "revoke_selected", "_selected_action": [active.pk, old.pk], "index": 0},
        follow=True,
    )

    texts = [str(m) for m in response.context["messages"]]
    assert texts == ["Revoked: active.", "Already revoked: old."]
    assert ApiKey.objects.get(pk=old.pk).revoked_at == earlier
    assert ApiKey.objects.get(pk=active.pk).revoked_at is not None
    assert (api_status(key), api_status(other_key)) == (401, 200)


def test_revoking_and_adding_need_their_permissions():
    api_key, key = api_key_create(name="billing")
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_apikey"))
    client = Client()
    client.force_login(viewer)

    assert client.get(f"{KEYS}{api_key.pk}/change/").status_code == 200
    assert 'id="revoke-key"' not in client.get(f"{KEYS}{api_key.pk}/change/").content.decode()
    assert client.post(f"{KEYS}{api_key.pk}/revoke/").status_code == 403
    assert client.post(f"{KEYS}add/", {"name": "sneaky"}).status_code == 403
    assert "revoke_selected" not in client.get(KEYS).content.decode()
    assert api_status(key) == 200 and not ApiKey.objects.filter(name="sneaky").exists()


def test_revoke_service_revokes_once():
    api_key, _ = api_key_create(name="billing")

    assert api_key_revoke(api_key=api_key) is True
    first = ApiKey.objects.get(pk=api_key.pk).revoked_at
    assert api_key_revoke(api_key=api_key) is False
    assert ApiKey.objects.get(pk=api_key.pk).revoked_at == first


# --- unique names, everywhere ---------------------------------------------------------------


def test_names_are_unique_in_the_database():
    ApiKey.objects.create(name="billing", prefix="nf_a", key_hash="a" * 64)
    with pytest.raises(IntegrityError):
        ApiKey.objects.create(name="billing", prefix="nf_b", key_hash="b" * 64)


def test_create_service_refuses_a_name_in_use_and_strips_names():
    api_key, _ = api_key_create(name="  billing ")
    assert api_key.name == "billing"

    with pytest.raises(ApiKeyNameTaken, match="an API key named 'billing' already exists"):
        api_key_create(name="billing ")
    assert ApiKey.objects.count() == 1


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("billing", "an API key named 'billing' already exists: choose another name"),
        ("   ", "an API key needs a name"),
    ],
)
def test_create_api_key_command_fails_in_one_line_with_exit_status_1(name, message):
    api_key_create(name="billing")

    with pytest.raises(CommandError) as failure:
        call_command("create_api_key", name)

    # manage.py prints "CommandError: <message>" to stderr and exits with the returncode.
    assert str(failure.value) == message and "\n" not in message
    assert failure.value.returncode == 1
    assert ApiKey.objects.count() == 1


# --- scope, workflows and expiry: the command -----------------------------------------------


def create(*args: str) -> tuple[ApiKey, str, str]:
    out, err = StringIO(), StringIO()
    call_command("create_api_key", *args, stdout=out, stderr=err)
    key = out.getvalue().strip().splitlines()[-1]
    return (
        ApiKey.objects.get(key_hash=hashlib.sha256(key.encode()).hexdigest()),
        key,
        err.getvalue(),
    )


def test_the_command_makes_trigger_keys_unless_told_admin():
    plain, _, said = create("plain")
    admin, key, _ = create("ops", "--scope", "admin")

    assert (plain.scope, plain.workflows, plain.expires_at) == ("trigger", [], None)
    assert "scope trigger" in said
    assert admin.scope == "admin" and api_status(key) == 200


def test_the_command_limits_a_key_to_the_workflows_given():
    WorkflowFactory(key="billing.invoice")
    api_key, _, said = create("billing", "--workflow", "billing.invoice", "--workflow", "welcome")

    assert api_key.workflows == ["billing.invoice", "welcome"]
    assert "Note: no workflow welcome exists (yet)." in said


def test_the_command_sets_an_expiry_in_days_or_at_a_time():
    before = timezone.now()
    in_days, _, said = create("soon", "--expires-in-days", "30")
    at, _, _ = create("at", "--expires-at", "2030-01-31T18:00:00+01:00")
    naive, _, _ = create("naive", "--expires-at", "2030-01-31T18:00")

    assert before + timedelta(days=30) <= in_days.expires_at <= timezone.now() + timedelta(days=30)
    assert "expires 20" in said
    assert at.expires_at == datetime(2030, 1, 31, 17, 0, tzinfo=UTC)
    assert naive.expires_at == datetime(2030, 1, 31, 18, 0, tzinfo=UTC)  # UTC unless it says


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--scope", "root"], "argument --scope: invalid choice: 'root'"),
        (["--expires-in-days", "0"], "--expires-in-days must be more than 0 (not 0)"),
        (["--expires-in-days", "1e12"], "--expires-in-days 1e+12 is too far away"),
        (["--expires-at", "tomorrow"], "--expires-at must be an ISO 8601 time"),
        (["--expires-at", "2001-01-01T00:00Z"], "the expiry 2001-01-01T00:00:00+00:00 is not in"),
        (["--expires-at", "2030-01-01", "--expires-in-days", "3"], "not allowed with argument"),
        (["--scope", "admin", "--workflow", "billing"], "an admin key cannot be limited"),
        (["--workflow", "not a key"], "'not a key' is not a workflow key"),
    ],
)
def test_the_command_refuses_wrong_options_and_creates_nothing(args, message):
    with pytest.raises(CommandError, match=re.escape(message)):
        call_command("create_api_key", "client", *args, stdout=StringIO(), stderr=StringIO())
    assert not ApiKey.objects.exists()


# --- scope, workflows and expiry: the admin -------------------------------------------------


def test_adding_a_limited_expiring_key_in_the_admin(admin_client):
    WorkflowFactory(key="billing.invoice")
    response = admin_client.post(
        f"{KEYS}add/",
        {
            "name": "billing",
            "scope": "trigger",
            "workflows": "billing.invoice, welcome",
            "expires_at": "2030-01-31 18:00",
        },
    )

    assert response.status_code == 200 and 'id="api-key"' in response.content.decode()
    stored = ApiKey.objects.get(name="billing")
    assert stored.workflows == ["billing.invoice", "welcome"]
    assert stored.expires_at == datetime(2030, 1, 31, 18, 0, tzinfo=UTC)
    listed = admin_client.get(KEYS).content.decode()
    assert "billing.invoice, welcome" in listed and "2030-01-31 18:00:00" in listed


@pytest.mark.parametrize(
    ("fields", "error"),
    [
        ({"scope": "admin", "workflows": "billing"}, "an admin key cannot be limited"),
        ({"scope": "trigger", "expires_at": "2001-01-01 00:00"}, "is not in the future"),
        ({"scope": "trigger", "workflows": "not a key"}, "is not a workflow key"),
        ({"scope": "root"}, "Select a valid choice"),
    ],
)
def test_the_add_form_refuses_what_the_service_refuses(admin_client, fields, error):
    response = admin_client.post(f"{KEYS}add/", {"name": "billing", **fields})

    assert response.status_code == 200
    assert error in response.content.decode().replace("&#x27;", "'")
    assert not ApiKey.objects.exists()


def test_changing_scope_workflows_and_expiry_in_the_admin_applies_at_once(admin_client):
    api_key, key = api_key_create(name="billing")
    assert api_status(key) == 200  # cached in this process from now on
    page = f"{KEYS}{api_key.pk}/change/"

    changed = admin_client.post(
        page, {"scope": "trigger", "workflows": "welcome", "expires_at_0": "", "expires_at_1": ""}
    )
    assert changed.status_code == 302
    api_key.refresh_from_db()
    assert api_key.workflows == ["welcome"]
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/workflows/").json()["results"] == []  # limited, at once

    refused = admin_client.post(page, {"scope": "admin", "workflows": "welcome"})
    assert (
        refused.status_code == 200 and "an admin key cannot be limited" in refused.content.decode()
    )

    now = timezone.localtime(timezone.now() - timedelta(minutes=1))
    ended = admin_client.post(
        page,
        {
            "scope": "admin",
            "workflows": "",
            "expires_at_0": now.strftime("%Y-%m-%d"),
            "expires_at_1": now.strftime("%H:%M:%S"),
        },
    )
    assert ended.status_code == 302
    assert client.get("/api/workflows/").json() == {"detail": "this API key has expired"}
    assert "expired " in admin_client.get(page).content.decode()
    expired = admin_client.get(f"{KEYS}?state=expired").content.decode()
    assert "billing" in expired
    assert "billing" not in admin_client.get(f"{KEYS}?state=active").content.decode()
    assert LogEntry.objects.filter(object_id=str(api_key.pk), action_flag=2).count() == 2


def test_a_viewer_cannot_change_a_key():
    api_key, _ = api_key_create(name="billing")
    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_apikey"))
    client = Client()
    client.force_login(viewer)

    client.post(f"{KEYS}{api_key.pk}/change/", {"scope": "admin", "workflows": ""})

    assert ApiKey.objects.get(pk=api_key.pk).scope == "trigger"


def test_revoke_api_key_refuses_the_key_at_once_and_says_so_again():
    api_key, key = api_key_create(name="to-revoke")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/triggers/").status_code == 200  # the key is now cached as active

    out, err = StringIO(), StringIO()
    call_command("revoke_api_key", "to-revoke", stdout=out, stderr=err)

    assert out.getvalue() == "to-revoke: revoked\n"
    assert client.get("/api/triggers/").status_code == 401
    first = ApiKey.objects.get(pk=api_key.pk).revoked_at
    again = StringIO()
    call_command("revoke_api_key", "to-revoke", stdout=again)
    assert again.getvalue().startswith("to-revoke: already revoked at ")
    assert ApiKey.objects.get(pk=api_key.pk).revoked_at == first  # kept, not moved


def test_revoke_api_key_fails_for_an_unknown_name_and_revokes_the_others():
    api_key_create(name="known")
    err = StringIO()
    with pytest.raises(CommandError, match="1 of 2 names unknown"):
        call_command("revoke_api_key", "known", "unknown", stdout=StringIO(), stderr=err)
    assert err.getvalue() == "unknown: no API key with this name\n"
    assert ApiKey.objects.get(name="known").revoked_at is not None


def test_the_list_shows_each_keys_state_with_its_expiry_in_five_columns(admin_client):
    api_key_create(name="lasting")
    api_key_create(name="dated", expires_at=timezone.now() + timedelta(days=3))
    gone, _ = api_key_create(name="gone")
    api_key_revoke(api_key=gone)

    page = admin_client.get(KEYS)

    rows = {row.name: row for row in page.context["cl"].result_list}
    admin = page.context["cl"].model_admin
    assert admin.state(rows["lasting"]) == "active"
    assert admin.state(rows["dated"]).startswith("active, expires ")
    assert admin.state(rows["gone"]).startswith("revoked ")
    assert len(page.context["cl"].list_display) <= 6  # the checkbox column and five
