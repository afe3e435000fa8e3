"""The channel registry (docs/design/channels.md, "Channels: one spec each"): every channel a message
goes out on, declared once as a ChannelSpec in REGISTERED. The providers (workers.providers), the
engine's send (the spec's `sender`, in workers/channels/), the suppression list
(deliveries.suppression), preferences and the admin's category defaults (recipients), the API's
channel choices and the docs' channel table (channels_table) ask it. A new channel is its sender's
module, `workers/channels/<name>.py`, and one entry here; the node types that send on it name it
(workflows.nodes: `channel`; `delivers_on` for one without a provider, in-app).

It stands in `workflows`, the lowest room that every asker may import: pure declarations, no
database and no provider code (the sender is named by its dotted path, resolved by workers).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

# How the suppression list names a channel's recipient (ChannelSpec.suppression).
SUPPRESS_NONE = ""  # the list holds nothing of it: an operator cannot add an entry
SUPPRESS_ADDRESS = "address"  # an address, checked as the channel's sends check their `to`
SUPPRESS_PERSON = "person"  # a person's key: every address they have on the channel

# What a send's output records ({"message_id", "to", ...}: the step log's, `vars`', message.sent's).
SENT_OUTPUT = ("message_id", "to", "sent_at", "provider", "provider_message_id")


@dataclass(frozen=True)
class NamedProviders:
    """Providers an operator names, in failover order, in the list setting `setting`
    (`NOTIFLOW_EMAIL_PROVIDERS=ses,smtp`), each with a backend its sender knows
    (`backend_of`); none named, the one provider of the older setting `fallback`."""

    setting: str
    fallback: str


@dataclass(frozen=True)
class OneProvider:
    """One provider named `name`, present when one of the settings `configured_by` is set (none
    listed: always, the address coming with each message)."""

    name: str
    configured_by: tuple[str, ...] = ()


@dataclass(frozen=True)
class ChannelSpec:
    """One channel. Its `name` is also the key a person's preferences name it by
    (`channels.<name>`, `categories.<slug>.<name>`) and the suppression list's `channel`."""

    name: str
    # What a person reads for it (the hosted preference page, the admin's category defaults).
    label: str
    # How an operator's error names it ("this worker has no SMS provider").
    noun: str
    # Where a recipient's address for it is: a profile field (`profile_field`: recipient.email),
    # or an entry of the profile's `channels` (`channels_key`: recipient.channels.fcm), a list
    # of addresses when `addresses` (one message each; the channels API adds and removes them).
    # Neither: the person themself (in-app).
    profile_field: str = ""
    channels_key: str = ""
    addresses: bool = False
    # Its providers; None: it delivers without one (in-app, stored by the release).
    providers: NamedProviders | OneProvider | None = None
    # The dotted path of its sender class (workers/channels/<name>.py); "" without providers.
    sender: str = ""
    # How the suppression list names its recipients (SUPPRESS_*), and whether an address is
    # compared in lower case (email: providers report addresses in any case).
    suppression: str = SUPPRESS_NONE
    caseless: bool = False
    # A marketing message carries one-click unsubscribe headers (RFC 8058).
    unsubscribe_headers: bool = False
    # What its output records.
    outputs: tuple[str, ...] = SENT_OUTPUT

    @property
    def address(self) -> str:
        """Where its address is, as the docs write it."""
        if self.profile_field:
            return f"recipient.{self.profile_field}"
        if self.channels_key:
            return f"recipient.channels.{self.channels_key}"
        return "the recipient"


PUSH_OUTPUT = (*SENT_OUTPUT, "delivered", "gone")

REGISTERED: tuple[ChannelSpec, ...] = (
    ChannelSpec(
        name="email",
        label="Email",
        noun="email",
        profile_field="email",
        providers=NamedProviders("NOTIFLOW_EMAIL_PROVIDERS", fallback="EMAIL_BACKEND"),
        sender="workers.channels.email.EmailChannel",
        suppression=SUPPRESS_ADDRESS,
        caseless=True,
        unsubscribe_headers=True,
    ),
    ChannelSpec(
        name="sms",
        label="Text message (SMS)",
        noun="SMS",
        profile_field="phone",
        providers=NamedProviders("NOTIFLOW_SMS_PROVIDERS", fallback="NOTIFLOW_SMS_BACKEND"),
        sender="workers.channels.sms.SmsChannel",
        suppression=SUPPRESS_ADDRESS,
    ),
    ChannelSpec(
        name="webpush",
        label="Browser notifications",
        noun="web push",
        channels_key="webpush",
        addresses=True,
        providers=OneProvider("webpush", configured_by=("NOTIFLOW_VAPID_PRIVATE_KEY",)),
        sender="workers.channels.push.WebPushChannel",
        suppression=SUPPRESS_PERSON,
        outputs=PUSH_OUTPUT,
    ),
    ChannelSpec(
        name="push",
        label="Mobile push",
        noun="push (FCM)",
        channels_key="fcm",
        addresses=True,
        providers=OneProvider(
            "fcm",
            configured_by=(
                "NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON",
                "NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE",
            ),
        ),
        sender="workers.channels.push.PushChannel",
        suppression=SUPPRESS_PERSON,
        outputs=PUSH_OUTPUT,
    ),
    ChannelSpec(
        name="slack",
        label="Slack",
        noun="Slack",
        channels_key="slack",
        providers=OneProvider("slack"),
        sender="workers.channels.slack.SlackChannel",
    ),
    ChannelSpec(
        name="teams",
        label="Microsoft Teams",
        noun="Microsoft Teams",
        channels_key="teams",
        providers=OneProvider("teams"),
        sender="workers.channels.teams.TeamsChannel",
    ),
    ChannelSpec(
        name="inapp",
        label="In-app messages",
        noun="in-app",
        outputs=("message_id", "channel", "recipient", "sent_at"),
    ),
)

# name -> the channel; read on every call (a test may register one for its duration).
CHANNEL_SPECS: dict[str, ChannelSpec] = {spec.name: spec for spec in REGISTERED}


def channel_spec(name: str) -> ChannelSpec:
    """The registered channel `name`; KeyError for one nobody registered."""
    return CHANNEL_SPECS[name]


def channel_names() -> list[str]:
    """Every registered channel, in the registry's order (preferences, category defaults)."""
    return list(CHANNEL_SPECS)


def sending_channels() -> list[ChannelSpec]:
    """The channels that send through a provider (a sender and its providers)."""
    return [spec for spec in CHANNEL_SPECS.values() if spec.providers is not None]


def suppressible_channels() -> list[str]:
    """The channels the suppression list may hold entries of (the API's and admin's choices)."""
    return [name for name, spec in CHANNEL_SPECS.items() if spec.suppression != SUPPRESS_NONE]


@contextmanager
def channel_registered(spec: ChannelSpec) -> Iterator[ChannelSpec]:
    """`spec` registered for the block's duration (tests: a toy channel shows every asker asks
    the registry)."""
    if spec.name in CHANNEL_SPECS:
        raise ValueError(f"channel {spec.name!r} is already registered")
    CHANNEL_SPECS[spec.name] = spec
    try:
        yield spec
    finally:
        del CHANNEL_SPECS[spec.name]


def _providers_text(spec: ChannelSpec) -> str:
    if isinstance(spec.providers, NamedProviders):
        return f"named in `{spec.providers.setting}` (none: `{spec.providers.fallback}`)"
    if isinstance(spec.providers, OneProvider):
        when = " or ".join(f"`{name}`" for name in spec.providers.configured_by)
        return f"`{spec.providers.name}`" + (f", when {when} is set" if when else ", always")
    return "none (stored by the step's release)"


SUPPRESSION_TEXT = {
    SUPPRESS_NONE: "none",
    SUPPRESS_ADDRESS: "the address",
    SUPPRESS_PERSON: "the person's key",
}


def channels_table() -> str:
    """docs/design/channels.md's table of the channels, one row per registered channel, from their specs
    (tests/test_channels.py holds the document to it; NOTIFLOW_SNAPSHOT_UPDATE=1 rewrites it)."""
    rows = [
        "| channel | a person reads | the recipient's address (a node's own first) | providers "
        "| suppressed by | output |",
        "|---|---|---|---|---|---|",
    ]
    for spec in CHANNEL_SPECS.values():
        suppressed = SUPPRESSION_TEXT[spec.suppression] + (", any case" if spec.caseless else "")
        outputs = ", ".join(f"`{name}`" for name in spec.outputs)
        listed = ", a list" if spec.addresses else ""
        address = f"`{spec.address}`" if spec.address.startswith("recipient.") else spec.address
        rows.append(
            f"| `{spec.name}` | {spec.label} | {address}{listed} | {_providers_text(spec)} "
            f"| {suppressed} | {outputs} |"
        )
    return "\n".join(rows) + "\n"


__all__ = [
    "CHANNEL_SPECS",
    "REGISTERED",
    "SENT_OUTPUT",
    "SUPPRESS_ADDRESS",
    "SUPPRESS_NONE",
    "SUPPRESS_PERSON",
    "ChannelSpec",
    "NamedProviders",
    "OneProvider",
    "channel_names",
    "channel_registered",
    "channel_spec",
    "channels_table",
    "sending_channels",
    "suppressible_channels",
]
