"""REST endpoints for triggers: intake (the inbox), status, cancellation, soft delete, and a
workflow's run statistics."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from notiflow.actors import actor_of
from notiflow.http import StrictCharField
from notiflow.scopes import ADMIN, TRIGGER, api_key_of
from triggers.models import TriggerInstance, TriggerStatus
from triggers.representation import trigger_json
from triggers.selectors import WorkflowStats, trigger_list, workflow_stats
from triggers.services import MAX_IDEMPOTENCY_KEY_LENGTH, TriggerRejected, trigger_create
from triggers.state import (
    MAX_DELETE_REASON_LENGTH,
    TriggerNotFound,
    TriggerStateConflict,
    trigger_cancel,
    trigger_delete,
)
from workflows.models import Workflow
from workflows.routing import PRIORITY_MAX, PRIORITY_MIN


class TriggerOutputSerializer(serializers.ModelSerializer):
    workflow = serializers.CharField(source="workflow.key")
    workflow_version = serializers.IntegerField(source="workflow_version.number")
    cursor = serializers.JSONField()

    class Meta:
        model = TriggerInstance
        fields = [
            "id",
            "workflow",
            "workflow_version",
            "idempotency_key",
            "payload",
            "status",
            "priority",
            "cursor",
            "vars",
            "attempts",
            "available_at",
            "lease_until",
            "leased_by",
            "last_error",
            "created_at",
            "updated_at",
            "completed_at",
            "deleted_at",
            "delete_reason",
        ]

    def to_representation(self, instance: TriggerInstance) -> dict[str, Any]:
        """What DRF's field-by-field rendering of the fields above gives (a test holds the two
        equal), written out once in triggers.representation, which events share."""
        return trigger_json(instance)


# The key's rules live in trigger_create (one home for the body, the header and the command);
# the schema states them.
IDEMPOTENCY_KEY_SCHEMA = {
    "type": "string",
    "minLength": 1,
    "maxLength": MAX_IDEMPOTENCY_KEY_LENGTH,
    "pattern": r"\S",
    "description": "not empty or only spaces",
}


@extend_schema_field(IDEMPOTENCY_KEY_SCHEMA)
class IdempotencyKeyField(serializers.CharField):
    pass


@extend_schema_field({"type": "object", "additionalProperties": {}})
class PayloadField(serializers.JSONField):
    """Any JSON to the serializer; trigger_create refuses anything but an object."""


class TriggerInputSerializer(serializers.Serializer):
    workflow = serializers.CharField(min_length=1, max_length=100)
    # May come in the Idempotency-Key header instead.
    idempotency_key = IdempotencyKeyField(required=False, trim_whitespace=False)
    payload = PayloadField(required=False, default=dict)
    priority = serializers.IntegerField(
        required=False,
        min_value=PRIORITY_MIN,
        max_value=PRIORITY_MAX,
        help_text="0-9, higher is more urgent; the workflow's priority when left out.",
    )


class TriggerDeleteInputSerializer(serializers.Serializer):
    # A body is optional; without one the reason is empty.
    reason = StrictCharField(
        required=False, allow_blank=True, max_length=MAX_DELETE_REASON_LENGTH, default=""
    )


# drf-spectacular documents a request body only for POST, PUT and PATCH; notiflow.openapi adds
# this one to the DELETE operation.
TRIGGER_DELETE_BODY_SCHEMA = {
    "type": "object",
    "properties": {
        "reason": {
            "type": "string",
            "maxLength": MAX_DELETE_REASON_LENGTH,
            "description": "why it is deleted (kept as delete_reason and in its event)",
        }
    },
}

# `?deleted=`: which triggers a list shows.
DELETED_FILTER = {"true": True, "false": False}


def _error(field: str, message: str, code: int) -> Response:
    return Response({"detail": message, "errors": {field: [message]}}, status=code)


class TriggerListApi(ListAPIView):
    api_scopes = {"GET": TRIGGER, "POST": TRIGGER}
    serializer_class = TriggerOutputSerializer

    def get_queryset(self):
        # A filter given empty is a mistake (a form field left blank), not "no filter": listing
        # every trigger instead would hide it.
        params = self.request.query_params
        wanted = params.get("status")
        if wanted is not None and wanted not in TriggerStatus.values:
            raise ValidationError({"status": [f"must be one of {', '.join(TriggerStatus.values)}"]})
        workflow_key = params.get("workflow")
        if workflow_key is not None and not workflow_key:
            raise ValidationError({"workflow": ["must be a workflow key (it was empty)"]})
        deleted = params.get("deleted", "false")
        if deleted not in DELETED_FILTER:
            raise ValidationError({"deleted": ["must be true or false"]})
        triggers = trigger_list(
            workflow_key=workflow_key, status=wanted, deleted=DELETED_FILTER[deleted]
        )
        return api_key_of(self.request).limit_queryset(triggers)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "workflow", {"type": "string", "minLength": 1}, description="workflow key"
            ),
            OpenApiParameter("status", str, enum=TriggerStatus.values),
            OpenApiParameter(
                "deleted",
                str,
                enum=list(DELETED_FILTER),
                default="false",
                description="true: only soft-deleted triggers; false (the default): the others",
            ),
        ]
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        request=TriggerInputSerializer,
        responses={201: TriggerOutputSerializer, 200: TriggerOutputSerializer},
        parameters=[
            OpenApiParameter(
                "Idempotency-Key",
                IDEMPOTENCY_KEY_SCHEMA,
                OpenApiParameter.HEADER,
                description="instead of the body's idempotency_key; both and different is a 400",
            )
        ],
    )
    def post(self, request: Request) -> Response:
        if not isinstance(request.data, dict):
            return _error("body", "the request body must be a JSON object", 400)
        data = TriggerInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        key = fields.get("idempotency_key")
        header_key = request.headers.get("Idempotency-Key")
        if key is None:
            key = header_key
        elif header_key is not None and header_key != key:
            return _error(
                "idempotency_key", "the Idempotency-Key header and the body disagree", 400
            )
        if key is None:
            return _error("idempotency_key", "idempotency_key is required (body or header)", 400)
        if not api_key_of(request).allows_workflow(fields["workflow"]):
            message = f"this API key may not trigger workflow {fields['workflow']!r}"
            return _error("workflow", message, 403)
        try:
            trigger, created = trigger_create(
                workflow_key=fields["workflow"],
                idempotency_key=key,
                payload=fields.get("payload"),
                actor=actor_of(request),
                priority=fields.get("priority"),
            )
        except TriggerRejected as exc:
            return _error(exc.field, exc.message, exc.status_code)
        return Response(
            TriggerOutputSerializer(trigger).data,
            status=status.HTTP_201_CREATED if created else status.HTTP_200_OK,
        )


class TriggerDetailApi(APIView):
    api_scopes = {"GET": TRIGGER, "DELETE": ADMIN}

    @extend_schema(responses=TriggerOutputSerializer)
    def get(self, request: Request, trigger_id: str) -> Response:
        trigger = get_object_or_404(
            api_key_of(request).limit_queryset(trigger_list()), pk=trigger_id
        )
        return Response(TriggerOutputSerializer(trigger).data)

    @extend_schema(
        request=None,  # TRIGGER_DELETE_BODY_SCHEMA, added by notiflow.openapi
        responses={200: TriggerOutputSerializer},
        description=(
            "Soft-delete the trigger: it is never claimed again, its history stays and its "
            "idempotency key is free again. Status, cursor and lease do not change (cancel is "
            "what stops a run). Deleting a deleted trigger changes nothing."
        ),
    )
    def delete(self, request: Request, trigger_id: str) -> Response:
        if not isinstance(request.data, dict):
            return _error("body", "the request body must be a JSON object", 400)
        data = TriggerDeleteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            trigger_delete(
                trigger_id=trigger_id,
                actor=actor_of(request),
                reason=data.validated_data["reason"],
            )
        except TriggerNotFound:
            return Response({"detail": "trigger not found"}, status=status.HTTP_404_NOT_FOUND)
        return Response(TriggerOutputSerializer(trigger_list().get(pk=trigger_id)).data)


class TriggerCancelApi(APIView):
    api_scopes = {"POST": TRIGGER}

    @extend_schema(request=None, responses={200: TriggerOutputSerializer, 409: None})
    def post(self, request: Request, trigger_id: str) -> Response:
        limited = api_key_of(request).limit_queryset(trigger_list())
        if api_key_of(request).workflows and not limited.filter(pk=trigger_id).exists():
            return Response({"detail": "trigger not found"}, status=status.HTTP_404_NOT_FOUND)
        try:
            trigger_cancel(
                trigger_id=trigger_id, actor=actor_of(request), reason="cancelled via API"
            )
        except TriggerNotFound:
            return Response({"detail": "trigger not found"}, status=status.HTTP_404_NOT_FOUND)
        except TriggerStateConflict as exc:
            return Response(
                {"detail": str(exc), "status": exc.trigger.status}, status=status.HTTP_409_CONFLICT
            )
        trigger = trigger_list().get(pk=trigger_id)
        return Response(TriggerOutputSerializer(trigger).data)


class WindowStatsSerializer(serializers.Serializer):
    window_seconds = serializers.FloatField()
    completed = serializers.IntegerField(help_text="runs completed within the window")
    failed = serializers.IntegerField(help_text="runs failed within the window")
    success_rate = serializers.FloatField(
        allow_null=True, help_text="completed / (completed + failed); null when none finished"
    )
    p50_seconds = serializers.FloatField(
        allow_null=True, help_text="median created -> completed of the completed runs"
    )
    p95_seconds = serializers.FloatField(allow_null=True)


class WorkflowStatsSerializer(serializers.Serializer):
    """The one shape of a workflow's statistics: the API's and `manage.py notiflow_stats
    --workflow KEY --json`'s."""

    workflow = serializers.CharField(source="workflow_key")
    queue = serializers.CharField()
    at = serializers.DateTimeField()
    by_status = serializers.DictField(
        child=serializers.IntegerField(), help_text="triggers not deleted, by status"
    )
    queue_depth = serializers.IntegerField(
        help_text="enqueued, due and not deleted: waiting for a worker to claim them"
    )
    live_workers = serializers.IntegerField(help_text="live workers serving the queue")
    last_hour = WindowStatsSerializer(source="*")


def workflow_stats_data(stats: WorkflowStats) -> dict[str, Any]:
    return dict(WorkflowStatsSerializer(stats).data)


class WorkflowStatsApi(APIView):
    api_scopes = {"GET": TRIGGER}

    @extend_schema(responses=WorkflowStatsSerializer)
    def get(self, request: Request, key: str) -> Response:
        workflow = get_object_or_404(
            api_key_of(request).limit_queryset(Workflow.objects.all(), "key"), key=key
        )
        return Response(workflow_stats_data(workflow_stats(workflow=workflow)))
