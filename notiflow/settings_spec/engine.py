"""The settings of runs and what bounds them: the engine, the sweeper, the worker registry, the
API, the inbox, health and metrics, and the limits of docs/security/content.md."""

from __future__ import annotations

from notiflow.settings_spec import Group, Kind, Setting
from notiflow.settings_spec.service import SETTINGS

ENGINE = Group(
    "The engine",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_LEASE_SECONDS",
            Kind.INT,
            60,
            "A claim's lease: a step whose worker dies is taken again once it expires. Must "
            "exceed `CELERY_TASK_TIME_LIMIT`.",
        ),
        Setting(
            "NOTIFLOW_RETRY_BASE_SECONDS",
            Kind.NUMBER,
            60,
            "Backoff of a transient failure: base x 2^(attempt-1), up to the jitter longer.",
        ),
        Setting(
            "NOTIFLOW_RETRY_JITTER",
            Kind.NUMBER,
            0.1,
            "The fraction a backoff may be drawn longer (runs and webhook retries).",
        ),
        Setting(
            "NOTIFLOW_RETRY_MAX_SECONDS",
            Kind.NUMBER,
            3600,
            "The longest wait between two attempts, whatever the exponent says.",
        ),
        Setting("NOTIFLOW_MAX_RETRIES", Kind.INT, 3, "Retries of a step before its run fails."),
        Setting(
            "NOTIFLOW_MAX_COUNTDOWN_SECONDS",
            Kind.INT,
            300,
            "The longest wait carried by a Celery countdown; a longer one is left to the "
            "sweeper. Keep it under RabbitMQ's `consumer_timeout`.",
        ),
        Setting(
            "NOTIFLOW_STEPS_PER_TASK",
            Kind.INT,
            1,
            "Steps of one run a worker may take in one task when the next is due at once (each "
            "still claimed and recorded on its own); 1 is one node per task.",
        ),
        Setting(
            "NOTIFLOW_DEFAULT_TIMEZONE",
            Kind.TEXT,
            "UTC",
            "The zone of a send window whose `timezone` renders empty (an IANA name; a wrong "
            "one stops every process at start).",
        ),
        Setting(
            "NOTIFLOW_DIGEST_MAX_EVENTS",
            Kind.INT,
            100,
            "The most payloads a digest hands its templates in `events` (oldest first; its "
            "`count` is every run).",
        ),
        Setting(
            "NOTIFLOW_DIGEST_MAX_BYTES",
            Kind.INT,
            1_000_000,
            "The most bytes of payload JSON a digest hands its templates.",
        ),
        Setting(
            "NOTIFLOW_QUIET_HOURS_BYPASS_PRIORITY",
            Kind.INT,
            8,
            "The run priority (0-9) from which a send goes out inside the recipient's quiet "
            "hours (a `required` workflow's always does); 10 lets only required ones through.",
        ),
        Setting(
            "NOTIFLOW_SUPPRESSION_CACHE_ROWS",
            Kind.INT,
            20_000,
            "The suppression list a worker process holds per channel, read again when the "
            "list's generation moves; a longer list is not held (each send asks PostgreSQL).",
        ),
        Setting(
            "NOTIFLOW_FANOUT_CHUNK_SIZE",
            Kind.INT,
            1000,
            "A fan-out's runs made per worker task, one intake statement each.",
        ),
        Setting(
            "NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS",
            Kind.NUMBER,
            30,
            "How long a fan-out chunk that failed or found no live worker waits before it is tried again.",
        ),
        Setting(
            "NOTIFLOW_FANOUT_MAX_AUDIENCE",
            Kind.INT,
            100_000,
            "The most runs one fan-out, or one occurrence of a topic schedule, makes: a request "
            "for a bigger audience is a 400 saying how big, such an occurrence is refused and "
            "recorded, a topic grown past it stops the fan-out there.",
        ),
        Setting(
            "NOTIFLOW_ACTION_MAX",
            Kind.INT,
            100_000,
            "The most runs one bulk action (`POST /api/triggers/actions/`) may match: more is a "
            "400 saying how many matched.",
        ),
        Setting(
            "NOTIFLOW_ACTION_CHUNK_SIZE",
            Kind.INT,
            200,
            "A bulk action's runs acted on per worker task, in one transaction.",
        ),
        Setting(
            "NOTIFLOW_SCHEDULE_MAX_RECIPIENTS",
            Kind.INT,
            1000,
            "The most recipient ids one schedule lists (`recipients`); a bigger audience is a "
            "topic (`topic`), which fires in chunks of NOTIFLOW_FANOUT_CHUNK_SIZE as a fan-out.",
        ),
        Setting(
            "NOTIFLOW_SCHEDULE_MIN_INTERVAL_SECONDS",
            Kind.NUMBER,
            60,
            "The shortest time between two occurrences of a schedule's rule: a rule firing "
            "more often is a 400.",
        ),
    ),
)

SWEEPER = Group(
    "The sweeper and the worker registry",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_SWEEP_INTERVAL_SECONDS",
            Kind.NUMBER,
            5,
            "How often beat runs the sweeps that nudge again what PostgreSQL says needs it.",
        ),
        Setting(
            "NOTIFLOW_RENUDGE_AFTER_SECONDS",
            Kind.NUMBER,
            30,
            "A nudge that has not led to a claim after this long is presumed lost and sent again.",
        ),
        Setting("NOTIFLOW_SWEEP_BATCH_SIZE", Kind.INT, 1000, "Rows one sweep statement takes."),
        Setting(
            "NOTIFLOW_STEP_LOG_PARTITION_DAYS",
            Kind.INT,
            1,
            "The days one partition of the history spans (for the partitions created from now "
            "on): the step log's, by its runs' creation, and the run events', by their own time. "
            "Retention drops a partition whole once every run whose rows it may hold is purged.",
        ),
        Setting(
            "NOTIFLOW_STEP_LOG_PARTITIONS_AHEAD_DAYS",
            Kind.INT,
            7,
            "How far ahead beat keeps the history's partitions created, the step log's and the "
            "run events' (it checks hourly): a run created past the last one could not record "
            "its steps.",
        ),
        Setting(
            "NOTIFLOW_WORKER_HEARTBEAT_SECONDS",
            Kind.NUMBER,
            10,
            "How often each worker refreshes its row in the worker registry; it is live while "
            "seen within three.",
        ),
        Setting(
            "NOTIFLOW_VERSION",
            Kind.TEXT,
            "",
            "The version each worker registers (a build can stamp its commit here).",
            shown="the installed package's version",
        ),
        Setting(
            "NOTIFLOW_TRIGGER_REQUIRES_WORKER",
            Kind.BOOL,
            True,
            "`POST /api/triggers/` answers 503, storing nothing, when no live worker serves the "
            "workflow's queue; `false` accepts the trigger, which waits until a worker comes.",
        ),
    ),
)

API = Group(
    "The API, the admin and the inbox",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_BULK_MAX",
            Kind.INT,
            1000,
            "The most trigger requests one `POST /api/triggers/bulk/` may carry.",
        ),
        Setting(
            "NOTIFLOW_API_KEY_CACHE_SECONDS",
            Kind.NUMBER,
            10,
            "How long a process trusts an API key it found active (a revocation takes effect "
            "within it; 0 checks every request).",
        ),
        Setting(
            "NOTIFLOW_RATE_LIMIT_TRIGGER",
            Kind.TEXT,
            "100/s",
            "Requests per API key to intake and reads of triggers (`N/s`, `N/m`, `N/h`, `N/d`; "
            "empty or `off`: none); over it, 429 with `Retry-After`.",
        ),
        Setting(
            "NOTIFLOW_RATE_LIMIT_ADMIN",
            Kind.TEXT,
            "20/s",
            "Requests per API key to the management endpoints, same syntax.",
        ),
        Setting(
            "NOTIFLOW_RATE_LIMIT_INBOX",
            Kind.TEXT,
            "20/s",
            "Requests per recipient to the in-app inbox's API, same syntax.",
        ),
        Setting(
            "NOTIFLOW_LOGIN_LIMIT_ACCOUNT",
            Kind.TEXT,
            "10/h",
            "Failed admin logins per account, same syntax; past it logins are refused.",
        ),
        Setting(
            "NOTIFLOW_LOGIN_LIMIT_ADDRESS",
            Kind.TEXT,
            "30/h",
            "Failed admin logins per client address, same syntax.",
        ),
        Setting(
            "NOTIFLOW_INBOX_SECRET",
            Kind.SECRET,
            "",
            "The secret recipient tokens are the HMAC under; changing it revokes them all.",
            shown="derived from `DJANGO_SECRET_KEY`",
        ),
        Setting(
            "NOTIFLOW_INBOX_ALLOWED_ORIGINS",
            Kind.LIST,
            [],
            "The origins (`scheme://host[:port]`) whose pages may call `/api/inbox/` (CORS).",
        ),
        Setting(
            "NOTIFLOW_INBOX_STREAMS_PER_RECIPIENT",
            Kind.INT,
            10,
            "Open inbox streams of one recipient a web process holds; one more is a 429.",
        ),
        Setting(
            "NOTIFLOW_PREVIEW_CONCURRENCY",
            Kind.INT,
            1,
            "Admin previews rendering at once in one web process; one more is told to try again.",
        ),
        Setting(
            "NOTIFLOW_FLOWER_URL",
            Kind.TEXT,
            "",
            "Flower's URL, for the pages that link to it (`make run` sets it).",
        ),
        Setting(
            "NOTIFLOW_HEALTH_CACHE_SECONDS",
            Kind.NUMBER,
            5,
            "How long a process reuses the public answer of `/api/health/`.",
        ),
        Setting(
            "NOTIFLOW_HEALTH_MAX_LAG_SECONDS",
            Kind.NUMBER,
            60,
            "How long due work may wait before `/api/health/` says `degraded`.",
        ),
        Setting(
            "NOTIFLOW_WEB_THREADS",
            Kind.INT,
            4,
            "The threads of each web worker process that run Django (at least 1).",
        ),
        Setting(
            "NOTIFLOW_WAIT_POLL_SECONDS",
            Kind.NUMBER,
            0.1,
            "How often a web process asks PostgreSQL whether the triggers its clients wait for "
            "(`GET /api/triggers/<id>/?wait=`) are finished (more than 0, at most 5).",
        ),
    ),
)

METRICS = Group(
    "Metrics",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_METRICS_TOKEN",
            Kind.SECRET,
            "",
            "The bearer token `GET /metrics` asks for; empty: the endpoint is off (404). Set "
            "without `NOTIFLOW_METRICS_DIR`, the process refuses to start.",
        ),
        Setting(
            "NOTIFLOW_METRICS_DIR",
            Kind.TEXT,
            "",
            "Where every process records its metrics (prometheus_client's multiprocess files, a "
            "subdirectory per process group); empty: nothing is recorded and `/metrics` shows "
            "only the database's gauges.",
        ),
        Setting(
            "NOTIFLOW_METRICS_CACHE_SECONDS",
            Kind.NUMBER,
            10,
            "How long a web process reuses the gauges it read from the database.",
        ),
    ),
)

LIMITS = Group(
    "Limits of workflows, templates and sends",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_WORKFLOW_MAX_BYTES",
            Kind.INT,
            1_000_000,
            "A definition's size as JSON (checked before any template is parsed).",
        ),
        Setting(
            "NOTIFLOW_WORKFLOW_MAX_NODES",
            Kind.INT,
            200,
            "Nodes per workflow (the admin's workflow page is linear in them).",
        ),
        Setting("NOTIFLOW_WORKFLOW_MAX_EDGES", Kind.INT, 1000, "Edges per workflow."),
        Setting("NOTIFLOW_TEMPLATE_MAX_BYTES", Kind.INT, 64_000, "One field's template."),
        Setting(
            "NOTIFLOW_TEMPLATE_MAX_ITERATIONS",
            Kind.INT,
            10_000,
            "Loop iterations of a node's templates in all, nested or one after another; over any "
            "render budget the step fails for good, before the provider is called.",
        ),
        Setting(
            "NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES",
            Kind.INT,
            1_000_000,
            "What `assign` and `capture` hold (stops doubling strings and squaring numbers).",
        ),
        Setting("NOTIFLOW_TEMPLATE_MAX_OUTPUT_CHARS", Kind.INT, 1_000_000, "One field's output."),
        Setting(
            "NOTIFLOW_TEMPLATE_DEADLINE_SECONDS",
            Kind.NUMBER,
            2,
            "Wall clock for a node's templates (under half of `CELERY_TASK_SOFT_TIME_LIMIT`).",
        ),
        Setting(
            "NOTIFLOW_DEFAULT_LOCALE",
            Kind.TEXT,
            "en",
            "The last locale of every run's chain (docs/translations.md): a BCP 47 tag Babel knows.",
        ),
        Setting(
            "NOTIFLOW_DEFAULT_LAYOUT",
            Kind.TEXT,
            "",
            "The key of the email layout used when neither the node nor the workflow names one "
            "(docs/layouts.md); empty: none.",
        ),
        Setting(
            "NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES",
            Kind.INT,
            4_000_000,
            "One filter's result (estimated bytes).",
        ),
        Setting(
            "NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES",
            Kind.INT,
            32_000_000,
            "What all the filter calls of a node's templates make, in all.",
        ),
        Setting(
            "NOTIFLOW_TEMPLATE_CACHE_BYTES",
            Kind.INT,
            32_000_000,
            "Parsed templates kept per process, bounded by the memory they take (an upper-bound "
            "estimate from their markup; least recently used out).",
        ),
        Setting(
            "NOTIFLOW_SEND_CAP_PER_RECIPIENT",
            Kind.INT,
            0,
            "Sends per hour to one address or number, per channel, shared by every worker; 0: "
            "no cap.",
        ),
        Setting(
            "NOTIFLOW_SEND_CAP_PER_CREATOR",
            Kind.INT,
            0,
            "Sends per hour of the triggers one creator (API key, admin user or command) made; "
            "0: no cap.",
        ),
    ),
)

GROUPS = (ENGINE, SWEEPER, API, METRICS, LIMITS)
