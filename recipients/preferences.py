"""A person's notification preferences (docs/design/recipients.md, "Preferences"): what they turned on or
off, how one send is decided, and the signed link to their hosted preference page.

A recipient's `preferences` is {"channels": {channel: bool}, "categories": {slug: bool |
{channel: bool}}, "workflows": {key: bool}}. A send of workflow W, in category C, on channel X
is decided by the most specific preference that names it: `workflows.W`, then
`categories.C.X`, then `categories.C` (the whole category), then `channels.X`; then the
category's operator defaults (Category.defaults[X]); else it is on. A required workflow is not
asked (the engine does not call this). The channels are the registry's (workflows.channels).

For a run of a tenant (docs/tenants.md), the person's preferences for that tenant are asked
first, in the same order, then their own, then the tenant's defaults of the category
(Tenant.preferences[C][X]), then the category's; a path that decided names the tenant
(`tenants.<id>.categories.comments.email`, `tenants.<id>.defaults.comments.email`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.conf import settings
from django.core import signing
from django.db import transaction

from common.http import unknown_name_message
from recipients.models import Category, Recipient, RecipientTenantPreferences
from recipients.selectors import RunRecipient
from workflows.channels import channel_names, channel_spec
from workflows.decisions import SKIPPED, StepDecision
from workflows.models import Workflow
from workflows.nodes import NODE_TYPES
from workflows.semantics import preference_page_url

PREFERENCE_KEYS = ("channels", "categories", "workflows")
RULE_PREFERENCE = "preference"  # the step log's and `message.skipped`'s rule for a preference


@dataclass(frozen=True)
class Decision:
    """Whether a send goes, and which preference said so: its path in the preferences
    (`workflows.weekly-digest`, `categories.comments.email`, `categories.comments`,
    `channels.sms`), `defaults.<category>.<channel>` for the operator's default, or "" when
    nothing named it (it goes)."""

    send: bool
    decided_by: str = ""
    # The run's tenant, when a path of its (`tenants.<id>.…`) decided.
    tenant: str = ""

    def skipped_output(self, *, to: str) -> dict[str, Any]:
        """A skipped send's output (the step log's, `message.skipped`'s, and in vars)."""
        return {
            "skipped": f"preference: {self.decided_by} is off",
            "rule": RULE_PREFERENCE,
            "preference": self.decided_by,
            "to": to,
        }

    def skipped_decision(self, *, who: str, channel: str, to: str) -> StepDecision:
        """What the step decided (workflows.decisions), in words: whose switch, which one."""
        spec = channel_spec(channel)
        path, noun = self.decided_by, spec.noun
        scoped = path.removeprefix(f"tenants.{self.tenant}.") if self.tenant else path
        at = f" at {self.tenant}" if self.tenant else ""
        kind, _, rest = scoped.partition(".")
        if kind == "workflows":
            why = f"{who} turned off the notifications of {rest}{at}"
        elif kind == "categories" and "." in rest:
            why = f"{who} turned off {noun} for {rest.partition('.')[0]}{at}"
        elif kind == "categories":
            why = f"{who} turned off everything in {rest}{at}"
        elif kind == "channels":
            why = f"{who} turned off {noun}{at}"
        else:  # defaults.<category>.<channel>
            why = f"{noun} is off by default for {rest.partition('.')[0]}{at} and {who} did not turn it on"
        evidence = {"preference": path, "value": self.send, "channel": channel, "to": to}
        if self.tenant:
            evidence["tenant"] = self.tenant
        return StepDecision(
            SKIPPED, f"{spec.label} skipped: {why} ({path})", RULE_PREFERENCE, evidence
        )


def preference_resolve(
    preferences: Mapping[str, Any],
    *,
    workflow: str,
    category: str,
    channel: str,
    defaults: Mapping[str, Any] | None = None,
    tenant: str = "",
    tenant_preferences: Mapping[str, Any] | None = None,
    tenant_defaults: Mapping[str, Any] | None = None,
) -> Decision:
    """The decision for one send (the module's order, most specific first). `category` "" is
    none; `defaults` is the category's operator defaults ({channel: bool}); for a run of
    `tenant`, `tenant_preferences` are the person's for it and `tenant_defaults` the tenant's
    defaults of the category ({channel: bool})."""
    if tenant:
        scope = f"tenants.{tenant}."
        own = _choice(
            tenant_preferences or {}, workflow=workflow, category=category, channel=channel
        )
        if own is not None:
            return Decision(own.send, scope + own.decided_by, tenant)
        own = _choice(preferences, workflow=workflow, category=category, channel=channel)
        if own is not None:
            return own
        if category and isinstance((tenant_defaults or {}).get(channel), bool):
            chosen = bool((tenant_defaults or {})[channel])
            return Decision(chosen, f"{scope}defaults.{category}.{channel}", tenant)
    else:
        own = _choice(preferences, workflow=workflow, category=category, channel=channel)
        if own is not None:
            return own
    if category and isinstance((defaults or {}).get(channel), bool):
        return Decision(bool((defaults or {})[channel]), f"defaults.{category}.{channel}")
    return Decision(True)


def _choice(
    preferences: Mapping[str, Any], *, workflow: str, category: str, channel: str
) -> Decision | None:
    """What a person's `preferences` say of one send, most specific first, or None."""
    workflows = preferences.get("workflows") or {}
    if isinstance(workflows.get(workflow), bool):
        return Decision(workflows[workflow], f"workflows.{workflow}")
    if category:
        chosen = (preferences.get("categories") or {}).get(category)
        if isinstance(chosen, dict) and isinstance(chosen.get(channel), bool):
            return Decision(chosen[channel], f"categories.{category}.{channel}")
        if isinstance(chosen, bool):
            return Decision(chosen, f"categories.{category}")
    channels = preferences.get("channels") or {}
    if isinstance(channels.get(channel), bool):
        return Decision(channels[channel], f"channels.{channel}")
    return None


def known_channels() -> list[str]:
    """The channels a person's preferences may name: every registered one (workflows.channels),
    in the registry's order."""
    return channel_names()


def channel_labels() -> dict[str, str]:
    """What a person reads for each known channel (its spec's `label`)."""
    return {name: channel_spec(name).label for name in channel_names()}


def definition_channels(definition: Mapping[str, Any]) -> set[str]:
    """The channels a workflow definition's nodes send or deliver on."""
    return {
        kind.preference_channel
        for node in definition.get("nodes", [])
        if isinstance(node, dict)
        and (kind := NODE_TYPES.get(str(node.get("type"))))
        and kind.preference_channel
    }


def category_channels(slugs: Iterable[str]) -> dict[str, set[str]]:
    """The channels the active workflows of each category in `slugs` send on now (their current
    versions; required workflows are beyond preferences and do not count)."""
    from workflows.definition import preference_category_of, required_of
    from workflows.models import Workflow

    wanted = set(slugs)
    channels: dict[str, set[str]] = {}
    current = Workflow.objects.filter(active=True, current_version__isnull=False)
    for definition in current.values_list("current_version__definition", flat=True):
        slug = preference_category_of(definition)
        if slug in wanted and not required_of(definition):
            channels.setdefault(slug, set()).update(definition_channels(definition))
    return channels


# --- one send: the engine's question ------------------------------------------------------------
def send_decision(
    recipient: RunRecipient, *, workflow: str, category: str, channel: str
) -> Decision:
    """The decision for a send of a run for `recipient`, as its step read it
    (recipients.selectors.recipient_for_run, with the category's defaults: no statement of its
    own). A recipient that does not exist (erased) has no preferences: the defaults decide."""
    return preference_resolve(
        recipient.preferences,
        workflow=workflow,
        category=category,
        channel=channel,
        defaults=recipient.category_defaults,
        tenant=recipient.tenant,
        tenant_preferences=recipient.tenant_preferences,
        tenant_defaults=recipient.tenant_defaults,
    )


# --- reading and writing them: the API's and the page's ------------------------------------------
def preferences_shown(preferences: Mapping[str, Any]) -> dict[str, Any]:
    """A stored value as the API shows it: the three keys, each an object."""
    return {key: dict(preferences.get(key) or {}) for key in PREFERENCE_KEYS}


def preferences_problems(data: Any) -> dict[str, list[str]]:
    """What is wrong with a body meant to replace a person's preferences, by its path
    (`categories.comments.email`): an unknown key, a value that is not true or false, a channel
    no node type sends on, a category or workflow that does not exist. Empty: it may be saved."""
    if not isinstance(data, Mapping):
        return {"body": ["must be a JSON object"]}
    problems: dict[str, list[str]] = {}
    for key in data:
        if key not in PREFERENCE_KEYS:
            problems[str(key)] = [unknown_name_message(str(key), PREFERENCE_KEYS)]
    for key in PREFERENCE_KEYS:
        if not isinstance(data.get(key, {}), Mapping):
            problems[key] = ["must be an object"]
    if problems:
        return problems
    _check_switches(data.get("channels", {}), "channels", known_channels(), "channel", problems)
    _check_categories(data.get("categories", {}), problems)
    workflows = data.get("workflows", {})
    known_workflows = set(
        Workflow.objects.filter(key__in=list(workflows)).values_list("key", flat=True)
    )
    _check_switches(workflows, "workflows", sorted(known_workflows), "workflow", problems)
    return problems


def channel_switch_problems(switches: Mapping[str, Any], where: str) -> dict[str, list[str]]:
    """What is wrong with {channel: bool} `switches` (a category's defaults), by path
    (`defaults.pigeon`): a channel nobody registered (workflows.channels), a value not true or false."""
    problems: dict[str, list[str]] = {}
    _check_switches(switches, where, known_channels(), "channel", problems)
    return problems


def _check_categories(categories: Mapping[str, Any], problems: dict[str, list[str]]) -> None:
    """A category's value: true, false, or {channel: bool}; the category one an operator made."""
    known = set(Category.objects.filter(slug__in=list(categories)).values_list("slug", flat=True))
    for slug, value in categories.items():
        where = f"categories.{slug}"
        if slug not in known:
            problems[where] = ["unknown category"]
        elif isinstance(value, Mapping):
            _check_switches(value, where, known_channels(), "channel", problems)
        elif not isinstance(value, bool):
            problems[where] = ["must be true, false, or an object of channels to true or false"]


def _check_switches(
    switches: Mapping[str, Any],
    where: str,
    known: Iterable[str],
    what: str,
    problems: dict[str, list[str]],
) -> None:
    known = set(known)
    for name, value in switches.items():
        if name not in known:
            problems[f"{where}.{name}"] = [f"unknown {what}"]
        elif not isinstance(value, bool):
            problems[f"{where}.{name}"] = ["must be true or false"]


def preferences_replace(recipient: Recipient, preferences: Mapping[str, Any]) -> Recipient:
    """Store `preferences` (checked: preferences_problems) as the person's, replacing theirs."""
    recipient.preferences = preferences_shown(preferences)
    Recipient.objects.filter(pk=recipient.pk).update(preferences=recipient.preferences)
    return recipient


def preferences_merge(recipient: Recipient, changes: Mapping[str, Mapping[str, Any]]) -> Recipient:
    """Merge `changes` into the person's preferences, each of the three objects shallowly, as a
    recipient's PATCH merges `channels` and `properties`: a key given changes, a key given null
    is removed (what it said no longer applies), the rest stay. `changes` without its nulls is
    checked (preferences_problems). Under the row lock: two merges at once lose neither.
    Recipient.DoesNotExist when the person was erased meanwhile."""
    with transaction.atomic():
        locked = Recipient.objects.select_for_update().get(pk=recipient.pk)
        merged = preferences_shown(locked.preferences or {})
        for section, values in changes.items():
            for name, value in values.items():
                if value is None:
                    merged[section].pop(name, None)
                else:
                    merged[section][name] = value
        Recipient.objects.filter(pk=locked.pk).update(preferences=merged)
    locked.preferences = merged
    return locked


def tenant_preferences_of(recipient: Recipient, tenant: str) -> dict[str, Any]:
    """The person's preferences for `tenant`'s messages, as the API shows them (docs/tenants.md);
    all three empty when they set none."""
    row = RecipientTenantPreferences.objects.filter(recipient=recipient, tenant_id=tenant).first()
    return preferences_shown(row.preferences if row is not None else {})


def tenant_preferences_replace(
    recipient: Recipient, tenant: str, preferences: Mapping[str, Any]
) -> dict[str, Any]:
    """Store `preferences` (checked: preferences_problems) as the person's for `tenant`."""
    shown = preferences_shown(preferences)
    RecipientTenantPreferences.objects.update_or_create(
        recipient=recipient, tenant_id=tenant, defaults={"preferences": shown}
    )
    return shown


def tenant_preferences_merge(
    recipient: Recipient, tenant: str, changes: Mapping[str, Mapping[str, Any]]
) -> dict[str, Any]:
    """preferences_merge for the person's preferences for `tenant`: under the person's row lock,
    so two merges at once lose neither. Recipient.DoesNotExist when the person was erased."""
    with transaction.atomic():
        locked = Recipient.objects.select_for_update().get(pk=recipient.pk)
        row, _ = RecipientTenantPreferences.objects.get_or_create(
            recipient=locked, tenant_id=tenant
        )
        merged = preferences_shown(row.preferences or {})
        for section, values in changes.items():
            for name, value in values.items():
                if value is None:
                    merged[section].pop(name, None)
                else:
                    merged[section][name] = value
        row.preferences = merged
        row.save(update_fields=["preferences", "updated_at"])
    return merged


def category_switches_set(key: str, switches: Mapping[str, Mapping[str, bool]]) -> bool:
    """Set `categories.<slug>.<channel>` of person `key` for each of `switches` ({slug: {channel:
    bool}}), keeping the rest of their preferences; under a row lock, so that two saves at once
    lose neither. False when the person does not exist (erased meanwhile)."""
    with transaction.atomic():
        recipient = Recipient.objects.select_for_update().filter(key=key).first()
        if recipient is None:
            return False
        preferences = preferences_shown(recipient.preferences or {})
        for slug, channels in switches.items():
            current = preferences["categories"].get(slug)
            chosen = dict(current) if isinstance(current, dict) else {}
            if isinstance(current, bool):  # a whole-category switch becomes per channel
                chosen = dict.fromkeys(known_channels(), current)
            preferences["categories"][slug] = {**chosen, **channels}
        preferences_replace(recipient, preferences)
    return True


# --- the hosted page's link -----------------------------------------------------------------------
PREFERENCES_SALT = "notiflow.preferences"


def preferences_token(recipient: str) -> str:
    """A signed, timestamped token naming person `recipient` (a key): what the page's link
    carries and all it grants (docs/security/recipients.md, "The preference page")."""
    return signing.dumps({"p": recipient}, salt=PREFERENCES_SALT, compress=True)


def preferences_token_read(token: str) -> str:
    """The person a token this service signed within NOTIFLOW_PREFERENCES_LINK_MAX_AGE_DAYS
    names; signing.BadSignature (or its SignatureExpired) otherwise."""
    data = signing.loads(
        token,
        salt=PREFERENCES_SALT,
        max_age=timedelta(days=settings.NOTIFLOW_PREFERENCES_LINK_MAX_AGE_DAYS),
    )
    if not isinstance(data, dict) or not isinstance(data.get("p"), str):
        raise signing.BadSignature("not a preferences token")
    return str(data["p"])


def preferences_url(recipient: str) -> str | None:
    """`{{ preferences_url }}` of a run for `recipient`: the hosted page, or None when the
    service has no public URL (NOTIFLOW_PUBLIC_URL) to point it at (a template naming it then
    fails as any undefined variable does, never an empty link in an inbox)."""
    if not settings.NOTIFLOW_PUBLIC_URL:
        return None  # (not signed for nothing)
    return preference_page_url(preferences_token(recipient))
