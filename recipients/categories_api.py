"""Preference categories over the API (docs/design/recipients.md, "Preferences"): `GET /api/categories/`,
`GET/PUT/DELETE /api/categories/<slug>/`, admin scope, as the admin's Categories page. Views
parse and translate; the rules are in recipients/categories.py."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.core.exceptions import ValidationError as DjangoValidationError
from django.core.validators import validate_slug
from django.urls import URLPattern, path
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_view
from rest_framework import serializers, status
from rest_framework.exceptions import ValidationError
from rest_framework.request import Request
from rest_framework.response import Response

from common.http import StrictBooleanField, StrictCharField, StrictSerializer
from common.resource_api import ResourceListApi, VersionedResourceApi, versioned_resource_schema
from common.scopes import Refused
from recipients.categories import CategoryInUse, category_delete, category_put
from recipients.models import Category
from recipients.preferences import channel_switch_problems

SLUG_MAX_LENGTH = Category._meta.get_field("slug").max_length or 100
# Categories are the operator's (admin scope), and every workflow's: a key limited to some may
# not touch them (docs/security/keys.md, "Keys limited to workflows").
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


@extend_schema_view(get=extend_schema(summary="List preference categories"))
class CategoryListApi(ResourceListApi):
    workflow_limits = CATEGORY_LIMIT
    serializer_class = CategoryOutputSerializer
    queryset = Category.objects.order_by("slug")


@versioned_resource_schema(
    noun="a preference category",
    output=CategoryOutputSerializer,
    input=CategoryInputSerializer,
    example=OpenApiExample(
        "comments, not by SMS unless asked",
        value={"name": "Comments", "description": "", "defaults": {"sms": False}},
        request_only=True,
    ),
    put_description=(
        "201 created, 200 replaced: every field is set, those left out to their "
        "default (empty; `defaults` {}: every channel on). A slug is letters, digits, hyphens "
        "and underscores, at most 100 (else 400 naming `slug`); a default for a channel nobody "
        "registered, or not true/false, is a 400 naming `defaults.<channel>`. "
        "`?dry_run=true`: the same answer, nothing saved."
    ),
)
class CategoryDetailApi(VersionedResourceApi):
    workflow_limits = CATEGORY_LIMIT
    resource_name = "category"
    lookup_url_kwarg = "category_slug"
    input_serializer = CategoryInputSerializer
    output_serializer = CategoryOutputSerializer

    def resource_lookup(self, key: str) -> dict[str, Any]:
        return {"slug": key}

    def resource_find(self, lookup: Mapping[str, Any]) -> Category | None:
        return Category.objects.filter(**lookup).first()

    def resource_put(
        self, lookup: Mapping[str, Any], fields: Mapping[str, Any], actor: str
    ) -> tuple[Category, bool]:
        # Only a new slug must be one: an existing category is read and deleted by its own.
        return category_put(slug=_slug_checked(lookup["slug"]), **fields)

    def resource_delete(self, lookup: Mapping[str, Any], actor: str) -> bool:
        return category_delete(**lookup) is not None

    @extend_schema(
        summary="Delete a preference category",
        request=None,
        responses={204: None, 404: None, 409: None},
        description="Takes the category out of every person's preferences too. 409 naming the "
        "workflows when some name it (their current version's `preference_category`, or a "
        "marketing workflow's implicit `marketing`): change them first. 404 unknown.",
    )
    def delete(self, request: Request, **kwargs: Any) -> Response:
        try:
            return super().delete(request, **kwargs)
        except CategoryInUse as exc:
            slug = kwargs[self.lookup_url_kwarg]
            detail = f"workflows {exc.workflows} are in category {slug!r}: change them first"
            return Response(
                {"detail": detail, "workflows": exc.workflows}, status=status.HTTP_409_CONFLICT
            )


urlpatterns: list[URLPattern] = [
    path("categories/", CategoryListApi.as_view(), name="category-list"),
    path("categories/<str:category_slug>/", CategoryDetailApi.as_view(), name="category-detail"),
]
