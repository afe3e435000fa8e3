"""The suppression list (docs/design/deliveries.md, "Deliveries"): recipients that no send may reach, checked
before every provider call. Delivery events, one-click unsubscribes and operators add to it
(deliveries/); only operators remove from it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from email.utils import formataddr
from typing import Any, NamedTuple

from django.conf import settings
from django.core import signing

from common.db import fetchall_prepared
from deliveries.models import Suppression, SuppressionReason, SuppressionScope
from deliveries.sql import SUPPRESSED_SQL, SUPPRESSION_LIST_SQL
from workflows.channels import (
    CHANNEL_SPECS,
    SUPPRESS_NONE,
    SUPPRESS_PERSON,
    suppressible_channels,
)
from workflows.decisions import FAILED, SKIPPED, StepDecision
from workflows.nodes import NODE_TYPES, channel_node_type
from workflows.nodes.email import email_addresses
from workflows.semantics import Rendered, RenderError, recipient_check, recipients_of

# recipients.models.KEY_MAX_LENGTH (this module stands below recipients: lint-imports).
KEY_MAX_LENGTH = 200


def recipient_normalise(channel: str, recipient: str) -> str:
    """The form a recipient is stored and compared in: trimmed, and in lower case on a channel
    whose spec says its addresses are (`caseless`: email, as providers report addresses in any
    case); a phone number as given (E.164 already)."""
    value = recipient.strip()
    spec = CHANNEL_SPECS.get(channel)
    return value.lower() if spec is not None and spec.caseless else value


def suppression_add(
    *,
    channel: str,
    recipient: str,
    reason: SuppressionReason | str,
    scope: SuppressionScope | str = SuppressionScope.ALL,
    source: str = "",
) -> tuple[Suppression, bool]:
    """Suppress `recipient` on `channel` in `scope`; (the row, whether it is new). Adding one
    that exists changes nothing (the first reason and source stay): idempotent, as providers
    repeat their events."""
    return Suppression.objects.get_or_create(
        channel=channel,
        recipient=recipient_normalise(channel, recipient),
        scope=scope,
        defaults={"reason": reason, "source": source[:200]},
    )


def suppressions_present(
    entries: Iterable[tuple[str, str, str]],
) -> set[tuple[str, str, str]]:
    """Which of `entries` ((channel, normalised recipient, scope)) the list holds already: what
    suppression_add would leave as they are."""
    wanted = set(entries)
    if not wanted:
        return set()
    rows = Suppression.objects.filter(recipient__in={recipient for _, recipient, _ in wanted})
    found = rows.values_list("channel", "recipient", "scope")
    return {(channel, recipient, scope) for channel, recipient, scope in found} & wanted


@dataclass(frozen=True)
class Hit:
    """A suppression that stops a send: which entry, whom, in which scope, why, since when, and
    what added it (`source`: the provider's event, the unsubscribe link, an operator)."""

    id: int
    recipient: str
    scope: str
    reason: str
    created_at: datetime
    source: str = ""

    def described(self) -> dict[str, Any]:
        """As a skipped send's output and its `message.skipped` event name it."""
        return {
            "id": self.id,
            "recipient": self.recipient,
            "scope": self.scope,
            "reason": self.reason,
            "created_at": self.created_at.isoformat(),
            "source": self.source,
        }


def suppressed_among(*, channel: str, recipients: Iterable[str], marketing: bool) -> dict[str, Hit]:
    """Which of `recipients` may not be sent to, by normalised recipient: suppressed in scope
    `all`, or in `marketing` when the message is a marketing one. One prepared, indexed query:
    it runs before every send (through the ORM it cost a step more than a millisecond of CPU)."""
    wanted = sorted({recipient_normalise(channel, r) for r in recipients})
    if not wanted:
        return {}
    scopes = [SuppressionScope.ALL.value]
    if marketing:
        scopes.append(SuppressionScope.MARKETING.value)
    params = {"sup_channel": channel, "sup_recipients": wanted, "sup_scopes": scopes}
    return {row[1]: Hit(*row) for row in fetchall_prepared(SUPPRESSED_SQL, params)}


class SuppressionCache:
    """A worker process's copy of the suppression list, per channel, as of one generation of it
    (deliveries migration 0005: every change of the list raises it, in the changing
    transaction). The claim of a send step reads the generation (`notiflow_claim_v2`); while it
    is the one held, a send's recipients are checked here, without a statement; when it moved,
    the channel's list is read again, once. A list longer than `limit` rows is not held: each
    send asks the database (suppressed_among), as without a generation.

    The list read after the claim holds every change the claim's generation counts (and perhaps
    later ones, which only suppress more); a change committed after the claim is seen by the
    next claim, as one committed after the check was before."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.generation: int | None = None
        # channel -> normalised recipient -> its rows; None: longer than `limit`, not held.
        self.lists: dict[str, dict[str, list[Hit]] | None] = {}

    def among(
        self, *, generation: int | None, channel: str, recipients: Iterable[str], marketing: bool
    ) -> dict[str, Hit]:
        """suppressed_among, from the list held as of `generation` (None: no generation known,
        the database is asked)."""
        if generation is None:
            return suppressed_among(channel=channel, recipients=recipients, marketing=marketing)
        if generation != self.generation:
            self.generation, self.lists = generation, {}
        if channel not in self.lists:
            self.lists[channel] = self._list(channel)
        held = self.lists[channel]
        if held is None:
            return suppressed_among(channel=channel, recipients=recipients, marketing=marketing)
        scopes = {SuppressionScope.ALL.value}
        if marketing:
            scopes.add(SuppressionScope.MARKETING.value)
        found: dict[str, Hit] = {}
        for recipient in {recipient_normalise(channel, r) for r in recipients}:
            hits = [hit for hit in held.get(recipient, ()) if hit.scope in scopes]
            if hits:  # the list's scope `all` first: the stronger of two
                found[recipient] = min(hits, key=lambda hit: hit.scope != SuppressionScope.ALL)
        return found

    def _list(self, channel: str) -> dict[str, list[Hit]] | None:
        params = {"sup_channel": channel, "sup_limit": self.limit + 1}
        rows = fetchall_prepared(SUPPRESSION_LIST_SQL, params)
        if len(rows) > self.limit:
            return None
        held: dict[str, list[Hit]] = {}
        for row in rows:
            held.setdefault(row[1], []).append(Hit(*row))
        return held


# This process's copy (a pool process's own, after the fork).
SUPPRESSIONS = SuppressionCache(limit=settings.NOTIFLOW_SUPPRESSION_CACHE_ROWS)


# Which rule makes a send whose every recipient is suppressed a *skip* (the node is skipped, the
# run goes on) rather than a failure (docs/design/deliveries.md, "Suppression and unsubscribe"). The one home
# of that decision; the step log and `message.skipped` name the rule that decided.
RULE_MARKETING = "marketing"  # a marketing send: any suppression skips it
RULE_OPT_OUT = "opt-out"  # the recipient unsubscribed, or an operator suppressed them by hand
RULE_SKIP_SUPPRESSED = "skip_suppressed"  # the node asks to skip every suppression
# A transactional send stopped by a hard bounce or a complaint is none of these: it fails
# (`suppressed: …`), so the client hears that a message it needed did not go out.
OPT_OUT_REASONS = frozenset({SuppressionReason.UNSUBSCRIBED.value, SuppressionReason.MANUAL.value})


def suppression_skip_rule(*, hits: Iterable[Hit], marketing: bool, skip_suppressed: bool) -> str:
    """The rule that skips a send stopped by `hits`, or "" when it fails instead."""
    if marketing:
        return RULE_MARKETING
    if all(
        hit.reason in OPT_OUT_REASONS or hit.scope == SuppressionScope.MARKETING for hit in hits
    ):
        return RULE_OPT_OUT
    return RULE_SKIP_SUPPRESSED if skip_suppressed else ""


class Suppressed(Exception):
    """Every recipient of a send is suppressed; the message says who and why, starting
    `suppressed:`. `rule` is the rule that skips the send ("" when it fails)."""

    def __init__(self, hits: list[Hit], *, rule: str):
        super().__init__("suppressed: " + "; ".join(_why(hit) for hit in hits))
        self.hits, self.rule = hits, rule

    def skipped_output(self, *, to: str) -> dict[str, Any]:
        """The output of the skipped node (the step log's, and in vars for `when` edges)."""
        return {
            "skipped": str(self),
            "rule": self.rule,
            "suppressions": [hit.described() for hit in self.hits],
            "to": to,
        }

    def decided(self, *, channel: str, to: str) -> StepDecision:
        """What the step decided (workflows.decisions): skipped by `rule`, or (a transactional
        send's hard bounce or complaint, rule "") failed; the entries and their sources."""
        label = CHANNEL_SPECS[channel].label
        entries = "; ".join(
            f"{hit.recipient} is on the suppression list ({hit.reason}"
            + (" from marketing" if hit.scope == SuppressionScope.MARKETING else "")
            + f" since {hit.created_at:%Y-%m-%d}"
            + (f", by {hit.source}" if hit.source else "")
            + f", entry {hit.id})"
            for hit in self.hits
        )
        evidence = {
            "channel": channel,
            "to": to,
            "suppressions": [hit.described() for hit in self.hits],
        }
        if not self.rule:
            return StepDecision(FAILED, f"{label} failed: {entries}", "suppressed", evidence)
        return StepDecision(SKIPPED, f"{label} skipped: {entries}", self.rule, evidence)


def suppression_screen(
    *, node: dict[str, Any], rendered: Rendered, marketing: bool, generation: int | None = None
) -> tuple[Rendered, list[str]]:
    """The send's rendered fields without its suppressed recipients, and those left out; raises
    Suppressed when none is left, saying whether that skips the send or fails it. Several email recipients of whom some are suppressed: the
    message goes to the others (docs/design/deliveries.md, "Suppression and unsubscribe"). With the list's
    `generation` (the claim's), checked against this process's copy (SuppressionCache)."""
    channel = str(NODE_TYPES[str(node["type"])].channel)  # the channel the node's type sends on
    recipients = recipients_of(node, rendered)
    blocked = SUPPRESSIONS.among(
        generation=generation, channel=channel, recipients=recipients, marketing=marketing
    )
    if not blocked:
        return rendered, []
    left_out = [r for r in recipients if recipient_normalise(channel, r) in blocked]
    if len(left_out) == len(recipients):
        hits = [blocked[recipient_normalise(channel, r)] for r in left_out]
        skip_suppressed = bool(node.get("skip_suppressed"))
        rule = suppression_skip_rule(
            hits=hits, marketing=marketing, skip_suppressed=skip_suppressed
        )
        raise Suppressed(hits, rule=rule)
    kept = [
        formataddr(pair)
        for pair in email_addresses(rendered["to"])
        if recipient_normalise(channel, pair[1]) not in blocked
    ]
    return {**rendered, "to": ", ".join(kept)}, left_out


def _why(row: Hit) -> str:
    scope = " from marketing" if row.scope == SuppressionScope.MARKETING else ""
    return f"{row.recipient} ({row.reason}{scope}, {row.created_at:%Y-%m-%d})"


# One-click unsubscribe (RFC 8058): a link that proves which recipient of which channel asked,
# without a login, and expires. Made here, where messages are sent; read by deliveries' view.
UNSUBSCRIBE_SALT = "notiflow.unsubscribe"


class Unsubscribing(NamedTuple):
    """Who a one-click unsubscribe link is for, and the message that carried it (its send's
    idempotency key, `<trigger_id>:<node_id>`; empty in links made before it was carried)."""

    channel: str
    recipient: str
    idempotency_key: str = ""


def unsubscribe_token(*, channel: str, recipient: str, idempotency_key: str = "") -> str:
    data = {"c": channel, "r": recipient_normalise(channel, recipient)}
    if idempotency_key:
        data["k"] = idempotency_key
    return signing.dumps(data, salt=UNSUBSCRIBE_SALT)


def unsubscribe_token_read(token: str) -> Unsubscribing:
    """Whom a token this service signed within NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS names;
    signing.BadSignature (or its SignatureExpired) otherwise."""
    data = signing.loads(
        token,
        salt=UNSUBSCRIBE_SALT,
        max_age=timedelta(days=settings.NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS),
    )
    if not isinstance(data, dict) or not isinstance(data.get("r"), str):
        raise signing.BadSignature("not an unsubscribe token")
    return Unsubscribing(str(data.get("c") or "email"), data["r"], str(data.get("k") or ""))


def unsubscribe_headers(*, recipient: str, idempotency_key: str) -> dict[str, str]:
    """The RFC 8058 headers of a marketing email to `recipient`, sent as `idempotency_key` (so
    an unsubscribe through them is recorded against that send); LookupError when the service
    has no public URL to point them at."""
    if not settings.NOTIFLOW_PUBLIC_URL:
        raise LookupError(
            "a marketing email carries a one-click unsubscribe link, and NOTIFLOW_PUBLIC_URL "
            "(where recipients reach this service) is not set"
        )
    token = unsubscribe_token(channel="email", recipient=recipient, idempotency_key=idempotency_key)
    url = f"{settings.NOTIFLOW_PUBLIC_URL}/deliveries/unsubscribe/{token}/"
    return {"List-Unsubscribe": f"<{url}>", "List-Unsubscribe-Post": "List-Unsubscribe=One-Click"}


def recipient_checked(*, channel: str, recipient: str) -> str:
    """`recipient` as the sends of `channel` name it, normalised; ValueError saying what is
    wrong. The channel's spec says how (workflows.channels, `suppression`): an address is
    checked as the channel's sends check their `to` (its node type's rule: one email address;
    an E.164 number, its punctuation dropped), so the list holds what sends can match; a
    channel that suppresses a person (push) takes a recipient's key, as given."""
    spec = CHANNEL_SPECS.get(channel)
    if spec is None or spec.suppression == SUPPRESS_NONE:
        known = ", ".join(suppressible_channels())
        raise ValueError(f"unknown channel {channel!r} ({known})")
    if spec.suppression == SUPPRESS_PERSON:
        if not recipient or recipient != recipient.strip() or len(recipient) > KEY_MAX_LENGTH:
            raise ValueError(
                f"a {channel} suppression names a recipient's key (1 to {KEY_MAX_LENGTH} "
                "characters, no surrounding spaces)"
            )
        return recipient
    kind = channel_node_type(channel)
    if kind is None:
        raise ValueError(f"no node type sends on channel {channel!r}")
    try:
        checked = recipient_check({"id": "suppression", "type": kind.name}, {"to": recipient})
    except RenderError as exc:
        raise ValueError(str(exc).removeprefix("node 'suppression': ")) from None
    return recipient_normalise(channel, checked["to"])
