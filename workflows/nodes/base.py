"""What a node type is (docs/design/workflows.md, "Node types"): the class every node type module
subclasses, and the small values its methods take and return. Pure: no database, no provider.

A node type declares, on one class: its fields (required, optional, which are templates, their
JSON schema and admin form field), its extra validation (`problems`), its rendering checks, what
running it does (`run`, through the StepPort the engine passes in; or `channel`, the channel it
sends on), what the preview shows, how the diagram draws it and how the admin row edits it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar, Protocol
from uuid import UUID

from workflows.decisions import StepDecision
from workflows.templating import TemplateError, template_render

if TYPE_CHECKING:
    from django import forms

    from workflows.nodes.fetch import FetchAnswer, FetchRequest

Rendered = dict[str, str]
Problem = tuple[str, str]  # (the node's field, what is wrong with it), for the validator


class RenderError(Exception):
    """A node whose fields do not render to something that can be sent: a template that fails
    (an undefined variable), or a recipient that is empty or malformed. Permanent: running the
    same node on the same context again fails the same way.

    The message names the node (and the field, when one failed), as a run's `last_error` does;
    `detail` is the problem alone, for showing beside the field.
    """

    def __init__(self, message: str, *, field: str | None = None, detail: str = ""):
        super().__init__(message)
        self.field = field
        self.detail = detail or message


class StepFailed(Exception):
    """A side effect a StepPort method attempted failed (a fetch's request): `transient` says
    whether trying again may help. The engine's own errors are these (workers.errors), so a node
    type may catch what its port raised without importing the engine (a fetch's
    `on_error: continue`)."""

    transient: ClassVar[bool] = False


# Where a run goes after a node (NodeRun.follow).
FOLLOW_EDGES = "edges"  # the first outgoing edge whose `when` holds
FOLLOW_CONDITIONAL = "conditional"  # the same among the edges with a `when` (throttled)
FOLLOW_AGAIN = "again"  # this node once more, at `resume_at` (pauses: a digest's opener)
FOLLOW_END = "end"  # nowhere: the run is completed (a run that joined a digest)


@dataclass
class NodeRun:
    """What running a node produced: its output (the step log's), the vars patch, when the run
    goes on (`resume_at`; None: at once) and where (`follow`); whether it sent, or skipped a
    send (a suppression that is not a failure: the output says why). `writes` are (SQL, named
    params) data-modifying statements the engine runs in the step's transaction right after its
    release, and only when the release applied (the lease was still the step's), so they commit
    with the step or not at all; a step that fails drops them. `inbox` is an in-app message
    (StepPort.inbox_store) that the release itself stores, in its own statement. `decision`
    is what the step decided, in its step log (workflows.decisions; docs/design/rules.md, rule 20)."""

    output: dict[str, Any]
    vars_patch: dict[str, Any] = field(default_factory=dict)
    resume_at: datetime | None = None
    sent: bool = False
    skipped: bool = False
    follow: str = FOLLOW_EDGES
    writes: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    inbox: dict[str, Any] | None = None
    # The node delivered a message without a provider (an in-app message, `inbox`):
    # the engine announces message.sent with the release, on the channel the output names.
    delivered: bool = False
    # Called after the step's release commits, when it applied (an inbox's open streams told).
    on_commit: list[Callable[[], None]] = field(default_factory=list)
    decision: StepDecision | None = None


class ThrottleCount(Protocol):
    @property
    def passed(self) -> bool: ...
    @property
    def count(self) -> int: ...


class DigestReach(Protocol):
    @property
    def digest_id(self) -> UUID: ...
    @property
    def opener(self) -> bool: ...
    @property
    def opener_id(self) -> UUID: ...
    @property
    def closes_at(self) -> datetime: ...
    @property
    def summary(self) -> dict[str, Any] | None: ...


class EventWaitState(Protocol):
    @property
    def resolved(self) -> bool: ...
    @property
    def received(self) -> bool: ...
    @property
    def timed_out(self) -> bool: ...
    @property
    def event(self) -> dict[str, Any] | None: ...
    @property
    def deadline(self) -> datetime: ...


class StepPort(Protocol):
    """What a node's `run` may use of the step running it; the engine (workers) implements it,
    keeping the SQL where the tables are. `now` is the step's start."""

    @property
    def context(self) -> dict[str, Any]: ...
    @property
    def now(self) -> datetime: ...
    @property
    def payload(self) -> dict[str, Any]: ...
    @property
    def trigger_id(self) -> str: ...
    @property
    def workflow_id(self) -> int: ...
    @property
    def recipient(self) -> str:
        """The run's recipient's key (trigger_instance.recipient), '' for none."""
        ...

    def inbox_store(
        self, *, message_id: str, node_id: str, message: dict[str, Any]
    ) -> dict[str, Any]:
        """The in-app message (NodeRun.inbox) that the step's release stores in the recipient's
        inbox, once per (run, node)."""
        ...

    def inbox_notifier(self) -> Callable[[], None]:
        """What tells the recipient's open streams of a new message (NodeRun.on_commit)."""
        ...

    def throttle_pass(
        self, *, node_id: str, key: str, limit: int, window: timedelta
    ) -> ThrottleCount:
        """Count this run through a throttle (idempotent per run and node)."""
        ...

    def digest_join(self, *, node_id: str, key: str, window: timedelta) -> DigestReach:
        """Join (or open) the digest collecting under `key` (idempotent per run and node)."""
        ...

    def event_wait(
        self,
        *,
        node_id: str,
        name: str,
        match: dict[str, str],
        deadline: datetime,
        lookback: timedelta,
    ) -> EventWaitState:
        """The run's wait at the node: registered once (committed), an event that came first
        within `lookback` taken, closed as timed out past its deadline (waits.services)."""
        ...

    def event_wait_park(self, *, node_id: str, name: str) -> tuple[str, dict[str, Any]]:
        """The write (NodeRun.writes) that leaves the run `waiting` after the step's release,
        or due at once if its wait was resolved meanwhile."""
        ...

    @property
    def last_attempt(self) -> bool:
        """Whether a transient failure of this step would fail the run (its retries are spent)."""
        ...

    def fetch(self, request: FetchRequest) -> FetchAnswer:
        """One fetch node's HTTP request under the outgoing-request rules (workers.services.
        fetch); StepFailed (transient or not) when it failed, the engine's rate-limit wait when
        the far end asked to wait."""
        ...


@dataclass(frozen=True)
class RenderedField:
    name: str
    value: str | None
    error: str | None = None


@dataclass(frozen=True)
class NodePreview:
    node_id: str
    node_type: str
    fields: list[RenderedField] = field(default_factory=list)
    note: str = ""
    # Why a run would fail at this node, in the words of its last_error: the first field that
    # does not render, or a recipient that cannot be sent to. Empty when it would not fail.
    error: str = ""

    @property
    def ok(self) -> bool:
        return not self.error

    def value(self, name: str) -> str | None:
        return next((f.value for f in self.fields if f.name == name), None)


def output_key(node: dict[str, Any]) -> str:
    """Where a node's output lands in `vars`: `email_<id>`, `throttle_<id>`, `<type>_<id>`; the
    node's id alone for a type that says so (`output_under_id`: a wait_event's `vars.<id>`)."""
    from workflows.nodes import NODE_TYPES  # the registry imports this module

    kind = NODE_TYPES.get(str(node.get("type")))
    if kind is not None and kind.output_under_id:
        return str(node["id"])
    return f"{node['type']}_{node['id']}"


def value_error(node: dict[str, Any], name: str, exc: ValueError) -> RenderError:
    return RenderError(f"node {node['id']!r} field {name!r}: {exc}", field=name, detail=str(exc))


class NodeType:
    """A node type. Subclass it in `workflows/nodes/<name>.py` and list the class in
    workflows.nodes.REGISTERED; every attribute and method below has a default."""

    name: ClassVar[str] = ""
    required: ClassVar[tuple[str, ...]] = ()
    optional: ClassVar[tuple[str, ...]] = ()
    # Fields rendered with Liquid at run time (and parsed at save time); those in `html` render
    # with autoescape.
    templates: ClassVar[tuple[str, ...]] = ()
    html: ClassVar[tuple[str, ...]] = ()
    # The channel it sends on (workflows.channels, its spec: where the address is, which
    # providers, ...): running it calls that channel's provider, writes a send ledger row and
    # leaves the send's result in vars. None: `run`.
    channel: ClassVar[str | None] = None
    # The channel it delivers on without a provider (a registered channel without providers:
    # the in-app inbox, `inapp`), which a person's preferences name; a type with a `channel` is
    # addressed by that. None: preferences do not apply.
    delivers_on: ClassVar[str | None] = None
    # Whether its run reads the run's recipient beyond what its templates read (a window's
    # default time zone is the recipient's): the engine reads the recipient for a step only when
    # its node sends, delivers, reads it so, or its templates or edges name it
    # (workflows.semantics.recipient_read).
    reads_recipient: ClassVar[bool] = False
    # Whether its output lands in vars (`output_key`) without sending.
    outputs: ClassVar[bool] = False
    # Whether its output lands in vars under the node's id alone (not `<type>_<id>`).
    output_under_id: ClassVar[bool] = False
    # Whether its output's `events` are the payloads of the runs it gathered (the preview's
    # sample payload reads through them).
    gathers_payloads: ClassVar[bool] = False
    # Whether its run takes events posted to the API (`POST /api/events/`), some received
    # before the node was reached (`lookback`): what `manage.py purge_events` must keep.
    takes_posted_events: ClassVar[bool] = False
    # The diagram's (fill, stroke) colours; and the label of its unconditional edge when it
    # has several (a throttle's: "passed").
    colours: ClassVar[tuple[str, str]] = ("#f2f2f2", "#777777")
    otherwise_label: ClassVar[str] = ""
    # JSON schema of each field (the API schema); a field not listed is a string.
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {}
    # The admin row's rows of inputs, each a tuple of form field names; and the form field
    # that edits a node field of another name (where the validator's errors land).
    form_groups: ClassVar[tuple[tuple[str, ...], ...]] = ()
    form_field_of: ClassVar[dict[str, str]] = {}

    @property
    def fields(self) -> tuple[str, ...]:
        return (*self.required, *self.optional)

    @property
    def sends(self) -> bool:
        return self.channel is not None

    @property
    def has_message(self) -> bool:
        """Whether a run of it leaves a message whose states are reported (`message.<state>`:
        a provider's reports of a send, the inbox's marks of an in-app message)."""
        return self.channel is not None or self.delivers_on is not None

    # --- validation (the one validator calls these) -----------------------------------------

    @property
    def preference_channel(self) -> str | None:
        """The channel preferences name for this type: its `channel`, or `delivers_on`."""
        return self.channel or self.delivers_on

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        """What is wrong with a node's values beyond the generic checks (shape, unknown and
        required fields, template syntax), as (field, message)."""
        return []

    def category_problems(self, node: dict[str, Any], *, marketing: bool) -> list[Problem]:
        """What a workflow's category forbids of this node."""
        return []

    def graph_problems(
        self, node: dict[str, Any], *, before: list[dict[str, Any]]
    ) -> list[Problem]:
        """What is wrong with the node given the nodes that precede it on some path from the
        entry (`before`; asked only of a valid, acyclic graph)."""
        return []

    def lookback(self, node: dict[str, Any]) -> timedelta:
        """How long before the node was reached a posted event may have been received and still
        count (a type that `takes_posted_events`); ValueError for a value that does not parse."""
        return timedelta(0)

    # --- rendering ----------------------------------------------------------------------------

    def rendered_fields(self, node: dict[str, Any]) -> list[str]:
        """The template fields a run renders: every required one, the optional ones set."""
        return [
            name
            for name in self.templates
            if name in self.required or node.get(name) not in (None, "")
        ]

    def template_sources(self, node: dict[str, Any]) -> list[str]:
        """Every template a step of `node` renders, as written: where what it reads of the run
        is found (workflows.semantics: whether it reads the recipient, what its step log keeps;
        the preview's sample payload). The template fields set; a type rendering templates of
        another shape adds them."""
        return [node[name] for name in self.templates if isinstance(node.get(name), str)]

    def field_render(self, node: dict[str, Any], name: str, context: dict[str, Any]) -> str:
        """One template field, rendered (HTML fields with autoescape); RenderError naming the
        node and field."""
        try:
            return template_render(str(node.get(name, "")), context, html=name in self.html)
        except TemplateError as exc:
            message = f"node {node['id']!r} field {name!r}: {exc}"
            raise RenderError(message, field=name, detail=str(exc)) from exc

    def message_finish(
        self, node: dict[str, Any], rendered: Rendered, context: dict[str, Any]
    ) -> Rendered:
        """The rendered fields made into the message (an email put into its layout), within
        the render's budget, before recipient_check; RenderError naming the node."""
        return rendered

    def recipient_check(self, node: dict[str, Any], rendered: Rendered) -> Rendered:
        """A sending type's rendered fields as they will be sent, or RenderError."""
        return rendered

    def recipients(self, node: dict[str, Any], rendered: Rendered) -> list[str]:
        """The addresses a checked render sends to."""
        return [rendered["to"]] if "to" in rendered else []

    # --- running ------------------------------------------------------------------------------

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        """Run a node that sends nothing (a sending type's run is its channel's send).
        RenderError (permanent) for a value that renders unusable."""
        return NodeRun(output={})

    # --- preview ------------------------------------------------------------------------------

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        """What the node would do with this context at `now`, or the error a run would fail
        with (RenderError caught by the caller)."""
        fields: list[RenderedField] = []
        for name in self.rendered_fields(node):
            fields.append(RenderedField(name, self.field_render(node, name, context)))
        return NodePreview(node["id"], self.name, fields)

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        """What the preview pretends the node left in vars (only for types that output)."""
        return {}

    # --- diagram and admin --------------------------------------------------------------------

    def summary(self, node: dict[str, Any]) -> str:
        """The diagram box's second line ("email → {{ payload.email }}")."""
        return self.name

    def form_fields(self) -> dict[str, forms.Field]:
        """The admin row's form fields for this type (a field name shared by two types is the
        same field: the first registered declares it)."""
        return {}

    def form_node(
        self, data: dict[str, Any], node: dict[str, Any], original: dict[str, Any] | None
    ) -> dict[str, Any]:
        """The node from an admin row's cleaned `data` (`node` holds id, type and the keys the
        form does not edit)."""
        for name in self.fields:
            value = data.get(name)
            if isinstance(value, str):
                value = value.replace("\r\n", "\n")  # browsers submit CRLF line ends
            if value not in (None, "", False, []) or name in self.required:
                node[name] = "" if value is None else value
        return node

    def form_initial(self, node: dict[str, Any]) -> dict[str, Any]:
        """An admin row's initial values for a stored node."""
        return {name: node.get(name) for name in self.fields if name in node}

    # --- API schema ---------------------------------------------------------------------------

    def json_schema(self) -> dict[str, Any]:
        properties: dict[str, Any] = {
            "id": {"type": "string", "pattern": "^[A-Za-z0-9_-]{1,100}$"},
            "type": {"type": "string", "enum": [self.name]},
        }
        for name in self.fields:
            properties[name] = self.field_schemas.get(name, {"type": "string"})
        return {
            "type": "object",
            "title": f"{self.name} node",
            "properties": properties,
            "required": ["id", "type", *self.required],
            "additionalProperties": False,
        }
