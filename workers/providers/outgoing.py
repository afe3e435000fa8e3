"""A POST to an address a recipient supplied (a web push endpoint; any later channel of that kind):
the outgoing-request rules of the webhooks (docs/security/providers.md, "Web push endpoints"), in one place.

- The URL passes the address rule of events/addresses.py (public addresses only, unless the
  channel's setting lifts it) and the request goes to the very addresses checked
  (events.services.sender.pinned_post): a DNS answer that changes in between cannot turn it inward.
- No redirect is followed: a 3xx is an answer like any other.
- One deadline for the whole request, connecting to status line, whatever the far end sends.
- Nothing of the answer's body is read. What a caller can write into a run is the status code,
  the headers it asks for, and the fixed phrases below: an address refused for any reason, or no
  answer for any reason (refused, reset, not TLS, not HTTP, timed out), reads the same, so the run
  of a crafted address cannot map what listens where.
"""

from __future__ import annotations

from collections.abc import Mapping

from events.addresses import AddressRefused, target_resolve
from events.services.sender import PinnedAnswer, PinnedPostFailed, pinned_post
from workers.errors import PermanentError, TransientError

REFUSED = "address refused (it must resolve to public addresses only)"
NO_ANSWER = "no answer (the connection failed or the deadline passed)"


def recipient_url_post(
    url: str,
    *,
    what: str,
    allow_private: bool,
    body: bytes,
    headers: Mapping[str, str],
    seconds: float,
) -> PinnedAnswer:
    """POST `body` to `url` under the rules above; the answer's status and headers (its body is
    empty: never read). PermanentError `<what>: REFUSED` when the address may not be used,
    TransientError `<what>: NO_ANSWER` when no status line came within `seconds`."""
    try:
        target = target_resolve(url, allow_private=allow_private)
    # `from None`: the cause's text (the addresses resolved; an SSL or protocol error quoting what
    # the far end sent) must not follow the fixed phrase into a traceback or a log.
    except AddressRefused:
        raise PermanentError(f"{what}: {REFUSED}") from None
    try:
        return pinned_post(target, body=body, headers=headers, seconds=seconds)
    except PinnedPostFailed:
        raise TransientError(f"{what}: {NO_ANSWER}") from None
