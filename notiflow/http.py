"""Input the API cannot use is refused at the door with a 400, never a 500 later or a silent
default.

PostgreSQL text and jsonb values cannot contain NUL (U+0000). DRF's CharFields refuse it; these
cover what they do not see: JSON bodies (payloads and definitions go into jsonb as they are) and
query-string filters. A JSON body nested more than MAX_JSON_DEPTH containers deep is refused too:
json.loads ends such a body in a RecursionError (a 500) somewhere past a few hundred levels, and
every later walk over a payload (templates, jsonb, rendering) would pay for the depth again. A page number that is not one is a 400 too (DRF took an empty `page=` for
page 1 and anything else for a missing page). So is a value of the wrong JSON type where DRF
would convert it (StrictCharField, StrictBooleanField).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework import serializers
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser

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
        value = request.query_params.get(self.page_query_param)
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
