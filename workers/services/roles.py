"""Least privilege: one PostgreSQL role per process kind, with only the grants it needs.

The application's tables are owned by the role that runs migrations (and `purge_logs`). The
processes that run all day get roles of their own:

- `worker` (celery workers: claim, steps, sweeper, fan-outs, bulk actions) reads workflows,
  records the sweeper's nudges on triggers (`nudged_at`, the one column it may UPDATE), and
  makes runs, changes a run's status, writes its events, its step logs, send ledger rows and
  outbox events only through the state machine's functions: the claim and the release (triggers
  migrations 0019 and 0024), a wait's park, hold and resume (0018), a fan-out chunk's runs
  (0027), and the cancel, retry and replay of a bulk action's chunk (0028), SECURITY DEFINER, on
  which it has EXECUTE (ROLE_FUNCTIONS), while on step logs and the ledger it has SELECT alone;
- `beat` (celery beat with the DatabaseScheduler) reads and writes its schedule tables only;
- `web` (gunicorn: API and admin) authors workflows, takes triggers in, cancels and retries
  them (through the state machine's functions, as the workers do), asks for bulk actions, reads
  logs, and runs Django's admin, sessions and users.

No role gets DELETE or TRUNCATE on trigger_instance, trigger_event, step_log or send_ledger, and
none owns a table (so none can ALTER, DROP, or disable the append-only trigger).
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable
from dataclasses import dataclass

from django.apps import apps
from django.db import connection, transaction
from psycopg import sql

READ = ("SELECT",)
APPEND = ("SELECT", "INSERT")
CHANGE = ("SELECT", "INSERT", "UPDATE")
ALL_BUT_TRUNCATE = ("SELECT", "INSERT", "UPDATE", "DELETE")

# Kind -> (models as "app_label.Model" or "app_label.*", privileges). Tables are looked up from
# the models, so a renamed table follows.
ROLE_GRANTS: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {
    "worker": [
        (("workflows.Workflow", "workflows.WorkflowVersion"), READ),
        # Every change of a run's status, and a fan-out's and a replay's new runs, are functions
        # of the state machine (ROLE_FUNCTIONS: the claim, the release, a wait's park, resume
        # and timeout, a fan-out chunk's insert, a bulk action's cancel, retry and replay). Left:
        # UPDATE of `nudged_at` alone, the sweeper's record of the nudges it sent
        # (common/leased_work.py), which is no change of status (and lets a bulk action's chunk
        # lock its runs, SELECT ... FOR UPDATE, before it acts on them).
        (("triggers.TriggerInstance",), ("SELECT", "UPDATE (nudged_at)")),
        (("triggers.TriggerEvent",), APPEND),
        (("workers.StepExecutionLog", "workers.SendLedger"), READ),
        # Every send checks the suppression list first (deliveries/suppression.py).
        (("deliveries.Suppression",), READ),
        # Throttle and digest nodes keep their state here; the sweeper prunes it.
        (("workers.ThrottlePass", "workers.Digest", "workers.DigestEntry"), ALL_BUT_TRUNCATE),
        # Each worker registers itself and refreshes its heartbeat (registry/).
        (("registry.Worker",), CHANGE),
        # Events are written by the release and the cancel (events/sql.py); the dispatcher delivers them,
        # counts an endpoint's failures and disables it (events/services/dispatcher.py).
        (("events.OutboxEvent",), READ),
        # An attempt is recorded `started` before its POST and `finished` after it
        # (events/services/attempts.py); the append-only trigger allows that one move only.
        (("events.WebhookAttempt", "events.WebhookDelivery", "events.WebhookEndpoint"), CHANGE),
        # Runs read their recipient's profile and preferences; fan-outs read a topic's
        # subscribers and record how far they got (recipients/).
        (
            ("recipients.Recipient", "recipients.Category", "recipients.Topic"),
            READ,
        ),
        (("recipients.TopicSubscription", "recipients.RecipientTenantPreferences"), READ),
        (("recipients.Fanout",), CHANGE),
        # A bulk action's chunks are leased work on its row (triggers/action_work.py); what a
        # chunk does to its runs is the state machine's functions (ROLE_FUNCTIONS).
        (("triggers.TriggerAction",), CHANGE),
        # Schedules' steps record how far they got and what each occurrence did (schedules/).
        (("schedules.Schedule",), ("SELECT", "UPDATE")),
        (("schedules.ScheduleOccurrence",), APPEND),
        # A topic schedule's occurrence is charged to the trigger rate of the key that stored
        # it, whose bucket is named by the key's hash (schedules/admission.py).
        (("triggers.ApiKey",), ("SELECT (id, key_hash)",)),
        # An inapp node stores its message with the step's release (inbox/sql.py).
        (("inbox.InboxMessage",), APPEND),
        # A wait_event node registers its wait (and its match's shape), looks back for an
        # event that came first, and parks; the sweeper times waits out (waits/sql.py).
        (("waits.EventWait", "waits.WaitShape"), CHANGE),
        (("waits.ReceivedEvent",), READ),
        # A message wait's look-back and timeout read its message's recorded reports (and the
        # inbox's marks, above), whose post may have been lost (notiflow_wait_recorded_v1,
        # waits migration 0005); a `when` reading `steps.<id>.delivery` reads them too
        # (deliveries/sql.py).
        (("deliveries.DeliveryEvent",), READ),
        # The `t` filter reads the translation catalogs and their latest version (content/).
        (("content.TranslationCatalog", "content.TranslationCatalogVersion"), READ),
        # A run's tenant and the change log's largest id (tenants/selectors.py).
        (("tenants.Tenant", "tenants.TenantChange"), READ),
    ],
    "beat": [
        (("django_celery_beat.*",), CHANGE),
    ],
    "web": [
        (("workflows.Workflow", "workflows.WorkflowVersion"), ALL_BUT_TRUNCATE),
        (("triggers.TriggerInstance",), CHANGE),
        (("triggers.TriggerEvent",), APPEND),
        # Bulk actions are asked over the API, in the admin and by their command.
        (("triggers.TriggerAction",), CHANGE),
        (("workers.StepExecutionLog", "workers.SendLedger", "registry.Worker"), READ),
        (("workers.ThrottlePass", "workers.Digest", "workers.DigestEntry"), READ),
        (("triggers.ApiKey",), ("SELECT", "UPDATE", "DELETE")),
        # Suppressions come from providers' events, unsubscribes and operators, who remove them.
        (("deliveries.Suppression",), ALL_BUT_TRUNCATE),
        # Providers' reports arrive at the web process (deliveries/).
        (("deliveries.DeliveryEvent", "deliveries.UnmatchedReport"), APPEND),
        # The funnel reads its rollup and its sweep's watermark, and the steps past it through
        # notiflow_funnel_steps_v1 (ROLE_FUNCTIONS; docs/funnel.md).
        (("deliveries.FunnelCount", "deliveries.FunnelSweep"), READ),
        # Webhook endpoints are managed over the API and in the admin; cancel and delete write
        # their events; a deleted endpoint takes its deliveries along (its attempts stay).
        (("events.WebhookEndpoint", "events.WebhookDelivery"), ALL_BUT_TRUNCATE),
        (("events.OutboxEvent",), APPEND),
        (("events.WebhookAttempt",), READ),
        (("auth.*", "sessions.*", "admin.*", "django_celery_beat.*"), ALL_BUT_TRUNCATE),
        (("contenttypes.*",), APPEND),
        # Profiles, preferences, topics and subscriptions are managed over the API and in the
        # admin; erasing a person deletes theirs (recipients/).
        (("recipients.*",), ALL_BUT_TRUNCATE),
        # The feed API reads a person's messages and marks them seen, read or archived; erasing
        # the person deletes them (inbox/services.py inbox_erase). Every feed request reads its
        # token's generation; a rotate or an erase raises it.
        (("inbox.InboxMessage", "inbox.TokenGeneration"), ALL_BUT_TRUNCATE),
        # Events are posted over the API, from the admin, by providers' reports and the inbox's
        # marks, and resume waits; a cancel closes its run's waits (waits/).
        (("waits.*",), ALL_BUT_TRUNCATE),
        # Catalogs are managed over the API; each change appends its version (content/).
        (("content.TranslationCatalog",), ALL_BUT_TRUNCATE),
        (("content.TranslationCatalogVersion",), APPEND),
        # Tenants are managed over the API and in the admin; each change appends its record.
        (("tenants.Tenant",), ALL_BUT_TRUNCATE),
        (("tenants.TenantChange",), APPEND),
        # Schedules are managed over the API and in the admin (schedules/).
        (("schedules.*",), ALL_BUT_TRUNCATE),
    ],
}
KINDS = tuple(ROLE_GRANTS)

# The run's changes an event or a timeout makes (triggers migration 0018).
_WAIT_TRANSITIONS = ("notiflow_runs_hold_v1(uuid[], boolean)", "notiflow_runs_resume_v1(jsonb)")
# An operator's cancel and retry (triggers migration 0028): the API's, the admin's, and a bulk
# action's chunk's.
_OPERATOR_TRANSITIONS = (
    "notiflow_runs_cancel_v1(uuid[], text, text, jsonb)",
    "notiflow_run_retry_v1(uuid, text, text)",
)

# Kind -> the database functions it may EXECUTE (PUBLIC may not: triggers migration 0013 revokes
# it). Names with their argument types, as PostgreSQL identifies a function.
ROLE_FUNCTIONS: dict[str, tuple[str, ...]] = {
    "worker": (
        "notiflow_claim_v3(uuid, text, float8, text[])",
        "notiflow_release_v6(uuid, text, text, text, text, jsonb, integer, float8, boolean,"
        " text, boolean, text, jsonb, jsonb, jsonb, jsonb)",
        # The release's versions 5, 4 and 3 (triggers migrations 0024, 0022 and 0019) and the claim's and
        # the release's version 2 (0015), for the statements that workers of the previous
        # releases have prepared while a deploy replaces them; no code of this one calls them.
        "notiflow_release_v5(uuid, text, text, text, text, jsonb, integer, float8, boolean,"
        " text, boolean, text, jsonb, jsonb, jsonb, jsonb)",
        "notiflow_release_v4(uuid, text, text, text, text, jsonb, integer, float8, boolean,"
        " text, boolean, text, jsonb, jsonb, jsonb, jsonb)",
        "notiflow_release_v3(uuid, text, text, text, text, jsonb, integer, float8, boolean,"
        " text, boolean, text, jsonb, jsonb, jsonb, jsonb)",
        "notiflow_claim_v2(uuid, text, float8, text[])",
        "notiflow_release_v2(uuid, text, text, text, text, jsonb, integer, timestamptz, boolean,"
        " text, boolean, text, jsonb, jsonb, jsonb, jsonb)",
        # The history's partitions made ahead (beat's task; workers migration 0014, triggers 0030).
        "notiflow_step_log_partitions_v1(timestamptz, integer)",
        "notiflow_trigger_event_partitions_v1(timestamptz, integer)",
        # The push channels' progress and gone addresses (workers migrations 0012 and 0013;
        # version 1 of the removal for workers of the previous release during a deploy).
        "notiflow_push_progress_v1(uuid, text, jsonb)",
        "notiflow_push_address_remove_v2(text, text, jsonb)",
        "notiflow_push_address_remove_v1(text, text, jsonb)",
        # What a wait does to its run (triggers migration 0018): a wait_event step parks it, the
        # sweeper's timeouts lock and resume it.
        *_WAIT_TRANSITIONS,
        "notiflow_run_park_v1(uuid, text, boolean, text)",
        # A fan-out chunk's runs, with their `created` events (triggers migration 0027; version 1,
        # of 0023, for the workers of the release before during a deploy).
        "notiflow_fanout_runs_insert_v2(text, json, text, integer, text, text, boolean, float8,"
        " text)",
        "notiflow_fanout_runs_insert_v1(text, json, text, integer, text, text, boolean, float8)",
        # A bulk action's chunk cancels, retries or replays its runs (triggers migration 0028).
        *_OPERATOR_TRANSITIONS,
        "notiflow_run_replay_v1(uuid, text, text, text)",
        # The funnel's sweep rolls the step logs up into funnel_count (deliveries migration 0008).
        "notiflow_funnel_sweep_v1()",
    ),
    # A posted event (the API, the admin, a provider's report, an inbox mark) resumes its runs;
    # the API and the admin cancel and retry runs (a replay is a bulk action's, on the workers).
    # The funnel's read adds the steps its sweep has not counted yet (deliveries migration 0008).
    "web": (
        *_WAIT_TRANSITIONS,
        *_OPERATOR_TRANSITIONS,
        "notiflow_funnel_steps_v1(xid8, xid8, bigint)",
    ),
}


# Sequences behind a table's serial or identity columns, whatever the columns are called.
_OWNED_SEQUENCES_SQL = """
SELECT s.oid::regclass::text FROM pg_class s
JOIN pg_depend d ON d.classid = 'pg_class'::regclass AND d.objid = s.oid
                AND d.refclassid = 'pg_class'::regclass
WHERE s.relkind = 'S' AND d.refobjid = %s::regclass
"""


class RoleSetupError(Exception):
    pass


@dataclass
class RoleResult:
    kind: str
    name: str
    created: bool
    # Set only when this call generated the password (it is not stored anywhere else).
    generated_password: str | None
    tables: int
    sequences: int


def _tables(labels: Iterable[str]) -> list[str]:
    tables: list[str] = []
    for label in labels:
        app_label, _, model_name = label.partition(".")
        if model_name == "*":
            models = list(apps.get_app_config(app_label).get_models(include_auto_created=True))
        else:
            models = [apps.get_model(app_label, model_name)]
        tables += [m._meta.db_table for m in models if m._meta.managed and not m._meta.proxy]
    return tables


def role_grants(kind: str) -> list[tuple[str, tuple[str, ...]]]:
    """(table, privileges) for one kind of process, in a stable order."""
    grants: dict[str, tuple[str, ...]] = {}
    for labels, privileges in ROLE_GRANTS[kind]:
        for table in _tables(labels):
            grants[table] = privileges
    return sorted(grants.items())


def db_role_setup(
    *, kind: str, name: str, password: str | None, generate_password: bool = True
) -> RoleResult:
    """Create (or bring up to date) the login role `name` with exactly the grants of `kind`.

    Idempotent and converging: every table, sequence and function privilege the role had in the
    current database is revoked and the lists above granted again, in one transaction, so a
    re-run after a migration or after these lists changed leaves exactly what they say. Attributes are
    reset to NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS. The password is set
    when given; when not given, a new role gets a generated one (returned, never logged) unless
    `generate_password` is false, and an existing role keeps its own. Must run as a role allowed
    to create roles and grant on the tables (their owner). Refuses to touch the current user.
    """
    if kind not in ROLE_GRANTS:
        raise RoleSetupError(f"unknown role kind {kind!r} (one of {', '.join(KINDS)})")
    grants = role_grants(kind)
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("SELECT current_user, current_database(), current_schema()")
        current_user, database, schema = cursor.fetchone()
        if name == current_user:
            raise RoleSetupError(f"{name!r} is the role running this command; choose another name")
        cursor.execute("SELECT rolsuper FROM pg_roles WHERE rolname = %s", [name])
        existing = cursor.fetchone()
        if existing and existing[0]:
            raise RoleSetupError(f"{name!r} is a superuser role; refusing to reuse it")
        role = sql.Identifier(name)
        generated = None
        if password is None and existing is None and generate_password:
            password = generated = secrets.token_urlsafe(24)
        verb = "ALTER" if existing else "CREATE"
        attributes: sql.Composable = sql.SQL(
            "LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
        )
        if password is not None:
            attributes = sql.SQL("{} PASSWORD {}").format(attributes, sql.Literal(password))
        cursor.execute(sql.SQL(f"{verb} ROLE {{}} {{}}").format(role, attributes))
        cursor.execute(
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(sql.Identifier(database), role)
        )
        cursor.execute(
            sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(sql.Identifier(schema), role)
        )
        for what in ("TABLES", "SEQUENCES", "FUNCTIONS"):
            cursor.execute(
                sql.SQL(f"REVOKE ALL ON ALL {what} IN SCHEMA {{}} FROM {{}}").format(
                    sql.Identifier(schema), role
                )
            )
        sequences: set[str] = set()
        for table, privileges in grants:
            cursor.execute(
                sql.SQL("GRANT {} ON TABLE {} TO {}").format(
                    sql.SQL(", ").join(sql.SQL(p) for p in privileges), sql.Identifier(table), role
                )
            )
            if "INSERT" in privileges:
                cursor.execute(_OWNED_SEQUENCES_SQL, [table])
                sequences.update(row[0] for row in cursor.fetchall())
        for sequence in sorted(sequences):
            # regclass::text is already quoted (and schema-qualified when needed).
            cursor.execute(
                sql.SQL("GRANT USAGE ON SEQUENCE {} TO {}").format(sql.SQL(sequence), role)
            )
        for function in ROLE_FUNCTIONS.get(kind, ()):
            # A constant of this module: a name and its argument types, not an identifier.
            cursor.execute(
                sql.SQL("GRANT EXECUTE ON FUNCTION {} TO {}").format(sql.SQL(function), role)
            )
    return RoleResult(
        kind=kind,
        name=name,
        created=existing is None,
        generated_password=generated,
        tables=len(grants),
        sequences=len(sequences),
    )
