"""REST endpoints of deliveries (docs/design/api.md, HTTP API): the suppression list, and what providers
reported about a trigger's messages. Views parse and translate; the rules are in the services."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import QuerySet
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import found_or_404
from common.http import (
    NoFieldsSerializer,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import ADMIN, FILTERED, TRIGGER, api_key_of
from deliveries.models import (
    SHOWN_FIELDS,
    DeliveryEvent,
    Suppression,
    SuppressionReason,
    SuppressionScope,
)
from deliveries.selectors import delivery_event_list
from deliveries.suppression import recipient_checked, suppression_add
from triggers.models import TriggerInstance
from workflows.channels import suppressible_channels


class DeliveryEventSerializer(serializers.ModelSerializer):
    class Meta:
        model = DeliveryEvent
        fields = list(SHOWN_FIELDS)


class TriggerDeliveriesApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER}
    workflow_limits = FILTERED

    @extend_schema(
        summary="List what providers reported about a trigger's messages",
        responses=DeliveryEventSerializer(many=True),
        description="What the providers reported about the trigger's messages (delivered, "
        "bounced, opened...), oldest first.",
    )
    def get(self, request: Request, trigger_id: uuid.UUID) -> Response:
        triggers = api_key_of(request).limit_queryset(TriggerInstance.objects.only("id"))
        found_or_404(triggers, "trigger", pk=trigger_id)
        rows = delivery_event_list(trigger_id=trigger_id)
        return Response(DeliveryEventSerializer(rows, many=True).data)


class SuppressionSerializer(serializers.ModelSerializer):
    class Meta:
        model = Suppression
        fields = ["id", "channel", "recipient", "scope", "reason", "source", "created_at"]


class SuppressionInputSerializer(StrictSerializer):
    # The channels the list may hold (workflows.channels), asked when the serializer is made.
    channel = serializers.ChoiceField(choices=[])
    recipient = StrictCharField(
        min_length=1,
        max_length=320,
        help_text="an email address, a phone number in E.164 form (+15550100), or for webpush "
        "and push a recipient's key",
    )
    scope = serializers.ChoiceField(
        choices=SuppressionScope.choices,
        default=SuppressionScope.ALL,
        help_text="all: no message of the channel; marketing: no message of a marketing workflow",
    )
    reason = serializers.ChoiceField(choices=SuppressionReason.choices, default="manual")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        channel = self.fields["channel"]
        assert isinstance(channel, serializers.ChoiceField)
        channel.choices = suppressible_channels()

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        try:
            attrs["recipient"] = recipient_checked(
                channel=attrs["channel"], recipient=attrs["recipient"]
            )
        except ValueError as exc:
            raise ValidationError({"recipient": [str(exc)]}) from exc
        return attrs


FILTERS = [
    OpenApiParameter("channel", str, enum=suppressible_channels()),
    OpenApiParameter("recipient", str, description="exact, as stored (email in lower case)"),
    OpenApiParameter("scope", str, enum=list(SuppressionScope.values)),
    OpenApiParameter("reason", str, enum=list(SuppressionReason.values)),
]


class SuppressionListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": ADMIN, "POST": ADMIN}
    serializer_class = SuppressionSerializer
    query_parameters = {"GET": FILTERS}  # the list's; POST takes none

    def get_queryset(self) -> QuerySet[Suppression]:
        rows = Suppression.objects.all()
        params = self.request.query_params
        for name, allowed in (
            ("channel", suppressible_channels()),
            ("scope", SuppressionScope.values),
            ("reason", SuppressionReason.values),
        ):
            value = params.get(name)
            if value is not None and value not in allowed:
                raise ValidationError({name: [f"must be one of {', '.join(allowed)}"]})
            if value:
                rows = rows.filter(**{name: value})
        if recipient := params.get("recipient"):
            rows = rows.filter(
                recipient=recipient.strip().lower() if "@" in recipient else recipient
            )
        return rows

    @extend_schema(summary="List suppressed recipients")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Suppress a recipient",
        request=SuppressionInputSerializer,
        responses={201: SuppressionSerializer, 200: SuppressionSerializer},
        description="Suppress a recipient: 201 with the new entry, 200 with the one already "
        "there (unchanged).",
        examples=[
            OpenApiExample(
                "an address",
                value={"channel": "email", "recipient": "ada@example.com", "scope": "all"},
                request_only=True,
            )
        ],
    )
    def post(self, request: Request) -> Response:
        fields = request_fields(request, SuppressionInputSerializer)
        row, created = suppression_add(**fields, source=actor_of(request))
        answer = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(SuppressionSerializer(row).data, status=answer)


class SuppressionDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": ADMIN, "DELETE": ADMIN}

    @extend_schema(summary="Get a suppression", responses=SuppressionSerializer)
    def get(self, request: Request, suppression_id: int) -> Response:
        row = found_or_404(Suppression, "suppression", pk=suppression_id)
        return Response(SuppressionSerializer(row).data)

    @extend_schema(summary="Remove a suppression", responses={204: None})
    def delete(self, request: Request, suppression_id: int) -> Response:
        """Remove the entry: the recipient may be sent to again (in its scope)."""
        request_fields(request, NoFieldsSerializer)
        found_or_404(Suppression, "suppression", pk=suppression_id).delete()
        return Response(status=status.HTTP_204_NO_CONTENT)
