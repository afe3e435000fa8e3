"""Failed admin logins, throttled per account and per address (docs/security/deployment.md, "Admin login").

Before a password is checked, the login takes one from two buckets of the API's limiter
(common/throttling.py, one Redis bucket each, shared by every web process): the account's (the
user name as typed, in lower case) at NOTIFLOW_LOGIN_LIMIT_ACCOUNT [10/h] and the client
address's (an IPv6 address's /64) at NOTIFLOW_LOGIN_LIMIT_ADDRESS [30/h]. Either empty: the login
is refused with a lockout message saying when to try again, without checking the password (a
check costs the password hasher's CPU). Taking is the check and the count in one atomic step, so
N concurrent guesses cannot all pass before any is counted; a login that did not fail (a right
password) gives its count back, so a right password is never counted. A rate N/period allows N
failures at once, then one more every period/N.

The address is the connection's (REMOTE_ADDR): behind a proxy every client has the proxy's
address, and the address limit is then one for the whole site. When Redis does not answer,
logins are not throttled (the limiter fails open, with a warning).
"""

from __future__ import annotations

import hashlib
import ipaddress
import logging
import math
from typing import Any

from django.conf import settings
from django.contrib.admin.forms import AdminAuthenticationForm
from django.core.exceptions import ValidationError
from django.http import HttpRequest

from common.throttling import bucket_give, bucket_wait, parse_rate

logger = logging.getLogger(__name__)


def client_network(address: str) -> str:
    """Whom an address's bucket counts: an IPv4 address, or an IPv6 address's /64 (one host's
    usual share, so that an attacker cannot take a fresh address for every guess)."""
    try:
        ip = ipaddress.ip_address(address.split("%", 1)[0])
    except ValueError:
        return address
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            return str(ip.ipv4_mapped)
        return str(ipaddress.IPv6Network((ip, 64), strict=False))
    return str(ip)


def login_buckets(*, username: str, address: str) -> list[tuple[str, tuple[int, int]]]:
    """The buckets a login for `username` from `address` counts against, with their limits
    (none of a limit that is off)."""
    digest = hashlib.sha256(username.strip().lower().encode()).hexdigest()[:32]
    network = client_network(address)
    buckets = [
        (f"notiflow:login:account:{digest}", settings.NOTIFLOW_LOGIN_LIMIT_ACCOUNT),
        (f"notiflow:login:address:{network}", settings.NOTIFLOW_LOGIN_LIMIT_ADDRESS),
    ]
    return [(bucket, limit) for bucket, rate in buckets if (limit := parse_rate(rate))]


def login_take(*, username: str, address: str) -> float:
    """Count a login for `username` from `address` in both buckets before its password is
    checked, each in one atomic step with the check that it may be tried, so that concurrent
    logins cannot all pass one look at a bucket. The seconds until one may be tried when a
    bucket is empty (then nothing stays counted); 0 when it may now."""
    taken: list[tuple[str, tuple[int, int]]] = []
    for bucket, limit in login_buckets(username=username, address=address):
        wait = bucket_wait(bucket=bucket, limit=limit)
        if wait > 0:
            for back, its_limit in taken:
                bucket_give(bucket=back, limit=its_limit)
            return wait
        taken.append((bucket, limit))
    return 0.0


def login_give(*, username: str, address: str) -> None:
    """Uncount a login `login_take` counted that did not fail (a right password)."""
    for bucket, limit in login_buckets(username=username, address=address):
        bucket_give(bucket=bucket, limit=limit)


def _in_words(seconds: float) -> str:
    minutes = math.ceil(seconds / 60)
    return f"{minutes} minute{'s' if minutes != 1 else ''}"


class ThrottledAuthenticationForm(AdminAuthenticationForm):
    """The admin's login form (notiflow/admin.py), with the throttle above."""

    error_messages = {
        **AdminAuthenticationForm.error_messages,
        "locked": (
            "Too many failed logins for this account or from this address. Try again in %(wait)s."
        ),
    }

    def clean(self) -> dict[str, Any]:
        username = str(self.cleaned_data.get("username") or "")
        request: HttpRequest | None = self.request
        address = str(request.META.get("REMOTE_ADDR", "")) if request is not None else ""
        if not (username and self.cleaned_data.get("password")):
            return super().clean()
        wait = login_take(username=username, address=address)
        if wait > 0:
            logger.warning("admin login for %r from %s refused: locked out", username, address)
            raise ValidationError(
                self.error_messages["locked"], code="locked", params={"wait": _in_words(wait)}
            )
        failed = False
        try:
            return super().clean()
        except ValidationError as exc:
            failed = exc.code == "invalid_login"
            raise
        finally:
            if not failed:
                login_give(username=username, address=address)
