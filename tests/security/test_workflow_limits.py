"""Keys limited to workflows (issue 43 §3, docs/security/keys.md "Keys limited to workflows"): such a
key triggers its workflows for an existing recipient named by id, or creates a new one inline;
everything else about people (profiles, preferences, inbox tokens, topics and subscribers) is a
403 naming what it lacks and changes nothing; every other operation keeps to its workflows or
needs `admin`. One declaration per view method (`workflow_limits`, common/scopes.py) decides, the
docs' table is rendered from it, and a walk of every operation of the schema holds the two.

Over 500 lines: the walk, the expectation for each operation it walks and the table rendered from
the same declarations are read together; apart, a new endpoint could pass one and miss another."""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import resolve
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.test import APIClient, APIRequestFactory
from rest_framework.views import APIView

from common.scopes import (
    ADMIN,
    CHECKED,
    FILTERED,
    TRIGGER,
    Refused,
    limited_refusal,
    limits_table,
    required_scope,
    workflow_limit,
)
from recipients.models import Fanout, Recipient, Topic, TopicSubscription
from recipients.topics import topic_put, topic_subscribe
from schedules.models import Schedule
from schedules.services import ScheduleRequest, schedule_put
from tenants.services import tenant_put
from tests.conftest import unique
from tests.factories import WorkflowFactory
from tests.triggers.test_fanout import published  # noqa: F401 (fixture)
from tests.waits.test_wait_event import parked
from triggers.api_keys import api_key_create
from triggers.fanout import FanoutRequest, fanout_start
from triggers.models import TriggerInstance
from workers.models import StepExecutionLog

pytestmark = pytest.mark.django_db

SECURITY_MD = Path(__file__).resolve().parents[2] / "docs" / "security" / "keys.md"
TABLE = re.compile(
    r"(<!-- workflow-limits table: begin[^\n]*-->\n)(.*?)(<!-- workflow-limits table: end -->)",
    re.S,
)
UPDATE = os.environ.get("NOTIFLOW_SNAPSHOT_UPDATE") == "1"
PROFILE = {
    "email": "ada@example.com",
    "phone": "+15550100",
    "name": "Ada",
    "channels": {"slack": {"webhook_url": "https://hooks.example.com/ada"}},
    "properties": {"plan": "pro"},
}


@pytest.fixture
def world() -> dict[str, Any]:
    """A key limited to workflow `mine`; a person with a profile and preferences, subscribed to
    a topic; and objects of another workflow: a run waiting for an event (with its step log and
    a cancellation key) and a fan-out."""
    mine = WorkflowFactory()
    _, key = api_key_create(name=unique("limited"), workflows=[str(mine.key)])
    person = Recipient.objects.create(
        key=unique("person"), preferences={"channels": {"sms": False}}, **PROFILE
    )
    topic, _ = topic_put(key=unique("topic"), name="watchers", description="")
    topic_subscribe(topic=topic, recipients=[person.key])
    theirs = parked()
    TriggerInstance.objects.filter(pk=theirs.pk).update(cancellation_key="theirs")
    fanout, _ = fanout_start(FanoutRequest(theirs.workflow.key, "k", topic.key, {}))
    schedule, _ = schedule_put(
        ScheduleRequest(
            id=unique("theirs"), workflow=theirs.workflow.key, repeat="FREQ=DAILY", topic=topic.key
        )
    )
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return {
        "api": api,
        "workflows": [str(mine.key)],
        "mine": mine,
        "person": person,
        "topic": topic,
        "theirs": theirs,
        "other": theirs.workflow,
        "fanout": fanout,
        "schedule": schedule,
    }


def people_and_theirs(world: dict[str, Any]) -> dict[str, Any]:
    """Everything a limited key must leave as it is: every person, topic and subscription, and
    the other workflow's runs and fan-outs."""
    return {
        "recipients": list(Recipient.objects.order_by("key").values()),
        "topics": list(Topic.objects.order_by("key").values()),
        "subscriptions": list(TopicSubscription.objects.order_by("id").values()),
        "their runs": list(
            TriggerInstance.objects.filter(workflow=world["other"]).order_by("id").values()
        ),
        "fanouts": list(Fanout.objects.order_by("id").values()),
        "schedules": list(Schedule.objects.order_by("id").values()),
    }


# --- the declaration and its enforcement ---------------------------------------------------


def test_a_trigger_method_that_declares_nothing_is_refused_to_a_limited_key():
    class Undeclared(APIView):
        api_scopes = {"GET": TRIGGER}

        def get(self, request: Request) -> Response:
            return Response({"ok": True})

    class Filtered(Undeclared):
        workflow_limits = {"GET": FILTERED}

    _, limited = api_key_create(name=unique("l"), workflows=["mine"])
    _, unlimited = api_key_create(name=unique("u"))
    factory = APIRequestFactory()

    def get(view: Any, key: str) -> Response:
        return view.as_view()(factory.get("/", HTTP_AUTHORIZATION=f"Bearer {key}"))

    refused = get(Undeclared, limited)
    assert (refused.status_code, refused.data["detail"]) == (
        403,
        "this API key is limited to workflows ['mine'] and may not call an endpoint that "
        "declares nothing for keys limited to workflows",
    )
    assert get(Undeclared, unlimited).status_code == 200
    assert get(Filtered, limited).status_code == 200


def test_a_limit_that_does_not_exist_is_an_error_not_a_pass():
    class Typo(APIView):
        workflow_limits = {"GET": "filterd"}

    with pytest.raises(ValueError, match="filterd"):
        workflow_limit(Typo, "GET")
    assert workflow_limit(Typo, "POST") == Refused(
        "call an endpoint that declares nothing for keys limited to workflows"
    )


def test_the_table_in_docs_security_is_the_one_the_views_declare():
    """Rendered from the declarations (common.scopes.limits_table); to accept a change:
    NOTIFLOW_SNAPSHOT_UPDATE=1 python -m pytest tests/security/test_workflow_limits.py"""
    text = SECURITY_MD.read_text()
    match = TABLE.search(text)
    assert match, "docs/security/keys.md lacks the workflow-limits table's markers"
    if UPDATE:
        SECURITY_MD.write_text(text[: match.start(2)] + limits_table() + text[match.end(2) :])
        return
    assert match.group(2) == limits_table()


# --- people ---------------------------------------------------------------------------------

# (method, path, body) of every operation on people a trigger key may call, as an attacker
# with a limited key would: rewrite an address, read it, silence a person, take their inbox.
PEOPLE = [
    ("get", "/api/recipients/{person}/", None, "read or change recipients"),
    ("get", "/api/recipients/{person}/explain/?workflow={mine}", None, "read or change recipients"),
    ("get", "/api/recipients/{person}/timeline/", None, "read or change recipients"),
    (
        "put",
        "/api/recipients/{person}/",
        {"email": "evil@example.net"},
        "read or change recipients",
    ),
    (
        "patch",
        "/api/recipients/{person}/",
        {"channels": {"slack": {"webhook_url": "https://evil.example.net/"}}},
        "read or change recipients",
    ),
    (
        "post",
        "/api/recipients/bulk/",
        {"recipients": [{"id": "{person}", "phone": "+15550666"}]},
        "read or change recipients",
    ),
    (
        "get",
        "/api/recipients/{person}/preferences/",
        None,
        "read or change recipients' preferences",
    ),
    (
        "put",
        "/api/recipients/{person}/preferences/",
        {"channels": {"email": False}, "categories": {}, "workflows": {}},
        "read or change recipients' preferences",
    ),
    ("post", "/api/recipients/{person}/inbox-token/", {}, "issue recipients' inbox tokens"),
    (
        "post",
        "/api/recipients/{person}/channels/fcm/",
        {"address": "t"},
        "change recipients' push addresses",
    ),
    (
        "delete",
        "/api/recipients/{person}/channels/fcm/",
        {"address": "t"},
        "change recipients' push addresses",
    ),
    ("get", "/api/recipients/{person}/topics/", None, "read recipients' topics"),
    ("get", "/api/topics/", None, "read or change topics"),
    ("get", "/api/topics/{topic}/", None, "read or change topics"),
    ("put", "/api/topics/{topic}/", {"name": "mine now"}, "read or change topics"),
    ("put", "/api/topics/new-topic/", {}, "read or change topics"),
    ("get", "/api/topics/{topic}/subscribers/", None, "read or change topics' subscribers"),
    (
        "post",
        "/api/topics/{topic}/subscribers/",
        {"recipients": ["{person}"]},
        "read or change topics' subscribers",
    ),
    (
        "delete",
        "/api/topics/{topic}/subscribers/",
        {"recipients": ["{person}"]},
        "read or change topics' subscribers",
    ),
]


def _filled(value: Any, world: dict[str, Any]) -> Any:
    names = {"person": world["person"].key, "topic": world["topic"].key, "mine": world["mine"].key}
    if isinstance(value, str):
        return value.format(**names)
    if isinstance(value, list):
        return [_filled(v, world) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, world) for k, v in value.items()}
    return value


@pytest.mark.parametrize(("method", "path", "body", "lacks"), PEOPLE)
def test_a_limited_key_is_refused_every_operation_on_people_and_changes_nothing(
    world, method, path, body, lacks
):
    before = people_and_theirs(world)

    response = getattr(world["api"], method)(
        _filled(path, world), _filled(body, world), format="json"
    )

    assert response.status_code == 403, response.content
    assert response.json() == {"detail": limited_refusal(world["workflows"], lacks)}
    assert people_and_theirs(world) == before


def test_an_unlimited_trigger_key_still_reaches_people(world):
    _, key = api_key_create(name=unique("all"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    person = world["person"].key

    assert api.get(f"/api/recipients/{person}/").json()["email"] == PROFILE["email"]
    assert api.post(f"/api/recipients/{person}/inbox-token/").status_code == 200
    assert api.get(f"/api/topics/{world['topic'].key}/subscribers/").status_code == 200


# --- a recipient inline on a trigger --------------------------------------------------------


def trigger(world: dict[str, Any], recipient: Any, *, bulk: bool = False) -> tuple[int, dict]:
    """POST a trigger of the key's workflow for `recipient`: its status and body (a bulk
    request's single result)."""
    body = {"workflow": world["mine"].key, "idempotency_key": unique("k"), "recipient": recipient}
    if bulk:
        response = world["api"].post("/api/triggers/bulk/", {"triggers": [body]}, format="json")
        (result,) = response.json()["results"]
        return result["status"], result
    response = world["api"].post("/api/triggers/", body, format="json")
    return response.status_code, response.json()


def runs_of(world: dict[str, Any]) -> int:
    return TriggerInstance.objects.filter(workflow=world["mine"]).count()


@pytest.mark.parametrize("bulk", [False, True])
def test_a_limited_key_creates_a_new_recipient_inline(world, bulk):
    key = unique("new")

    code, _ = trigger(world, {"id": key, "email": "new@example.com"}, bulk=bulk)

    assert code == 201
    assert Recipient.objects.get(key=key).email == "new@example.com"


@pytest.mark.parametrize("bulk", [False, True])
@pytest.mark.parametrize(
    "given",
    [
        {},
        PROFILE,
        {"email": PROFILE["email"]},
        {"properties": {"plan": "pro"}, "channels": {"absent": None}},
    ],
    ids=["id alone", "the whole profile", "one field", "JSON keys as stored, one absent dropped"],
)
def test_a_limited_key_may_give_an_existing_recipient_as_stored(world, bulk, given):
    person = world["person"]
    before = people_and_theirs(world)

    code, body = trigger(world, {"id": person.key, **given}, bulk=bulk)

    assert code == 201, body
    assert people_and_theirs(world)["recipients"] == before["recipients"]


@pytest.mark.parametrize("bulk", [False, True])
@pytest.mark.parametrize(
    "given",
    [
        {"email": "evil@example.net"},
        {"phone": "+15550666"},
        {"name": ""},
        {"channels": {"slack": {"webhook_url": "https://evil.example.net/"}}},
        {"channels": {"slack": None}},
        {"properties": {"plan": "free"}},
        {"properties": {"new": 1}},
    ],
)
def test_a_limited_key_may_not_change_an_existing_recipient_inline(world, bulk, given):
    person = world["person"]
    before, runs = people_and_theirs(world), runs_of(world)

    code, body = trigger(world, {"id": person.key, **given}, bulk=bulk)

    assert code == 403
    message = limited_refusal(
        world["workflows"],
        f"change recipient {person.key!r}, whose stored profile differs from the one given "
        "(name it by its id alone)",
    )
    assert (body["detail"], body["errors"]) == (message, {"recipient": [message]})
    assert people_and_theirs(world) == before
    assert runs_of(world) == runs


def test_a_bulk_request_refuses_only_its_items_that_would_change_someone(world):
    person, new = world["person"].key, unique("new")
    items = [
        {"workflow": world["mine"].key, "idempotency_key": unique("k"), "recipient": recipient}
        for recipient in (
            person,
            {"id": new, "name": "New"},
            {"id": unique("other-person"), "name": "Other"},
        )
    ]
    Recipient.objects.create(key=items[2]["recipient"]["id"], name="Someone else")

    results = world["api"].post("/api/triggers/bulk/", {"triggers": items}, format="json")

    assert [r["status"] for r in results.json()["results"]] == [201, 201, 403]
    assert Recipient.objects.get(key=new).name == "New"
    assert Recipient.objects.get(key=items[2]["recipient"]["id"]).name == "Someone else"
    assert runs_of(world) == 2


def test_an_unlimited_key_still_merges_an_inline_recipient(world):
    _, key = api_key_create(name=unique("all"))
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    person = world["person"].key
    body = {
        "workflow": world["mine"].key,
        "idempotency_key": unique("k"),
        "recipient": {"id": person, "email": "changed@example.com"},
    }

    assert api.post("/api/triggers/", body, format="json").status_code == 201
    assert Recipient.objects.get(key=person).email == "changed@example.com"


def test_an_inline_recipient_costs_a_limited_key_the_statements_it_costs_any_key(world):
    """The check rides in the statement that would have upserted the profile (recipients/sql.py
    CREATE_OR_COMPARE_SQL): no round trip more, whether the recipient is new or stored."""
    _, key = api_key_create(name=unique("all"))
    unlimited = {**world, "api": APIClient()}
    unlimited["api"].credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    person = world["person"].key
    counts = {}
    for name, caller in (("limited", world), ("unlimited", unlimited)):
        trigger(caller, person)  # warm: the key, the workflow, the prepared statements
        for case, recipient in (("new", {"id": unique("new")}), ("stored", {"id": person})):
            with CaptureQueriesContext(connection) as queries:
                assert trigger(caller, recipient)[0] == 201
            counts[name, case] = len(queries.captured_queries)

    assert counts["limited", "new"] == counts["unlimited", "new"]
    assert counts["limited", "stored"] == counts["unlimited", "stored"]


def test_a_limited_key_triggers_a_topic_for_its_own_workflow_only(world, published):  # noqa: F811
    """A topic's trigger reads and changes no one: such a key may fan its own workflow out to a
    topic (capped and charged to its rate), never another's."""
    before = people_and_theirs(world)
    body = {"idempotency_key": unique("k"), "topic": world["topic"].key}

    other = world["api"].post(
        "/api/triggers/", {**body, "workflow": world["other"].key}, format="json"
    )
    assert other.status_code == 403
    started = world["api"].post(
        "/api/triggers/", {**body, "workflow": world["mine"].key}, format="json"
    )
    assert started.status_code == 202, started.content
    after = people_and_theirs(world)
    mine = str(world["mine"].key)
    after["fanouts"] = [f for f in after["fanouts"] if f["workflow_key"] != mine]
    assert after == before


# --- every operation of the schema ----------------------------------------------------------


def _results(response: Any) -> list[dict[str, Any]]:
    assert response.status_code == 200, response.content
    return response.json()["results"]


def _funnel_probe(api: APIClient, world: dict[str, Any]) -> bool:
    """Another workflow's funnel is a 404, for any tenant; its own is read, of a tenant too."""
    tenant = tenant_put(tenant_id=unique("limits"), fields={"name": "Limits"})[0].id
    mine, other = world["mine"].key, world["other"].key
    return (
        api.get(f"/api/workflows/{other}/funnel/").status_code == 404
        and api.get(f"/api/workflows/{other}/funnel/", {"tenant": tenant}).status_code == 404
        and api.get(f"/api/workflows/{mine}/funnel/").status_code == 200
        and api.get(f"/api/workflows/{mine}/funnel/", {"tenant": tenant}).status_code == 200
    )


def _event() -> dict[str, Any]:
    """The event the other workflow's run waits for."""
    return {"name": "order.paid", "id": unique("evt"), "data": {"order_id": "o-1"}}


# For each operation a limited key may call (filtered or checked): a request aimed at the
# other workflow's objects, and what shows that it did not reach them (with the state check
# every operation of the walk gets).
OUTSIDE: dict[tuple[str, str], Callable[[APIClient, dict[str, Any]], bool]] = {
    ("get", "/api/workflows/"): lambda api, w: all(
        r["key"] != w["other"].key for r in _results(api.get("/api/workflows/"))
    ),
    ("get", "/api/workflows/{key}/"): lambda api, w: (
        api.get(f"/api/workflows/{w['other'].key}/").status_code == 404
    ),
    ("get", "/api/workflows/{key}/stats/"): lambda api, w: (
        api.get(f"/api/workflows/{w['other'].key}/stats/").status_code == 404
    ),
    ("get", "/api/workflows/{key}/funnel/"): lambda api, w: _funnel_probe(api, w),
    ("get", "/api/workflows/{key}/versions/"): lambda api, w: (
        api.get(f"/api/workflows/{w['other'].key}/versions/").status_code == 404
        and api.get(f"/api/workflows/{w['mine'].key}/versions/").status_code == 200
    ),
    ("get", "/api/workflows/{key}/versions/{number}/"): lambda api, w: (
        api.get(f"/api/workflows/{w['other'].key}/versions/1/").status_code == 404
        and api.get(f"/api/workflows/{w['mine'].key}/versions/1/").status_code == 200
    ),
    ("post", "/api/events/"): lambda api, w: (
        api.post("/api/events/", _event(), format="json").json()["resumed"] == 0
    ),
    ("post", "/api/events/bulk/"): lambda api, w: (
        _results(api.post("/api/events/bulk/", {"events": [_event()]}, format="json"))[0]["resumed"]
        == 0
    ),
    ("get", "/api/triggers/"): lambda api, w: (
        all(r["workflow"] != w["other"].key for r in _results(api.get("/api/triggers/")))
        and _results(api.get(f"/api/triggers/?workflow={w['other'].key}")) == []
    ),
    ("post", "/api/triggers/"): lambda api, w: (
        api.post(
            "/api/triggers/",
            {"workflow": w["other"].key, "idempotency_key": unique("k")},
            format="json",
        ).status_code
        == 403
    ),
    ("post", "/api/triggers/bulk/"): lambda api, w: (
        _results(
            api.post(
                "/api/triggers/bulk/",
                {"triggers": [{"workflow": w["other"].key, "idempotency_key": unique("k")}]},
                format="json",
            )
        )[0]["status"]
        == 403
    ),
    ("post", "/api/triggers/cancel/"): lambda api, w: (
        api.post("/api/triggers/cancel/", {"cancellation_key": "theirs"}, format="json").json()
        == {"cancelled": 0, "ids": []}
    ),
    ("get", "/api/triggers/{trigger_id}/"): lambda api, w: (
        api.get(f"/api/triggers/{w['theirs'].pk}/").status_code == 404
    ),
    ("get", "/api/triggers/{trigger_id}/logs/"): lambda api, w: (
        api.get(f"/api/triggers/{w['theirs'].pk}/logs/").status_code == 404
    ),
    # The same 404 as reading the run.
    ("get", "/api/triggers/{trigger_id}/explain/"): lambda api, w: (
        (story := api.get(f"/api/triggers/{w['theirs'].pk}/explain/")).status_code == 404
        and story.json() == api.get(f"/api/triggers/{w['theirs'].pk}/").json()
    ),
    ("post", "/api/triggers/{trigger_id}/cancel/"): lambda api, w: (
        api.post(f"/api/triggers/{w['theirs'].pk}/cancel/").status_code == 404
    ),
    ("get", "/api/triggers/{trigger_id}/deliveries/"): lambda api, w: (
        api.get(f"/api/triggers/{w['theirs'].pk}/deliveries/").status_code == 404
    ),
    ("get", "/api/fanouts/{fanout_id}/"): lambda api, w: (
        api.get(f"/api/fanouts/{w['fanout'].pk}/").status_code == 404
    ),
    ("post", "/api/fanouts/{fanout_id}/cancel/"): lambda api, w: (
        api.post(
            f"/api/fanouts/{w['fanout'].pk}/cancel/", {"runs": True}, format="json"
        ).status_code
        == 404
    ),
    ("get", "/api/schedules/"): lambda api, w: (
        all(r["workflow"] != w["other"].key for r in _results(api.get("/api/schedules/")))
        and _results(api.get(f"/api/schedules/?workflow={w['other'].key}")) == []
    ),
    ("get", "/api/schedules/{schedule_id}/"): lambda api, w: (
        api.get(f"/api/schedules/{w['schedule'].pk}/").status_code == 404
    ),
    # Replacing another's schedule is a 404, as reading it; naming another's workflow a 403.
    ("put", "/api/schedules/{schedule_id}/"): lambda api, w: (
        api.put(
            f"/api/schedules/{w['schedule'].pk}/",
            {"workflow": w["mine"].key, "recipients": ["x"], "repeat": "FREQ=DAILY"},
            format="json",
        ).status_code
        == 404
        and api.put(
            f"/api/schedules/{unique('new')}/",
            {"workflow": w["other"].key, "recipients": ["x"], "repeat": "FREQ=DAILY"},
            format="json",
        ).status_code
        == 403
    ),
    ("delete", "/api/schedules/{schedule_id}/"): lambda api, w: (
        api.delete(f"/api/schedules/{w['schedule'].pk}/").status_code == 404
    ),
    ("get", "/api/logs/"): lambda api, w: (
        all(r["trigger"] != str(w["theirs"].pk) for r in _results(api.get("/api/logs/")))
        and _results(api.get(f"/api/logs/?trigger={w['theirs'].pk}")) == []
    ),
}


def _concrete(path: str, world: dict[str, Any]) -> str:
    """The schema's path with each parameter an object of the other workflow, or of people."""
    values = {
        "key": world["other"].key,
        "trigger_id": world["theirs"].pk,
        "fanout_id": world["fanout"].pk,
        "action_id": world["fanout"].pk,  # any uuid: admin only
        "schedule_id": world["schedule"].pk,
        "recipient_id": world["person"].key,
        "recipient_key": world["person"].key,
        "topic_key": world["topic"].key,
        "endpoint_id": world["fanout"].pk,  # any uuid: admin only
        "suppression_id": 1,
        "channel": "fcm",
        "category_slug": "marketing",
        "number": 1,
        "locale": "fr",
        "tenant_id": "acme",  # admin only
    }
    return re.sub(r"\{(\w+)\}", lambda m: str(values[m.group(1)]), path)


def test_every_operation_of_the_schema_keeps_a_limited_key_to_its_declaration(world):
    assert StepExecutionLog.objects.filter(trigger=world["theirs"]).exists()  # something to hide
    schema = APIClient().get("/api/schema/?format=json").json()
    before = people_and_theirs(world)
    checked: set[tuple[str, str]] = set()
    for path, operations in schema["paths"].items():
        for method, operation in operations.items():
            if not operation.get("security") or path in ("/api/schema/", "/api/docs/"):
                continue
            url = _concrete(path, world)
            view = resolve(url).func.cls  # type: ignore[attr-defined]
            if getattr(view, "recipient_token", False):
                # The feed API takes a recipient's token, never an API key.
                response = getattr(world["api"], method)(url, {}, format="json")
                assert response.status_code == 401, (method, path)
                continue
            scope = required_scope(view, method)
            limit = workflow_limit(view, method)
            if scope == ADMIN or isinstance(limit, Refused):
                response = getattr(world["api"], method)(url, {}, format="json")
                lacks = "this API key lacks the 'admin' scope"
                if scope != ADMIN and isinstance(limit, Refused):
                    lacks = limited_refusal(world["workflows"], limit.what)
                assert response.status_code == 403, (method, path)
                assert response.json()["detail"] == lacks, (method, path)
            else:
                assert limit in (FILTERED, CHECKED)
                probe = OUTSIDE.get((method, path))
                assert probe is not None, f"{method} {path} is {limit}: add its probe to OUTSIDE"
                assert probe(world["api"], world), (method, path)
                checked.add((method, path))
            assert people_and_theirs(world) == before, (method, path)
    assert checked == set(OUTSIDE)
    assert TriggerInstance.objects.get(pk=world["theirs"].pk).status == "waiting"
