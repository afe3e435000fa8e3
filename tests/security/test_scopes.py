"""API key scopes, workflow limits, expiry and revocation (docs/design/api.md, "HTTP API";
docs/security/keys.md). The scope table below is docs/design/api.md's: a view added to the URLconf without
a row here fails the first test, and a view that declares nothing needs `admin`."""

from __future__ import annotations

import uuid
from datetime import timedelta
from typing import Any

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import override_settings
from django.urls import URLPattern, URLResolver, get_resolver, reverse
from django.utils import timezone
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.views import APIView

import triggers.api_keys
from common.scopes import ADMIN, TRIGGER, required_scope
from tests.conftest import unique
from tests.factories import WorkflowFactory
from tests.triggers.support import new_trigger
from triggers.api_keys import api_key_create, api_key_revoke, api_key_update
from triggers.models import ApiKey, ApiKeyScope, TriggerInstance, TriggerStatus

pytestmark = pytest.mark.django_db

# (URL name, method) -> the scope it needs. docs/design/api.md's table says the same.
SCOPES = {
    ("workflow-list", "GET"): TRIGGER,
    ("workflow-list", "POST"): ADMIN,
    ("workflow-detail", "GET"): TRIGGER,
    ("workflow-detail", "PUT"): ADMIN,
    ("workflow-detail", "PATCH"): ADMIN,
    ("workflow-detail", "DELETE"): ADMIN,
    ("workflow-stats", "GET"): TRIGGER,
    ("workflow-funnel", "GET"): TRIGGER,
    ("workflow-version-list", "GET"): TRIGGER,
    ("workflow-version-detail", "GET"): TRIGGER,
    ("trigger-list", "GET"): TRIGGER,
    ("trigger-list", "POST"): TRIGGER,
    ("trigger-bulk", "POST"): TRIGGER,
    ("event-post", "POST"): TRIGGER,
    ("event-bulk", "POST"): TRIGGER,
    ("trigger-cancel-by-key", "POST"): TRIGGER,
    ("trigger-actions", "POST"): ADMIN,  # spans workflows: a limited key is refused
    ("trigger-action-detail", "GET"): ADMIN,
    ("trigger-detail", "GET"): TRIGGER,
    ("trigger-detail", "DELETE"): ADMIN,
    ("trigger-logs", "GET"): TRIGGER,
    ("trigger-explain", "GET"): TRIGGER,
    ("trigger-cancel", "POST"): TRIGGER,
    ("log-list", "GET"): TRIGGER,
    ("worker-list", "GET"): ADMIN,
    ("webhook-list", "GET"): ADMIN,
    ("webhook-list", "POST"): ADMIN,
    ("webhook-detail", "GET"): ADMIN,
    ("webhook-detail", "PATCH"): ADMIN,
    ("webhook-detail", "DELETE"): ADMIN,
    ("webhook-rotate-secret", "POST"): ADMIN,
    ("webhook-deliveries", "GET"): ADMIN,
    ("webhook-test", "POST"): ADMIN,
    ("trigger-deliveries", "GET"): TRIGGER,
    ("fanout-detail", "GET"): TRIGGER,
    ("fanout-cancel", "POST"): TRIGGER,  # a key limited to workflows: their fan-outs only
    ("schedule-list", "GET"): TRIGGER,
    ("schedule-detail", "GET"): TRIGGER,
    ("schedule-detail", "PUT"): TRIGGER,
    ("schedule-detail", "DELETE"): TRIGGER,
    ("topic-detail", "GET"): TRIGGER,
    ("topic-detail", "PUT"): TRIGGER,
    ("topic-detail", "DELETE"): ADMIN,
    ("topic-subscribers", "GET"): TRIGGER,
    ("topic-subscribers", "POST"): TRIGGER,
    ("topic-subscribers", "DELETE"): TRIGGER,
    ("suppression-list", "GET"): ADMIN,
    ("recipient-list", "GET"): ADMIN,
    ("recipient-bulk", "POST"): TRIGGER,
    ("recipient-detail", "GET"): TRIGGER,
    ("recipient-explain", "GET"): TRIGGER,
    ("recipient-timeline", "GET"): TRIGGER,
    ("recipient-detail", "PUT"): TRIGGER,
    ("recipient-detail", "PATCH"): TRIGGER,
    ("recipient-detail", "DELETE"): ADMIN,
    ("suppression-list", "POST"): ADMIN,
    ("suppression-detail", "GET"): ADMIN,
    ("suppression-detail", "DELETE"): ADMIN,
    ("recipient-preferences", "GET"): TRIGGER,
    ("recipient-preferences", "PUT"): TRIGGER,
    ("recipient-preferences", "PATCH"): TRIGGER,
    ("health", "GET"): ADMIN,  # the details; without a key it is public
    ("recipient-inbox-token", "POST"): TRIGGER,
    ("recipient-inbox-token-rotate", "POST"): TRIGGER,
    ("topic-list", "GET"): TRIGGER,
    ("recipient-topics", "GET"): TRIGGER,
    ("recipient-channel-address", "POST"): TRIGGER,
    ("recipient-channel-address", "DELETE"): TRIGGER,
    ("category-list", "GET"): ADMIN,
    ("category-detail", "GET"): ADMIN,
    ("category-detail", "PUT"): ADMIN,
    ("category-detail", "DELETE"): ADMIN,
    ("translation-list", "GET"): ADMIN,
    ("translation-detail", "GET"): ADMIN,
    ("translation-detail", "PUT"): ADMIN,
    ("translation-detail", "PATCH"): ADMIN,
    ("translation-detail", "DELETE"): ADMIN,
    ("layout-list", "GET"): ADMIN,
    ("layout-detail", "GET"): ADMIN,
    ("layout-detail", "PUT"): ADMIN,
    ("layout-detail", "DELETE"): ADMIN,
    ("partial-list", "GET"): ADMIN,
    ("partial-detail", "GET"): ADMIN,
    ("partial-detail", "PUT"): ADMIN,
    ("partial-detail", "DELETE"): ADMIN,
    ("tenant-list", "GET"): ADMIN,
    ("tenant-detail", "GET"): ADMIN,
    ("tenant-detail", "PUT"): ADMIN,
    ("tenant-detail", "DELETE"): ADMIN,
}
PUBLIC = {"schema", "docs"}
# The in-app inbox's feed API: a recipient token, never an API key (inbox/auth.py; tested in
# tests/inbox/test_feed_api.py).
RECIPIENT_TOKEN = {"inbox-feed", "inbox-counts", "inbox-mark", "inbox-mark-all", "inbox-stream"}
# Path arguments that match each converter (the objects need not exist).
ARGUMENTS = {
    "key": "no-such-workflow",
    "trigger_id": uuid.uuid4(),
    "endpoint_id": uuid.uuid4(),
    "suppression_id": 2**31 - 1,
    "recipient_id": "no-such-person",
    "topic_key": "no-such-topic",
    "fanout_id": uuid.uuid4(),
    "action_id": uuid.uuid4(),
    "schedule_id": "no-such-schedule",
    "recipient_key": "no-such-recipient",
    "channel": "fcm",
    "category_slug": "no-such-category",
    "number": 1,
    "locale": "fr",
    "tenant_id": "no-such-tenant",
}


def api_views() -> dict[str, tuple[Any, dict[str, Any], list[str]]]:
    """Every view under /api/: URL name -> (view class, as_view's arguments, its methods)."""
    views: dict[str, tuple[Any, dict[str, Any], list[str]]] = {}

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern) and prefix.startswith("api/"):
                cls = pattern.callback.cls
                methods = [
                    m.upper()
                    for m in cls.http_method_names
                    if hasattr(cls, m) and m not in ("options", "head")
                ]
                views[str(pattern.name)] = (cls, pattern.callback.initkwargs, methods)

    walk(get_resolver().url_patterns, "")
    return views


def client(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api


def call(api: APIClient, name: str, method: str, **kwargs: Any) -> Any:
    url = reverse(name, kwargs=kwargs or _arguments(name))
    return getattr(api, method.lower())(url, {}, format="json")


def _arguments(name: str) -> dict[str, Any]:
    for pattern in get_resolver().url_patterns:
        if isinstance(pattern, URLResolver):
            for inner in pattern.url_patterns:
                if getattr(inner, "name", None) == name:
                    return {a: ARGUMENTS[a] for a in inner.pattern.converters}
    raise AssertionError(name)


# --- the table ------------------------------------------------------------------------------


def test_every_api_view_and_method_has_its_scope_in_the_table():
    found = {
        (name, method): required_scope(cls, method)
        for name, (cls, initkwargs, methods) in api_views().items()
        if name not in PUBLIC | RECIPIENT_TOKEN
        for method in methods
    }
    assert found == SCOPES


def test_the_feed_api_takes_a_recipient_token_alone():
    from inbox.auth import IsRecipient, RecipientTokenAuthentication

    views = api_views()
    assert {name for name in views if name.startswith("inbox-")} == RECIPIENT_TOKEN
    for name in RECIPIENT_TOKEN:
        view = views[name][0]
        assert view.authentication_classes == [RecipientTokenAuthentication], name
        assert view.permission_classes == [IsRecipient], name


def test_schema_and_docs_take_no_key_and_are_not_throttled():
    views = api_views()
    for name in PUBLIC:
        _, initkwargs, _ = views[name]
        assert initkwargs == {
            **initkwargs,
            "authentication_classes": [],
            "permission_classes": [],
            "throttle_classes": [],
        }, name
    assert views["health"][0].throttle_classes == []


def test_an_undeclared_view_or_method_needs_admin():
    class Undeclared(APIView):
        def get(self, request: Request) -> Response:
            return Response({"ok": True})

    class Partly(Undeclared):
        api_scopes = {"GET": TRIGGER}

        def post(self, request: Request) -> Response:
            return Response({"ok": True})

    assert required_scope(Undeclared, "GET") == ADMIN
    assert required_scope(Partly, "GET") == TRIGGER
    assert required_scope(Partly, "HEAD") == TRIGGER
    assert required_scope(Partly, "POST") == ADMIN
    _, key = api_key_create(name=unique("t"))
    factory = APIRequestFactory()
    refused = Undeclared.as_view()(factory.get("/", HTTP_AUTHORIZATION=f"Bearer {key}"))
    assert (refused.status_code, refused.data["detail"]) == (
        403,
        "this API key lacks the 'admin' scope",
    )
    allowed = Partly.as_view()(factory.get("/", HTTP_AUTHORIZATION=f"Bearer {key}"))
    assert allowed.status_code == 200


def test_a_scope_that_does_not_exist_is_an_error_not_a_pass():
    class Typo(APIView):
        api_scopes = {"GET": "trigegr"}

    with pytest.raises(ValueError, match="trigegr"):
        required_scope(Typo, "GET")


@pytest.mark.parametrize(("name", "method"), sorted(k for k, v in SCOPES.items() if v == ADMIN))
def test_a_trigger_key_gets_403_naming_the_admin_scope(name, method):
    _, key = api_key_create(name=unique("t"))

    response = call(client(key), name, method)

    assert response.status_code == 403
    assert response.json() == {"detail": "this API key lacks the 'admin' scope"}


@pytest.mark.parametrize(("name", "method"), sorted(SCOPES))
def test_an_admin_key_is_never_refused_for_its_scope(name, method):
    _, key = api_key_create(name=unique("a"), scope=ApiKeyScope.ADMIN)

    assert call(client(key), name, method).status_code != 403


@pytest.mark.parametrize(("name", "method"), sorted(k for k, v in SCOPES.items() if v == TRIGGER))
def test_a_trigger_key_reaches_the_trigger_endpoints(name, method):
    _, key = api_key_create(name=unique("t"))

    # The objects do not exist, or the body is empty: 404 or 400, not 401 or 403 (or 201: a PUT
    # of a topic with an empty body creates it, a PUT or PATCH of a recipient too).
    assert call(client(key), name, method).status_code in (200, 201, 400, 404)


def test_health_without_a_key_is_public_and_with_a_trigger_key_is_403():
    _, key = api_key_create(name=unique("t"))

    assert set(APIClient().get("/api/health/").json()) == {"status"}
    assert client(key).get("/api/health/").status_code == 403


def test_a_trigger_key_creates_reads_and_cancels_a_trigger():
    workflow = WorkflowFactory()
    _, key = api_key_create(name=unique("t"))
    api = client(key)

    created = api.post(
        "/api/triggers/",
        {"workflow": workflow.key, "idempotency_key": unique("k"), "payload": {}},
        format="json",
    )
    assert created.status_code == 201, created.json()
    trigger_id = created.json()["id"]
    assert api.get(f"/api/triggers/{trigger_id}/").status_code == 200
    assert api.get(f"/api/triggers/{trigger_id}/logs/").status_code == 200
    assert api.post(f"/api/triggers/{trigger_id}/cancel/").json()["status"] == "cancelled"
    assert api.delete(f"/api/triggers/{trigger_id}/").status_code == 403
    assert api.get(f"/api/workflows/{workflow.key}/stats/").status_code == 200


# --- workflow limits ------------------------------------------------------------------------


@pytest.fixture
def limited() -> dict[str, Any]:
    """A trigger key limited to workflow `mine`; a trigger of it and one of `other`."""
    mine, other = WorkflowFactory(), WorkflowFactory()
    api_key, key = api_key_create(name=unique("limited"), workflows=[str(mine.key)])
    return {
        "api": client(key),
        "api_key": api_key,
        "mine": mine,
        "other": other,
        "my_trigger": new_trigger(mine),
        "their_trigger": new_trigger(other),
    }


def test_allows_workflow_and_limit_queryset(limited):
    api_key, mine, other = limited["api_key"], limited["mine"], limited["other"]
    unlimited, _ = api_key_create(name=unique("all"))

    assert api_key.allows_workflow(mine.key) and not api_key.allows_workflow(other.key)
    assert unlimited.allows_workflow(other.key)
    ids = set(api_key.limit_queryset(TriggerInstance.objects.all()).values_list("pk", flat=True))
    assert limited["my_trigger"].pk in ids and limited["their_trigger"].pk not in ids
    everything = unlimited.limit_queryset(TriggerInstance.objects.all())
    assert everything.filter(pk=limited["their_trigger"].pk).exists()


def test_a_limited_key_may_not_trigger_another_workflow(limited):
    body = {"workflow": limited["other"].key, "idempotency_key": unique("k")}

    refused = limited["api"].post("/api/triggers/", body, format="json")

    assert refused.status_code == 403
    assert refused.json()["detail"] == (
        f"this API key may not trigger workflow {limited['other'].key!r}"
    )
    assert refused.json()["errors"] == {"workflow": [refused.json()["detail"]]}
    # Unknown workflows are refused the same way: the answer tells nothing of what exists.
    body["workflow"] = "no-such-workflow"
    assert limited["api"].post("/api/triggers/", body, format="json").status_code == 403
    body["workflow"] = limited["mine"].key
    assert limited["api"].post("/api/triggers/", body, format="json").status_code == 201


def test_a_limited_key_lists_only_its_workflows_triggers_and_logs(limited):
    api, mine, other = limited["api"], limited["mine"], limited["other"]

    listed = {t["workflow"] for t in api.get("/api/triggers/").json()["results"]}
    assert listed == {mine.key}
    assert api.get(f"/api/triggers/?workflow={other.key}").json()["results"] == []
    workflows = {w["key"] for w in api.get("/api/workflows/").json()["results"]}
    assert workflows == {mine.key}
    their_logs = api.get(f"/api/logs/?trigger={limited['their_trigger'].pk}").json()
    assert their_logs["results"] == []


def test_a_limited_key_gets_404_for_another_workflows_trigger_logs_and_workflow(limited):
    api, other, theirs = limited["api"], limited["other"], limited["their_trigger"]

    for path in (
        f"/api/triggers/{theirs.pk}/",
        f"/api/triggers/{theirs.pk}/logs/",
        f"/api/workflows/{other.key}/",
        f"/api/workflows/{other.key}/stats/",
    ):
        assert api.get(path).status_code == 404, path
    cancel = api.post(f"/api/triggers/{theirs.pk}/cancel/")
    assert cancel.status_code == 404 and cancel.json() == {"detail": f"no trigger '{theirs.pk}'"}
    assert TriggerInstance.objects.get(pk=theirs.pk).status == TriggerStatus.ENQUEUED
    # Its own workflow's, as usual.
    mine = limited["my_trigger"]
    assert api.get(f"/api/triggers/{mine.pk}/").status_code == 200
    assert api.get(f"/api/triggers/{mine.pk}/logs/").status_code == 200
    assert api.post(f"/api/triggers/{mine.pk}/cancel/").status_code == 200


def test_a_limited_key_bulk_triggers_and_cancels_its_workflows_only(limited):
    api, mine, other = limited["api"], limited["mine"], limited["other"]
    items = [
        {"workflow": mine.key, "idempotency_key": unique("k"), "cancellation_key": "c"},
        {"workflow": other.key, "idempotency_key": unique("k"), "cancellation_key": "c"},
        {"workflow": "no-such-workflow", "idempotency_key": unique("k")},
    ]

    results = api.post("/api/triggers/bulk/", {"triggers": items}, format="json").json()["results"]

    assert [r["status"] for r in results] == [201, 403, 403]
    assert results[1]["detail"] == f"this API key may not trigger workflow {other.key!r}"
    theirs = new_trigger(other)
    TriggerInstance.objects.filter(pk=theirs.pk).update(cancellation_key="c")
    cancelled = api.post("/api/triggers/cancel/", {"cancellation_key": "c"}, format="json")
    assert cancelled.json() == {"cancelled": 1, "ids": [results[0]["trigger"]["id"]]}
    assert TriggerInstance.objects.get(pk=theirs.pk).status == TriggerStatus.ENQUEUED


def test_an_admin_key_cannot_be_limited_to_workflows():
    with pytest.raises(ValueError, match="an admin key cannot be limited to workflows"):
        api_key_create(name=unique("a"), scope=ApiKeyScope.ADMIN, workflows=["billing"])
    with pytest.raises(ValueError, match="is not a workflow key"):
        api_key_create(name=unique("t"), workflows=["not a key"])
    assert not ApiKey.objects.exists()


# --- expiry and revocation ------------------------------------------------------------------


def test_an_expiry_must_be_in_the_future():
    with pytest.raises(ValueError, match="is not in the future"):
        api_key_create(name=unique("t"), expires_at=timezone.now() - timedelta(seconds=1))


def test_an_expired_key_is_401_at_once_even_while_cached(monkeypatch):
    expires_at = timezone.now() + timedelta(minutes=5)
    _, key = api_key_create(name=unique("t"), expires_at=expires_at)
    api = client(key)
    assert api.get("/api/triggers/").status_code == 200  # now in the process's cache

    later = expires_at + timedelta(milliseconds=1)
    monkeypatch.setattr(triggers.api_keys.timezone, "now", lambda: later)
    with override_settings(NOTIFLOW_API_KEY_CACHE_SECONDS=3600):
        refused = api.get("/api/triggers/")

    assert refused.status_code == 401
    assert refused.json() == {"detail": "this API key has expired"}


def test_an_expiry_set_in_the_admins_service_ends_the_key_now():
    api_key, key = api_key_create(name=unique("t"))
    api = client(key)
    assert api.get("/api/triggers/").status_code == 200

    api_key_update(api_key=api_key, scope=api_key.scope, workflows=[], expires_at=timezone.now())

    assert api.get("/api/triggers/").json() == {"detail": "this API key has expired"}


def test_a_revoked_key_says_so_and_a_wrong_one_says_invalid():
    api_key, key = api_key_create(name=unique("t"))
    api_key_revoke(api_key=api_key)

    assert client(key).get("/api/triggers/").json() == {"detail": "this API key was revoked"}
    assert client("nf_wrong").get("/api/triggers/").json() == {"detail": "invalid API key"}


def test_a_revocation_elsewhere_reaches_this_process_within_the_cache_time():
    api_key, key = api_key_create(name=unique("t"))
    api = client(key)
    assert api.get("/api/triggers/").status_code == 200
    # Another process revokes it: this one's cache does not hear of it ...
    ApiKey.objects.filter(pk=api_key.pk).update(revoked_at=timezone.now())
    assert api.get("/api/triggers/").status_code == 200
    # ... until its entry is older than NOTIFLOW_API_KEY_CACHE_SECONDS (0: at once).
    triggers.api_keys._api_keys_seen.clear()
    with override_settings(NOTIFLOW_API_KEY_CACHE_SECONDS=0):
        assert api.get("/api/triggers/").status_code == 401


def test_a_scope_change_applies_at_once_in_this_process():
    api_key, key = api_key_create(name=unique("t"))
    api = client(key)
    assert api.get("/api/workers/").status_code == 403

    api_key_update(api_key=api_key, scope=ApiKeyScope.ADMIN, workflows=[], expires_at=None)

    assert api.get("/api/workers/").status_code == 200


# --- the migration --------------------------------------------------------------------------


@pytest.mark.slow  # migrates backwards and forwards
def test_the_migration_makes_existing_keys_admin_and_new_ones_trigger():
    executor = MigrationExecutor(connection)
    executor.migrate([("triggers", "0008_priority_soft_delete")])
    with connection.cursor() as cursor:
        cursor.execute(
            "INSERT INTO api_key (name, prefix, key_hash, created_at) "
            "VALUES ('before-upgrade', 'nf_old', %s, now())",
            ["f" * 64],
        )
    executor = MigrationExecutor(connection)
    executor.migrate(executor.loader.graph.leaf_nodes("triggers"))

    old = ApiKey.objects.get(name="before-upgrade")
    assert (old.scope, old.workflows, old.expires_at) == (ApiKeyScope.ADMIN, [], None)
    assert api_key_create(name=unique("new"))[0].scope == ApiKeyScope.TRIGGER
