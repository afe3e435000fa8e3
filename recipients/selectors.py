"""Reading recipients: the API's lists, and the one read a run's step makes of its recipient
(`recipient_for_run`, which the engine calls and preferences may share)."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Q, QuerySet

from common.db import fetchall_prepared, fetchone_prepared
from recipients.models import PROFILE_FIELDS, Category, Recipient
from recipients.sql import (
    EXISTING_KEYS_SQL,
    FOR_RUN_COLUMNS,
    FOR_RUN_SQL,
    FOR_TENANT_RUN_COLUMNS,
    FOR_TENANT_RUN_SQL,
)
from tenants.selectors import tenant_for_run
from workflows.decisions import SKIPPED, StepDecision

# What templates see as `recipient.*` (docs/design/recipients.md, "Recipients"), besides `id`.
CONTEXT_FIELDS = PROFILE_FIELDS
_JSON_FIELDS = ("quiet_hours", "channels", "properties")


def recipient_list(*, search: str | None = None) -> QuerySet[Recipient]:
    """Recipients by key; `search` keeps those whose key or email starts with it, or whose
    name contains it (case-insensitive but for the key)."""
    recipients = Recipient.objects.all()
    if search:
        recipients = recipients.filter(
            Q(key__startswith=search) | Q(email__istartswith=search) | Q(name__icontains=search)
        )
    return recipients.order_by("key")


def recipient_keys_existing(keys: Iterable[str]) -> set[str]:
    """Those of `keys` that name a recipient, in one (prepared) query."""
    wanted = sorted(set(keys))
    if not wanted:
        return set()
    return {key for (key,) in fetchall_prepared(EXISTING_KEYS_SQL, {"rcp_keys": wanted})}


# The step log's and `message.skipped`'s rule for a send to a person erased since the run began.
RULE_ERASED = "recipient_erased"


class RecipientMissing(LookupError):
    """The run names a recipient whose profile does not exist (or was erased)."""


@dataclass(frozen=True)
class RunRecipient:
    """A run's recipient as a step sees it: `context` is the templates' `recipient` (`id` and
    CONTEXT_FIELDS; every field empty when the profile is gone: `found` False), `preferences`
    the person's switches, `category_defaults` the operator's defaults of the workflow's
    preference category; for a run of a tenant (`tenant`), `tenant_preferences` the person's
    switches for that tenant and `tenant_defaults` the tenant's defaults of the category
    (recipients/preferences.py decides a send from them, docs/tenants.md)."""

    key: str
    found: bool
    context: dict[str, Any]
    preferences: dict[str, Any] = field(default_factory=dict)
    category_defaults: dict[str, Any] = field(default_factory=dict)
    tenant: str = ""
    tenant_preferences: dict[str, Any] = field(default_factory=dict)
    tenant_defaults: dict[str, Any] = field(default_factory=dict)

    def erased_output(self) -> dict[str, Any]:
        """A send's output when it is skipped because the person was erased (`found` False: a
        run names only a recipient that existed at intake). The key is not repeated: the step
        log written after the erasure keeps no more of them than the run did."""
        return {"skipped": "the recipient was erased", "rule": RULE_ERASED}

    @property
    def who(self) -> str:
        """How a decision's sentence names the person: their name, else their key."""
        return str(self.context.get("name") or self.key)

    def erased_decision(self, label: str) -> StepDecision:
        """What a send to a person erased since the run began decided (workflows.decisions);
        `label` is the channel's. As erased_output, it names no one."""
        reason = f"{label} skipped: the recipient was erased after the run began"
        return StepDecision(SKIPPED, reason, RULE_ERASED, {})

    def channel(self, name: str) -> Any:
        """The person's `channels[name]` as the step read it (no statement of its own): a chat
        channel's address object, a push channel's list of addresses; None when they have
        none. RecipientMissing when the profile does not exist."""
        if not self.found:
            raise RecipientMissing(f"recipient {self.key!r} does not exist")
        channels = self.context.get("channels")
        return channels.get(name) if isinstance(channels, dict) else None


def recipient_for_run(key: str, *, category: str = "", tenant: str = "") -> RunRecipient:
    """The recipient of a run naming `key`, with the defaults of preference category `category`
    (its workflow's; "" for none), in one query; for a run of `tenant`, the person's preferences
    for it in the same query, and the tenant's defaults of the category from this process's copy
    of the tenants (tenants.selectors: no statement of its own). An erased (or never created)
    person reads as a profile with every field empty and no preferences: a template still
    renders, a send without a `to` fails (or skips) naming the missing address, the defaults
    decide."""
    params = {"rcp_key": key, "rcp_category": category}
    columns: tuple[str, ...] = FOR_RUN_COLUMNS
    if tenant:
        columns = FOR_TENANT_RUN_COLUMNS
        fetched = fetchone_prepared(FOR_TENANT_RUN_SQL, {**params, "rcp_tenant": tenant})
    else:
        fetched = fetchone_prepared(FOR_RUN_SQL, params)
    row = dict(zip(columns, fetched or (), strict=True))
    scope: dict[str, Any] = {"category_defaults": _json(row.pop("category_defaults"))}
    if tenant:
        scope["tenant"] = tenant
        scope["tenant_preferences"] = _json(row.pop("tenant_preferences"))
        scope["tenant_defaults"] = tenant_for_run(tenant).category_defaults(category)
    preferences = _json(row.pop("preferences"))
    if not row.pop("found"):
        empty = {name: {} if name in _JSON_FIELDS else "" for name in CONTEXT_FIELDS}
        scope.pop("tenant_preferences", None)  # gone with the person
        return RunRecipient(key=key, found=False, context={"id": key, **empty}, **scope)
    for name in _JSON_FIELDS:
        row[name] = _json(row[name])
    return RunRecipient(
        key=key, found=True, context={"id": key, **row}, preferences=preferences, **scope
    )


def _json(value: Any) -> dict[str, Any]:
    """A jsonb column as read on Django's connection (its text: Django parses JSON itself, so it
    has psycopg leave jsonb unparsed), or {} for NULL or another shape."""
    parsed = json.loads(value) if isinstance(value, str) else value
    return parsed if isinstance(parsed, dict) else {}


def category_exists(slug: str) -> bool:
    """Whether an operator made the preference category `slug` (workflows.hooks.CATEGORY_EXISTS:
    the workflow validator refuses a category that does not exist)."""
    return Category.objects.filter(slug=slug).exists()
