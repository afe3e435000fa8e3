"""GET /api/workers/: the registry as operators and scripts read it."""

from __future__ import annotations

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response

from common.http import StrictQueryParameters
from common.scopes import ADMIN
from registry.models import Worker
from registry.selectors import worker_list

BOOLEANS = {"true": True, "false": False}


class WorkerSerializer(serializers.ModelSerializer):
    live = serializers.BooleanField(
        help_text="not stopped, and seen within three heartbeats (NOTIFLOW_WORKER_HEARTBEAT_SECONDS)"
    )
    providers = serializers.DictField(
        child=serializers.CharField(), help_text='the provider of each channel: {"email": "smtp"}'
    )

    class Meta:
        model = Worker
        fields = [
            "name",
            "host",
            "pid",
            "queues",
            "concurrency",
            "node_types",
            "providers",
            "version",
            "started_at",
            "last_seen_at",
            "stopped_at",
            "live",
        ]


class WorkerListApi(StrictQueryParameters, ListAPIView):
    """Every worker that ever registered, live ones first (paginated: names accumulate where
    hosts are named afresh on each start)."""

    api_scopes = {"GET": ADMIN}
    serializer_class = WorkerSerializer
    query_parameters = {
        "GET": [
            OpenApiParameter(
                "live", str, enum=list(BOOLEANS), description="only live (or only not live) workers"
            )
        ]
    }

    def get_queryset(self):
        live = self.request.query_params.get("live")
        if live is not None and live not in BOOLEANS:
            raise ValidationError({"live": ["must be true or false"]})
        return worker_list(live=None if live is None else BOOLEANS[live])

    @extend_schema(summary="List workers")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)
