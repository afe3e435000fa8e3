"""Every API error is JSON with a human-readable `detail` (and `errors` naming fields)."""

from __future__ import annotations

from typing import Any

from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler


def invalid_input(errors: dict[str, Any]) -> dict[str, Any]:
    """The answer to input a serializer refused: `errors` (field -> messages), named in `detail`."""
    fields = ", ".join(str(name) for name in errors)
    return {"detail": f"invalid input: {fields}", "errors": errors}


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
