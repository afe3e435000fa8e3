"""OpenAPI post-processing: document the JSON error answers every endpoint can give, and the
request bodies drf-spectacular leaves out."""

from __future__ import annotations

from typing import Any

ERROR_SCHEMA = {
    "type": "object",
    "properties": {
        "detail": {"type": "string", "description": "a sentence saying what is wrong"},
        "errors": {"description": "field name -> messages, or a list of definition problems"},
        "existing_trigger_id": {
            "type": "string",
            "format": "uuid",
            "description": "with 422: the trigger that holds the idempotency key",
        },
    },
    "required": ["detail"],
}
PUBLIC = ("/api/health/", "/api/schema/", "/api/docs/")
CONFLICTS = {
    ("/api/triggers/", "post"),
    ("/api/workflows/", "post"),
    ("/api/triggers/{trigger_id}/cancel/", "post"),
}
# Intake refuses a trigger whose workflow's queue no live worker serves (registry/).
UNSERVED = {("/api/triggers/", "post")}
# An idempotency key reused with other parameters (docs/design.md, HTTP API).
UNPROCESSABLE = {("/api/triggers/", "post")}
DESCRIPTIONS = {
    "400": "Invalid input; `errors` names the fields",
    "401": "No or wrong API key",
    "404": "No such resource (or page)",
    "409": "Conflict with the current state",
    "422": "The idempotency key was used with other parameters (payload, priority or "
    "cancellation_key); nothing changed. `detail` names the trigger holding it, "
    "`existing_trigger_id` is its id",
    "503": "no live worker serves the workflow's queue (NOTIFLOW_TRIGGER_REQUIRES_WORKER); "
    "nothing was stored, `detail` names the queue and the command that starts a worker for it",
}


def add_error_responses(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    result.setdefault("components", {}).setdefault("schemas", {})["Error"] = ERROR_SCHEMA
    for path, operations in result.get("paths", {}).items():
        if path in PUBLIC:
            continue
        for method, operation in operations.items():
            codes = ["400", "401", "404"]
            if (path, method) in CONFLICTS:
                codes.append("409")
            if (path, method) in UNPROCESSABLE:
                codes.append("422")
            if (path, method) in UNSERVED:
                codes.append("503")
            for code in codes:
                operation["responses"].setdefault(
                    code,
                    {
                        "description": DESCRIPTIONS[code],
                        "content": {
                            "application/json": {"schema": {"$ref": "#/components/schemas/Error"}}
                        },
                    },
                )
    return result


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
