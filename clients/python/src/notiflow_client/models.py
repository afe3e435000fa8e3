"""What the API answers, as typed objects. Each keeps the whole answer in `raw`, so a field a
newer server adds is readable before the client names it. Times are `datetime`s (UTC).

No `from __future__ import annotations` here: `from_json` reads the fields' types at run time,
which Python 3.9 can do for `Optional[...]` and not for `X | None`."""

import dataclasses
import datetime as dt
import sys
from typing import Any, ClassVar, Optional, TypeVar, get_type_hints

from .errors import NotiflowError

_Model = TypeVar("_Model", bound="Model")
_FINISHED = frozenset({"completed", "failed", "cancelled"})
_TIMES = (dt.datetime, Optional[dt.datetime])


def parse_time(value: Any) -> Optional[dt.datetime]:
    """An RFC 3339 time as the API writes it (`2026-11-28T10:00:00.123456Z`)."""
    if not isinstance(value, str) or not value:
        return None
    if value.endswith("Z") and sys.version_info < (3, 11):
        value = value[:-1] + "+00:00"  # fromisoformat reads `Z` from 3.11 on
    return dt.datetime.fromisoformat(value)


@dataclasses.dataclass(frozen=True)
class Model:
    """A decoded answer: the fields a subclass names, and `raw`, the answer whole."""

    raw: dict[str, Any] = dataclasses.field(repr=False, compare=False)

    _hints: ClassVar[dict[type, dict[str, Any]]] = {}

    @classmethod
    def from_json(cls: type[_Model], data: dict[str, Any]) -> _Model:
        hints = Model._hints.get(cls)
        if hints is None:
            hints = Model._hints[cls] = get_type_hints(cls)
        values: dict[str, Any] = {}
        for field in dataclasses.fields(cls):
            if field.name == "raw":
                continue
            value = data.get(field.name)
            values[field.name] = parse_time(value) if hints[field.name] in _TIMES else value
        return cls(raw=data, **values)


@dataclasses.dataclass(frozen=True)
class Run(Model):
    """A run of a workflow (the API's trigger: `GET /api/triggers/<id>/`)."""

    id: str
    workflow: str
    workflow_version: int
    status: str
    idempotency_key: str
    cancellation_key: str
    recipient: str
    locale: str
    tenant: str
    payload: dict[str, Any]
    priority: int
    cursor: Optional[str]
    vars: dict[str, Any]
    attempts: int
    available_at: Optional[dt.datetime]
    lease_until: Optional[dt.datetime]
    leased_by: str
    last_error: str
    created_at: Optional[dt.datetime]
    updated_at: Optional[dt.datetime]
    completed_at: Optional[dt.datetime]
    deleted_at: Optional[dt.datetime]
    delete_reason: str
    trace_id: str

    @property
    def finished(self) -> bool:
        """Completed, failed or cancelled: it will not change again."""
        return self.status in _FINISHED


@dataclasses.dataclass(frozen=True)
class Fanout(Model):
    """A trigger for a whole topic (`GET /api/fanouts/<id>/`); `runs_cancelled` only in a
    cancel's answer."""

    fanout_id: str
    workflow: str
    topic: str
    idempotency_key: str
    status: str
    created: int
    exclude: list[str]
    priority: Optional[int]
    cancellation_key: str
    tenant: str
    payload: dict[str, Any]
    last_error: str
    created_at: Optional[dt.datetime]
    updated_at: Optional[dt.datetime]
    finished_at: Optional[dt.datetime]
    runs_cancelled: Optional[int]

    @property
    def id(self) -> str:
        return self.fanout_id


@dataclasses.dataclass(frozen=True)
class StepLog(Model):
    """One attempt of one node of a run (`GET /api/triggers/<id>/logs/`)."""

    id: int
    trigger: str
    workflow: str
    node_id: str
    node_type: str
    attempt: int
    started_at: Optional[dt.datetime]
    finished_at: Optional[dt.datetime]
    input: Any
    output: Any
    success: bool
    error: str


@dataclasses.dataclass(frozen=True)
class Delivery(Model):
    """What a provider reported about a run's message (`GET /api/triggers/<id>/deliveries/`)."""

    node_id: str
    channel: str
    provider: str
    event: str
    recipient: str
    provider_message_id: str
    occurred_at: Optional[dt.datetime]
    received_at: Optional[dt.datetime]
    description: str


@dataclasses.dataclass(frozen=True)
class Cancelled(Model):
    """What a cancel by cancellation key did: how many runs, and their ids."""

    cancelled: int
    ids: list[str]


@dataclasses.dataclass(frozen=True)
class EventResult(Model):
    """A posted event: `resumed` is how many waiting runs it resumed."""

    id: str
    name: str
    resumed: int


@dataclasses.dataclass(frozen=True)
class Recipient(Model):
    """A person's profile (`GET /api/recipients/<id>/`)."""

    id: str
    email: str
    phone: str
    name: str
    locale: str
    timezone: str
    # {"start", "end", "days"?} in the person's zone, or {} for none (docs/quiet-hours.md).
    quiet_hours: dict[str, Any]
    channels: dict[str, Any]
    properties: dict[str, Any]
    created_at: Optional[dt.datetime]
    updated_at: Optional[dt.datetime]


@dataclasses.dataclass(frozen=True)
class Topic(Model):
    """An audience (`GET /api/topics/<key>/`); `subscribers` is a count."""

    key: str
    name: str
    description: str
    subscribers: int
    created_at: Optional[dt.datetime]


@dataclasses.dataclass(frozen=True)
class Tenant(Model):
    """An organisation the deployment sends for (`GET /api/tenants/<id>/`): what its runs'
    templates read as `tenant.*`, the locale and layout its runs prefer and its defaults per
    preference category ({category: {channel: bool}})."""

    id: str
    name: str
    properties: dict[str, Any]
    default_locale: str
    layout: str
    preferences: dict[str, Any]
    created_at: Optional[dt.datetime]
    updated_at: Optional[dt.datetime]
    updated_by: str


@dataclasses.dataclass(frozen=True)
class Subscriber(Model):
    """One subscription of a topic, as its subscriber list shows it."""

    recipient: str
    subscribed_at: Optional[dt.datetime]


@dataclasses.dataclass(frozen=True)
class Subscription(Model):
    """One of a person's topics (`GET /api/recipients/<id>/topics/`)."""

    key: str
    name: str
    description: str
    subscribed_at: Optional[dt.datetime]


@dataclasses.dataclass(frozen=True)
class SubscriptionChange(Model):
    """What subscribing or unsubscribing did to one id: `status` 201 subscribed now, 200
    already so (`changed` says whether it was), 404 no such person (`detail`)."""

    index: int
    recipient: str
    status: int
    subscribed: Optional[bool]
    changed: Optional[bool]
    detail: Optional[str]


@dataclasses.dataclass(frozen=True)
class BulkItem:
    """One item of `trigger_bulk`, in request order: `status` is what the single request would
    have answered; `run` when it succeeded, else `error`, the exception the single
    call would have raised (not raised here)."""

    index: int
    status: int
    run: Optional[Run]
    error: Optional[NotiflowError]
