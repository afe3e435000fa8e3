"""REST endpoints for webhook endpoints (docs/design/api.md, HTTP API, "Webhooks"): create, list,
read, change, delete, rotate the secret, list the attempts, send a test ping. The rules are in
events.services.endpoints; these views check JSON types and translate.

A secret is shown whole twice only: in the answer to the create and to rotate-secret. Every other
answer shows its hint (events.signing.secret_hint).
"""

from __future__ import annotations

import uuid

from django.db import transaction
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.actors import actor_of
from common.api_errors import not_found
from common.http import (
    NoFieldsSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import ADMIN
from events import catalog
from events.models import WebhookAttempt, WebhookEndpoint
from events.selectors import endpoint_attempt_list, endpoint_list
from events.services.endpoints import (
    MAX_DESCRIPTION_LENGTH,
    MAX_URL_LENGTH,
    EndpointInvalid,
    endpoint_create,
    endpoint_delete,
    endpoint_ping,
    endpoint_rotate_secret,
    endpoint_update,
)
from events.signing import secret_hint


class WebhookEndpointSerializer(serializers.ModelSerializer):
    enabled = serializers.BooleanField(
        read_only=True, help_text="false while disabled: its events wait, pending, until enabled"
    )
    secret_hint = serializers.SerializerMethodField(
        help_text="the secret's prefix and last four characters (the whole secret is shown only "
        "when it is made: on create and rotate-secret)"
    )

    class Meta:
        model = WebhookEndpoint
        fields = [
            "id",
            "url",
            "events",
            "workflows",
            "description",
            "enabled",
            "disabled_at",
            "disabled_reason",
            "failed_events",
            "secret_hint",
            "created_at",
            "updated_at",
        ]
        read_only_fields = fields

    def get_secret_hint(self, endpoint: WebhookEndpoint) -> str:
        return secret_hint(endpoint.secret)


class WebhookEndpointWithSecretSerializer(WebhookEndpointSerializer):
    """The answer to create and rotate-secret: the only ones with the whole secret."""

    secret = serializers.CharField(
        help_text="the Standard Webhooks signing secret, whsec_ + base64: shown in this answer "
        "only, keep it"
    )

    class Meta(WebhookEndpointSerializer.Meta):
        fields = [*WebhookEndpointSerializer.Meta.fields, "secret"]


# What an endpoint may subscribe to; events.services.endpoints refuses the rest (and an empty
# list) with its own message. The schema states it.
EVENTS_SCHEMA = {
    "type": "array",
    "items": {"type": "string", "enum": sorted(catalog.SUBSCRIBABLE)},
    "minItems": 1,
    "description": 'event names (trigger.completed, ...), or ["*"] for every event',
}


@extend_schema_field(EVENTS_SCHEMA)
class EventsField(serializers.ListField):
    child = StrictCharField()


class WebhookEndpointInputSerializer(StrictSerializer):
    url = StrictCharField(
        max_length=MAX_URL_LENGTH,
        help_text="http or https, no user:password; its host must resolve to public addresses "
        "only (unless NOTIFLOW_WEBHOOK_ALLOW_PRIVATE)",
    )
    events = EventsField()
    workflows = serializers.ListField(
        child=StrictCharField(),
        required=False,
        default=list,
        help_text="workflow keys whose events it gets; empty or absent: every workflow",
    )
    description = StrictCharField(
        required=False, allow_blank=True, max_length=MAX_DESCRIPTION_LENGTH, default=""
    )


class WebhookEndpointChangeSerializer(WebhookEndpointInputSerializer):
    """PATCH's body: any of the fields, and `enabled`."""

    enabled = StrictBooleanField(
        required=False,
        help_text="true enables a disabled endpoint and delivers the events it kept; "
        "false disables it (its events wait)",
    )


class WebhookAttemptSerializer(serializers.ModelSerializer):
    event_id = serializers.UUIDField(help_text="the CloudEvents id, also the webhook-id header")
    event_type = serializers.SerializerMethodField(help_text="the CloudEvents type")
    status_code = serializers.IntegerField(
        allow_null=True, help_text="the receiver's HTTP status; null when none came"
    )
    error = serializers.CharField(help_text="why it failed (no answer, refused address); or empty")
    state = serializers.CharField(
        help_text="`started` while its POST is under way (recorded before it), `finished` once "
        "its outcome is written (a worker that died mid-POST: finished as failed when the "
        "delivery is claimed again)"
    )

    class Meta:
        model = WebhookAttempt
        fields = [
            "id",
            "event_id",
            "event_type",
            "attempt",
            "state",
            "status_code",
            "error",
            "duration_ms",
            "created_at",
        ]
        read_only_fields = fields

    def get_event_type(self, attempt: WebhookAttempt) -> str:
        return catalog.cloud_type(attempt.event_type)


class WebhookPingSerializer(serializers.Serializer):
    event_id = serializers.UUIDField(help_text="the ping's CloudEvents id (its webhook-id)")
    type = serializers.CharField(help_text=catalog.cloud_type(catalog.PING))


def _invalid(exc: EndpointInvalid) -> ValidationError:
    """The service's {field: message} as the API's 400."""
    return ValidationError({name: [message] for name, message in exc.errors.items()})


def _locked(endpoint_id: uuid.UUID) -> WebhookEndpoint:
    """The endpoint, locked until the caller's transaction ends: a DELETE at the same moment
    either waits for the change or went first (404), never a change to a row that is gone."""
    endpoint = endpoint_list().select_for_update().filter(pk=endpoint_id).first()
    if endpoint is None:
        raise not_found("webhook endpoint", endpoint_id)
    return endpoint


class WebhookListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": ADMIN, "POST": ADMIN}
    serializer_class = WebhookEndpointSerializer

    def get_queryset(self):
        return endpoint_list()

    @extend_schema(summary="List webhook endpoints")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        summary="Create a webhook endpoint",
        request=WebhookEndpointInputSerializer,
        responses={201: WebhookEndpointWithSecretSerializer},
        description="A new endpoint with a new secret (in this answer only). It receives the "
        "events of changes that commit after it was created.",
    )
    def post(self, request: Request) -> Response:
        fields = request_fields(request, WebhookEndpointInputSerializer)
        try:
            endpoint = endpoint_create(**fields, actor=actor_of(request))
        except EndpointInvalid as exc:
            raise _invalid(exc) from exc
        return Response(
            WebhookEndpointWithSecretSerializer(endpoint).data, status=status.HTTP_201_CREATED
        )


class WebhookDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": ADMIN, "PATCH": ADMIN, "DELETE": ADMIN}

    @extend_schema(summary="Get a webhook endpoint", responses=WebhookEndpointSerializer)
    def get(self, request: Request, endpoint_id: uuid.UUID) -> Response:
        endpoint = endpoint_list().filter(pk=endpoint_id).first()
        if endpoint is None:
            raise not_found("webhook endpoint", endpoint_id)
        return Response(WebhookEndpointSerializer(endpoint).data)

    @extend_schema(
        summary="Change a webhook endpoint",
        request=WebhookEndpointChangeSerializer,
        responses=WebhookEndpointSerializer,
        description="Change what is given (the URL is checked again when it changes). "
        "`enabled: true` on a disabled endpoint delivers the events it kept, attempts afresh.",
    )
    def patch(self, request: Request, endpoint_id: uuid.UUID) -> Response:
        fields = request_fields(request, WebhookEndpointChangeSerializer, partial=True)
        with transaction.atomic():
            try:
                endpoint = endpoint_update(_locked(endpoint_id), **fields)
            except EndpointInvalid as exc:
                raise _invalid(exc) from exc
        return Response(WebhookEndpointSerializer(endpoint).data)

    @extend_schema(
        summary="Delete a webhook endpoint",
        responses={204: None},
        description="Delete the endpoint and its pending and past deliveries; its attempts stay "
        "in the log until retention.",
    )
    def delete(self, request: Request, endpoint_id: uuid.UUID) -> Response:
        request_fields(request, NoFieldsSerializer)
        with transaction.atomic():
            endpoint_delete(_locked(endpoint_id))
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookRotateSecretApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": ADMIN}

    @extend_schema(
        summary="Rotate a webhook endpoint's secret",
        request=None,
        responses=WebhookEndpointWithSecretSerializer,
        description="A new secret, at once: every request from now on is signed with it "
        "(also the retries of events sent before). Shown in this answer only.",
    )
    def post(self, request: Request, endpoint_id: uuid.UUID) -> Response:
        request_fields(request, NoFieldsSerializer)
        with transaction.atomic():
            endpoint = endpoint_rotate_secret(_locked(endpoint_id))
        return Response(WebhookEndpointWithSecretSerializer(endpoint).data)


class WebhookTestApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": ADMIN}

    @extend_schema(
        summary="Send a test ping to a webhook endpoint",
        request=None,
        responses={202: WebhookPingSerializer},
        description="Send a notiflow.ping event to this endpoint alone. It goes like any event "
        "(see its deliveries); to a disabled endpoint it waits until it is enabled.",
    )
    def post(self, request: Request, endpoint_id: uuid.UUID) -> Response:
        request_fields(request, NoFieldsSerializer)
        with transaction.atomic():
            event = endpoint_ping(_locked(endpoint_id))
        return Response(
            {"event_id": str(event.event_id), "type": catalog.cloud_type(event.type)},
            status=status.HTTP_202_ACCEPTED,
        )


class WebhookAttemptListApi(StrictQueryParameters, ListAPIView):
    """The endpoint's delivery attempts, newest first: one per POST, with its outcome."""

    api_scopes = {"GET": ADMIN}
    serializer_class = WebhookAttemptSerializer

    @extend_schema(summary="List a webhook endpoint's delivery attempts")
    def get(self, request: Request, *args, **kwargs) -> Response:
        return super().get(request, *args, **kwargs)

    def get_queryset(self):
        endpoint_id = self.kwargs["endpoint_id"]
        if not endpoint_list().filter(pk=endpoint_id).exists():
            raise not_found("webhook endpoint", endpoint_id)
        return endpoint_attempt_list(endpoint_id=endpoint_id)
