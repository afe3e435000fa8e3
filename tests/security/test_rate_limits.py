"""Rate limits per API key and scope (common/throttling.py; docs/security/keys.md, "Rate limits"):
in-process with override_settings, and on a gunicorn of its own, where 20 concurrent requests
from one key, across its worker processes, meet a limit of 5."""

from __future__ import annotations

import logging
import threading
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest
import requests
from django.test import override_settings
from rest_framework.test import APIClient

from common import throttling
from tests.conftest import unique
from tests.support.smtp import free_port
from tests.support.stack import Process, Stack, wait_for
from triggers.api_keys import api_key_create
from triggers.models import ApiKeyScope


@pytest.fixture(autouse=True)
def redis_answers() -> Iterator[None]:
    """Each test starts and ends with this process asking Redis (no fail-open period left)."""
    throttling.FAIL_OPEN.until = 0.0
    yield
    throttling.FAIL_OPEN.until = 0.0


def client(key: str) -> APIClient:
    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    return api


@pytest.mark.parametrize(
    ("rate", "parsed"),
    [
        ("100/s", (100, 1)),
        ("5/m", (5, 60)),
        ("10/min", (10, 60)),
        (" 3600 / h ", (3600, 3600)),
        ("1000/d", (1000, 86400)),
        ("", None),
        ("off", None),
        ("OFF", None),
        ("0/s", None),
    ],
)
def test_rates_parse(rate, parsed):
    assert throttling.parse_rate(rate) == parsed


@pytest.mark.parametrize("rate", ["100", "100/x", "x/s", "-1/s"])
def test_wrong_rates_are_refused(rate):
    with pytest.raises(ValueError):
        throttling.parse_rate(rate)


@pytest.mark.django_db
@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="3/m", NOTIFLOW_RATE_LIMIT_ADMIN="off")
def test_over_the_limit_is_429_with_retry_after_per_key_and_scope():
    _, key = api_key_create(name=unique("t"), scope=ApiKeyScope.ADMIN)
    _, other = api_key_create(name=unique("o"))
    api = client(key)

    codes = [api.get("/api/triggers/").status_code for _ in range(3)]
    refused = api.get("/api/triggers/")

    assert codes == [200, 200, 200]
    assert refused.status_code == 429
    # A burst of 3, then one every 20 s: the next one in at most 20 s.
    assert 1 <= int(refused["Retry-After"]) <= 20
    assert refused.json()["detail"].startswith(
        "rate limit of 3/m for this API key's trigger requests exceeded."
    )
    assert set(refused.json()) == {"detail"}
    # Intake counts against the same bucket; the admin bucket and other keys are apart.
    assert api.post("/api/triggers/", {}, format="json").status_code == 429
    assert api.get("/api/workers/").status_code == 200
    assert client(other).get("/api/triggers/").status_code == 200


@pytest.mark.django_db
@override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="1/m", NOTIFLOW_RATE_LIMIT_ADMIN="1/m")
def test_health_schema_and_docs_are_never_throttled():
    _, key = api_key_create(name=unique("a"), scope=ApiKeyScope.ADMIN)
    api, anonymous = client(key), APIClient()

    for _ in range(3):
        assert api.get("/api/health/").status_code in (200, 503)
        assert anonymous.get("/api/health/").status_code in (200, 503)
        assert anonymous.get("/api/schema/").status_code == 200
        assert anonymous.get("/api/docs/").status_code == 200


@pytest.mark.django_db
@override_settings(NOTIFLOW_RATE_LIMIT_ADMIN="2/m", NOTIFLOW_RATE_LIMIT_TRIGGER="off")
def test_the_admin_endpoints_have_their_own_limit():
    _, key = api_key_create(name=unique("a"), scope=ApiKeyScope.ADMIN)
    api = client(key)

    assert [api.get("/api/workers/").status_code for _ in range(3)] == [200, 200, 429]
    assert api.get("/api/triggers/").status_code == 200


@pytest.mark.django_db
def test_an_unreachable_redis_fails_open_with_one_warning(caplog):
    _, key = api_key_create(name=unique("t"))
    api = client(key)

    with (
        override_settings(
            NOTIFLOW_RATE_LIMIT_TRIGGER="1/m", NOTIFLOW_CACHE_URL="redis://127.0.0.1:1/0"
        ),
        caplog.at_level(logging.WARNING, logger="notiflow.throttling"),
    ):
        codes = [api.get("/api/triggers/").status_code for _ in range(3)]

    assert codes == [200, 200, 200]
    warnings = [r.getMessage() for r in caplog.records if r.name == "notiflow.throttling"]
    assert len(warnings) == 1 and "requests are served unthrottled" in warnings[0]
    assert throttling.FAIL_OPEN.skipping()


@pytest.mark.django_db
def test_redis_is_asked_again_after_the_fail_open_period(monkeypatch):
    _, key = api_key_create(name=unique("t"))
    api = client(key)
    with override_settings(NOTIFLOW_RATE_LIMIT_TRIGGER="1/m"):
        throttling.FAIL_OPEN.until = float("inf")  # as if Redis had just failed
        assert [api.get("/api/triggers/").status_code for _ in range(2)] == [200, 200]
        throttling.FAIL_OPEN.until = 0.0  # the period is over
        assert [api.get("/api/triggers/").status_code for _ in range(2)] == [200, 429]


# --- on a live gunicorn -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def limited_web(stack: Stack) -> Iterator[str]:
    """A second web process on the stack's database and Redis, with a trigger limit of 5/m (a
    burst of 5, then one every 12 s: the burst below ends long before the sixth is allowed)."""
    port = free_port()
    process: Process = stack.web_process(
        "web-limited",
        port,
        "--workers",
        "3",
        env={"NOTIFLOW_RATE_LIMIT_TRIGGER": "5/m", "NOTIFLOW_RATE_LIMIT_ADMIN": "5/m"},
    )
    base = f"http://127.0.0.1:{port}"

    def up() -> bool:
        if process.popen.poll() is not None:
            raise AssertionError(process.log()[-3000:])
        try:
            return requests.get(f"{base}/api/health/", timeout=2).status_code in (200, 503)
        except requests.RequestException:
            return False

    wait_for(up, timeout=60, interval=0.2, message="the rate-limited gunicorn")
    yield base
    process.stop()


def test_twenty_concurrent_requests_meet_a_limit_of_five(e2e, limited_web):
    _, key = api_key_create(name=unique("burst"))
    headers = {"Authorization": f"Bearer {key}"}
    start = threading.Barrier(20)

    def one(_: int) -> requests.Response:
        with requests.Session() as session:
            start.wait(timeout=30)
            return session.get(f"{limited_web}/api/triggers/", headers=headers, timeout=30)

    with ThreadPoolExecutor(max_workers=20) as pool:
        answers = list(pool.map(one, range(20)))

    codes = sorted(a.status_code for a in answers)
    assert codes == [200] * 5 + [429] * 15
    for refused in (a for a in answers if a.status_code == 429):
        assert 1 <= int(refused.headers["Retry-After"]) <= 12
        assert refused.headers["Content-Type"] == "application/json"
        assert "rate limit of 5/m" in refused.json()["detail"]
    # Health stays open to anyone, however hard this key pushes.
    assert requests.get(f"{limited_web}/api/health/", timeout=10).status_code in (200, 503)
