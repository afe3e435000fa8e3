"""Notiflow settings: everything comes from the environment (docs/reference/settings.md).

Each variable is declared once, with its type, default and what it does, in
notiflow/settings_spec/ (docs/design/rules.md, rule 18), and read here through that declaration
(`env.setting`); what this module adds is Django's and Celery's settings made of them, the
refusals of values that contradict each other, and the comments that say why a value is what it
is.

Over 500 lines: the refusals and the comments that say why Celery, PostgreSQL and the providers
are configured as they are stay beside the settings they explain; one file is where an operator
and a reader look for them, and split by topic it would be several places to look.
"""

import json
import os
import re
import sys
import zoneinfo
from datetime import timedelta
from pathlib import Path
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import environ
from babel import Locale as _babel_locale
from babel import UnknownLocaleError as _babel_unknown
from django.core.exceptions import ImproperlyConfigured

from notiflow import settings_spec

BASE_DIR = Path(__file__).resolve().parent.parent


# --- Security (docs/security/deployment.md, "Production environment") -------------------------------------
class SettingsRefused(ImproperlyConfigured):
    """A setting the processes must not start without; said in one line, without a traceback."""


_default_excepthook = sys.excepthook


def _one_line(kind: type[BaseException], error: BaseException, tb: TracebackType | None) -> None:
    if isinstance(error, SettingsRefused):
        print(f"notiflow: {error}", file=sys.stderr)
    else:
        _default_excepthook(kind, error, tb)


def _refuse(message: str) -> None:
    # Every entry point (manage.py, gunicorn, celery) leaves this exception uncaught; its
    # traceback would bury the one line that says what to do.
    sys.excepthook = _one_line
    raise SettingsRefused(message)


def _refuse_unless(holds: bool, name: str, value: object, limit: str) -> None:
    """Refuse to start unless `holds`, in one sentence naming the setting, its value and the
    limit it broke (`limit`: what it must be, with the other setting's value)."""
    if not holds:
        _refuse(f"refusing to start: {name}={value} must be {limit}.")


class _Env(environ.Env):
    """django-environ's typed reads, with a value that does not parse (`NOTIFLOW_LEASE_SECONDS=1m`)
    refused in one sentence naming the variable, instead of a traceback from inside the cast."""

    def get_value(self, var, cast=None, default=environ.Env.NOTSET, parse_default=False):  # type: ignore[no-untyped-def]
        try:
            return super().get_value(var, cast=cast, default=default, parse_default=parse_default)
        except (ValueError, TypeError) as exc:
            kind = getattr(cast, "__name__", "a valid value")
            _refuse(f"refusing to start: {var}={os.environ.get(var, '')!r} is not {kind} ({exc}).")

    def setting(self, name: str, derived: object = environ.Env.NOTSET) -> Any:
        """The variable `name` read as notiflow/settings_spec/ declares it, its declared default
        applied; `derived` is the default computed here for one declared DERIVED. A secret is
        read exactly as set: django-environ takes a value starting with `$` for the name of
        another variable, and a random key starts with `$` now and then."""
        spec = settings_spec.setting_spec(name)
        if (spec.default is settings_spec.DERIVED) == (derived is environ.Env.NOTSET):
            raise TypeError(f"{name}: a derived default is given exactly where it is declared")
        default = derived if spec.default is settings_spec.DERIVED else spec.default
        if isinstance(default, list):
            default = list(default)  # the declaration's own list stays as declared
        if spec.kind is settings_spec.Kind.SECRET:
            return os.environ.get(name, default)
        return getattr(self, spec.kind.reader)(name, default=default)


env = _Env()
if (BASE_DIR / ".env").exists():
    environ.Env.read_env(BASE_DIR / ".env", overwrite=False)


DEBUG = env.setting("DJANGO_DEBUG")
# Signs sessions, password-reset links and messages: anyone who knows it can forge them, so there
# is no shared fallback outside debug (make run keeps a generated one in .run/secret-key).
SECRET_KEY = env.setting("DJANGO_SECRET_KEY").strip()
if not SECRET_KEY:
    if not DEBUG:
        _refuse(
            "refusing to start without DJANGO_SECRET_KEY. Set it to a long random value, e.g. "
            'python -c "from django.core.management.utils import get_random_secret_key; '
            'print(get_random_secret_key())", or set DJANGO_DEBUG=1 on a development machine.'
        )
    SECRET_KEY = "django-insecure-debug-only-key-set-DJANGO_SECRET_KEY"  # noqa: S105 (debug only)
# Django's own rule for a key that can be guessed (check --deploy, security.W009), as a refusal.
elif not DEBUG and (
    len(SECRET_KEY) < 50 or len(set(SECRET_KEY)) < 5 or SECRET_KEY.startswith("django-insecure-")
):
    _refuse(
        "refusing to start with a weak DJANGO_SECRET_KEY (it needs at least 50 characters, 5 of "
        "them different, and no django-insecure- prefix). Set it to a long random value, e.g. "
        'python -c "from django.core.management.utils import get_random_secret_key; '
        'print(get_random_secret_key())", or set DJANGO_DEBUG=1 on a development machine.'
    )
ALLOWED_HOSTS = env.setting("DJANGO_ALLOWED_HOSTS")
CSRF_TRUSTED_ORIGINS = env.setting("DJANGO_CSRF_TRUSTED_ORIGINS")
# HTTPS: off by default, because make run, compose and the tests serve plain HTTP on loopback;
# a deployment behind TLS turns each on (the documented environment passes `check --deploy`).
SESSION_COOKIE_SECURE = env.setting("DJANGO_SESSION_COOKIE_SECURE")
CSRF_COOKIE_SECURE = env.setting("DJANGO_CSRF_COOKIE_SECURE")
SECURE_SSL_REDIRECT = env.setting("DJANGO_SECURE_SSL_REDIRECT")
# A load balancer's probe of the public health answer may come over plain HTTP.
SECURE_REDIRECT_EXEMPT = [r"^api/health/$"]
SECURE_HSTS_SECONDS = env.setting("DJANGO_SECURE_HSTS_SECONDS")
SECURE_HSTS_INCLUDE_SUBDOMAINS = env.setting("DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS")
SECURE_HSTS_PRELOAD = env.setting("DJANGO_SECURE_HSTS_PRELOAD")
# Behind a TLS-terminating proxy: which request header says the client used HTTPS, as
# META_KEY,value (HTTP_X_FORWARDED_PROTO,https). Only if the proxy always sets or strips it.
_proxy_ssl_header = env.setting("DJANGO_SECURE_PROXY_SSL_HEADER")
SECURE_PROXY_SSL_HEADER: tuple[str, str] | None = None
if _proxy_ssl_header:
    if len(_proxy_ssl_header) != 2 or not _proxy_ssl_header[0].startswith("HTTP_"):
        _refuse(
            "DJANGO_SECURE_PROXY_SSL_HEADER must be a request.META key and its value, "
            f"e.g. HTTP_X_FORWARDED_PROTO,https (got {','.join(_proxy_ssl_header)!r})"
        )
    SECURE_PROXY_SSL_HEADER = (_proxy_ssl_header[0], _proxy_ssl_header[1])
AUTH_PASSWORD_VALIDATORS = [
    {"NAME": f"django.contrib.auth.password_validation.{name}"}
    for name in (
        "UserAttributeSimilarityValidator",
        "MinimumLengthValidator",
        "CommonPasswordValidator",
        "NumericPasswordValidator",
    )
]

INSTALLED_APPS = [
    # django.contrib.admin with Notiflow's admin site (name, order of apps): notiflow/admin.py.
    "notiflow.apps.NotiflowAdminConfig",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "rest_framework",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "django_celery_beat",
    "django.contrib.postgres",
    "workflows",
    "tenants",
    "content",
    "registry",
    "triggers",
    "workers",
    "events",
    "deliveries",
    "recipients",
    "inbox",
    "waits",
    "schedules",
]

MIDDLEWARE = [
    "common.db.ConnectionReuseMiddleware",
    # Answers the browser's CORS preflight for /api/inbox/ before anything else looks at it.
    "inbox.cors.InboxCorsMiddleware",
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "common.http.RefuseNulInQueryMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "notiflow.urls"
WSGI_APPLICATION = "notiflow.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

DATABASES = {
    "default": env.setting("DATABASE_URL"),
}
# Persistent connections with a health check: a worker reuses its connection across tasks and
# reconnects by itself after a PostgreSQL restart.
DATABASES["default"].setdefault("CONN_MAX_AGE", env.setting("DATABASE_CONN_MAX_AGE"))
DATABASES["default"]["CONN_HEALTH_CHECKS"] = True
# What stands between the processes and PostgreSQL (common/pooler.py; docs/guide/pgbouncer.md):
# `auto` finds out at each process's first connection (a pooler answers with a backend pid of
# its own) and reads PgBouncer's admin console; `none` says PostgreSQL or a session pooler, and
# probes nothing; `transaction` says a transaction pooler, and probes nothing.
DATABASE_POOLER = env.setting("DATABASE_POOLER").lower()
if DATABASE_POOLER not in {"auto", "none", "transaction"}:
    _refuse(f"DATABASE_POOLER is auto, none or transaction, not {DATABASE_POOLER!r}")
# The hot statements are prepared (common/db.py). `auto`: wherever the connection keeps them
# (not behind PgBouncer before 1.21 in transaction mode); `true`: always (a pooler you know keeps
# them, e.g. PgBouncer >= 1.21 with max_prepared_statements whose console we may not read);
# `false`: never. psycopg prepares nothing, not even execute(prepare=True), while
# prepare_threshold is None (Django's default); Django's own cursors bind on the client and
# never prepare, so this reaches only common/db.py and the waiter (triggers/waiting.py).
DATABASE_PREPARED_STATEMENTS = env.setting("DATABASE_PREPARED_STATEMENTS").lower()
# The boolean spellings this setting took before `auto` existed.
DATABASE_PREPARED_STATEMENTS = {
    **{spelling: "true" for spelling in ("1", "yes", "on")},
    **{spelling: "false" for spelling in ("0", "no", "off")},
}.get(DATABASE_PREPARED_STATEMENTS, DATABASE_PREPARED_STATEMENTS)
if DATABASE_PREPARED_STATEMENTS not in {"auto", "true", "false"}:
    _refuse(
        f"DATABASE_PREPARED_STATEMENTS is auto, true or false, not {DATABASE_PREPARED_STATEMENTS!r}"
    )
if DATABASE_PREPARED_STATEMENTS == "true" or (
    DATABASE_PREPARED_STATEMENTS == "auto" and DATABASE_POOLER != "transaction"
):
    DATABASES["default"].setdefault("OPTIONS", {}).setdefault("prepare_threshold", 5)
# A WITH HOLD cursor (QuerySet.iterator() outside a transaction) outlives its transaction, and
# behind transaction pooling the next fetch may reach another server connection (Django's docs,
# "Transaction pooling and server-side cursors"). `auto` sets this at run time when it finds one.
if DATABASE_POOLER == "transaction":
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
# A database host that does not answer must not hold a process for the system's TCP timeout
# (minutes): a worker's registry heartbeat runs on its event loop (workers/registration.py).
DATABASES["default"].setdefault("OPTIONS", {}).setdefault(
    "connect_timeout", env.setting("DATABASE_CONNECT_TIMEOUT")
)
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
# Filled by `manage.py collectstatic` (make run, the Dockerfile, the test stack); WhiteNoise serves it.
STATIC_ROOT = env.setting("DJANGO_STATIC_ROOT", derived=BASE_DIR / "staticfiles")

# --- Email: EMAIL_URL (smtp://host:port, consolemail://, ...) or Django's own settings ---------
if "EMAIL_URL" in env:
    vars().update(env.setting("EMAIL_URL"))
else:
    EMAIL_BACKEND = env.setting("EMAIL_BACKEND")
    EMAIL_HOST = env.setting("EMAIL_HOST")
    EMAIL_PORT = env.setting("EMAIL_PORT")
EMAIL_TIMEOUT = env.setting("EMAIL_TIMEOUT")
DEFAULT_FROM_EMAIL = env.setting("DEFAULT_FROM_EMAIL")

# --- REST framework ----------------------------------------------------------------------------
REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": ["triggers.auth.ApiKeyAuthentication"],
    # An API key with the scope the view declares for the method (common/scopes.py).
    "DEFAULT_PERMISSION_CLASSES": ["common.scopes.HasScope"],
    # Per API key and scope, on Redis (common/throttling.py; NOTIFLOW_RATE_LIMIT_*).
    "DEFAULT_THROTTLE_CLASSES": ["common.throttling.ApiKeyRateThrottle"],
    "DEFAULT_PARSER_CLASSES": ["common.http.NulSafeJSONParser"],
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PAGINATION_CLASS": "common.http.StrictPageNumberPagination",
    "PAGE_SIZE": 50,
    "DEFAULT_SCHEMA_CLASS": "notiflow.openapi.ScopedAutoSchema",
    "EXCEPTION_HANDLER": "common.api_errors.exception_handler",
    "UNAUTHENTICATED_USER": None,
}
SPECTACULAR_SETTINGS = {
    "TITLE": "Notiflow API",
    "DESCRIPTION": "Author notification workflows and trigger them idempotently.",
    "VERSION": "1.0.0",
    "SERVE_INCLUDE_SCHEMA": False,
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    # A fan-out's statuses (running, done, failed, cancelled) and a run's share the field name
    # `status` with other choice sets: named here, as drf-spectacular asks, rather than
    # `Status326Enum` (manage.py check --deploy fails on its warning).
    "ENUM_NAME_OVERRIDES": {
        "FanoutStatusEnum": "recipients.models.FanoutStatus",
        "TriggerStatusEnum": "triggers.models.TriggerStatus",
    },
    "POSTPROCESSING_HOOKS": [
        "drf_spectacular.hooks.postprocess_schema_enums",
        "notiflow.openapi.add_error_responses",
        "notiflow.openapi.add_delete_bodies",
        "notiflow.openapi.close_request_bodies",
        "notiflow.openapi.add_links",
    ],
}

# --- Celery -------------------------------------------------------------------------------------
CELERY_BROKER_URL = env.setting("CELERY_BROKER_URL")
# kombu's Redis transport, minus a redis-py client built for every publish (common/broker.py).
if CELERY_BROKER_URL.startswith("redis://"):
    CELERY_BROKER_TRANSPORT = "common.broker:Transport"
# Nudges written straight onto the workers' Redis list where that is exactly what Celery would
# publish (common/broker.py; a quarter of the CPU of send_task). Off: Celery always publishes.
NOTIFLOW_DIRECT_PUBLISH = env.setting("NOTIFLOW_DIRECT_PUBLISH")
NOTIFLOW_MAX_COUNTDOWN_SECONDS = env.setting("NOTIFLOW_MAX_COUNTDOWN_SECONDS")
NOTIFLOW_SWEEP_INTERVAL_SECONDS = env.setting("NOTIFLOW_SWEEP_INTERVAL_SECONDS")
# Every workflow has a queue (docs/design/rules.md, rule 11): `celery -A notiflow worker` with no -Q
# serves this one, which is also the queue of workflows with an undotted key.
CELERY_TASK_DEFAULT_QUEUE = "default"
# Messages carry ids only, so JSON is enough and pickle (remote code execution) is never accepted.
CELERY_TASK_SERIALIZER = "json"
CELERY_RESULT_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# Results live in PostgreSQL (trigger rows and step logs); a result backend would be dead weight.
CELERY_TASK_IGNORE_RESULT = True
# Ack after the task ran, and requeue when the worker process dies, so a crash loses no nudge.
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One message per process at a time: a long step does not hold others hostage in its prefetch.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
# Pool processes per worker. Celery's default (one per CPU) suits CPU-bound tasks; a step mostly
# waits (on PostgreSQL, the broker, and above all the SMTP or SMS provider), so with one process
# per core the cores sat idle while every process waited: 4 per CPU is the default here. CPUs
# are those this process may run on (a cpuset); under a CPU quota, set the variable.
#
# The pool stays prefork (docs/performance/findings.md, "Pool comparison"; `make bench ARGS="--only pools"`,
# 2 cores, 2,000 triggers, two runs): prefork x8 424 and 394 steps/s, x4 418 and 410, x16 400
# and 388; threads x8 318 and 316; solo as 4 separate workers 464 and 475, as 8 workers 397 and
# 397; 2 workers x 4 threads 459 and 481; 4 workers x 2 threads 435 and 434. Solo x 4 and 2 x 4
# threads are 10-20% faster, because no pipe stands between a worker's consumer and its task,
# but Celery enforces CELERY_TASK_SOFT_TIME_LIMIT and CELERY_TASK_TIME_LIMIT with prefork only
# (the solo and threads pools ignore them): those limits are what keeps a live step inside its
# lease (below), so a hung step would be reclaimed while it still runs, fenced but duplicated.
# gevent: Django's per-greenlet connections opened one PostgreSQL connection per task
# (bench/pools.py). Run `celery worker --pool solo` processes yourself when every provider call
# in your deployment has a timeout you trust, and take the faster figure.
# Over a provider 20 ms away (issue 38; docs/performance/optimisations.md, "Issue 38: the link"; `make bench
# ARGS="--repeat 3 --link-layouts standard,2x16threads"` on a quiet 2-core machine, medians of 3,
# 2,000 single-email triggers; instant provider 307 sends/s at 5.9 ms of CPU a send): SMTP
# STARTTLS prefork x8 78 sends/s, 2 workers x 16 threads 197; Postmark over HTTPS 179 and 215.
# prefork x8 over SMTP is bound by its 8 messages in flight (4 round trips of 20 ms each: 100/s
# at most; the plain smtplib program with 8 kept connections does 85), threads by the CPU (7.7-8.0
# ms a send, plus the bench's own sinks and proxies on the same cores). The default stays
# prefork all the same: under threads a step past the hard time limit can only be stopped by
# exiting its worker (notiflow/timelimits.py), which stops its 15 neighbours too (they resume
# when their leases expire: late, not lost), and the chaos and multi-host suites run prefork.
# Send-heavy workflows run on the queue `sends`, served by the Procfile's `sends`: `celery worker
# --pool threads -c 16`, one process per core (issue 51; docs/operations/processes.md, "Workers
# over a slow provider"), where each provider call's deadline stops a stuck send first.
_CPUS = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
CELERY_WORKER_CONCURRENCY = env.setting("CELERY_WORKER_CONCURRENCY", derived=4 * _CPUS)
# Redis redelivers unacked messages after this long; it must stay well above the countdown cap,
# or every countdown task would be delivered twice (docs/design/rules.md, rule 5).
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": env.setting("CELERY_VISIBILITY_TIMEOUT"),
    # Redis has no message priority: kombu keeps one list per step and a worker pops the lists
    # in step order. Ten steps give each of the ten priorities (0-9) its own list, where kombu's
    # default of four would merge them in pairs (common/broker.py maps them; rule 11).
    "priority_steps": list(range(10)),
}
# RabbitMQ (CELERY_BROKER_URL=amqp://..., or NOTIFLOW_BROKER=rabbitmq make run). What matters
# there, and why:
# - Priorities: RabbitMQ orders a queue by priority only when it was declared with
#   x-max-priority, which this sets for every queue Celery declares (rule 11). That needs
#   classic queues, the default. Quorum queues replicate, but know no priorities 0-9 (RabbitMQ 4
#   has two levels), so rule 11's ordering would be lost; they are not configured here.
# - Publisher confirms (broker_transport_options confirm_publish) are left off: a nudge that
#   never reached RabbitMQ is re-sent by the sweeper from PostgreSQL (rules 1 and 5), so waiting
#   for the broker's confirm on every publish would buy latency, not safety.
# - acks_late and RabbitMQ's consumer_timeout (30 minutes by default): a delivery unacked for
#   longer closes the worker's channel. A step is acked within CELERY_TASK_TIME_LIMIT, well inside
#   it; a countdown nudge is held unacked by the worker until due, at most
#   NOTIFLOW_MAX_COUNTDOWN_SECONDS (longer waits go through the sweeper), so keep that cap under
#   the server's consumer_timeout. CELERY_VISIBILITY_TIMEOUT is Redis's and has no effect here.
# - Redis stays: the cache, the API's rate limits and the send caps use it (NOTIFLOW_CACHE_URL,
#   NOTIFLOW_REDIS_URL); the nudge writer of common/broker.py steps aside (Celery publishes).
if CELERY_BROKER_URL.startswith(("amqp://", "amqps://", "pyamqp://")):
    CELERY_TASK_QUEUE_MAX_PRIORITY = 9
_refuse_unless(
    CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"] >= 4 * NOTIFLOW_MAX_COUNTDOWN_SECONDS,
    "CELERY_VISIBILITY_TIMEOUT",
    CELERY_BROKER_TRANSPORT_OPTIONS["visibility_timeout"],
    f"at least 4 x NOTIFLOW_MAX_COUNTDOWN_SECONDS ({NOTIFLOW_MAX_COUNTDOWN_SECONDS})",
)
# A step must finish (or be killed) well inside its lease, so a lease never expires under a live
# step: soft limit raises inside the task, hard limit kills the process.
NOTIFLOW_LEASE_SECONDS = env.setting("NOTIFLOW_LEASE_SECONDS")
CELERY_TASK_SOFT_TIME_LIMIT = env.setting("CELERY_TASK_SOFT_TIME_LIMIT")
CELERY_TASK_TIME_LIMIT = env.setting("CELERY_TASK_TIME_LIMIT")
_refuse_unless(
    CELERY_TASK_TIME_LIMIT < NOTIFLOW_LEASE_SECONDS,
    "CELERY_TASK_TIME_LIMIT",
    CELERY_TASK_TIME_LIMIT,
    f"under NOTIFLOW_LEASE_SECONDS ({NOTIFLOW_LEASE_SECONDS})",
)
# A provider call must give up before the soft limit: an SMTP send can block for EMAIL_TIMEOUT on
# the message and again on the QUIT that Django's backend sends while closing.
_refuse_unless(
    2 * EMAIL_TIMEOUT < CELERY_TASK_SOFT_TIME_LIMIT,
    "EMAIL_TIMEOUT",
    EMAIL_TIMEOUT,
    f"under half of CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)
# Celery's Django fixup closes the database connection before and after every task unless this
# is set, so each step paid for a new PostgreSQL connection (a backend fork, authentication,
# cold catalog caches): as much time as the step's own queries. With it a pool process keeps its
# connection (Celery still recycles it every this many tasks), and notiflow.celery checks it
# between tasks as Django does between requests (errors, CONN_MAX_AGE, CONN_HEALTH_CHECKS).
CELERY_DB_REUSE_MAX = env.setting("CELERY_DB_REUSE_MAX")
# Keep our own logging configuration instead of Celery replacing the root logger.
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
# Publishing a nudge must not hold a request hostage when Redis is down: one quick retry, then
# give up (the trigger is already committed; the sweeper re-nudges it).
CELERY_TASK_PUBLISH_RETRY_POLICY = {
    "max_retries": 1,
    "interval_start": 0,
    "interval_step": 0.1,
    "interval_max": 0.1,
}
CELERY_BROKER_CONNECTION_TIMEOUT = env.setting("CELERY_BROKER_CONNECTION_TIMEOUT")
# Retry the broker connection at start-up too (Celery 6 stops doing it implicitly).
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
# Beat reads its schedule from PostgreSQL; the entries below are installed there at start. One
# entry per sweep, each its own task: a slow sweep (a backlog of wait timeouts, say) never delays
# another, and each shows under its own name. A sweep that could not run in time is useless once
# the next one is due, hence `expires`.
CELERY_BEAT_SCHEDULER = "django_celery_beat.schedulers:DatabaseScheduler"
_SWEEPS = {
    # Leased work (common/leased_work.py), one kind each: due runs whose nudge is missing or
    # lost and expired leases; webhook deliveries likewise; fan-outs' and bulk actions' chunk
    # tasks likewise; the timeouts of event waits past (or about to pass) their deadline.
    "notiflow-sweeper": "workers.sweep",
    "notiflow-webhook-sweeper": "events.sweep",
    "notiflow-fanout-sweeper": "workers.fanouts_sweep",
    "notiflow-action-sweeper": "workers.trigger_actions_sweep",
    "notiflow-wait-sweeper": "workers.waits_sweep",
    # Schedules whose next occurrence is due (one entry for them all: schedules/work.py).
    "notiflow-schedule-sweeper": "workers.schedules_sweep",
    # Throttle passes and digests past their use.
    "notiflow-flow-state-pruner": "workers.flow_state_prune",
    # The step logs' share of the funnel, rolled up behind its watermark (docs/funnel.md).
    "notiflow-funnel-sweeper": "deliveries.funnel_sweep",
}
CELERY_BEAT_SCHEDULE = {
    entry: {
        "task": task,
        "schedule": timedelta(seconds=NOTIFLOW_SWEEP_INTERVAL_SECONDS),
        "options": {"expires": NOTIFLOW_SWEEP_INTERVAL_SECONDS},
    }
    for entry, task in _SWEEPS.items()
}
# The step log's partitions, created days ahead (docs/reliability/index.md): hourly is plenty.
CELERY_BEAT_SCHEDULE["notiflow-step-log-partitions"] = {
    "task": "workers.step_log_partitions",
    "schedule": timedelta(hours=1),
    "options": {"expires": 3600},
}
NOTIFLOW_STEP_LOG_PARTITION_DAYS = env.setting("NOTIFLOW_STEP_LOG_PARTITION_DAYS")
NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS = env.setting("NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS")
_refuse_unless(
    NOTIFLOW_STEP_LOG_PARTITION_DAYS >= 1,
    "NOTIFLOW_STEP_LOG_PARTITION_DAYS",
    NOTIFLOW_STEP_LOG_PARTITION_DAYS,
    "at least 1",
)
_refuse_unless(
    NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS >= 1,
    "NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS",
    NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS,
    "at least 1",
)

# --- Notiflow engine ----------------------------------------------------------------------------
# Timing and flow-control nodes (docs/design/workflows.md): the zone of a send window whose `timezone`
# renders empty, and the most payloads a digest hands its templates (its count is every run).
NOTIFLOW_DEFAULT_TIMEZONE = env.setting("NOTIFLOW_DEFAULT_TIMEZONE")
try:
    zoneinfo.ZoneInfo(NOTIFLOW_DEFAULT_TIMEZONE)
except (zoneinfo.ZoneInfoNotFoundError, ValueError):
    _refuse_unless(
        False,
        "NOTIFLOW_DEFAULT_TIMEZONE",
        repr(NOTIFLOW_DEFAULT_TIMEZONE),
        "an IANA time zone name",
    )
NOTIFLOW_DIGEST_MAX_EVENTS = env.setting("NOTIFLOW_DIGEST_MAX_EVENTS")
# ... and the most bytes of payload JSON it hands them (the summary is copied into vars and events).
NOTIFLOW_DIGEST_MAX_BYTES = env.setting("NOTIFLOW_DIGEST_MAX_BYTES")
# A send inside the recipient's quiet hours waits for their end unless the run is urgent: its
# workflow is required, or its priority is at least this (docs/quiet-hours.md).
NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY = env.setting("NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY")
_refuse_unless(
    0 <= NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY <= 10,
    "NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY",
    NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY,
    "from 0 to 10 (10: only required workflows pass through quiet hours)",
)
# Steps of one run a worker may take in one task when the next is due at once (docs/design/run.md,
# "Several steps in one task"). 1, the default, is one node per task (the contract). 3 measured
# 404.9 and 408.0 -> 591.0 and 547.7 steps/s on email -> sms -> email (2 cores, `python -m bench
# --only engine,dblimit --triggers 2000`, alternated by this variable): CPU per step 4.55 and
# 4.57 -> 3.25 and 3.51 ms, the worker's main process 0.82 -> 0.32 ms (docs/performance/findings.md, issue 21).
NOTIFLOW_STEPS_PER_TASK = env.setting("NOTIFLOW_STEPS_PER_TASK")
NOTIFLOW_RETRY_BASE_SECONDS = env.setting("NOTIFLOW_RETRY_BASE_SECONDS")
NOTIFLOW_RETRY_JITTER = env.setting("NOTIFLOW_RETRY_JITTER")
NOTIFLOW_MAX_RETRIES = env.setting("NOTIFLOW_MAX_RETRIES")
# The longest wait between two attempts, whatever the exponent says.
NOTIFLOW_RETRY_MAX_SECONDS = env.setting("NOTIFLOW_RETRY_MAX_SECONDS")
# A nudge that has not led to a claim after this long is presumed lost and is sent again.
NOTIFLOW_RENUDGE_AFTER_SECONDS = env.setting("NOTIFLOW_RENUDGE_AFTER_SECONDS")
NOTIFLOW_SWEEP_BATCH_SIZE = env.setting("NOTIFLOW_SWEEP_BATCH_SIZE")
# A worker refreshes its row in the registry this often; it is live while seen within three.
NOTIFLOW_WORKER_HEARTBEAT_SECONDS = env.setting("NOTIFLOW_WORKER_HEARTBEAT_SECONDS")
# The code version a worker registers: the installed package's unless set (a build can stamp its
# commit here).
NOTIFLOW_VERSION = env.setting("NOTIFLOW_VERSION")
# Refuse a trigger (503, nothing stored) when no live worker serves its workflow's queue. Off:
# accept it and let it wait in PostgreSQL until a worker comes.
NOTIFLOW_TRIGGER_REQUIRES_WORKER = env.setting("NOTIFLOW_TRIGGER_REQUIRES_WORKER")
# The most trigger requests one POST /api/triggers/bulk/ may carry.
NOTIFLOW_BULK_MAX = env.setting("NOTIFLOW_BULK_MAX")
# A fan-out (a trigger for a topic) creates its runs this many subscribers per task, one intake
# statement each; a chunk that failed or found no live worker is tried again after the other.
NOTIFLOW_FANOUT_CHUNK_SIZE = env.setting("NOTIFLOW_FANOUT_CHUNK_SIZE")
NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS = env.setting("NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS")
# The most runs one fan-out makes: a request for a bigger audience is a 400 saying how big, and a
# fan-out whose topic grows past it meanwhile stops there (docs/security/findings.md, "Fan-outs");
# an occurrence of a topic schedule over it is refused (schedules/admission.py).
NOTIFLOW_FANOUT_MAX_AUDIENCE = env.setting("NOTIFLOW_FANOUT_MAX_AUDIENCE")
# The most runs one bulk action may match (a 400 beyond), and how many a worker task acts on in
# one transaction (docs/bulk-actions.md).
NOTIFLOW_ACTION_MAX = env.setting("NOTIFLOW_ACTION_MAX")
NOTIFLOW_ACTION_CHUNK_SIZE = env.setting("NOTIFLOW_ACTION_CHUNK_SIZE")
# Schedules (docs/guide/schedules.md): a list's length, and the finest rule.
NOTIFLOW_SCHEDULE_MAX_RECIPIENTS = env.setting("NOTIFLOW_SCHEDULE_MAX_RECIPIENTS")
NOTIFLOW_SCHEDULE_MIN_INTERVAL_SECONDS = env.setting("NOTIFLOW_SCHEDULE_MIN_INTERVAL_SECONDS")
# How long a process trusts an API key it found active: a revocation takes effect within this
# (at once in the process that revoked it); 0 checks the database on every request.
NOTIFLOW_API_KEY_CACHE_SECONDS = env.setting("NOTIFLOW_API_KEY_CACHE_SECONDS")
# What a workflow may be (checked at validation, before any template is parsed) and what one
# render may cost (docs/security/content.md). Exceeding a render budget fails the step permanently.
NOTIFLOW_WORKFLOW_MAX_BYTES = env.setting("NOTIFLOW_WORKFLOW_MAX_BYTES")
NOTIFLOW_WORKFLOW_MAX_NODES = env.setting("NOTIFLOW_WORKFLOW_MAX_NODES")
NOTIFLOW_WORKFLOW_MAX_EDGES = env.setting("NOTIFLOW_WORKFLOW_MAX_EDGES")
NOTIFLOW_TEMPLATE_MAX_BYTES = env.setting("NOTIFLOW_TEMPLATE_MAX_BYTES")
NOTIFLOW_TEMPLATE_MAX_ITERATIONS = env.setting("NOTIFLOW_TEMPLATE_MAX_ITERATIONS")
NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES = env.setting("NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES")
NOTIFLOW_TEMPLATE_MAX_OUTPUT_CHARS = env.setting("NOTIFLOW_TEMPLATE_MAX_OUTPUT_CHARS")
NOTIFLOW_TEMPLATE_DEADLINE_SECONDS = env.setting("NOTIFLOW_TEMPLATE_DEADLINE_SECONDS")
# The last locale of every run's chain (docs/translations.md): a message's translation is looked
# up in the trigger's locale, the recipient's, its language, the workflow's default, then this.
# A BCP 47 tag Babel knows; numbers, dates and money are formatted in it when nothing comes first.
NOTIFLOW_DEFAULT_LOCALE = env.setting("NOTIFLOW_DEFAULT_LOCALE")
try:
    _babel_locale.parse(NOTIFLOW_DEFAULT_LOCALE, sep="-")
except (ValueError, TypeError, _babel_unknown):
    _refuse(
        f"refusing to start: NOTIFLOW_DEFAULT_LOCALE={NOTIFLOW_DEFAULT_LOCALE!r} must be a BCP 47 "
        "tag Babel knows, such as en, fr or pt-BR."
    )
# The last layout of every email's chain (docs/layouts.md): the node's, the tenant's, the
# workflow's default, then this; empty: an email without one is sent as its node writes it. A
# key that names no layout fails the emails that reach it (checked when they render, since
# layouts are data: a start-up check would need the database).
NOTIFLOW_DEFAULT_LAYOUT = env.setting("NOTIFLOW_DEFAULT_LAYOUT")
# One filter's result, and what all of a node's filter calls make (bytes, estimated).
NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES = env.setting("NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES")
NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES = env.setting("NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES")
# Admin previews rendering at once in one web process; more are told to try again (each holds a
# web thread for up to a render budget, and a process has NOTIFLOW_WEB_THREADS of them).
NOTIFLOW_PREVIEW_CONCURRENCY = env.setting("NOTIFLOW_PREVIEW_CONCURRENCY")
# Parsed templates kept per process, bounded by the memory they take (estimated from their
# markup, an upper bound: workflows.templating.parsed_size_estimate).
NOTIFLOW_TEMPLATE_CACHE_BYTES = env.setting("NOTIFLOW_TEMPLATE_CACHE_BYTES")
# How many addresses an email node may send to at most (its own `max_recipients`, 1 unless set).
NOTIFLOW_MAX_RECIPIENTS = 50
# The suppression list a worker process holds per channel (deliveries/suppression.py,
# SuppressionCache): a send checks its recipients in memory while the list's generation is the
# one held; a channel's list longer than this many rows is not held (each send asks PostgreSQL).
NOTIFLOW_SUPPRESSION_CACHE_ROWS = env.setting("NOTIFLOW_SUPPRESSION_CACHE_ROWS")
# Where operators find Flower; the landing page at / links it when set (empty: no link).
NOTIFLOW_FLOWER_URL = env.setting("NOTIFLOW_FLOWER_URL")
# Send caps per hour, shared by every worker (workers/services/caps.py); 0 = no cap. Per
# recipient (address or number, per channel) and per creator (the API key, admin user or
# command that created the trigger). Counted in Redis at NOTIFLOW_REDIS_URL.
NOTIFLOW_SEND_CAP_PER_RECIPIENT = env.setting("NOTIFLOW_SEND_CAP_PER_RECIPIENT")
NOTIFLOW_SEND_CAP_PER_CREATOR = env.setting("NOTIFLOW_SEND_CAP_PER_CREATOR")
NOTIFLOW_REDIS_URL = env.setting(
    "NOTIFLOW_REDIS_URL",
    derived=CELERY_BROKER_URL
    if CELERY_BROKER_URL.startswith("redis")
    else "redis://127.0.0.1:6379/0",
)


# The shared cache: Django's CACHES and the API's rate limits (common/throttling.py). Default:
# the broker's Redis server, on the next database number (broker /0 -> /1), so that flushing
# one never empties the other.
def _next_redis_db(url: str) -> str:
    parts = urlsplit(url)
    db = int(parts.path.strip("/") or 0)
    return urlunsplit(parts._replace(path=f"/{(db + 1) % 16}"))


NOTIFLOW_CACHE_URL = env.setting(
    "NOTIFLOW_CACHE_URL",
    derived=_next_redis_db(
        CELERY_BROKER_URL if CELERY_BROKER_URL.startswith("redis") else "redis://127.0.0.1:6379/0"
    ),
)
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.redis.RedisCache",
        "LOCATION": NOTIFLOW_CACHE_URL,
        "KEY_PREFIX": "notiflow",
        "OPTIONS": {"socket_connect_timeout": 0.5, "socket_timeout": 0.5},
    }
}
# Requests per API key: N/s, N/m, N/h or N/d; empty or `off`: no limit. One bucket per key and
# scope of the endpoint (common/scopes.py): intake and reads of triggers count against
# TRIGGER, the management endpoints against ADMIN (docs/security/keys.md says why 20/s).
NOTIFLOW_RATE_LIMIT_TRIGGER = env.setting("NOTIFLOW_RATE_LIMIT_TRIGGER")
NOTIFLOW_RATE_LIMIT_ADMIN = env.setting("NOTIFLOW_RATE_LIMIT_ADMIN")
# Requests per recipient to the in-app inbox's feed API (inbox/auth.py), same syntax.
NOTIFLOW_RATE_LIMIT_INBOX = env.setting("NOTIFLOW_RATE_LIMIT_INBOX")
# Failed admin logins per account and per client address, same syntax (notiflow/login_throttle.py).
NOTIFLOW_LOGIN_LIMIT_ACCOUNT = env.setting("NOTIFLOW_LOGIN_LIMIT_ACCOUNT")
NOTIFLOW_LOGIN_LIMIT_ADDRESS = env.setting("NOTIFLOW_LOGIN_LIMIT_ADDRESS")
for _name in (
    "NOTIFLOW_RATE_LIMIT_TRIGGER",
    "NOTIFLOW_RATE_LIMIT_ADMIN",
    "NOTIFLOW_RATE_LIMIT_INBOX",
    "NOTIFLOW_LOGIN_LIMIT_ACCOUNT",
    "NOTIFLOW_LOGIN_LIMIT_ADDRESS",
):
    if not re.fullmatch(r"\s*(off|none|\d+\s*/\s*[smhd][a-z]*)?\s*", globals()[_name], re.I):
        _refuse_unless(False, _name, repr(globals()[_name]), "N/s, N/m, N/h, N/d or off")
# The in-app inbox (docs/security/recipients.md, "The recipient token"): the secret a recipient token is
# the HMAC under (empty: one derived from DJANGO_SECRET_KEY for the inbox alone), and the
# origins (scheme://host[:port]) whose pages may call /api/inbox/ from the browser (CORS).
NOTIFLOW_INBOX_SECRET = env.setting("NOTIFLOW_INBOX_SECRET")
NOTIFLOW_INBOX_ALLOWED_ORIGINS = env.setting("NOTIFLOW_INBOX_ALLOWED_ORIGINS")
# Open inbox streams of one recipient a web process holds (inbox/stream.py); one more is a 429.
NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT = env.setting("NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT")
if NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT < 1:
    raise ValueError("NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT must be at least 1")
# Prometheus metrics (docs/design/observability.md, "Metrics"; notiflow/metrics.py). GET /metrics answers only
# a request bearing this token (`Authorization: Bearer <token>`); empty: the endpoint is off (404).
NOTIFLOW_METRICS_TOKEN = env.setting("NOTIFLOW_METRICS_TOKEN")
# Where every process records its counters and histograms (common/metrics.py: prometheus_client's
# multiprocess files, one directory per process group, cleaned when the group starts). Empty:
# nothing is recorded, and /metrics shows only the gauges read from the database.
NOTIFLOW_METRICS_DIR = env.setting("NOTIFLOW_METRICS_DIR")
# A token without a directory would serve a scrape with no counter of any process, this one's
# included: a deployment that forgot the directory (compose did) would look idle, not broken.
if NOTIFLOW_METRICS_TOKEN and not NOTIFLOW_METRICS_DIR:
    _refuse(
        "NOTIFLOW_METRICS_TOKEN is set but NOTIFLOW_METRICS_DIR is not: set NOTIFLOW_METRICS_DIR "
        "to a directory every process of this host shares (web and workers), or unset the token"
    )
# The gauges /metrics reads from the database are read at most this often per web process.
NOTIFLOW_METRICS_CACHE_SECONDS = env.setting("NOTIFLOW_METRICS_CACHE_SECONDS")
# The public face of /api/health/ is computed at most this often per process (workers/api.py).
NOTIFLOW_HEALTH_CACHE_SECONDS = env.setting("NOTIFLOW_HEALTH_CACHE_SECONDS")
# Health is `degraded` once due work (a trigger, an expired lease) has waited this long: past one
# re-nudge (NOTIFLOW_RENUDGE_AFTER_SECONDS [30]) and a sweep, a healthy system has taken it.
NOTIFLOW_HEALTH_MAX_LAG_SECONDS = env.setting("NOTIFLOW_HEALTH_MAX_LAG_SECONDS")
# The web process (notiflow/asgi.py, common/asgi.py): the threads of each worker process that run Django, and how
# often that process asks PostgreSQL whether the triggers its clients wait for
# (`GET /api/triggers/<id>/?wait=`) are finished, while any client waits.
NOTIFLOW_WEB_THREADS = env.setting("NOTIFLOW_WEB_THREADS")
NOTIFLOW_WAIT_POLL_SECONDS = env.setting("NOTIFLOW_WAIT_POLL_SECONDS")
if NOTIFLOW_WEB_THREADS < 1:
    _refuse("NOTIFLOW_WEB_THREADS must be at least 1")
if not 0 < NOTIFLOW_WAIT_POLL_SECONDS <= 5:
    _refuse("NOTIFLOW_WAIT_POLL_SECONDS must be more than 0 and at most 5")
NOTIFLOW_MESSAGE_ID_DOMAIN = env.setting("NOTIFLOW_MESSAGE_ID_DOMAIN")
# Where the outside world reaches this service (https://notify.example.com, no trailing slash):
# the base of the links providers and recipients follow back to it (the one-click unsubscribe
# URL of marketing email, Twilio's StatusCallback). Empty: no such links are made.
NOTIFLOW_PUBLIC_URL = env.setting("NOTIFLOW_PUBLIC_URL").rstrip("/")
# HTTPS outside debug: the unsubscribe tokens and Twilio's signed callbacks travel in these URLs.
# Plain HTTP stays allowed on a loopback host (make run's own address), which nothing outside
# this machine reaches anyway.
_public = urlsplit(NOTIFLOW_PUBLIC_URL)
if NOTIFLOW_PUBLIC_URL and not (
    _public.scheme == "https"
    or DEBUG
    or (_public.scheme == "http" and _public.hostname in ("127.0.0.1", "localhost", "::1"))
):
    _refuse(
        f"NOTIFLOW_PUBLIC_URL must be an https:// URL outside debug (got {NOTIFLOW_PUBLIC_URL!r})"
    )
# How long a marketing email's one-click unsubscribe link works (deliveries/suppression.py).
NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS = env.setting("NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS")
# How long a `{{ preferences_url }}` link to the hosted preference page works
# (recipients/preferences.py); a link is made afresh for every message.
NOTIFLOW_PREFERENCES_LINK_MAX_AGE_DAYS = env.setting("NOTIFLOW_PREFERENCES_LINK_MAX_AGE_DAYS")
# console, file, twilio or null; `none` (or empty) means this worker has no SMS provider: it
# registers without the sms node type and fails an SMS step it meets (workers/channels/__init__.py).
NOTIFLOW_SMS_BACKEND = env.setting("NOTIFLOW_SMS_BACKEND")
NOTIFLOW_SMS_FILE = env.setting("NOTIFLOW_SMS_FILE", derived=str(BASE_DIR / ".run" / "sms.jsonl"))
NOTIFLOW_SMS_TIMEOUT_SECONDS = env.setting("NOTIFLOW_SMS_TIMEOUT_SECONDS")
# A node's templates render within this, then the provider call has the rest of the soft limit.
_refuse_unless(
    NOTIFLOW_TEMPLATE_DEADLINE_SECONDS < CELERY_TASK_SOFT_TIME_LIMIT / 2,
    "NOTIFLOW_TEMPLATE_DEADLINE_SECONDS",
    NOTIFLOW_TEMPLATE_DEADLINE_SECONDS,
    f"under half of CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)
_refuse_unless(
    NOTIFLOW_SMS_TIMEOUT_SECONDS < CELERY_TASK_SOFT_TIME_LIMIT,
    "NOTIFLOW_SMS_TIMEOUT_SECONDS",
    NOTIFLOW_SMS_TIMEOUT_SECONDS,
    f"under CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)
TWILIO_ACCOUNT_SID = env.setting("TWILIO_ACCOUNT_SID")
TWILIO_AUTH_TOKEN = env.setting("TWILIO_AUTH_TOKEN")
TWILIO_FROM = env.setting("TWILIO_FROM")
NOTIFLOW_TWILIO_BASE_URL = env.setting("NOTIFLOW_TWILIO_BASE_URL")

# Email providers' connections kept open per worker thread (workers/providers/connections.py;
# docs/design/channels.md, "Kept connections"): an SMTP connection is asked NOOP before a reuse after this
# many idle seconds, and any kept connection is closed after the idle timeout (and at shutdown).
NOTIFLOW_EMAIL_KEEP_CONNECTIONS = env.setting("NOTIFLOW_EMAIL_KEEP_CONNECTIONS")
NOTIFLOW_EMAIL_SMTP_PIPELINING = env.setting("NOTIFLOW_EMAIL_SMTP_PIPELINING")
NOTIFLOW_EMAIL_CONNECTION_CHECK_SECONDS = env.setting("NOTIFLOW_EMAIL_CONNECTION_CHECK_SECONDS")
NOTIFLOW_EMAIL_CONNECTION_IDLE_SECONDS = env.setting("NOTIFLOW_EMAIL_CONNECTION_IDLE_SECONDS")

# --- Chat channels (workers/channels/slack.py, teams.py; README "Slack and Microsoft Teams") -------
# The bot token of chat.postMessage (a node's `channel`, a recipient's channel or user_id); not
# needed for incoming webhooks. The API's base URL points at a stand-in in tests.
NOTIFLOW_SLACK_BOT_TOKEN = env.setting("NOTIFLOW_SLACK_BOT_TOKEN")
NOTIFLOW_SLACK_API_URL = env.setting("NOTIFLOW_SLACK_API_URL")
NOTIFLOW_CHAT_TIMEOUT_SECONDS = env.setting("NOTIFLOW_CHAT_TIMEOUT_SECONDS")
_refuse_unless(
    NOTIFLOW_CHAT_TIMEOUT_SECONDS < CELERY_TASK_SOFT_TIME_LIMIT,
    "NOTIFLOW_CHAT_TIMEOUT_SECONDS",
    NOTIFLOW_CHAT_TIMEOUT_SECONDS,
    f"under CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)
# A Slack or Teams webhook URL must resolve to public addresses (events/addresses.py) unless this
# is on (development and tests, whose stand-ins listen on loopback).
NOTIFLOW_CHAT_ALLOW_PRIVATE = env.setting("NOTIFLOW_CHAT_ALLOW_PRIVATE")

# --- Providers (workers/providers/__init__.py; docs/design/channels.md, "Providers") ---------------------
# Named providers per channel, in failover order: a transient failure is retried on the next.
# Unset, each channel has the one provider above (EMAIL_BACKEND / EMAIL_URL, NOTIFLOW_SMS_BACKEND).
NOTIFLOW_EMAIL_PROVIDERS = env.setting("NOTIFLOW_EMAIL_PROVIDERS")
NOTIFLOW_SMS_PROVIDERS = env.setting("NOTIFLOW_SMS_PROVIDERS")
# Per name: NOTIFLOW_PROVIDER_<NAME>_BACKEND (an alias or a dotted email backend) and
# NOTIFLOW_PROVIDER_<NAME>_OPTIONS (a JSON object: the backend's keyword arguments).
NOTIFLOW_PROVIDER_SETTINGS: dict[str, dict[str, object]] = {}
for _name in {n.strip().lower() for n in NOTIFLOW_EMAIL_PROVIDERS + NOTIFLOW_SMS_PROVIDERS}:
    try:
        _options = json.loads(env.setting(f"NOTIFLOW_PROVIDER_{_name.upper()}_OPTIONS") or "{}")
    except ValueError as _exc:
        _refuse(f"NOTIFLOW_PROVIDER_{_name.upper()}_OPTIONS is not JSON: {_exc}")
    NOTIFLOW_PROVIDER_SETTINGS[_name] = {
        "backend": env.setting(f"NOTIFLOW_PROVIDER_{_name.upper()}_BACKEND"),
        "options": _options,
    }
# A rate per provider shared by every worker (`ses=14/s,twilio=100/m`): a send that finds no
# token waits for it, without counting as an attempt (workers/services/provider_rates.py).
NOTIFLOW_PROVIDER_RATE_LIMITS = env.setting("NOTIFLOW_PROVIDER_RATE_LIMITS")
# Push (docs/design/channels.md, "Push channels"): web push signs with a VAPID key pair (`manage.py
# vapid_keys` makes one; the private key as base64url, or a PEM file's path) and a subject (a
# mailto: or https: URL the push services may contact); unset, the worker has no webpush channel.
NOTIFLOW_VAPID_PRIVATE_KEY = env.setting("NOTIFLOW_VAPID_PRIVATE_KEY")
NOTIFLOW_VAPID_PUBLIC_KEY = env.setting("NOTIFLOW_VAPID_PUBLIC_KEY")
NOTIFLOW_VAPID_SUBJECT = env.setting("NOTIFLOW_VAPID_SUBJECT")
# Mobile push through FCM HTTP v1: the service account's JSON (its text, or a file); unset, no
# push channel. The base URL (and the service account's token_uri) point at stand-ins in tests.
NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON = env.setting("NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON")
NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE = env.setting("NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE")
NOTIFLOW_FCM_BASE_URL = env.setting("NOTIFLOW_FCM_BASE_URL")
# Browsers' push services are all https; a subscription with an http endpoint is ignored unless
# this is on (the tests' push service on loopback).
NOTIFLOW_WEBPUSH_ALLOW_HTTP = env.setting("NOTIFLOW_WEBPUSH_ALLOW_HTTP")
# How long a push service keeps an undelivered message (web push TTL), and each request's timeout.
NOTIFLOW_PUSH_TTL_SECONDS = env.setting("NOTIFLOW_PUSH_TTL_SECONDS")
# Web push's timeout is one deadline for the whole request, connecting to status line
# (workers/providers/outgoing.py); FCM's is per socket operation (Google's fixed endpoint).
NOTIFLOW_PUSH_TIMEOUT_SECONDS = env.setting("NOTIFLOW_PUSH_TIMEOUT_SECONDS")
_refuse_unless(
    NOTIFLOW_PUSH_TIMEOUT_SECONDS < CELERY_TASK_SOFT_TIME_LIMIT,
    "NOTIFLOW_PUSH_TIMEOUT_SECONDS",
    NOTIFLOW_PUSH_TIMEOUT_SECONDS,
    f"under CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)
# A web push endpoint is a URL a recipient's browser (or whoever writes recipients) chose: it must
# resolve to public addresses (events/addresses.py) unless this is on (development and tests,
# whose push services listen on loopback).
NOTIFLOW_PUSH_ALLOW_PRIVATE = env.setting("NOTIFLOW_PUSH_ALLOW_PRIVATE")
# The most web push requests one Celery worker has in flight at once (workers/services/
# push_slots.py): keep it under the worker's concurrency, so that slow push endpoints hold at most
# this many of its slots and the others go on with other steps.
NOTIFLOW_PUSH_CONCURRENCY = env.setting(
    "NOTIFLOW_PUSH_CONCURRENCY", derived=max(1, CELERY_WORKER_CONCURRENCY // 2)
)
_refuse_unless(
    NOTIFLOW_PUSH_CONCURRENCY >= 1,
    "NOTIFLOW_PUSH_CONCURRENCY",
    NOTIFLOW_PUSH_CONCURRENCY,
    "at least 1",
)
# Amazon SES's reports: their SNS signature is checked (deliveries/sns.py) against a certificate
# fetched from an address matching this pattern (AWS's SNS hosts), unless turned off.
NOTIFLOW_SNS_VERIFY_SIGNATURES = env.setting("NOTIFLOW_SNS_VERIFY_SIGNATURES")
NOTIFLOW_SNS_CERT_URL_PATTERN = env.setting("NOTIFLOW_SNS_CERT_URL_PATTERN")
# anymail's own settings (API keys, WEBHOOK_SECRET, ...), from ANYMAIL_<NAME> variables; a value
# that is a JSON object or list (AMAZON_SES_CLIENT_PARAMS) is passed as one.
ANYMAIL: dict[str, object] = {}
for _key in [k for k in os.environ if k.startswith("ANYMAIL_")]:
    _value: object = env.setting(_key)
    if str(_value).lstrip().startswith(("{", "[")):
        try:
            _value = json.loads(str(_value))
        except ValueError as _exc:
            _refuse(f"{_key} looks like JSON but is not: {_exc}")
    ANYMAIL[_key.removeprefix("ANYMAIL_")] = _value
# An ESP's HTTPS request gives up as an SMTP send does, after EMAIL_TIMEOUT without a byte
# (ANYMAIL_REQUESTS_TIMEOUT overrides it): anymail's own default, 30 s, is no shorter than the
# soft time limit, and under a threads worker a step blocked past the hard limit is stopped only
# by exiting the worker with its neighbours (notiflow/timelimits.py).
_requests_timeout = str(ANYMAIL.get("REQUESTS_TIMEOUT", EMAIL_TIMEOUT))
try:
    ANYMAIL["REQUESTS_TIMEOUT"] = float(_requests_timeout)
except ValueError:
    _refuse(
        f"refusing to start: ANYMAIL_REQUESTS_TIMEOUT={_requests_timeout!r} is not float (seconds)."
    )
_refuse_unless(
    2 * float(_requests_timeout) < CELERY_TASK_SOFT_TIME_LIMIT,
    "ANYMAIL_REQUESTS_TIMEOUT",
    _requests_timeout,
    f"under half of CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)

_CELERY_TASK_LOGGERS = ("celery.worker.strategy", "celery.app.trace", "celery.beat")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.setting("LOG_LEVEL")},
    # Celery's "received"/"succeeded"/"Sending due task" lines about the sweepers, every few
    # seconds, are left out (notiflow/task_logging.py); a sweep logs what it did, if anything.
    "filters": {"quiet_periodic_tasks": {"()": "notiflow.task_logging.QuietPeriodicTasks"}},
    "loggers": {
        "django.db.backends": {"level": "WARNING"},
        **{name: {"filters": ["quiet_periodic_tasks"]} for name in _CELERY_TASK_LOGGERS},
    },
}

# --- Events and webhooks (docs/design/events.md, "Events and webhooks") ----------------------------------
# The CloudEvents `source` of every event.
NOTIFLOW_EVENT_SOURCE = env.setting("NOTIFLOW_EVENT_SOURCE")
# The Celery queue of the webhook dispatcher's deliveries, served by a worker group of its own
# (Procfile `webhooks`, -Q webhooks): a slow receiver then holds a webhook worker's slot, never
# the engine's (issue 31: eight slow receivers on the shared queue made an email take 27 s).
# `default` puts them back on the engine's workers (one worker group serves everything). No
# CELERY_TASK_ROUTES for it: events/dispatch.py names this queue on every nudge, and any route
# would turn off the direct nudge writer (common/broker.py, TaskMessageWriter.for_app).
NOTIFLOW_WEBHOOK_QUEUE = env.setting("NOTIFLOW_WEBHOOK_QUEUE")
# The most deliveries to one endpoint in flight at once (checked at claim time): a slow
# receiver holds at most this many of the webhook workers' slots, and the others go on.
NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY = env.setting("NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY")
NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS = env.setting("NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS")
NOTIFLOW_WEBHOOK_MAX_ATTEMPTS = env.setting("NOTIFLOW_WEBHOOK_MAX_ATTEMPTS")
NOTIFLOW_WEBHOOK_DISABLE_AFTER = env.setting("NOTIFLOW_WEBHOOK_DISABLE_AFTER")
# One attempt's whole deadline, from its start to the receiver's status line (connecting, TLS,
# sending, reading), enforced whatever the receiver does (events/services/sender.py).
NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS = env.setting("NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS")
# Lets webhook URLs resolve to loopback and private addresses: development and tests only.
NOTIFLOW_WEBHOOK_ALLOW_PRIVATE = env.setting("NOTIFLOW_WEBHOOK_ALLOW_PRIVATE")
for _name in (
    "NOTIFLOW_WEBHOOK_MAX_ATTEMPTS",
    "NOTIFLOW_WEBHOOK_DISABLE_AFTER",
    "NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY",
):
    _refuse_unless(globals()[_name] >= 1, _name, globals()[_name], "at least 1")
# An attempt, with the claim and the record around it, ends well inside the task's soft limit
# (and so inside its lease): the deadline, not the time limit, is what ends a slow receiver.
_refuse_unless(
    2 * NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS < CELERY_TASK_SOFT_TIME_LIMIT,
    "NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS",
    NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS,
    f"under half of CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)

# --- The fetch node (docs/guide/fetch.md) --------------------------------------------------------
# Its requests follow the webhooks' address rule (events/addresses.py) unless this lifts it.
NOTIFLOW_FETCH_ALLOW_PRIVATE = env.setting("NOTIFLOW_FETCH_ALLOW_PRIVATE")
NOTIFLOW_FETCH_MAX_BYTES = env.setting("NOTIFLOW_FETCH_MAX_BYTES")
# The whole deadline of one fetch, as a webhook attempt's: under half the task's soft limit.
NOTIFLOW_FETCH_TIMEOUT_SECONDS = env.setting(
    "NOTIFLOW_FETCH_TIMEOUT_SECONDS", derived=min(10.0, CELERY_TASK_SOFT_TIME_LIMIT / 3)
)
NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT = env.setting("NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT")
_refuse_unless(
    NOTIFLOW_FETCH_MAX_BYTES >= 1,
    "NOTIFLOW_FETCH_MAX_BYTES",
    NOTIFLOW_FETCH_MAX_BYTES,
    "at least 1",
)
_refuse_unless(
    0 < 2 * NOTIFLOW_FETCH_TIMEOUT_SECONDS < CELERY_TASK_SOFT_TIME_LIMIT,
    "NOTIFLOW_FETCH_TIMEOUT_SECONDS",
    NOTIFLOW_FETCH_TIMEOUT_SECONDS,
    f"above 0 and under half of CELERY_TASK_SOFT_TIME_LIMIT ({CELERY_TASK_SOFT_TIME_LIMIT})",
)
# The secrets `credential` names: from the environment, never the database (docs/guide/fetch.md,
# "Credentials", says why), parsed once here so that a wrong value stops every process at start.
NOTIFLOW_FETCH_CREDENTIALS = env.setting("NOTIFLOW_FETCH_CREDENTIALS")
try:
    _fetch_credentials = json.loads(NOTIFLOW_FETCH_CREDENTIALS or "{}")
except ValueError:
    _fetch_credentials = None
_refuse_unless(
    isinstance(_fetch_credentials, dict)
    and all(
        isinstance(v, str) or (isinstance(v, dict) and set(v) == {"header", "value"})
        for v in _fetch_credentials.values()
    ),
    "NOTIFLOW_FETCH_CREDENTIALS",
    "(not shown)",
    'a JSON object of {"name": {"header": "...", "value": "..."}} or {"name": "value"}',
)
NOTIFLOW_FETCH_SIGNING_SECRET = env.setting("NOTIFLOW_FETCH_SIGNING_SECRET")
