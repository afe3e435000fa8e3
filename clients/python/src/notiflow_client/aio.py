"""`AsyncNotiflow`: `Notiflow`'s methods as coroutines (lists as async iterators), on httpx's
async client. The calls are `_calls.py`'s and the retry rule `_core.py`'s, as the sync client's;
each method's contract is written on `Notiflow`'s."""

from __future__ import annotations

import asyncio
import builtins
import time
from collections.abc import AsyncIterator, Iterable, Mapping
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


class AsyncNotiflow:
    """`Notiflow` for asyncio: `async with AsyncNotiflow(url, key) as client: await
    client.trigger("welcome", recipient="user-42")`."""

    def __init__(
        self,
        base_url: str | None = None,
        api_key: str | None = None,
        *,
        timeout: float = 10,
        retries: int = 3,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self._settings = Settings.resolve(base_url, api_key, timeout, retries)
        self._http = httpx.AsyncClient(**self._settings.http_options(), transport=transport)
        self.runs = AsyncRuns(self)
        self.events = AsyncEvents(self)
        self.recipients = AsyncRecipients(self)
        self.topics = AsyncTopics(self)
        self.fanouts = AsyncFanouts(self)
        self.tenants = AsyncTenants(self)

    async def __aenter__(self) -> AsyncNotiflow:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    async def close(self) -> None:
        await self._http.aclose()

    @overload
    async def trigger(
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
    async def trigger(
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

    async def trigger(
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
        started = await self._send(call)
        if wait and isinstance(started, Run) and not started.finished:
            return await self.runs.get(started.id, wait=wait)
        return started

    async def trigger_bulk(self, items: Iterable[Mapping[str, Any]]) -> list[BulkItem]:
        return await self._send(calls.trigger_bulk(items))

    async def request(
        self,
        method: str,
        path: str,
        *,
        json: Any = None,
        params: Mapping[str, Any] | None = None,
        idempotency_key: str | None = None,
    ) -> Any:
        call = calls.any_call(
            method, path, json=json, params=params, idempotency_key=idempotency_key
        )
        return await self._send(call)

    async def _send(self, call: Call[T]) -> T:
        attempts = Attempts(self._http, self._settings, call)
        while True:
            try:
                return attempts.answer(await self._http.send(attempts.request))
            except (httpx.TransportError, NotiflowError) as failure:
                await asyncio.sleep(attempts.delay_after(failure))

    async def _pages(self, call: Call[Page[T]] | None) -> AsyncIterator[T]:
        while call is not None:
            page = await self._send(call)
            for item in page.items:
                yield item
            call = page.next


class _AsyncResource:
    def __init__(self, client: AsyncNotiflow) -> None:
        self._client = client


class AsyncRuns(_AsyncResource):
    async def get(self, run_id: str, wait: float | None = None) -> Run:
        deadline = time.monotonic() + wait if wait else 0.0
        run = await self._client._send(calls.run_get(run_id, wait))
        while not run.finished and time.monotonic() < deadline:
            run = await self._client._send(calls.run_get(run_id, deadline - time.monotonic()))
        return run

    async def cancel(self, run_id: str) -> Run:
        return await self._client._send(calls.run_cancel(run_id))

    async def cancel_by_key(self, key: str, workflow: str | None = None) -> Cancelled:
        return await self._client._send(calls.runs_cancel_by_key(key, workflow))

    async def logs(self, run_id: str) -> builtins.list[StepLog]:
        return await self._client._send(calls.run_logs(run_id))

    async def deliveries(self, run_id: str) -> builtins.list[Delivery]:
        return await self._client._send(calls.run_deliveries(run_id))

    def list(
        self,
        *,
        workflow: str | None = None,
        status: str | None = None,
        recipient: str | None = None,
        deleted: bool | None = None,
    ) -> AsyncIterator[Run]:
        return self._client._pages(calls.runs_list(workflow, status, recipient, deleted))


class AsyncEvents(_AsyncResource):
    async def send(self, name: str, id: str, data: Mapping[str, Any] | None = None) -> EventResult:
        return await self._client._send(calls.event_send(name, id, data))


class AsyncPreferences(_AsyncResource):
    async def get(self, recipient_id: str) -> dict[str, Any]:
        return dict(await self._client._send(calls.preferences_get(recipient_id)))

    async def set(self, recipient_id: str, preferences: Mapping[str, Any]) -> dict[str, Any]:
        return dict(await self._client._send(calls.preferences_set(recipient_id, preferences)))

    async def update(self, recipient_id: str, changes: Mapping[str, Any]) -> dict[str, Any]:
        return dict(await self._client._send(calls.preferences_update(recipient_id, changes)))


class AsyncChannels(_AsyncResource):
    async def add(self, recipient_id: str, channel: str, address: Any) -> dict[str, Any]:
        return dict(await self._client._send(calls.channel_add(recipient_id, channel, address)))

    async def remove(self, recipient_id: str, channel: str, address: Any) -> None:
        await self._client._send(calls.channel_remove(recipient_id, channel, address))


class AsyncRecipients(_AsyncResource):
    def __init__(self, client: AsyncNotiflow) -> None:
        super().__init__(client)
        self.preferences = AsyncPreferences(client)
        self.channels = AsyncChannels(client)

    async def upsert(self, recipient_id: str, **profile: Any) -> Recipient:
        return await self._client._send(calls.recipient_upsert(recipient_id, profile))

    async def get(self, recipient_id: str) -> Recipient:
        return await self._client._send(calls.recipient_get(recipient_id))

    async def delete(self, recipient_id: str) -> dict[str, Any]:
        return dict(await self._client._send(calls.recipient_delete(recipient_id)))

    async def inbox_token(self, recipient_id: str) -> str:
        return await self._client._send(calls.inbox_token(recipient_id))

    async def rotate_inbox_token(self, recipient_id: str) -> str:
        return await self._client._send(calls.inbox_token_rotate(recipient_id))

    def topics(self, recipient_id: str) -> AsyncIterator[Subscription]:
        return self._client._pages(calls.recipient_topics(recipient_id))


class AsyncTopics(_AsyncResource):
    async def get(self, key: str) -> Topic:
        return await self._client._send(calls.topic_get(key))

    async def upsert(self, key: str, *, name: str = "", description: str = "") -> Topic:
        return await self._client._send(calls.topic_upsert(key, name, description))

    async def delete(self, key: str) -> None:
        await self._client._send(calls.topic_delete(key))

    def list(self) -> AsyncIterator[Topic]:
        return self._client._pages(calls.topics_list())

    def subscribers(self, key: str) -> AsyncIterator[Subscriber]:
        return self._client._pages(calls.topic_subscribers(key))

    async def subscribe(
        self, key: str, recipients: Iterable[str]
    ) -> builtins.list[SubscriptionChange]:
        return await self._client._send(calls.topic_subscribe(key, recipients))

    async def unsubscribe(
        self, key: str, recipients: Iterable[str]
    ) -> builtins.list[SubscriptionChange]:
        return await self._client._send(calls.topic_subscribe(key, recipients, remove=True))


class AsyncTenants(_AsyncResource):
    async def get(self, tenant_id: str) -> Tenant:
        return await self._client._send(calls.tenant_get(tenant_id))

    async def put(
        self,
        tenant_id: str,
        *,
        name: str,
        properties: Mapping[str, Any] | None = None,
        default_locale: str | None = None,
        layout: str | None = None,
        preferences: Mapping[str, Any] | None = None,
    ) -> Tenant:
        fields = {
            "name": name,
            "properties": properties,
            "default_locale": default_locale,
            "layout": layout,
            "preferences": preferences,
        }
        return await self._client._send(calls.tenant_put(tenant_id, fields))

    async def delete(self, tenant_id: str) -> None:
        await self._client._send(calls.tenant_delete(tenant_id))

    def list(self) -> AsyncIterator[Tenant]:
        return self._client._pages(calls.tenants_list())


class AsyncFanouts(_AsyncResource):
    async def get(self, fanout_id: str) -> Fanout:
        return await self._client._send(calls.fanout_get(fanout_id))

    async def cancel(self, fanout_id: str, *, runs: bool = False) -> Fanout:
        return await self._client._send(calls.fanout_cancel(fanout_id, runs))
