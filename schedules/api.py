"""REST endpoints of schedules (docs/guide/schedules.md): PUT, GET and DELETE
/api/schedules/<id>/ and the list. Views parse and translate; the rules are in
schedules/services.py. Their URL patterns are `urlpatterns` below, included under /api/ by the
project's URLconf."""

from __future__ import annotations

from typing import Any

from django.urls import path
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404, not_found
from common.http import (
    NoFieldsSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import CHECKED, FILTERED, TRIGGER, api_key_of, limited_refusal
from recipients.models import KEY_MAX_LENGTH
from schedules.models import RECIPIENT_ZONE, Schedule, ScheduleOccurrence
from schedules.selectors import schedule_preview, schedules_listed
from schedules.services import (
    ScheduleRejected,
    ScheduleRequest,
    db_now,
    schedule_delete,
    schedule_put,
)


class ScheduleInputSerializer(StrictSerializer):
    workflow = StrictCharField(max_length=200, help_text="the workflow each occurrence runs")
    recipients = serializers.ListField(
        child=StrictCharField(min_length=1, max_length=KEY_MAX_LENGTH, trim_whitespace=False),
        required=False,
        min_length=1,
        help_text="the recipients' ids (at most NOTIFLOW_SCHEDULE_MAX_RECIPIENTS); or `topic`",
    )
    topic = StrictCharField(
        required=False, max_length=200, help_text="a topic: its subscribers when each fires"
    )
    repeat = StrictCharField(
        max_length=1000,
        help_text="an RFC 5545 RRULE read in local time: FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
    )
    timezone = StrictCharField(
        required=False,
        default=RECIPIENT_ZONE,
        max_length=64,
        help_text="an IANA zone, or \"recipient\": each recipient's own (their profile's, else "
        "NOTIFLOW_DEFAULT_TIMEZONE)",
    )
    payload = serializers.JSONField(required=False, default=dict, help_text="a JSON object")
    starts_at = StrictCharField(
        required=False,
        max_length=40,
        help_text="the rule's DTSTART, a local time (2026-12-07T09:00:00); with an offset, an "
        "instant (fixed zones only). Default: now",
    )
    ends_at = StrictCharField(
        required=False, max_length=40, help_text="no occurrence after this local time"
    )
    tenant = StrictCharField(required=False, default="", allow_blank=True, max_length=200)
    active = StrictBooleanField(
        required=False, default=True, help_text="false pauses it from the next occurrence"
    )
    catch_up = StrictCharField(
        required=False,
        default="1h",
        max_length=40,
        help_text="an occurrence missed by less than this (the service was down) fires late; "
        "older ones are skipped and recorded",
    )


class RecipientPreviewSerializer(serializers.Serializer):
    recipient = serializers.CharField()
    timezone = serializers.CharField()
    utc = serializers.ListField(child=serializers.CharField())
    local = serializers.ListField(child=serializers.CharField(), help_text="with their offset")


class PreviewSerializer(serializers.Serializer):
    local = serializers.ListField(
        child=serializers.CharField(), help_text="the rule's next local times"
    )
    utc = serializers.ListField(
        child=serializers.CharField(),
        allow_null=True,
        help_text="their instants in a fixed zone; null for each recipient's own",
    )
    recipients = RecipientPreviewSerializer(
        many=True,
        allow_null=True,
        help_text='for "recipient" zones, the first few recipients\' next occurrences (null '
        "otherwise, and to a key limited to workflows)",
    )


# How many of a schedule's latest occurrence records GET /api/schedules/<id>/ shows.
OCCURRENCES_SHOWN = 10


class OccurrenceSerializer(serializers.ModelSerializer):
    charged = serializers.IntegerField(
        help_text="runs charged to the trigger rate of the key that stored the schedule (a "
        "topic's audience, on its first zone's record)"
    )

    class Meta:
        model = ScheduleOccurrence
        fields = ["local", "zone", "occurs_at", "status", "runs", "charged", "reason"]


class ScheduleOutputSerializer(serializers.ModelSerializer):
    workflow = serializers.CharField(source="workflow_key")
    topic = serializers.SerializerMethodField()
    catch_up = serializers.SerializerMethodField(help_text="in seconds")
    ends_at = serializers.SerializerMethodField()
    next_occurrences = serializers.SerializerMethodField()
    latest_occurrences = serializers.SerializerMethodField()

    class Meta:
        model = Schedule
        fields = [
            "id",
            "workflow",
            "recipients",
            "topic",
            "repeat",
            "timezone",
            "payload",
            "starts_at",
            "ends_at",
            "tenant",
            "active",
            "catch_up",
            "runs_created",
            "last_error",
            "created_at",
            "updated_at",
            "next_occurrences",
            "latest_occurrences",
        ]

    def get_topic(self, schedule: Schedule) -> str | None:
        return schedule.topic_key or None

    def get_ends_at(self, schedule: Schedule) -> str | None:
        return schedule.ends_at or None

    def get_catch_up(self, schedule: Schedule) -> float:
        return schedule.catch_up_seconds

    @extend_schema_field(PreviewSerializer(allow_null=True))  # type: ignore[misc]
    def get_next_occurrences(self, schedule: Schedule) -> dict[str, Any] | None:
        now = self.context.get("now")
        if now is None:  # lists leave it out: a page of rules evaluated is not worth it
            return None
        return schedule_preview(
            schedule, now=now, with_recipients=self.context.get("with_recipients", False)
        )

    @extend_schema_field(OccurrenceSerializer(many=True, allow_null=True))  # type: ignore[misc]
    def get_latest_occurrences(self, schedule: Schedule) -> list[dict[str, Any]] | None:
        if self.context.get("now") is None:  # lists leave it out, as next_occurrences
            return None
        records = schedule.occurrences.order_by("-occurs_at", "zone")[:OCCURRENCES_SHOWN]
        return list(OccurrenceSerializer(records, many=True).data)


def _rejected(exc: ScheduleRejected) -> Response:
    return Response(
        {"detail": exc.message, "errors": {exc.field: [exc.message]}}, status=exc.status_code
    )


def _visible(request: Request) -> Any:
    return api_key_of(request).limit_queryset(Schedule.objects.all(), "workflow_key")


class ScheduleListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED
    serializer_class = ScheduleOutputSerializer
    query_parameters = {
        "GET": [
            OpenApiParameter("workflow", str, description="a workflow's schedules"),
            OpenApiParameter("recipient", str, description="the schedules listing this id"),
        ]
    }

    def get_queryset(self):
        params = self.request.query_params
        rows = schedules_listed(workflow=params.get("workflow"), recipient=params.get("recipient"))
        return api_key_of(self.request).limit_queryset(rows, "workflow_key")

    @extend_schema(summary="List schedules", description="By id; `next_occurrences` is null.")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class ScheduleDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER, "PUT": TRIGGER, "DELETE": TRIGGER}
    # A schedule names its workflow: a key limited to workflows reaches those only.
    workflow_limits = {"GET": FILTERED, "PUT": CHECKED, "DELETE": FILTERED}

    def _answer(self, request: Request, schedule: Schedule, code: int = 200) -> Response:
        # A person's zone is their profile's: not shown to a key limited to workflows.
        context = {"now": db_now(), "with_recipients": not api_key_of(request).workflows}
        return Response(ScheduleOutputSerializer(schedule, context=context).data, status=code)

    @extend_schema(summary="Get a schedule", responses=ScheduleOutputSerializer)
    def get(self, request: Request, schedule_id: str) -> Response:
        return self._answer(request, found_or_404(_visible(request), "schedule", pk=schedule_id))

    @extend_schema(
        summary="Create or replace a schedule",
        request=ScheduleInputSerializer,
        responses={201: ScheduleOutputSerializer, 200: ScheduleOutputSerializer},
        description="One run per recipient per occurrence, exactly once, keyed "
        "`schedule:<id>:<recipient>:<occurrence in UTC>`. A change of the rule, zone, audience, "
        "workflow or dates, or a resumption, takes effect from the next occurrence.",
        examples=[
            OpenApiExample(
                "every Monday at 9:00 in each person's zone",
                value={
                    "workflow": "weekly-digest",
                    "recipients": ["user-1", "user-2"],
                    "repeat": "FREQ=WEEKLY;BYDAY=MO;BYHOUR=9;BYMINUTE=0",
                },
                request_only=True,
            )
        ],
    )
    def put(self, request: Request, schedule_id: str) -> Response:
        fields = request_fields(request, ScheduleInputSerializer)
        key = api_key_of(request)
        existing = Schedule.objects.filter(pk=schedule_id).values_list("workflow_key", flat=True)
        held = existing.first()
        if held is not None and not key.allows_workflow(held):
            raise not_found("schedule", schedule_id)
        if not key.allows_workflow(fields["workflow"]):
            raise PermissionDenied(
                limited_refusal(key.workflows, f"schedule workflow {fields['workflow']!r}")
            )
        try:
            schedule, created = schedule_put(
                ScheduleRequest(id=schedule_id, **fields),
                actor=f"api-key:{key.pk}",
                api_key_id=key.pk,
            )
        except ScheduleRejected as exc:
            return _rejected(exc)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return self._answer(request, schedule, code)

    @extend_schema(summary="Delete a schedule", responses={204: None})
    def delete(self, request: Request, schedule_id: str) -> Response:
        request_fields(request, NoFieldsSerializer)
        if not _visible(request).filter(pk=schedule_id).exists() or not schedule_delete(
            schedule_id=schedule_id
        ):
            raise not_found("schedule", schedule_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns = [
    path("schedules/", ScheduleListApi.as_view(), name="schedule-list"),
    path("schedules/<str:schedule_id>/", ScheduleDetailApi.as_view(), name="schedule-detail"),
]
