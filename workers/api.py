"""REST endpoints for step logs and health."""

from __future__ import annotations

import uuid

from celery import current_app
from django.db import connection
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from triggers.models import TriggerInstance
from workers.models import StepExecutionLog
from workers.selectors import step_log_list


class StepLogSerializer(serializers.ModelSerializer):
    trigger = serializers.UUIDField(source="trigger_id")
    workflow = serializers.CharField(source="workflow.key", help_text="the workflow's key")

    class Meta:
        model = StepExecutionLog
        fields = [
            "id",
            "trigger",
            "workflow",
            "node_id",
            "node_type",
            "attempt",
            "started_at",
            "finished_at",
            "input",
            "output",
            "success",
            "error",
        ]


class TriggerLogsApi(APIView):
    @extend_schema(responses=StepLogSerializer(many=True))
    def get(self, request: Request, trigger_id: uuid.UUID) -> Response:
        get_object_or_404(TriggerInstance.objects.only("id"), pk=trigger_id)
        return Response(
            StepLogSerializer(step_log_list(trigger_id=str(trigger_id)), many=True).data
        )


class StepLogListApi(ListAPIView):
    serializer_class = StepLogSerializer

    def get_queryset(self):
        trigger_id = self.request.query_params.get("trigger")
        if trigger_id:
            try:
                uuid.UUID(trigger_id)
            except ValueError:
                raise ValidationError({"trigger": ["must be a trigger id (UUID)"]}) from None
        return step_log_list(
            trigger_id=trigger_id, node_id=self.request.query_params.get("node_id")
        )

    @extend_schema(
        parameters=[
            OpenApiParameter("trigger", uuid.UUID, description="trigger id"),
            OpenApiParameter("node_id", str),
        ]
    )
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)


class HealthApi(APIView):
    """Liveness of the database, the broker and the workers. 503 when database or broker is down."""

    authentication_classes: list = []
    permission_classes = [AllowAny]

    @extend_schema(responses={200: dict, 503: dict})
    def get(self, request: Request) -> Response:
        checks = {"database": _check_database(), "broker": _check_broker()}
        checks["workers"] = _check_workers() if checks["broker"]["ok"] else {"ok": False}
        healthy = checks["database"]["ok"] and checks["broker"]["ok"]
        body = {"status": ("ok" if checks["workers"]["ok"] else "degraded") if healthy else "down"}
        return Response({**body, **checks}, status=200 if healthy else 503)


def _check_database() -> dict:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        return {"ok": True}
    except Exception as exc:
        return {"ok": False, "error": str(exc).splitlines()[0]}


def _check_broker() -> dict:
    try:
        with current_app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
        return {"ok": True}
    except Exception as exc:
        return {"ok": False, "error": str(exc).splitlines()[0] if str(exc) else type(exc).__name__}


def _check_workers() -> dict:
    try:
        replies = current_app.control.ping(timeout=0.5) or []
    except Exception as exc:
        return {"ok": False, "error": str(exc)}
    names = sorted(name for reply in replies for name in reply)
    return {"ok": bool(names), "count": len(names), "names": names}
