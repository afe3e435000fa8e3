"""OpenAPI: each operation's API key scope, the JSON error answers every endpoint can give, and
the request bodies drf-spectacular leaves out."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

from notiflow.scopes import AnonymousOrHasScope, required_scope

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string", "description": "a sentence saying what is wrong"},
        "errors": {"description": "field name -> messages, or a list of definition problems"},
    },
    "required": ["detail"],
}
PUBLIC = ("/api/health/", "/api/schema/", "/api/docs/")
CONFLICTS = {
    ("/api/triggers/", "post"),
    ("/api/workflows/", "post"),
    ("/api/triggers/{trigger_id}/cancel/", "post"),
}
# Intake refuses (403) a workflow outside the key's workflows; elsewhere they are a 404.
WORKFLOW_REFUSED = {("/api/triggers/", "post")}
# Intake refuses a trigger whose workflow's queue no live worker serves (registry/).
UNSERVED = {("/api/triggers/", "post")}
DESCRIPTIONS = {
    "400": "Invalid input; `errors` names the fields",
    "401": "No or wrong API key",
    "404": "No such resource (or page)",
    "429": "Over this API key's rate limit for the operation's scope (NOTIFLOW_RATE_LIMIT_TRIGGER "
    "or NOTIFLOW_RATE_LIMIT_ADMIN); the Retry-After header says in how many seconds to retry",
    "409": "Conflict with the current state",
    "503": "no live worker serves the workflow's queue (NOTIFLOW_TRIGGER_REQUIRES_WORKER); "
    "nothing was stored, `detail` names the queue and the command that starts a worker for it",
}


def add_error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        if path in PUBLIC:
            continue
        for method, operation in operations.items():
            codes = ["400", "401", "404", "429"]
            if (path, method) in CONFLICTS:
                codes.append("409")
            if (path, method) in UNSERVED:
                codes.append("503")
            for code in codes:
                operation["responses"].setdefault(code, _error(DESCRIPTIONS[code]))
            operation["responses"]["429"]["headers"] = {
                "Retry-After": {
                    "schema": {"type": "integer", "minimum": 1},
                    "description": "seconds to wait before the next request",
                }
            }
    return result


def _error(description: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}},
    }


class ScopedAutoSchema(AutoSchema):
    """drf-spectacular's AutoSchema, plus the API key scope each operation needs
    (notiflow/scopes.py): in its description, as `x-scope`, and its 403."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None or not self.view.authentication_classes:
            return operation  # the schema and docs: no key
        scope = required_scope(self.view, self.method)
        needs = f"Needs an API key with the `{scope}` scope."
        operation["description"] = f"{needs} {operation.get('description', '')}".strip()
        operation["x-scope"] = scope
        refused = f"this API key lacks the '{scope}' scope"
        if (self.path, self.method.lower()) in WORKFLOW_REFUSED:
            refused += ", or is limited to other workflows than the one named"
        operation["responses"].setdefault("403", _error(refused))
        return operation

    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        # The health endpoint: a key is optional (drf-spectacular knows only AllowAny).
        permissions = self.view.get_permissions()
        if any(isinstance(p, AnonymousOrHasScope) for p in permissions) and {} not in auths:
            auths.append({})
        return auths


def add_delete_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """The optional JSON body of DELETE /api/triggers/<id>/: drf-spectacular documents a request
    body only for POST, PUT and PATCH (AutoSchema._get_request_body), whatever extend_schema says.
    """
    from triggers.api import TRIGGER_DELETE_BODY_SCHEMA

    operation = result.get("paths", {}).get("/api/triggers/{trigger_id}/", {}).get("delete")
    if operation is not None:
        operation.setdefault(
            "requestBody",
            {
                "content": {"application/json": {"schema": TRIGGER_DELETE_BODY_SCHEMA}},
                "required": False,
            },
        )
    return result
