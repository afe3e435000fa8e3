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
from urllib.request import HTTPRedirectHandler, HTTPSHandler, Request, build_opener

from django.conf import settings
from slack_sdk import WebClient, WebhookClient
from slack_sdk.errors import SlackApiError
from slack_sdk.webhook import WebhookResponse

from workers.errors import PermanentError, TransientError
from workers.providers import provider_wait

# chat.postMessage `error`s worth retrying (Slack's documented server-side ones).
TRANSIENT_ERRORS = {"internal_error", "fatal_error", "service_unavailable", "request_timeout"}


class _NoRedirect(HTTPRedirectHandler):
    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None  # the 3xx comes back as an error answer, not as a new request


class WebhookClientNoRedirect(WebhookClient):
    """slack_sdk's WebhookClient, whose request follows no redirect: urllib's default opener
    turns a POST's 301/302/303 into a GET of the Location, which the address rule never saw
    (docs/security.md, "Chat webhooks"). Overrides a private method: docs/upgrading.md."""

    def _perform_http_request_internal(self, url: str, req: Request) -> WebhookResponse:
        opener = build_opener(_NoRedirect(), HTTPSHandler(context=self.ssl))
        with opener.open(req, timeout=self.timeout) as answer:
            charset = answer.headers.get_content_charset() or "utf-8"
            body = answer.read().decode(charset)
            return WebhookResponse(
                url=url, status_code=answer.status, body=body, headers=answer.headers
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


def slack_webhook_post(url: str, *, text: str, blocks: list[Any] | None) -> None:
    """Post one message to an incoming webhook; Slack answers `ok` and no message id."""
    client = WebhookClientNoRedirect(url, timeout=_timeout(), retry_handlers=[])
    try:
        response = client.send(text=text, blocks=blocks)
    except Exception as exc:  # urllib's transport errors
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
