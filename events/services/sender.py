"""One signed POST of one event to one endpoint (docs/design.md, rule 10).

The request goes to an address checked by events.addresses (never a second DNS answer), with the
Standard Webhooks headers, a short timeout, no redirect followed and no retry here: the
dispatcher decides what a failure means. Nothing of the response is kept but its status.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import certifi
import urllib3
from django.conf import settings
from urllib3.exceptions import HTTPError, NewConnectionError

from events.addresses import AddressRefused, Target, target_resolve
from events.signing import signature

USER_AGENT = "Notiflow-Webhooks/1"


@dataclass(frozen=True)
class PostResult:
    """What one attempt got: the HTTP status, or the error that stopped it, and how long it took."""

    status_code: int | None
    error: str
    duration_ms: int

    @property
    def delivered(self) -> bool:
        return self.status_code is not None and 200 <= self.status_code < 300


def webhook_headers(*, secret: str, message_id: str, body: bytes, now: float) -> dict[str, str]:
    """The headers of a webhook request: JSON, and the Standard Webhooks id, timestamp and
    signature."""
    timestamp = int(now)
    return {
        "Content-Type": "application/json",
        "User-Agent": USER_AGENT,
        "webhook-id": message_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": signature(
            secret, message_id=message_id, timestamp=timestamp, body=body
        ),
    }


def _pool(target: Target, address: str, timeout: urllib3.Timeout) -> urllib3.HTTPConnectionPool:
    if target.scheme == "https":
        return urllib3.HTTPSConnectionPool(
            address,
            target.port,
            timeout=timeout,
            retries=False,
            server_hostname=target.host,
            assert_hostname=target.host,
            cert_reqs="CERT_REQUIRED",
            ca_certs=certifi.where(),
        )
    return urllib3.HTTPConnectionPool(address, target.port, timeout=timeout, retries=False)


def post_signed(*, url: str, secret: str, message_id: str, body: bytes) -> PostResult:
    """POST `body` to `url`, signed with `secret` as message `message_id`."""
    started = time.monotonic()

    def result(status_code: int | None, error: str = "") -> PostResult:
        return PostResult(status_code, error[:1000], int((time.monotonic() - started) * 1000))

    try:
        target = target_resolve(url)
    except AddressRefused as exc:
        return result(None, f"refused: {exc}")
    headers = webhook_headers(secret=secret, message_id=message_id, body=body, now=time.time())
    headers["Host"] = target.host_header
    seconds = settings.NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS
    timeout = urllib3.Timeout(connect=seconds, read=seconds)
    error = "no address to connect to"
    for address in target.addresses:
        pool = _pool(target, address, timeout)
        try:
            response = pool.urlopen(
                "POST",
                target.path,
                body=body,
                headers=headers,
                redirect=False,
                assert_same_host=False,
                preload_content=False,
            )
            status = response.status  # the body is not read: only the status counts
            response.close()
            return result(status)
        except NewConnectionError as exc:
            error = f"could not connect to {address}: {exc}"  # the next address, if any
        except HTTPError as exc:
            return result(None, f"{type(exc).__name__}: {exc}")
        finally:
            pool.close()
    return result(None, error)
