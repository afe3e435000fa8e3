"""A workflow's versions over the API: `/api/workflows/<key>/versions/` (newest first) and
`/api/workflows/<key>/versions/<number>/` with its definition. Each says where it came from:
`created_by` (the key, `api:<name>`, or the admin user that made it) and `message` (the note
given with the change, such as the commit a `notiflow workflows push --message` ran at)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404, not_found
from common.http import StrictQueryParameters
from common.scopes import FILTERED, TRIGGER, api_key_of
from workflows.api import KEY_PARAMETER, edges_in_order, nodes_in_order
from workflows.models import Workflow, WorkflowVersion
from workflows.selectors import workflow_list, workflow_version_list


class WorkflowVersionSerializer(serializers.ModelSerializer):
    current = serializers.SerializerMethodField(help_text="whether new runs start on it")

    class Meta:
        model = WorkflowVersion
        fields = ["number", "current", "created_at", "created_by", "message"]

    def get_current(self, version: WorkflowVersion) -> bool:
        return version.pk == version.workflow.current_version_id


class WorkflowVersionDetailSerializer(WorkflowVersionSerializer):
    definition = serializers.SerializerMethodField(
        help_text="entry_node_id, nodes and edges (and category, preference_category and "
        "required when they are not the default), as this version holds them"
    )

    class Meta(WorkflowVersionSerializer.Meta):
        fields = [*WorkflowVersionSerializer.Meta.fields, "definition"]

    def get_definition(self, version: WorkflowVersion) -> dict[str, Any]:
        definition = dict(version.definition)
        definition["nodes"] = nodes_in_order(definition)
        definition["edges"] = edges_in_order(definition)
        return definition


def _workflow(request: Request, key: str) -> Workflow:
    # Outside the key's workflows: 404, as if it did not exist (as WorkflowDetailApi).
    return found_or_404(
        api_key_of(request).limit_queryset(workflow_list(), "key"), "workflow", key=key
    )


class WorkflowVersionListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = {"GET": FILTERED}
    serializer_class = WorkflowVersionSerializer

    def get_queryset(self):
        workflow = _workflow(self.request, self.kwargs["key"])
        return workflow_version_list(workflow=workflow).select_related("workflow")

    @extend_schema(summary="List a workflow's versions (newest first)", parameters=[KEY_PARAMETER])
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class WorkflowVersionDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = {"GET": FILTERED}

    @extend_schema(
        summary="Get a version of a workflow",
        responses=WorkflowVersionDetailSerializer,
        parameters=[
            KEY_PARAMETER,
            OpenApiParameter("number", {"type": "integer", "minimum": 0}, OpenApiParameter.PATH),
        ],
    )
    def get(self, request: Request, key: str, number: int) -> Response:
        workflow = _workflow(request, key)
        version = (
            workflow_version_list(workflow=workflow)
            .select_related("workflow")
            .filter(number=number)
            .first()
        )
        if version is None:
            raise not_found(f"version of workflow {key!r}", number)
        return Response(WorkflowVersionDetailSerializer(version).data)
