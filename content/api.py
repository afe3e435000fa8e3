"""Translation catalogs over the API (docs/translations.md): `GET /api/translations/`,
`GET/PUT/PATCH/DELETE /api/translations/<locale>/`, admin scope. Views parse and translate; the
rules are content/validation.py's, the writes content/services.py's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.urls import URLPattern, path
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_field,
    extend_schema_view,
)
from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from common.http import DRY_RUN_PARAMETER, StrictSerializer
from common.resource_api import ResourceListApi, VersionedResourceApi, versioned_resource_schema
from common.scopes import ADMIN, Refused
from content.models import TranslationCatalog
from content.services import catalog_delete, catalog_patch, catalog_put
from tenants.api import TENANT_PARAMETER, tenant_requested
from workflows.locales import LocaleInvalid, locale_canonical

# Catalogs are the operator's, and every workflow's: a key limited to some may not touch them
# (docs/security/keys.md, "Keys limited to workflows"); admin keys cannot be limited anyway.
CATALOG_LIMIT = Refused("read or change translation catalogs")


@extend_schema_field(
    {
        "type": "object",
        "additionalProperties": {},
        "description": "nested keys; each leaf a Liquid string or a plural object (keys among "
        "zero, one, two, few, many, other; `other` required)",
    }
)
class MessagesField(serializers.JSONField):
    """Any JSON to the serializer; content/validation.py says what a catalog may hold."""


class CatalogInputSerializer(StrictSerializer):
    messages = MessagesField()


class CatalogOutputSerializer(serializers.ModelSerializer):
    messages = MessagesField()

    class Meta:
        model = TranslationCatalog
        fields = ("locale", "tenant", "messages", "version", "updated_by", "updated_at")


LOCALE_PARAMETER = OpenApiParameter(
    "locale",
    {"type": "string", "maxLength": 35},
    OpenApiParameter.PATH,
    description="a BCP 47 tag Babel knows: fr, fr-CA, pt-BR (another: 400 naming `locale`)",
)
EXAMPLE = {
    "messages": {
        "welcome": {"subject": "Bienvenue, {{ name }}", "greeting": "Bonjour {{ name }} !"},
        "cart": {"items": {"one": "{{ count }} article", "other": "{{ count }} articles"}},
    }
}


def _locale(locale: str) -> str:
    """The path's locale, canonical; a 400 naming `locale` (not a 404) when it is not one."""
    try:
        return locale_canonical(locale)
    except LocaleInvalid as exc:
        raise ValidationError({"locale": [str(exc)]}) from exc


@extend_schema_view(get=extend_schema(summary="List translation catalogs"))
class CatalogListApi(ResourceListApi):
    workflow_limits = CATALOG_LIMIT
    serializer_class = CatalogOutputSerializer
    query_parameters = {"GET": [TENANT_PARAMETER]}

    def get_queryset(self) -> Any:
        # The shared catalogs, or a tenant's own (`?tenant=`).
        tenant = tenant_requested(self.request)
        return TranslationCatalog.objects.filter(tenant=tenant).order_by("locale")


@versioned_resource_schema(
    noun="a translation catalog",
    output=CatalogOutputSerializer,
    input=CatalogInputSerializer,
    parameters=[LOCALE_PARAMETER],
    example=OpenApiExample("French", value=EXAMPLE, request_only=True),
    put_description=(
        "201 created, 200 replaced, as a new version. A leaf that is neither a "
        "string nor a plural object, a plural object without `other`, a string that does not "
        "parse as Liquid, a key with a `.`: 400 naming its path (`messages.cart.items`); "
        "nothing is saved then. `?dry_run=true`: the same answer, nothing saved. "
        "`?tenant=<id>`: that tenant's own catalog of the locale, which its runs consult before "
        "the shared one."
    ),
    delete_description=(
        "204, recording a version without messages (its history stays); 404 "
        "unknown. Runs whose keys were only in it fail on them from then on."
    ),
)
class CatalogDetailApi(VersionedResourceApi):
    api_scopes = {"GET": ADMIN, "PUT": ADMIN, "PATCH": ADMIN, "DELETE": ADMIN}
    workflow_limits = CATALOG_LIMIT
    query_parameters = {
        "GET": [TENANT_PARAMETER],
        "PUT": [DRY_RUN_PARAMETER, TENANT_PARAMETER],
        "PATCH": [DRY_RUN_PARAMETER, TENANT_PARAMETER],
        "DELETE": [TENANT_PARAMETER],
    }
    resource_name = "translation catalog"
    lookup_url_kwarg = "locale"
    input_serializer = CatalogInputSerializer
    output_serializer = CatalogOutputSerializer

    def resource_lookup(self, key: str) -> dict[str, Any]:
        # An invalid locale is the 400 first, then an unknown `?tenant=`.
        return {"locale": _locale(key), "tenant": tenant_requested(self.request)}

    def resource_find(self, lookup: Mapping[str, Any]) -> TranslationCatalog | None:
        return TranslationCatalog.objects.filter(**lookup).first()

    def resource_put(
        self, lookup: Mapping[str, Any], fields: Mapping[str, Any], actor: str
    ) -> tuple[TranslationCatalog, bool]:
        return catalog_put(messages=fields["messages"], actor=actor, **lookup)

    def resource_delete(self, lookup: Mapping[str, Any], actor: str) -> bool:
        return catalog_delete(actor=actor, **lookup)

    @extend_schema(
        summary="Change keys of a translation catalog",
        request=CatalogInputSerializer,
        responses={201: CatalogOutputSerializer, 200: CatalogOutputSerializer},
        parameters=[LOCALE_PARAMETER],
        description="Merges `messages` key by key at every depth: a key given null is removed, "
        "a message replaces what was there; a new version. 201 when it creates the catalog. "
        "400 as PUT; `?dry_run=true` as PUT.",
    )
    def patch(self, request: Request, locale: str) -> Response:
        return self.written(
            request,
            locale,
            lambda lookup, fields, actor: catalog_patch(
                messages=fields["messages"], actor=actor, **lookup
            ),
        )


urlpatterns: list[URLPattern] = [
    path("translations/", CatalogListApi.as_view(), name="translation-list"),
    path("translations/<str:locale>/", CatalogDetailApi.as_view(), name="translation-detail"),
]
