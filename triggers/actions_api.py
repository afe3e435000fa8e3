"""Bulk actions over the API (docs/bulk-actions.md): `POST /api/triggers/actions/` (a dry run, or
an action handed to the workers) and `GET /api/trigger-actions/<id>/`. The rules are in
triggers/actions.py. Both need the `admin` scope: an action spans workflows, so a key limited to
some is refused (403) rather than trusted to name only its own runs."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import found_or_404
from common.http import (
    StrictBooleanField,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import ADMIN
from recipients.models import KEY_MAX_LENGTH
from triggers.actions import (
    IDS_MAX,
    SAMPLE_SIZE,
    ActionKeyReused,
    ActionTooBig,
    action_filter_of,
    action_preview,
    action_start,
)
from triggers.api import TriggerOutputSerializer
from triggers.models import TriggerAction, TriggerActionKind, TriggerStatus
from triggers.representation import trigger_json
from workflows.models import Workflow

EXAMPLE_ACTION_ID = "6f1c2b9e-3d4a-4e5f-8a7b-1c2d3e4f5a6b"
EXAMPLES = [
    OpenApiExample(
        "retry yesterday's SMTP failures",
        value={
            "action": "retry",
            "filter": {
                "workflow": "billing.invoice_due",
                "created_after": "2026-11-27T00:00:00Z",
                "error_contains": "smtp",
            },
            "dry_run": False,
            "idempotency_key": "retry-smtp-outage-2026-11-27",
        },
        request_only=True,
    ),
]


class StrictUUIDField(serializers.UUIDField):
    """A UUID written as a string only (DRF's own takes an integer as one)."""

    def to_internal_value(self, data: Any) -> uuid.UUID:
        if not isinstance(data, str):
            self.fail("invalid", value=data)
        return super().to_internal_value(data)


class ActionFilterSerializer(StrictSerializer):
    workflow = StrictCharField(
        required=False, min_length=1, max_length=100, help_text="a workflow's key"
    )
    status = serializers.ListField(
        child=serializers.ChoiceField(choices=TriggerStatus.choices),
        required=False,
        min_length=1,
        help_text="the runs' statuses, any of them",
    )
    created_after = serializers.DateTimeField(
        required=False, help_text="runs created at or after this moment (ISO 8601)"
    )
    created_before = serializers.DateTimeField(
        required=False, help_text="runs created before this moment (ISO 8601)"
    )
    node = StrictCharField(
        required=False, min_length=1, max_length=100, help_text="the run's current node"
    )
    error_contains = StrictCharField(
        required=False,
        min_length=1,
        max_length=1000,
        trim_whitespace=False,
        help_text="text in the run's last error, in any case",
    )
    recipient = StrictCharField(
        required=False, min_length=1, max_length=KEY_MAX_LENGTH, help_text="a recipient's id"
    )
    ids = serializers.ListField(
        child=StrictUUIDField(),
        required=False,
        min_length=1,
        max_length=IDS_MAX,
        help_text=f"these runs, at most {IDS_MAX}",
    )

    def validate_workflow(self, key: str) -> str:
        if not Workflow.objects.filter(key=key).exists():
            raise ValidationError(f"no workflow {key!r}")
        return key

    def to_internal_value(self, data: Any) -> Any:
        # Named as `filter`, not as DRF's `filter.non_field_errors`.
        if not isinstance(data, dict):
            raise ValidationError(["must be a JSON object"])
        if not data:
            raise ValidationError(
                [
                    "give at least one of: " + ", ".join(self.fields) + " (an action on every "
                    "run is not offered)"
                ]
            )
        return super().to_internal_value(data)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        after, before = attrs.get("created_after"), attrs.get("created_before")
        if after is not None and before is not None and after >= before:
            raise ValidationError({"created_before": ["must be later than created_after"]})
        return attrs


class ActionInputSerializer(StrictSerializer):
    action = serializers.ChoiceField(
        choices=TriggerActionKind.choices,
        help_text="cancel: unfinished runs; retry: failed runs, from the node that failed; "
        "replay: a new run of the same version, payload and recipient",
    )
    filter = ActionFilterSerializer(help_text="which runs: every field given must hold")
    dry_run = StrictBooleanField(
        required=False, default=False, help_text="true: count them and show some, change nothing"
    )
    idempotency_key = StrictCharField(
        required=False,
        min_length=1,
        max_length=255,
        trim_whitespace=False,
        help_text="the same key answers the same action, starting nothing",
    )


class ActionDryRunSerializer(serializers.Serializer):
    matched = serializers.IntegerField(help_text="the runs the action would act on now")
    sample = TriggerOutputSerializer(many=True, help_text=f"up to {SAMPLE_SIZE}, newest first")


class ActionOutputSerializer(serializers.ModelSerializer):
    action_id = serializers.UUIDField(source="id")
    filter = serializers.JSONField()
    matched = serializers.IntegerField(help_text="the runs matched when it was asked")
    done = serializers.IntegerField(help_text="acted on so far")
    skipped = serializers.IntegerField(
        help_text="that no longer matched when reached (finished meanwhile, say)"
    )
    # A field named as Serializer's `errors` property: DRF's metaclass takes the declared field
    # out of the class, so the property stays (mypy sees only the names).
    errors = serializers.IntegerField(help_text="that could not be acted on")  # type: ignore[assignment]
    error_sample = serializers.ListField(
        child=serializers.DictField(), help_text="the first errors: {run, error}"
    )

    class Meta:
        model = TriggerAction
        fields = [
            "action_id",
            "action",
            "filter",
            "status",
            "matched",
            "done",
            "skipped",
            "errors",
            "error_sample",
            "last_error",
            "requested_by",
            "idempotency_key",
            "created_at",
            "updated_at",
            "finished_at",
        ]


def _error(field: str, message: str, code: int, **extra: Any) -> Response:
    return Response({"detail": message, "errors": {field: [message]}, **extra}, status=code)


class TriggerActionApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": ADMIN}

    @extend_schema(
        summary="Cancel, retry or replay runs in bulk",
        request=ActionInputSerializer,
        responses={
            200: ActionDryRunSerializer,
            202: ActionOutputSerializer,
            422: None,
        },
        examples=EXAMPLES,
        operation_id="triggers_actions",
        description=(
            "Every run `filter` matches (at least one field; deleted runs never), among those "
            "the action applies to: `cancel` unfinished runs, `retry` failed ones from the node "
            "that failed, `replay` any run as a new run of the same workflow version, payload "
            "and recipient (keyed `replay:<action_id>:<run id>`, so never twice). "
            "`dry_run: true` answers 200 with `matched` and a `sample` and changes nothing; "
            "otherwise 202 with the action, which the workers carry out in chunks (follow it at "
            "GET /api/trigger-actions/<id>/). More than NOTIFLOW_ACTION_MAX matches is a 400 "
            "saying how many. The same `idempotency_key` answers 202 with the same action as it "
            "is now, starting nothing; with another action or filter, 422. Scope: admin."
        ),
    )
    def post(self, request: Request) -> Response:
        fields = request_fields(request, ActionInputSerializer)
        kind, run_filter = fields["action"], action_filter_of(fields["filter"])
        try:
            if fields["dry_run"]:
                matched, sample = action_preview(kind, run_filter)
                return Response(
                    {"matched": matched, "sample": [trigger_json(run) for run in sample]}
                )
            action, _ = action_start(
                kind=kind,
                run_filter=run_filter,
                actor=actor_of(request),
                idempotency_key=fields.get("idempotency_key", ""),
            )
        except ActionTooBig as exc:
            return _error("filter", str(exc), 400, matched=exc.matched)
        except ActionKeyReused as exc:
            return _error("idempotency_key", str(exc), 422, existing_action_id=str(exc.existing.pk))
        # A repeat answers the stored action as it is now, also 202 (200 is the dry run's).
        return Response(ActionOutputSerializer(action).data, status=status.HTTP_202_ACCEPTED)


class TriggerActionDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": ADMIN}

    @extend_schema(
        summary="Get a bulk action",
        responses=ActionOutputSerializer,
        description="A bulk action and its outcome so far: `status` running, done or failed; "
        "`matched`, and of them `done`, `skipped` (no longer matching when reached) and "
        "`errors`. Scope: admin.",
    )
    def get(self, request: Request, action_id: str) -> Response:
        action = found_or_404(TriggerAction, "bulk action", pk=action_id)
        return Response(ActionOutputSerializer(action).data)
