"""The reference pages of the documentation site (docs/reference/), rendered from the code that
declares what they list, so that they cannot drift (docs/design/rules.md, rule 18): the settings
(notiflow/settings_spec/), the node types (workflows.nodes), the channels
(workflows.channels.channels_table), the metrics (common.metrics and notiflow.metrics' gauges),
the `manage.py` commands (each command's argparse parser) and the webhook events
(events.catalog). The API page's OpenAPI schema is generated when the site is built
(scripts/docs_site.py), from the code as `GET /api/schema/` serves it.

`make docs-reference` writes them (tests/test_docs_reference.py with NOTIFLOW_SNAPSHOT_UPDATE=1);
the same test fails while a committed page is stale. Needs Django set up (no database).
"""

from __future__ import annotations

import argparse
import inspect
import json
from collections.abc import Callable
from typing import Any

from django.core.management import get_commands, load_command_class
from django.core.management.base import BaseCommand

from common.metrics import ALL_METRICS
from events.catalog import ALL, EVENT_TYPES, PING, cloud_type
from notiflow.metrics import GAUGES
from notiflow.settings_spec import settings_reference
from workflows.channels import channels_table
from workflows.nodes import NODE_TYPES, NodeType

GENERATED = "<!-- Generated from {source} by `make docs-reference`: edit that, not this page. -->"
# The apps whose commands are Notiflow's (Django's and django-celery-beat's are theirs).
OUR_APPS = ("workflows", "registry", "triggers", "workers", "events", "deliveries", "recipients")


def _cell(text: object) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _intro(title: str, source: str, *paragraphs: str) -> list[str]:
    return [f"# {title}", "", GENERATED.format(source=source), "", *paragraphs]


# --- node types --------------------------------------------------------------------------------


def _schema_text(schema: dict[str, Any]) -> str:
    """A field's JSON schema in a few words: its type and its bounds, choices or example."""
    kind = schema.get("type", "")
    if kind == "array" and "items" in schema:
        kind = f"array of {_schema_text(schema['items'])}"
    elif "oneOf" in schema or "anyOf" in schema:
        kind = " or ".join(_schema_text(one) for one in schema.get("oneOf") or schema["anyOf"])
    words = [f"{kind}" if kind else "any"]
    if "enum" in schema:
        words.append("one of " + ", ".join(f"`{json.dumps(value)}`" for value in schema["enum"]))
    for bound, word in (("minimum", "≥"), ("maximum", "≤"), ("minLength", "length ≥")):
        if bound in schema:
            words.append(f"{word} {schema[bound]}")
    if "maxLength" in schema:
        words.append(f"length ≤ {schema['maxLength']}")
    if "pattern" in schema:
        words.append(f"matching `{schema['pattern']}`")
    if "example" in schema:
        words.append(f"e.g. `{json.dumps(schema['example'])}`")
    if "description" in schema:
        words.append(f"({schema['description']})")
    return ", ".join(words)


def _node_type_section(kind: NodeType) -> list[str]:
    doc = inspect.getdoc(inspect.getmodule(type(kind))) or ""
    what = doc.split("\n\n", 1)[0]
    lines = [f"## `{kind.name}`", "", " ".join(what.split()), ""]
    facts = []
    if kind.channel:
        facts.append(f"Sends on the channel `{kind.channel}` ([Channels](channels.md)).")
    elif kind.delivers_on:
        facts.append(f"Delivers on the channel `{kind.delivers_on}`, without a provider.")
    else:
        facts.append("Sends nothing.")
    facts.append(
        f"Its output lands in `vars.{'<id>' if kind.output_under_id else kind.name + '_<id>'}`."
    )
    lines += [" ".join(facts), ""]
    lines += ["| field | required | template | value |", "|---|---|---|---|"]
    properties = kind.json_schema()["properties"]
    for name in kind.fields:
        template = "HTML" if name in kind.html else "yes" if name in kind.templates else ""
        required = "yes" if name in kind.required else ""
        lines.append(
            f"| `{name}` | {required} | {template} | {_cell(_schema_text(properties[name]))} |"
        )
    return [*lines, ""]


def node_types_reference() -> str:
    lines = _intro(
        "Node types",
        "the node type registry (workflows/nodes/)",
        "Every node type a workflow definition may use, in the registry's order. Each node also "
        "has an `id` (letters, digits, `_` and `-`, at most 100) and its `type`; a field a type "
        "does not have is refused, naming it. A template field is rendered with Liquid at run "
        "time and parsed when the workflow is saved; an HTML one renders with autoescape.",
        "",
    )
    for kind in NODE_TYPES.values():
        lines += _node_type_section(kind)
    return "\n".join(lines)


# --- channels, events ----------------------------------------------------------------------------


def channels_reference() -> str:
    return "\n".join(
        _intro(
            "Channels",
            "the channel specs (workflows/channels.py)",
            "Every channel a node sends or delivers on: where its recipient's address is, which "
            "providers send it, what suppresses a send, and what a send leaves in the run's "
            "`vars`.",
            "",
            channels_table(),
        )
    )


def events_reference() -> str:
    lines = _intro(
        "Webhook events",
        "the event catalog (events/catalog.py)",
        f"Every event a webhook endpoint may subscribe to (its `events`; `{ALL}` for all). On "
        "the wire each is a CloudEvent whose `type` is the name prefixed, as the second column "
        f"shows. `{PING}` (`{cloud_type(PING)}`) is sent by `POST /api/webhooks/<id>/test/` to "
        "that endpoint alone; nobody subscribes to it.",
        "",
        "| event | CloudEvents `type` | when |",
        "|---|---|---|",
    )
    for name, when in EVENT_TYPES.items():
        lines.append(f"| `{name}` | `{cloud_type(name)}` | {_cell(when)} |")
    return "\n".join([*lines, ""])


# --- metrics -------------------------------------------------------------------------------------


def _exposed_name(metric: Any) -> str:
    return f"{metric._name}_total" if metric._type == "counter" else metric._name


def metrics_reference() -> str:
    lines = _intro(
        "Metrics",
        "common/metrics.py and notiflow/metrics.py",
        "What `GET /metrics` exposes (`Authorization: Bearer $NOTIFLOW_METRICS_TOKEN`). The "
        "first table is recorded by the processes where it happens (under "
        "`NOTIFLOW_METRICS_DIR`); a histogram also has its `_bucket`, `_sum` and `_count` "
        "series. The second is read from the database at scrape time. Every label value is "
        "bounded by configuration, never by traffic.",
        "",
        "## Recorded by the processes",
        "",
        "| metric | type | labels | what it counts |",
        "|---|---|---|---|",
    )
    for metric in ALL_METRICS:
        labels = ", ".join(f"`{label}`" for label in metric._labelnames)
        lines.append(
            f"| `{_exposed_name(metric)}` | {metric._type} | {labels} "
            f"| {_cell(metric._documentation)} |"
        )
    lines += [
        "",
        "## Read from the database at scrape time",
        "",
        "| metric | type | labels | what it says |",
        "|---|---|---|---|",
    ]
    for name, (documentation, label_names) in GAUGES.items():
        labels = ", ".join(f"`{label}`" for label in label_names)
        lines.append(f"| `{name}` | gauge | {labels} | {_cell(documentation)} |")
    return "\n".join([*lines, ""])


# --- manage.py commands --------------------------------------------------------------------------


def _flag_row(action: argparse.Action) -> str:
    if action.option_strings:
        spelled = ", ".join(f"`{flag}`" for flag in action.option_strings)
        takes = action.nargs != 0
    else:
        spelled, takes = f"`{action.metavar or action.dest}`", False
    repeats = action.nargs in ("*", "+") or isinstance(action, argparse._AppendAction)
    if action.choices:
        value = " ".join(f"`{choice}`" for choice in action.choices)
    elif takes:
        value = f"`{action.metavar or action.dest.upper()}`"
    else:
        value = ""
    if repeats:
        value = f"{value}, repeatable" if value else "repeatable"
    default = action.default
    unset = default in (None, False, [], argparse.SUPPRESS)
    shown = "" if unset or not takes else f"`{default}`"
    return f"| {spelled} | {value} | {shown} | {_cell(action.help or '')} |"


def _parser_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    return list(parser._actions)  # argparse keeps no public list of a parser's arguments


def commands_reference() -> str:
    base = {
        action.dest for action in _parser_actions(BaseCommand().create_parser("manage.py", "x"))
    }
    lines = _intro(
        "manage.py commands",
        "each command's argparse parser (<app>/management/commands/)",
        "Notiflow's own commands, each with the flags it takes beyond Django's common ones "
        "(`--verbosity`, `--settings`, `--traceback`, …). Run one with `python manage.py "
        '<command>`; against the instance `make run` set up, `make manage ARGS="<command> …"`.',
        "",
    )
    commands = sorted(name for name, app in get_commands().items() if app in OUR_APPS)
    for name in commands:
        command = load_command_class(get_commands()[name], name)
        parser = command.create_parser("manage.py", name)
        own = [action for action in _parser_actions(parser) if action.dest not in base]
        lines += [f"## `{name}`", "", " ".join(str(command.help).split()), ""]
        if own:
            lines += ["| argument | value | default | what it does |", "|---|---|---|---|"]
            lines += [_flag_row(action) for action in own]
        else:
            lines.append("No arguments of its own.")
        lines.append("")
    return "\n".join(lines)


# File under docs/reference/ -> what renders it.
PAGES: dict[str, Callable[[], str]] = {
    "settings.md": settings_reference,
    "node-types.md": node_types_reference,
    "channels.md": channels_reference,
    "metrics.md": metrics_reference,
    "commands.md": commands_reference,
    "events.md": events_reference,
}
