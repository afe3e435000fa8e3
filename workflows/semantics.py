"""The run semantics, pure: what a step sees, what a node renders to, where a run goes next.

The engine (workers.services.engine) and the preview (workflows.preview) both call these, so the
preview says OK only for what a run would do. What is particular to a node type (its fields,
its render checks, its wait) is declared once, on its class (workflows.nodes): these functions
ask the registry. No database, no provider, no clock but the `now` passed in.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from django.conf import settings

from workflows.locales import locale_chain
from workflows.nodes import NODE_TYPES, node_type_of
from workflows.nodes.base import Rendered, RenderError, output_key
from workflows.nodes.sending import MissingAddress
from workflows.nodes.timing import Wait
from workflows.templating import (
    LOCALE_FILTERS,
    UNDEFINED_HINTS,
    condition_holds,
    condition_variable_paths,
    read_paths,
    render_budget,
    template_filters,
)
from workflows.translation import LOCALES

__all__ = ["MissingAddress", "RenderError", "Rendered", "Wait", "output_key"]


def execution_context(
    *,
    payload: dict[str, Any],
    vars: dict[str, Any],
    trigger: dict[str, Any],
    workflow: dict[str, Any],
    now: datetime,
    recipient: dict[str, Any] | None = None,
    trigger_locale: str = "",
    default_locale: str = "",
    tenant: dict[str, Any] | None = None,
    tenant_locale: str = "",
) -> dict[str, Any]:
    """What templates and conditions see (all JSON-serialisable): `payload`, `vars` (outputs of
    earlier nodes), `trigger` (`id`, `idempotency_key`, `created_at`), `workflow` (`key`,
    `name`, `version`), `now` and `locales`; and `recipient` (`id`, `email`, `phone`, `name`,
    `locale`, `timezone`, `channels`, `properties`) when the run has one. A run without one has
    no `recipient`: a template reading it fails as for any undefined variable. `locales` is the
    run's locale chain (workflows.locales.locale_chain: the trigger's `trigger_locale`, the
    recipient's, its language, the tenant's `tenant_locale`, the workflow's `default_locale`,
    the installation's), which the `t` filter and the formatting filters read
    (workflows.translation). A run of a tenant sees `tenant` (`id`, `name`, `properties`:
    docs/tenants.md); one without has none, and a template reading it fails as for any
    undefined variable."""
    recipient_locale = recipient.get("locale") if recipient is not None else ""
    chain = locale_chain(
        trigger_locale=trigger_locale,
        recipient_locale=recipient_locale if isinstance(recipient_locale, str) else "",
        default_locale=default_locale,
        tenant_locale=tenant_locale,
    )
    context = {
        "payload": payload,
        "vars": vars,
        "trigger": trigger,
        "workflow": workflow,
        "now": now.isoformat(),
        LOCALES: list(chain),
    }
    if recipient is not None:
        context["recipient"] = recipient
    if tenant is not None:
        context[TENANT] = tenant
    return context


def workflow_context(
    *, key: str, name: str, version: int | None, default_layout: str = ""
) -> dict[str, Any]:
    """The context's `workflow`: `key`, `name`, `version`, and `default_layout` when the
    workflow has one (its emails' layout after the node's own: workflows.layouts)."""
    found: dict[str, Any] = {"key": key, "name": name, "version": version}
    if default_layout:
        found["default_layout"] = default_layout
    return found


# The context's name for the run's tenant (docs/tenants.md), which the `t` filter reads too.
TENANT = "tenant"


# The run's link to its recipient's preference page (the engine's trigger_context).
PREFERENCES_URL = "preferences_url"
# The context's names that come with the run's recipient (the engine's trigger_context).
RECIPIENT_ROOTS = frozenset({"recipient", PREFERENCES_URL})


def preference_page_url(token: str) -> str | None:
    """The hosted preference page of a person's signed `token` (recipients.preferences), or None
    while the service has no public address (NOTIFLOW_PUBLIC_URL) to point it at. The preview
    links a placeholder token: it signs nothing."""
    if not settings.NOTIFLOW_PUBLIC_URL:
        return None
    return f"{settings.NOTIFLOW_PUBLIC_URL}/deliveries/preferences/{token}/"


def preferences_url_missing() -> str:
    """Why a run's context has no `preferences_url`: the link needs the service's public
    address, and a recipient whose page it is."""
    if not settings.NOTIFLOW_PUBLIC_URL:
        return (
            "the service's public address is not set (NOTIFLOW_PUBLIC_URL), so there is no "
            "preference page to link to"
        )
    return "the run has no recipient, whose preference page it would link to"


UNDEFINED_HINTS[PREFERENCES_URL] = preferences_url_missing


def recipient_read(node: dict[str, Any], edges: Iterable[dict[str, Any]]) -> bool:
    """Whether a step of `node` reads the run's recipient: its type sends or delivers (the
    preferences, a chat or push address), reads it in its run (NodeType.reads_recipient), a
    template of the node or a condition of its outgoing `edges` names `recipient` or
    `preferences_url`, or a template translates or formats (the recipient's locale and time
    zone). The engine reads the recipient for no other step (a run's delays, throttles and
    digests cost no statement for it)."""
    node_type = node_type_of(node)
    if node_type is None:
        return False  # not run: the step fails as unrunnable
    if node_type.sends or node_type.delivers_on or node_type.reads_recipient:
        return True
    sources = node_type.template_sources(node)
    if any(LOCALE_FILTERS.keys() & template_filters(source) for source in sources):
        return True
    paths = [path for source in sources for path in read_paths(source)]
    for edge in edges:
        if isinstance(edge.get("when"), str) and edge["when"].strip():
            paths.extend(read_paths(edge["when"], condition=True))
    return any(path[:1] and path[0] in RECIPIENT_ROOTS for path in paths)


def steps_read(definition: dict[str, Any]) -> tuple[str, ...]:
    """The steps whose message state an edge's `when` or a node's template reads
    (`steps.<id>.delivery`), in order: templates see the `steps` conditions see."""
    paths: list[tuple[str, ...]] = []
    for edge in definition.get("edges", []):
        when = edge.get("when")
        if isinstance(when, str) and "steps" in when:
            paths.extend(condition_variable_paths(when))
    for node in definition.get("nodes", []):
        node_type = node_type_of(node) if isinstance(node, dict) else None
        for source in node_type.template_sources(node) if node_type else ():
            if "steps" in source:
                paths.extend(read_paths(source))
    found: list[str] = []
    for path in paths:
        if len(path) >= 2 and path[0] == "steps" and path[1] not in found:
            found.append(str(path[1]))
    return tuple(found)


def steps_context(states: dict[str, str]) -> dict[str, dict[str, str]]:
    """The `steps` a condition sees: `steps.<id>.delivery`, the latest state of the step's
    message (`sent`, `delivered`, `opened`, `clicked`, `bounced`, `failed`, `read`, ...), ""
    when the step sent nothing."""
    return {node_id: {"delivery": state} for node_id, state in states.items()}


def step_input(
    *, node: dict[str, Any], edges: Iterable[dict[str, Any]], context: dict[str, Any]
) -> dict[str, Any]:
    """What a step log keeps of the context its step saw: `trigger`, `workflow` and `now`, and of
    `payload` and `vars` only what the node's templates and its outgoing edges' conditions read
    (a run's payload is on the trigger, its vars too; a digest or a large payload is then not
    copied into every step log). A path read whole (`{{ payload }}`) is kept whole. So for
    `recipient`: a step log keeps only the profile fields its templates read (erasing the
    person then leaves little of them in the logs: docs/security/recipients.md)."""
    node_type = node_type_of(node)
    sources = node_type.template_sources(node) if node_type else []
    paths = [path for source in sources for path in read_paths(source)]
    for edge in edges:
        if isinstance(edge.get("when"), str) and edge["when"].strip():
            paths.extend(read_paths(edge["when"], condition=True))
    kept: dict[str, Any] = {key: value for key, value in context.items() if key not in _PICKED}
    for root in _PICKED:
        if root in context:
            kept[root] = _picked(context[root], [p[1:] for p in paths if p and p[0] == root])
    return kept


_PICKED = ("payload", "vars", "recipient")


def _picked(source: Any, paths: list[tuple[str, ...]]) -> Any:
    """The parts of `source` at `paths`, in fresh objects (`source` itself is never changed):
    each path is walked while it names a key of an object; where it meets a list or a value
    (`items.first.name`), that is kept whole; a key that is not there keeps nothing."""
    if not isinstance(source, dict):
        return source
    kept: dict[str, Any] = {}
    whole: set[tuple[str, ...]] = set()
    for path in sorted(set(paths), key=len):
        value, reached = source, 0
        while reached < len(path) and isinstance(value, dict) and path[reached] in value:
            value, reached = value[path[reached]], reached + 1
        if reached < len(path) and isinstance(value, dict):
            continue  # a key that is not there: nothing was read
        found = path[:reached]
        if any(found[:length] in whole for length in range(len(found) + 1)):
            continue  # inside a part already kept whole
        if not found:
            return source
        whole.add(found)
        target = kept
        for key in found[:-1]:
            target = target.setdefault(key, {})
        target[found[-1]] = value
    return kept


def sends(node: dict[str, Any]) -> bool:
    """Whether running this node calls a provider (and so has a send ledger row)."""
    node_type = node_type_of(node)
    return node_type is not None and node_type.sends


def outputs(node: dict[str, Any]) -> bool:
    """Whether running this node leaves an output in vars (`output_key`): a send, a throttle,
    a digest."""
    node_type = node_type_of(node)
    return node_type is not None and (node_type.sends or node_type.outputs)


def sending_types() -> list[str]:
    return [name for name, node_type in NODE_TYPES.items() if node_type.sends]


def rendered_fields(node: dict[str, Any]) -> Iterable[str]:
    """The node's template fields that a run renders: every required one, and the optional
    ones that are set."""
    node_type = node_type_of(node)
    return node_type.rendered_fields(node) if node_type else []


def field_render(node: dict[str, Any], name: str, context: dict[str, Any]) -> str:
    """One template field of `node`, rendered (HTML fields with autoescape); RenderError naming
    the node and field."""
    return NODE_TYPES[str(node["type"])].field_render(node, name, context)


def recipient_check(node: dict[str, Any], rendered: Rendered) -> Rendered:
    """The rendered fields as they will be sent (`to` normalised), or RenderError when they
    cannot be: the node type's own check (an email address, an E.164 number...)."""
    node_type = node_type_of(node)
    return node_type.recipient_check(node, rendered) if node_type else rendered


def recipients_of(node: dict[str, Any], rendered: Rendered) -> list[str]:
    """The addresses or numbers a checked render (node_render) sends to."""
    return NODE_TYPES[str(node["type"])].recipients(node, rendered)


def node_render(node: dict[str, Any], context: dict[str, Any]) -> Rendered:
    """Every field a sending node sends, rendered within one render budget, made into its
    message (an email in its layout: NodeType.message_finish) and checked; RenderError at the
    first problem."""
    node_type = NODE_TYPES[str(node["type"])]
    with render_budget():
        rendered = {name: field_render(node, name, context) for name in rendered_fields(node)}
        rendered = node_type.message_finish(node, rendered, context)
    return recipient_check(node, rendered)


def next_node_id(
    edges: Iterable[dict[str, Any]], context: dict[str, Any], *, conditional_only: bool = False
) -> str | None:
    """The target of the first of a node's outgoing `edges` whose `when` holds in `context` (an
    edge without `when` always holds), or None: the run ends. TemplateError when a condition
    cannot be evaluated. `conditional_only` (a throttled run) follows only an edge with a
    `when`: the edges without one are the way on for the runs that passed."""
    for edge in edges:
        if conditional_only and not edge.get("when"):
            continue
        if condition_holds(edge.get("when"), context):
            return str(edge["to"])
    return None
