"""The fan-out's side of the API (docs/design/recipients.md, "Topics and fan-out"): the `topic` and
`exclude` fields of POST /api/triggers/, what the trigger view answers when `topic` is given
(202 and the fan-out), GET /api/fanouts/<id>/ and POST /api/fanouts/<id>/cancel/. The rules are
in triggers/fanout.py and triggers/fanout_cancel.py."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import found_or_404, not_found
from common.http import (
    StrictBooleanField,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import FILTERED, TRIGGER, api_key_of
from common.throttling import trigger_rate_charge
from recipients.models import KEY_MAX_LENGTH, Fanout
from triggers.fanout import EXCLUDE_MAX, FanoutRequest, fanout_start
from triggers.fanout_cancel import FanoutNotRunning, fanout_cancel
from triggers.selectors import workflow_active_keys
from triggers.services import TriggerRejected, rejected_suggesting


def topic_field() -> serializers.Field:
    """POST /api/triggers/'s `topic`: a run for each of its subscribers."""
    return StrictCharField(
        required=False,
        min_length=1,
        max_length=KEY_MAX_LENGTH,
        trim_whitespace=False,
        help_text="a topic's key instead of a recipient: one run per subscriber (202, a fan-out)",
    )


def exclude_field() -> serializers.Field:
    """POST /api/triggers/'s `exclude`, with `topic` only."""
    return serializers.ListField(
        child=StrictCharField(min_length=1, max_length=KEY_MAX_LENGTH, trim_whitespace=False),
        required=False,
        max_length=EXCLUDE_MAX,
        help_text=f"with `topic`: recipient ids that get no run (the actor), at most {EXCLUDE_MAX}",
    )


class FanoutOutputSerializer(serializers.ModelSerializer):
    fanout_id = serializers.UUIDField(source="id")
    workflow = serializers.CharField(source="workflow_key")
    topic = serializers.CharField(source="topic_key")
    created = serializers.IntegerField(help_text="runs created so far")
    payload = serializers.JSONField()
    exclude = serializers.ListField(child=serializers.CharField())

    class Meta:
        model = Fanout
        fields = [
            "fanout_id",
            "workflow",
            "topic",
            "idempotency_key",
            "status",
            "created",
            "exclude",
            "priority",
            "cancellation_key",
            "tenant",
            "payload",
            "last_error",
            "created_at",
            "updated_at",
            "finished_at",
        ]


def fanout_post(request: Request, fields: dict[str, Any], idempotency_key: str) -> Response:
    """POST /api/triggers/ with `topic`: 202 with the new fan-out, 200 with the one this request
    made before; the errors of intake (400 naming the field, 409, 422, 503)."""
    if fields.get("recipient") is not None:
        return _error("topic", "give a recipient or a topic, not both", 400)
    if fields.get("locale"):
        # A fan-out's runs are each in their recipient's locale (docs/translations.md).
        return _error("locale", "a topic's runs take their recipients' locales: no locale", 400)
    fanout_request = FanoutRequest(
        workflow_key=fields["workflow"],
        idempotency_key=idempotency_key,
        topic_key=fields["topic"],
        payload=fields.get("payload"),
        exclude=fields.get("exclude", []),
        priority=fields.get("priority"),
        cancellation_key=fields["cancellation_key"],
        tenant=fields.get("tenant", ""),
    )
    try:
        fanout, created = fanout_start(
            fanout_request,
            actor=actor_of(request),
            admit=lambda audience: trigger_rate_charge(api_key=request.auth, runs=audience),
        )
    except TriggerRejected as rejected:
        exc = rejected_suggesting(
            rejected, active_keys=workflow_active_keys(api_key=api_key_of(request))
        )
        response = _error(exc.field, exc.message, exc.status_code)
        if exc.existing_id is not None:
            response.data["existing_fanout_id"] = exc.existing_id
        return response
    code = status.HTTP_202_ACCEPTED if created else status.HTTP_200_OK
    return Response(FanoutOutputSerializer(fanout).data, status=code)


def exclude_without_topic(fields: dict[str, Any]) -> Response | None:
    """A 400 for `exclude` given without `topic`, else None."""
    if "exclude" in fields and "topic" not in fields:
        return _error("exclude", "exclude is given with a topic only", 400)
    return None


def _error(field: str, message: str, code: int) -> Response:
    return Response({"detail": message, "errors": {field: [message]}}, status=code)


class FanoutDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(
        summary="Get a fan-out",
        responses=FanoutOutputSerializer,
        description="A trigger for a topic: `status` running, done, failed or cancelled, and "
        "`created`, the runs created so far.",
    )
    def get(self, request: Request, fanout_id: str) -> Response:
        fanouts = api_key_of(request).limit_queryset(Fanout.objects.all(), "workflow_key")
        return Response(FanoutOutputSerializer(found_or_404(fanouts, "fan-out", pk=fanout_id)).data)


class FanoutCancelInputSerializer(StrictSerializer):
    runs = StrictBooleanField(
        required=False,
        default=False,
        help_text="also cancel the runs it made that have not finished",
    )


class FanoutCancelOutputSerializer(FanoutOutputSerializer):
    runs_cancelled = serializers.IntegerField(help_text="how many of its runs this cancelled")

    class Meta(FanoutOutputSerializer.Meta):
        fields = [*FanoutOutputSerializer.Meta.fields, "runs_cancelled"]


class FanoutCancelApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(
        summary="Cancel a fan-out",
        request=FanoutCancelInputSerializer,
        responses={200: FanoutCancelOutputSerializer, 404: None, 409: None},
        description="Stops a running fan-out: no run is made after the answer. With `runs: "
        "true`, also cancels every run it made that has not finished, in the same transaction. "
        "409 when it is finished already (done, failed or cancelled); 404 outside the key's "
        "workflows. Scope: trigger.",
    )
    def post(self, request: Request, fanout_id: str) -> Response:
        fields = request_fields(request, FanoutCancelInputSerializer)
        limited = api_key_of(request).workflows
        try:
            fanout, cancelled = fanout_cancel(
                fanout_id=fanout_id,
                actor=actor_of(request),
                runs=fields["runs"],
                workflow_keys=list(limited) if limited else None,
            )
        except Fanout.DoesNotExist:
            raise not_found("fan-out", fanout_id) from None
        except FanoutNotRunning as exc:
            return Response(
                {"detail": str(exc), "status": exc.fanout.status}, status=status.HTTP_409_CONFLICT
            )
        fanout.runs_cancelled = len(cancelled)  # type: ignore[attr-defined]  # shown once
        return Response(FanoutCancelOutputSerializer(fanout).data)
