"""Tenants over the API (docs/tenants.md): `GET /api/tenants/`, `GET/PUT/DELETE
/api/tenants/<id>/`, admin scope: tenants are the installation's, not a workflow's. Views parse
and translate; the rules are tenants/validation.py's, the writes tenants/services.py's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import URLPattern, path
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request

from common.http import StrictCharField, StrictSerializer
from common.resource_api import ResourceListApi, VersionedResourceApi, versioned_resource_schema
from common.scopes import Refused
from tenants.models import LAYOUT_KEY_MAX_LENGTH, LOCALE_MAX_LENGTH, TENANT_ID_MAX_LENGTH, Tenant
from tenants.selectors import tenant_problem
from tenants.services import tenant_delete, tenant_put

# Tenants are the installation's, shared by every workflow: a key limited to some may not read
# or change them (docs/security/keys.md, "Keys limited to workflows"); it may still name one in a
# trigger of its workflows.
TENANT_LIMIT = Refused("read or change tenants")


class TenantInputSerializer(StrictSerializer):
    name = StrictCharField(max_length=255, help_text="what templates read as `tenant.name`")
    properties = serializers.DictField(
        required=False,
        default=dict,
        help_text="any JSON object: templates read `tenant.properties.logo_url`",
    )
    default_locale = StrictCharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=LOCALE_MAX_LENGTH,
        help_text="a BCP 47 tag: before the workflow's default in its runs' locale chain",
    )
    layout = StrictCharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=LAYOUT_KEY_MAX_LENGTH,
        help_text="a layout's key: its runs' emails' layout, before the workflow's",
    )
    preferences = serializers.JSONField(
        required=False,
        default=dict,
        help_text="category defaults: {category: {channel: true|false}}, between a person's own "
        "preferences and the category's defaults",
    )


class TenantOutputSerializer(serializers.ModelSerializer):
    properties = serializers.DictField()
    preferences = serializers.DictField()

    class Meta:
        model = Tenant
        fields = (
            "id",
            "name",
            "properties",
            "default_locale",
            "layout",
            "preferences",
            "created_at",
            "updated_at",
            "updated_by",
        )


TENANT_ID_PARAMETER = OpenApiParameter(
    "tenant_id",
    {"type": "string", "maxLength": TENANT_ID_MAX_LENGTH},
    OpenApiParameter.PATH,
    description="letters, digits, `.`, `_`, `-` (another: 400 naming `id`)",
)
EXAMPLE = {
    "name": "Acme Corp",
    "properties": {"logo_url": "https://acme.example/logo.png", "color": "#ff5500"},
    "default_locale": "fr",
    "preferences": {"product-updates": {"email": False}},
}


@extend_schema_view(get=extend_schema(summary="List tenants"))
class TenantListApi(ResourceListApi):
    workflow_limits = TENANT_LIMIT
    serializer_class = TenantOutputSerializer
    queryset = Tenant.objects.order_by("id")


@versioned_resource_schema(
    noun="a tenant",
    output=TenantOutputSerializer,
    input=TenantInputSerializer,
    parameters=[TENANT_ID_PARAMETER],
    example=OpenApiExample("Acme", value=EXAMPLE, request_only=True),
    put_description=(
        "201 created, 200 replaced: every field is set, those left out emptied. An "
        "invalid id, locale or layout key, a category no operator made, a channel nobody "
        "registered or a default not true/false: 400 naming its path "
        "(`preferences.comments.pigeon`); nothing is saved then. `?dry_run=true`: the same "
        "answer, nothing saved."
    ),
    delete_description=(
        "204, with its catalog overrides and people's preferences for it; its runs "
        "keep its id (a run still going reads it as an empty tenant). 404 unknown."
    ),
)
class TenantDetailApi(VersionedResourceApi):
    workflow_limits = TENANT_LIMIT
    resource_name = "tenant"
    lookup_url_kwarg = "tenant_id"
    input_serializer = TenantInputSerializer
    output_serializer = TenantOutputSerializer

    def resource_lookup(self, key: str) -> dict[str, Any]:
        return {"tenant_id": key}  # its rules are tenant_put's, a 400 naming `id`

    def resource_find(self, lookup: Mapping[str, Any]) -> Tenant | None:
        return Tenant.objects.filter(id=lookup["tenant_id"]).first()

    def resource_put(
        self, lookup: Mapping[str, Any], fields: Mapping[str, Any], actor: str
    ) -> tuple[Tenant, bool]:
        return tenant_put(fields=fields, actor=actor, **lookup)

    def resource_delete(self, lookup: Mapping[str, Any], actor: str) -> bool:
        return tenant_delete(actor=actor, **lookup) is not None


urlpatterns: list[URLPattern] = [
    path("tenants/", TenantListApi.as_view(), name="tenant-list"),
    path("tenants/<str:tenant_id>/", TenantDetailApi.as_view(), name="tenant-detail"),
]


# `?tenant=<id>` on the endpoints that keep something per tenant (a person's preferences, a
# translation catalog): what they read or write is that tenant's.
TENANT_PARAMETER = OpenApiParameter(
    "tenant",
    {"type": "string", "minLength": 1, "maxLength": TENANT_ID_MAX_LENGTH},
    description="a tenant's id: its own, kept beside the shared one (docs/tenants.md); an "
    "unknown one is a 400 naming `tenant`",
)


def tenant_requested(request: Request) -> str:
    """The request's `?tenant=`, a tenant that exists, or "" when not given; a 400 naming
    `tenant` otherwise."""
    tenant = request.query_params.get(TENANT_PARAMETER.name)
    if tenant is None:
        return ""
    if problem := tenant_problem(tenant):
        raise ValidationError({"tenant": [problem]})
    return tenant
