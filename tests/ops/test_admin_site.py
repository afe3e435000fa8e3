"""The way in: the landing page at /, the admin's name, and the order of its sections."""

from __future__ import annotations

import re
from html import unescape

import pytest
from django.contrib.auth.models import User

pytestmark = pytest.mark.django_db


def links(html: str) -> dict[str, str]:
    return {name: url for url, name in re.findall(r'<a href="([^"]+)">([^<]+)</a>', html)}


def test_landing_page_links_admin_api_docs_schema_and_health(client, settings):
    settings.NOTIFLOW_FLOWER_URL = ""
    page = client.get("/")

    assert page.status_code == 200
    html = page.content.decode()
    assert "<title>Notiflow</title>" in html
    assert links(html) == {
        "Admin": "/admin/",
        "API docs": "/api/docs/",
        "OpenAPI schema": "/api/schema/",
        "Health": "/api/health/",
    }
    for url in links(html).values():
        assert client.get(url, follow=True).status_code == 200, url


def test_landing_page_links_flower_only_when_its_url_is_set(client, settings):
    settings.NOTIFLOW_FLOWER_URL = "https://flower.example.com/"

    assert links(client.get("/").content.decode())["Flower"] == "https://flower.example.com/"


def test_view_site_in_the_admin_leads_to_the_landing_page(admin_client):
    html = admin_client.get("/admin/").content.decode()

    assert '<a href="/">View site</a>' in html


def test_admin_is_branded_notiflow(admin_client):
    html = admin_client.get("/admin/").content.decode()

    assert '<div id="site-name"><a href="/admin/">Notiflow</a></div>' in html
    assert "<title>Notiflow operations | Notiflow admin</title>" in html
    assert "Django administration" not in html


def test_operator_sections_come_first_and_the_scheduler_last(admin_client):
    app_list = admin_client.get("/admin/").context["app_list"]

    assert [app["name"] for app in app_list] == [
        "Workflows",
        "Content: translations and layouts",
        "Recipients, preferences and topics",
        "Tenants",
        "Schedules",
        "Triggers",
        "Workers",
        "Deliveries and suppression",
        "In-app inbox",
        "Events and webhooks",
        "Worker registry",
        "Authentication and Authorization",
        "Event waits",
        "Scheduler (internal)",
    ]
    models = {app["app_label"]: [m["object_name"] for m in app["models"]] for app in app_list}
    assert models["schedules"] == ["Schedule", "ScheduleOccurrence"]
    assert models["triggers"] == ["TriggerInstance", "TriggerEvent", "TriggerAction", "ApiKey"]
    assert models["workers"] == ["StepExecutionLog", "SendLedger", "Digest"]
    assert models["deliveries"] == ["DeliveryEvent", "Suppression", "UnmatchedReport"]
    assert models["events"] == ["WebhookEndpoint", "OutboxEvent", "WebhookAttempt"]
    assert models["registry"] == ["Worker"]
    assert models["content"] == [
        "TranslationCatalog",
        "TranslationCatalogVersion",
        "Layout",
        "Partial",
        "ContentVersion",
    ]
    assert models["recipients"] == ["Recipient", "Category", "Topic", "TopicSubscription", "Fanout"]
    assert models["tenants"] == ["Tenant", "TenantChange"]
    assert "PeriodicTask" in models["django_celery_beat"]


def test_suppressions_belong_to_deliveries_and_the_workers_app_has_none(admin_client):
    deliveries = admin_client.get("/admin/deliveries/")
    workers = admin_client.get("/admin/workers/")

    [section] = deliveries.context["app_list"]
    assert [m["object_name"] for m in section["models"]] == [
        "DeliveryEvent",
        "Suppression",
        "UnmatchedReport",
    ]
    assert section["models"][1]["admin_url"] == "/admin/deliveries/suppression/"
    assert "Suppression" not in [m["object_name"] for m in workers.context["app_list"][0]["models"]]
    assert admin_client.get("/admin/workers/suppression/").status_code == 404
    # Its own pages say where it is listed (Django's breadcrumbs: the app is deliveries).
    for url in ("/admin/deliveries/suppression/", "/admin/deliveries/suppression/add/"):
        crumbs = re.search(
            r'<div class="breadcrumbs">(.*?)</div>', admin_client.get(url).text, re.S
        )
        assert crumbs is not None and "Deliveries and suppression" in crumbs.group(1), url
        assert "Workers" not in crumbs.group(1), url


def test_a_user_who_may_see_only_suppressions_finds_them_under_deliveries(client):
    from django.contrib.auth.models import Permission

    viewer = User.objects.create_user("supp-viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_suppression"))
    client.force_login(viewer)

    app_list = client.get("/admin/").context["app_list"]
    assert [(app["app_label"], [m["object_name"] for m in app["models"]]) for app in app_list] == [
        ("deliveries", ["Suppression"])
    ]


def test_every_page_links_the_favicon_and_it_is_served(client, admin_client):
    assert '<link rel="icon" href="/favicon.ico"' in admin_client.get("/admin/").text
    assert '<link rel="icon" href="/favicon.ico"' in client.get("/").text
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon["Content-Type"] == "image/svg+xml"
    assert icon.content.startswith(b"<svg") and b"</svg>" in icon.content


def test_the_sidebar_on_every_page_has_the_same_order(admin_client):
    sidebar = admin_client.get("/admin/triggers/triggerinstance/").context["available_apps"]

    assert [app["app_label"] for app in sidebar][:6] == [
        "workflows",
        "content",
        "recipients",
        "tenants",
        "schedules",
        "triggers",
    ]
    assert sidebar[-1]["name"] == "Scheduler (internal)"


def test_a_staff_user_sees_only_the_sections_they_may_use(client):
    from django.contrib.auth.models import Permission

    viewer = User.objects.create_user("viewer", password="pw", is_staff=True)
    viewer.user_permissions.add(Permission.objects.get(codename="view_triggerinstance"))
    client.force_login(viewer)

    app_list = client.get("/admin/").context["app_list"]
    assert [app["app_label"] for app in app_list] == ["triggers"]


def test_json_block_is_indented_escaped_and_keeps_the_key_order():
    from common.admin import json_block

    html = json_block({"subject": "<b>Hi</b> Zoë", "body": "x"})

    (shown,) = re.findall(r"<pre>(.*)</pre>", html, re.DOTALL)
    assert unescape(shown) == '{\n  "subject": "<b>Hi</b> Zoë",\n  "body": "x"\n}'
    assert "<b>" not in html


def test_json_block_is_open_when_short_and_folded_when_long():
    from common.admin import JSON_OPEN_MAX_LINES, json_block

    short = json_block(list(range(JSON_OPEN_MAX_LINES - 2)))  # [, the items, ]
    long = json_block(list(range(JSON_OPEN_MAX_LINES - 1)))

    assert short.startswith('<details class="json-block" open><summary>JSON, 40 lines')
    assert long.startswith('<details class="json-block"><summary>JSON, 41 lines')
