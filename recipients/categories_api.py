"""Preference categories over the API (docs/design.md, "Preferences"): `GET /api/categories/`,
`GET/PUT/DELETE /api/categories/<slug>/`, admin scope, as the admin's Categories page. Views
parse and translate; the rules are in recipients/categories.py."""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_slug
from django.db import transaction
from django.urls import URLPattern, path
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.generics import ListAPIView
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from common.api_errors import not_found
from common.http import (
    DRY_RUN_PARAMETER,
    NoFieldsSerializer,
    StrictBooleanField,
    StrictCharField,
    StrictQueryParameters,
    StrictSerializer,
    dry_run_requested,
    request_fields,
)
from common.scopes import ADMIN, Refused
from recipients.categories import CategoryInUse, category_delete, category_put
from recipients.models import Category
from recipients.preferences import channel_switch_problems

SLUG_MAX_LENGTH = Category._meta.get_field("slug").max_length or 100
# Categories are the operator's (admin scope), and every workflow's: a key limited to some may
# not touch them (docs/security.md, "Keys limited to workflows").
CATEGORY_LIMIT = Refused("read or change preference categories")


class CategoryInputSerializer(StrictSerializer):
    name = StrictCharField(required=False, allow_blank=True, max_length=200, default="")
    description = StrictCharField(required=False, allow_blank=True, default="")
    defaults = serializers.DictField(
        child=StrictBooleanField(),
        required=False,
        default=dict,
        help_text="channel -> on (true) or off (false) for a person who said nothing; a channel "
        "not named is on",
    )

    def to_internal_value(self, data: Any) -> Any:
        # The defaults' problems by path (`defaults.pigeon`), as a person's preferences' are.
        defaults = data.get("defaults") if isinstance(data, dict) else None
        problems = (
            channel_switch_problems(defaults, "defaults") if isinstance(defaults, dict) else {}
        )
        try:
            value = super().to_internal_value(data)
        except ValidationError as exc:
            if problems and isinstance(exc.detail, dict):
                exc.detail.pop("defaults", None)
                raise ValidationError({**exc.detail, **problems}) from None
            raise
        if problems:
            raise ValidationError(problems)
        return value


class CategoryOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Category
        fields = ("slug", "name", "description", "defaults")


def _slug_checked(slug: str) -> str:
    try:
        validate_slug(slug)
    except DjangoValidationError:
        message = "must be letters, digits, hyphens or underscores"
    else:
        if len(slug) <= SLUG_MAX_LENGTH:
            return slug
        message = f"must be at most {SLUG_MAX_LENGTH} characters"
    raise ValidationError({"detail": f"slug: {message}", "errors": {"slug": [message]}})


class CategoryListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": ADMIN}
    workflow_limits = CATEGORY_LIMIT
    serializer_class = CategoryOutputSerializer
    queryset = Category.objects.order_by("slug")

    @extend_schema(summary="List preference categories")
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)


class CategoryDetailApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": ADMIN, "PUT": ADMIN, "DELETE": ADMIN}
    workflow_limits = CATEGORY_LIMIT
    query_parameters = {"PUT": [DRY_RUN_PARAMETER]}

    @extend_schema(summary="Get a preference category", responses=CategoryOutputSerializer)
    def get(self, request: Request, category_slug: str) -> Response:
        category = Category.objects.filter(slug=category_slug).first()
        if category is None:
            raise not_found("category", category_slug)
        return Response(CategoryOutputSerializer(category).data)

    @extend_schema(
        summary="Create or replace a preference category",
        request=CategoryInputSerializer,
        responses={201: CategoryOutputSerializer, 200: CategoryOutputSerializer},
        examples=[
            OpenApiExample(
                "comments, not by SMS unless asked",
                value={"name": "Comments", "description": "", "defaults": {"sms": False}},
                request_only=True,
            )
        ],
        description="201 created, 200 replaced: every field is set, those left out to their "
        "default (empty; `defaults` {}: every channel on). A slug is letters, digits, hyphens "
        "and underscores, at most 100 (else 400 naming `slug`); a default for a channel nobody "
        "registered, or not true/false, is a 400 naming `defaults.<channel>`. "
        "`?dry_run=true`: the same answer, nothing saved.",
    )
    def put(self, request: Request, category_slug: str) -> Response:
        fields = request_fields(request, CategoryInputSerializer)
        slug = _slug_checked(category_slug)
        dry_run = dry_run_requested(request)
        with transaction.atomic():
            category, created = category_put(slug=slug, **fields)
            if dry_run:
                transaction.set_rollback(True)
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(CategoryOutputSerializer(category).data, status=code)

    @extend_schema(
        summary="Delete a preference category",
        request=None,
        responses={204: None, 404: None, 409: None},
        description="Takes the category out of every person's preferences too. 409 naming the "
        "workflows when some name it (their current version's `preference_category`, or a "
        "marketing workflow's implicit `marketing`): change them first. 404 unknown.",
    )
    def delete(self, request: Request, category_slug: str) -> Response:
        request_fields(request, NoFieldsSerializer)
        try:
            deleted = category_delete(slug=category_slug)
        except CategoryInUse as exc:
            detail = (
                f"workflows {exc.workflows} are in category {category_slug!r}: change them first"
            )
            return Response(
                {"detail": detail, "workflows": exc.workflows}, status=status.HTTP_409_CONFLICT
            )
        if deleted is None:
            raise not_found("category", category_slug)
        return Response(status=status.HTTP_204_NO_CONTENT)


urlpatterns: list[URLPattern] = [
    path("categories/", CategoryListApi.as_view(), name="category-list"),
    path("categories/<str:category_slug>/", CategoryDetailApi.as_view(), name="category-detail"),
]
