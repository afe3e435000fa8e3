"""A person's push addresses one at a time (docs/design/recipients.md, "Recipients"):
`POST/DELETE /api/recipients/<id>/channels/<channel>/` with `{"address": ...}`. Views parse and
translate; the rules are in recipients/channels.py."""

from __future__ import annotations

from typing import Any

from django.urls import URLPattern, path
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import not_found
from common.http import StrictQueryParameters, StrictSerializer, request_fields
from common.scopes import TRIGGER, Refused
from recipients.channels import (
    Added,
    address_channels,
    address_problem,
    channel_address_add,
    channel_address_remove,
    channel_problem,
)
from recipients.preferences_api import RECIPIENT_PARAMETER
from recipients.validation import key_problem


class AddressSerializer(StrictSerializer):
    address = serializers.JSONField(
        help_text="`webpush`: a browser's PushSubscription JSON (`endpoint`, `keys.p256dh`, "
        "`keys.auth`), known by its endpoint; `fcm`: a device token (a string)"
    )


class ChannelAddressSerializer(serializers.Serializer):
    id = serializers.CharField()
    channel = serializers.CharField()
    address = serializers.JSONField()


CHANNEL_PARAMETER = OpenApiParameter(
    "channel",
    {"type": "string", "enum": list(address_channels())},
    OpenApiParameter.PATH,
    description="the `channels` key holding a list of addresses",
)
EXAMPLES = [
    OpenApiExample("a device token", value={"address": "fcm-token-of-the-phone"}),
    OpenApiExample(
        "a browser subscription",
        value={
            "address": {
                "endpoint": "https://push.example.net/send/abc",
                "keys": {"p256dh": "BNc...", "auth": "tBH..."},
            }
        },
    ),
]


def _checked(request: Request, key: str, channel: str) -> Any:
    """The body's address, checked with the URL's id and channel: a 400 naming each wrong one."""
    errors: dict[str, list[str]] = {}
    if problem := key_problem(key):
        errors["id"] = [problem]
    if problem := channel_problem(channel):
        errors["channel"] = [problem]
    address = request_fields(request, AddressSerializer)["address"]
    if "channel" not in errors and (problem := address_problem(channel, address)):
        errors["address"] = [problem]
    if errors:
        raise ValidationError(errors)
    return address


class RecipientChannelAddressApi(StrictQueryParameters, APIView):
    api_scopes = {"POST": TRIGGER, "DELETE": TRIGGER}
    # A person's devices belong to no workflow (docs/security/keys.md, "Keys limited to workflows").
    workflow_limits = Refused("change recipients' push addresses")

    @extend_schema(
        summary="Add a push address to a recipient",
        request=AddressSerializer,
        responses={201: ChannelAddressSerializer, 200: ChannelAddressSerializer, 404: None},
        parameters=[RECIPIENT_PARAMETER, CHANNEL_PARAMETER],
        examples=EXAMPLES,
        description="Appends the address to `channels.<channel>` in one statement, so that two "
        "devices registering at once both stay. 201 added; 200 when it was there already, or "
        "replaced a subscription with the same endpoint (a browser that subscribed again). "
        "404 unknown recipient; 400 naming `channel` or `address` when the worker could not "
        "send to it.",
    )
    def post(self, request: Request, recipient_id: str, channel: str) -> Response:
        address = _checked(request, recipient_id, channel)
        added = channel_address_add(key=recipient_id, channel=channel, address=address)
        if added is None:
            raise not_found("recipient", recipient_id)
        body = {"id": recipient_id, "channel": channel, "address": address}
        code = status.HTTP_201_CREATED if added is Added.NEW else status.HTTP_200_OK
        return Response(ChannelAddressSerializer(body).data, status=code)

    @extend_schema(
        summary="Remove a push address from a recipient",
        request=AddressSerializer,
        responses={204: None, 404: None},
        parameters=[RECIPIENT_PARAMETER, CHANNEL_PARAMETER],
        examples=EXAMPLES,
        description="Removes the address (a subscription by its endpoint) from "
        "`channels.<channel>` in one statement. 204 whether it was there or not (a device "
        "unregistering twice is not an error); 404 unknown recipient.",
    )
    def delete(self, request: Request, recipient_id: str, channel: str) -> Response:
        address = _checked(request, recipient_id, channel)
        if channel_address_remove(key=recipient_id, channel=channel, address=address) is None:
            raise not_found("recipient", recipient_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


# The body of DELETE, which drf-spectacular does not document for a DELETE
# (notiflow.openapi.add_delete_bodies adds it).
ADDRESS_DELETE_PATH = "/api/recipients/{recipient_id}/channels/{channel}/"
ADDRESS_BODY_SCHEMA = {
    "type": "object",
    "properties": {"address": {"description": AddressSerializer().fields["address"].help_text}},
    "required": ["address"],
}

urlpatterns: list[URLPattern] = [
    path(
        "recipients/<str:recipient_id>/channels/<str:channel>/",
        RecipientChannelAddressApi.as_view(),
        name="recipient-channel-address",
    ),
]
