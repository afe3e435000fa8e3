"""One chaos run: its own services and processes, the triggers, the faults, and the count."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import random
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import psycopg
import requests

from chaos.actions import (
    ACTIONS_RUNNING_SQL,
    CANCEL_WORKFLOW_KEY,
    READY_SQL,
    REPLAY_WORKFLOW_KEY,
    action_ask,
    action_workflow_definitions,
    cancel_body,
    replay_body,
    tally_actions,
)
from chaos.common import Harness, cleanup, not_terminal, query, stacks_up
from chaos.fanout import (
    RECIPIENTS_CREATE,
    RUNNING_SQL,
    fanout_fire,
    fanout_workflow_definition,
    tally_fanout,
    topic_subscribe,
)
from chaos.faults import (
    KILL_POOL_PROCESS,
    KILL_WORKER,
    PG_RESTART,
    RABBITMQ_RESTART,
    RECEIVER_DOWN,
    REDIS_FLUSH,
    REDIS_RESTART,
    FaultInjector,
    WorkerPool,
    fault_plan,
)
from chaos.fire import DIGEST_WORKFLOW_KEY, WORKFLOW_KEY, Firing, digest_body, trigger_body
from chaos.receiver import ChaosReceiver
from chaos.report import ChaosResult, Deliveries
from chaos.schedule import (
    PENDING_SQL,
    PEOPLE_CREATE,
    SCHEDULE_ID,
    schedule_store,
    schedule_topic_subscribe,
    schedule_workflow_definition,
    tally_schedule,
)
from chaos.services import PostgresCluster, RabbitNode, RedisServer
from chaos.tally import tally, tally_digests, tally_inapp, tally_webhooks
from chaos.waits import (
    LONG_TIMEOUT,
    SHORT_TIMEOUT,
    TIMEOUT_WORKFLOW_KEY,
    WAIT_WORKFLOW_KEY,
    WAITING_SQL,
    EventPosting,
    tally_waits,
    timeout_body,
    wait_body,
    wait_workflow_definition,
)
from tests.support.chat import ChatServer
from tests.support.smtp import SmtpServer, free_port
from tests.support.stack import ROOT, Stack, wait_for


def chaos_secret_key() -> str:
    """The settings refuse to start without a key outside debug. The harness's PostgreSQL and
    Redis are its own and thrown away, so a fixed key signs nothing worth forging."""
    return (
        os.environ.get("DJANGO_SECRET_KEY") or "chaos-only-key-for-a-throwaway-cluster-" + "c" * 24
    )


# Engine timings shrunk so that crash recovery happens many times within one run. The ratios
# keep production's shape (defaults in brackets):
ENGINE_TIMINGS = {
    # [60] A killed worker's claim is taken over after this long.
    "NOTIFLOW_LEASE_SECONDS": "6",
    # [30, 45] A step is interrupted, then its process killed, well inside its lease.
    "CELERY_TASK_SOFT_TIME_LIMIT": "4",
    "CELERY_TASK_TIME_LIMIT": "5",
    # [10] An SMTP call gives up (transient error, retried) before the soft limit; the send and
    # the QUIT Django sends while closing may each wait this long (settings refuse 2x >= soft).
    "EMAIL_TIMEOUT": "1",
    "NOTIFLOW_SMS_TIMEOUT_SECONDS": "1",
    "NOTIFLOW_PUSH_TIMEOUT_SECONDS": "1",
    "NOTIFLOW_CHAT_TIMEOUT_SECONDS": "1",
    # [10] A webhook POST gives up on connecting, then on the answer, before the soft limit
    # (settings refuse 2x >= soft).
    "NOTIFLOW_WEBHOOK_TIMEOUT_SECONDS": "1",
    # [2] A node's templates render within this (settings refuse 2x >= soft).
    "NOTIFLOW_TEMPLATE_DEADLINE_SECONDS": "1",
    # [5] The sweeper runs every second: expired leases and lost nudges are found quickly.
    "NOTIFLOW_SWEEP_INTERVAL_SECONDS": "1",
    # [30] A nudge not followed by a claim for this long is presumed lost (flush, kill) and
    # sent again. Must exceed the queue's wait under load, or every queued nudge is doubled.
    "NOTIFLOW_RENUDGE_AFTER_SECONDS": "5",
    # [60] Backoff base: a step that failed during the PostgreSQL restart retries after 1 s, 2 s.
    "NOTIFLOW_RETRY_BASE_SECONDS": "1",
    # [300] The delay node's wait rides a Celery countdown (up to 2 s) ...
    "NOTIFLOW_MAX_COUNTDOWN_SECONDS": "2",
    # [30] A webhook the receiver refused is retried after 0.5 s, 1 s, 2 s ... (8 attempts in
    # all, over about a minute): retries happen many times within one run.
    "NOTIFLOW_WEBHOOK_RETRY_BASE_SECONDS": "0.5",
    # [1000, 30] A fan-out makes its runs 50 at a time, so that the faults land between its
    # chunks, and one whose task was lost (a flush) is resumed 3 s later.
    "NOTIFLOW_FANOUT_CHUNK_SIZE": "50",
    "NOTIFLOW_FANOUT_RESUME_AFTER_SECONDS": "3",
    # [1000] A bulk action acts on 50 runs a chunk, so that the faults land between its chunks.
    "NOTIFLOW_ACTION_CHUNK_SIZE": "50",
}

# The endpoint is the harness's receiver on loopback, which the address rule refuses in
# production (events/addresses.py).
# The harness's workers (WorkerPool, no -Q) serve `default`: the webhook deliveries go there too,
# rather than to the production default `webhooks`, which no worker here would serve.
WEBHOOK_SETTINGS = {"NOTIFLOW_WEBHOOK_ALLOW_PRIVATE": "true", "NOTIFLOW_WEBHOOK_QUEUE": "default"}
# The harness fires thousands of triggers with one key as fast as it can: no API rate limit.
RATE_LIMITS_OFF = {"NOTIFLOW_RATE_LIMIT_TRIGGER": "off", "NOTIFLOW_RATE_LIMIT_ADMIN": "off"}

# Run as the web role (or the owner): an endpoint on the receiver for the events given; prints
# its id and secret (the secret is readable only here, as the API shows it once).
ENDPOINT_CREATE = """
import json
from events.services.endpoints import endpoint_create
endpoint = endpoint_create(url={url!r}, events={events!r}, description="chaos", actor="chaos")
print(json.dumps({{"id": str(endpoint.pk), "secret": endpoint.secret}}))
"""


BROKERS = ("redis", "rabbitmq")


@dataclass
class ChaosConfig:
    triggers: int = 2000
    # The broker: the harness's redis-server, or a RabbitMQ node of its own (then the Redis
    # server stays as the cache, and each "flush" is a RabbitMQ restart instead).
    broker: str = "redis"
    kills: int = 10
    flushes: int = 2
    redis_restarts: int = 1
    pg_restarts: int = 1
    receiver_outages: int = 1
    workers: int = 3
    concurrency: int = 2
    # The workers' pool (`--pool`): prefork, Celery's default, or threads (the Procfile's `sends`).
    pool: str = "prefork"
    fault_interval: float = 1.5
    delay_ms: int = 1000
    # Runs of the digest workflow (docs/design/workflows.md, "Digest"), fired alongside the others: one
    # digest per group and window, each sent as one email whose subject carries its count.
    digest_triggers: int = 0
    digest_groups: int = 20
    digest_window: str = "2s"
    # A topic of this many subscribers, triggered once as the faults begin (chaos/fanout.py):
    # every subscriber gets exactly one run. 0: no fan-out (`make chaos` asks for FANOUT=2000).
    fanout_subscribers: int = 0
    # A topic of this many subscribers and a schedule of it whose one occurrence is due as the
    # faults begin (chaos/schedule.py): every subscriber gets exactly one run. 0: none (`make
    # chaos` asks for SCHEDULE=10000).
    schedule_subscribers: int = 0
    # Runs that wait for an event (chaos/waits.py), posted once they all wait, 10 % twice; and
    # runs that wait for none and time out. 0, 0: none (`make chaos` asks for 1000 and 100).
    waiting_runs: int = 0
    waiting_timeouts: int = 0
    # Runs replayed in bulk once they completed, and as many cancelled in bulk while they wait,
    # both asked under the faults (chaos/actions.py). 0: none (`make chaos` asks for 500).
    action_runs: int = 0
    fire_threads: int = 8
    # What the webhook endpoint subscribes to (events.catalog names, "*" for all); none: no
    # endpoint, no receiver checks.
    webhook_events: tuple[str, ...] = ("*",)
    # The webhook receiver answers 500 to the first attempt of this fraction of events, and is
    # down (connections refused) this long at each outage.
    webhook_fail_first: float = 0.1
    receiver_outage_seconds: float = 3.0
    # Seconds, once every trigger is terminal, for every webhook delivery to settle.
    webhook_deadline: float = 60.0
    # Seconds from the first trigger fired to the last one terminal; default 120 + 0.15 s per
    # trigger (+ 0.05 s per scheduled subscriber).
    deadline: float | None = None
    # Processes connect as notiflow_worker / notiflow_beat / notiflow_web (setup_db_roles).
    least_privilege: bool = True
    logs: Path | None = None
    seed: int | None = None
    quiet: bool = False
    requested: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        self.requested = {
            "kills": self.kills,
            "flushes": self.flushes,
            "redis_restarts": self.redis_restarts,
            "pg_restarts": self.pg_restarts,
            "receiver_outages": self.receiver_outages,
        }
        if self.broker not in BROKERS:
            raise ValueError(f"unknown broker {self.broker!r}: one of {', '.join(BROKERS)}")
        if self.webhook_events and not {"*", "trigger.completed"} & set(self.webhook_events):
            raise ValueError("the webhook endpoint must subscribe to trigger.completed (or *)")


# The chaos run's in-app and Slack steps (docs/reliability/chaos.md): the in-app message of a run goes
# to one of these recipients, which the harness creates.
INBOX_RECIPIENTS = 20
INBOX_RECIPIENTS_CREATE = """
from recipients.models import Recipient
Recipient.objects.bulk_create(
    [Recipient(key=f"chaos-inbox-{{i:03d}}") for i in range({count})], ignore_conflicts=True
)
"""


def channels_body(index: int) -> dict[str, Any]:
    """A run of the main workflow with its in-app and Slack steps: for a recipient."""
    return {**trigger_body(index), "recipient": f"chaos-inbox-{index % INBOX_RECIPIENTS:03d}"}


def channel_nodes(slack_webhook_url: str) -> list[dict[str, Any]]:
    """After the SMS: an in-app message for the run's recipient, then a Slack post to the
    harness's stand-in, whose text is the run's idempotency key (how the tally finds it)."""
    return [
        {
            "id": "bell",
            "type": "inapp",
            "title": "Chaos {{ payload.name }}",
            "body": "run {{ trigger.idempotency_key }}",
        },
        {
            "id": "chat",
            "type": "slack",
            "webhook_url": slack_webhook_url,
            "text": "{{ trigger.idempotency_key }}",
        },
    ]


def workflow_definition(delay_ms: int, *, slack_webhook_url: str = "") -> dict[str, Any]:
    """Email, a short delay, SMS; and with a Slack webhook URL, an in-app step and a Slack step
    (the chaos run's; the hosts run keeps the first three)."""
    extra = channel_nodes(slack_webhook_url) if slack_webhook_url else []
    order = ["mail", "pause", "text", *(node["id"] for node in extra)]
    return {
        "key": WORKFLOW_KEY,
        "name": "Chaos: email, short delay, SMS" + (", in-app, Slack" if extra else ""),
        "entry_node_id": "mail",
        "nodes": [
            {
                "id": "mail",
                "type": "email",
                "to": "{{ payload.email }}",
                "subject": "Hello {{ payload.name }}",
                "body": "Chaos trigger {{ trigger.idempotency_key }}",
            },
            {"id": "pause", "type": "delay", "delay_ms": delay_ms},
            {
                "id": "text",
                "type": "sms",
                "to": "{{ payload.phone }}",
                "body": "After {{ vars.email_mail.message_id }}",
            },
            *extra,
        ],
        "edges": [{"from": a, "to": b} for a, b in itertools.pairwise(order)],
    }


def digest_workflow_definition(window: str) -> dict[str, Any]:
    return {
        "key": DIGEST_WORKFLOW_KEY,
        "name": "Chaos: a digest per group, then one email per digest",
        "entry_node_id": "gather",
        "nodes": [
            {"id": "gather", "type": "digest", "key": "{{ payload.group }}", "window": window},
            {
                "id": "send",
                "type": "email",
                "to": "{{ payload.email }}",
                # Counted by the tally: "digest <count> <digest id>".
                "subject": "digest {{ vars.digest_gather.count }} {{ vars.digest_gather.id }}",
                "body": "{% for e in vars.digest_gather.events %}{{ e.item }} {% endfor %}",
            },
        ],
        "edges": [{"from": "gather", "to": "send"}],
    }


class ChaosRun(Harness):
    """Use as a context manager: everything it started is stopped and removed on exit, whatever
    happened (including Ctrl-C: the processes run in their own sessions and never see it)."""

    def __init__(self, config: ChaosConfig):
        self.config = config
        self.rng = random.Random(config.seed)
        self.started = time.monotonic()
        self.tmp = Path(tempfile.mkdtemp(prefix="notiflow-chaos-"))
        self.tmp.chmod(0o755)  # the cluster runs as `postgres` and must reach its directory
        self.logs = config.logs or self.tmp / "logs"
        self.logs.mkdir(parents=True, exist_ok=True)
        self.postgres = PostgresCluster(self.tmp / "pg")
        self.redis = RedisServer(self.tmp / "redis")
        self.rabbitmq = RabbitNode(self.tmp / "rabbitmq") if config.broker == "rabbitmq" else None
        self.smtp = SmtpServer()
        self.chat = ChatServer()
        self.receiver = ChaosReceiver(fail_first=config.webhook_fail_first, seed=config.seed)
        self.endpoint_id = ""
        self.commands: list[subprocess.Popen[str]] = []  # manage.py runs, killed if left over
        self.stacks: dict[str, Stack] = {}
        self.pool: WorkerPool | None = None
        self.injector: FaultInjector | None = None
        self.firing: Firing | None = None
        self.digest_firing: Firing | None = None
        self.fanout_id = ""
        self.schedule_at: Any = None  # the schedule's occurrence, in UTC
        self.wait_firings: list[Firing] = []
        self.posting: EventPosting | None = None
        self.waits_busy = threading.Event()  # set while the waiting runs are fired and posted
        self.waits_error: BaseException | None = None
        self.action_firings: dict[str, Firing] = {}
        self.action_ids: dict[str, str] = {}
        self.action_asks_retried = 0
        self.acting: tuple[float, float] | None = None  # from the first ask to the last `done`
        self.actions_busy = threading.Event()  # set until both bulk actions are over
        self.actions_error: BaseException | None = None
        self.died: list[str] = []
        self.api = requests.Session()
        self.supervising = threading.Event()

    # --- lifecycle ---------------------------------------------------------------------------

    def say(self, message: str) -> None:
        if not self.config.quiet:
            print(f"[chaos {time.monotonic() - self.started:6.1f}s] {message}", file=sys.stderr)

    def _start(self) -> None:
        self.say(f"services in {self.tmp}, logs in {self.logs}")
        self.postgres.start()
        self.redis.start()
        if self.rabbitmq is not None:
            self.rabbitmq.start()
        self.smtp.start()
        self.chat.start()
        self.receiver.start()
        owner = self.postgres.url()
        self._manage(owner, "migrate", "--noinput", "-v", "0")
        self._manage(owner, "setup_db_roles", "--no-password")
        made = self._manage(owner, "create_api_key", "chaos", "--scope", "admin")
        api_key = made.strip().splitlines()[-1]
        # The endpoint is made while the processes start (a Django start-up of its own, in
        # parallel): it exists before the first trigger, which is all it needs.
        web = self.postgres.url(user="notiflow_web" if self.config.least_privilege else "postgres")
        events = list(self.config.webhook_events)
        code = ENDPOINT_CREATE.format(url=self.receiver.url, events=events)
        endpoint_create = self._manage_spawn(web, "shell", "-c", code) if events else None
        people = RECIPIENTS_CREATE.format(count=self.config.fanout_subscribers)
        recipients_create = (
            self._manage_spawn(web, "shell", "-c", people)
            if self.config.fanout_subscribers
            else None
        )
        schedule_people = PEOPLE_CREATE.format(count=self.config.schedule_subscribers)
        schedule_people_create = (
            self._manage_spawn(web, "shell", "-c", schedule_people)
            if self.config.schedule_subscribers
            else None
        )
        inbox_people = INBOX_RECIPIENTS_CREATE.format(count=INBOX_RECIPIENTS)
        inbox_create = self._manage_spawn(web, "shell", "-c", inbox_people)
        env = {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "notiflow.settings",
            "DJANGO_SECRET_KEY": chaos_secret_key(),
            **self._broker_env(),
            "EMAIL_URL": f"smtp://127.0.0.1:{self.smtp.port}",
            "NOTIFLOW_SMS_BACKEND": "file",
            "NOTIFLOW_SMS_FILE": str(self.logs / "sms.jsonl"),
            "PYTHONUNBUFFERED": "1",
            "API_KEY": api_key,
            # The environment may override a timing, e.g. NOTIFLOW_RENUDGE_AFTER_SECONDS=30.
            **{name: os.environ.get(name, value) for name, value in ENGINE_TIMINGS.items()},
            **WEBHOOK_SETTINGS,
            **RATE_LIMITS_OFF,
            # The Slack stand-in is on loopback, which the address rule refuses in production.
            "NOTIFLOW_CHAT_ALLOW_PRIVATE": "true",
        }
        for kind in ("web", "worker", "beat"):
            user = f"notiflow_{kind}" if self.config.least_privilege else "postgres"
            self.stacks[kind] = Stack(
                env={**env, "DATABASE_URL": self.postgres.url(user=user)}, workdir=self.logs
            )
        self.stacks["web"].web(free_port())
        self.pool = WorkerPool(
            self.stacks["worker"],
            concurrency=self.config.concurrency,
            rng=self.rng,
            pool=self.config.pool,
        )
        for _ in range(self.config.workers):
            self.pool.start()
        self.stacks["beat"].beat()
        self.api.headers["Authorization"] = f"Bearer {api_key}"
        wait_for(self._up, timeout=120, interval=0.5, message="web, workers and beat up")
        definitions = [self._workflow_definition()]
        if self.config.digest_triggers:
            definitions.append(digest_workflow_definition(self.config.digest_window))
        if self.config.fanout_subscribers:
            definitions.append(fanout_workflow_definition())
        if self.config.schedule_subscribers:
            definitions.append(schedule_workflow_definition())
        if self.config.waiting_runs or self.config.waiting_timeouts:
            definitions.append(wait_workflow_definition(WAIT_WORKFLOW_KEY, LONG_TIMEOUT))
            definitions.append(wait_workflow_definition(TIMEOUT_WORKFLOW_KEY, SHORT_TIMEOUT))
        if self.config.action_runs:
            definitions.extend(action_workflow_definitions())
        for definition in definitions:
            created = self.api.post(self.base_url + "/api/workflows/", json=definition, timeout=30)
            if created.status_code != 201:
                raise RuntimeError(f"creating a workflow: {created.status_code} {created.text}")
        self._manage_result(inbox_create, "shell -c <inbox_recipients_create>")
        if recipients_create is not None:
            self._manage_result(recipients_create, "shell -c <recipients_create>")
            topic_subscribe(self.api, self.base_url, self.config.fanout_subscribers)
        if schedule_people_create is not None:
            self._manage_result(schedule_people_create, "shell -c <schedule_people_create>")
            schedule_topic_subscribe(self.api, self.base_url, self.config.schedule_subscribers)
        hooks = "no webhook endpoint"
        if endpoint_create is not None:
            made = self._manage_result(endpoint_create, "shell -c <endpoint_create>")
            endpoint = json.loads(made.strip().splitlines()[-1])
            self.endpoint_id, self.receiver.secret = endpoint["id"], endpoint["secret"]
            hooks = f"webhook endpoint for {', '.join(events)} -> {self.receiver.url}"
        self.say(
            f"up: web, {self.config.workers} workers x {self.config.concurrency} "
            f"({self.config.pool}), beat; {hooks}"
        )

    def _workflow_definition(self) -> dict[str, Any]:
        slack = self.chat.url("/slack/ok/chaos")
        return workflow_definition(self.config.delay_ms, slack_webhook_url=slack)

    def _manage(self, database_url: str, *args: str) -> str:
        return self._manage_result(self._manage_spawn(database_url, *args), " ".join(args))

    def _manage_spawn(self, database_url: str, *args: str) -> subprocess.Popen[str]:
        env = {**os.environ, "DJANGO_SETTINGS_MODULE": "notiflow.settings", **WEBHOOK_SETTINGS}
        env["DJANGO_SECRET_KEY"] = chaos_secret_key()
        env["DATABASE_URL"] = database_url
        env.update(self._broker_env())
        process = subprocess.Popen(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.commands.append(process)
        return process

    def _broker_env(self) -> dict[str, str]:
        if self.rabbitmq is None:
            return {"CELERY_BROKER_URL": self.redis.url}
        # Without Redis as the broker, the cache and rate limits still need one: ours, never
        # the machine's (their defaults).
        return {
            "CELERY_BROKER_URL": self.rabbitmq.url,
            "NOTIFLOW_CACHE_URL": self.redis.url,
            "NOTIFLOW_REDIS_URL": self.redis.url,
        }

    @staticmethod
    def _manage_result(process: subprocess.Popen[str], what: str) -> str:
        try:
            stdout, stderr = process.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            process.kill()
            raise
        if process.returncode != 0:
            raise RuntimeError(f"manage.py {what} failed:\n{stderr[-3000:]}")
        return stdout

    @property
    def base_url(self) -> str:
        return self.stacks["web"].base_url

    def _up(self) -> bool:
        return stacks_up(self.stacks.values(), self.api, self.base_url, self.config.workers)

    def close(self) -> None:
        steps = [
            self.supervising.set,
            self._stop_injector,
            self._kill_commands,
            *[stack.stop for stack in reversed(list(self.stacks.values()))],
            self.smtp.stop,
            self._chat_stop,
            self.receiver.stop,
            self.redis.stop,
            *([self.rabbitmq.stop] if self.rabbitmq is not None else []),
            self.postgres.stop,
        ]
        cleanup(steps, tag="chaos")
        # The cluster, Redis and (unless --logs put them elsewhere) the logs.
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _chat_stop(self) -> None:
        if self.chat.thread.is_alive():  # a server never started would wait forever
            self.chat.stop()

    def _kill_commands(self) -> None:
        for process in self.commands:
            if process.poll() is None:
                process.kill()
                process.wait(timeout=10)

    def _supervise(self) -> None:
        """Like a process supervisor: replace workers that exit by themselves (and say so)."""
        assert self.pool is not None
        while not self.supervising.wait(0.5):
            for death in self.pool.replace_the_dead():
                self.died.append(death)
                self.say(f"exited by itself, replaced: {death}")

    def _stop_injector(self) -> None:
        if self.injector is not None and self.injector.is_alive():
            self.injector.stopping.set()
            self.injector.join(timeout=60)

    # --- the run -----------------------------------------------------------------------------

    def run(self) -> ChaosResult:
        config = self.config
        assert self.pool is not None
        result = ChaosResult(
            triggers=config.triggers + config.digest_triggers,
            broker=config.broker,
            faults_requested=dict(config.requested),
        )
        actions = {
            KILL_WORKER: self.pool.kill_worker,
            KILL_POOL_PROCESS: self.pool.kill_pool_process,
            REDIS_FLUSH: self.redis.flush,
            REDIS_RESTART: lambda: f"redis-server back after {self.redis.restart():.1f}s",
            PG_RESTART: lambda: f"PostgreSQL back after {self.postgres.restart():.1f}s",
            RABBITMQ_RESTART: self._rabbitmq_restart,
            RECEIVER_DOWN: lambda: self.receiver.down(config.receiver_outage_seconds),
        }
        plan = fault_plan(
            kills=config.kills,
            flushes=config.flushes,
            redis_restarts=config.redis_restarts,
            pg_restarts=config.pg_restarts,
            receiver_outages=config.receiver_outages,
            flush=REDIS_FLUSH if self.rabbitmq is None else RABBITMQ_RESTART,
        )
        self.injector = FaultInjector(
            plan,
            actions,
            interval=config.fault_interval,
            in_flight=self._in_flight,
            clock=lambda: time.monotonic() - self.started,
            say=self.say,
        )
        asked = config.triggers + config.digest_triggers + 3 * config.action_runs
        waiting = config.waiting_runs + config.waiting_timeouts
        # A scheduled run is one step (a short delay), its runs made 50 to a task.
        scheduled = 0.05 * config.schedule_subscribers
        deadline = config.deadline or 120 + 0.15 * (asked + waiting) + scheduled
        began = time.monotonic()
        headers = {"Authorization": str(self.api.headers["Authorization"])}
        if config.action_runs:  # their runs ready before the faults, which then land on the actions
            self._actions_prepare(headers, began + deadline)
        self.injector.start()
        supervisor = threading.Thread(target=self._supervise, name="chaos-supervisor", daemon=True)
        supervisor.start()
        self.firing = Firing(
            base_url=self.base_url,
            headers=headers,
            threads=config.fire_threads,
            body=channels_body,
        )
        self.digest_firing = Firing(
            base_url=self.base_url,
            headers=headers,
            threads=max(1, config.fire_threads // 2),
            body=lambda index: digest_body(index, groups=config.digest_groups),
        )
        digests = threading.Thread(
            target=self.digest_firing.fire, args=(config.digest_triggers,), name="chaos-digests"
        )
        digests.start()  # alongside the others: the same faults hit both workflows
        waits = None
        if config.waiting_runs or config.waiting_timeouts:
            self.waits_busy.set()
            waits = threading.Thread(
                target=self._waits, args=(headers, began + deadline), name="chaos-waits"
            )
            waits.start()
        bulk = None
        if config.action_runs:  # first: the actions are asked as the faults begin
            self.actions_busy.set()
            bulk = threading.Thread(
                target=self._actions, args=(began + deadline,), name="chaos-actions"
            )
            bulk.start()
        if config.fanout_subscribers:  # first: its chunks run while the others are fired
            self.fanout_id = fanout_fire(self.api, self.base_url, began + 60)
            self.say(f"fan-out {self.fanout_id} to {config.fanout_subscribers} subscribers")
        if config.schedule_subscribers:  # its occurrence is due a few seconds into the faults
            self.schedule_at = schedule_store(self.api, self.base_url, began + 60)
            self.say(f"schedule of {config.schedule_subscribers} due at {self.schedule_at}")
        self.firing.fire(config.triggers)
        digests.join()
        if waits is not None:
            waits.join()
            if self.waits_error is not None:
                raise RuntimeError(f"the waiting runs: {self.waits_error!r}")
        if bulk is not None:
            bulk.join()
            if self.actions_error is not None:
                raise RuntimeError(f"the bulk actions: {self.actions_error!r}")
        fired_at = time.monotonic()
        fired = len(self.firing.fired) + len(self.digest_firing.fired)
        self.say(f"fired {fired} trigger(s) in {fired_at - began:.1f}s")
        stuck = self._wait_terminal(began + deadline)
        drained_at = time.monotonic()
        if self.injector.error is not None:
            raise RuntimeError(f"a fault could not be injected: {self.injector.error!r}")
        # Retries may still be due (the receiver refused, or was down): the workers keep going.
        self._wait_webhooks(drained_at + config.webhook_deadline)
        settled_at = time.monotonic()
        self.supervising.set()
        supervisor.join(timeout=10)
        result.died_by_themselves = self._died_by_themselves()
        for stack in self.stacks.values():  # graceful: running steps finish, then count
            stack.stop()
        deliveries = Deliveries(
            emails=Counter(
                str(m.message["X-Notiflow-Idempotency-Key"]) for m in self.smtp.handler.received
            ),
            sms=Counter(sms["idempotency_key"] for sms in self._sms_outbox()),
            slack=Counter(
                f"{self.firing.fired.get(str(r.body.get('text')), r.body.get('text'))}:chat"
                for r in self.chat.received(path="/slack/")
            ),
        )
        nodes = self._workflow_definition()["nodes"]
        tally(
            result,
            query=self._query,
            fired=self.firing.fired,
            digest_fired=self.digest_firing.fired,
            faults=self.injector,
            deliveries=deliveries,
            stuck=stuck,
            nodes=len(nodes),
            delivered_nodes=("mail", "text", "chat"),
            cancelled_on_purpose=(CANCEL_WORKFLOW_KEY,) if config.action_runs else (),
        )
        tally_inapp(result, query=self._query, fired=self.firing.fired, node="bell")
        if config.fanout_subscribers:
            tally_fanout(
                result.fanouts,
                query=self._query,
                fanout_id=self.fanout_id,
                subscribers=config.fanout_subscribers,
            )
        if config.schedule_subscribers:
            tally_schedule(
                result.schedules,
                query=self._query,
                at=self.schedule_at,
                subscribers=config.schedule_subscribers,
            )
        if config.waiting_runs or config.waiting_timeouts:
            tally_waits(
                result.waits,
                query=self._query,
                runs=config.waiting_runs,
                timeouts=config.waiting_timeouts,
                fired=sum(len(firing.fired) for firing in self.wait_firings),
                posting=self.posting,
            )
        if config.action_runs:
            tally_actions(
                result.actions,
                query=self._query,
                runs=config.action_runs,
                fired={name: firing.fired for name, firing in self.action_firings.items()},
                action_ids=self.action_ids,
            )
            result.actions.asks_retried = self.action_asks_retried
            if self.acting is not None:
                start, end = self.acting
                log = self.injector.log
                result.actions.faults_while_acting = sum(1 for f in log if start <= f.at <= end)
        if config.digest_triggers:
            subjects = {
                str(m.message["X-Notiflow-Idempotency-Key"]): m.subject
                for m in self.smtp.handler.received
                if str(m.message["X-Notiflow-Idempotency-Key"]).endswith(":send")
            }
            tally_digests(
                result.digests,
                query=self._query,
                fired=self.digest_firing.fired,
                subjects=subjects,
            )
        if self.endpoint_id:
            tally_webhooks(
                result.webhooks,
                query=self._query,
                endpoint_id=self.endpoint_id,
                subscribed=config.webhook_events,
                arrivals=self.receiver.received(),
                failed_on_purpose=self.receiver.failed_on_purpose,
                send_nodes=[node["id"] for node in nodes if node["type"] in ("email", "sms")],
                send_triggers=set(self.firing.fired.values()),
            )
            result.webhooks.seconds_waited = settled_at - drained_at
        result.intake_retries = self.firing.retries + self.digest_firing.retries
        result.seconds = {
            "firing": fired_at - began,
            "fire to all terminal": drained_at - began,
            "then webhooks settled": settled_at - drained_at,
            "whole run": time.monotonic() - self.started,
        }
        return result

    def _waits(self, headers: dict[str, str], deadline: float) -> None:
        """Fire the waiting runs; once those that wait for an event all wait, post their events
        (chaos/waits.py). On its own thread, alongside the other firings."""
        config = self.config
        try:
            threads = max(1, config.fire_threads // 2)
            for body, count in (
                (wait_body, config.waiting_runs),
                (timeout_body, config.waiting_timeouts),
            ):
                firing = Firing(base_url=self.base_url, headers=headers, threads=threads, body=body)
                self.wait_firings.append(firing)
                firing.fire(count)
            self.say(f"fired {config.waiting_runs} + {config.waiting_timeouts} waiting runs")
            waiting = -1
            while waiting < config.waiting_runs and time.monotonic() < deadline:
                with contextlib.suppress(psycopg.Error):
                    waiting = int(self._query(WAITING_SQL, [WAIT_WORKFLOW_KEY])[0][0])
                time.sleep(0.5)
            self.say(f"{waiting} runs waiting: posting their events, 10 % twice")
            self.posting = EventPosting(base_url=self.base_url, headers=headers, threads=threads)
            self.posting.post(config.waiting_runs, seed=config.seed)
            self.say(f"posted the events: answers {dict(self.posting.answers)}")
        except BaseException as exc:  # reported by the main thread
            self.waits_error = exc
        finally:
            self.waits_busy.clear()

    def _actions_prepare(self, headers: dict[str, str], deadline: float) -> None:
        """Fire the bulk actions' runs and wait until the first are completed and the others
        wait (chaos/actions.py): before the faults begin, so that they land on the actions."""
        runs = self.config.action_runs
        for name, body in (("replay", replay_body), ("cancel", cancel_body)):
            firing = Firing(
                base_url=self.base_url, headers=headers, threads=self.config.fire_threads, body=body
            )
            self.action_firings[name] = firing
            firing.fire(runs)
        ready = (-1, -1)
        keys = [REPLAY_WORKFLOW_KEY, CANCEL_WORKFLOW_KEY] * 2
        while ready != (runs, runs) and time.monotonic() < deadline:
            with contextlib.suppress(psycopg.Error):
                ready = tuple(self._query(READY_SQL, keys)[0])  # type: ignore[assignment]
            time.sleep(0.2)
        self.say(f"{ready[0]} runs completed and {ready[1]} waiting, for the bulk actions")

    def _actions(self, deadline: float) -> None:
        """Ask for the replay and the cancel and wait until both are over (chaos/actions.py).
        On its own thread, alongside the other firings, as the faults begin."""
        try:
            began = time.monotonic()
            for name, workflow in (
                ("replay", REPLAY_WORKFLOW_KEY),
                ("cancel", CANCEL_WORKFLOW_KEY),
            ):
                self.action_ids[name], retried = action_ask(
                    self.api, self.base_url, name, {"workflow": workflow}, deadline
                )
                self.action_asks_retried += retried
            self.say(f"asked for a bulk replay and a bulk cancel: {self.action_ids}")
            running = -1
            while running != 0 and time.monotonic() < deadline:
                with contextlib.suppress(psycopg.Error):
                    running = int(self._query(ACTIONS_RUNNING_SQL)[0][0])
                time.sleep(0.2)
            self.acting = (began - self.started, time.monotonic() - self.started)
            self.say(f"bulk actions over after {time.monotonic() - began:.1f}s")
        except BaseException as exc:  # reported by the main thread
            self.actions_error = exc
        finally:
            self.actions_busy.clear()

    def _rabbitmq_restart(self) -> str:
        assert self.rabbitmq is not None
        return f"RabbitMQ stop_app/start_app, back after {self.rabbitmq.restart():.1f}s"

    def _query(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        return query(self.postgres.url(), sql, params)

    def _in_flight(self) -> int | None:
        in_db = not_terminal(self.postgres.url())
        if in_db is None:
            return None
        if self.config.fanout_subscribers:  # a running fan-out has runs still to make
            try:
                in_db += int(self._query(RUNNING_SQL)[0][0])
            except psycopg.Error:
                return None
        if self.config.schedule_subscribers:  # its occurrence has runs still to make
            try:
                in_db += int(self._query(PENDING_SQL, [SCHEDULE_ID])[0][0])
            except psycopg.Error:
                return None
        if self.waits_busy.is_set():  # the waiting runs are not all fired, or not all resumed
            in_db += 1
        if self.actions_busy.is_set():  # the bulk actions are not both asked and over
            in_db += 1
        # Not terminal in the database, plus (while firing) those not yet created.
        waiting = [firing.remaining for firing in (self.firing, self.digest_firing) if firing]
        unfired = sum(waiting) if waiting else self.config.triggers + self.config.digest_triggers
        return in_db + unfired

    def _wait_terminal(self, deadline: float) -> int:
        """Wait for every trigger to be terminal and every fault injected; return how many are
        still not terminal at the deadline."""
        assert self.injector is not None
        last_report = 0.0
        in_flight: int | None = None
        while time.monotonic() < deadline:
            in_flight = self._in_flight()
            if in_flight == 0 and not self.injector.is_alive():
                return 0
            if time.monotonic() - last_report > 5:
                last_report = time.monotonic()
                self.say(f"{in_flight} trigger(s) not terminal yet")
            time.sleep(0.5)
        self._stop_injector()
        return in_flight if in_flight is not None else self.config.triggers

    def _wait_webhooks(self, deadline: float) -> None:
        """Wait (until `deadline`) for every webhook delivery to be settled: delivered, or failed
        for good. Those still pending are counted with the rest (Webhooks.unsettled)."""
        last_report = 0.0
        while time.monotonic() < deadline:
            try:
                rows = self._query("SELECT count(*) FROM webhook_delivery WHERE status = 'pending'")
                pending: int | None = int(rows[0][0])
            except psycopg.Error:
                pending = None
            if pending == 0 and self.receiver.listening:
                return
            if time.monotonic() - last_report > 5:
                last_report = time.monotonic()
                self.say(f"{pending} webhook deliveries pending")
            time.sleep(0.5)

    def _died_by_themselves(self) -> list[str]:
        assert self.pool is not None
        died = self.died + self.pool.replace_the_dead(replace=False)
        for kind in ("web", "beat"):
            died += [p.name for p in self.stacks[kind].processes if p.popen.poll() is not None]
        return died

    def _sms_outbox(self) -> list[dict[str, Any]]:
        outbox = self.logs / "sms.jsonl"
        if not outbox.exists():
            return []
        return [json.loads(line) for line in outbox.read_text().splitlines() if line.strip()]
