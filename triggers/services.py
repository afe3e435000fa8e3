"""Trigger intake (the inbox). API keys have their own module, triggers/api_keys.py."""

from __future__ import annotations

import difflib
import hashlib
import json
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import connection, transaction

from common import tracing
from common.db import fetchall_prepared
from common.scopes import limited_refusal
from recipients.services import Profile
from recipients.validation import key_problem
from registry.selectors import worker_command
from registry.sql import live_within_seconds
from tenants.selectors import tenant_problem
from triggers.dispatch import Nudge, triggers_enqueue_on_commit
from triggers.identify import recipients_identify
from triggers.models import TriggerInstance
from triggers.sql import (
    INTAKE_EXISTING_MANY_SQL,
    INTAKE_EXISTING_SQL,
    INTAKE_MANY_SQL,
    INTAKE_MANY_TRACED_SQL,
    INTAKE_REQUEST_FIELDS,
    INTAKE_SQL,
    INTAKE_TRACED_SQL,
    INTAKE_WORKFLOW_COLUMNS,
    STATUS_PARAMS,
    TRIGGER_COLUMNS,
)
from triggers.steps import trigger_from_row
from workflows.locales import locale_problem
from workflows.models import Workflow, WorkflowVersion
from workflows.routing import PRIORITY_MAX, PRIORITY_MIN

MAX_IDEMPOTENCY_KEY_LENGTH = 255


MAX_CANCELLATION_KEY_LENGTH = 255


class TriggerRejected(Exception):
    """The trigger request is invalid; `field` names the culprit. Nothing was saved.
    `existing_id` is the trigger that holds the key, when that is why (422); `unknown_workflow`
    the key named, when no workflow has it (rejected_suggesting adds the closest ones)."""

    def __init__(
        self,
        field: str,
        message: str,
        *,
        status_code: int = 400,
        existing_id: str | None = None,
        unknown_workflow: str | None = None,
    ):
        super().__init__(message)
        self.field = field
        self.message = message
        self.status_code = status_code
        self.existing_id = existing_id
        self.unknown_workflow = unknown_workflow


def workflow_unknown(key: str) -> TriggerRejected:
    return TriggerRejected("workflow", f"workflow {key!r} does not exist", unknown_workflow=key)


def rejected_suggesting(
    exc: TriggerRejected, *, active_keys: Callable[[], list[str]]
) -> TriggerRejected:
    """`exc` with, when it names an unknown workflow, the closest of `active_keys()` (the active
    workflows the caller may see) as a "did you mean". Asked on this error path only: intake
    that succeeds reads no key list."""
    if exc.unknown_workflow is None:
        return exc
    close = difflib.get_close_matches(exc.unknown_workflow, active_keys(), n=3)
    if not close:
        return exc
    hint = " or ".join(repr(key) for key in close)
    return TriggerRejected(
        exc.field,
        f"{exc.message}; did you mean {hint}?",
        status_code=exc.status_code,
        unknown_workflow=exc.unknown_workflow,
    )


@dataclass(frozen=True)
class TriggerRequest:
    """One request for a trigger, as POST /api/triggers/ takes it (and each item of its bulk
    form, the admin's and manage.py trigger_workflow's)."""

    workflow_key: str
    idempotency_key: str
    payload: Any
    priority: int | None = None
    cancellation_key: str = ""
    # The run's recipient's key (recipients.Recipient), or empty; and the profile given with
    # it, upserted with the trigger (identify on trigger, triggers/identify.py), or None.
    recipient: str = ""
    profile: Profile | None = None
    # The locale its messages are asked in (a BCP 47 tag), or empty (docs/translations.md).
    locale: str = ""
    # The tenant it is sent for (tenants.Tenant's id), or empty (docs/tenants.md).
    tenant: str = ""


# What happened to one request: the trigger and whether it is new, or why it was refused.
IntakeOutcome = tuple[TriggerInstance, bool] | TriggerRejected


@dataclass(frozen=True)
class _Pending:
    """A valid request on its way through the inbox statement: its place in the request list,
    its payload as JSON (keys sorted) and its request_hash."""

    index: int
    request: TriggerRequest
    payload_json: str
    digest: str


def trigger_create(
    *,
    workflow_key: str,
    idempotency_key: str,
    payload: Any,
    actor: str = "",
    priority: int | None = None,
    cancellation_key: str = "",
) -> tuple[TriggerInstance, bool]:
    """Insert the trigger for (workflow, idempotency_key), or return the one that already exists;
    triggers_create's rules for one request. Returns (trigger, created); raises TriggerRejected.
    """
    request = TriggerRequest(workflow_key, idempotency_key, payload, priority, cancellation_key)
    (outcome,) = triggers_create([request], actor=actor)
    if isinstance(outcome, TriggerRejected):
        raise outcome
    return outcome


def triggers_create(
    requests: Sequence[TriggerRequest], *, actor: str = "", key_workflows: Sequence[str] = ()
) -> list[IntakeOutcome]:
    """Each request's trigger, inserted or found, or why it was refused, in request order. Each
    request is decided alone, as if it came by itself, in one statement for them all.

    `key_workflows` are those the API key is limited to (none: not limited). Such a key's
    profile may create its recipient, never change one: a request whose profile differs from
    the stored one is refused with 403 `recipient`, and stores nothing (docs/security/keys.md, "Keys
    limited to workflows"). The caller has checked the workflows themselves.

    The inbox: one INSERT ... ON CONFLICT DO NOTHING decides, so any number of concurrent
    requests with the same key create exactly one row (there is no read-then-act window). A new
    trigger is `enqueued` at the entry node of the workflow's current version (read by the same
    statement), due now; it and its event are written by that statement, and its first nudge is
    published after commit (at once in autocommit, or when the caller's transaction commits).
    Its priority is the request's, else the workflow's. A key already held by a trigger (not
    deleted) of the workflow gives that trigger, as it is now, when the request is the same one
    (request_hash: payload, priority and cancellation key); another request with that key is
    refused with 422 and changes nothing. When no live worker serves the workflow's queue (and
    NOTIFLOW_TRIGGER_REQUIRES_WORKER is on), nothing is stored and the request is refused with
    503, unless the key's trigger exists already. A trigger with this key that is soft-deleted
    does not count (the key is free again); one deleted while this runs makes it insert anew.
    Triggers come with their workflow and version attached.
    """
    outcomes: list[IntakeOutcome | None] = [None] * len(requests)
    pending: list[_Pending] = []
    for index, request in enumerate(requests):
        try:
            payload_json, digest = _checked(request)
        except TriggerRejected as exc:
            outcomes[index] = exc
        else:
            pending.append(_Pending(index, request, payload_json, digest))
    nudges: list[Nudge] = []
    if any(item.request.profile is not None for item in pending):
        # The profiles given and the triggers commit together, or neither.
        with transaction.atomic():
            pending = _identified(pending, outcomes, key_workflows)
            pending = _intake_twice(pending, actor, outcomes, nudges)
    else:
        # Recipients named by id only are read, not written, and by the intake statement itself
        # (`known`): no statement nor transaction of their own.
        pending = _intake_twice(pending, actor, outcomes, nudges)
    for item in pending:
        outcomes[item.index] = TriggerRejected(
            "idempotency_key",
            "the trigger with this idempotency key was deleted while this request ran, twice; "
            "send the request again",
            status_code=409,
        )
    triggers_enqueue_on_commit(nudges)
    return [outcome for outcome in outcomes if outcome is not None]


def _intake_twice(
    pending: list[_Pending],
    actor: str,
    outcomes: list[IntakeOutcome | None],
    nudges: list[Nudge],
) -> list[_Pending]:
    """The inbox statement for `pending`, twice at most: the trigger that held a key may be
    deleted between the statement and the read of it; the key is then free, and the
    statement's second run takes it. Returns what is still pending after the second."""
    for _ in range(2):
        if not pending:
            break
        pending = _intake(pending, actor, outcomes, nudges)
    return pending


def _identified(
    pending: list[_Pending], outcomes: list[IntakeOutcome | None], key_workflows: Sequence[str]
) -> list[_Pending]:
    """The requests left once their recipients are identified (triggers/identify.py): a request
    naming a recipient that does not exist, without a profile, is refused (400 `recipient`), and
    so is (403) one of a key limited to workflows whose profile would change a stored one."""
    identified = recipients_identify(
        (
            (item.index, item.request.recipient, item.request.profile)
            for item in pending
            if item.request.recipient
        ),
        create_only=bool(key_workflows),
    )
    for index, key in identified.unknown.items():
        outcomes[index] = _unknown_recipient(key)
    for index, key in identified.differing.items():
        outcomes[index] = TriggerRejected(
            "recipient",
            limited_refusal(
                list(key_workflows),
                f"change recipient {key!r}, whose stored profile differs from the one given "
                "(name it by its id alone)",
            ),
            status_code=403,
        )
    refused = identified.unknown.keys() | identified.differing.keys()
    return [item for item in pending if item.index not in refused]


def _unknown_recipient(key: str) -> TriggerRejected:
    return TriggerRejected(
        "recipient",
        f"recipient {key!r} does not exist; create it first (PUT /api/recipients/{key}/) "
        "or give an object with its id and profile fields",
    )


def request_hash(
    *,
    payload_json: str,
    priority: int | None,
    cancellation_key: str,
    recipient: str = "",
    locale: str = "",
    tenant: str = "",
) -> str:
    """The normalised request a key was first used with (`payload_json` with sorted keys). A
    recipient, a locale and a tenant join the hash only when there is one, so the hashes of runs
    without them are those they were stored with before recipients, locales and tenants
    existed."""
    head: list[Any] = [priority, cancellation_key] + ([recipient] if recipient else [])
    head += [{"locale": locale}] if locale else []
    head += [{"tenant": tenant}] if tenant else []
    normal = json.dumps(head, separators=(",", ":")) + payload_json
    return hashlib.sha256(normal.encode()).hexdigest()


def trigger_request_checked(request: TriggerRequest) -> tuple[str, str]:
    """The request's payload as JSON and its request_hash; TriggerRejected if it is invalid (the
    rules of a key, a payload, a priority and a cancellation key, which a fan-out shares)."""
    return _checked(request)


def _checked(request: TriggerRequest) -> tuple[str, str]:
    """The request's payload as JSON and its request_hash; TriggerRejected if it is invalid."""
    key = request.idempotency_key
    if not isinstance(key, str) or not key.strip():
        raise TriggerRejected("idempotency_key", "idempotency_key must be a non-empty string")
    if len(key) > MAX_IDEMPOTENCY_KEY_LENGTH:
        raise TriggerRejected(
            "idempotency_key",
            f"idempotency_key must be at most {MAX_IDEMPOTENCY_KEY_LENGTH} characters",
        )
    if not isinstance(request.payload, dict):
        raise TriggerRejected("payload", "payload must be a JSON object")
    priority = request.priority
    if priority is not None and (
        isinstance(priority, bool)
        or not isinstance(priority, int)
        or not PRIORITY_MIN <= priority <= PRIORITY_MAX
    ):
        raise TriggerRejected(
            "priority",
            f"priority must be an integer from {PRIORITY_MIN} to {PRIORITY_MAX} "
            "(higher is more urgent)",
        )
    cancellation_key = request.cancellation_key
    if not isinstance(cancellation_key, str) or len(cancellation_key) > MAX_CANCELLATION_KEY_LENGTH:
        raise TriggerRejected(
            "cancellation_key",
            f"cancellation_key must be a string of at most {MAX_CANCELLATION_KEY_LENGTH} characters",
        )
    if request.recipient and (problem := key_problem(request.recipient)):
        raise TriggerRejected("recipient", f"recipient: the id {problem}")
    if request.locale and (problem := locale_problem(request.locale)):
        raise TriggerRejected("locale", f"locale: {problem}")
    if request.tenant and (problem := tenant_problem(request.tenant)):
        raise TriggerRejected("tenant", f"tenant: {problem}")
    payload_json = json.dumps(request.payload, sort_keys=True, separators=(",", ":"))
    digest = request_hash(
        payload_json=payload_json,
        priority=priority,
        cancellation_key=cancellation_key,
        recipient=request.recipient,
        locale=request.locale,
        tenant=request.tenant,
    )
    return payload_json, digest


def _intake(
    pending: list[_Pending],
    actor: str,
    outcomes: list[IntakeOutcome | None],
    nudges: list[Nudge],
) -> list[_Pending]:
    """One run of the inbox statement for `pending`: fills in `outcomes` and `nudges`, and
    returns the requests to run again (their key's holder was deleted meanwhile)."""
    columns: dict[str, list[Any]] = {field: [] for field in INTAKE_REQUEST_FIELDS}
    for item in pending:
        request = item.request
        values = (
            item.index,
            str(uuid.uuid4()),
            request.workflow_key,
            request.idempotency_key,
            item.payload_json,
            request.priority,
            request.cancellation_key,
            item.digest,
            request.recipient,
            request.locale,
            request.tenant,
        )
        for field, value in zip(INTAKE_REQUEST_FIELDS, values, strict=True):
            columns[field].append(value)
    params: dict[str, Any] = {
        **STATUS_PARAMS,
        "actor": actor,
        "require_worker": settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER,
        "live_within": live_within_seconds(),
    }
    traced = tracing.active() and tracing.traceparent()
    # The run's trace goes on from the intake span (docs/design/observability.md, "Traces").
    if traced:
        params["trace_context"] = traced
    if len(pending) == 1:
        rows = fetchall_prepared(
            INTAKE_TRACED_SQL if traced else INTAKE_SQL,
            {**params, **{f: v[0] for f, v in columns.items()}},
        )
    else:
        rows = fetchall_prepared(
            INTAKE_MANY_TRACED_SQL if traced else INTAKE_MANY_SQL, {**params, **columns}
        )
    by_index = {item.index: item for item in pending}
    held: list[tuple[_Pending, int, str]] = []  # the request, its workflow's id and key
    for row in rows:
        index, known, workflow_id, key, active, version_id, number, queue, served = row[
            :INTAKE_WORKFLOW_COLUMNS
        ]
        item = by_index[index]
        if not known:
            outcomes[index] = _unknown_recipient(item.request.recipient)
        elif workflow_id is None:
            outcomes[index] = workflow_unknown(item.request.workflow_key)
        elif not active or version_id is None:
            outcomes[index] = TriggerRejected(
                "workflow", f"workflow {item.request.workflow_key!r} is not active", status_code=409
            )
        elif row[INTAKE_WORKFLOW_COLUMNS] is not None:
            trigger = trigger_from_row(row[INTAKE_WORKFLOW_COLUMNS:])
            _attach(trigger, workflow_id=workflow_id, key=key, version_id=version_id, number=number)
            outcomes[index] = (trigger, True)
            nudges.append(Nudge(trigger.pk, queue=queue, priority=trigger.priority))
        else:
            held.append((item, workflow_id, key))
            # Kept for the case where the key's holder turns out to be deleted meanwhile.
            if not served and settings.NOTIFLOW_TRIGGER_REQUIRES_WORKER:
                outcomes[index] = TriggerRejected(
                    "workflow",
                    f"no live worker serves queue {queue!r}; start one with: "
                    + worker_command(queue),
                    status_code=503,
                )
    if not held:
        return []
    # ON CONFLICT waited for the winners to commit, so their rows are visible to this query,
    # unless they have been deleted since. A repeated request gets its trigger even while nobody
    # serves the queue: it was stored.
    existing = {
        (trigger.workflow_id, trigger.idempotency_key): (trigger, number)
        for trigger, number in _existing([(workflow_id, item) for item, workflow_id, _ in held])
    }
    again = []
    for item, workflow_id, key in held:
        found = existing.get((workflow_id, item.request.idempotency_key))
        if found is None:
            if outcomes[item.index] is None:  # not refused for want of a worker: insert anew
                again.append(item)
            continue
        trigger, number = found
        if trigger.request_hash and trigger.request_hash != item.digest:
            outcomes[item.index] = TriggerRejected(
                "idempotency_key",
                f"idempotency key {item.request.idempotency_key!r} was used with other "
                f"parameters (differing: {', '.join(_differing(trigger, item))}) by trigger "
                f"{trigger.pk}; nothing was changed. "
                "Send the same request again, or use a new key",
                status_code=422,
                existing_id=str(trigger.pk),
            )
            continue
        # Two requests of one bulk holding the same key share the instance: the same answer.
        _attach(
            trigger,
            workflow_id=workflow_id,
            key=key,
            version_id=trigger.workflow_version_id,
            number=number,
        )
        outcomes[item.index] = (trigger, False)
    return again


def _differing(trigger: TriggerInstance, item: _Pending) -> list[str]:
    """Which of the request's parameters differ from those the key's trigger was made with
    (their request_hash differs). A priority left out on one side and given on the other is a
    difference even when it equals the workflow's."""
    request = item.request
    differing = []
    if json.dumps(trigger.payload, sort_keys=True, separators=(",", ":")) != item.payload_json:
        differing.append("payload")
    if request.priority is not None and request.priority != trigger.priority:
        differing.append("priority")
    if request.cancellation_key != trigger.cancellation_key:
        differing.append("cancellation_key")
    if request.recipient != trigger.recipient:
        differing.append("recipient")
    if request.locale != trigger.locale:
        differing.append("locale")
    if request.tenant != trigger.tenant:
        differing.append("tenant")
    return differing or ["priority"]


def _existing(held: list[tuple[int, _Pending]]) -> list[tuple[TriggerInstance, int]]:
    """The triggers (not deleted) that hold the keys of `held` ((workflow id, request) pairs),
    each with its version's number."""
    if len(held) == 1:
        ((workflow_id, item),) = held
        rows = fetchall_prepared(
            INTAKE_EXISTING_SQL,
            {"workflow_id": workflow_id, "key": item.request.idempotency_key},
        )
    else:
        rows = fetchall_prepared(
            INTAKE_EXISTING_MANY_SQL,
            {
                "workflow_ids": [workflow_id for workflow_id, _ in held],
                "keys": [item.request.idempotency_key for _, item in held],
            },
        )
    width = len(TRIGGER_COLUMNS)
    return [(trigger_from_row(row[:width]), row[width]) for row in rows]


def _attach(
    trigger: TriggerInstance, *, workflow_id: int, key: str, version_id: int, number: int
) -> None:
    """What the answer shows of the workflow and version, without another query (the other
    fields are deferred: Django loads them if something asks)."""
    trigger.workflow = Workflow.from_db(connection.alias, ["id", "key"], [workflow_id, key])
    trigger.workflow_version = WorkflowVersion.from_db(
        connection.alias, ["id", "workflow_id", "number"], [version_id, workflow_id, number]
    )
