"""OpenAPI: each operation's API key scope and what a key limited to workflows may do with it,
the JSON error answers every endpoint can give, and the request bodies drf-spectacular leaves
out."""

from __future__ import annotations

from typing import Any

from drf_spectacular.openapi import AutoSchema

from common.scopes import (
    TRIGGER,
    AnonymousOrHasScope,
    Refused,
    limit_text,
    required_scope,
    workflow_limit,
)

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
# Intake refuses (403) a workflow outside the key's workflows; elsewhere they are a 404.
WORKFLOW_REFUSED = {("/api/triggers/", "post")}
# Intake refuses a trigger whose workflow's queue no live worker serves (registry/).
UNSERVED = {("/api/triggers/", "post")}
# An idempotency key reused with other parameters (docs/design/api.md, HTTP API).
UNPROCESSABLE = {("/api/triggers/", "post")}
# A workflow named in the body that does not exist is a 400 (a bulk item's own 400 in bulk).
UNKNOWN_WORKFLOW = {("/api/triggers/", "post"), ("/api/triggers/cancel/", "post")}
DESCRIPTIONS = {
    "400": "Invalid input; `errors` names each field or query parameter at fault: missing, "
    "invalid, or unknown (a near miss gets a did-you-mean: `unknown field; did you mean "
    "'category'?`); a query parameter given twice; a query parameter containing NUL (%00), "
    "with `detail` only",
    "401": "No or wrong API key",
    "404": "No such resource (or page)",
    "429": "Over this API key's rate limit for the operation's scope (NOTIFLOW_RATE_LIMIT_TRIGGER "
    "or NOTIFLOW_RATE_LIMIT_ADMIN); the Retry-After header says in how many seconds to retry",
    "409": "Conflict with the current state",
    "422": "The idempotency key was used with other parameters; nothing changed. `detail` names "
    "the ones that differ (payload, priority, cancellation_key) and the trigger holding the key, "
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
            codes = ["400", "401", "404", "429"]
            if (path, method) in CONFLICTS:
                codes.append("409")
            if (path, method) in UNPROCESSABLE:
                codes.append("422")
            if (path, method) in UNSERVED:
                codes.append("503")
            for code in codes:
                operation["responses"].setdefault(code, _error(DESCRIPTIONS[code]))
            if (path, method) in UNKNOWN_WORKFLOW:
                operation["responses"]["400"]["description"] += (
                    "; the workflow named does not exist (or is outside the API key's workflows)"
                )
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
    (common/scopes.py): in its description, as `x-scope`, and its 403."""

    def get_operation(self, *args: Any, **kwargs: Any) -> dict[str, Any] | None:
        operation = super().get_operation(*args, **kwargs)
        if operation is None or not self.view.authentication_classes:
            return operation  # the schema and docs: no key
        if getattr(self.view, "recipient_token", False):
            return operation  # the in-app inbox's feed API: a recipient token, no scope
        scope = required_scope(self.view, self.method)
        needs = f"Needs an API key with the `{scope}` scope."
        operation["description"] = f"{needs} {operation.get('description', '')}".strip()
        operation["x-scope"] = scope
        refused = f"this API key lacks the '{scope}' scope"
        if (self.path, self.method.lower()) in WORKFLOW_REFUSED:
            refused += ", or is limited to other workflows than the one named"
        if scope == TRIGGER:
            limit = workflow_limit(self.view, self.method)
            operation["x-workflow-limit"] = "refused" if isinstance(limit, Refused) else limit
            limited = f"A key limited to workflows: {limit_text(self.view, self.method)}."
            operation["description"] = f"{operation['description']} {limited}"
            if isinstance(limit, Refused):
                refused += f", or is limited to workflows and may not {limit.what}"
        operation["responses"].setdefault("403", _error(refused))
        return operation

    def get_override_parameters(self) -> list[Any]:
        """The query parameters the view declares for the method: the ones it accepts
        (common.http.StrictQueryParameters), so the two cannot drift apart."""
        declared = getattr(self.view, "query_parameters", {}).get(self.method, [])
        return [*super().get_override_parameters(), *declared]

    def get_auth(self) -> list[dict[str, Any]]:
        auths: list[dict[str, Any]] = super().get_auth()
        # The health endpoint: a key is optional (drf-spectacular knows only AllowAny).
        permissions = self.view.get_permissions()
        if any(isinstance(p, AnonymousOrHasScope) for p in permissions) and {} not in auths:
            auths.append({})
        return auths


def add_delete_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """The JSON bodies of DELETE /api/triggers/<id>/ (optional), of DELETE
    /api/topics/<key>/subscribers/ and of DELETE /api/recipients/<id>/channels/<channel>/: drf-spectacular documents a request body only for POST, PUT
    and PATCH (AutoSchema._get_request_body), whatever extend_schema says.
    """
    from recipients.channels_api import ADDRESS_BODY_SCHEMA, ADDRESS_DELETE_PATH
    from recipients.topics_api import SUBSCRIBERS_BODY_SCHEMA, SUBSCRIBERS_DELETE_PATH
    from triggers.api import TRIGGER_DELETE_BODY_SCHEMA

    bodies = [
        ("/api/triggers/{trigger_id}/", TRIGGER_DELETE_BODY_SCHEMA, False),
        (SUBSCRIBERS_DELETE_PATH, SUBSCRIBERS_BODY_SCHEMA, True),
        (ADDRESS_DELETE_PATH, ADDRESS_BODY_SCHEMA, True),
    ]
    for path, schema, required in bodies:
        operation = result.get("paths", {}).get(path, {}).get("delete")
        if operation is not None:
            operation.setdefault(
                "requestBody",
                {"content": {"application/json": {"schema": schema}}, "required": required},
            )
    return result


def close_request_bodies(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """`additionalProperties: false` on every request body object, and the objects it holds
    (a bulk request's items): the API refuses a field it does not know (common.http
    StrictSerializer), and the schema says so, so a client or fuzzer knows an extra field is a
    400 and not a valid request."""
    components = result.get("components", {}).get("schemas", {})
    pending = [
        media["schema"]
        for methods in result.get("paths", {}).values()
        for operation in methods.values()
        for media in operation.get("requestBody", {}).get("content", {}).values()
    ]
    seen: set[int] = set()
    while pending:
        schema = pending.pop()
        if id(schema) in seen:
            continue
        seen.add(id(schema))
        if "$ref" in schema:
            pending.append(components[schema["$ref"].rsplit("/", 1)[-1]])
            continue
        if schema.get("type") == "object" and "properties" in schema:
            schema["additionalProperties"] = False
            pending.extend(p for p in schema["properties"].values() if _holds_objects(p))
        pending.extend(schema.get("allOf", []))
        if isinstance(schema.get("items"), dict):
            pending.append(schema["items"])
    return result


def _holds_objects(schema: dict[str, Any]) -> bool:
    """A property the walk follows: one naming a component, or an array of them. A free-form
    object (a payload) stays open; a node's schemas (`oneOf`, one per node type) close
    themselves (workflows.api.NodeListSchema)."""
    return "$ref" in schema or "allOf" in schema or isinstance(schema.get("items"), dict)


# OpenAPI links: what a created resource's id feeds (Schemathesis's stateful phase follows them,
# tests/test_schemathesis.py). (path, method, status) -> [(link name, operationId, parameters)].
_TRIGGER = {"trigger_id": "$response.body#/id"}
_WORKFLOW = {"key": "$response.body#/key"}
_WEBHOOK = {"endpoint_id": "$response.body#/id"}
LINKS: dict[tuple[str, str, str], list[tuple[str, str, dict[str, str]]]] = {
    ("/api/triggers/", "post", "201"): [
        ("GetTrigger", "triggers_retrieve", _TRIGGER),
        ("GetTriggerLogs", "triggers_logs_list", _TRIGGER),
        ("CancelTrigger", "triggers_cancel_create", _TRIGGER),
        ("DeleteTrigger", "triggers_destroy", _TRIGGER),
    ],
    ("/api/workflows/", "post", "201"): [
        ("GetWorkflow", "workflows_retrieve", _WORKFLOW),
        ("GetWorkflowStats", "workflows_stats_retrieve", _WORKFLOW),
        ("EditWorkflow", "workflows_partial_update", _WORKFLOW),
        ("ReplaceWorkflow", "workflows_update", _WORKFLOW),
        ("DeleteWorkflow", "workflows_destroy", _WORKFLOW),
    ],
    ("/api/webhooks/", "post", "201"): [
        ("GetWebhook", "webhooks_retrieve", _WEBHOOK),
        ("EditWebhook", "webhooks_partial_update", _WEBHOOK),
        ("RotateWebhookSecret", "webhooks_rotate_secret_create", _WEBHOOK),
        ("TestWebhook", "webhooks_test_create", _WEBHOOK),
        ("GetWebhookDeliveries", "webhooks_deliveries_list", _WEBHOOK),
        ("DeleteWebhook", "webhooks_destroy", _WEBHOOK),
    ],
}


def add_links(result: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
    """The LINKS above, on their responses; a link to an operation the schema lacks is an error
    here rather than a schema Schemathesis refuses."""
    operations = {
        operation.get("operationId")
        for methods in result.get("paths", {}).values()
        for operation in methods.values()
    }
    for (path, method, status), links in LINKS.items():
        response = result["paths"][path][method]["responses"][status]
        for name, operation_id, parameters in links:
            if operation_id not in operations:
                raise ValueError(f"OpenAPI link {name}: no operation {operation_id}")
            response.setdefault("links", {})[name] = {
                "operationId": operation_id,
                "parameters": parameters,
            }
    return result
