"""`make bench [ARGS="..."]` = `python -m bench [...]`: run the figures, print the table, write
BENCHMARKS.md. See `python -m bench --help` and BENCHMARKS.md.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import signal
import sys
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

from bench import infra
from bench.report import Row, table, write_benchmarks

PARTS = (
    "queries",
    "engine",
    "baseline",
    "floor",
    "dblimit",
    "pools",
    "intake",
    "metrics",
    "content",
    "fetch",
    "fanout",
    "fanout_e2e",
    "schedules",
    "streams",
    "brokers",
    "curve",
    "publish",
    "delays",
    "memory",
    "scale",
    "funnel",
    "purge",
    "explain",
    "link",
)
# What `make bench` runs without --only: every part but the pool comparison, which runs the
# engine and the floor under eight arrangements (BENCHMARKS.md; about 7 minutes at K = 2000).
DEFAULT_PARTS = tuple(part for part in PARTS if part != "pools")
# fanout_e2e's urgent workflow: where it runs (--fanout-urgent; bench/fanout_e2e.py); the first is
# the default, the Procfile's.
URGENT_LAYOUTS = ("own", "shared", "own-nice")
QUICK = {
    "triggers": 300,
    "intake_requests": 1000,
    "publish_messages": 1000,
    "delays": 100,
    "scale_triggers": 50_000,
    "funnel_triggers": 50_000,
    "purge_runs": 20_000,
    "memory_steps": 3000,
    "curve_triggers": 300,
    "fanout_subscribers": 10_000,
    "link_triggers": 300,
    "link_warmup": 50,
}


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(prog="make bench ARGS=", description=__doc__)
    parser.add_argument("--quick", action="store_true", help=f"small sizes: {QUICK}")
    parser.add_argument("--triggers", type=int, default=5000, help="K for engine/baseline/dblimit")
    parser.add_argument("--intake-requests", type=int, default=5000)
    parser.add_argument("--publish-messages", type=int, default=5000)
    parser.add_argument("--delays", type=int, default=500, help="per path (below/above the cap)")
    parser.add_argument("--scale-triggers", type=int, default=1_000_000, help="x3 step logs")
    parser.add_argument(
        "--funnel-triggers",
        type=int,
        default=1_000_000,
        help="runs of the funnel's history (x3 steps, sends and ~x4 reports)",
    )
    parser.add_argument(
        "--purge-runs",
        type=int,
        default=200_000,
        help="finished runs purge_logs takes beside the engine, each way (x3 step logs)",
    )
    parser.add_argument(
        "--purge-duty-cycle",
        type=float,
        default=0.1,
        help="purge's paced case: purge_logs --duty-cycle, on that share of --purge-runs",
    )
    parser.add_argument("--memory-steps", type=int, default=100_000)
    parser.add_argument(
        "--fanout-subscribers",
        type=int,
        default=100_000,
        help="the topic fanned out (and the bulk baseline's triggers; fanout_e2e's too); memory "
        "also at a tenth",
    )
    parser.add_argument(
        "--fanout-urgent",
        choices=URGENT_LAYOUTS,
        default=URGENT_LAYOUTS[0],
        help="fanout_e2e's urgent workflow: keyed urgent.<name>, on the Procfile's `urgent` "
        "worker (own, as deployed), on the standard worker's queue (shared), or on its own worker "
        "with the standard worker at nice 10 (own-nice)",
    )
    parser.add_argument(
        "--curve-triggers", type=int, default=2000, help="per point of the scaling curve (7 points)"
    )
    parser.add_argument(
        "--link-triggers", type=int, default=2000, help="single-email triggers per link run"
    )
    parser.add_argument(
        "--link-layouts",
        default="standard",
        help="comma list of worker arrangements over the link (bench/linkrun.py); empty: the "
        "instant provider's run alone, without the link's plain programs",
    )
    parser.add_argument(
        "--link-warmup",
        type=int,
        default=300,
        help="single-email triggers each link run's workers send first, unmeasured [300]",
    )
    parser.add_argument(
        "--link-near",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="each layout's sends also to the same sinks with no delay: link/near, what the 20 ms "
        "cost apart from what a real send costs [on]",
    )
    parser.add_argument(
        "--only",
        default=",".join(DEFAULT_PARTS),
        help=f"comma list of {','.join(PARTS)} [all but pools]",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="rounds of engine/baseline/dblimit/intake/streams/metrics/content/fetch, and of fanout's two sides",
    )
    parser.add_argument(
        "--tracing",
        choices=("off", "on", "alternate"),
        default="off",
        help="OpenTelemetry in the processes started (bench/tracing.py): alternate is off, on, "
        "off, on… by round (with --repeat)",
    )
    parser.add_argument(
        "--profile",
        choices=("wall", "cpu"),
        help="py-spy the worker (engine) and gunicorn (intake): wall clock or CPU only",
    )
    parser.add_argument("--keep", action="store_true", help="keep the bench databases afterwards")
    parser.add_argument("--no-write", action="store_true", help="do not update BENCHMARKS.md")
    parser.add_argument("--db-prefix", default="notiflow_bench")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14", help="flushed!")
    parser.add_argument(
        "--broker",
        choices=("redis", "rabbitmq"),
        default="redis",
        help="Redis (--redis-url) or RabbitMQ (--rabbitmq-url, vhost <db-prefix>, remade)",
    )
    parser.add_argument("--rabbitmq-url", default="amqp://guest:guest@127.0.0.1:5672")
    parser.add_argument(
        "--summary-json", help="write the engine and intake figures here (the brokers part)"
    )
    parser.add_argument("--port", type=int, default=None, help="gunicorn [NOTIFLOW_PORT or 8013]")
    parser.add_argument(
        "--web",
        choices=("asgi", "wsgi"),
        default="asgi",
        help="intake's web process: the Procfile's (asgi) or the earlier gthread/WSGI one",
    )
    args = parser.parse_args(argv)
    if args.quick:
        for name, value in QUICK.items():
            if getattr(args, name) == parser.get_default(name):
                setattr(args, name, value)
    args.parts = [p.strip() for p in args.only.split(",") if p.strip()]
    args.link_layouts = [p.strip() for p in args.link_layouts.split(",") if p.strip()]
    unknown = set(args.parts) - set(PARTS)
    if unknown:
        parser.error(
            f"unknown part(s) {', '.join(sorted(unknown))}; choose from {', '.join(PARTS)}"
        )
    from bench.link import LAYOUT_NAMES

    if bad := set(args.link_layouts) - set(LAYOUT_NAMES):
        parser.error(f"unknown link layout(s) {', '.join(sorted(bad))}")
    return args


def say(message: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {message}", flush=True)


class Bench:
    def __init__(self, args: argparse.Namespace, config: infra.Config):
        self.args = args
        self.config = config
        self.procs = infra.Processes(config)
        self.r: dict[str, Any] = {}

    def cmd(self, only: str, **sizes: Any) -> str:
        flags = " ".join(f"--{k.replace('_', '-')} {v}" for k, v in sizes.items())
        return f'make bench ARGS="--only {only} {flags}"'.replace(' "', '"').strip()

    # --- set-up ---------------------------------------------------------------------------------

    def setup(self) -> None:
        say(
            f"databases {self.config.db_prefix}_* on {self.config.server_url}, Redis "
            f"{self.config.redis_url}, broker {self.config.broker_url}"
        )
        infra.database_template(self.config)
        infra.database_clone(self.config, source="template", target="engine")
        os.environ.update(infra.base_env(self.config, "engine"))
        os.environ.pop("EMAIL_URL", None)
        import django

        django.setup()
        from bench.fixtures import ENGINE_DEFINITION, workflow_new
        from triggers.api_keys import api_key_create

        self.api_key = api_key_create(name="bench", scope="admin")[1]
        self.intake_workflow = workflow_new("intake", ENGINE_DEFINITION)
        self.sql_workflow = workflow_new("sql", ENGINE_DEFINITION)
        self.sql_version = self.sql_workflow.current_version_id or 0
        from django.db import connections

        connections.close_all()
        infra.database_clone(self.config, source="engine", target="sql")
        if "scale" in self.args.parts:
            infra.database_clone(self.config, source="engine", target="scale")
        if "funnel" in self.args.parts:
            infra.database_clone(self.config, source="engine", target="funnel")
        infra.redis_flush(self.config)

    def teardown(self) -> None:
        self.procs.stop_all()
        from django.db import connections

        connections.close_all()
        infra.redis_flush(self.config)
        if not self.args.keep:
            for part in ("engine", "sql", "scale", "funnel", "template"):
                infra.database_drop(self.config, part)
            if self.config.rabbitmq_vhost:
                infra.rabbitmq_vhost_delete(self.config.rabbitmq_vhost)

    # --- the figures ----------------------------------------------------------------------------

    def run(self) -> None:
        parts, a = self.args.parts, self.args
        if "queries" in parts:
            from bench.engine import queries_per_step

            say("queries per step (traced worker, 50 triggers)")
            self.r["queries"] = queries_per_step(self.procs, triggers=50)
        from bench.tracing import OtlpSink, tracing_env_set, tracing_round

        sink = OtlpSink() if a.tracing != "off" else None
        for round_ in range(a.repeat):
            traced = tracing_round(a.tracing, round_)
            tracing_env_set(sink, traced)
            if sink is not None:
                say(f"round {round_ + 1}: tracing {'on' if traced else 'off'}")
            if "engine" in parts:
                from bench.engine import engine_run

                say(f"engine: {a.triggers} triggers x 3 steps (round {round_ + 1})")
                profile = (
                    self.config.workdir / f"profile-engine-{round_}.txt" if a.profile else None
                )
                self.r.setdefault("engine", []).append(
                    engine_run(
                        self.procs, triggers=a.triggers, tag=f"engine{round_}", profile_to=profile
                    )
                )
                say(f"  {self.r['engine'][-1]}")
                if profile is not None and profile.exists():
                    from bench.profile import summarise

                    summary = profile.with_suffix(".summary.txt")
                    summary.write_text(summarise(profile))
                    say(f"  profile: {summary}")
            if "baseline" in parts:
                from bench.baseline import baseline_run

                say(f"baseline: {a.triggers} Celery chains x 3 hops (round {round_ + 1})")
                self.r.setdefault("baseline", []).append(
                    baseline_run(self.procs, chains=a.triggers)
                )
                say(f"  {self.r['baseline'][-1]}")
            if "floor" in parts:
                self.run_floor()
            if "dblimit" in parts:
                self.run_dblimit()
            if "intake" in parts:
                self.run_intake()
            if "streams" in parts:
                self.run_streams()
            if "metrics" in parts:
                from bench.metrics_cost import metrics_cost_run

                self.r.setdefault("metrics", []).append(metrics_cost_run(self, say, round_=round_))
            if "content" in parts:
                from bench.content_cost import content_cost_run

                self.r.setdefault("content", []).append(content_cost_run(self, say, round_=round_))
            if "fetch" in parts:
                from bench.fetch_cost import fetch_cost_run

                self.r.setdefault("fetch", []).append(fetch_cost_run(self, say, round_=round_))
        tracing_env_set(sink, False)
        if sink is not None:
            say(f"tracing: {sink.exports} exports, {sink.received_bytes} bytes received")
            sink.stop()
        if "fanout" in parts:
            self.run_fanout()
        if "fanout_e2e" in parts:
            from bench.fanout_e2e import fanout_e2e_run

            self.r["fanout_e2e"] = fanout_e2e_run(self, say)
        if "schedules" in parts:
            from bench.schedules import schedules_run

            self.r["schedules"] = schedules_run(self, say)
        if "brokers" in parts:
            from bench.brokers import brokers_run

            self.r["brokers"] = brokers_run(self, say)
            say(f"  {self.r['brokers']}")
        if "curve" in parts:
            from bench.curve import curve_run

            self.r["curve"] = curve_run(self, say)
        if "link" in parts:
            from bench.linkrun import link_run

            self.r["link"] = link_run(self, say)
        if "pools" in parts:
            from bench.pools import pools_run

            self.r["pools"] = pools_run(self, say)
        if "publish" in parts:
            from bench.publish import publish_run

            say(
                f"publish: {a.publish_messages} nudges, direct writer vs send_task (two transports)"
            )
            self.r["publish"] = publish_run(self.config.redis_url, messages=a.publish_messages)
            say(f"  {self.r['publish']}")
        if "delays" in parts:
            from bench.delays import delays_run

            for above in (False, True):
                say(f"delays: {a.delays} {'above' if above else 'below'} the countdown cap")
                self.r.setdefault("delays", []).append(
                    delays_run(self.procs, count=a.delays, above_cap=above)
                )
                say(f"  {self.r['delays'][-1]}")
        if "memory" in parts:
            from bench.engine import memory_run

            say(f"memory: {a.memory_steps} steps")
            self.r["memory"] = memory_run(self.procs, steps=a.memory_steps)
            say(f"  {self.r['memory']}")
        if "scale" in parts:
            self.run_scale()
        if "funnel" in parts:
            self.run_funnel()
        if "purge" in parts:
            from bench.purgerun import purge_part_run

            self.r["purge"] = purge_part_run(self, say)
        if "explain" in parts:
            self.run_explain()

    def run_floor(self) -> None:
        from bench.floor import floor_run

        say(f"floor: {self.args.triggers} x 3 hops of engine SQL in a plain Celery chain")
        run = floor_run(
            self.procs,
            url=self.config.db_url("sql"),
            workflow=self.sql_workflow.pk,
            version=self.sql_version,
            triggers=self.args.triggers,
        )
        self.r.setdefault("floor", []).append(run)
        say(f"  {run}")

    def run_dblimit(self) -> None:
        from django.conf import settings

        from bench.dblimit import dblimit_run, engine_statements

        say(f"database limit: {self.args.triggers} x 3 steps of engine SQL from plain psycopg")
        run = dblimit_run(
            self.config.db_url("sql"),
            sql=engine_statements(),
            workflow=self.sql_workflow.pk,
            version=self.sql_version,
            triggers=self.args.triggers,
            processes=settings.CELERY_WORKER_CONCURRENCY,
        )
        self.r.setdefault("dblimit", []).append(run)
        say(f"  {run}")

    def run_intake(self) -> None:
        from bench.cpu import CpuMeter, backends, children, redis_group
        from bench.intake import (
            BULK_BATCH,
            BULK_CLIENTS,
            RECIPIENTS,
            bulk_http_run,
            http_run,
            recipients_load,
            sql_run,
        )
        from bench.profile import Profiler, summarise

        n = self.args.intake_requests
        say(f"intake: {n} POST /api/triggers/ from 16 clients (gunicorn, {self.args.web})")
        # On the `sql` copy, where no worker runs: the engine figures never see these triggers.
        web = self.procs.web(self.args.web, DATABASE_URL=self.config.db_url("sql"))
        profile = self.config.workdir / "profile-intake.txt" if self.args.profile else None
        profiler = Profiler(web, profile, idle=self.args.profile == "wall") if profile else None
        sql_db = self.config.db_name("sql")
        server = self.config.server_url
        groups = {
            "gunicorn (master and workers)": lambda: [web.pid, *children(web.pid)],
            "postgres backends": lambda: backends(server, sql_db),
            **redis_group(self.config.redis_url),
        }

        def metered(run, **size):  # type: ignore[no-untyped-def]
            meter = CpuMeter(groups)
            meter.start()
            result = run(
                port=self.config.port,
                api_key=self.api_key,
                workflow_key=self.intake_workflow.key,
                **size,
            )
            return replace(result, cpu=meter.stop())

        try:
            http = metered(http_run, requests=n)
            say(f"  {http}")
            # Issue 33's A/B, right after the inline side on the same gunicorn: each request
            # names a recipient by id instead of carrying the address in its payload.
            if not self.r.get("intake_http_recipient"):
                recipients_load(self.config.db_url("sql"))
            say(f"intake: {n} POST /api/triggers/ naming a recipient (of {RECIPIENTS:,})")
            named = metered(http_run, requests=n, recipient=True)
            say(f"  {named}")
            self.r.setdefault("intake_http_recipient", []).append(named)
            say(
                f"intake: {n} triggers by POST /api/triggers/bulk/, {BULK_BATCH} a request from "
                f"{BULK_CLIENTS} clients (the same gunicorn)"
            )
            bulk = metered(bulk_http_run, triggers=n)
            say(f"  {bulk}")
        finally:
            if profiler:
                profiler.stop()
            self.procs.stop(web)
        if profile is not None and profile.exists():
            summary = profile.with_suffix(".summary.txt")
            summary.write_text(summarise(profile, inside=r"handle_request"))
            say(f"  profile: {summary}")
        say(f"intake: {n} insert-or-return from 16 plain psycopg connections")
        meter = CpuMeter({"postgres backends": lambda: backends(server, sql_db)})
        meter.start()
        sql = sql_run(
            url=self.config.db_url("sql"),
            workflow_key=self.sql_workflow.key,
            workflow=self.sql_workflow.pk,
            requests=n,
            on_done=meter.stop,
        )
        sql = replace(sql, cpu=meter.spent)
        say(f"  {sql}")
        say(f"intake: {n} insert-or-return from plain psycopg, the statement without the registry")
        unchecked = sql_run(
            url=self.config.db_url("sql"),
            workflow_key=self.sql_workflow.key,
            workflow=self.sql_workflow.pk,
            requests=n,
            registry_check=False,
        )
        say(f"  {unchecked}")
        say(f"intake: {n} insert-or-return from plain psycopg, each run for a recipient by id")
        meter = CpuMeter({"postgres backends": lambda: backends(server, sql_db)})
        meter.start()
        named_sql = sql_run(
            url=self.config.db_url("sql"),
            workflow_key=self.sql_workflow.key,
            workflow=self.sql_workflow.pk,
            requests=n,
            on_done=meter.stop,
            recipient=True,
        )
        named_sql = replace(named_sql, cpu=meter.spent)
        say(f"  {named_sql}")
        self.r.setdefault("intake_sql_recipient", []).append(named_sql)
        self.r.setdefault("intake_http", []).append(http)
        self.r.setdefault("intake_bulk", []).append(bulk)
        self.r.setdefault("intake_sql", []).append(sql)
        self.r.setdefault("intake_sql_unchecked", []).append(unchecked)
        infra.redis_flush(self.config)  # the nudges of the intake triggers: no worker ran them

    def run_fanout(self) -> None:
        """A topic fanned out against bulk intake of as many triggers (bench/fanout.py), on the
        `sql` copy where no worker runs; memory at a tenth of the audience and at all of it."""
        from bench.fanout import audience_load, child_run

        n = self.args.fanout_subscribers
        env = infra.base_env(self.config, "sql")
        url = self.config.db_url("sql")
        runs = []
        for size in (n // 10, n):
            topic = f"bench-topic-{size}-{os.getpid()}-{len(self.r.get('fanout', []))}"
            say(f"fanout: loading a topic of {size:,} subscribers")
            audience_load(url, topic_key=topic, size=size)
            # Alternated, --repeat rounds at the full audience: a change in the machine's load
            # hits both sides of the ratio alike.
            sides = ("bulk", "fanout") * self.args.repeat if size == n else ("fanout",)
            for side in sides:
                say(f"fanout: {side}, {size:,} runs")
                runs.append(child_run(env, side, self.sql_workflow.key, topic, size))
                say(f"  {runs[-1]}")
        self.r.setdefault("fanout", []).append(runs)
        infra.redis_flush(self.config)  # the runs' nudges: no worker ran them

    def run_streams(self) -> None:
        """Intake with STREAMS open inbox streams against without, on one gunicorn: STREAM_ROUNDS
        alternations (without then with, then with then without, ...), each intake run metered
        (CPU per request of gunicorn, PostgreSQL and Redis), so that the machine's changing load
        hits both sides alike; the row gives the ratio of the medians."""
        from bench.cpu import CpuMeter, backends, children, redis_group
        from bench.intake import http_run
        from bench.streams import STREAM_ROUNDS, STREAMS, OpenStreams, streams_opened
        from inbox.tokens import recipient_token

        n = self.args.intake_requests
        say(
            f"streams: intake ({n} POST /api/triggers/) without and with {STREAMS} open streams, "
            f"{STREAM_ROUNDS} alternations"
        )
        web = self.procs.web(self.args.web, DATABASE_URL=self.config.db_url("sql"))
        sql_db, server = self.config.db_name("sql"), self.config.server_url
        groups = {
            "gunicorn (master and workers)": lambda: [web.pid, *children(web.pid)],
            "postgres backends": lambda: backends(server, sql_db),
            **redis_group(self.config.redis_url),
        }
        headers = [f"Recipient bench-{i}:{recipient_token(f'bench-{i}')}" for i in range(STREAMS)]

        def intake() -> object:
            meter = CpuMeter(groups)
            meter.start()
            run = http_run(
                port=self.config.port,
                api_key=self.api_key,
                workflow_key=self.intake_workflow.key,
                requests=n,
            )
            return replace(run, cpu=meter.stop())

        def with_streams() -> tuple[object, object]:
            streams = OpenStreams(port=self.config.port, headers=headers)
            try:
                run = streams_opened(
                    streams,
                    web_pids=lambda: [web.pid, *children(web.pid)],
                    backends=lambda: backends(server, sql_db),
                )
                say(f"  {run}")
                measured = intake()
                say(f"  with them open: {measured}")
                return run, measured
            finally:
                streams.close()

        try:
            for round_ in range(STREAM_ROUNDS):
                if round_ % 2 == 0:
                    without = intake()
                    say(f"  without streams: {without}")
                    run, measured = with_streams()
                else:
                    run, measured = with_streams()
                    without = intake()
                    say(f"  without streams: {without}")
                self.r.setdefault("streams", []).append((run, without, measured))
        finally:
            self.procs.stop(web)

    def run_scale(self) -> None:
        """History in the `scale` copy; the admin charts of its last 24 hours (bench/charts.py);
        engine runs alternate between it and the empty `engine` database, so that a change in
        the machine's load hits both sides of the ratio alike."""
        from bench.engine import engine_run
        from bench.fixtures import ENGINE_DEFINITION, use_database, workflow_new
        from bench.scale import history_load, table_sizes

        n, url = self.args.scale_triggers, self.config.db_url("scale")
        use_database(self.config.db_name("scale"))
        history = workflow_new("history", ENGINE_DEFINITION)
        say(f"scale: loading {n:,} completed triggers and {3 * n:,} step logs")
        seconds = history_load(
            url, workflow=history.pk, version=history.current_version_id or 0, triggers=n
        )
        self.r["scale_sizes"] = table_sizes(url)
        say(f"  loaded in {seconds:.0f}s: {self.r['scale_sizes']}")
        self.r["scale_workflow"] = history
        from bench.charts import CHARTS_REPEAT, charts_run

        say(f"scale: the admin charts of `history`'s last 24 h, {CHARTS_REPEAT} times each way")
        self.r["scale_charts"] = charts_run(history, repeat=CHARTS_REPEAT)
        say(f"  {self.r['scale_charts']}")
        for round_ in range(self.args.repeat):
            for database, key in (("engine", "scale_empty"), ("scale", "scale")):
                say(
                    f"scale: engine on `{database}`, {self.args.triggers} triggers (round {round_ + 1})"
                )
                self.r.setdefault(key, []).append(
                    engine_run(
                        self.procs,
                        triggers=self.args.triggers,
                        tag=f"{key}{round_}",
                        database=database,
                    )
                )
                say(f"  {self.r[key][-1]}")

    def run_funnel(self) -> None:
        """The funnel's history in its own database, counted by the migration's backfill (the
        reports) and the sweep (the steps); its last 24 hours read; then the writers' cost of
        the rollup and the sweep's (bench/funnel.py)."""
        from bench.fixtures import ENGINE_DEFINITION, use_database, workflow_new
        from bench.funnel import (
            FUNNEL_REPEAT,
            WRITERS_TRIGGERS,
            WritersRun,
            funnel_backfill,
            funnel_history_load,
            funnel_run,
            funnel_sweep_all,
        )

        n, url = self.args.funnel_triggers, self.config.db_url("funnel")
        use_database(self.config.db_name("funnel"))

        def load(tag: str, runs: int, *, rollup: bool) -> tuple[Any, float]:
            workflow = workflow_new(tag, ENGINE_DEFINITION)
            version = workflow.current_version_id or 0
            return workflow, funnel_history_load(
                url, workflow=workflow.pk, version=version, triggers=runs, rollup=rollup
            )

        say(f"funnel: loading {n:,} runs, their steps, sends and reports")
        history, seconds = load("funnel", n, rollup=False)
        backfill = funnel_backfill(url)
        say(
            f"  loaded in {seconds:.0f}s, counted in {backfill:.0f}s; the 24 h funnel, {FUNNEL_REPEAT} times"
        )
        self.r["funnel"] = funnel_run(history, load_seconds=seconds, backfill_seconds=backfill)
        say(f"  {self.r['funnel']}")
        say(f"  plan:\n{self.r['funnel'].plan}")
        runs = min(n, WRITERS_TRIGGERS)
        say(f"funnel: the writers' cost, {runs:,} runs loaded without the rollup, then through it")
        _, without = load("funnel-raw", runs, rollup=False)
        _, with_rollup = load("funnel-rollup", runs, rollup=True)
        sweep = funnel_sweep_all(url)
        self.r["funnel_writers"] = WritersRun(runs, without, with_rollup, sweep)
        say(f"  {self.r['funnel_writers']}")
        use_database(self.config.db_name("engine"))

    def run_explain(self) -> None:
        from bench.explain import plans

        say("EXPLAIN (ANALYZE, BUFFERS) of the hot queries")
        from bench.fixtures import use_database

        use_database(self.config.db_name("scale" if "scale_workflow" in self.r else "engine"))
        found = plans(self.r.get("scale_workflow") or self.intake_workflow)
        out = self.config.workdir / "explain.txt"
        out.write_text("\n\n".join(f"== {p.name}\n{p.text}" for p in found))
        self.r["explain"] = found
        say(f"  plans written to {out}")

    # --- the table ------------------------------------------------------------------------------

    def rows(self) -> list[Row]:
        from bench.rows import rows

        return rows(self)


def _stop(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")  # so that teardown stops what the bench started


def main(argv: list[str]) -> int:
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)  # also when started in the background, which ignores it
    args = parse_args(argv)
    config = infra.Config.from_env(
        db_prefix=args.db_prefix,
        redis_url=args.redis_url,
        port=args.port,
        rabbitmq_url=args.rabbitmq_url if args.broker == "rabbitmq" else None,
    )
    bench = Bench(args, config)
    started = time.monotonic()
    try:
        bench.setup()
        machine = infra.machine_description(config)
        bench.run()
    finally:
        bench.teardown()
    from bench.rows import notes

    body = table(bench.rows()) + "\n" + "\n".join(notes(bench))
    print()
    print("\n".join(f"{k}: {v}" for k, v in machine.items()))
    print()
    print(body)
    say(f"done in {time.monotonic() - started:.0f}s")
    if args.summary_json:
        from bench.brokers import summary

        Path(args.summary_json).write_text(json.dumps(summary(bench.r)))
    if bench.r.get("curve"):
        from bench.curve import curve_chart

        chart = (infra.ROOT if not args.no_write else config.workdir) / "BENCHMARKS-scaling.png"
        curve_chart(bench.r["curve"], chart, title=f'make bench ARGS="{shlex.join(argv)}"')
        say(f"scaling chart: {chart}")
    if not args.no_write:
        write_benchmarks(
            infra.ROOT / "BENCHMARKS.md", machine=machine, body=body, args=shlex.join(argv)
        )
        say("BENCHMARKS.md updated")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
