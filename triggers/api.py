"""REST endpoints for triggers: intake (the inbox), status, cancellation, soft delete. Many at
once (a bulk intake, a cancel by cancellation key) is triggers/bulk_api.py; a workflow's run
statistics, triggers/stats_api.py."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import found_or_404, not_found
from common.http import (
    NoFieldsSerializer,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.metrics import intake_request_observe
from common.scopes import ADMIN, CHECKED, FILTERED, TRIGGER, api_key_of
from recipients.api import RecipientItemSerializer, profile_of
from recipients.models import KEY_MAX_LENGTH
from recipients.services import Profile
from recipients.validation import key_problem
from triggers.fanout_api import (
    FanoutOutputSerializer,
    exclude_field,
    exclude_without_topic,
    fanout_post,
    topic_field,
)
from triggers.models import TriggerInstance, TriggerStatus
from triggers.representation import trigger_fields, trigger_json
from triggers.selectors import trigger_list, workflow_active_keys
from triggers.services import (
    MAX_CANCELLATION_KEY_LENGTH,
    MAX_IDEMPOTENCY_KEY_LENGTH,
    IntakeOutcome,
    TriggerRejected,
    TriggerRequest,
    rejected_suggesting,
    triggers_create,
)
from triggers.state import (
    MAX_DELETE_REASON_LENGTH,
    TriggerNotFound,
    TriggerStateConflict,
    trigger_cancel,
    trigger_delete,
)
from triggers.waiting import MAX_WAIT_SECONDS, trigger_wait, wait_seconds
from workflows.routing import PRIORITY_MAX, PRIORITY_MIN


class TriggerOutputSerializer(serializers.ModelSerializer):
    workflow = serializers.CharField(source="workflow.key")
    workflow_version = serializers.IntegerField(source="workflow_version.number")
    cursor = serializers.JSONField()
    trace_id = serializers.CharField(
        allow_null=True,
        read_only=True,
        help_text="The run's OpenTelemetry trace id (32 hex digits): the trace of its intake "
        "request and of every step. Null when the run was created while tracing was off.",
    )

    class Meta:
        model = TriggerInstance
        fields = trigger_fields()  # trigger_json's keys: the fields are listed once, there

    def to_representation(self, instance: TriggerInstance) -> dict[str, Any]:
        """What DRF's field-by-field rendering of the fields above gives (a test holds the two
        equal), written out once in triggers.representation, which events share."""
        return trigger_json(instance)


# The key's rules live in triggers_create (one home for the body, the header, bulk and the command);
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
    """Any JSON to the serializer; triggers_create refuses anything but an object."""


@functools.cache
def _recipient_item() -> RecipientItemSerializer:
    """One serializer for every trigger's recipient object: its fields are built once (DRF
    builds them afresh for each instance, a cost on every intake request); validating keeps no
    state on it."""
    return RecipientItemSerializer()


@extend_schema_field(
    {
        "oneOf": [
            {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH},
            {"$ref": "#/components/schemas/RecipientItem"},
        ],
        "description": "whom the run is for: a recipient's id (it must exist), or an object "
        "with its id and profile fields, upserted (merged) with the trigger",
    }
)
class RecipientField(serializers.Field):
    """A recipient's id, or a profile with its id (recipients.api.RecipientItemSerializer):
    to (key, Profile or None). The object's errors come back under `recipient`."""

    def to_internal_value(self, data: Any) -> tuple[str, Profile | None]:
        if isinstance(data, str):
            if problem := key_problem(data):
                raise ValidationError(f"the id {problem}")
            return data, None
        if not isinstance(data, dict):
            raise ValidationError("must be a recipient's id or an object with its id and profile")
        fields = _recipient_item().run_validation(data)  # a ValidationError names each field
        return fields["id"], profile_of(fields)

    def to_representation(self, value: Any) -> Any:
        return value


class TriggerInputSerializer(StrictSerializer):
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
    cancellation_key = StrictCharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=MAX_CANCELLATION_KEY_LENGTH,
        default="",
        help_text="a business key to cancel it by (POST /api/triggers/cancel/); empty: none",
    )
    locale = StrictCharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=35,
        default="",
        help_text="the BCP 47 locale (`fr`, `fr-CA`, `pt-BR`) its messages are translated into "
        "first, before the recipient's (docs/translations.md); empty: none. Not with `topic`.",
    )
    tenant = StrictCharField(
        required=False,
        allow_blank=True,
        trim_whitespace=False,
        max_length=64,
        default="",
        help_text="the id of the tenant it is sent for (docs/tenants.md): templates read "
        "`tenant.name` and `tenant.properties`, its locale and category defaults apply; an "
        "unknown one is a 400 naming `tenant`. Empty: none.",
    )
    # A whole audience (triggers/fanout_api.py).
    topic = topic_field()
    exclude = exclude_field()
    # Whom it is for: a recipient's id, or a profile to store with the trigger.
    recipient = RecipientField(required=False)


class TriggerDeleteInputSerializer(StrictSerializer):
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

# `?wait=` (triggers/waiting.py).
WAIT_PARAMETER = OpenApiParameter(
    "wait",
    {"type": "number", "minimum": 0, "maximum": MAX_WAIT_SECONDS},
    description=(
        "seconds to wait for the trigger to finish (completed, failed or cancelled) before "
        "answering; the answer comes as soon as it is, or when the wait is over, with the "
        "trigger as it is then. 0 or absent: at once."
    ),
    examples=[OpenApiExample("up to five seconds", value=5)],
)

# `?deleted=`: which triggers a list shows.
DELETED_FILTER = {"true": True, "false": False}


def field_error(field: str, message: str, code: int) -> Response:
    return Response({"detail": message, "errors": {field: [message]}}, status=code)


def not_allowed(workflow_key: str) -> str:
    return f"this API key may not trigger workflow {workflow_key!r}"


def trigger_request(fields: dict[str, Any], idempotency_key: str) -> TriggerRequest:
    """The request of a body TriggerInputSerializer accepted."""
    recipient, profile = fields.get("recipient") or ("", None)
    return TriggerRequest(
        workflow_key=fields["workflow"],
        idempotency_key=idempotency_key,
        payload=fields.get("payload"),
        priority=fields.get("priority"),
        cancellation_key=fields["cancellation_key"],
        recipient=recipient,
        profile=profile,
        locale=fields["locale"],
        tenant=fields["tenant"],
    )


def intake_answer(
    outcome: IntakeOutcome, active_keys: Callable[[], list[str]]
) -> tuple[int, dict[str, Any]]:
    """What POST /api/triggers/ answers for one request's outcome: the status and the body (the
    trigger, or the error); each item of a bulk request gets the same."""
    if isinstance(outcome, TriggerRejected):
        outcome = rejected_suggesting(outcome, active_keys=active_keys)
        return outcome.status_code, _rejected(outcome)
    trigger, created = outcome
    return (201 if created else 200), trigger_json(trigger)


def _rejected(exc: TriggerRejected) -> dict[str, Any]:
    """A refused trigger request as the API answers it; a 422 names the trigger holding the key."""
    body: dict[str, Any] = {"detail": exc.message, "errors": {exc.field: [exc.message]}}
    if exc.existing_id is not None:
        body["existing_trigger_id"] = exc.existing_id
    return body


# Examples for the schema (GET /api/schema/, /api/docs/).
EXAMPLE_TRIGGER_ID = "7b0c4f0e-2f5d-4a59-9a51-3c1e8d2f6a10"
EXAMPLE_REQUEST = {
    "workflow": "billing.invoice_due",
    "idempotency_key": "invoice-1042-due",
    "payload": {"email": "ann@example.com", "name": "Ann", "amount": "42.00"},
    "cancellation_key": "invoice-1042",
}
TRIGGER_EXAMPLES = [
    OpenApiExample("a trigger", value=EXAMPLE_REQUEST, request_only=True),
    OpenApiExample(
        "the key used with another payload",
        value={
            "detail": "idempotency key 'invoice-1042-due' was used with other parameters "
            f"(differing: payload) by trigger {EXAMPLE_TRIGGER_ID}; nothing was changed. Send "
            "the same request again, or use a new key",
            "errors": {"idempotency_key": ["..."]},
            "existing_trigger_id": EXAMPLE_TRIGGER_ID,
        },
        response_only=True,
        status_codes=["422"],
    ),
]


# Counts the POSTs of an intake endpoint by status code (notiflow_intake_requests_total), whatever
# answered them: the view, authentication, throttling or an error. (A comment, not a docstring:
# drf-spectacular would lend a mixin's docstring to every view using it as its description.)
class IntakeMetered:
    intake_endpoint = ""

    def finalize_response(
        self, request: Request, response: Response, *args: Any, **kwargs: Any
    ) -> Response:
        response = super().finalize_response(request, response, *args, **kwargs)  # type: ignore[misc]
        if request.method == "POST":
            intake_request_observe(endpoint=self.intake_endpoint, code=response.status_code)
        return response


class TriggerListApi(IntakeMetered, StrictQueryParameters, ListAPIView):
    intake_endpoint = "trigger"
    api_scopes = {"GET": TRIGGER, "POST": TRIGGER}
    workflow_limits = {"GET": FILTERED, "POST": CHECKED}
    serializer_class = TriggerOutputSerializer
    query_parameters = {
        "GET": [
            OpenApiParameter(
                "workflow", {"type": "string", "minLength": 1}, description="workflow key"
            ),
            OpenApiParameter("status", str, enum=TriggerStatus.values),
            OpenApiParameter(
                "recipient",
                {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH},
                description="a recipient's id: the runs for that person",
            ),
            OpenApiParameter(
                "tenant",
                {"type": "string", "minLength": 1, "maxLength": 64},
                description="a tenant's id: the runs sent for that tenant",
            ),
            OpenApiParameter(
                "deleted",
                str,
                enum=list(DELETED_FILTER),
                default="false",
                description="true: only soft-deleted triggers; false (the default): the others",
            ),
        ]
    }

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
        recipient = params.get("recipient")
        if recipient is not None and not recipient:
            raise ValidationError({"recipient": ["must be a recipient's id (it was empty)"]})
        tenant = params.get("tenant")
        if tenant is not None and not tenant:
            raise ValidationError({"tenant": ["must be a tenant's id (it was empty)"]})
        triggers = trigger_list(
            workflow_key=workflow_key,
            status=wanted,
            deleted=DELETED_FILTER[deleted],
            recipient=recipient,
            tenant=tenant,
        )
        return api_key_of(self.request).limit_queryset(triggers)

    @extend_schema(summary="List triggers")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Trigger a workflow",
        request=TriggerInputSerializer,
        responses={
            201: TriggerOutputSerializer,
            200: TriggerOutputSerializer,
            202: FanoutOutputSerializer,  # with `topic`: a fan-out (its replay is a 200)
        },
        examples=TRIGGER_EXAMPLES,
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
        fields = request_fields(request, TriggerInputSerializer)
        key = fields.get("idempotency_key")
        header_key = request.headers.get("Idempotency-Key")
        if key is None:
            key = header_key
        elif header_key is not None and header_key != key:
            return field_error(
                "idempotency_key", "the Idempotency-Key header and the body disagree", 400
            )
        if key is None:
            return field_error(
                "idempotency_key", "idempotency_key is required (body or header)", 400
            )
        if not api_key_of(request).allows_workflow(fields["workflow"]):
            return field_error("workflow", not_allowed(fields["workflow"]), 403)
        if "topic" in fields:
            return fanout_post(request, fields, key)
        if refused := exclude_without_topic(fields):
            return refused
        (outcome,) = triggers_create(
            [trigger_request(fields, key)],
            actor=actor_of(request),
            key_workflows=api_key_of(request).workflows,
        )
        code, body = intake_answer(outcome, workflow_active_keys(api_key=api_key_of(request)))
        return Response(body, status=code)


class TriggerDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER, "DELETE": ADMIN}
    workflow_limits = {"GET": FILTERED}
    query_parameters = {"GET": [WAIT_PARAMETER]}

    @extend_schema(summary="Get a trigger", responses=TriggerOutputSerializer)
    def get(self, request: Request, trigger_id: str) -> Response:
        wait = wait_seconds(request.query_params)
        trigger = found_or_404(
            api_key_of(request).limit_queryset(trigger_list()), "trigger", pk=trigger_id
        )
        trigger = trigger_wait(request.META, trigger, wait)
        return Response(TriggerOutputSerializer(trigger).data)

    @extend_schema(
        summary="Soft-delete a trigger",
        request=None,  # TRIGGER_DELETE_BODY_SCHEMA, added by notiflow.openapi
        responses={200: TriggerOutputSerializer},
        description=(
            "Soft-delete the trigger: it is never claimed again, its history stays and its "
            "idempotency key is free again. Status, cursor and lease do not change (cancel is "
            "what stops a run). Deleting a deleted trigger changes nothing."
        ),
    )
    def delete(self, request: Request, trigger_id: str) -> Response:
        fields = request_fields(request, TriggerDeleteInputSerializer)
        try:
            trigger_delete(trigger_id=trigger_id, actor=actor_of(request), reason=fields["reason"])
        except TriggerNotFound:
            raise not_found("trigger", trigger_id) from None
        return Response(TriggerOutputSerializer(trigger_list().get(pk=trigger_id)).data)


class TriggerCancelApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(
        summary="Cancel a trigger",
        request=None,
        responses={200: TriggerOutputSerializer, 409: None},
    )
    def post(self, request: Request, trigger_id: str) -> Response:
        request_fields(request, NoFieldsSerializer)
        limited = api_key_of(request).limit_queryset(trigger_list())
        if api_key_of(request).workflows and not limited.filter(pk=trigger_id).exists():
            raise not_found("trigger", trigger_id) from None
        try:
            trigger_cancel(
                trigger_id=trigger_id, actor=actor_of(request), reason="cancelled via API"
            )
        except TriggerNotFound:
            raise not_found("trigger", trigger_id) from None
        except TriggerStateConflict as exc:
            return Response(
                {"detail": str(exc), "status": exc.trigger.status}, status=status.HTTP_409_CONFLICT
            )
        trigger = trigger_list().get(pk=trigger_id)
        return Response(TriggerOutputSerializer(trigger).data)
