"""Slack's two ways in, through slack_sdk: an incoming webhook (WebhookClient, the URL is the
credential) and the Web API's chat.postMessage with the bot token (WebClient; its base URL is
NOTIFLOW_SLACK_API_URL, a stand-in in tests).

slack_sdk's own retries are off: a send is retried by the engine, under the send ledger. Slack
de-duplicates nothing: a resend from the crash window (send_count > 1) may post twice. The
idempotency key travels in chat.postMessage's message metadata (`notiflow_send`), where a reader
of the channel's history can see it.

Errors: a 429 with Retry-After is RateLimited (waits, no attempt); transport errors, 5xx and
Slack's `internal_error`-like answers are transient; every other `ok: false` and 4xx permanent.
"""

from __future__ import annotations

from typing import Any, NoReturn
from urllib.request import Request

from django.conf import settings
from slack_sdk import WebClient, WebhookClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookResponse

from events.addresses import Target
from events.services.sender import pinned_post
from workers.errors import PermanentError, TransientError
from workers.providers import provider_wait

# chat.postMessage `error`s worth retrying (Slack's documented server-side ones).
TRANSIENT_ERRORS = {"internal_error", "fatal_error", "service_unavailable", "request_timeout"}
# How much of a webhook's answer is read (Slack's is a word: `ok`, `no_service`, ...).
ANSWER_READ_BYTES = 4096


class WebhookClientPinned(WebhookClient):
    """slack_sdk's WebhookClient, whose request goes to the checked addresses of its URL
    (events.services.sender.pinned_post: no second DNS answer, the URL's host as Host header and
    TLS server name), follows no redirect (urllib's default opener turns a POST's 301/302/303
    into a GET of the Location, which the address rule never saw) and has a total deadline.
    Every answer comes back as a WebhookResponse, a refusal included. Overrides a private
    method: docs/upgrading.md."""

    def __init__(self, target: Target, url: str, *, timeout: float) -> None:
        super().__init__(url, timeout=max(1, round(timeout)), retry_handlers=[])
        self.target = target
        self.deadline_seconds = timeout

    def _perform_http_request_internal(self, url: str, req: Request) -> WebhookResponse:
        answer = pinned_post(
            self.target,
            body=req.data if isinstance(req.data, bytes) else b"",
            headers=dict(req.header_items()),
            seconds=self.deadline_seconds,
            read_limit=ANSWER_READ_BYTES,
        )
        return WebhookResponse(
            url=url,
            status_code=answer.status,
            body=answer.body.decode("utf-8", "replace"),
            headers=answer.headers,
        )


def _timeout() -> int:
    return max(1, round(settings.NOTIFLOW_CHAT_TIMEOUT_SECONDS))


def _answer_raise(status: int, headers: dict[str, Any], what: str) -> NoReturn:
    """RateLimited, TransientError or PermanentError for an HTTP answer that is not a success."""
    if status == 429:
        limited = provider_wait("slack", headers.get("Retry-After") or headers.get("retry-after"))
        if limited is not None:
            raise limited
        raise TransientError(f"slack: HTTP 429 ({what})")
    if status >= 500:
        raise TransientError(f"slack: HTTP {status} ({what})")
    raise PermanentError(f"slack: HTTP {status} ({what})")


def _refusal_raise(status: int, headers: dict[str, Any], error: str) -> NoReturn:
    """chat.postMessage's refusal: its HTTP status first (429, 5xx), then Slack's `error`."""
    if status == 429 or status >= 500:
        _answer_raise(status, headers, error)
    if error in TRANSIENT_ERRORS:
        raise TransientError(f"slack: chat.postMessage: {error}")
    raise PermanentError(f"slack: chat.postMessage: {error or f'HTTP {status}'}")


def slack_webhook_post(target: Target, *, url: str, text: str, blocks: list[Any] | None) -> None:
    """Post one message to an incoming webhook, `url` checked and resolved as `target`; Slack
    answers `ok` and no message id."""
    client = WebhookClientPinned(target, url, timeout=settings.NOTIFLOW_CHAT_TIMEOUT_SECONDS)
    try:
        response = client.send(text=text, blocks=blocks)
    except Exception as exc:  # PinnedPostFailed: no answer
        raise TransientError(f"slack: {type(exc).__name__}: {exc}") from exc
    if response.status_code != 200:
        _answer_raise(response.status_code, dict(response.headers), str(response.body)[:200])


def slack_message_post(
    *, channel: str, text: str, blocks: list[Any] | None, idempotency_key: str
) -> str:
    """chat.postMessage to a channel or user id with the bot token; the message's `ts`."""
    token = settings.NOTIFLOW_SLACK_BOT_TOKEN
    if not token:
        raise PermanentError("slack: NOTIFLOW_SLACK_BOT_TOKEN is not set (needed for 'channel')")
    client = WebClient(
        token=token,
        base_url=settings.NOTIFLOW_SLACK_API_URL,
        timeout=_timeout(),
        retry_handlers=[],
    )
    metadata = {"event_type": "notiflow_send", "event_payload": {"key": idempotency_key}}
    try:
        response = client.chat_postMessage(
            channel=channel, text=text, blocks=blocks, metadata=metadata
        )
    except SlackApiError as exc:
        response = exc.response
        _refusal_raise(response.status_code, response.headers, str(response.get("error") or ""))
    except Exception as exc:  # urllib's transport errors, an answer that is not JSON
        raise TransientError(f"slack: {type(exc).__name__}: {exc}") from exc
    return str(response.get("ts") or "")
