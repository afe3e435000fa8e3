"""The settings of the service around the engine: Django and HTTPS, PostgreSQL, the broker and
the cache, the processes (notiflow/settings_spec/__init__.py says how they are read)."""

from __future__ import annotations

from notiflow.settings_spec import DERIVED, Group, Kind, Setting

SETTINGS = "notiflow/settings.py, in every process"

DJANGO = Group(
    "Django and HTTPS",
    SETTINGS,
    (
        Setting(
            "DJANGO_SECRET_KEY",
            Kind.SECRET,
            "",
            "Signs sessions, password-reset links and messages. Required unless `DJANGO_DEBUG` "
            "is on: every process refuses to start without it, or with a weak one (under 50 "
            "characters, fewer than 5 different, or starting `django-insecure-`). `make run` "
            "keeps a generated one in `.run/secret-key`.",
        ),
        Setting("DJANGO_DEBUG", Kind.BOOL, False, "Django's debug mode: development only."),
        Setting(
            "DJANGO_ALLOWED_HOSTS",
            Kind.LIST,
            ["127.0.0.1", "localhost", "[::1]"],
            "The host names the web process answers to.",
        ),
        Setting(
            "DJANGO_CSRF_TRUSTED_ORIGINS",
            Kind.LIST,
            [],
            "Origins (`https://notify.example.com`) trusted for the admin's unsafe requests.",
        ),
        Setting(
            "DJANGO_STATIC_ROOT",
            Kind.PATH,
            DERIVED,
            "Where `manage.py collectstatic` puts the static files WhiteNoise serves.",
            shown="`staticfiles/` in the checkout",
        ),
        Setting(
            "DJANGO_SESSION_COOKIE_SECURE",
            Kind.BOOL,
            False,
            "The session cookie is sent over HTTPS only (on behind TLS; off by default because "
            "`make run`, compose and the tests serve plain HTTP on loopback).",
        ),
        Setting(
            "DJANGO_CSRF_COOKIE_SECURE",
            Kind.BOOL,
            False,
            "The CSRF cookie is sent over HTTPS only.",
        ),
        Setting(
            "DJANGO_SECURE_SSL_REDIRECT",
            Kind.BOOL,
            False,
            "Redirect plain HTTP to HTTPS (`/api/health/` is exempt, for a load balancer's probe).",
        ),
        Setting(
            "DJANGO_SECURE_HSTS_SECONDS",
            Kind.INT,
            0,
            "The `Strict-Transport-Security` max-age; 0 sends none.",
        ),
        Setting(
            "DJANGO_SECURE_HSTS_INCLUDE_SUBDOMAINS",
            Kind.BOOL,
            False,
            "HSTS covers the subdomains too.",
        ),
        Setting("DJANGO_SECURE_HSTS_PRELOAD", Kind.BOOL, False, "HSTS asks to be preloaded."),
        Setting(
            "DJANGO_SECURE_PROXY_SSL_HEADER",
            Kind.LIST,
            [],
            "Behind a TLS-terminating proxy that always sets or strips it: the request header "
            "that says the client used HTTPS, as `request.META` key and value "
            "(`HTTP_X_FORWARDED_PROTO,https`). Anything else refuses to start.",
        ),
        Setting("LOG_LEVEL", Kind.TEXT, "INFO", "The root logger's level."),
    ),
)

SERVICES = Group(
    "PostgreSQL, the broker and Redis",
    SETTINGS,
    (
        Setting(
            "DATABASE_URL",
            Kind.DATABASE_URL,
            "postgres://postgres@127.0.0.1:5432/notiflow",
            "PostgreSQL, the system of record.",
        ),
        Setting(
            "DATABASE_CONN_MAX_AGE",
            Kind.INT,
            300,
            "Seconds a process keeps its database connection (health-checked before each "
            "request and task); behind PgBouncer a kept connection is a client connection to it.",
        ),
        Setting(
            "DATABASE_CONNECT_TIMEOUT",
            Kind.INT,
            5,
            "Seconds a connection attempt to PostgreSQL may take: a host that does not answer "
            "holds no process (a worker's registry heartbeat) for the system's TCP timeout.",
        ),
        Setting(
            "DATABASE_POOLER",
            Kind.TEXT,
            "auto",
            "What stands between the processes and PostgreSQL: `auto` finds out at each "
            "process's first connection (and reads PgBouncer's admin console); `none` "
            "(PostgreSQL, or session pooling) and `transaction` (a transaction pooler: "
            "server-side cursors off, prepared statements off unless "
            "`DATABASE_PREPARED_STATEMENTS=true`) probe nothing.",
        ),
        Setting(
            "DATABASE_PREPARED_STATEMENTS",
            Kind.TEXT,
            "auto",
            "The hot statements are prepared once per connection (`common/db.py`): `auto` "
            "wherever the connection keeps them (not behind PgBouncer before 1.21 in "
            "transaction mode), `true` always, `false` never.",
        ),
        Setting(
            "CELERY_BROKER_URL",
            Kind.TEXT,
            "redis://127.0.0.1:6379/0",
            "The broker: Redis, or RabbitMQ (`amqp://…`; Redis then stays for the cache, the "
            "rate limits and the send caps: `NOTIFLOW_CACHE_URL`, `NOTIFLOW_REDIS_URL`).",
        ),
        Setting(
            "CELERY_VISIBILITY_TIMEOUT",
            Kind.INT,
            3600,
            "Seconds after which Redis redelivers an unacked message; at least 4 x "
            "`NOTIFLOW_MAX_COUNTDOWN_SECONDS`, or every countdown would be delivered twice.",
        ),
        Setting(
            "CELERY_BROKER_CONNECTION_TIMEOUT",
            Kind.NUMBER,
            2,
            "Seconds to reach the broker: publishing a nudge never holds a request hostage "
            "when it is down (the sweeper re-nudges).",
        ),
        Setting(
            "NOTIFLOW_DIRECT_PUBLISH",
            Kind.BOOL,
            True,
            "Nudges are written straight onto the Redis list of their queue and priority as the "
            "exact message Celery would publish (`common/broker.py`), stepping aside for "
            "anything it cannot reproduce exactly; `false`: Celery publishes every nudge.",
        ),
        Setting(
            "NOTIFLOW_REDIS_URL",
            Kind.TEXT,
            DERIVED,
            "The Redis of the send caps and the providers' rate limits.",
            shown="`CELERY_BROKER_URL` when it is Redis, else `redis://127.0.0.1:6379/0`",
        ),
        Setting(
            "NOTIFLOW_CACHE_URL",
            Kind.TEXT,
            DERIVED,
            "Django's cache and the API's rate limits; when it does not answer the API serves "
            "unthrottled.",
            shown="the broker's Redis server, next database (`/0` → `/1`)",
        ),
    ),
)

PROCESSES = Group(
    "Worker processes",
    SETTINGS,
    (
        Setting(
            "CELERY_WORKER_CONCURRENCY",
            Kind.INT,
            DERIVED,
            "Pool processes per worker: a step mostly waits on PostgreSQL, the broker and the "
            "provider, so more processes than cores keep the cores busy (`celery worker -c N` "
            "overrides). Set it under a CPU quota, where Python sees the host's CPUs.",
            shown="4 x the CPUs the worker may run on",
        ),
        Setting(
            "CELERY_TASK_SOFT_TIME_LIMIT",
            Kind.INT,
            30,
            "Seconds a step may run before `SoftTimeLimitExceeded` is raised in it; every "
            "provider timeout stays under it.",
        ),
        Setting(
            "CELERY_TASK_TIME_LIMIT",
            Kind.INT,
            45,
            "Seconds after which a step's process is killed; under `NOTIFLOW_LEASE_SECONDS`, so "
            "a lease never expires under a live step.",
        ),
        Setting(
            "CELERY_DB_REUSE_MAX",
            Kind.INT,
            1000,
            "Tasks a worker process runs on one PostgreSQL connection (Celery otherwise "
            "reconnects for every task).",
        ),
    ),
)

GROUPS = (DJANGO, SERVICES, PROCESSES)
