"""Every API call the clients make, described once (`Call`s, no I/O): `Notiflow` and
`AsyncNotiflow` each only send them. Paths, bodies and what each answer becomes live here."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Callable, TypeVar, Union

from ._core import Call, Page, new_idempotency_key, quoted
from .errors import error_for
from .models import (
    BulkItem,
    Cancelled,
    Delivery,
    EventResult,
    Fanout,
    Model,
    Recipient,
    Run,
    StepLog,
    Subscriber,
    Subscription,
    SubscriptionChange,
    Tenant,
    Topic,
)

M = TypeVar("M", bound=Model)
RecipientRef = Union[str, Mapping[str, Any]]
# The server's longest `?wait=`: a longer wait is several calls (runs_wait).
WAIT_MAX = 30.0


def _one(model: type[M]) -> Callable[[Any], M]:
    return model.from_json


def _many(model: type[M]) -> Callable[[Any], list[M]]:
    return lambda body: [model.from_json(item) for item in body]


def _nothing(body: Any) -> None:
    return None


def as_is(body: Any) -> Any:
    return body


def any_call(
    method: str,
    path: str,
    *,
    json: Any = None,
    params: Mapping[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> Call[Any]:
    """Any API call (`client.request`): its decoded JSON answer as it is (None for 204)."""
    return Call(
        method.upper(), path, as_is, json=json, params=params, idempotency_key=idempotency_key
    )


def numbered_pages(
    path: str, model: type[M], params: Mapping[str, Any], page: int = 1
) -> Call[Page[M]]:
    """A list the API pages by `?page=` (`{"results", "next"}`): page after page while `next`."""

    def parse(body: Any) -> Page[M]:
        items = [model.from_json(item) for item in body["results"]]
        following = numbered_pages(path, model, params, page + 1) if body.get("next") else None
        return Page(items, following)

    return Call("GET", path, parse, params={**params, "page": page if page > 1 else None})


def cursor_pages(path: str, model: type[M], cursor: str | None = None) -> Call[Page[M]]:
    """A list the API pages by an opaque cursor (`{"results", "next_cursor"}`)."""

    def parse(body: Any) -> Page[M]:
        items = [model.from_json(item) for item in body["results"]]
        following = (
            cursor_pages(path, model, body["next_cursor"]) if body.get("next_cursor") else None
        )
        return Page(items, following)

    return Call("GET", path, parse, params={"cursor": cursor})


# Runs (the API's triggers).


def trigger(
    workflow: str,
    *,
    payload: Mapping[str, Any] | None,
    recipient: RecipientRef | None,
    topic: str | None,
    exclude: Iterable[str] | None,
    idempotency_key: str | None,
    priority: int | None,
    cancellation_key: str | None,
    tenant: str | None,
) -> Call[Run | Fanout]:
    body = trigger_body(
        {
            "workflow": workflow,
            "payload": payload,
            "recipient": recipient,
            "topic": topic,
            "exclude": list(exclude) if exclude is not None else None,
            "idempotency_key": idempotency_key,
            "priority": priority,
            "cancellation_key": cancellation_key,
            "tenant": tenant,
        }
    )
    return Call("POST", "/api/triggers/", _run_or_fanout, json=body)


def trigger_body(item: Mapping[str, Any]) -> dict[str, Any]:
    """A trigger's body: the fields given (None is left out), its idempotency key made when the
    caller gave none, and an empty payload when it gave none."""
    body = {name: value for name, value in item.items() if value is not None}
    body.setdefault("payload", {})
    body.setdefault("idempotency_key", new_idempotency_key())
    return body


def _run_or_fanout(body: Any) -> Run | Fanout:
    return Fanout.from_json(body) if "fanout_id" in body else Run.from_json(body)


def trigger_bulk(items: Iterable[Mapping[str, Any]]) -> Call[list[BulkItem]]:
    body = {"triggers": [trigger_body(item) for item in items]}

    def parse(answer: Any) -> list[BulkItem]:
        return [_bulk_item(result) for result in answer["results"]]

    return Call("POST", "/api/triggers/bulk/", parse, json=body)


def _bulk_item(result: Mapping[str, Any]) -> BulkItem:
    status = int(result["status"])
    if "trigger" in result:
        return BulkItem(int(result["index"]), status, Run.from_json(result["trigger"]), None)
    return BulkItem(int(result["index"]), status, None, error_for(status, dict(result)))


def run_get(run_id: str, wait: float | None = None) -> Call[Run]:
    seconds = min(wait, WAIT_MAX) if wait else None
    return Call(
        "GET",
        f"/api/triggers/{quoted(run_id)}/",
        _one(Run),
        params={"wait": format(seconds, "g") if seconds else None},
        extra_timeout=seconds or 0.0,
    )


def run_cancel(run_id: str) -> Call[Run]:
    return Call("POST", f"/api/triggers/{quoted(run_id)}/cancel/", _one(Run))


def runs_cancel_by_key(key: str, workflow: str | None) -> Call[Cancelled]:
    body = {"cancellation_key": key, **({"workflow": workflow} if workflow is not None else {})}
    return Call("POST", "/api/triggers/cancel/", _one(Cancelled), json=body)


def run_logs(run_id: str) -> Call[list[StepLog]]:
    return Call("GET", f"/api/triggers/{quoted(run_id)}/logs/", _many(StepLog))


def run_deliveries(run_id: str) -> Call[list[Delivery]]:
    return Call("GET", f"/api/triggers/{quoted(run_id)}/deliveries/", _many(Delivery))


def runs_list(
    workflow: str | None, status: str | None, recipient: str | None, deleted: bool | None
) -> Call[Page[Run]]:
    params = {
        "workflow": workflow,
        "status": status,
        "recipient": recipient,
        "deleted": None if deleted is None else str(deleted).lower(),
    }
    return numbered_pages("/api/triggers/", Run, params)


# Events.


def event_send(name: str, event_id: str, data: Mapping[str, Any] | None) -> Call[EventResult]:
    body = {"name": name, "id": event_id, "data": dict(data or {})}
    return Call("POST", "/api/events/", _one(EventResult), json=body)


# Recipients.


def _recipient(recipient_id: str) -> str:
    return f"/api/recipients/{quoted(recipient_id)}/"


def recipient_upsert(recipient_id: str, profile: Mapping[str, Any]) -> Call[Recipient]:
    return Call("PATCH", _recipient(recipient_id), _one(Recipient), json=dict(profile))


def recipient_get(recipient_id: str) -> Call[Recipient]:
    return Call("GET", _recipient(recipient_id), _one(Recipient))


def recipient_delete(recipient_id: str) -> Call[Any]:
    return Call("DELETE", _recipient(recipient_id), as_is)


def preferences_get(recipient_id: str) -> Call[Any]:
    return Call("GET", _recipient(recipient_id) + "preferences/", as_is)


def preferences_set(recipient_id: str, preferences: Mapping[str, Any]) -> Call[Any]:
    return Call("PUT", _recipient(recipient_id) + "preferences/", as_is, json=dict(preferences))


def preferences_update(recipient_id: str, changes: Mapping[str, Any]) -> Call[Any]:
    return Call("PATCH", _recipient(recipient_id) + "preferences/", as_is, json=dict(changes))


def _token(body: Any) -> str:
    return str(body["token"])


def inbox_token(recipient_id: str) -> Call[str]:
    return Call("POST", _recipient(recipient_id) + "inbox-token/", _token)


def inbox_token_rotate(recipient_id: str) -> Call[str]:
    return Call("POST", _recipient(recipient_id) + "inbox-token/rotate/", _token)


def recipient_topics(recipient_id: str) -> Call[Page[Subscription]]:
    return numbered_pages(_recipient(recipient_id) + "topics/", Subscription, {})


def channel_add(recipient_id: str, channel: str, address: Any) -> Call[Any]:
    path = _recipient(recipient_id) + f"channels/{quoted(channel)}/"
    return Call("POST", path, as_is, json={"address": address})


def channel_remove(recipient_id: str, channel: str, address: Any) -> Call[None]:
    path = _recipient(recipient_id) + f"channels/{quoted(channel)}/"
    return Call("DELETE", path, _nothing, json={"address": address})


# Topics and fan-outs.


def _topic(key: str) -> str:
    return f"/api/topics/{quoted(key)}/"


def topic_get(key: str) -> Call[Topic]:
    return Call("GET", _topic(key), _one(Topic))


def topic_upsert(key: str, name: str, description: str) -> Call[Topic]:
    body = {"name": name, "description": description}
    return Call("PUT", _topic(key), _one(Topic), json=body)


def topic_delete(key: str) -> Call[None]:
    return Call("DELETE", _topic(key), _nothing)


def topics_list() -> Call[Page[Topic]]:
    return numbered_pages("/api/topics/", Topic, {})


def topic_subscribers(key: str) -> Call[Page[Subscriber]]:
    return cursor_pages(_topic(key) + "subscribers/", Subscriber)


def topic_subscribe(
    key: str, recipients: Iterable[str], *, remove: bool = False
) -> Call[list[SubscriptionChange]]:
    def parse(body: Any) -> list[SubscriptionChange]:
        return [SubscriptionChange.from_json(result) for result in body["results"]]

    method = "DELETE" if remove else "POST"
    return Call(method, _topic(key) + "subscribers/", parse, json={"recipients": list(recipients)})


# Tenants (an `admin` key).


def _tenant(tenant_id: str) -> str:
    return f"/api/tenants/{quoted(tenant_id)}/"


def tenant_get(tenant_id: str) -> Call[Tenant]:
    return Call("GET", _tenant(tenant_id), _one(Tenant))


def tenant_put(tenant_id: str, fields: Mapping[str, Any]) -> Call[Tenant]:
    """Create or replace: every field is set, those left out emptied (the API's PUT)."""
    body = {name: value for name, value in fields.items() if value is not None}
    return Call("PUT", _tenant(tenant_id), _one(Tenant), json=body)


def tenant_delete(tenant_id: str) -> Call[None]:
    return Call("DELETE", _tenant(tenant_id), _nothing)


def tenants_list() -> Call[Page[Tenant]]:
    return numbered_pages("/api/tenants/", Tenant, {})


def fanout_get(fanout_id: str) -> Call[Fanout]:
    return Call("GET", f"/api/fanouts/{quoted(fanout_id)}/", _one(Fanout))


def fanout_cancel(fanout_id: str, runs: bool) -> Call[Fanout]:
    return Call(
        "POST", f"/api/fanouts/{quoted(fanout_id)}/cancel/", _one(Fanout), json={"runs": runs}
    )
