"""One fault's run: PostgreSQL, Redis, the web process and the workers each in their namespace,
the triggers fired, the fault done and undone, and the count (the chaos run's tally).

The harness process itself runs in the web namespace (hosts/__main__.py puts it there): the
SMTP server it runs listens on the web machine's address, gunicorn on the web machine's
loopback, and PostgreSQL is reached over the bridge like everyone else.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

import requests

from chaos.common import Harness, cleanup, not_terminal, query, stacks_up
from chaos.fire import Firing, trigger_body
from chaos.harness import ENGINE_TIMINGS, RATE_LIMITS_OFF, chaos_secret_key, workflow_definition
from chaos.report import ChaosResult, Deliveries
from chaos.services import PostgresCluster, RedisServer
from chaos.tally import tally
from hosts import netns
from hosts.faults import TimedFault, fault_actions
from hosts.plan import FaultPlan, HostsConfig
from hosts.report import HostShare, HostsResult
from tests.support.smtp import SmtpServer
from tests.support.stack import BIN, ROOT, Process, Stack, wait_for

PG_PORT = 5432
REDIS_PORT = 6379
SMTP_PORT = 2525
WEB_PORT = 8000
FENCED = "not recorded: cancelled or lease lost meanwhile"  # workers/services/engine.py _record

# Claims (events into `processing`; the actor is the lease token, "<hostname>:<pid>/<random>"),
# each beside the claim before it on the same trigger: a claim whose reason is "lease expired;
# reclaimed" took over `prior`'s lease.
_CLAIMS = """
SELECT actor, reason LIKE 'lease expired%%',
       lag(actor) OVER (PARTITION BY trigger_id ORDER BY created_at, id)
FROM trigger_event WHERE to_status = 'processing'
"""
# Releases (events out of `processing`) made under the given lease tokens: under a lease that
# was taken over, one is a late write that got through the fence.
_RELEASED_UNDER = """
SELECT count(*) FROM trigger_event WHERE from_status = 'processing' AND actor = ANY(%s)
"""
# Claims made after the fault was undone (a wall-clock time), by host.
_CLAIMS_SINCE = """
SELECT split_part(actor, ':', 1), count(*) FROM trigger_event
WHERE to_status = 'processing' AND created_at > to_timestamp(%s) GROUP BY 1
"""
# The worker beat into the registry after the given wall-clock time: its consumer is up again
# (beats stop while the broker connection is lost) and it reaches PostgreSQL.
_SEEN_SINCE = """
SELECT count(*) FROM worker WHERE name = %s AND stopped_at IS NULL AND last_seen_at > to_timestamp(%s)
"""
BACK_TIMEOUT = 60.0  # seconds, from the restore, for the faulted host to beat again
# Seconds from the given wall-clock time to the host's first claim after it (NULL: none).
_FIRST_CLAIM_SINCE = """
SELECT extract(epoch FROM min(created_at))::float8 - %(since)s FROM trigger_event
WHERE to_status = 'processing' AND created_at > to_timestamp(%(since)s) AND actor LIKE %(host)s
"""
# The host's leases held now.
_HOLDING = """
SELECT count(*) FROM trigger_instance WHERE status = 'processing' AND leased_by LIKE %s
"""


def numbered_from(offset: int) -> Callable[[int], dict[str, Any]]:
    """Trigger bodies numbered from `offset`: a batch after the first has keys of its own."""
    return lambda index: trigger_body(offset + index)


class HostsRun(Harness):
    """Use as a context manager: every process it started is stopped and its files removed on
    exit, whatever happened. The namespaces are the caller's (hosts/__main__.py)."""

    def __init__(self, config: HostsConfig, plan: FaultPlan, *, started: float):
        self.config = config
        self.plan = plan
        self.started = started
        self.tmp = Path(tempfile.mkdtemp(prefix=f"notiflow-hosts-{plan.kind}-"))
        self.tmp.chmod(0o755)  # the cluster runs as `postgres` and must reach its directory
        self.logs = (config.logs / plan.kind) if config.logs else self.tmp / "logs"
        # The logs and SMS outboxes of a previous run in --logs would be counted with this one's.
        shutil.rmtree(self.logs, ignore_errors=True)
        self.logs.mkdir(parents=True)
        self.hosts = netns.worker_hosts(config.hosts)
        self.postgres = PostgresCluster(
            self.tmp / "pg",
            host=netns.DB.address,
            port=PG_PORT,
            trusted=f"{netns.SUBNET}.0/{netns.PREFIXLEN}",
            prefix=tuple(netns.in_namespace(netns.DB, [])),
        )
        self.redis = RedisServer(
            self.tmp / "redis",
            host=netns.MQ.address,
            port=REDIS_PORT,
            prefix=tuple(netns.in_namespace(netns.MQ, [])),
        )
        self.smtp = SmtpServer(host=netns.WEB.address, port=SMTP_PORT)
        self.stacks: dict[str, Stack] = {}
        self.workers: list[Process] = []
        self.api = requests.Session()
        self.firing: Firing | None = None
        self.fault: TimedFault | None = None
        self.terminal_at: float | None = None  # when every fired trigger was first terminal

    def say(self, message: str) -> None:
        if not self.config.quiet:
            elapsed = time.monotonic() - self.started
            print(f"[hosts {elapsed:6.1f}s] {self.plan.kind}: {message}", file=sys.stderr)

    # --- lifecycle ---------------------------------------------------------------------------

    def _env(self, database_url: str) -> dict[str, str]:
        return {
            **os.environ,
            "DJANGO_SETTINGS_MODULE": "notiflow.settings",
            "DJANGO_SECRET_KEY": chaos_secret_key(),
            "DATABASE_URL": database_url,
            "CELERY_BROKER_URL": self.redis.url,
            "EMAIL_URL": f"smtp://{netns.WEB.address}:{SMTP_PORT}",
            "NOTIFLOW_SMS_BACKEND": "file",
            "PYTHONUNBUFFERED": "1",
            **{name: os.environ.get(name, value) for name, value in ENGINE_TIMINGS.items()},
            **RATE_LIMITS_OFF,
            # [10] A worker back from a fault is seen in the registry within 2 s.
            "NOTIFLOW_WORKER_HEARTBEAT_SECONDS": "2",
        }

    def _start(self) -> None:
        self.say(f"services in {self.tmp}, logs in {self.logs}")
        self.postgres.start()
        self.redis.start()
        self.smtp.start()
        owner = self.postgres.url()
        self._manage(owner, "migrate", "--noinput", "-v", "0")
        self._manage(owner, "setup_db_roles", "--no-password")
        api_key = self._manage(owner, "create_api_key", "hosts", "--scope", "admin")
        api_key = api_key.strip().splitlines()[-1]
        for kind in ("web", "worker", "beat"):
            env = self._env(self.postgres.url(user=f"notiflow_{kind}"))
            self.stacks[kind] = Stack(env=env, workdir=self.logs)
        self.stacks["web"].web(WEB_PORT)
        for index, host in enumerate(self.hosts, start=1):
            self.workers.append(self._worker(index, host))
        self.stacks["beat"].beat()
        self.api.headers["Authorization"] = f"Bearer {api_key}"
        wait_for(self._up, timeout=120, interval=0.5, message="web, workers and beat up")
        definition = workflow_definition(self.config.delay_ms)
        created = self.api.post(self.base_url + "/api/workflows/", json=definition, timeout=30)
        if created.status_code != 201:
            raise RuntimeError(f"creating the workflow: {created.status_code} {created.text}")
        self.say(f"up: web + beat on {netns.WEB.address}, {len(self.hosts)} worker hosts")

    def _worker(self, index: int, host: netns.Machine) -> Process:
        argv = [
            *(str(BIN / "celery"), "-A", "notiflow", "worker", "--loglevel=INFO"),
            f"--concurrency={self.config.concurrency}",
            f"--hostname=w{index}@{host.hostname}",
            *("--without-mingle", "--without-gossip"),
        ]
        sms = {"NOTIFLOW_SMS_FILE": str(self.logs / f"sms-{host.hostname}.jsonl")}
        return self.stacks["worker"].spawn(f"w{index}", netns.as_host(host, argv), sms)

    def _manage(self, database_url: str, *args: str) -> str:
        done = subprocess.run(
            [sys.executable, "manage.py", *args],
            cwd=ROOT,
            env=self._env(database_url),
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{done.stderr[-3000:]}")
        return done.stdout

    @property
    def base_url(self) -> str:
        return self.stacks["web"].base_url

    def _up(self) -> bool:
        return stacks_up(self.stacks.values(), self.api, self.base_url, len(self.hosts))

    def close(self) -> None:
        steps = [
            self._stop_fault,  # first: a cut is undone, a frozen worker resumed
            *[stack.stop for stack in reversed(list(self.stacks.values()))],
            self.smtp.stop,
            self.redis.stop,
            self.postgres.stop,
        ]
        cleanup(steps, tag="hosts")
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _stop_fault(self) -> None:
        if self.fault is not None and self.fault.is_alive():
            self.fault.stopping.set()
            self.fault.join(timeout=60)

    # --- the run -----------------------------------------------------------------------------

    def run(self) -> HostsResult:
        config, plan = self.config, self.plan
        result = ChaosResult(triggers=config.triggers, faults_requested={plan.kind: 1})
        victim = self.hosts[plan.host - 1]
        do, undo = fault_actions(plan, victim, self.workers[plan.host - 1])
        self.fault = TimedFault(
            plan,
            do,
            undo,
            in_flight=self._in_flight,
            holding=lambda: self._query(_HOLDING, [f"{victim.hostname}:%"])[0][0],
            clock=lambda: time.monotonic() - self.started,
            say=self.say,
        )
        headers = {"Authorization": str(self.api.headers["Authorization"])}
        self.firing = Firing(base_url=self.base_url, headers=headers, threads=config.fire_threads)
        began = time.monotonic()
        self.fault.start()
        self.firing.fire(config.triggers)
        fired_at = time.monotonic()
        self.say(f"fired {len(self.firing.fired)} trigger(s) in {fired_at - began:.1f}s")
        stuck = self._wait_terminal(began + config.deadline_for(plan))
        drained_at = self.terminal_at or time.monotonic()
        if self.fault.error is not None:
            raise RuntimeError(f"the fault could not be injected: {self.fault.error!r}")
        fired = dict(self.firing.fired)
        retries = self.firing.retries
        back = at_work = None
        after: list[Firing] = []
        if not stuck and self.fault.restored_wall is not None:
            worker = self.workers[plan.host - 1]
            back = self._wait_back(f"{worker.name}@{victim.hostname}")
            at_work, after, stuck = self._back_at_work(victim, headers)
            for firing in after:
                fired.update(firing.fired)
                retries += firing.retries
            result.triggers += config.after * len(after)
        result.died_by_themselves = [
            f"{p.name}: exited {p.popen.returncode}"
            for stack in self.stacks.values()
            for p in stack.processes
            if p.popen.poll() is not None
        ]
        for stack in self.stacks.values():  # graceful: running steps finish, then count
            stack.stop()
        deliveries = Deliveries(
            emails=Counter(
                str(m.message["X-Notiflow-Idempotency-Key"]) for m in self.smtp.handler.received
            ),
            sms=Counter(sms["idempotency_key"] for sms in self._sms_outbox()),
        )
        tally(
            result,
            query=self._query,
            fired=fired,
            digest_fired={},
            faults=self.fault,
            deliveries=deliveries,
            stuck=stuck,
            nodes=len(workflow_definition(config.delay_ms)["nodes"]),
        )
        result.other_faults = {plan.kind: self.fault.count(plan.kind)}
        result.intake_retries = retries
        result.seconds = {
            "firing": fired_at - began,
            "fire to all terminal": drained_at - began,
            "whole run": time.monotonic() - self.started,
        }
        return HostsResult(
            plan=plan,
            chaos=result,
            shares=self._shares(),
            timeline=list(self.fault.log),
            all_terminal=drained_at - self.started if self.terminal_at else None,
            back=back,
            at_work=at_work,
            after=sum(len(firing.fired) for firing in after),
        )

    def _wait_back(self, name: str) -> float | None:
        """Seconds from the restore to the worker `name`'s first beat in the registry after it;
        None when it has not beaten within BACK_TIMEOUT."""
        assert self.fault is not None and self.fault.restored_wall is not None
        restored = self.fault.restored_wall
        deadline = time.monotonic() + BACK_TIMEOUT
        while time.monotonic() < deadline:
            if self._query(_SEEN_SINCE, [name, restored])[0][0]:
                back = time.time() - restored
                self.say(f"{name} beat again {back:.1f}s after the restore")
                return back
            time.sleep(0.2)
        self.say(f"{name} not back {BACK_TIMEOUT:g}s after the restore")
        return None

    def _back_at_work(
        self, victim: netns.Machine, headers: dict[str, str]
    ) -> tuple[float | None, list[Firing], int]:
        """Fire `after` more triggers at a time, each batch once the last is terminal, until the
        faulted host has claimed one of them (or BACK_TIMEOUT has passed since the first): a
        host that beats but takes no work is not back. A batch can come and go while the host
        is still replacing pool processes (see docs/reliability/hosts.md), hence more than one.
        Returns the seconds from the restore to its first claim after it (None: none), the
        batches, and how many triggers are not terminal at the end."""
        assert self.fault is not None and self.fault.restored_wall is not None
        restored = self.fault.restored_wall
        deadline = time.monotonic() + BACK_TIMEOUT
        batches: list[Firing] = []
        stuck = 0
        first: float | None = None
        while first is None and time.monotonic() < deadline and not stuck:
            offset = self.config.triggers + self.config.after * len(batches)
            self.firing = Firing(
                base_url=self.base_url,
                headers=headers,
                threads=self.config.fire_threads,
                body=numbered_from(offset),
            )
            self.firing.fire(self.config.after)
            batches.append(self.firing)
            stuck = self._wait_terminal(time.monotonic() + 60 + 0.15 * self.config.after)
            first = self._query(
                _FIRST_CLAIM_SINCE, {"since": restored, "host": f"{victim.hostname}:%"}
            )[0][0]
        self.say(
            f"{len(batches)} batch(es) of {self.config.after} after the restore; "
            + (f"first claim {first:.1f}s after it" if first is not None else "no claim")
        )
        return first, batches, stuck

    def _shares(self) -> list[HostShare]:
        shares = {host.hostname: HostShare(host.hostname) for host in self.hosts}
        stale: dict[str, list[str]] = {name: [] for name in shares}
        for actor, reclaim, prior in self._query(_CLAIMS):
            share = shares.get(actor.partition(":")[0])
            if share is None:
                continue
            share.claims += 1  # every claim, after the restore too
            if reclaim:
                share.takeovers += 1
                if prior and prior.partition(":")[0] in stale:
                    stale[prior.partition(":")[0]].append(prior)
        restored = self.fault.restored_wall if self.fault else None
        since = dict(self._query(_CLAIMS_SINCE, [restored])) if restored else {}
        for machine, worker in zip(self.hosts, self.workers, strict=True):
            host = machine.hostname
            shares[host].claims_after_restore = since.get(host, 0)
            share = shares[host]
            share.taken_over = len(stale[host])
            share.late_releases = self._query(_RELEASED_UNDER, [stale[host]])[0][0]
            log = worker.log()
            share.fenced = log.count(FENCED)
            share.cut_short = sum(log.count(f"{kind} time limit") for kind in ("Soft", "Hard"))
        return list(shares.values())

    def _query(self, sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        return query(self.postgres.url(), sql, params)

    def _in_flight(self) -> int | None:
        in_db = not_terminal(self.postgres.url())
        if in_db is None:
            return None
        unfired = self.firing.remaining if self.firing else self.config.triggers
        return in_db + unfired

    def _wait_terminal(self, deadline: float) -> int:
        """Until every trigger is terminal and the fault undone; how many are still not terminal
        at the deadline."""
        assert self.fault is not None
        last_report = 0.0
        in_flight: int | None = None
        while time.monotonic() < deadline:
            in_flight = self._in_flight()
            if in_flight == 0 and self.terminal_at is None:
                self.terminal_at = time.monotonic()
            if in_flight == 0 and not self.fault.is_alive():
                return 0
            if time.monotonic() - last_report > 5:
                last_report = time.monotonic()
                self.say(f"{in_flight} trigger(s) not terminal yet")
            time.sleep(0.5)
        self._stop_fault()
        return in_flight if in_flight is not None else self.config.triggers

    def _sms_outbox(self) -> list[dict[str, Any]]:
        messages = []
        for outbox in sorted(self.logs.glob("sms-*.jsonl")):
            lines = outbox.read_text().splitlines()
            messages += [json.loads(line) for line in lines if line.strip()]
        return messages
