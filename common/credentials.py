"""Reading and comparing the credentials a request carries (docs/security/findings.md, "Malformed
credentials"): the one rule of the API key (triggers/auth.py), the metrics token
(notiflow/metrics.py) and the recipient token (inbox/auth.py, inbox/tokens.py).

A header reaches Django as a "WSGI string": each byte one character of latin-1, so a header may
hold any of 256 characters, and a test client may put any character at all there. A credential
is made of printable characters; one with a control character or beyond latin-1 is malformed
and refused as a wrong one is (401), never passed on to code that expects text it can encode.
Secrets are compared as bytes: `hmac.compare_digest` refuses `str` holding anything but ASCII.
"""

from __future__ import annotations

import hmac
from typing import Any


class CredentialsMalformed(ValueError):
    """The Authorization header is not `<scheme> <credentials>` of printable characters."""


def _printable(value: str) -> bool:
    return all(" " <= char <= "\xff" and not "\x7f" <= char <= "\x9f" for char in value)


def authorization_credentials(request: Any, scheme: str) -> str | None:
    """The credentials of the request's `Authorization: <scheme> <credentials>` header (the
    scheme in any case, RFC 9110 11.1), stripped. None without an Authorization header (or an empty one);
    CredentialsMalformed when it names another scheme, carries no credentials, or holds a
    character no credential has (a control character, or one beyond latin-1)."""
    header = request.META.get("HTTP_AUTHORIZATION")
    if not header:
        return None
    if isinstance(header, bytes):  # only a test client sends bytes
        header = header.decode("latin-1")
    given, _, credentials = header.partition(" ")
    credentials = credentials.strip()
    if given.lower() != scheme.lower() or not credentials or not _printable(credentials):
        raise CredentialsMalformed(f"Authorization must be '{scheme} <credentials>'")
    return credentials


def secret_matches(given: str, expected: str) -> bool:
    """Whether `given` is `expected`, in constant time, whatever characters `given` holds."""
    return hmac.compare_digest(given.encode("utf-8", "surrogatepass"), expected.encode())
