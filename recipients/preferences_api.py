"""A person's preferences over the API (docs/design/recipients.md, "Preferences"):
`GET/PUT/PATCH /api/recipients/<id>/preferences/`. Views parse and translate; the rules are in
recipients/preferences.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import URLPattern, path
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import found_or_404, not_found
from common.http import (
    StrictBooleanField,
    StrictQueryParameters,
    StrictSerializer,
    request_fields,
)
from common.scopes import TRIGGER, Refused
from recipients.models import KEY_MAX_LENGTH, Recipient
from recipients.preferences import (
    PREFERENCE_KEYS,
    preferences_merge,
    preferences_problems,
    preferences_replace,
    preferences_shown,
    tenant_preferences_merge,
    tenant_preferences_of,
    tenant_preferences_replace,
)
from tenants.api import TENANT_PARAMETER, tenant_requested


# The body and the answer. The checks are preferences_problems' (each problem named by its
# path, `categories.comments.email`); the fields are the schema's picture of them.
class PreferencesSerializer(StrictSerializer):
    def to_internal_value(self, data: Any) -> dict[str, Any]:
        problems = preferences_problems(data)
        if problems:
            raise ValidationError(problems)
        return preferences_shown(data)

    channels = serializers.DictField(
        child=StrictBooleanField(),
        required=False,
        help_text='channel -> on or off, for every category and workflow (`{"sms": false}`)',
    )
    categories = serializers.DictField(
        child=serializers.JSONField(),
        required=False,
        help_text="category slug -> on or off as a whole (`false`), or per channel "
        '(`{"email": false}`); a category is one an operator made (admin, Categories)',
    )
    workflows = serializers.DictField(
        child=StrictBooleanField(),
        required=False,
        help_text="workflow key -> on or off; the most specific preference",
    )


class PreferencesPatchSerializer(PreferencesSerializer):
    """PATCH's body: the keys to change in each object; a key given null is removed."""

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        problems = preferences_problems(_without_nulls(data))
        if problems:
            raise ValidationError(problems)
        return {key: dict(data[key]) for key in PREFERENCE_KEYS if key in data}

    channels = serializers.DictField(
        child=StrictBooleanField(allow_null=True),
        required=False,
        help_text="channel -> on or off; null removes it",
    )
    categories = serializers.DictField(
        child=serializers.JSONField(allow_null=True),
        required=False,
        help_text="category slug -> on or off, or per channel (replacing what the category "
        "said); null removes it",
    )
    workflows = serializers.DictField(
        child=StrictBooleanField(allow_null=True),
        required=False,
        help_text="workflow key -> on or off; null removes it",
    )


def _without_nulls(data: Any) -> Any:
    """The body as preferences_problems checks it: a null (a removal) is always allowed."""
    if not isinstance(data, Mapping):
        return data
    return {
        key: {k: v for k, v in value.items() if v is not None}
        if isinstance(value, Mapping)
        else value
        for key, value in data.items()
    }


RECIPIENT_PARAMETER = OpenApiParameter(
    "recipient_id",
    {"type": "string", "minLength": 1, "maxLength": KEY_MAX_LENGTH},
    OpenApiParameter.PATH,
    description="the client system's own user id",
)
EXAMPLE = OpenApiExample(
    "turn some things off",
    value={
        "channels": {"sms": False},
        "categories": {"comments": {"email": False}},
        "workflows": {"weekly-digest": False},
    },
)


class RecipientPreferencesApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": TRIGGER, "PUT": TRIGGER, "PATCH": TRIGGER}
    workflow_limits = Refused("read or change recipients' preferences")
    # `?tenant=<id>`: the person's preferences for that tenant's messages (docs/tenants.md).
    query_parameters = {
        "GET": [TENANT_PARAMETER],
        "PUT": [TENANT_PARAMETER],
        "PATCH": [TENANT_PARAMETER],
    }

    @extend_schema(
        summary="Get a recipient's preferences",
        responses=PreferencesSerializer,
        parameters=[RECIPIENT_PARAMETER],
    )
    def get(self, request: Request, recipient_id: str) -> Response:
        recipient = found_or_404(Recipient, "recipient", key=recipient_id)
        if tenant := tenant_requested(request):
            return Response(tenant_preferences_of(recipient, tenant))
        return Response(preferences_shown(recipient.preferences or {}))

    @extend_schema(
        summary="Replace a recipient's preferences",
        description="Resolution, most specific first: the workflow, then its category per "
        "channel, then the category as a whole, then the channel; then the category's defaults "
        "(admin). A required workflow ignores them all. A send turned off is skipped, not failed. "
        "`?tenant=<id>`: the person's preferences for that tenant's messages, asked before their "
        "own for its runs, which are asked before the tenant's category defaults.",
        request=PreferencesSerializer,
        responses=PreferencesSerializer,
        parameters=[RECIPIENT_PARAMETER],
        examples=[EXAMPLE],
    )
    def put(self, request: Request, recipient_id: str) -> Response:
        recipient = found_or_404(Recipient, "recipient", key=recipient_id)
        tenant = tenant_requested(request)
        preferences = request_fields(request, PreferencesSerializer)
        if tenant:
            return Response(tenant_preferences_replace(recipient, tenant, preferences))
        recipient = preferences_replace(recipient, preferences)
        return Response(preferences_shown(recipient.preferences))

    @extend_schema(
        summary="Change some of a recipient's preferences",
        description="Merges as a recipient's PATCH does: in each of `channels`, `categories` "
        "and `workflows`, a key given changes (a category's value replaces the category's), a "
        "key given null is removed, the rest stay.",
        request=PreferencesPatchSerializer,
        responses=PreferencesSerializer,
        parameters=[RECIPIENT_PARAMETER],
    )
    def patch(self, request: Request, recipient_id: str) -> Response:
        recipient = found_or_404(Recipient, "recipient", key=recipient_id)
        tenant = tenant_requested(request)
        changes = request_fields(request, PreferencesPatchSerializer)
        try:
            if tenant:
                return Response(tenant_preferences_merge(recipient, tenant, changes))
            recipient = preferences_merge(recipient, changes)
        except Recipient.DoesNotExist as exc:  # erased between the read and the lock
            raise not_found("recipient", recipient_id) from exc
        return Response(preferences_shown(recipient.preferences))


urlpatterns: list[URLPattern] = [
    path(
        "recipients/<str:recipient_id>/preferences/",
        RecipientPreferencesApi.as_view(),
        name="recipient-preferences",
    ),
]
