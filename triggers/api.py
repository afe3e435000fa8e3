"""REST endpoints for triggers: intake (the inbox), status, cancellation, soft delete, and a
workflow's run statistics."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import found_or_404, invalid_input, not_found
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
from triggers.selectors import WorkflowStats, trigger_list, workflow_active_keys, workflow_stats
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
    triggers_cancel_by_key,
)
from triggers.waiting import MAX_WAIT_SECONDS, trigger_wait, wait_seconds
from workflows.models import Workflow
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


def _error(field: str, message: str, code: int) -> Response:
    return Response({"detail": message, "errors": {field: [message]}}, status=code)


def _item_error(index: int, field: str, message: str, status: int = 400) -> dict[str, Any]:
    return {"index": index, "status": status, "detail": message, "errors": {field: [message]}}


def _not_allowed(workflow_key: str) -> str:
    return f"this API key may not trigger workflow {workflow_key!r}"


def _workflow_known(request: Request, workflow_key: str) -> bool:
    """Whether the workflow exists for this API key (one limited to other workflows does not
    learn that it exists)."""
    workflows = api_key_of(request).limit_queryset(Workflow.objects.all(), "key")
    return workflows.filter(key=workflow_key).exists()


def _trigger_request(fields: dict[str, Any], idempotency_key: str) -> TriggerRequest:
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
    )


def _answer(
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
_TRIGGER_ID = "7b0c4f0e-2f5d-4a59-9a51-3c1e8d2f6a10"
_EXAMPLE_REQUEST = {
    "workflow": "billing.invoice_due",
    "idempotency_key": "invoice-1042-due",
    "payload": {"email": "ann@example.com", "name": "Ann", "amount": "42.00"},
    "cancellation_key": "invoice-1042",
}
TRIGGER_EXAMPLES = [
    OpenApiExample("a trigger", value=_EXAMPLE_REQUEST, request_only=True),
    OpenApiExample(
        "the key used with another payload",
        value={
            "detail": "idempotency key 'invoice-1042-due' was used with other parameters "
            f"(differing: payload) by trigger {_TRIGGER_ID}; nothing was changed. Send "
            "the same request again, or use a new key",
            "errors": {"idempotency_key": ["..."]},
            "existing_trigger_id": _TRIGGER_ID,
        },
        response_only=True,
        status_codes=["422"],
    ),
]
BULK_EXAMPLES = [
    OpenApiExample(
        "two triggers",
        value={
            "triggers": [
                _EXAMPLE_REQUEST,
                {**_EXAMPLE_REQUEST, "idempotency_key": "invoice-1043-due", "payload": []},
            ]
        },
        request_only=True,
    ),
    OpenApiExample(
        "one stored, one refused",
        value={
            "results": [
                {"index": 0, "status": 201, "trigger": {"id": _TRIGGER_ID, "status": "enqueued"}},
                {
                    "index": 1,
                    "status": 400,
                    "detail": "payload must be a JSON object",
                    "errors": {"payload": ["payload must be a JSON object"]},
                },
            ]
        },
        response_only=True,
        status_codes=["200"],
    ),
]
CANCEL_BY_KEY_EXAMPLES = [
    OpenApiExample(
        "an order's reminders",
        value={"cancellation_key": "invoice-1042", "workflow": "billing.invoice_due"},
        request_only=True,
    ),
    OpenApiExample(
        "two cancelled",
        value={"cancelled": 2, "ids": [_TRIGGER_ID, "0d3a2c5e-8f4b-4c1e-9a7d-2b6e5f4a3c21"]},
        response_only=True,
        status_codes=["200"],
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
        triggers = trigger_list(
            workflow_key=workflow_key,
            status=wanted,
            deleted=DELETED_FILTER[deleted],
            recipient=recipient,
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
            return _error(
                "idempotency_key", "the Idempotency-Key header and the body disagree", 400
            )
        if key is None:
            return _error("idempotency_key", "idempotency_key is required (body or header)", 400)
        if not api_key_of(request).allows_workflow(fields["workflow"]):
            return _error("workflow", _not_allowed(fields["workflow"]), 403)
        if "topic" in fields:
            return fanout_post(request, fields, key)
        if refused := exclude_without_topic(fields):
            return refused
        (outcome,) = triggers_create(
            [_trigger_request(fields, key)],
            actor=actor_of(request),
            key_workflows=api_key_of(request).workflows,
        )
        code, body = _answer(outcome, workflow_active_keys(api_key=api_key_of(request)))
        return Response(body, status=code)


class TriggerBulkItemSerializer(TriggerInputSerializer):
    # No header per item: the key is in the item.
    idempotency_key = IdempotencyKeyField(trim_whitespace=False)
    # A topic is triggered alone (POST /api/triggers/): not a field of an item.
    topic = None  # type: ignore[assignment]
    exclude = None  # type: ignore[assignment]


@extend_schema_field(TriggerBulkItemSerializer)
class BulkItemField(serializers.JSONField):
    """Any JSON here: each item is checked alone (TriggerBulkItemSerializer), and a bad one is
    that item's 400, not the request's."""


class TriggerBulkInputSerializer(StrictSerializer):
    triggers = serializers.ListField(
        # null too: a malformed item is that item's 400, whatever its JSON type.
        child=BulkItemField(allow_null=True),
        min_length=1,
        help_text="1 to NOTIFLOW_BULK_MAX [1000] trigger requests, each as POST /api/triggers/ "
        "takes it, with its idempotency_key in the item",
    )

    def validate_triggers(self, items: list[Any]) -> list[Any]:
        limit = settings.NOTIFLOW_BULK_MAX
        if len(items) > limit:
            raise ValidationError(
                f"at most {limit} triggers per request (NOTIFLOW_BULK_MAX); this one has "
                f"{len(items)}, and none was stored"
            )
        return items


# For the schema only (`errors` cannot be a field of a Serializer class: it is its property).
BULK_RESULT = inline_serializer(
    name="TriggerBulkResult",
    many=True,
    help_text="one per item, in request order",
    fields={
        "index": serializers.IntegerField(help_text="the item's place in `triggers`, from 0"),
        "status": serializers.IntegerField(
            help_text="what POST /api/triggers/ would have answered for the item alone: 201, "
            "200, 400, 403, 409, 422 or 503"
        ),
        "trigger": TriggerOutputSerializer(required=False, help_text="with 201 and 200"),
        "detail": serializers.CharField(required=False, help_text="with an error status"),
        "errors": serializers.DictField(required=False, help_text="field name -> messages"),
        "existing_trigger_id": serializers.UUIDField(
            required=False, help_text="with 422: the trigger that holds the idempotency key"
        ),
    },
)


class TriggerBulkOutputSerializer(serializers.Serializer):
    results = BULK_RESULT


class TriggerBulkApi(IntakeMetered, StrictQueryParameters, APIView):
    intake_endpoint = "bulk"
    api_scopes = {"POST": TRIGGER}
    workflow_limits = CHECKED

    @extend_schema(
        summary="Trigger many at once",
        request=TriggerBulkInputSerializer,
        responses={200: TriggerBulkOutputSerializer},
        examples=BULK_EXAMPLES,
        description=(
            "Many trigger requests in one: each item is decided as POST /api/triggers/ would "
            "decide it alone (validation, idempotency, status), independently of the others, in "
            "one statement for them all. The answer is 200 whatever the items' outcomes; a body "
            "that is not an object with 1 to NOTIFLOW_BULK_MAX items is a 400 and stores nothing."
        ),
    )
    def post(self, request: Request) -> Response:
        # Only a malformed envelope refuses the request (nothing is stored); each item is decided
        # alone, a malformed one (not an object, an unknown field) being its own 400.
        items = request_fields(request, TriggerBulkInputSerializer)["triggers"]
        api_key = api_key_of(request)
        results: list[dict[str, Any] | None] = []
        requests: list[tuple[int, TriggerRequest]] = []
        for index, item in enumerate(items):
            if not isinstance(item, dict):
                results.append(_item_error(index, "item", "each trigger must be a JSON object"))
                continue
            fields = TriggerBulkItemSerializer(data=item)
            if not fields.is_valid():
                results.append({"index": index, "status": 400, **invalid_input(fields.errors)})
                continue
            data = fields.validated_data
            if not api_key.allows_workflow(data["workflow"]):
                results.append(_item_error(index, "workflow", _not_allowed(data["workflow"]), 403))
                continue
            results.append(None)
            requests.append((index, _trigger_request(data, data["idempotency_key"])))
        outcomes = triggers_create(
            [r for _, r in requests], actor=actor_of(request), key_workflows=api_key.workflows
        )
        active_keys = workflow_active_keys(api_key=api_key_of(request))
        for (index, _request), outcome in zip(requests, outcomes, strict=True):
            code, answer = _answer(outcome, active_keys)
            shown = {"trigger": answer} if code < 300 else answer
            results[index] = {"index": index, "status": code, **shown}
        return Response({"results": results})


class TriggerCancelByKeyInputSerializer(StrictSerializer):
    cancellation_key = StrictCharField(
        min_length=1, max_length=MAX_CANCELLATION_KEY_LENGTH, trim_whitespace=False
    )
    workflow = StrictCharField(
        required=False, min_length=1, max_length=100, help_text="this workflow's triggers only"
    )


class TriggerCancelByKeyOutputSerializer(serializers.Serializer):
    cancelled = serializers.IntegerField(help_text="how many triggers this request cancelled")
    ids = serializers.ListField(child=serializers.UUIDField(), help_text="their ids")


class TriggerCancelByKeyApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(
        summary="Cancel triggers by cancellation key",
        request=TriggerCancelByKeyInputSerializer,
        responses={200: TriggerCancelByKeyOutputSerializer},
        examples=CANCEL_BY_KEY_EXAMPLES,
        operation_id="triggers_cancel_by_key",
        description=(
            "Cancel every trigger carrying `cancellation_key` that has not finished (and is not "
            "deleted), of `workflow` when given. None matching is not an error: "
            '`{"cancelled": 0, "ids": []}`; a `workflow` that does not exist (or is outside '
            "the API key's workflows) is a 400."
        ),
    )
    def post(self, request: Request) -> Response:
        fields = request_fields(request, TriggerCancelByKeyInputSerializer)
        workflow_key = fields.get("workflow")
        if workflow_key is not None and not _workflow_known(request, workflow_key):
            message = f"workflow {workflow_key!r} does not exist"
            return _error("workflow", message, 400)
        ids = triggers_cancel_by_key(
            cancellation_key=fields["cancellation_key"],
            workflow_key=workflow_key,
            # A key limited to workflows cancels their triggers only.
            workflow_keys=api_key_of(request).workflows or None,
            actor=actor_of(request),
            reason="cancelled via API by cancellation key",
        )
        return Response({"cancelled": len(ids), "ids": [str(i) for i in ids]})


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
