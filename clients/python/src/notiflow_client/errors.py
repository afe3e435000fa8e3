"""One exception per outcome of a call. Every one is a `NotiflowError` carrying what the server
said: `status` (None when no answer came), `detail` (its sentence) and `errors` (per field)."""

from __future__ import annotations

from typing import Any


class NotiflowError(Exception):
    """A call that did not succeed: the base of every error the client raises for an answer
    (or the lack of one)."""

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        errors: dict[str, Any] | list[Any] | None = None,
        body: Any = None,
    ) -> None:
        said = detail + _problems(detail, errors)
        super().__init__(f"{status} {said}" if status is not None else said)
        self.status = status
        self.detail = detail
        # As the server said them: {field: [problems]} from a request's fields, or a list of
        # {"field", "message"} from a workflow definition's validator.
        self.errors: dict[str, Any] | list[Any] = errors or {}
        self.body = body  # the decoded answer, as the server sent it


def _problems(detail: str, errors: dict[str, Any] | list[Any] | None) -> str:
    """Each field's problems that `detail` does not already say, as `; field: problem`."""
    said = ""
    if isinstance(errors, list):  # the validator's [{"field", "message"}]
        pairs = [(e.get("field", ""), e.get("message", e)) for e in errors if isinstance(e, dict)]
        errors = {}
        for field, message in pairs:
            errors.setdefault(str(field), []).append(message)
    for field, problems in (errors or {}).items():
        for problem in problems if isinstance(problems, list) else [problems]:
            if str(problem) != detail:
                said += f"; {field}: {problem}"
    return said


class ConnectionFailed(NotiflowError):
    """No answer: the connection failed or timed out, on every attempt the retries allowed."""


class BadRequest(NotiflowError):
    """400: the request is invalid; `errors` names each field (an unknown one too)."""


class Unauthorized(NotiflowError):
    """401: no key, or a wrong, revoked or expired one."""


class Forbidden(NotiflowError):
    """403: the key lacks the scope, or may not reach that workflow or person."""


class NotFound(NotiflowError):
    """404: no such thing (or outside the key's workflows)."""


class Conflict(NotiflowError):
    """409: an inactive workflow, a key that exists, a run or fan-out already finished."""


class IdempotencyConflict(NotiflowError):
    """422: the idempotency key (or event id) was used before with other parameters. Nothing
    changed; `existing_trigger_id` (or `existing_fanout_id`) names what holds the key."""

    def __init__(
        self,
        detail: str,
        *,
        status: int | None = None,
        errors: dict[str, Any] | list[Any] | None = None,
        body: Any = None,
    ) -> None:
        super().__init__(detail, status=status, errors=errors, body=body)
        fields = body if isinstance(body, dict) else {}
        self.existing_trigger_id: str | None = fields.get("existing_trigger_id")
        self.existing_fanout_id: str | None = fields.get("existing_fanout_id")


class RateLimited(NotiflowError):
    """429 once the retries are spent (or when the wait asked is too long to wait):
    `retry_after` is the server's `Retry-After`, in seconds."""

    retry_after: float | None = None


class ServerError(NotiflowError):
    """5xx once the retries are spent."""


class Unavailable(ServerError):
    """503 once the retries are spent: no live worker serves the workflow's queue (`detail`
    names the queue and the command that starts one), or the service is down."""


_BY_STATUS: dict[int, type[NotiflowError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    422: IdempotencyConflict,
    429: RateLimited,
    503: Unavailable,
}


def error_for(status: int, body: Any) -> NotiflowError:
    """The exception for an answer of `status` whose decoded body is `body`."""
    fields = body if isinstance(body, dict) else {}
    detail = fields.get("detail")
    if not isinstance(detail, str):
        detail = f"HTTP {status}"
    errors = fields.get("errors")
    kind = _BY_STATUS.get(status) or (ServerError if status >= 500 else NotiflowError)
    return kind(
        detail,
        status=status,
        errors=errors if isinstance(errors, (dict, list)) else None,
        body=body,
    )
