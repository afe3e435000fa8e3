"""GET /api/workflows/<key>/stats/: a workflow's run statistics, in the one shape
`manage.py notiflow_stats --json` prints too."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404
from common.http import StrictQueryParameters
from common.scopes import FILTERED, TRIGGER, api_key_of
from triggers.selectors import WorkflowStats, workflow_stats
from workflows.models import Workflow


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


class WorkflowStatsApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(summary="Get a workflow's run statistics", responses=WorkflowStatsSerializer)
    def get(self, request: Request, key: str) -> Response:
        workflow = found_or_404(
            api_key_of(request).limit_queryset(Workflow.objects.all(), "key"), "workflow", key=key
        )
        return Response(workflow_stats_data(workflow_stats(workflow=workflow)))
