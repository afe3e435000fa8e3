"""API key scopes: which scope each view needs per HTTP method, and the permission that checks
it (docs/design.md, "HTTP API"; the keys themselves are triggers.models.ApiKey).

A view declares what each of its methods needs in `api_scopes`, a dict from the method (upper
case) to `trigger` or `admin`:

    class TriggerListApi(ListAPIView):
        api_scopes = {"GET": TRIGGER, "POST": TRIGGER}

A method the dict does not name, and every method of a view without the attribute, needs
`admin`: a new view is safe until someone decides otherwise (tests/security/test_scopes.py
holds the URLconf to the table of docs/design.md). HEAD and OPTIONS need what GET needs.
`admin` includes `trigger`.

The key's workflow limit is the view's business, since only it knows which workflow a request
reaches: `api_key_of(request)` is the request's ApiKey (triggers.models), with
`allows_workflow(key)` (a request naming a workflow: 403 when False at intake) and
`limit_queryset(queryset, field="workflow__key")` (lists filtered; one object through it, a 404
when it is outside the limit).

This module knows nothing of triggers (every app's views import it); it reads the key through
`scope` and `has_scope`.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from rest_framework import exceptions
from rest_framework.permissions import BasePermission

TRIGGER = "trigger"
ADMIN = "admin"
SCOPES = (TRIGGER, ADMIN)


class ScopedKey(Protocol):
    """What views may ask of the request's key (triggers.models.ApiKey is one)."""

    pk: int
    scope: str
    workflows: list[str]

    def has_scope(self, scope: str) -> bool: ...

    def allows_workflow(self, key: str) -> bool: ...

    def limit_queryset(self, queryset: Any, field: str = "workflow__key") -> Any: ...


def api_key_of(request: Any) -> ScopedKey:
    """The API key of a request that passed HasScope (never None there)."""
    return cast(ScopedKey, request.auth)


def required_scope(view: Any, method: str) -> str:
    """The scope `method` needs on `view` (an APIView instance or class): what its `api_scopes`
    says, else `admin`."""
    scopes: dict[str, str] = getattr(view, "api_scopes", None) or {}
    method = method.upper()
    if method in ("HEAD", "OPTIONS"):
        method = "GET"
    scope = scopes.get(method, ADMIN)
    if scope not in SCOPES:
        raise ValueError(f"{type(view).__name__}.api_scopes[{method!r}] = {scope!r}")
    return scope


def scope_refused(scope: str) -> exceptions.PermissionDenied:
    return exceptions.PermissionDenied(f"this API key lacks the {scope!r} scope")


class HasScope(BasePermission):
    """The default permission (REST_FRAMEWORK): an API key with the scope the view declares for
    the method. No key: 401 (ApiKeyAuthentication's header); a key without the scope: 403 naming
    it."""

    def has_permission(self, request: Any, view: Any) -> bool:
        api_key = request.auth
        if api_key is None:
            return False
        scope = required_scope(view, request.method)
        if not api_key.has_scope(scope):
            raise scope_refused(scope)
        return True


class AnonymousOrHasScope(HasScope):
    """For the health endpoint: anyone without a key; with a key, the declared scope."""

    def has_permission(self, request: Any, view: Any) -> bool:
        return request.auth is None or super().has_permission(request, view)
