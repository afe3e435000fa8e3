"""`Notiflow`: the synchronous client. Every call is described once in `_calls.py`; this module
sends them with retries (`_core.py`) and pages through lists lazily."""

from __future__ import annotations

import builtins
import time
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, TypeVar, overload

import httpx

from . import _calls as calls
from ._core import Attempts, Call, Page, Settings
from .errors import NotiflowError
from .models import (
    BulkItem,
    Cancelled,
    Delivery,
    EventResult,
    Fanout,
    Recipient,
    Run,
    StepLog,
    Subscriber,
    Subscription,
    SubscriptionChange,
    Tenant,
    Topic,
)

T = TypeVar("T")


class Notiflow:
    """A client of one Notiflow: `Notiflow("https://notiflow.example.com", "nf_…")`, or
    `Notiflow()` with `NOTIFLOW_URL` and `NOTIFLOW_API_KEY` set. `timeout` is per attempt, in
    seconds; `retries` how many times a call is tried again after a connection error, a 5xx or a
    429 (never after another 4xx). `transport` replaces httpx's (a proxy, a test's mock)."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 10,
        retries: int = 3,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self._settings = Settings.resolve(base_url, api_key, timeout, retries)
        self._http = httpx.Client(**self._settings.http_options(), transport=transport)
        self.runs = Runs(self)
        self.events = Events(self)
        self.recipients = Recipients(self)
        self.topics = Topics(self)
        self.fanouts = Fanouts(self)
        self.tenants = Tenants(self)

    def __enter__(self) -> Notiflow:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def close(self) -> None:
        self._http.close()

    @overload
    def trigger(
        self,
        workflow: str,
        *,
        payload: Mapping[str, Any] | None = None,
        recipient: calls.RecipientRef | None = None,
        topic: None = None,
        exclude: None = None,
        idempotency_key: str | None = None,
        priority: int | None = None,
        cancellation_key: str | None = None,
        tenant: str | None = None,
        wait: float | None = None,
    ) -> Run: ...

    @overload
    def trigger(
        self,
        workflow: str,
        *,
        payload: Mapping[str, Any] | None = None,
        recipient: None = None,
        topic: str,
        exclude: Iterable[str] | None = None,
        idempotency_key: str | None = None,
        priority: int | None = None,
        cancellation_key: str | None = None,
        tenant: str | None = None,
        wait: None = None,
    ) -> Fanout: ...

    def trigger(
        self,
        workflow: str,
        *,
        payload: Mapping[str, Any] | None = None,
        recipient: calls.RecipientRef | None = None,
        topic: str | None = None,
        exclude: Iterable[str] | None = None,
        idempotency_key: str | None = None,
        priority: int | None = None,
        cancellation_key: str | None = None,
        tenant: str | None = None,
        wait: float | None = None,
    ) -> Run | Fanout:
        """Start `workflow` (`POST /api/triggers/`) and return its run; with `topic`, one run per
        subscriber but `exclude`, and return the fan-out. `recipient` is a person's id or a
        profile (`{"id", "email", …}`) stored with the run; `tenant`, the id of the tenant it is
        sent for (its branding, locale, layout and preferences; unknown: `BadRequest`). Without
        an `idempotency_key` the client makes one, the same on every retry. `wait` (seconds): return once the run is
        finished or the wait is over. Raises `IdempotencyConflict` when the key was used with
        other parameters, `Unavailable` when no live worker serves the workflow's queue."""
        call = calls.trigger(
            workflow,
            payload=payload,
            recipient=recipient,
            topic=topic,
            exclude=exclude,
            idempotency_key=idempotency_key,
            priority=priority,
            cancellation_key=cancellation_key,
            tenant=tenant,
        )
        started = self._send(call)
        if wait and isinstance(started, Run) and not started.finished:
            return self.runs.get(started.id, wait=wait)
        return started

    def trigger_bulk(self, items: Iterable[Mapping[str, Any]]) -> list[BulkItem]:
        """Up to 1,000 triggers in one request (`POST /api/triggers/bulk/`), each a mapping of
        `trigger`'s keywords (`workflow`, `payload`, `recipient`, `tenant`, …; no `topic`). Each
        item is decided alone: one `BulkItem` per item, in order, its `run` or its `error`."""
        return self._send(calls.trigger_bulk(items))

    def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        """Any API call (`client.request("GET", "/api/workflows/")`): the decoded JSON answer
        (None for 204), with the same retries and errors as every other method."""
        call = calls.any_call(
            method, path, json=json, params=params, idempotency_key=idempotency_key
        )
        return self._send(call)

    def _send(self, call: Call[T]) -> T:
        attempts = Attempts(self._http, self._settings, call)
        while True:
            try:
                return attempts.answer(self._http.send(attempts.request))
            except (httpx.TransportError, NotiflowError) as failure:
                time.sleep(attempts.delay_after(failure))

    def _pages(self, call: Call[Page[T]] | None) -> Iterator[T]:
        while call is not None:
            page = self._send(call)
            yield from page.items
            call = page.next


class _Resource:
    def __init__(self, client: Notiflow) -> None:
        self._client = client


class Runs(_Resource):
    """Runs of workflows (the API's triggers)."""

    def get(self, run_id: str, wait: float | None = None) -> Run:
        """The run; with `wait` (seconds), once it is finished or the wait is over."""
        deadline = time.monotonic() + wait if wait else 0.0
        run = self._client._send(calls.run_get(run_id, wait))
        while not run.finished and time.monotonic() < deadline:
            run = self._client._send(calls.run_get(run_id, deadline - time.monotonic()))
        return run

    def cancel(self, run_id: str) -> Run:
        """Cancel a run that has not finished (`Conflict` when it has)."""
        return self._client._send(calls.run_cancel(run_id))

    def cancel_by_key(self, key: str, workflow: str | None = None) -> Cancelled:
        """Cancel every unfinished run carrying the cancellation key (of `workflow`, or all)."""
        return self._client._send(calls.runs_cancel_by_key(key, workflow))

    def logs(self, run_id: str) -> builtins.list[StepLog]:
        """The run's step logs, oldest first."""
        return self._client._send(calls.run_logs(run_id))

    def deliveries(self, run_id: str) -> builtins.list[Delivery]:
        """What the providers reported about the run's messages, oldest first."""
        return self._client._send(calls.run_deliveries(run_id))

    def list(
        self,
        *,
        workflow: str | None = None,
        status: str | None = None,
        recipient: str | None = None,
        deleted: bool | None = None,
    ) -> Iterator[Run]:
        """Runs, newest first, read a page at a time as the iteration goes."""
        return self._client._pages(calls.runs_list(workflow, status, recipient, deleted))


class Events(_Resource):
    def send(self, name: str, id: str, data: Mapping[str, Any] | None = None) -> EventResult:
        """Post an event (`POST /api/events/`): it resumes the runs waiting for it. `id` is the
        event's own, so sending it again resumes nothing twice."""
        return self._client._send(calls.event_send(name, id, data))


class Preferences(_Resource):
    def get(self, recipient_id: str) -> dict[str, Any]:
        """`{"channels", "categories", "workflows"}` of the person."""
        return dict(self._client._send(calls.preferences_get(recipient_id)))

    def set(self, recipient_id: str, preferences: Mapping[str, Any]) -> dict[str, Any]:
        """Replace the person's preferences whole."""
        return dict(self._client._send(calls.preferences_set(recipient_id, preferences)))

    def update(self, recipient_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        """Change the keys given (`None` removes one), keep the rest."""
        return dict(self._client._send(calls.preferences_update(recipient_id, changes)))


class Channels(_Resource):
    def add(self, recipient_id: str, channel: str, address: Any) -> dict[str, Any]:
        """Add one push address (`fcm` a device token, `webpush` a PushSubscription)."""
        return dict(self._client._send(calls.channel_add(recipient_id, channel, address)))

    def remove(self, recipient_id: str, channel: str, address: Any) -> None:
        """Remove it (no error when it was not there)."""
        self._client._send(calls.channel_remove(recipient_id, channel, address))


class Recipients(_Resource):
    """People, under the client's own user ids."""

    def __init__(self, client: Notiflow) -> None:
        super().__init__(client)
        self.preferences = Preferences(client)
        self.channels = Channels(client)

    def upsert(self, recipient_id: str, **profile: Any) -> Recipient:
        """Create the person or merge the fields given into their profile (`email`, `phone`,
        `name`, `locale`, `timezone`, `channels`, `properties`)."""
        return self._client._send(calls.recipient_upsert(recipient_id, profile))

    def get(self, recipient_id: str) -> Recipient:
        return self._client._send(calls.recipient_get(recipient_id))

    def delete(self, recipient_id: str) -> dict[str, Any]:
        """Erase the person (an `admin` key); the answer counts what went."""
        return dict(self._client._send(calls.recipient_delete(recipient_id)))

    def inbox_token(self, recipient_id: str) -> str:
        """The person's inbox token at their current generation, from the server."""
        return self._client._send(calls.inbox_token(recipient_id))

    def rotate_inbox_token(self, recipient_id: str) -> str:
        """Revoke every inbox token of the person; the one that works from now on."""
        return self._client._send(calls.inbox_token_rotate(recipient_id))

    def topics(self, recipient_id: str) -> Iterator[Subscription]:
        """The topics the person is subscribed to."""
        return self._client._pages(calls.recipient_topics(recipient_id))


class Topics(_Resource):
    """Audiences: trigger one with `trigger(workflow, topic=key)`."""

    def get(self, key: str) -> Topic:
        return self._client._send(calls.topic_get(key))

    def upsert(self, key: str, *, name: str = "", description: str = "") -> Topic:
        return self._client._send(calls.topic_upsert(key, name, description))

    def delete(self, key: str) -> None:
        self._client._send(calls.topic_delete(key))

    def list(self) -> Iterator[Topic]:
        return self._client._pages(calls.topics_list())

    def subscribers(self, key: str) -> Iterator[Subscriber]:
        """The topic's subscribers, oldest subscription first."""
        return self._client._pages(calls.topic_subscribers(key))

    def subscribe(self, key: str, recipients: Iterable[str]) -> builtins.list[SubscriptionChange]:
        """Subscribe up to 1,000 people; one result per id, in order."""
        return self._client._send(calls.topic_subscribe(key, recipients))

    def unsubscribe(self, key: str, recipients: Iterable[str]) -> builtins.list[SubscriptionChange]:
        return self._client._send(calls.topic_subscribe(key, recipients, remove=True))


class Tenants(_Resource):
    """The organisations the deployment sends for (an `admin` key): trigger for one with
    `trigger(workflow, tenant=id)`."""

    def get(self, tenant_id: str) -> Tenant:
        return self._client._send(calls.tenant_get(tenant_id))

    def put(
        self,
        tenant_id: str,
        *,
        name: str,
        properties: Mapping[str, Any] | None = None,
        default_locale: str | None = None,
        layout: str | None = None,
        preferences: Mapping[str, Any] | None = None,
    ) -> Tenant:
        """Create or replace the tenant: every field is set, those left out emptied."""
        fields = {
            "name": name,
            "properties": properties,
            "default_locale": default_locale,
            "layout": layout,
            "preferences": preferences,
        }
        return self._client._send(calls.tenant_put(tenant_id, fields))

    def delete(self, tenant_id: str) -> None:
        """Delete it, with its own catalogs and people's preferences for it."""
        self._client._send(calls.tenant_delete(tenant_id))

    def list(self) -> Iterator[Tenant]:
        return self._client._pages(calls.tenants_list())


class Fanouts(_Resource):
    def get(self, fanout_id: str) -> Fanout:
        return self._client._send(calls.fanout_get(fanout_id))

    def cancel(self, fanout_id: str, *, runs: bool = False) -> Fanout:
        """Stop a running fan-out; with `runs`, also cancel the runs it made."""
        return self._client._send(calls.fanout_cancel(fanout_id, runs))
