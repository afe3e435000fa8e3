"""Settings for the test process: the real settings, on their own Redis database."""

import os

# The tests' Redis databases: the broker on 14, the cache derived from it on 15 (notiflow/settings.py
# takes the next number), and a sibling pair 12/13 for the processes that must not eat the stack's
# nudges (`make run`'s test, Schemathesis' web): never 0/1, the development stack's.
# NOTIFLOW_TEST_SLOT (0-9, default 0) lets several checkouts on one machine run their tests at
# once: slot n > 0 has its own test database (test_notiflow_<n>) and its own Redis server on port
# 6390 + n, which the developer starts (`redis-server --port 639n --save "" --daemonize yes`).
# Under pytest-xdist (`make test-fast`: -n 3) each test process has its own test database
# (pytest-django adds _gw<n> to its name) and its own Redis pair, four databases lower per process:
# gw0 14/15 (siblings 12/13), gw1 10/11 (8/9), gw2 6/7 (4/5); no more, or one would reach 0/1.
TEST_SLOT = int(os.environ.get("NOTIFLOW_TEST_SLOT", "0"))
if not 0 <= TEST_SLOT <= 9:
    raise RuntimeError(f"NOTIFLOW_TEST_SLOT must be 0-9, not {TEST_SLOT}")
TEST_WORKER = int(os.environ.get("PYTEST_XDIST_WORKER", "gw0").removeprefix("gw"))
if not 0 <= TEST_WORKER <= 2:
    raise RuntimeError("at most three test processes (pytest -n 3): the Redis databases run out")


def _own(name: str, value: str) -> None:
    """Set `name` to this process's `value` unless the developer set it (RabbitMQ runs set the
    broker). pytest-xdist's processes inherit the environment of the process that started them,
    which has already set it to that process's value: a value this file derived (recorded
    beside it) is derived again, for this process, never kept."""
    derived = f"NOTIFLOW_TEST_DERIVED_{name}"
    if os.environ.get(name) in (None, os.environ.get(derived)):
        os.environ[name] = os.environ[derived] = value


_REDIS = f"redis://127.0.0.1:{6390 + TEST_SLOT if TEST_SLOT else 6379}"
_DB = 14 - 4 * TEST_WORKER
_own("CELERY_BROKER_URL", f"{_REDIS}/{_DB}")
if not os.environ["CELERY_BROKER_URL"].startswith("redis"):
    # Another broker (RabbitMQ): Redis still holds the cache, the rate limits and the send caps,
    # which notiflow/settings.py would otherwise put on 0/1, the development stack's.
    _own("NOTIFLOW_REDIS_URL", f"{_REDIS}/{_DB}")
    _own("NOTIFLOW_CACHE_URL", f"{_REDIS}/{_DB + 1}")
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-key-never-used-outside-tests-" + "x" * 20)
os.environ.setdefault("NOTIFLOW_RETRY_JITTER", "0")
# The basic auth that mounts and guards the providers' tracking webhooks (deliveries/urls.py).
os.environ.setdefault("ANYMAIL_WEBHOOK_SECRET", "tracking:test-only-webhook-secret")
# Where links back to the service point (one-click unsubscribe, Twilio status callbacks).
os.environ.setdefault("NOTIFLOW_PUBLIC_URL", "https://notiflow.test")

from notiflow.settings import *  # noqa: E402, F403 (after the environment it reads)

if TEST_SLOT:
    DATABASES["default"].setdefault("TEST", {})["NAME"] = (  # noqa: F405
        f"test_{DATABASES['default']['NAME']}_{TEST_SLOT}"  # noqa: F405
    )

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test users

# In this process only (a setting, not the environment, so the processes the tests start keep
# the production default): intake does not ask the registry for a live worker. The in-process
# tests create triggers with no worker process at all, and the end-to-end tests create some
# in-process for the stack's workers to run. The rule itself is tested with the setting on
# (tests/triggers/test_fast_fail.py), and the stack's web process runs with it on, fed by the
# stack's workers registering themselves.
NOTIFLOW_TRIGGER_REQUIRES_WORKER = False

# The test process serves no static files (the stack's gunicorn does, from its own collected
# DJANGO_STATIC_ROOT); without a root WhiteNoise does not warn that the directory is missing.
STATIC_ROOT = None

# Webhook endpoints in the tests are the receiver on loopback (tests/support/receiver.py); the
# address rule itself is tested with the setting off (tests/events/test_addresses.py).
NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = True
# The chat stand-ins (tests/support/chat.py) listen on loopback.
NOTIFLOW_CHAT_ALLOW_PRIVATE = True
# So do the push services (tests/support/push.py); the rule is tested with the setting off
# (tests/workers/test_push_outgoing.py).
NOTIFLOW_PUSH_ALLOW_PRIVATE = True

# No rate limits in this process (settings, not the environment: the stack's processes set their
# own in tests/conftest.py's STACK_SETTINGS). Many tests send bursts with one key; the limits
# themselves are tested with override_settings (tests/security/test_rate_limits.py).
NOTIFLOW_RATE_LIMIT_TRIGGER = "off"
NOTIFLOW_RATE_LIMIT_ADMIN = "off"
NOTIFLOW_RATE_LIMIT_INBOX = "off"
