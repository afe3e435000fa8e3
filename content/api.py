"""Translation catalogs over the API (docs/translations.md): `GET /api/translations/`,
`GET/PUT/PATCH/DELETE /api/translations/<locale>/`, admin scope. Views parse and translate; the
rules are content/validation.py's, the writes content/services.py's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.urls import URLPattern, path
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
from common.api_errors import not_found
from common.http import (
    DRY_RUN_PARAMETER,
    NoFieldsSerializer,
    StrictQueryParameters,
    StrictSerializer,
    dry_run_requested,
    request_fields,
)
from common.scopes import ADMIN, Refused
from content.models import TranslationCatalog
from content.services import CatalogInvalid, catalog_delete, catalog_patch, catalog_put
from workflows.locales import LocaleInvalid, locale_canonical

# Catalogs are the operator's, and every workflow's: a key limited to some may not touch them
# (docs/security.md, "Keys limited to workflows"); admin keys cannot be limited anyway.
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
        fields = ("locale", "messages", "version", "updated_by", "updated_at")


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


def _invalid(exc: CatalogInvalid) -> ValidationError:
    return ValidationError(exc.problems)


class CatalogListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": ADMIN}
    workflow_limits = CATALOG_LIMIT
    serializer_class = CatalogOutputSerializer
    queryset = TranslationCatalog.objects.order_by("locale")

    @extend_schema(summary="List translation catalogs")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class CatalogDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": ADMIN, "PUT": ADMIN, "PATCH": ADMIN, "DELETE": ADMIN}
    workflow_limits = CATALOG_LIMIT
    query_parameters = {"PUT": [DRY_RUN_PARAMETER], "PATCH": [DRY_RUN_PARAMETER]}

    @extend_schema(
        summary="Get a translation catalog",
        responses=CatalogOutputSerializer,
        parameters=[LOCALE_PARAMETER],
    )
    def get(self, request: Request, locale: str) -> Response:
        catalog = TranslationCatalog.objects.filter(locale=_locale(locale)).first()
        if catalog is None:
            raise not_found("translation catalog", locale)
        return Response(CatalogOutputSerializer(catalog).data)

    @extend_schema(
        summary="Create or replace a translation catalog",
        request=CatalogInputSerializer,
        responses={201: CatalogOutputSerializer, 200: CatalogOutputSerializer},
        parameters=[LOCALE_PARAMETER],
        examples=[OpenApiExample("French", value=EXAMPLE, request_only=True)],
        description="201 created, 200 replaced, as a new version. A leaf that is neither a "
        "string nor a plural object, a plural object without `other`, a string that does not "
        "parse as Liquid, a key with a `.`: 400 naming its path (`messages.cart.items`); "
        "nothing is saved then. `?dry_run=true`: the same answer, nothing saved.",
    )
    def put(self, request: Request, locale: str) -> Response:
        return _written(request, locale, catalog_put)

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
        return _written(request, locale, catalog_patch)

    @extend_schema(
        summary="Delete a translation catalog",
        request=None,
        responses={204: None, 404: None},
        parameters=[LOCALE_PARAMETER],
        description="204, recording a version without messages (its history stays); 404 "
        "unknown. Runs whose keys were only in it fail on them from then on.",
    )
    def delete(self, request: Request, locale: str) -> Response:
        tag = _locale(locale)
        request_fields(request, NoFieldsSerializer)
        if not catalog_delete(locale=tag, actor=actor_of(request)):
            raise not_found("translation catalog", locale)
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns: list[URLPattern] = [
    path("translations/", CatalogListApi.as_view(), name="translation-list"),
    path("translations/<str:locale>/", CatalogDetailApi.as_view(), name="translation-detail"),
]


def _written(request: Request, locale: str, write: Callable[..., tuple[Any, bool]]) -> Response:
    """A PUT's or PATCH's answer: the catalog as `write` leaves it (201 created, 200 changed),
    or the 400 naming the path of what it refused (nothing saved). With `?dry_run=true` the
    same answer, the write rolled back (`notiflow workflows validate|diff` ask it)."""
    tag = _locale(locale)  # an invalid locale is the 400 first
    fields = request_fields(request, CatalogInputSerializer)
    dry_run = dry_run_requested(request)
    try:
        with transaction.atomic():
            catalog, created = write(
                locale=tag, messages=fields["messages"], actor=actor_of(request)
            )
            if dry_run:
                transaction.set_rollback(True)
    except CatalogInvalid as exc:
        raise _invalid(exc) from exc
    code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
    return Response(CatalogOutputSerializer(catalog).data, status=code)
