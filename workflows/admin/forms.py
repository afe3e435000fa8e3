"""Admin authoring without hand-written JSON: nodes and edges as formset rows, assembled into a
definition and checked by the one validator, whose errors land on the row and field they name."""

from __future__ import annotations

import copy
import functools
import re
from typing import Any, cast

from django import forms

from common.http import json_loads_storable
from workflows.definition import CATEGORIES, TRANSACTIONAL, category_of, required_of
from workflows.locales import locale_problem
from workflows.models import Workflow
from workflows.nodes import NODE_TYPES, NodeType
from workflows.preview import PreviewTenant, preview_tenant
from workflows.services import definition_normalize
from workflows.validation import ValidationError, workflow_validate

_EDGE_FIELD = {"from": "source", "to": "target", "when": "when"}
_PATH = re.compile(r"^(nodes|edges)\[(\d+)\](?:\.(\w+))?$")


class OptionalJSONField(forms.JSONField):
    """A JSON input that shows nothing, not `null`, when it holds no value (a row's empty
    `match`); left empty it is None, as Django's own."""

    def prepare_value(self, value: Any) -> Any:
        return "" if value is None else super().prepare_value(value)


class NodeForm(forms.Form):
    """One node as an admin row: its id, its type, and the fields of the row's type
    (workflows.nodes: each type declares its form fields, their groups, and how a row becomes a
    node). The page's empty row (`all_types`) carries the fields of every registered type: the
    row's script takes a type's fields from it when a row's type is changed, so a page grows by
    one type's fields per node, not by every type's."""

    id = forms.CharField(max_length=100, label="Node id")
    type = forms.ChoiceField(choices=[])

    def __init__(self, *args: Any, all_types: bool = False, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        type_field = cast(forms.ChoiceField, self.fields["type"])
        type_field.choices = [(name, name) for name in NODE_TYPES]
        type_field.initial = next(iter(NODE_TYPES))
        kept = None if all_types else _own_fields(self._row_type())
        for name, field in _registered_fields().items():
            if kept is None or name in kept:
                self.fields.setdefault(name, copy.deepcopy(field))  # as Django copies fields

    def _row_type(self) -> str:
        """The type this row is of: as posted, else as stored, else the first registered."""
        if self.is_bound:
            return str(self.data.get(self.add_prefix("type"), ""))
        return str(self.initial.get("type") or self.fields["type"].initial)

    def groups(self) -> list[tuple[str, list[forms.BoundField]]]:
        """The type-specific fields this row has, in rows of inputs, each with the node types
        that use it (for show/hide), in the order the types are registered."""
        users: dict[tuple[str, ...], list[str]] = {}
        for name, node_type in NODE_TYPES.items():
            for group in node_type.form_groups:
                users.setdefault(group, []).append(name)
        return [
            (" ".join(kinds), [self[name] for name in group])
            for group, kinds in users.items()
            if all(name in self.fields for name in group)
        ]

    def node(self, original: dict[str, Any] | None) -> dict[str, Any]:
        """The definition's node for this row. Keys the form does not edit are kept from
        `original` (the stored node with the same id, when it has the same type)."""
        data = self.cleaned_data
        node_type = NODE_TYPES[data["type"]]
        node: dict[str, Any] = {"id": data["id"].strip(), "type": node_type.name}
        if original and original.get("type") == node_type.name:
            node.update({k: v for k, v in original.items() if k not in _managed_keys()})
        return node_type.form_node(data, node, original)

    @classmethod
    def initial_for(cls, node: dict[str, Any]) -> dict[str, Any]:
        node_type = NODE_TYPES.get(str(node.get("type")))
        initial = {"id": node.get("id", ""), "type": node.get("type", "")}
        return {**initial, **(node_type.form_initial(node) if node_type else {})}


def _own_fields(type_name: str) -> frozenset[str]:
    """The form fields of the node type `type_name` (none for a name no type has)."""
    node_type = NODE_TYPES.get(type_name)
    if node_type is None:
        return frozenset()
    kind = type(node_type)
    if kind not in _FIELDS_OF:  # form_fields() builds new fields: once per type
        grouped = {name for group in kind.form_groups for name in group}
        _FIELDS_OF[kind] = frozenset(grouped | set(kind().form_fields()))
    return _FIELDS_OF[kind]


_FIELDS_OF: dict[type[NodeType], frozenset[str]] = {}


def _registered_fields() -> dict[str, forms.Field]:
    return _type_fields(tuple(type(kind) for kind in NODE_TYPES.values()))


@functools.cache
def _type_fields(registered: tuple[type[NodeType], ...]) -> dict[str, forms.Field]:
    """The form fields the registered node types declare (built once per registry content; a
    field name two types share is the same field, the first type's)."""
    fields: dict[str, forms.Field] = {}
    for kind in registered:
        for field_name, field in kind().form_fields().items():
            fields.setdefault(field_name, field)
    return fields


def _managed_keys() -> set[str]:
    """The node keys an admin row edits (through a form field of the same name, or the one the
    type names in `form_field_of`); any other key is kept as stored."""
    edited = set(_registered_fields())
    return {"id", "type"} | {
        name
        for kind in NODE_TYPES.values()
        for name in kind.fields
        if name in edited or name in kind.form_field_of
    }


def _form_field_of(name: str) -> str:
    """The form field that edits a node's field (a delay's `duration` is edited as a wait)."""
    return next(
        (kind.form_field_of[name] for kind in NODE_TYPES.values() if name in kind.form_field_of),
        name,
    )


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


class _NodeFormSet(forms.BaseFormSet):
    def get_form_kwargs(self, index: int | None) -> dict[str, Any]:
        # The empty row (index None), the script's source of every type's fields.
        return {**super().get_form_kwargs(index), "all_types": index is None}


def _formset(form: type[forms.Form], extra: int) -> type[forms.BaseFormSet]:
    base = _NodeFormSet if form is NodeForm else forms.BaseFormSet
    return forms.formset_factory(form, formset=base, extra=extra, can_delete=True)


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
    preference_category = forms.CharField(
        required=False,
        max_length=100,
        help_text="The category whose preferences apply to its sends (one of the admin's "
        "Categories: billing, comments); empty: none (marketing for a marketing workflow).",
    )
    required = forms.BooleanField(
        required=False,
        help_text="No preference turns its sends off (password resets, receipts); "
        "suppressions still apply.",
    )
    default_locale = forms.CharField(
        required=False,
        max_length=35,
        help_text="The locale (fr, pt-BR) its messages are translated into when the run's and "
        "the recipient's have no translation, before the installation's; empty: none.",
    )
    default_layout = forms.CharField(
        required=False,
        max_length=64,
        help_text="The layout (a key of the admin's Layouts) its emails are sent in when the "
        "node names none, before the installation's; empty: none.",
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
            self.initial.setdefault("preference_category", stored.get("preference_category", ""))
            self.initial.setdefault("required", required_of(stored))
            self.initial.setdefault("default_locale", stored.get("default_locale", ""))
            self.initial.setdefault("default_layout", stored.get("default_layout", ""))
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
                "preference_category": cleaned.get("preference_category"),
                "required": cleaned.get("required"),
                "default_locale": cleaned.get("default_locale"),
                "default_layout": cleaned.get("default_layout"),
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
            if index < len(rows):
                if not name:
                    field = None
                else:
                    field = (
                        _form_field_of(name) if table == "nodes" else _EDGE_FIELD.get(name, name)
                    )
                row = rows[index]
                row.add_error(field if field in row.fields else None, error.message)
                return
        if error.field in (
            "entry_node_id",
            "preference_category",
            "required",
            "default_locale",
            "default_layout",
        ):
            self.add_error(error.field, error.message)
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

    # The preview's `recipient` (workflows.preview): a profile as a run sees it. Send test
    # ignores it (a test run names no recipient).
    recipient = forms.CharField(
        required=False,
        widget=forms.Textarea(attrs={"rows": 3, "cols": 60, "class": "sample-payload"}),
        label="Sample recipient (JSON, optional, preview only)",
    )
    # The preview's `locale`: as a trigger's `locale`, first in the chain (docs/translations.md).
    locale = forms.CharField(
        required=False,
        max_length=35,
        label="Locale (BCP 47, optional, preview only: as a trigger's locale)",
    )

    # The preview's `tenant` (workflows.preview.preview_tenant): a tenant's id; the preview renders
    # as a run for it would (docs/tenants.md). Send test ignores it, as it does the recipient.
    tenant = forms.CharField(
        required=False,
        max_length=64,
        label="Tenant (its id, optional, preview only: as a trigger's tenant)",
    )

    def clean_tenant(self) -> PreviewTenant | None:
        tenant_id = str(self.cleaned_data.get("tenant") or "").strip()
        if not tenant_id:
            return None
        found = preview_tenant(tenant_id)
        if found is None:
            raise forms.ValidationError(f"tenant {tenant_id!r} does not exist")
        return found

    def clean_locale(self) -> str:
        locale = str(self.cleaned_data.get("locale") or "").strip()
        if locale and (problem := locale_problem(locale)):
            raise forms.ValidationError(problem)
        return locale

    def clean_payload(self) -> dict[str, Any]:
        return _json_object(self.cleaned_data["payload"], "The payload")

    def clean_recipient(self) -> dict[str, Any] | None:
        text = self.cleaned_data.get("recipient") or ""
        if not text.strip():
            return None
        profile = _json_object(text, "The recipient")
        return {"id": "preview", **profile}


def _json_object(text: str, what: str) -> dict[str, Any]:
    try:
        value = json_loads_storable(text)
    except ValueError as exc:  # json.JSONDecodeError, or nested too deep
        raise forms.ValidationError(f"Not valid JSON: {exc}") from exc
    if not isinstance(value, dict):
        raise forms.ValidationError(f"{what} must be a JSON object.")
    return value
