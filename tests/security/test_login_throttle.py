"""Failed admin logins are throttled per account and per address (notiflow/login_throttle.py;
docs/security/deployment.md, "Admin login"; issue 31), in-process against the tests' real Redis: once a
bucket is empty even the right password is refused, with a lockout message, and no password is
checked."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend
from django.contrib.auth.hashers import MD5PasswordHasher
from django.db import connections
from django.test import Client

from common import throttling
from tests.conftest import unique

pytestmark = pytest.mark.django_db

LOGIN = "/admin/login/"
PASSWORD = "right-horse-battery-staple"
LOCKED = b"Too many failed logins for this account or from this address"


@pytest.fixture(autouse=True)
def redis_answers() -> Iterator[None]:
    throttling.FAIL_OPEN.until = 0.0
    yield
    throttling.FAIL_OPEN.until = 0.0


@pytest.fixture
def limits(settings):
    settings.NOTIFLOW_LOGIN_LIMIT_ACCOUNT = "3/h"
    settings.NOTIFLOW_LOGIN_LIMIT_ADDRESS = "5/h"


def operator() -> str:
    username = unique("op")
    get_user_model().objects.create_superuser(username, f"{username}@example.com", PASSWORD)
    return username


def address() -> str:
    """An address of this test's own (the buckets live in Redis across runs)."""
    return f"10.{random.randrange(256)}.{random.randrange(256)}.{random.randrange(1, 255)}"


def login(username: str, password: str, remote: str):
    client = Client(REMOTE_ADDR=remote)
    return client.post(LOGIN, {"username": username, "password": password, "next": "/admin/"})


def test_after_the_account_limit_even_the_right_password_is_refused(limits, monkeypatch):
    username, remote = operator(), address()
    for _ in range(3):
        answer = login(username, "wrong", remote)
        assert answer.status_code == 200 and b"Please enter the correct" in answer.content

    checked = []
    real_verify = MD5PasswordHasher.verify

    def verify(self, password: str, encoded: str) -> bool:
        checked.append(password)
        return real_verify(self, password, encoded)

    monkeypatch.setattr(MD5PasswordHasher, "verify", verify)
    refused = login(username, PASSWORD, address())  # from elsewhere too

    assert refused.status_code == 200 and "_auth_user_id" not in refused.client.session
    assert LOCKED in refused.content and b"Try again in 20 minutes" in refused.content
    assert checked == []  # no hashing for a locked-out account


def test_the_right_password_is_never_counted(limits):
    username, remote = operator(), address()
    for _ in range(6):
        answer = login(username, PASSWORD, remote)
        assert answer.status_code == 302, answer.content[:500]


def test_after_the_address_limit_every_account_is_refused_from_it(limits):
    remote = address()
    for _ in range(5):
        login(unique("nobody"), "wrong", remote)

    refused = login(operator(), PASSWORD, remote)

    assert LOCKED in refused.content
    assert login(operator(), PASSWORD, address()).status_code == 302  # another address


def test_with_redis_down_logins_are_not_throttled(limits, settings):
    settings.NOTIFLOW_CACHE_URL = "redis://127.0.0.1:1/0"
    throttling._script.cache_clear()
    username, remote = operator(), address()
    try:
        for _ in range(4):
            login(username, "wrong", remote)
        assert login(username, PASSWORD, remote).status_code == 302
    finally:
        throttling._script.cache_clear()


def test_ipv6_addresses_of_one_64_share_their_bucket(limits):
    prefix = f"2001:db8:{random.randrange(65536):x}:{random.randrange(65536):x}"
    for host in range(5):
        login(unique("nobody"), "wrong", f"{prefix}::{host + 1:x}")

    assert LOCKED in login(operator(), PASSWORD, f"{prefix}:ffff::9").content


def test_concurrent_wrong_passwords_get_at_most_the_limits_checks(settings, monkeypatch):
    """The throttle counts a login before its password is checked, in one atomic step: 40
    wrong passwords at once for one account against a limit of 10 get 10 checks, not one per
    request that asked before any had been counted."""
    settings.NOTIFLOW_LOGIN_LIMIT_ACCOUNT = "10/h"
    settings.NOTIFLOW_LOGIN_LIMIT_ADDRESS = "off"
    username = operator()
    checks = []
    real_authenticate = ModelBackend.authenticate

    def authenticate(self, request, username=None, password=None, **kwargs):
        checks.append(password)
        time.sleep(0.05)  # a production hasher's cost: the window the requests race in
        return real_authenticate(self, request, username, password, **kwargs)

    monkeypatch.setattr(ModelBackend, "authenticate", authenticate)
    start = threading.Barrier(40)

    def attempt(number: int) -> bytes:
        start.wait(timeout=30)
        try:
            return login(username, f"wrong-{number}", address()).content
        finally:
            connections.close_all()

    with ThreadPoolExecutor(max_workers=40) as pool:
        answers = list(pool.map(attempt, range(40)))

    assert len(checks) <= 10, len(checks)
    assert sum(LOCKED in answer for answer in answers) == 40 - len(checks)
