"""Every API error is JSON with a human-readable `detail` (and `errors` naming fields)."""

from __future__ import annotations

from typing import Any, TypeVar

from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Model, QuerySet
from rest_framework import status
from rest_framework.exceptions import NotFound
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def invalid_input(errors: dict[str, Any]) -> dict[str, Any]:
    """The answer to input a serializer refused: `errors` (field -> messages), named in `detail`."""
    fields = ", ".join(str(name) for name in errors)
    return {"detail": f"invalid input: {fields}", "errors": errors}


M = TypeVar("M", bound=Model)


def not_found(what: str, name: Any) -> NotFound:
    """The 404 of an unknown id: `no topic 'news'`, naming what was asked for."""
    return NotFound(f"no {what} {str(name)!r}")


def found_or_404(source: type[M] | QuerySet[M], what: str, **lookup: Any) -> M:
    """The one row `lookup` finds in `source`, else the 404 naming it (not_found), not Django's
    "No Topic matches the given query."."""
    queryset = source if isinstance(source, QuerySet) else source._default_manager.all()
    try:
        return queryset.get(**lookup)
    except ObjectDoesNotExist:
        raise not_found(what, next(iter(lookup.values()))) from None


def exception_handler(exc: Exception, context: dict[str, Any]) -> Response | None:
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    data = response.data
    if response.status_code == status.HTTP_400_BAD_REQUEST and isinstance(data, dict):
        if "detail" not in data:
            response.data = invalid_input(data)
    elif isinstance(data, list):
        response.data = {"detail": "; ".join(str(d) for d in data), "errors": data}
    return response
