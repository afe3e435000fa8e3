"""Email provider connections kept open per worker thread (docs/design/channels.md, "Providers").

Django's email backends open a connection for each message when the caller has not opened one:
a TCP and TLS handshake, EHLO and AUTH (an SMTP relay) or a new HTTPS session (an anymail ESP)
before every send. Here a worker thread keeps one open backend per provider and sends through it:

- SMTP (Django's backend and its subclasses): the open `smtplib` connection. Before a reuse the
  socket is polled (no round trip): a connection the server closed, or one with a line waiting
  (a 421 "closing"), is dropped and a new one opened. Idle longer than
  NOTIFLOW_EMAIL_CONNECTION_CHECK_SECONDS, it is asked `NOOP` first.
- anymail's HTTP ESPs: the backend's `requests.Session`, whose pool keeps the HTTPS connection
  (urllib3 drops one the server closed before it reuses it).
- A relay's refusal of the sender, the recipients or the content keeps the connection: the relay
  answered in full and the transaction was reset before the error was raised (smtplib's sendmail
  and the pipelined one alike), so the next message needs no new handshake; a relay that closed
  after its refusal (421) is found by the check before the next use. So does an ESP's error
  answer (anymail's error raised from a whole HTTP response, or before any request): the session's
  connection went back to its pool with the response read. Any other failure while a connection
  is in use (a timeout, a broken socket or request, the soft time limit) drops it without a
  goodbye, and the error goes to the caller as before: a message that broke mid-way is
  the same transient failure as with a connection of its own. Nothing is re-sent here.
- Unused for NOTIFLOW_EMAIL_CONNECTION_IDLE_SECONDS, a connection is closed (a reaper thread,
  started with the first kept connection), and all are closed when the worker process stops
  (notiflow/celery.py). NOTIFLOW_EMAIL_KEEP_CONNECTIONS=false opens one per message, as before.

Other backends (console, locmem, file, dummy) hold nothing open and are made per message.
"""

from __future__ import annotations

import json
import logging
import select
import smtplib
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import requests
from anymail.exceptions import AnymailError
from django.conf import settings
from django.core.mail import get_connection
from django.core.mail.backends.base import BaseEmailBackend
from django.core.mail.backends.smtp import EmailBackend as SmtpBackend
from django.utils.module_loading import import_string

from workers.providers import Provider

# The refusals an SMTP relay answers in full, the transaction reset before they are raised.
_SMTP_REFUSALS = (smtplib.SMTPSenderRefused, smtplib.SMTPRecipientsRefused, smtplib.SMTPDataError)


def _answered(error: BaseException) -> bool:
    """Whether the provider answered in full, so the connection is as good as before the message:
    an SMTP relay's refusal, or an ESP's error that anymail raised from a whole response (an
    HTTP error status, a body it could not read) or before any request; a request that broke (a
    timeout, a reset) anymail raises from requests' own error."""
    if isinstance(error, _SMTP_REFUSALS):
        return True
    return isinstance(error, AnymailError) and not isinstance(
        error.__cause__, requests.RequestException
    )


@dataclass
class _Kept:
    backend: BaseEmailBackend
    lock: threading.Lock = field(default_factory=threading.Lock)
    last_used: float = field(default_factory=time.monotonic)
    opened: int = 0  # connections this entry opened (tests, the bench)


logger = logging.getLogger(__name__)

_kept: dict[tuple[int, str, str, str], _Kept] = {}
_kept_lock = threading.Lock()
_reaper: threading.Thread | None = None
# Connections opened by kept backends in this process, for tests and the bench.
stats = {"opened": 0, "reused": 0, "dropped": 0, "closed_idle": 0}


_EMAIL_SETTINGS = (
    "EMAIL_HOST",
    "EMAIL_PORT",
    "EMAIL_HOST_USER",
    "EMAIL_USE_TLS",
    "EMAIL_USE_SSL",
    "EMAIL_TIMEOUT",
)


@lru_cache(maxsize=32)
def _keepable(backend: str) -> bool:
    from anymail.backends.base_requests import AnymailRequestsBackend

    cls = import_string(backend)
    return issubclass(cls, SmtpBackend | AnymailRequestsBackend)


@contextmanager
def provider_connection(provider: Provider) -> Iterator[BaseEmailBackend]:
    """An open backend of `provider` for one message: this thread's kept one, checked and opened
    as needed, or a fresh one (closed by its own send) when the backend keeps nothing open."""
    if not settings.NOTIFLOW_EMAIL_KEEP_CONNECTIONS or not _keepable(provider.backend):
        yield get_connection(provider.backend, fail_silently=False, **provider.options)
        return
    kept = _kept_for(provider)
    with kept.lock:
        try:
            if _usable(kept):
                stats["reused"] += 1
            elif kept.backend.open():
                kept.opened += 1
                stats["opened"] += 1
            yield kept.backend
        except BaseException as error:
            if not _answered(error):
                _drop(kept.backend)
                stats["dropped"] += 1
            raise
        finally:
            kept.last_used = time.monotonic()


def _kept_for(provider: Provider) -> _Kept:
    # The options, and the EMAIL_* settings a backend falls back on (tests change them).
    where = [provider.options, *(getattr(settings, name, None) for name in _EMAIL_SETTINGS)]
    key = (
        threading.get_ident(),
        provider.name,
        provider.backend,
        json.dumps(where, sort_keys=True, default=str),
    )
    with _kept_lock:
        kept = _kept.get(key)
        if kept is None:
            backend = get_connection(provider.backend, fail_silently=False, **provider.options)
            kept = _kept[key] = _Kept(backend)
            _reaper_start()
    return kept


def _usable(kept: _Kept) -> bool:
    """Whether the kept backend is open and may be reused as it is; a dead one is dropped."""
    backend = kept.backend
    if isinstance(backend, SmtpBackend):
        connection = backend.connection
        if connection is None:
            return False
        sock = getattr(connection, "sock", None)
        try:
            # Nothing may be waiting on an idle SMTP connection: readable means closed (EOF) or
            # a line the server sent unasked (421 closing).
            if sock is None or select.select([sock], [], [], 0)[0]:
                raise smtplib.SMTPServerDisconnected("closed while idle")
            idle = time.monotonic() - kept.last_used
            if idle >= settings.NOTIFLOW_EMAIL_CONNECTION_CHECK_SECONDS:
                code, _ = connection.noop()
                if code != 250:
                    raise smtplib.SMTPServerDisconnected(f"NOOP answered {code}")
        except (smtplib.SMTPException, OSError, ValueError):
            _drop(backend)
            stats["dropped"] += 1
            return False
        return True
    return getattr(backend, "session", None) is not None


def _drop(backend: BaseEmailBackend) -> None:
    """Close without a goodbye (no QUIT that could wait on a server that broke or hung)."""
    if isinstance(backend, SmtpBackend):
        for name in ("connection", "_partial_connection"):
            connection = getattr(backend, name, None)
            if connection is not None:
                with suppress(OSError):
                    connection.close()
                setattr(backend, name, None)
        return
    with suppress(Exception):  # closing a session that failed: nothing more to report
        backend.close()


def _close(kept: _Kept) -> None:
    """Close politely (QUIT), bounded by the backend's own timeout; a failure only drops it."""
    try:
        kept.backend.close()
    except Exception:  # the connection is going away either way
        _drop(kept.backend)


def connections_close_idle(idle_seconds: float | None = None) -> int:
    """Close the kept connections unused for `idle_seconds` [the setting] and not in use now;
    returns how many were closed."""
    limit = (
        settings.NOTIFLOW_EMAIL_CONNECTION_IDLE_SECONDS if idle_seconds is None else idle_seconds
    )
    now, closed = time.monotonic(), 0
    with _kept_lock:
        entries = list(_kept.values())
    for kept in entries:
        if now - kept.last_used < limit or not kept.lock.acquire(blocking=False):
            continue
        try:
            if _is_open(kept.backend):
                _close(kept)
                closed += 1
        finally:
            kept.lock.release()
    stats["closed_idle"] += closed
    return closed


def connections_close_all() -> None:
    """Close every kept connection of this process (worker shutdown); waits for one in use."""
    with _kept_lock:
        entries = list(_kept.values())
        _kept.clear()
    for kept in entries:
        with kept.lock:
            if _is_open(kept.backend):
                _close(kept)


def _is_open(backend: Any) -> bool:
    return (
        getattr(backend, "connection", None) is not None
        or getattr(backend, "session", None) is not None
    )


def _reaper_start() -> None:
    """The thread that closes idle connections, once per process (called under _kept_lock)."""
    global _reaper
    if _reaper is not None and _reaper.is_alive():
        return

    def reap() -> None:
        while True:
            time.sleep(max(0.05, settings.NOTIFLOW_EMAIL_CONNECTION_IDLE_SECONDS / 2))
            try:
                connections_close_idle()
            except Exception:  # the reaper must outlive one bad close
                logger.exception("closing idle email connections")

    _reaper = threading.Thread(target=reap, name="notiflow-email-reaper", daemon=True)
    _reaper.start()
