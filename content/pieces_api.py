"""Layouts and partials over the API (docs/layouts.md): `GET /api/layouts/`,
`GET/PUT/DELETE /api/layouts/<key>/`, `GET /api/partials/`, `GET/PUT/DELETE
/api/partials/<key>/`, admin scope, installation-wide as catalogs are (content/api.py). Views
parse and translate; the rules are content/validation.py's, the writes content/services.py's."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, ClassVar

from django.urls import URLPattern, path
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
)
from rest_framework import serializers

from common.http import StrictCharField, StrictSerializer
from common.resource_api import ResourceListApi, VersionedResourceApi, versioned_resource_schema
from common.scopes import Refused
from content.models import ContentKind, Layout, Partial
from content.services import content_delete, layout_put, partial_put
from workflows.layouts import KEY_RULE

# Layouts and partials are every workflow's, as catalogs are: a key limited to some workflows
# may not touch them (docs/security/keys.md, "Keys limited to workflows").
LAYOUT_LIMIT = Refused("read or change layouts")
PARTIAL_LIMIT = Refused("read or change partials")


def _template(help_text: str, *, required: bool = True) -> StrictCharField:
    # The rules of a template are content/validation.py's, each a 400 naming the field.
    return StrictCharField(
        required=required, allow_blank=True, trim_whitespace=False, help_text=help_text
    )


class LayoutInputSerializer(StrictSerializer):
    name = StrictCharField(max_length=200, help_text="What the admin calls it.")
    html = _template("Liquid HTML holding `{{ content }}` exactly once, where the message goes.")
    text = _template(
        "Liquid text holding `{{ content }}` exactly once; empty or left out: the text part is "
        "the body alone.",
        required=False,
    )


class LayoutOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Layout
        fields = ("key", "name", "html", "text", "version", "updated_by", "updated_at")


class PartialInputSerializer(StrictSerializer):
    content = _template('Liquid, rendered where a template says `{% render "<key>" %}`.')


class PartialOutputSerializer(serializers.ModelSerializer):
    class Meta:
        model = Partial
        fields = ("key", "content", "version", "updated_by", "updated_at")


def _key_parameter(what: str) -> OpenApiParameter:
    return OpenApiParameter(
        "key",
        {"type": "string", "maxLength": 64},
        OpenApiParameter.PATH,
        description=f"the {what}'s key: {KEY_RULE} (another: a 400 naming `key` on PUT)",
    )


LAYOUT_KEY = _key_parameter("layout")
PARTIAL_KEY = _key_parameter("partial")
LAYOUT_EXAMPLE = {
    "name": "Brand",
    "html": '<html><body><img src="{{ payload.logo }}">{{ content }}'
    '{% render "footer" %}</body></html>',
    "text": "{{ content }}\n\n-- \nExample Inc.",
}


@extend_schema_view(get=extend_schema(summary="List email layouts"))
class LayoutListApi(ResourceListApi):
    workflow_limits = LAYOUT_LIMIT
    serializer_class = LayoutOutputSerializer
    queryset = Layout.objects.order_by("key")


class _PieceApi(VersionedResourceApi):
    # What a layout's and a partial's pages share: found by key, deleted through content_delete.
    kind: ClassVar[str]
    model: ClassVar[type[Layout] | type[Partial]]

    def resource_find(self, lookup: Mapping[str, Any]) -> Layout | Partial | None:
        return self.model._default_manager.filter(**lookup).first()

    def resource_delete(self, lookup: Mapping[str, Any], actor: str) -> bool:
        return content_delete(kind=self.kind, actor=actor, **lookup)


@versioned_resource_schema(
    noun="an email layout",
    output=LayoutOutputSerializer,
    input=LayoutInputSerializer,
    parameters=[LAYOUT_KEY],
    example=OpenApiExample("Brand", value=LAYOUT_EXAMPLE, request_only=True),
    put_description=(
        "201 created, 200 replaced, as a new version. An `html` without `{{ content "
        "}}` exactly once, a `text` (when given) likewise, a template that does not parse, a key "
        "that is not one: 400 naming the field; nothing is saved then. `?dry_run=true`: the "
        "same answer, nothing saved."
    ),
    delete_description=(
        "204, recording a version without content (its history stays); 404 "
        "unknown. Emails whose chain names it fail from then on, naming it."
    ),
)
class LayoutDetailApi(_PieceApi):
    workflow_limits = LAYOUT_LIMIT
    resource_name = kind = ContentKind.LAYOUT
    model = Layout
    input_serializer = LayoutInputSerializer
    output_serializer = LayoutOutputSerializer

    def resource_put(
        self, lookup: Mapping[str, Any], fields: Mapping[str, Any], actor: str
    ) -> tuple[Layout, bool]:
        return layout_put(actor=actor, **lookup, **fields)


@extend_schema_view(get=extend_schema(summary="List partials"))
class PartialListApi(ResourceListApi):
    workflow_limits = PARTIAL_LIMIT
    serializer_class = PartialOutputSerializer
    queryset = Partial.objects.order_by("key")


@versioned_resource_schema(
    noun="a partial",
    output=PartialOutputSerializer,
    input=PartialInputSerializer,
    parameters=[PARTIAL_KEY],
    example=OpenApiExample(
        "Footer",
        value={"content": '<p>{{ "footer.legal" | t }}</p>'},
        request_only=True,
    ),
    put_description=(
        "201 created, 200 replaced, as a new version. A `content` that does not "
        "parse as Liquid, a key that is not one: 400 naming the field; nothing is saved then. "
        "`?dry_run=true`: the same answer, nothing saved."
    ),
    delete_description=(
        "204, recording a version without content (its history stays); 404 "
        "unknown. Templates rendering it fail from then on, naming it."
    ),
)
class PartialDetailApi(_PieceApi):
    workflow_limits = PARTIAL_LIMIT
    resource_name = kind = ContentKind.PARTIAL
    model = Partial
    input_serializer = PartialInputSerializer
    output_serializer = PartialOutputSerializer

    def resource_put(
        self, lookup: Mapping[str, Any], fields: Mapping[str, Any], actor: str
    ) -> tuple[Partial, bool]:
        return partial_put(actor=actor, **lookup, **fields)


urlpatterns: list[URLPattern] = [
    path("layouts/", LayoutListApi.as_view(), name="layout-list"),
    path("layouts/<str:key>/", LayoutDetailApi.as_view(), name="layout-detail"),
    path("partials/", PartialListApi.as_view(), name="partial-list"),
    path("partials/<str:key>/", PartialDetailApi.as_view(), name="partial-detail"),
]
