"""REST endpoints for workflows: /api/workflows/ and /api/workflows/<key>/."""

from __future__ import annotations

from typing import Any

from django.db import IntegrityError, transaction
from drf_spectacular.extensions import OpenApiSerializerFieldExtension
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import NotFound
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import found_or_404
from common.http import (
    DRY_RUN_PARAMETER,
    NoFieldsSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    dry_run_requested,
    request_fields,
)
from common.scopes import ADMIN, FILTERED, TRIGGER, api_key_of
from workflows.definition import CATEGORIES, TRANSACTIONAL, category_of, required_of
from workflows.models import MESSAGE_MAX_LENGTH, Workflow
from workflows.nodes import NODE_TYPES, node_type_of
from workflows.routing import (
    NAME_MAX_LENGTH,
    NAME_PATTERN,
    PRIORITY_DEFAULT,
    PRIORITY_MAX,
    PRIORITY_MIN,
    key_validator,
    queue_validator,
)
from workflows.selectors import workflow_list
from workflows.services import (
    DEFINITION_KEYS,
    WorkflowInvalid,
    workflow_create,
    workflow_delete,
    workflow_update,
)
from workflows.warnings import workflow_warnings


class WorkflowOutputSerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(read_only=True)
    entry_node_id = serializers.SerializerMethodField()
    category = serializers.SerializerMethodField()
    preference_category = serializers.SerializerMethodField()
    # DRF's metaclass takes declared fields off the class: this `required` is the definition's,
    # not Field.required, which only mypy sees it shadow.
    required = serializers.SerializerMethodField()  # type: ignore[assignment]
    default_locale = serializers.SerializerMethodField()
    default_layout = serializers.SerializerMethodField()
    nodes = serializers.SerializerMethodField()
    edges = serializers.SerializerMethodField()

    class Meta:
        model = Workflow
        fields = [
            "key",
            "name",
            "description",
            "active",
            "queue",
            "priority",
            "version",
            "category",
            "preference_category",
            "required",
            "default_locale",
            "default_layout",
            "entry_node_id",
            "nodes",
            "edges",
            "created_at",
            "updated_at",
        ]

    def get_entry_node_id(self, workflow: Workflow) -> str | None:
        return workflow.definition.get("entry_node_id")

    @extend_schema_field(serializers.ChoiceField(choices=CATEGORIES))
    def get_category(self, workflow: Workflow) -> str:
        return category_of(workflow.definition)

    def get_preference_category(self, workflow: Workflow) -> str:
        return str(workflow.definition.get("preference_category") or "")

    def get_required(self, workflow: Workflow) -> bool:
        return required_of(workflow.definition)

    def get_default_locale(self, workflow: Workflow) -> str:
        return str(workflow.definition.get("default_locale") or "")

    def get_default_layout(self, workflow: Workflow) -> str:
        return str(workflow.definition.get("default_layout") or "")

    def get_nodes(self, workflow: Workflow) -> list[dict[str, Any]]:
        return nodes_in_order(workflow.definition)

    def get_edges(self, workflow: Workflow) -> list[dict[str, Any]]:
        return edges_in_order(workflow.definition)


class WorkflowSavedSerializer(WorkflowOutputSerializer):
    """What a create or an update answers: the workflow and what it will not do as expected."""

    warnings = serializers.SerializerMethodField(
        help_text="What the saved workflow will not do as its author may expect, though it is "
        "valid: no live worker serves its queue (its triggers get 503 or wait), a template "
        "linking `preferences_url` while NOTIFLOW_PUBLIC_URL is not set. Empty: none."
    )

    class Meta(WorkflowOutputSerializer.Meta):
        fields = [*WorkflowOutputSerializer.Meta.fields, "warnings"]

    @extend_schema_field(serializers.ListField(child=serializers.CharField()))
    def get_warnings(self, workflow: Workflow) -> list[str]:
        return workflow_warnings(workflow=workflow)


# The definition is stored in jsonb, which keeps an object's keys in its own order (shortest
# first), not the author's; the API shows nodes and edges with their fields in the order the
# node type declares them (workflows.nodes), which is how they are written.
EDGE_FIELD_ORDER = ("from", "to", "when")


def nodes_in_order(definition: dict[str, Any]) -> list[dict[str, Any]]:
    """A definition's nodes, each with its fields in its node type's order (the API's, a
    version's)."""
    return [_node_in_order(node) for node in definition.get("nodes", [])]


def edges_in_order(definition: dict[str, Any]) -> list[dict[str, Any]]:
    """A definition's edges, each with its fields in EDGE_FIELD_ORDER."""
    return [_in_order(edge, EDGE_FIELD_ORDER) for edge in definition.get("edges", [])]


def _node_in_order(node: dict[str, Any]) -> dict[str, Any]:
    node_type = node_type_of(node)
    declared = node_type.fields if node_type else ()
    return _in_order(node, ("id", "type", *declared))


def _in_order(item: dict[str, Any], order: tuple[str, ...]) -> dict[str, Any]:
    """`item` with the keys of `order` first, in that order, then any others as they come."""
    ordered = {key: item[key] for key in order if key in item}
    return {**ordered, **{key: value for key, value in item.items() if key not in ordered}}


class NodeListField(serializers.ListField):
    """A definition's nodes: checked by the one validator; the schema shows each registered
    node type's fields (NodeListSchema)."""


class NodeListSchema(OpenApiSerializerFieldExtension):
    """The schema of a definition's nodes, asked of the node type registry when the schema is
    generated: one object schema per registered type (workflows.nodes)."""

    target_class = NodeListField

    def map_serializer_field(self, auto_schema: Any, direction: Any) -> dict[str, Any]:
        return {
            "type": "array",
            "minItems": 1,
            "items": {"oneOf": [kind.json_schema() for kind in NODE_TYPES.values()]},
        }


def _key_field(**options: Any) -> serializers.CharField:
    # min_length=1 changes no answer (blank and empty are refused first); it puts minLength (and
    # the validator's pattern) in the schema.
    return serializers.CharField(
        min_length=1, max_length=NAME_MAX_LENGTH, validators=[key_validator], **options
    )


class WorkflowInputSerializer(StrictSerializer):
    key = _key_field()
    name = serializers.CharField(min_length=1, max_length=200)
    description = serializers.CharField(required=False, allow_blank=True, default="")
    active = serializers.BooleanField(required=False, default=True)
    queue = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=NAME_MAX_LENGTH,
        validators=[queue_validator],
        help_text="The Celery queue of its runs; empty: the key's first segment when it is "
        "dotted, else `default`.",
    )
    priority = serializers.IntegerField(
        required=False,
        min_value=PRIORITY_MIN,
        max_value=PRIORITY_MAX,
        help_text="Its runs' priority unless a trigger sets one: 0-9, higher is more urgent.",
    )
    category = serializers.ChoiceField(
        choices=CATEGORIES,
        required=False,
        default=TRANSACTIONAL,
        help_text="marketing: its email carries a one-click unsubscribe (RFC 8058) and is not "
        "sent to recipients who unsubscribed from marketing; transactional (the default): never.",
    )
    preference_category = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=100,
        help_text="The category (an operator's, from the admin: `billing`, `comments`) whose "
        "preferences apply to its sends; empty: none (a marketing workflow is then in "
        "`marketing`). An unknown slug is a 400.",
    )
    # The definition's `required`, as in WorkflowOutputSerializer.
    required = StrictBooleanField(  # type: ignore[assignment]
        required=False,
        default=False,
        help_text="true: no preference turns its sends off (password resets, receipts); "
        "suppressions still apply.",
    )
    default_locale = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=35,
        help_text="The BCP 47 locale (`fr`, `pt-BR`) its messages are translated into when the "
        "run's and the recipient's are not in the catalogs, before NOTIFLOW_DEFAULT_LOCALE; "
        "empty: none. Every key its templates translate must be in one of those two catalogs "
        "(docs/translations.md): else a 400 naming node, field and key.",
    )
    default_layout = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=64,
        help_text="The key of the layout its emails are sent in when the node names none, "
        "before NOTIFLOW_DEFAULT_LAYOUT (docs/layouts.md); empty: none. A layout that does not "
        "exist: 400 naming `default_layout`.",
    )
    # The definition is checked by the one validator (workflows.validation), not here.
    entry_node_id = serializers.CharField(
        required=False,
        min_length=1,
        max_length=100,
        help_text="the node each run starts at; left out: the first node",
    )
    nodes = NodeListField(child=serializers.DictField(), allow_empty=False, min_length=1)
    edges = serializers.ListField(child=serializers.DictField(), required=False)
    message = StrictCharField(
        required=False,
        allow_blank=True,
        max_length=MESSAGE_MAX_LENGTH,
        help_text="Where the change comes from (a commit sha: `notiflow workflows push "
        "--message`), recorded on the version it makes beside the key that made it "
        "(`/api/workflows/<key>/versions/`). An unchanged definition makes no version and "
        "records it nowhere.",
    )


class WorkflowReplaceSerializer(WorkflowInputSerializer):
    """PUT's body as the schema shows it: the key comes from the path (another one is a 400)."""

    key = _key_field(required=False)


# The URL's converter (workflows.routing.KeyConverter): any other key is a 404.
KEY_PARAMETER = OpenApiParameter(
    "key", {"type": "string", "pattern": NAME_PATTERN}, OpenApiParameter.PATH
)


def _invalid(exc: WorkflowInvalid) -> Response:
    return Response(
        {
            "detail": f"invalid workflow definition ({len(exc.errors)} problem(s))",
            "errors": [e.as_dict() for e in exc.errors],
        },
        status=status.HTTP_400_BAD_REQUEST,
    )


class WorkflowListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": TRIGGER, "POST": ADMIN}
    workflow_limits = {"GET": FILTERED}
    serializer_class = WorkflowOutputSerializer
    query_parameters = {"POST": [DRY_RUN_PARAMETER]}

    def get_queryset(self):
        # A key limited to some workflows lists those (common/scopes.py).
        return api_key_of(self.request).limit_queryset(workflow_list(), "key")

    @extend_schema(summary="List workflows")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Create a workflow",
        request=WorkflowInputSerializer,
        responses={201: WorkflowSavedSerializer},
    )
    def post(self, request: Request) -> Response:
        fields = request_fields(request, WorkflowInputSerializer)
        dry_run = dry_run_requested(request)
        with transaction.atomic():
            response = self._create(request, fields)
            if dry_run:
                transaction.set_rollback(True)
        return response

    def _create(self, request: Request, fields: dict[str, Any]) -> Response:
        if Workflow.objects.filter(key=fields["key"]).exists():
            return Response(
                {
                    "detail": f"workflow {fields['key']!r} already exists",
                    "errors": {"key": ["already exists"]},
                },
                status=status.HTTP_409_CONFLICT,
            )
        try:
            workflow = workflow_create(
                key=fields["key"],
                name=fields["name"],
                description=fields["description"],
                active=fields["active"],
                queue=fields.get("queue", ""),
                priority=fields.get("priority", PRIORITY_DEFAULT),
                definition={k: fields.get(k) for k in DEFINITION_KEYS},
                actor=actor_of(request),
                message=fields.get("message", ""),
            )
        except WorkflowInvalid as exc:
            return _invalid(exc)
        except IntegrityError:
            return Response(
                {"detail": f"workflow {fields['key']!r} already exists"},
                status=status.HTTP_409_CONFLICT,
            )
        return Response(WorkflowSavedSerializer(workflow).data, status=status.HTTP_201_CREATED)


class WorkflowDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER, "PUT": ADMIN, "PATCH": ADMIN, "DELETE": ADMIN}
    workflow_limits = {"GET": FILTERED}
    query_parameters = {"PUT": [DRY_RUN_PARAMETER], "PATCH": [DRY_RUN_PARAMETER]}

    def _get(self, key: str) -> Workflow:
        # Outside the key's workflows: 404, as if it did not exist.
        return found_or_404(
            api_key_of(self.request).limit_queryset(workflow_list(), "key"), "workflow", key=key
        )

    @extend_schema(
        summary="Get a workflow", responses=WorkflowOutputSerializer, parameters=[KEY_PARAMETER]
    )
    def get(self, request: Request, key: str) -> Response:
        return Response(WorkflowOutputSerializer(self._get(key)).data)

    @extend_schema(
        summary="Replace a workflow",
        request=WorkflowReplaceSerializer,
        responses=WorkflowSavedSerializer,
        parameters=[KEY_PARAMETER],
    )
    def put(self, request: Request, key: str) -> Response:
        return self._update(request, key, partial=False)

    @extend_schema(
        summary="Change a workflow",
        request=WorkflowInputSerializer,
        responses=WorkflowSavedSerializer,
        parameters=[KEY_PARAMETER],
    )
    def patch(self, request: Request, key: str) -> Response:
        return self._update(request, key, partial=True)

    def _update(self, request: Request, key: str, *, partial: bool) -> Response:
        workflow = self._get(key)
        serializer = WorkflowInputSerializer if partial else WorkflowReplaceSerializer
        fields = request_fields(request, serializer, partial=partial)
        dry_run = dry_run_requested(request)
        with transaction.atomic():
            response = self._change(request, workflow, fields, partial=partial)
            if dry_run:
                transaction.set_rollback(True)
        return response

    def _change(
        self, request: Request, workflow: Workflow, fields: dict[str, Any], *, partial: bool
    ) -> Response:
        key = workflow.key
        if fields.get("key", key) != key:  # PUT without a key: the path's
            return Response(
                {"detail": "the key cannot be changed", "errors": {"key": ["cannot be changed"]}},
                status=status.HTTP_400_BAD_REQUEST,
            )
        definition = None
        if not partial:  # a replacement: what is left out takes its default, as on create
            definition = {k: fields.get(k) for k in DEFINITION_KEYS}
        elif any(k in fields for k in DEFINITION_KEYS):
            definition = {
                **workflow.definition,
                **{k: fields[k] for k in DEFINITION_KEYS if k in fields},
            }
        try:
            workflow = workflow_update(
                workflow=workflow,
                definition=definition,
                name=fields.get("name"),
                description=fields.get("description"),
                active=fields.get("active"),
                queue=fields.get("queue"),
                priority=fields.get("priority"),
                actor=actor_of(request),
                message=fields.get("message", ""),
            )
        except WorkflowInvalid as exc:
            return _invalid(exc)
        except Workflow.DoesNotExist as exc:  # deleted between the read above and the lock
            raise NotFound(f"workflow {key!r} was deleted meanwhile") from exc
        return Response(WorkflowSavedSerializer(workflow).data)

    @extend_schema(
        summary="Delete a workflow (or deactivate it)",
        responses={204: None, 200: WorkflowOutputSerializer},
        parameters=[KEY_PARAMETER],
    )
    def delete(self, request: Request, key: str) -> Response:
        request_fields(request, NoFieldsSerializer)
        workflow = self._get(key)
        if workflow_delete(workflow=workflow):
            return Response(status=status.HTTP_204_NO_CONTENT)
        # It has triggers: history is kept and the workflow is deactivated instead.
        return Response(WorkflowOutputSerializer(self._get(key)).data)
