"""A fetch node's request (docs/guide/fetch.md; the node: workflows/nodes/fetch.py), under the
webhooks' outgoing rules (docs/guide/webhooks.md): the address rule of
events/addresses.py on the URL and again on every redirect it follows (each hop resolved, checked
and connected to at the very addresses checked: events.services.sender.pinned_request), one
deadline for the whole (redirects included), at most NOTIFLOW_FETCH_MAX_BYTES of body read.

What a failure means is decided here, once (docs/design/rules.md, rule 7): no answer (refused, reset,
timed out) and 5xx and 408 are transient; a 429 puts the step back for its `Retry-After` without
counting an attempt, until NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT has been waited in all, when it is
transient; an address refused, a body too big, too many redirects and any other non-2xx are
permanent. Failures read as fixed phrases plus the status: the run of a crafted URL cannot map
what listens where.

The operator's credential (NOTIFLOW_FETCH_CREDENTIALS) is added as its header here and nowhere
else, only to the URL's own origin (a redirect elsewhere does not carry it); no error, step log
or vars ever holds it. A request that changes something (any method but GET) carries an
`Idempotency-Key` of its run and node, the same on every retry; with
NOTIFLOW_FETCH_SIGNING_SECRET set, every request is signed with the Standard Webhooks headers.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime, timedelta
from typing import Any
from urllib.parse import urljoin, urlsplit

from django.conf import settings

from events.addresses import AddressRefused, Target, target_resolve
from events.services.sender import PinnedAnswer, PinnedPostFailed, pinned_request, webhook_headers
from workers.errors import PermanentError, RateLimited, TransientError
from workers.providers.outgoing import NO_ANSWER, REFUSED
from workflows.nodes.fetch import FetchAnswer, FetchRequest, rate_limit_wait

USER_AGENT = "Notiflow-Fetch/1"
MAX_REDIRECTS = 5
REDIRECTS = (301, 302, 303, 307, 308)
# The answer's headers a run keeps (vars are seen by templates and step logs: no cookies).
KEPT_HEADERS = (
    "content-type",
    "content-length",
    "content-language",
    "etag",
    "last-modified",
    "cache-control",
    "date",
    "expires",
    "retry-after",
    "x-request-id",
)
# Without a Retry-After, a 429 waits this long before the next try.
DEFAULT_RATE_LIMIT_WAIT = timedelta(seconds=30)


def fetch_perform(
    request: FetchRequest,
    *,
    trigger_id: str,
    waited: Any,
    clock: Callable[[], datetime],
) -> FetchAnswer:
    """`request` made (redirects followed, each hop checked) within its deadline; the 2xx answer,
    or the error the classification above gives. `waited` is what the run's vars keep of the
    node's earlier 429 waits; `clock` reads the step's clock (StepClock.now)."""
    headers = {"User-Agent": USER_AGENT, "Accept": "application/json, text/*;q=0.9"}
    headers.update(request.headers)
    body = request.body.encode() if request.body is not None else None
    if body is not None:
        headers.setdefault("Content-Type", "application/json")
    if request.method != "GET":
        headers["Idempotency-Key"] = f"{trigger_id}:{request.node_id}"
    private = _credential(request.credential)
    secret = settings.NOTIFLOW_FETCH_SIGNING_SECRET
    if secret:
        message_id = f"{trigger_id}:{request.node_id}"
        headers.update(
            webhook_headers(secret=secret, message_id=message_id, body=body or b"", now=time.time())
        )
        headers["User-Agent"] = USER_AGENT
        if body is None:
            headers.pop("Content-Type", None)
    answer, url = _follow(request, headers, private, body)
    if 200 <= answer.status < 300:
        return FetchAnswer(
            status=answer.status,
            headers=_kept(answer.headers),
            body=_parsed(answer),
            fetched_at=clock(),
            url=url,
        )
    raise _refusal(request, answer, waited=waited, now=clock())


def _credential(name: str) -> dict[str, str]:
    """The header the operator's credential `name` is sent as ({} for none); PermanentError
    naming it (never its value) when it is not configured."""
    if not name:
        return {}
    configured = json.loads(settings.NOTIFLOW_FETCH_CREDENTIALS or "{}")
    if name not in configured:
        raise PermanentError(
            f"credential {name!r} is not in NOTIFLOW_FETCH_CREDENTIALS on this worker",
            rule="fetch",
        )
    value = configured[name]
    if isinstance(value, str):
        return {"Authorization": value}
    return {str(value["header"]): str(value["value"])}


def _origin(url: str) -> tuple[str, str, int | None]:
    parts = urlsplit(url)
    return parts.scheme, (parts.hostname or "").lower(), parts.port


def _follow(
    request: FetchRequest,
    headers: dict[str, str],
    private: Mapping[str, str],
    body: bytes | None,
) -> tuple[PinnedAnswer, str]:
    """The answer of the last hop and its URL: each redirect's Location resolved, checked and
    fetched within what is left of the deadline (a 303, and a 301 or 302 of a POST, as a GET
    without body); the credential only for hops on the first URL's origin."""
    started = time.monotonic()
    method, url = request.method, request.url
    origin = _origin(url)
    for _hop in range(MAX_REDIRECTS + 1):
        target = _target(url)
        sent = {**headers, **(private if _origin(url) == origin else {})}
        if body is None:
            sent.pop("Content-Type", None)
        try:
            answer = pinned_request(
                target,
                method=method,
                body=body,
                headers=sent,
                seconds=request.timeout,
                started=started,
                read_limit=settings.NOTIFLOW_FETCH_MAX_BYTES + 1,
            )
        except PinnedPostFailed:
            raise TransientError(f"fetch {request.node_id}: {NO_ANSWER}", rule="fetch") from None
        location = answer.header("Location")
        if answer.status not in REDIRECTS or not location:
            return answer, url
        url = urljoin(url, location)
        if answer.status == 303 or (answer.status in (301, 302) and method == "POST"):
            method, body = "GET", None
    raise PermanentError(
        f"fetch {request.node_id}: more than {MAX_REDIRECTS} redirects", rule="fetch"
    )


def _target(url: str) -> Target:
    try:
        return target_resolve(url, allow_private=settings.NOTIFLOW_FETCH_ALLOW_PRIVATE)
    # `from None`: the cause names the addresses resolved, which a run must not learn.
    except AddressRefused:
        raise PermanentError(f"fetch: {REFUSED}", rule="fetch") from None


def _refusal(
    request: FetchRequest, answer: PinnedAnswer, *, waited: Any, now: datetime
) -> Exception:
    """What a non-2xx answer means (the module's docstring), to raise."""
    status = answer.status
    what = f"fetch {request.node_id}: {request.method} answered {status}"
    evidence = {"status": status}
    if status == 429:
        wait = _retry_after(answer.header("Retry-After"), now=now)
        total = rate_limit_wait(waited) + wait
        if total.total_seconds() <= settings.NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT:
            patch = {f"fetch_{request.node_id}": {"rate_limited_seconds": total.total_seconds()}}
            return RateLimited("fetch", wait, vars_patch=patch)
        return TransientError(
            f"{what} (rate limited past NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT)",
            rule="fetch",
            evidence=evidence,
        )
    if status >= 500 or status == 408:
        return TransientError(what, rule="fetch", evidence=evidence)
    return PermanentError(what, rule="fetch", evidence=evidence)


def _retry_after(value: str | None, *, now: datetime) -> timedelta:
    """A Retry-After's wait: seconds, or an HTTP date (from `now`, the step's clock);
    DEFAULT_RATE_LIMIT_WAIT without one."""
    if not value:
        return DEFAULT_RATE_LIMIT_WAIT
    if value.strip().isdigit():
        return timedelta(seconds=int(value.strip()))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return DEFAULT_RATE_LIMIT_WAIT
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(when - now, timedelta(seconds=1))


def _kept(headers: Mapping[str, str]) -> dict[str, str]:
    return {k.lower(): v for k, v in headers.items() if k.lower() in KEPT_HEADERS}


def _parsed(answer: PinnedAnswer) -> Any:
    """The body as JSON when it parses as such (its type says JSON, or it looks like it), else
    its text; PermanentError when it is over NOTIFLOW_FETCH_MAX_BYTES."""
    limit = settings.NOTIFLOW_FETCH_MAX_BYTES
    if len(answer.body) > limit:
        raise PermanentError(
            f"fetch: the answer is larger than NOTIFLOW_FETCH_MAX_BYTES ({limit} bytes)",
            rule="fetch",
            evidence={"status": answer.status},
        )
    content_type = (answer.header("Content-Type") or "").lower()
    charset = "utf-8"
    if "charset=" in content_type:
        charset = content_type.split("charset=", 1)[1].split(";")[0].strip() or "utf-8"
    try:
        text = answer.body.decode(charset, errors="replace")
    except LookupError:
        text = answer.body.decode("utf-8", errors="replace")
    if "json" in content_type or text.lstrip().startswith(("{", "[")):
        try:
            return json.loads(text)
        except ValueError:
            pass
    return text.replace("\x00", "")
