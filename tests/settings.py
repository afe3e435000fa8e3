"""Settings for the test process: the real settings, on their own Redis database."""

import os

os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
# The settings refuse to load without a key outside debug. This one signs nothing that outlives
# the tests; set here, every process the tests start (the stack, commands, Flower) inherits it.
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-key-never-used-outside-tests-" + "x" * 20)
os.environ.setdefault("NOTIFLOW_RETRY_JITTER", "0")
# The basic auth that mounts and guards the providers' tracking webhooks (deliveries/urls.py).
os.environ.setdefault("ANYMAIL_WEBHOOK_SECRET", "tracking:test-only-webhook-secret")
# Where links back to the service point (one-click unsubscribe, Twilio status callbacks).
os.environ.setdefault("NOTIFLOW_PUBLIC_URL", "https://notiflow.test")

from notiflow.settings import *  # noqa: F403

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

# No rate limits in this process (settings, not the environment: the stack's processes set their
# own in tests/conftest.py's STACK_SETTINGS). Many tests send bursts with one key; the limits
# themselves are tested with override_settings (tests/security/test_rate_limits.py).
NOTIFLOW_RATE_LIMIT_TRIGGER = "off"
NOTIFLOW_RATE_LIMIT_ADMIN = "off"
