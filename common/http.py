"""Input the API cannot use is refused at the door with a 400, never a 500 later or a silent
default.

PostgreSQL text and jsonb values cannot contain NUL (U+0000). DRF's CharFields refuse it; these
cover what they do not see: JSON bodies (payloads and definitions go into jsonb as they are) and
query-string filters. A JSON body nested more than MAX_JSON_DEPTH containers deep is refused too:
json.loads ends such a body in a RecursionError (a 500) somewhere past a few hundred levels, and
every later walk over a payload (templates, jsonb, rendering) would pay for the depth again. A page number that is not one is a 400 too (DRF took an empty `page=` for
page 1 and anything else for a missing page). So is a value of the wrong JSON type where DRF
would convert it (StrictCharField, StrictBooleanField).

An unknown field is a 400 naming it, with a "did you mean" for a near miss (StrictSerializer, the
base of every input serializer; request_fields reads a body with one). So is a query parameter the
operation does not declare, or one given twice (StrictQueryParameters, a mixin of every API view:
its `query_parameters` are both what it accepts and what the schema lists, via
notiflow.openapi.ScopedAutoSchema).
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Iterable, Mapping
from typing import Any, ClassVar

from django.http import HttpRequest, HttpResponse, JsonResponse
from drf_spectacular.utils import OpenApiParameter
from rest_framework import serializers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser
from rest_framework.request import Request

NUL = "\x00"
MAX_JSON_DEPTH = 64


def _refuse_unstorable(data: Any) -> None:
    """ParseError when a parsed JSON value nests containers more than MAX_JSON_DEPTH deep or has
    a NUL in a string or a key. Iterative: the walk itself cannot run out of stack."""
    pending: list[tuple[Any, int]] = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, str):
            if NUL in value:
                raise ParseError(_NUL_MESSAGE)
        elif isinstance(value, dict | list):
            if depth > MAX_JSON_DEPTH:
                raise ParseError(_DEPTH_MESSAGE)
            if isinstance(value, dict):
                if any(NUL in key for key in value):
                    raise ParseError(_NUL_MESSAGE)
                value = value.values()
            pending.extend((item, depth + 1) for item in value)


_NUL_MESSAGE = "JSON strings may not contain \\u0000 (NUL): it cannot be stored"
_DEPTH_MESSAGE = f"JSON may not nest objects and arrays more than {MAX_JSON_DEPTH} levels deep"


def json_loads_storable(text: str) -> Any:
    """json.loads, refusing what the API's parser refuses (nesting past MAX_JSON_DEPTH, NUL):
    for the admin's JSON forms. ValueError saying why (json.JSONDecodeError for bad JSON)."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise ValueError(_DEPTH_MESSAGE) from None
    try:
        _refuse_unstorable(data)
    except ParseError as exc:
        raise ValueError(str(exc.detail)) from None
    return data


class NulSafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            # The C decoder gives up near the interpreter's recursion limit, long past ours.
            raise ParseError(_DEPTH_MESSAGE) from None
        _refuse_unstorable(data)
        return data


class RefuseNulInQueryMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]):
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        if request.path.startswith("/api/") and any(
            NUL in key or NUL in value for key, value in request.GET.items()
        ):
            return JsonResponse(
                {"detail": "query parameters may not contain NUL (%00)"}, status=400
            )
        return self.get_response(request)


# Eighteen digits at most: far past any last page, and int() of a longer run of digits is slow.
_PAGE_NUMBER = re.compile(r"[1-9][0-9]{0,17}")
_PAGE_MAXIMUM = 10**18 - 1


class StrictPageNumberPagination(PageNumberPagination):
    """`?page=N` with N a whole number from 1, as the schema says; a page past the end stays a
    404 (it does not exist), anything else is a 400 naming `page`."""

    def get_page_number(self, request, paginator):
        values = request.query_params.getlist(self.page_query_param)
        if len(values) > 1:
            raise ValidationError({self.page_query_param: [REPEATED]})
        value = values[0] if values else None
        if value is None:
            return 1
        if not _PAGE_NUMBER.fullmatch(value):
            raise ValidationError({self.page_query_param: ["must be a whole number from 1"]})
        return int(value)

    def get_schema_operation_parameters(self, view):
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            if parameter["name"] == self.page_query_param:
                parameter["schema"].update(minimum=1, maximum=_PAGE_MAXIMUM)
        return parameters


class StrictCharField(serializers.CharField):
    """A CharField that takes strings only (DRF's own turns 12 into "12")."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return super().to_internal_value(data)


class StrictBooleanField(serializers.BooleanField):
    """A BooleanField that takes JSON true and false only (DRF's own also takes "yes", 1, "on")."""

    def to_internal_value(self, data: Any) -> bool:
        if not isinstance(data, bool):
            self.fail("invalid", input=data)
        return data


# --- unknown fields and query parameters -------------------------------------------------------
REPEATED = "given more than once"


def unknown_name_message(name: str, known: Iterable[str], what: str = "field") -> str:
    """Why `name` is refused: unknown, with the nearest known name for a near miss (difflib)
    or else the names there are."""
    known = sorted(known)
    near = difflib.get_close_matches(name, known, n=1, cutoff=0.6)
    if near:
        return f"unknown {what}; did you mean {near[0]!r}?"
    if not known:
        return f"unknown {what}; this operation takes none"
    return f"unknown {what}; the known ones are: {', '.join(known)}"


# A serializer that refuses a field it does not declare: a misspelled optional field would
# otherwise be dropped and its default used (`"catgory": "marketing"` stored as transactional).
# Each unknown field is an error of its own name, beside the errors of the known fields.
# (Comments, not docstrings, here and below: drf-spectacular would show an inherited docstring
# as the description of every serializer and view without one of its own.)
class StrictSerializer(serializers.Serializer):
    def to_internal_value(self, data: Any) -> Any:
        unknown: dict[str, list[str]] = {}
        if isinstance(data, Mapping):
            writable = [name for name, field in self.fields.items() if not field.read_only]
            unknown = {
                str(name): [unknown_name_message(str(name), writable)]
                for name in data
                if name not in writable
            }
        try:
            value = super().to_internal_value(data)
        except ValidationError as exc:
            if unknown and isinstance(exc.detail, dict):
                raise ValidationError({**exc.detail, **unknown}) from None
            raise
        if unknown:
            raise ValidationError(unknown)
        return value


# The body of an operation that takes none: absent, or `{}`.
class NoFieldsSerializer(StrictSerializer):
    pass


def request_fields(
    request: Request, serializer: type[serializers.Serializer], **kwargs: Any
) -> Any:
    """The body's validated fields: a 400 when it is not a JSON object, or names a field that is
    unknown or invalid."""
    data = request.data
    if not isinstance(data, Mapping):
        message = "the request body must be a JSON object"
        raise ValidationError({"detail": message, "errors": {"body": [message]}})
    checked = serializer(data=data, **kwargs)
    checked.is_valid(raise_exception=True)
    return checked.validated_data


# View mixin: a query parameter the operation does not declare, or one given twice, is a 400
# naming it, after authentication and permission (a request without a key stays a 401).
# `query_parameters` maps a method to its OpenApiParameters (query ones); the schema shows them
# (notiflow.openapi.ScopedAutoSchema), and a list's `page` comes with its pagination.
class StrictQueryParameters:
    query_parameters: ClassVar[Mapping[str, list[Any]]] = {}

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        super().initial(request, *args, **kwargs)  # type: ignore[misc]
        known = {p.name for p in self.query_parameters.get(request.method or "", [])}
        paginator = getattr(self, "paginator", None)
        if request.method == "GET" and paginator is not None:
            known.add(paginator.page_query_param)
        errors: dict[str, list[str]] = {}
        for name in request.query_params:
            if name not in known:
                errors[name] = [unknown_name_message(name, known, "query parameter")]
            elif len(request.query_params.getlist(name)) > 1:
                errors[name] = [REPEATED]
        if errors:
            raise ValidationError(errors)


# `?dry_run=true` on a write: the view does everything (checks, the service, its answer) inside a
# transaction it then rolls back, so the answer is exactly what the write would be and nothing is
# saved (`notiflow workflows validate` and `push --dry-run` ask it).
DRY_RUN_PARAMETER = OpenApiParameter(
    "dry_run",
    str,
    enum=["true", "false"],
    default="false",
    description="true: check the request and answer what it would do (its status and body), "
    "saving nothing",
)


def dry_run_requested(request: Request) -> bool:
    """Whether the request asked `?dry_run=true` (a 400 naming it for anything but true/false)."""
    value = request.query_params.get(DRY_RUN_PARAMETER.name, "false")
    if value not in ("true", "false"):
        raise ValidationError({DRY_RUN_PARAMETER.name: ["must be true or false"]})
    return value == "true"
