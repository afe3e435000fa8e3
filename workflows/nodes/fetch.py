"""The fetch node type (docs/guide/fetch.md): one HTTP request at a point in the flow, its answer
in `vars.fetch_<id>` for later nodes and `when` edges.

What the node declares is here: its fields and their checks, the rendering of its URL, headers
and body (under one render budget), what it leaves in vars, what `on_error: continue` does, its
preview, picture and admin row. The request itself, under the webhooks' outgoing rules (address
checks per hop, one deadline, a size cap, credentials, retries' classification), is the engine's
(workers/services/fetch.py), reached through the StepPort.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, ClassVar
from urllib.parse import urlsplit

from django.conf import settings

from workflows.decisions import PASSED, StepDecision
from workflows.definition import duration_parse
from workflows.nodes.base import (
    NodePreview,
    NodeRun,
    NodeType,
    Problem,
    RenderedField,
    RenderError,
    StepFailed,
    StepPort,
    output_key,
)
from workflows.templating import (
    TemplateError,
    render_budget,
    template_check,
    template_has_markup,
    template_render,
)

if TYPE_CHECKING:
    from django import forms

METHODS = ("GET", "POST", "PUT", "PATCH", "DELETE")
ON_ERROR = ("fail", "continue")
# RFC 9110 token characters: what a header name may be.
_HEADER_NAME = re.compile(r"^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,100}$")
_CREDENTIAL_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,100}$")
# Headers the request sets itself: a node may not set them (a credential carries authorization).
RESERVED_HEADERS = (
    "host",
    "content-length",
    "transfer-encoding",
    "connection",
    "authorization",
    "proxy-authorization",
    "cookie",
    "idempotency-key",
    "webhook-id",
    "webhook-timestamp",
    "webhook-signature",
)
MAX_HEADERS = 20
RULE_FETCH = "fetch"


@dataclass(frozen=True)
class FetchRequest:
    """One fetch as its node rendered it; `credential` names an operator's secret (never holds
    it); `timeout` is the whole deadline in seconds."""

    node_id: str
    method: str
    url: str
    headers: dict[str, str] = field(default_factory=dict)
    body: str | None = None
    credential: str = ""
    timeout: float = 0.0


@dataclass(frozen=True)
class FetchAnswer:
    """What the far end answered (2xx): the status, the headers worth keeping, the body parsed
    as JSON (else its text), when it came (the step's clock) and the URL that answered (after
    redirects)."""

    status: int
    headers: dict[str, str]
    body: Any
    fetched_at: datetime
    url: str

    def as_vars(self) -> dict[str, Any]:
        return {
            "status": self.status,
            "headers": self.headers,
            "body": self.body,
            "fetched_at": self.fetched_at.isoformat(),
        }


def fetch_timeout(node: dict[str, Any]) -> float:
    """A (validated) node's deadline in seconds: its `timeout`, at most (and by default)
    NOTIFLOW_FETCH_TIMEOUT_SECONDS."""
    ceiling = float(settings.NOTIFLOW_FETCH_TIMEOUT_SECONDS)
    given = node.get("timeout")
    if not given:
        return ceiling
    return min(duration_parse(str(given)).total_seconds(), ceiling)


class FetchNode(NodeType):
    name = "fetch"
    required = ("url",)
    optional = ("method", "headers", "body", "credential", "timeout", "on_error")
    templates = ("url", "body")
    outputs = True
    colours = ("#eaf2fb", "#2e6da4")
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        "url": {
            "type": "string",
            "example": "https://shop.example.com/api/orders/{{ payload.order_id }}",
        },
        "method": {"type": "string", "enum": list(METHODS), "default": "GET"},
        "headers": {
            "type": "object",
            "additionalProperties": {"type": "string"},
            "description": "header name -> value (a Liquid template)",
        },
        "credential": {
            "type": "string",
            "description": "the name of a secret in NOTIFLOW_FETCH_CREDENTIALS, sent as a header",
        },
        "timeout": {"type": "string", "example": "5s"},
        "on_error": {"type": "string", "enum": list(ON_ERROR), "default": "fail"},
    }
    form_groups = (
        ("method", "url"),
        ("headers",),
        ("body",),
        ("credential", "timeout", "on_error"),
    )

    # --- validation ---------------------------------------------------------------------------

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found: list[Problem] = []
        url = node.get("url")
        if isinstance(url, str) and url.strip() and not template_has_markup(url):
            parts = urlsplit(url.strip())
            if parts.scheme not in ("http", "https") or not parts.hostname:
                found.append(("url", "must be an http or https URL with a host"))
            elif parts.username is not None or parts.password is not None:
                found.append(("url", "may not carry a user name or password (use `credential`)"))
        elif isinstance(url, str) and url.strip() and not url.strip().startswith(("http", "{")):
            found.append(("url", "must start with http:// or https:// (or a template giving one)"))
        method = node.get("method")
        if method is not None and method not in METHODS:
            found.append(("method", f"must be one of {', '.join(METHODS)}"))
        found += _header_problems(node.get("headers"))
        if node.get("body") not in (None, "") and method in (None, "GET"):
            found.append(("body", "a GET sends no body: set `method` (POST, PUT, PATCH, DELETE)"))
        found += _credential_problems(node.get("credential"))
        timeout = node.get("timeout")
        if timeout is not None:
            ceiling = float(settings.NOTIFLOW_FETCH_TIMEOUT_SECONDS)
            try:
                seconds = duration_parse(str(timeout)).total_seconds()
            except ValueError as exc:
                found.append(("timeout", str(exc)))
            else:
                if not 0 < seconds <= ceiling:
                    found.append(
                        (
                            "timeout",
                            f"must be above 0s and at most {ceiling:g}s "
                            "(NOTIFLOW_FETCH_TIMEOUT_SECONDS)",
                        )
                    )
        on_error = node.get("on_error")
        if on_error is not None and on_error not in ON_ERROR:
            found.append(("on_error", f"must be one of {', '.join(ON_ERROR)}"))
        return found

    def template_sources(self, node: dict[str, Any]) -> list[str]:
        headers = node.get("headers")
        values = (
            [v for v in headers.values() if isinstance(v, str)] if isinstance(headers, dict) else []
        )
        return [*super().template_sources(node), *values]

    # --- rendering and running ----------------------------------------------------------------

    def request(self, node: dict[str, Any], context: dict[str, Any]) -> FetchRequest:
        """The request a run of `node` makes with `context`: URL, header values and body rendered
        under one render budget; RenderError naming the field that failed."""
        with render_budget():
            url = self.field_render(node, "url", context).strip()
            headers = {
                str(name): _header_value(node, str(name), str(value), context)
                for name, value in (node.get("headers") or {}).items()
            }
            body = self.field_render(node, "body", context) if node.get("body") else None
        return FetchRequest(
            node_id=str(node["id"]),
            method=str(node.get("method") or "GET"),
            url=url,
            headers=headers,
            body=body,
            credential=str(node.get("credential") or ""),
            timeout=fetch_timeout(node),
        )

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        request = self.request(node, step.context)
        evidence: dict[str, Any] = {
            "node": node["id"],
            "method": request.method,
            "url": request.url,
        }
        try:
            answer = step.fetch(request)
        except StepFailed as exc:
            if node.get("on_error") != "continue" or (exc.transient and not step.last_attempt):
                raise
            failed = {
                "error": str(exc),
                "status": getattr(exc, "evidence", {}).get("status"),
                "fetched_at": step.now.isoformat(),
            }
            reason = f"Fetch {node['id']!r} failed ({exc}); went on, as its on_error: continue says"
            decision = StepDecision(PASSED, reason[:1000], RULE_FETCH, {**evidence, **failed})
            return NodeRun(output=failed, vars_patch={output_key(node): failed}, decision=decision)
        output = answer.as_vars()
        evidence.update(status=answer.status, answered_by=answer.url)
        reason = f"Fetch {node['id']!r}: {request.method} {request.url} answered {answer.status}"
        decision = StepDecision(PASSED, reason[:1000], RULE_FETCH, evidence)
        return NodeRun(output=output, vars_patch={output_key(node): output}, decision=decision)

    # --- preview, diagram and admin -----------------------------------------------------------

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        request = self.request(node, context)
        fields = [RenderedField("url", request.url)]
        if request.body is not None:
            fields.append(RenderedField("body", request.body))
        note = f"would {request.method} it (not called in a preview)"
        return NodePreview(node["id"], self.name, fields, note=note)

    def placeholder(
        self, node: dict[str, Any], *, preview: NodePreview, payload: dict[str, Any], now: datetime
    ) -> dict[str, Any]:
        return {"status": 200, "headers": {}, "body": {}, "fetched_at": now.isoformat()}

    def summary(self, node: dict[str, Any]) -> str:
        host = urlsplit(str(node.get("url", ""))).hostname or "…"
        return f"fetch · {node.get('method') or 'GET'} {host}"

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        from workflows.admin.forms import OptionalJSONField  # the admin's, as forms are

        return {
            "method": forms.ChoiceField(
                required=False, choices=[("", "GET"), *((m, m) for m in METHODS[1:])]
            ),
            "headers": OptionalJSONField(
                required=False, help_text='e.g. {"Accept": "application/json"}'
            ),
            "credential": forms.CharField(
                required=False,
                widget=forms.TextInput(attrs={"size": 12, "placeholder": "shop"}),
                help_text="a secret's name in NOTIFLOW_FETCH_CREDENTIALS",
            ),
            "on_error": forms.ChoiceField(
                required=False,
                choices=[("", "fail the run"), ("continue", "go on (the error in vars)")],
            ),
        }


def _header_value(node: dict[str, Any], name: str, value: str, context: dict[str, Any]) -> str:
    """A header's value rendered; RenderError naming `headers.<name>` when it fails or renders
    a line break (which would end the header)."""
    where = f"node {node['id']!r} field 'headers.{name}'"
    try:
        rendered = template_render(value, context)
    except TemplateError as exc:
        raise RenderError(f"{where}: {exc}", field="headers", detail=str(exc)) from exc
    if "\r" in rendered or "\n" in rendered:
        raise RenderError(f"{where}: renders a line break", field="headers")
    return rendered


def _header_problems(headers: Any) -> list[Problem]:
    if headers is None:
        return []
    if not isinstance(headers, dict) or len(headers) > MAX_HEADERS:
        return [("headers", f"must be an object of at most {MAX_HEADERS} header names to values")]
    found: list[Problem] = []
    for name, value in headers.items():
        if not _HEADER_NAME.match(str(name)):
            found.append(("headers", f"{name!r} is not a header name"))
        elif str(name).lower() in RESERVED_HEADERS:
            why = (
                "name a `credential` instead"
                if "auth" in str(name).lower()
                else "it is set by Notiflow"
            )
            found.append(("headers", f"{name!r} may not be set here: {why}"))
        elif not isinstance(value, str) or "\r" in value or "\n" in value:
            found.append(("headers", f"the value of {name!r} must be a string on one line"))
        else:
            try:
                template_check(value)
            except TemplateError as exc:
                found.append(("headers", f"the value of {name!r}: {exc}"))
    return found


def _credential_problems(name: Any) -> list[Problem]:
    if name is None:
        return []
    if not isinstance(name, str) or not _CREDENTIAL_NAME.match(name):
        return [("credential", "must be a credential's name (letters, digits, '_', '-', '.')")]
    return []


def rate_limit_wait(vars_value: Any) -> timedelta:
    """How long a fetch node has waited on 429s so far, as its vars keep it while it waits."""
    seconds = vars_value.get("rate_limited_seconds") if isinstance(vars_value, dict) else None
    return timedelta(seconds=float(seconds)) if isinstance(seconds, int | float) else timedelta(0)
