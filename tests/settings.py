"""Settings for the test process: the real settings, on their own Redis database."""

import os

os.environ.setdefault("CELERY_BROKER_URL", "redis://127.0.0.1:6379/15")
# The settings refuse to load without a key outside debug. This one signs nothing that outlives
# the tests; set here, every process the tests start (the stack, commands, Flower) inherits it.
os.environ.setdefault("DJANGO_SECRET_KEY", "test-only-key-never-used-outside-tests-" + "x" * 20)
os.environ.setdefault("NOTIFLOW_RETRY_JITTER", "0")
# Until the stack's workers register themselves (issue 15, in progress): intake does not ask.
os.environ.setdefault("NOTIFLOW_TRIGGER_REQUIRES_WORKER", "false")

from notiflow.settings import *  # noqa: F403

PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]  # fast test users

# The test process serves no static files (the stack's gunicorn does, from its own collected
# DJANGO_STATIC_ROOT); without a root WhiteNoise does not warn that the directory is missing.
STATIC_ROOT = None
