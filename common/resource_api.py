"""The API of a versioned resource: something the operator keeps whole, named by a key in the
path (a translation catalog by its locale, a layout, a partial, a tenant, a preference
category). `GET` reads it, `PUT` creates it (201) or replaces it (200), `?dry_run=true`
answering exactly that with the write rolled back, and `DELETE` removes it (204); an unknown key
is a 404 naming it (docs/design/api.md, "Versioned resources"). Every method is admin-scoped,
and a key limited to workflows is refused (`workflow_limits`).

A resource's views say only what differs: its serializers, how the path's key is read, and the
services that find, write and delete it (`resource_find`, `resource_put`, `resource_delete`).
Its schema (summaries, descriptions, examples) is declared on the subclass with
`extend_schema_view`, so each operation's documentation stays beside its resource."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any, ClassVar

from django.db import transaction
from drf_spectacular.utils import (
    OpenApiExample,
    OpenApiParameter,
    extend_schema,
    extend_schema_view,
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
    dry_run_requested,
    request_fields,
)
from common.invalid import Invalid
from common.scopes import ADMIN

# A write's arguments: what names the resource (`resource_lookup`), the body's validated fields,
# and who writes; its answer: the resource as written, and whether it was created.
Write = Callable[[Mapping[str, Any], Mapping[str, Any], str], tuple[Any, bool]]


# The list of a resource (`GET /api/<resources>/`), admin-scoped as its detail. (Comments, not
# docstrings, on these views: drf-spectacular would show an inherited docstring as the
# description of every operation without one of its own.)
class ResourceListApi(StrictQueryParameters, ListAPIView):
    api_scopes = {"GET": ADMIN}


# One resource (`GET/PUT/DELETE /api/<resources>/<key>/`).
class VersionedResourceApi(StrictQueryParameters, APIView):
    api_scopes = {"GET": ADMIN, "PUT": ADMIN, "DELETE": ADMIN}
    query_parameters: ClassVar[Mapping[str, list[Any]]] = {"PUT": [DRY_RUN_PARAMETER]}
    # What a 404 calls it (`no layout 'brand'`) and the URL's keyword that names it (the
    # schema's path parameter, `/api/tenants/{tenant_id}/`).
    resource_name: ClassVar[str]
    lookup_url_kwarg: ClassVar[str] = "key"
    input_serializer: ClassVar[type[serializers.Serializer]]
    output_serializer: ClassVar[type[serializers.BaseSerializer]]

    def resource_lookup(self, key: str) -> dict[str, Any]:
        # The keywords naming the resource to its services; a key that is not one is a 400 naming
        # it here, before the body is read.
        return {"key": key}

    def resource_find(self, lookup: Mapping[str, Any]) -> Any:
        raise NotImplementedError

    def resource_put(
        self, lookup: Mapping[str, Any], fields: Mapping[str, Any], actor: str
    ) -> tuple[Any, bool]:
        # The resource as written, and whether it was created; common.invalid.Invalid when the
        # input breaks the rules.
        raise NotImplementedError

    def resource_delete(self, lookup: Mapping[str, Any], actor: str) -> bool:
        raise NotImplementedError

    def get(self, request: Request, **kwargs: Any) -> Response:
        key = kwargs[self.lookup_url_kwarg]
        found = self.resource_find(self.resource_lookup(key))
        if found is None:
            raise not_found(self.resource_name, key)
        return Response(self.output_serializer(found).data)

    def put(self, request: Request, **kwargs: Any) -> Response:
        return self.written(request, kwargs[self.lookup_url_kwarg], self.resource_put)

    def delete(self, request: Request, **kwargs: Any) -> Response:
        key = kwargs[self.lookup_url_kwarg]
        lookup = self.resource_lookup(key)
        request_fields(request, NoFieldsSerializer)
        if not self.resource_delete(lookup, actor_of(request)):
            raise not_found(self.resource_name, key)
        return Response(status=status.HTTP_204_NO_CONTENT)

    def written(self, request: Request, key: str, write: Write) -> Response:
        # A write's answer: the resource as `write` leaves it (201 created, 200 changed), or the
        # 400 naming the path of each problem (nothing saved). With `?dry_run=true` the same
        # answer, the write rolled back (`notiflow workflows validate|diff` ask it).
        lookup = self.resource_lookup(key)
        fields = request_fields(request, self.input_serializer)
        dry_run = dry_run_requested(request)
        try:
            with transaction.atomic():
                saved, created = write(lookup, fields, actor_of(request))
                if dry_run:
                    transaction.set_rollback(True)
        except Invalid as exc:
            raise ValidationError(exc.problems) from exc
        code = status.HTTP_201_CREATED if created else status.HTTP_200_OK
        return Response(self.output_serializer(saved).data, status=code)


def versioned_resource_schema(
    *,
    noun: str,
    output: type[serializers.Serializer],
    input: type[serializers.Serializer],
    example: OpenApiExample,
    put_description: str,
    delete_description: str | None = None,
    parameters: Sequence[OpenApiParameter] = (),
) -> Callable[[type], type]:
    """The OpenAPI of a VersionedResourceApi, one shape for every resource: GET, PUT (201
    created, 200 replaced) and, with `delete_description`, DELETE (204, 404) of `noun` ("a
    tenant"), each with the path's `parameters`; only the words and the example differ."""
    located = list(parameters) or None
    views: dict[str, Any] = {
        "get": extend_schema(summary=f"Get {noun}", responses=output, parameters=located),
        "put": extend_schema(
            summary=f"Create or replace {noun}",
            request=input,
            responses={201: output, 200: output},
            parameters=located,
            examples=[example],
            description=put_description,
        ),
    }
    if delete_description is not None:
        views["delete"] = extend_schema(
            summary=f"Delete {noun}",
            request=None,
            responses={204: None, 404: None},
            parameters=located,
            description=delete_description,
        )
    return extend_schema_view(**views)
