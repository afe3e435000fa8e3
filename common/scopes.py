"""API key scopes: which scope each view needs per HTTP method, and the permission that checks
it (docs/design/api.md, "HTTP API"; the keys themselves are triggers.models.ApiKey).

A view declares what each of its methods needs in `api_scopes`, a dict from the method (upper
case) to `trigger` or `admin`:

    class TriggerListApi(ListAPIView):
        api_scopes = {"GET": TRIGGER, "POST": TRIGGER}

A method the dict does not name, and every method of a view without the attribute, needs
`admin`: a new view is safe until someone decides otherwise (tests/security/test_scopes.py
holds the URLconf to the table of docs/design/api.md). HEAD and OPTIONS need what GET needs.
`admin` includes `trigger`.

The key's workflow limit is the view's business, since only it knows which workflow a request
reaches: `api_key_of(request)` is the request's ApiKey (triggers.models), with
`allows_workflow(key)` (a request naming a workflow: 403 when False at intake) and
`limit_queryset(queryset, field="workflow__key")` (lists filtered; one object through it, a 404
when it is outside the limit).

What a key limited to workflows may do with a `trigger` method is declared on the view too, in
`workflow_limits` (a rule for every method, or a dict from the method to its rule), and HasScope
enforces it: `Refused("read or change recipients")` is a 403 naming what the key lacks; FILTERED
(the view reaches the objects of the key's workflows only: others are 404 or absent) and CHECKED
(the request names or acts on workflows, and the view refuses, 403, or leaves alone those
outside) let the request through to a view that applies the limit itself. A method that declares
nothing is refused to a limited key: people, topics and anything new stay out of its reach until
someone decides otherwise (docs/security/keys.md, "Keys limited to workflows", whose table
`limits_table` renders from these declarations).

This module knows nothing of triggers (every app's views import it); it reads the key through
`scope`, `has_scope` and `workflows`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Protocol, cast

from django.urls import URLPattern, URLResolver, get_resolver
from rest_framework import exceptions
from rest_framework.permissions import BasePermission

TRIGGER = "trigger"
ADMIN = "admin"
SCOPES = (TRIGGER, ADMIN)

# What a key limited to workflows may do with a method (`workflow_limits`).
FILTERED = "filtered"
CHECKED = "checked"


@dataclass(frozen=True)
class Refused:
    """A method a key limited to workflows may not call: 403, naming `what` it may not do."""

    what: str


WorkflowLimit = str | Refused
UNDECLARED = Refused("call an endpoint that declares nothing for keys limited to workflows")


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


def workflow_limit(view: Any, method: str) -> WorkflowLimit:
    """What a key limited to workflows may do with `method` on `view` (a `trigger` method: an
    `admin` one is out of its reach anyway): its `workflow_limits`, else UNDECLARED."""
    declared: Any = getattr(view, "workflow_limits", None)
    method = method.upper()
    if method in ("HEAD", "OPTIONS"):
        method = "GET"
    limit = declared.get(method, UNDECLARED) if isinstance(declared, dict) else declared
    if limit is None:
        return UNDECLARED
    if not isinstance(limit, Refused) and limit not in (FILTERED, CHECKED):
        raise ValueError(
            f"{getattr(view, '__name__', type(view).__name__)}.workflow_limits: {limit!r}"
        )
    return limit


def limited_refusal(workflows: list[str], what: str) -> str:
    """The sentence of a 403 to a key limited to `workflows` for what it may not do."""
    return f"this API key is limited to workflows {list(workflows)} and may not {what}"


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
        if api_key.workflows:
            limit = workflow_limit(view, request.method)
            if isinstance(limit, Refused):
                raise exceptions.PermissionDenied(limited_refusal(api_key.workflows, limit.what))
        return True


class AnonymousOrHasScope(HasScope):
    """For the health endpoint: anyone without a key; with a key, the declared scope."""

    def has_permission(self, request: Any, view: Any) -> bool:
        return request.auth is None or super().has_permission(request, view)


# --- the table of docs/security/keys.md ------------------------------------------------------------


def limits_table() -> str:
    """docs/security/keys.md's table of what a key limited to workflows may do, one row per method of
    every API view that takes an API key, from the views' declarations (`api_scopes`,
    `workflow_limits`): tests/security/test_workflow_limits.py holds the document to it."""
    rows = ["| method and path | scope | a key limited to workflows |", "|---|---|---|"]
    for path, view in _api_views():
        for method in _methods(view):
            scope = required_scope(view, method)
            rows.append(f"| `{method} {path}` | {scope} | {limit_text(view, method)} |")
    return "\n".join(rows) + "\n"


LIMIT_TEXT = {
    FILTERED: "filtered: its workflows' objects only (another's: 404, or absent from a list)",
    CHECKED: "checked: its workflows only (naming another: 403; another's runs: left alone)",
}


def limit_text(view: Any, method: str) -> str:
    """What a key limited to workflows may do with `method` on `view`, in words (the table's
    column, and each operation's description in the schema: notiflow/openapi.py)."""
    if required_scope(view, method) == ADMIN:
        return "refused: needs the `admin` scope"
    limit = workflow_limit(view, method)
    if isinstance(limit, Refused):
        return f"refused: may not {limit.what}"
    return LIMIT_TEXT[limit]


def _api_views() -> list[tuple[str, Any]]:
    """(path as the docs write it, view class) of every view under /api/ that takes an API key,
    in URLconf order."""
    found: list[tuple[str, Any]] = []

    def walk(patterns: list[Any], prefix: str) -> None:
        for pattern in patterns:
            if isinstance(pattern, URLResolver):
                walk(pattern.url_patterns, prefix + str(pattern.pattern))
            elif isinstance(pattern, URLPattern) and prefix.startswith("api/"):
                callback: Any = pattern.callback
                view = getattr(callback, "cls", None)
                keyless = not getattr(callback, "initkwargs", {}).get("authentication_classes", 1)
                if view is None or keyless or getattr(view, "recipient_token", False):
                    continue
                path = re.sub(r"<(?:\w+:)?(?:\w+_)?(\w+)>", r"<\1>", prefix + str(pattern.pattern))
                found.append(("/" + path, view))

    walk(get_resolver().url_patterns, "")
    return found


def _methods(view: Any) -> list[str]:
    return [
        m.upper()
        for m in view.http_method_names
        if hasattr(view, m) and m not in ("options", "head")
    ]
