"""The settings of what leaves the service: email, SMS, push, chat, the providers and their
reports, and webhooks."""

from __future__ import annotations

from notiflow.settings_spec import DERIVED, Group, Kind, Setting
from notiflow.settings_spec.service import SETTINGS

EMAIL_AND_SMS = Group(
    "Email and SMS",
    SETTINGS,
    (
        Setting(
            "EMAIL_URL",
            Kind.EMAIL_URL,
            None,
            "The email transport as a URL (`smtp://127.0.0.1:1025`, `consolemail://`, …); when "
            "set, `EMAIL_BACKEND`, `EMAIL_HOST` and `EMAIL_PORT` are not read.",
        ),
        Setting(
            "EMAIL_BACKEND",
            Kind.TEXT,
            "django.core.mail.backends.console.EmailBackend",
            "Django's email backend, without `EMAIL_URL`.",
        ),
        Setting("EMAIL_HOST", Kind.TEXT, "127.0.0.1", "The SMTP host, without `EMAIL_URL`."),
        Setting("EMAIL_PORT", Kind.INT, 1025, "The SMTP port, without `EMAIL_URL`."),
        Setting(
            "EMAIL_TIMEOUT",
            Kind.INT,
            10,
            "Seconds an SMTP send waits for the relay (under half of "
            "`CELERY_TASK_SOFT_TIME_LIMIT`: the send and the QUIT that closes it may each take "
            "it); also an ESP's HTTPS request's (anymail) unless `ANYMAIL_REQUESTS_TIMEOUT` says "
            "otherwise.",
        ),
        Setting(
            "DEFAULT_FROM_EMAIL",
            Kind.TEXT,
            "Notiflow <notifications@notiflow.local>",
            "The sender of an email node without its own `from`.",
        ),
        Setting(
            "NOTIFLOW_MESSAGE_ID_DOMAIN",
            Kind.TEXT,
            "notiflow.local",
            "The domain of generated `Message-ID`s (`<trigger_id.node_id@domain>`).",
        ),
        Setting(
            "NOTIFLOW_SMS_BACKEND",
            Kind.TEXT,
            "console",
            "`console`, `file` (`NOTIFLOW_SMS_FILE`), `twilio`, `null` (accepts and drops), or "
            "`none` (or empty): this worker has no SMS provider; it registers without the `sms` "
            "node type and fails an SMS node at once.",
        ),
        Setting(
            "NOTIFLOW_SMS_FILE",
            Kind.TEXT,
            DERIVED,
            "The file backend's JSON lines.",
            shown="`.run/sms.jsonl` in the checkout",
        ),
        Setting(
            "NOTIFLOW_SMS_TIMEOUT_SECONDS",
            Kind.NUMBER,
            10,
            "One SMS request's timeout (under `CELERY_TASK_SOFT_TIME_LIMIT`).",
        ),
        Setting("TWILIO_ACCOUNT_SID", Kind.TEXT, "", "Twilio's account, for `twilio`."),
        Setting("TWILIO_AUTH_TOKEN", Kind.SECRET, "", "Twilio's auth token."),
        Setting("TWILIO_FROM", Kind.TEXT, "", "The number Twilio sends from."),
        Setting(
            "NOTIFLOW_TWILIO_BASE_URL",
            Kind.TEXT,
            "https://api.twilio.com",
            "Twilio's API (the tests point it at a stand-in).",
        ),
    ),
)

PROVIDERS = Group(
    "Providers and their reports",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_EMAIL_PROVIDERS",
            Kind.LIST,
            [],
            "Named email providers in failover order (`ses,smtp`): each an alias (`smtp`, "
            "`ses`, `postmark`, `mailgun`, `resend`, `brevo`, `sendgrid`, …) or a name whose "
            "`NOTIFLOW_PROVIDER_<NAME>_BACKEND` says which; a transient failure is retried on "
            "the next.",
            shown="the one provider of `EMAIL_URL` / `EMAIL_BACKEND`",
        ),
        Setting(
            "NOTIFLOW_SMS_PROVIDERS",
            Kind.LIST,
            [],
            "Named SMS providers in failover order (`twilio`, `console`, `file`, `null`, or "
            "a name of your own).",
            shown="the one provider of `NOTIFLOW_SMS_BACKEND`",
        ),
        Setting(
            "NOTIFLOW_PROVIDER_<NAME>_BACKEND",
            Kind.TEXT,
            "",
            "The backend of the provider named <NAME>: an alias or a dotted email backend.",
            shown="the alias <NAME> itself",
        ),
        Setting(
            "NOTIFLOW_PROVIDER_<NAME>_OPTIONS",
            Kind.SECRET,
            "",
            "The provider's options, a JSON object: the backend's keyword arguments.",
            shown="`{}`",
        ),
        Setting(
            "NOTIFLOW_PROVIDER_RATE_LIMITS",
            Kind.TEXT,
            "",
            "One rate per provider shared by every worker (`ses=14/s,twilio=100/m`): a send "
            "over it waits for its token without counting as an attempt.",
        ),
        Setting(
            "NOTIFLOW_EMAIL_KEEP_CONNECTIONS",
            Kind.BOOL,
            True,
            "An email provider's connection stays open per worker thread between messages.",
        ),
        Setting(
            "NOTIFLOW_EMAIL_SMTP_PIPELINING",
            Kind.BOOL,
            True,
            "An SMTP relay that offers PIPELINING (RFC 2920) is sent MAIL, RCPT and DATA in one "
            "write: two round trips a message instead of four.",
        ),
        Setting(
            "NOTIFLOW_EMAIL_CONNECTION_CHECK_SECONDS",
            Kind.NUMBER,
            5,
            "A kept SMTP connection idle this long is asked `NOOP` before its reuse.",
        ),
        Setting(
            "NOTIFLOW_EMAIL_CONNECTION_IDLE_SECONDS",
            Kind.NUMBER,
            60,
            "A kept connection idle this long is closed (and every one at worker shutdown).",
        ),
        Setting(
            "ANYMAIL_<NAME>",
            Kind.SECRET,
            "",
            "anymail's settings: ESP credentials (`ANYMAIL_POSTMARK_SERVER_TOKEN`, …), "
            "`ANYMAIL_WEBHOOK_SECRET` (`user:password`, without which the tracking webhooks are "
            "not served), each signing ESP's key, and `ANYMAIL_REQUESTS_TIMEOUT` (seconds an "
            "ESP's HTTPS request waits; `EMAIL_TIMEOUT` unless set, under half of "
            "`CELERY_TASK_SOFT_TIME_LIMIT`); a JSON object or list is passed as one.",
        ),
        Setting(
            "NOTIFLOW_SNS_VERIFY_SIGNATURES",
            Kind.BOOL,
            True,
            "Amazon SES's reports: their SNS signature is checked against the certificate at "
            "`SigningCertURL`.",
        ),
        Setting(
            "NOTIFLOW_SNS_CERT_URL_PATTERN",
            Kind.TEXT,
            r"https://sns\.[a-z0-9-]+\.amazonaws\.com(\.cn)?/[A-Za-z0-9_./-]+\.pem",
            "The pattern `SigningCertURL` must match.",
            shown="AWS's SNS hosts",
        ),
        Setting(
            "NOTIFLOW_PUBLIC_URL",
            Kind.TEXT,
            "",
            "Where recipients and providers reach this service (`https://notify.example.com`; "
            "`https://` outside debug but on a loopback host): the base of marketing email's "
            "one-click unsubscribe link and of Twilio's status callbacks.",
        ),
        Setting(
            "NOTIFLOW_UNSUBSCRIBE_MAX_AGE_DAYS",
            Kind.INT,
            60,
            "How long a one-click unsubscribe link works.",
        ),
        Setting(
            "NOTIFLOW_PREFERENCES_LINK_MAX_AGE_DAYS",
            Kind.INT,
            60,
            "How long a `{{ preferences_url }}` link to the hosted preference page works.",
        ),
    ),
)

PUSH_AND_CHAT = Group(
    "Push, Slack and Teams",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_VAPID_PRIVATE_KEY",
            Kind.SECRET,
            "",
            "Web push's VAPID private key (base64url, or a PEM file's path; `manage.py "
            "vapid_keys` makes a pair); unset, a worker has no `webpush` channel.",
        ),
        Setting("NOTIFLOW_VAPID_PUBLIC_KEY", Kind.TEXT, "", "Its public key."),
        Setting(
            "NOTIFLOW_VAPID_SUBJECT",
            Kind.TEXT,
            "",
            "A `mailto:` or `https:` URL the push services may contact.",
        ),
        Setting(
            "NOTIFLOW_FCM_SERVICE_ACCOUNT_JSON",
            Kind.SECRET,
            "",
            "FCM HTTP v1's service account, as JSON text; unset (and no file), a worker has no "
            "`push` channel.",
        ),
        Setting(
            "NOTIFLOW_FCM_SERVICE_ACCOUNT_FILE", Kind.TEXT, "", "The service account, as a file."
        ),
        Setting(
            "NOTIFLOW_FCM_BASE_URL",
            Kind.TEXT,
            "https://fcm.googleapis.com",
            "FCM's API (the tests point it at a stand-in).",
        ),
        Setting(
            "NOTIFLOW_WEBPUSH_ALLOW_HTTP",
            Kind.BOOL,
            False,
            "Use subscriptions whose endpoint is `http://` (the tests' push service).",
        ),
        Setting(
            "NOTIFLOW_PUSH_TTL_SECONDS",
            Kind.INT,
            86400,
            "How long a push service keeps an undelivered web push.",
        ),
        Setting(
            "NOTIFLOW_PUSH_TIMEOUT_SECONDS",
            Kind.NUMBER,
            10,
            "Each push request's timeout (under `CELERY_TASK_SOFT_TIME_LIMIT`; for web push one "
            "deadline for the whole request).",
        ),
        Setting(
            "NOTIFLOW_PUSH_ALLOW_PRIVATE",
            Kind.BOOL,
            False,
            "Lets web push endpoints reach private and loopback addresses (development, tests).",
        ),
        Setting(
            "NOTIFLOW_PUSH_CONCURRENCY",
            Kind.INT,
            DERIVED,
            "The most web push requests one worker has in flight at once; keep it under the "
            "worker's concurrency, so slow push endpoints cannot hold all its slots.",
            shown="half of `CELERY_WORKER_CONCURRENCY`, at least 1",
        ),
        Setting(
            "NOTIFLOW_SLACK_BOT_TOKEN",
            Kind.SECRET,
            "",
            "The Slack app's bot token (`xoxb-…`, scope `chat:write`) for `chat.postMessage`; "
            "incoming webhooks need none.",
        ),
        Setting(
            "NOTIFLOW_SLACK_API_URL",
            Kind.TEXT,
            "https://slack.com/api/",
            "The Slack Web API (the tests point it at a stand-in).",
        ),
        Setting(
            "NOTIFLOW_CHAT_TIMEOUT_SECONDS",
            Kind.NUMBER,
            10,
            "One Slack or Teams request's timeout (under `CELERY_TASK_SOFT_TIME_LIMIT`).",
        ),
        Setting(
            "NOTIFLOW_CHAT_ALLOW_PRIVATE",
            Kind.BOOL,
            False,
            "Lets Slack and Teams webhook URLs reach private and loopback addresses.",
        ),
    ),
)

WEBHOOKS = Group(
    "Events and webhooks",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_EVENT_SOURCE", Kind.TEXT, "/notiflow", "The CloudEvents `source` of events."
        ),
        Setting(
            "NOTIFLOW_WEBHOOK_QUEUE",
            Kind.TEXT,
            "webhooks",
            "The Celery queue of webhook deliveries, served by a worker group of its own "
            "(`celery -A notiflow worker -Q webhooks -n webhooks@%h`): without a worker on it "
            "no webhook is delivered. `default` puts them on the engine's workers.",
        ),
        Setting(
            "NOTIFLOW_WEBHOOK_ENDPOINT_CONCURRENCY",
            Kind.INT,
            2,
            "The most deliveries to one endpoint in flight at once (at least 1): a slow receiver "
            "holds at most this many of the webhook workers' slots.",
        ),
        Setting(
            "NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS",
            Kind.NUMBER,
            30,
            "Webhook retries: base x 2^(attempt-1), with `NOTIFLOW_RETRY_JITTER`.",
        ),
        Setting("NOTIFLOW_WEBHOOK_MAX_ATTEMPTS", Kind.INT, 8, "Attempts before a delivery fails."),
        Setting(
            "NOTIFLOW_WEBHOOK_DISABLE_AFTER",
            Kind.INT,
            50,
            "Failed events in a row before an endpoint is disabled.",
        ),
        Setting(
            "NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS",
            Kind.NUMBER,
            10,
            "One attempt's whole deadline, connecting to the receiver's status line (under half "
            "of `CELERY_TASK_SOFT_TIME_LIMIT`).",
        ),
        Setting(
            "NOTIFLOW_WEBHOOK_ALLOW_PRIVATE",
            Kind.BOOL,
            False,
            "Lets webhook URLs resolve to loopback and private addresses (development, tests); "
            "off, they are refused at creation and at every send.",
        ),
    ),
)

FETCH = Group(
    "The fetch node",
    SETTINGS,
    (
        Setting(
            "NOTIFLOW_FETCH_ALLOW_PRIVATE",
            Kind.BOOL,
            False,
            "Lets a `fetch` node's URL (and every redirect it follows) reach loopback and "
            "private addresses (development, tests, a service beside Notiflow you trust).",
        ),
        Setting(
            "NOTIFLOW_FETCH_MAX_BYTES",
            Kind.INT,
            1_048_576,
            "The largest answer body a `fetch` node reads; a bigger one fails it (permanently).",
        ),
        Setting(
            "NOTIFLOW_FETCH_TIMEOUT_SECONDS",
            Kind.NUMBER,
            DERIVED,
            "A `fetch` node's whole deadline, redirects included, when it sets no `timeout`, and "
            "the longest one it may set (under half of `CELERY_TASK_SOFT_TIME_LIMIT`).",
            shown="10, or a third of `CELERY_TASK_SOFT_TIME_LIMIT` when that is less",
        ),
        Setting(
            "NOTIFLOW_FETCH_MAX_RATE_LIMIT_WAIT",
            Kind.NUMBER,
            600,
            "Seconds a `fetch` node may wait in all on 429 answers' `Retry-After` without "
            "counting an attempt; past it a 429 is a transient failure.",
        ),
        Setting(
            "NOTIFLOW_FETCH_CREDENTIALS",
            Kind.SECRET,
            "",
            'JSON: the secrets a `fetch` node names in `credential`, `{"shop": {"header": '
            '"Authorization", "value": "Bearer ..."}}` (a bare string is an `Authorization` '
            "value); never stored in a definition, a step log or the admin.",
        ),
        Setting(
            "NOTIFLOW_FETCH_SIGNING_SECRET",
            Kind.SECRET,
            "",
            "A Standard Webhooks secret (`whsec_...`); set, every `fetch` request is signed "
            "(`webhook-id`, `webhook-timestamp`, `webhook-signature`) so its receiver can check "
            "it came from Notiflow.",
        ),
    ),
)

GROUPS = (EMAIL_AND_SMS, PROVIDERS, PUSH_AND_CHAT, WEBHOOKS, FETCH)
