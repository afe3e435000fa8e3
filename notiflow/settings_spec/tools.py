"""The variables read outside notiflow/settings.py: by the web process's configuration, Flower's
launcher, `make run`, the tracing set-up, one command, the Python client, and the tests and
harnesses. Declared here so that the reference names them and the test that scans the code for
variables finds each one declared."""

from __future__ import annotations

from notiflow.settings_spec import Group, Kind, Setting

WEB = Group(
    "The web process",
    "notiflow/gunicorn_conf.py (gunicorn's configuration; `GUNICORN_CMD_ARGS` by gunicorn itself)",
    (
        Setting(
            "NOTIFLOW_BIND",
            Kind.TEXT,
            "",
            "Where the web process listens, `host:port`; when empty, `NOTIFLOW_HOST:PORT`.",
        ),
        Setting(
            "NOTIFLOW_HOST",
            Kind.TEXT,
            "127.0.0.1",
            "The web process's host without `NOTIFLOW_BIND`: loopback unless you say so, so a "
            "`PORT` in a developer's shell never puts the admin on the network (a Procfile "
            "platform that routes to the container's interface sets `0.0.0.0`).",
        ),
        Setting(
            "PORT",
            Kind.INT,
            8000,
            "The web process's port without `NOTIFLOW_BIND` (what honcho, foreman and Procfile "
            "platforms set).",
        ),
        Setting("WEB_CONCURRENCY", Kind.INT, 2, "The web process's worker processes."),
        Setting(
            "NOTIFLOW_CONTROL_SOCKET",
            Kind.TEXT,
            "",
            "A path of this instance's own for gunicorn's control socket (`gunicornc`); empty: "
            "off (gunicorn's default path is shared by every instance on the host).",
        ),
        Setting("GUNICORN_CMD_ARGS", Kind.TEXT, "", "More of gunicorn's own options."),
        Setting(
            "DJANGO_SETTINGS_MODULE",
            Kind.TEXT,
            "notiflow.settings",
            "The settings module every entry point loads (the tests: `tests.settings`).",
        ),
    ),
)

FLOWER_AND_RUN = Group(
    "Flower and `make run`",
    "scripts/flower.py (the Procfile's `flower`) and scripts/run.py (`make run`, `make manage`)",
    (
        Setting(
            "FLOWER_BASIC_AUTH",
            Kind.SECRET,
            "",
            "Flower's login, `user:password`; required unless `DJANGO_DEBUG` (`make run` makes one).",
        ),
        Setting("FLOWER_ADDRESS", Kind.TEXT, "127.0.0.1", "Where Flower listens."),
        Setting("FLOWER_PORT", Kind.INT, 5555, "Flower's port."),
        Setting(
            "NOTIFLOW_BROKER",
            Kind.TEXT,
            "redis",
            "`make run`'s broker: `redis`, or `rabbitmq` for the local RabbitMQ; "
            "`CELERY_BROKER_URL`, when set, wins.",
        ),
        Setting(
            "NOTIFLOW_RUN_DIR",
            Kind.PATH,
            ".run",
            "Where `make run` keeps the admin password, the API key, the secret key, its "
            "environment (`env`, which `make manage` reads), caught mail and SMS.",
        ),
        Setting(
            "NOTIFLOW_MAIL_SMTP_PORT",
            Kind.INT,
            1025,
            "`make run`'s mail catcher's SMTP port (`EMAIL_URL` then points there); no catcher "
            "when `EMAIL_URL` is set.",
        ),
        Setting("NOTIFLOW_MAIL_WEB_PORT", Kind.INT, 8025, "The mail catcher's web page."),
    ),
)

TRACES = Group(
    "Traces (OpenTelemetry)",
    "common/tracing.py, which turns tracing on, and the OpenTelemetry SDK, which reads every "
    "other `OTEL_*` variable",
    (
        Setting(
            "OTEL_EXPORTER_OTLP_ENDPOINT",
            Kind.TEXT,
            "",
            "The OTLP collector (HTTP/protobuf only); set, traces are on.",
        ),
        Setting(
            "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
            Kind.TEXT,
            "",
            "The collector for traces alone; set, traces are on.",
        ),
        Setting(
            "OTEL_EXPORTER_OTLP_PROTOCOL",
            Kind.TEXT,
            "http/protobuf",
            "Only `http/protobuf` is served; another refuses to start tracing.",
        ),
        Setting(
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            Kind.TEXT,
            "http/protobuf",
            "The same, for traces.",
        ),
        Setting(
            "OTEL_TRACES_EXPORTER",
            Kind.TEXT,
            "otlp",
            "The exporter once traces are on; set to `otlp` or `console`, it turns them on "
            "without an endpoint; `none` keeps them off.",
        ),
        Setting("OTEL_SDK_DISABLED", Kind.BOOL, False, "`true` keeps traces off whatever is set."),
        Setting("OTEL_SERVICE_NAME", Kind.TEXT, "", "The service name traces carry."),
        Setting(
            "OTEL_<NAME>",
            Kind.TEXT,
            "",
            "Every other variable of the OpenTelemetry SDK (`OTEL_TRACES_SAMPLER`, …), as the "
            "SDK documents it.",
        ),
    ),
)

COMMANDS_AND_CLIENT = Group(
    "A command and the Python client",
    "`manage.py setup_db_roles` and the notiflow-client package (clients/python)",
    (
        Setting(
            "NOTIFLOW_DB_PASSWORD_<ROLE>",
            Kind.SECRET,
            "",
            "The password `setup_db_roles` gives the role of `WORKER`, `BEAT` or `WEB`; unset, "
            "the role cannot log in with a password.",
        ),
        Setting("NOTIFLOW_URL", Kind.TEXT, "", "The client's and CLI's Notiflow base URL."),
        Setting("NOTIFLOW_API_KEY", Kind.SECRET, "", "The client's and CLI's API key."),
    ),
)

TESTS = Group(
    "Tests and harnesses",
    "the test suite (tests/), the benchmarks (bench/) and the several-hosts harness (hosts/)",
    (
        Setting(
            "NOTIFLOW_TEST_SLOT",
            Kind.INT,
            0,
            "0-9: slot n > 0 has its own test database and its own Redis on port 6390 + n, so "
            "several checkouts test at once.",
        ),
        Setting(
            "NOTIFLOW_TEST_PGBOUNCER",
            Kind.BOOL,
            False,
            "`1`: the stack's processes reach PostgreSQL through a PgBouncer in transaction mode "
            "(`make test-pgbouncer`).",
        ),
        Setting(
            "NOTIFLOW_TEST_POOL",
            Kind.TEXT,
            "",
            "The pool of the stack's workers (`--pool`): empty for Celery's default (prefork), "
            "`threads` for the Procfile's `sends` layout.",
        ),
        Setting(
            "NOTIFLOW_TEST_AMQP_URL",
            Kind.TEXT,
            "amqp://guest:guest@127.0.0.1:5672//",
            "A RabbitMQ for the broker tests that need one.",
        ),
        Setting(
            "NOTIFLOW_SNAPSHOT_UPDATE",
            Kind.BOOL,
            False,
            "`1`: the snapshot tests write what the code renders (pinned SQL, the docs' tables, "
            "docs/reference/) instead of comparing it.",
        ),
        Setting(
            "SCHEMATHESIS_MAX_EXAMPLES", Kind.INT, 20, "Cases per operation (`make schemathesis`)."
        ),
        Setting(
            "SCHEMATHESIS_SEED",
            Kind.INT,
            20261123,
            "Schemathesis' seed (`make schemathesis`'s `SEED`).",
            shown="`20261123`",
        ),
        Setting("NOTIFLOW_PORT", Kind.INT, 8013, "The benchmarks' web port."),
        Setting(
            "BENCH_TRACE_DIR",
            Kind.PATH,
            "/tmp/notiflow-bench-trace",  # noqa: S108 (the benchmarks' default)
            "Where `make bench`'s traced run writes.",
        ),
        Setting(
            "BENCH_FLOOR_WORKFLOW",
            Kind.INT,
            0,
            "Set by the benchmarks for their floor processes: the workflow they step.",
        ),
        Setting(
            "NOTIFLOW_HOSTS_INSIDE",
            Kind.BOOL,
            False,
            "Set by `make hosts` for its run inside the web namespace.",
        ),
    ),
)

GROUPS = (WEB, FLOWER_AND_RUN, TRACES, COMMANDS_AND_CLIENT, TESTS)
