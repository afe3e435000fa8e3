"""`GET /api/recipients/<id>/explain/?workflow=&tenant=` (a person's dry run, of a run for a tenant
or for none) and `GET /api/recipients/<id>/timeline/?since=` (their recent runs and each
message's decision and delivery state): deliveries.explain. Each needs what reading the person needs: `trigger`, and a
key limited to workflows is refused, as it is the person's profile (docs/security/content.md)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.utils import timezone
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404, not_found
from common.http import StrictQueryParameters
from common.scopes import TRIGGER, Refused
from deliveries.explain import recipient_dry_run, recipient_runs, runs_messages
from recipients.models import Recipient
from tenants.api import tenant_requested
from tenants.models import TENANT_ID_MAX_LENGTH
from triggers.models import TriggerInstance, TriggerStatus
from workflows.channels import channel_names
from workflows.decisions import DECISIONS
from workflows.models import Workflow

READS_THE_PERSON = Refused("read or change recipients")


class DryRunNodeSerializer(serializers.Serializer):
    node = serializers.CharField()
    type = serializers.CharField()
    channel = serializers.ChoiceField(choices=channel_names())
    decision = serializers.ChoiceField(
        choices=DECISIONS, help_text="sent, skipped, failed or (a closed window first) deferred"
    )
    reason = serializers.CharField(help_text="what would happen, in one sentence")
    rule = serializers.CharField(allow_blank=True)
    evidence = serializers.DictField(help_text="the facts the rule would decide on")


class DryRunSerializer(serializers.Serializer):
    recipient = serializers.CharField()
    workflow = serializers.CharField()
    tenant = serializers.CharField(
        allow_blank=True, help_text="the tenant of the run asked about; empty: none"
    )
    version = serializers.IntegerField(help_text="the workflow's current version, asked")
    at = serializers.DateTimeField(help_text="the moment asked about (now)")
    nodes = DryRunNodeSerializer(many=True, help_text="each sending node, in definition order")


class RecipientExplainApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = READS_THE_PERSON
    query_parameters = {
        "GET": [
            OpenApiParameter(
                "workflow",
                {"type": "string", "minLength": 1},
                required=True,
                description="the workflow whose current version is asked",
            ),
            OpenApiParameter(
                "tenant",
                {"type": "string", "minLength": 1, "maxLength": TENANT_ID_MAX_LENGTH},
                description="as a run for this tenant would decide and render (the person's "
                "preferences for it, its defaults, `tenant.*`, its locale and catalogs: "
                "docs/tenants.md); an unknown one is a 400 naming `tenant`",
            ),
        ]
    }

    @extend_schema(
        summary="Dry-run a workflow for a person: what each send would do now, creating nothing",
        responses=DryRunSerializer,
    )
    def get(self, request: Request, recipient_id: str) -> Response:
        key = request.query_params.get("workflow")
        if not key:
            raise ValidationError({"workflow": ["required: the workflow to dry-run"]})
        tenant = tenant_requested(request)
        person = found_or_404(Recipient, "recipient", pk=recipient_id)
        workflow = Workflow.objects.filter(key=key, current_version__isnull=False).first()
        if workflow is None:
            raise not_found("workflow", key)
        answer = recipient_dry_run(person.key, workflow, now=timezone.now(), tenant=tenant)
        return Response(DryRunSerializer(answer).data)


class TimelineMessageSerializer(serializers.Serializer):
    node = serializers.CharField()
    type = serializers.CharField()
    channel = serializers.CharField()
    decision = serializers.CharField(help_text="as the step recorded it (workflows.decisions)")
    reason = serializers.CharField(allow_blank=True)
    rule = serializers.CharField(allow_blank=True)
    state = serializers.CharField(
        allow_blank=True,
        help_text="the message's delivery state: the newest provider report (delivered, "
        "opened, bounced...), else seen/read for in-app, else the send ledger's (sent, sending); "
        "empty for a skipped send",
    )
    at = serializers.DateTimeField()


class TimelineRunSerializer(serializers.Serializer):
    trigger = serializers.UUIDField()
    workflow = serializers.CharField()
    status = serializers.ChoiceField(choices=TriggerStatus.choices)
    created_at = serializers.DateTimeField()
    messages = TimelineMessageSerializer(many=True, help_text="its sends, oldest first")


class RecipientTimelineApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = READS_THE_PERSON
    query_parameters = {
        "GET": [
            OpenApiParameter(
                "since",
                {"type": "string", "format": "date-time"},
                description="only runs created at or after this time (ISO-8601 with an offset)",
            )
        ]
    }

    serializer_class = TimelineRunSerializer

    def get_queryset(self) -> QuerySet[TriggerInstance]:
        person = found_or_404(Recipient, "recipient", pk=self.kwargs["recipient_id"])
        return recipient_runs(person.key, since=_since(self.request.query_params.get("since")))

    @extend_schema(summary="A person's recent runs, newest first, with each message's decision")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        runs = list(self.paginate_queryset(self.get_queryset()) or [])
        messages = runs_messages(runs)
        rows = [
            {
                "trigger": run.pk,
                "workflow": run.workflow.key,
                "status": run.status,
                "created_at": run.created_at,
                "messages": messages[run.pk],
            }
            for run in runs
        ]
        return self.get_paginated_response(TimelineRunSerializer(rows, many=True).data)


def _since(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        since = datetime.fromisoformat(value)
    except ValueError:
        since = None
    if since is None or since.tzinfo is None:
        raise ValidationError({"since": ["must be an ISO-8601 time with an offset"]})
    return since
