"""Admin authoring without hand-written JSON: nodes and edges as formset rows, assembled into a
definition and checked by the one validator, whose errors land on the row and field they name."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from django import forms

from notiflow.http import json_loads_storable
from workflows.definition import CATEGORIES, NODE_TYPES, TRANSACTIONAL, category_of, delay_of
from workflows.models import Workflow
from workflows.services import definition_normalize
from workflows.timing import WEEKDAYS
from workflows.validation import ValidationError, workflow_validate

DELAY_UNITS = [("s", "seconds"), ("m", "minutes"), ("h", "hours"), ("d", "days"), ("ms", "ms")]
_UNIT_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}
# The validator's field names mapped onto the form fields that edit them.
_NODE_FIELD = {"delay_ms": "delay_amount", "duration": "delay_amount"}
# The fields of the timing and flow-control nodes, each in its own group (one row of inputs).
_FLOW_GROUPS = (("until",), ("timezone", "start", "end"), ("days",), ("key", "window"), ("limit",))
_EDGE_FIELD = {"from": "source", "to": "target", "when": "when"}
_PATH = re.compile(r"^(nodes|edges)\[(\d+)\](?:\.(\w+))?$")
_MANAGED_KEYS = {
    *("id", "type", "to", "subject", "body", "html", "provider", "skip_suppressed"),
    *("delay_ms", "duration", "until", "timezone", "days", "start", "end"),
    *("key", "limit", "window"),
}


def delay_amount_unit(node: dict[str, Any]) -> tuple[int | None, str]:
    """A delay as (amount, unit) in the largest unit that divides it, e.g. 900 s -> (15, "m")."""
    try:
        wait = delay_of(node)
    except (ValueError, TypeError, KeyError):
        return None, "m"
    milliseconds = round(wait / timedelta(milliseconds=1))
    if milliseconds % 1000:
        return milliseconds, "ms"
    seconds = milliseconds // 1000
    for unit, size in _UNIT_SECONDS.items():
        if seconds % size == 0 and (seconds or unit == "s"):
            return seconds // size, unit
    return seconds, "s"


# Single-line fields of the timing and flow-control nodes: kept without surrounding spaces.
_PLAIN = ("until", "timezone", "start", "end", "key", "window")


def _users_of(name: str) -> str:
    """The node types that have the field `name`, as the row's show/hide script reads them."""
    return " ".join(k for k, t in NODE_TYPES.items() if name in (*t.required, *t.optional))


def _text(value: str | None) -> str:
    # Browsers submit textareas with CRLF line ends; templates keep plain newlines.
    return (value or "").replace("\r\n", "\n")


class NodeForm(forms.Form):
    id = forms.CharField(max_length=100, label="Node id")
    type = forms.ChoiceField(choices=[(t, t) for t in NODE_TYPES], initial="email")
    to = forms.CharField(required=False, strip=False, label="To")
    subject = forms.CharField(required=False, strip=False)
    # Full-width boxes, tall enough to read a real message without scrolling inside them.
    body = forms.CharField(required=False, strip=False, widget=forms.Textarea(attrs={"rows": 6}))
    html = forms.CharField(
        required=False,
        strip=False,
        label="HTML body",
        widget=forms.Textarea(attrs={"rows": 4}),
        help_text="optional",
    )
    skip_suppressed = forms.BooleanField(
        required=False,
        label="Skip suppressed",
        help_text="a suppressed recipient skips this node; unchecked, it fails the run",
    )
    provider = forms.CharField(
        required=False,
        max_length=50,
        help_text="optional: the provider to send through first (e.g. ses); empty: the first",
    )
    delay_amount = forms.IntegerField(required=False, min_value=0, label="Wait")
    delay_unit = forms.ChoiceField(choices=DELAY_UNITS, initial="m", required=False, label="Unit")
    until = forms.CharField(
        required=False,
        label="Or until",
        widget=forms.TextInput(attrs={"size": 30, "placeholder": "{{ payload.remind_at }}"}),
        help_text="instead of a wait: a time with offset (ISO-8601), e.g. from the payload",
    )
    timezone = forms.CharField(
        required=False,
        label="Time zone",
        widget=forms.TextInput(attrs={"size": 22, "placeholder": "{{ payload.tz }}"}),
        help_text="IANA name, e.g. Europe/Berlin, or a template; empty: the default zone",
    )
    start = forms.CharField(
        required=False,
        label="Opens",
        widget=forms.TextInput(attrs={"size": 5, "placeholder": "09:00"}),
    )
    end = forms.CharField(
        required=False,
        label="Closes",
        widget=forms.TextInput(attrs={"size": 5, "placeholder": "18:00"}),
        help_text="before Opens: the window runs past midnight",
    )
    days = forms.MultipleChoiceField(
        required=False,
        choices=[(day, day.capitalize()) for day in WEEKDAYS],
        widget=forms.CheckboxSelectMultiple,
        help_text="none ticked: every day",
    )
    key = forms.CharField(
        required=False,
        widget=forms.TextInput(attrs={"placeholder": "{{ payload.user_id }}"}),
        help_text="the runs counted (or gathered) together share this rendered key",
    )
    limit = forms.IntegerField(
        required=False, min_value=1, help_text="runs that pass per window; the rest are throttled"
    )
    window = forms.CharField(
        required=False,
        widget=forms.TextInput(attrs={"size": 8, "placeholder": "1h"}),
        help_text="e.g. 90s, 10m, 1h, 1d",
    )

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """The type-specific fields, each with the node types that use it (for show/hide)."""
        groups = []
        for name in ("to", "subject", "body", "html", "provider", "skip_suppressed"):
            groups.append((_users_of(name), [self[name]]))
        groups.append(("delay", [self["delay_amount"], self["delay_unit"]]))
        for names in _FLOW_GROUPS:  # the fields of a group belong to the same node types
            groups.append((_users_of(names[0]), [self[name] for name in names]))
        return groups

    def node(self, original: dict[str, Any] | None) -> dict[str, Any]:
        """The definition's node for this row. Keys the form does not edit are kept from
        `original` (the stored node with the same id), and so is an unchanged delay's spelling."""
        data = self.cleaned_data
        kind = data["type"]
        node: dict[str, Any] = {"id": data["id"].strip(), "type": kind}
        if original and original.get("type") == kind:
            node.update({k: v for k, v in original.items() if k not in _MANAGED_KEYS})
        if kind == "delay" and _text(data.get("until")).strip():
            node["until"] = _text(data.get("until")).strip()
            return node
        if kind == "delay":
            amount, unit = data.get("delay_amount"), data.get("delay_unit") or "m"
            if amount is None:
                return node  # the validator says a delay needs a wait, on this row
            if (
                original
                and original.get("type") == "delay"
                and delay_amount_unit(original)
                == (
                    amount,
                    unit,
                )
            ):
                node.update({k: original[k] for k in ("delay_ms", "duration") if k in original})
            else:
                node["duration"] = f"{amount}{unit}"
            return node
        node_type = NODE_TYPES[kind]
        if data.get("skip_suppressed") and "skip_suppressed" in node_type.optional:
            node["skip_suppressed"] = True
        for name in (*node_type.required, *node_type.optional):
            if name == "skip_suppressed":
                continue
            if name == "days":  # none or all seven ticked: every day, the default
                if 0 < len(data.get("days") or []) < len(WEEKDAYS):
                    node["days"] = [day for day in WEEKDAYS if day in data["days"]]
                continue
            if name == "limit":
                if data.get("limit") is not None:
                    node["limit"] = data["limit"]
                continue
            value = _text(data.get(name)).strip() if name in _PLAIN else _text(data.get(name))
            if value or name in node_type.required:
                node[name] = value
        return node

    @classmethod
    def initial_for(cls, node: dict[str, Any]) -> dict[str, Any]:
        fields = ("id", "type", "to", "subject", "body", "html", "provider", *_PLAIN)
        initial: dict[str, Any] = {k: node.get(k, "") for k in fields}
        initial["skip_suppressed"] = bool(node.get("skip_suppressed"))
        initial["limit"] = node.get("limit")
        if node.get("type") == "window":
            initial["days"] = node.get("days") or list(WEEKDAYS)
        if node.get("type") == "delay":
            initial["delay_amount"], initial["delay_unit"] = delay_amount_unit(node)
        return initial


class EdgeForm(forms.Form):
    source = forms.CharField(label="From", widget=forms.Select(attrs={"class": "node-choice"}))
    target = forms.CharField(label="To", widget=forms.Select(attrs={"class": "node-choice"}))
    when = forms.CharField(
        required=False,
        label="When",
        widget=forms.TextInput(attrs={"size": 36, "placeholder": 'e.g. payload.plan == "pro"'}),
    )

    def edge(self) -> dict[str, Any]:
        data = self.cleaned_data
        edge = {"from": data["source"], "to": data["target"]}
        if data.get("when", "").strip():
            edge["when"] = data["when"].strip()
        return edge


def _formset(form: type[forms.Form], extra: int) -> type[forms.BaseFormSet]:
    return forms.formset_factory(form, extra=extra, can_delete=True)


def _rows(formset: forms.BaseFormSet) -> list[forms.Form]:
    """The rows that make up the definition: filled in and not marked for deletion."""
    return [
        f
        for f in formset.forms
        if f.has_changed() or f in formset.initial_forms
        if not f.cleaned_data.get("DELETE")
    ]


def _set_choices(field: forms.Field, node_ids: list[str], blank: str) -> None:
    field.widget.choices = [("", blank), *((n, n) for n in node_ids if n)]


class WorkflowForm(forms.ModelForm):
    """The workflow's attributes plus its definition, edited as node and edge rows.

    After `is_valid()`, `definition` holds what the validator accepted; saving is the admin's job
    (through the services), never this form's.
    """

    entry_node_id = forms.CharField(
        required=False,
        label="Entry node",
        help_text="Where every run starts; the first node when left empty.",
        widget=forms.Select(attrs={"class": "node-choice"}),
    )

    category = forms.ChoiceField(
        choices=[(c, c) for c in CATEGORIES],
        initial=TRANSACTIONAL,
        required=False,
        help_text="marketing: its email carries a one-click unsubscribe and skips recipients who "
        "unsubscribed from marketing.",
    )

    class Meta:
        model = Workflow
        fields = ["key", "name", "description", "active", "queue", "priority"]
        help_texts = {
            "queue": "The Celery queue its runs go to (workers started with -Q serve it). Empty: "
            "the key's first segment when it is dotted (billing.invoice_due -> billing), else "
            "default.",
            "priority": "0-9, higher is more urgent; a trigger may set its own.",
        }
        widgets = {"description": forms.Textarea(attrs={"rows": 2, "cols": 60})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        stored = self.instance.definition if self.instance.pk else {}
        self.stored_nodes = {n.get("id"): n for n in stored.get("nodes", []) if isinstance(n, dict)}
        data = self.data if self.is_bound else None
        # No empty rows on a workflow's page: "Add a node" / "Add an edge" make them. A new
        # workflow starts with the one node row it cannot do without.
        extra_nodes, extra_edges = (0, 0) if stored else (1, 0)
        self.nodes = _formset(NodeForm, extra_nodes)(
            data,
            prefix="nodes",
            initial=[NodeForm.initial_for(n) for n in stored.get("nodes", [])],
        )
        self.edges = _formset(EdgeForm, extra_edges)(
            data,
            prefix="edges",
            initial=[
                {"source": e.get("from"), "target": e.get("to"), "when": e.get("when", "")}
                for e in stored.get("edges", [])
            ],
        )
        if not self.is_bound:
            self.initial.setdefault("entry_node_id", stored.get("entry_node_id", ""))
            self.initial.setdefault("category", category_of(stored))
        _set_choices(self.fields["entry_node_id"], self._node_ids(), "(first node)")
        # An edge's ends offer only their current node here: every id in every edge row made the
        # page quadratic in the nodes (200 nodes: 80,000 options, 9 s). The page's script offers
        # the other ids when a choice is opened (_authoring_js.html).
        for edge_form in [*self.edges.forms, self.edges.empty_form]:
            for end in ("source", "target"):
                current = edge_form[end].value()
                _set_choices(edge_form.fields[end], [str(current)] if current else [], "—")
        self.definition: dict[str, Any] = {}
        self.node_errors: list[str] = []
        self.edge_errors: list[str] = []

    def _node_ids(self) -> list[str]:
        if not self.is_bound:
            return [str(f.initial.get("id")) for f in self.nodes.initial_forms]
        return [
            str(self.data.get(f"nodes-{i}-id", "")).strip()
            for i in range(self.nodes.total_form_count())
            if not self.data.get(f"nodes-{i}-DELETE")
        ]

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        nodes_valid, edges_valid = self.nodes.is_valid(), self.edges.is_valid()
        if not (nodes_valid and edges_valid):
            raise forms.ValidationError("Some node or edge rows are incomplete; see below.")
        node_rows, edge_rows = _rows(self.nodes), _rows(self.edges)
        nodes = [
            row.node(self.stored_nodes.get(str(row.cleaned_data["id"]).strip()))
            for row in node_rows
            if isinstance(row, NodeForm)
        ]
        entry = (cleaned.get("entry_node_id") or "").strip() or (nodes[0]["id"] if nodes else "")
        self.definition = definition_normalize(
            {
                "entry_node_id": entry,
                "nodes": nodes,
                "edges": [row.edge() for row in edge_rows if isinstance(row, EdgeForm)],
                "category": cleaned.get("category"),
            }
        )
        errors = workflow_validate(self.definition)
        for error in errors:
            self._place(error, node_rows, edge_rows)
        if errors:
            raise forms.ValidationError(
                f"Not saved: the definition has {len(errors)} problem(s), "
                "shown next to the nodes and edges they concern."
            )
        return cleaned

    def _place(self, error: ValidationError, nodes: list[forms.Form], edges: list[Any]) -> None:
        """Put a validator error on the row and field it names (nodes[1].subject, edges[0].when,
        entry_node_id), or above the node or edge table when it concerns the graph as a whole."""
        match = _PATH.match(error.field)
        if match:
            table, index, name = match.group(1), int(match.group(2)), match.group(3)
            rows = nodes if table == "nodes" else edges
            mapping = _NODE_FIELD if table == "nodes" else _EDGE_FIELD
            if index < len(rows):
                field = mapping.get(name, name) if name else None
                row = rows[index]
                row.add_error(field if field in row.fields else None, error.message)
                return
        if error.field == "entry_node_id":
            self.add_error("entry_node_id", error.message)
        elif error.field.startswith("edges"):
            self.edge_errors.append(error.message)
        else:
            row = next((r for r in nodes if (r.cleaned_data or {}).get("id") == error.node), None)
            if row is not None and error.field == "nodes":
                row.add_error(None, error.message)
            else:
                self.node_errors.append(f"{error.field}: {error.message}")


class RawDefinitionForm(forms.Form):
    """The definition as JSON, for power users and for pasting between environments."""

    definition = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 28, "cols": 100, "class": "raw-definition"}),
        strip=False,
    )

    def clean_definition(self) -> dict[str, Any]:
        try:
            value = json_loads_storable(self.cleaned_data["definition"])
        except ValueError as exc:  # json.JSONDecodeError, or nested too deep
            raise forms.ValidationError(f"Not valid JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise forms.ValidationError("The definition must be a JSON object.")
        normalized = definition_normalize(value)
        errors = workflow_validate(normalized)
        if errors:
            raise forms.ValidationError([f"{e.field}: {e.message}" for e in errors])
        return normalized


class SamplePayloadForm(forms.Form):
    payload = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8, "cols": 60, "class": "sample-payload"}),
        label="Sample payload (JSON)",
    )

    def clean_payload(self) -> dict[str, Any]:
        try:
            value = json_loads_storable(self.cleaned_data["payload"])
        except ValueError as exc:  # json.JSONDecodeError, or nested too deep
            raise forms.ValidationError(f"Not valid JSON: {exc}") from exc
        if not isinstance(value, dict):
            raise forms.ValidationError("The payload must be a JSON object.")
        return value
