"""Input the API cannot use is refused at the door with a 400, never a 500 later or a silent
default.

PostgreSQL text and jsonb values cannot contain NUL (U+0000). DRF's CharFields refuse it; these
cover what they do not see: JSON bodies (payloads and definitions go into jsonb as they are) and
query-string filters. A page number that is not one is a 400 too (DRF took an empty `page=` for
page 1 and anything else for a missing page).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse, JsonResponse
from rest_framework.exceptions import ParseError, ValidationError
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import JSONParser

NUL = "\x00"


def _contains_nul(value: Any) -> bool:
    if isinstance(value, str):
        return NUL in value
    if isinstance(value, dict):
        return any(_contains_nul(k) or _contains_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_contains_nul(item) for item in value)
    return False


class NulSafeJSONParser(JSONParser):
    def parse(self, stream, media_type=None, parser_context=None):
        data = super().parse(stream, media_type, parser_context)
        if _contains_nul(data):
            raise ParseError("JSON strings may not contain \\u0000 (NUL): it cannot be stored")
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
