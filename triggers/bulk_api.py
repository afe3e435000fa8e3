"""Many triggers at once: POST /api/triggers/bulk/, many trigger requests in one, each decided as
POST /api/triggers/ decides it alone (triggers/api.py), in one intake statement for them all; and
POST /api/triggers/cancel/, every unfinished trigger carrying a cancellation key."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import (
    OpenApiExample,
    extend_schema,
    extend_schema_field,
    inline_serializer,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import invalid_input
from common.http import StrictCharField, StrictQueryParameters, StrictSerializer, request_fields
from common.scopes import CHECKED, FILTERED, TRIGGER, api_key_of
from triggers.api import (
    EXAMPLE_REQUEST,
    EXAMPLE_TRIGGER_ID,
    IdempotencyKeyField,
    IntakeMetered,
    TriggerInputSerializer,
    TriggerOutputSerializer,
    field_error,
    intake_answer,
    not_allowed,
    trigger_request,
)
from triggers.selectors import workflow_active_keys
from triggers.services import MAX_CANCELLATION_KEY_LENGTH, TriggerRequest, triggers_create
from triggers.state import triggers_cancel_by_key
from workflows.models import Workflow

BULK_EXAMPLES = [
    OpenApiExample(
        "two triggers",
        value={
            "triggers": [
                EXAMPLE_REQUEST,
                {**EXAMPLE_REQUEST, "idempotency_key": "invoice-1043-due", "payload": []},
            ]
        },
        request_only=True,
    ),
    OpenApiExample(
        "one stored, one refused",
        value={
            "results": [
                {
                    "index": 0,
                    "status": 201,
                    "trigger": {"id": EXAMPLE_TRIGGER_ID, "status": "enqueued"},
                },
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
        value={"cancelled": 2, "ids": [EXAMPLE_TRIGGER_ID, "0d3a2c5e-8f4b-4c1e-9a7d-2b6e5f4a3c21"]},
        response_only=True,
        status_codes=["200"],
    ),
]


def _workflow_known(request: Request, workflow_key: str) -> bool:
    """Whether the workflow exists for this API key (one limited to other workflows does not
    learn that it exists)."""
    workflows = api_key_of(request).limit_queryset(Workflow.objects.all(), "key")
    return workflows.filter(key=workflow_key).exists()


def _item_error(index: int, field: str, message: str, status: int = 400) -> dict[str, Any]:
    return {"index": index, "status": status, "detail": message, "errors": {field: [message]}}


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
                results.append(_item_error(index, "workflow", not_allowed(data["workflow"]), 403))
                continue
            results.append(None)
            requests.append((index, trigger_request(data, data["idempotency_key"])))
        outcomes = triggers_create(
            [r for _, r in requests], actor=actor_of(request), key_workflows=api_key.workflows
        )
        active_keys = workflow_active_keys(api_key=api_key_of(request))
        for (index, _request), outcome in zip(requests, outcomes, strict=True):
            code, answer = intake_answer(outcome, active_keys)
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
            return field_error("workflow", message, 400)
        ids = triggers_cancel_by_key(
            cancellation_key=fields["cancellation_key"],
            workflow_key=workflow_key,
            # A key limited to workflows cancels their triggers only.
            workflow_keys=api_key_of(request).workflows or None,
            actor=actor_of(request),
            reason="cancelled via API by cancellation key",
        )
        return Response({"cancelled": len(ids), "ids": [str(i) for i in ids]})
