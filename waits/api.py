"""POST /api/events/ and /api/events/bulk/ (docs/design/waits.md, "Waiting for events"): a client
tells Notiflow something happened; every run waiting for it resumes."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import invalid_input
from common.http import StrictCharField, StrictQueryParameters, StrictSerializer, request_fields
from common.scopes import CHECKED, TRIGGER, api_key_of
from waits.messages import RESERVED_NAME_PROBLEM, event_name_reserved
from waits.services import (
    CONFLICT,
    CREATED,
    EVENT_ID_MAX,
    EVENT_NAME_MAX,
    EVENTS_BULK_MAX,
    EventOutcome,
    event_receive,
)


class EventInputSerializer(StrictSerializer):
    name = StrictCharField(max_length=EVENT_NAME_MAX, help_text="what happened, e.g. order.paid")
    id = StrictCharField(
        max_length=EVENT_ID_MAX,
        help_text="the event's own id: posting it again is a no-op (200), with other data a 422",
    )
    data = serializers.DictField(  # type: ignore[assignment]  # a field, not Serializer.data
        required=False,
        default=dict,
        help_text="a JSON object; a waiting run's `match` values are compared with its keys",
    )

    def validate_name(self, name: str) -> str:
        if event_name_reserved(name):
            raise ValidationError(RESERVED_NAME_PROBLEM.format(name=name))
        return name


class EventOutputSerializer(serializers.Serializer):
    id = serializers.CharField()
    name = serializers.CharField()
    resumed = serializers.IntegerField(help_text="how many waiting runs this post resumed")


EVENT_EXAMPLE = OpenApiExample(
    "An order paid",
    value={"name": "order.paid", "id": "evt_123", "data": {"order_id": "o-42", "amount": 30}},
    request_only=True,
)

DESCRIPTION = (
    "Tells Notiflow an event happened. Every run waiting at a `wait_event` node for this "
    "name whose `match` values the data holds resumes (once: a run resumed by another "
    "delivery of the event, or by its timeout, is not resumed again); with an API key limited "
    "to workflows, only their runs. Idempotent by `id`: 201 the first time, 200 the same "
    "again (it resumes what the first post may have missed, nothing twice), 422 the id with "
    "other name or data. The event is kept for the longest `lookback` a node may set, so a "
    "run that reaches its node later can still take it. Scope: trigger."
)


def _receive(request: Request, fields: dict[str, Any]) -> tuple[int, dict[str, Any]]:
    api_key = api_key_of(request)
    outcome: EventOutcome = event_receive(
        name=fields["name"],
        event_id=fields["id"],
        data=fields["data"],
        actor=actor_of(request),
        workflows=list(api_key.workflows) if api_key.workflows else None,
        api_key_id=api_key.pk,
    )
    if outcome.outcome == CONFLICT:
        message = f"event id {fields['id']!r} was posted before with another name or data"
        return 422, {"detail": message, "errors": {"id": [message]}}
    body = {"id": fields["id"], "name": fields["name"], "resumed": outcome.resumed}
    return (201 if outcome.outcome == CREATED else 200), body


class EventApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER}
    workflow_limits = CHECKED

    @extend_schema(
        summary="Post an event",
        request=EventInputSerializer,
        responses={201: EventOutputSerializer, 200: EventOutputSerializer},
        examples=[EVENT_EXAMPLE],
        description=DESCRIPTION,
    )
    def post(self, request: Request) -> Response:
        code, body = _receive(request, request_fields(request, EventInputSerializer))
        return Response(body, status=code)


@extend_schema_field(EventInputSerializer)
class EventItemField(serializers.JSONField):
    """Any JSON here: each item is checked alone, a bad one is that item's 400."""


class EventBulkInputSerializer(StrictSerializer):
    events = serializers.ListField(
        child=EventItemField(allow_null=True),
        min_length=1,
        help_text=f"1 to {EVENTS_BULK_MAX} events, each as POST /api/events/ takes it",
    )

    def validate_events(self, items: list[Any]) -> list[Any]:
        if len(items) > EVENTS_BULK_MAX:
            raise ValidationError(
                f"at most {EVENTS_BULK_MAX} events per request; this one has {len(items)}, "
                "and none was stored"
            )
        return items


class EventBulkResultSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    status = serializers.IntegerField(
        help_text="what POST /api/events/ answered: 201, 200, 400, 422"
    )
    id = serializers.CharField(required=False)
    resumed = serializers.IntegerField(required=False)
    detail = serializers.CharField(required=False)


class EventBulkOutputSerializer(serializers.Serializer):
    results = EventBulkResultSerializer(many=True)


class EventBulkApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER}
    workflow_limits = CHECKED

    @extend_schema(
        summary="Post many events",
        request=EventBulkInputSerializer,
        responses={200: EventBulkOutputSerializer},
        description=f"Up to {EVENTS_BULK_MAX} events, each decided as POST /api/events/ would "
        "decide it alone; the answer is 200 with one result per item, in order. Scope: trigger.",
    )
    def post(self, request: Request) -> Response:
        items = request_fields(request, EventBulkInputSerializer)["events"]
        results: list[dict[str, Any]] = []
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                message = "each event must be a JSON object"
                results.append(
                    {
                        "index": index,
                        "status": 400,
                        "detail": message,
                        "errors": {"item": [message]},
                    }
                )
                continue
            fields = EventInputSerializer(data=item)
            if not fields.is_valid():
                results.append({"index": index, "status": 400, **invalid_input(fields.errors)})
                continue
            code, body = _receive(request, dict(fields.validated_data))
            results.append({"index": index, "status": code, **body})
        return Response({"results": results})
