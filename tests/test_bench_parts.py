"""The bench's broker choice and scaling curve, without running a benchmark: where the RabbitMQ
run's vhost comes from, and what the curve's table and chart are made of; and the scale part's
chart timing on a tiny history."""

from datetime import timedelta
from pathlib import Path
from types import SimpleNamespace

import pytest
from django.db.models import F, Max

from bench.curve import CurvePoint, curve_chart, curve_medians, curve_table
from bench.infra import Config, base_env


def config(**extra) -> Config:
    return Config.from_env(
        db_prefix="nf_test", redis_url="redis://127.0.0.1:6379/11", port=1, **extra
    )


def test_redis_is_the_broker_unless_rabbitmq_is_asked_for():
    redis_only = config()
    assert redis_only.broker_url == "redis://127.0.0.1:6379/11"
    assert redis_only.rabbitmq_vhost is None
    assert base_env(redis_only)["CELERY_BROKER_URL"] == "redis://127.0.0.1:6379/11"


def test_with_rabbitmq_the_vhost_is_the_bench_prefix_and_redis_stays_the_cache():
    rabbitmq = config(rabbitmq_url="amqp://guest:guest@127.0.0.1:5672/")
    assert rabbitmq.broker_url == "amqp://guest:guest@127.0.0.1:5672/nf_test"
    assert rabbitmq.rabbitmq_vhost == "nf_test"
    env = base_env(rabbitmq)
    assert env["CELERY_BROKER_URL"] == rabbitmq.broker_url
    assert env["NOTIFLOW_CACHE_URL"] == env["NOTIFLOW_REDIS_URL"] == rabbitmq.redis_url


def point(hosts: int, processes: int, rate: float, limit: float) -> CurvePoint:
    return CurvePoint(
        hosts=hosts,
        processes=processes,
        steps_per_second=rate,
        cpu_ms_per_step=4.5,
        postgres_ms_per_step=1.25,
        postgres_cores=rate * 1.25 / 1000,
        machine_cores=1.9,
        sql_limit=limit,
    )


POINTS = [
    point(1, 1, 100, 600),
    point(1, 4, 300, 1200),
    point(2, 8, 310, 0),
]


def test_the_curve_table_has_a_row_per_point_with_the_engine_against_the_sql_limit():
    lines = curve_table([POINTS])
    rows = [line for line in lines if line.startswith("| ") and "---" not in line][1:]
    assert [row.split(" | ")[0] for row in rows] == [
        "| 1 process",
        "| 4 processes",
        "| 2 hosts x 4",
    ]
    assert rows[1].endswith("| 1,200 | 0.25 |")
    assert rows[2].endswith("| - | - |")  # no SQL limit run for the hosts


def test_the_chart_is_a_png(tmp_path: Path):
    chart = tmp_path / "curve.png"
    curve_chart([POINTS, POINTS], chart, title="test")
    assert chart.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_over_several_rounds_each_figure_is_its_median_and_each_round_is_shown():
    rounds = [
        [point(1, 1, 100, 600), point(1, 4, 300, 1200)],
        [point(1, 1, 180, 900), point(1, 4, 280, 1000)],
        [point(1, 1, 150, 700), point(1, 4, 330, 1500)],
    ]
    medians = curve_medians(rounds)
    assert [(p.steps_per_second, p.sql_limit) for p in medians] == [(150, 700), (300, 1200)]
    rows = [line for line in curve_table(rounds) if line.startswith("| 4 processes")]
    assert rows == [rows[0]] and rows[0].startswith("| 4 processes | 300 (300, 280, 330) |")


def test_the_metrics_cost_rows_compare_on_with_off_round_by_round():
    from bench.engine import EngineRun
    from bench.intake import IntakeRun
    from bench.metrics_cost import GUNICORN, POOL, MetricsCostRound
    from bench.rows import _metrics_rows

    def engine(seconds: float, pool_cpu: float) -> EngineRun:
        return EngineRun(
            triggers=100, steps=300, seconds=seconds, enqueue_seconds=1, tasks=300,
            idle_tasks=0, db={}, cpu={POOL: pool_cpu},
        )  # fmt: skip

    def intake(seconds: float, cpu: float) -> IntakeRun:
        return IntakeRun(
            requests=1000, seconds=seconds, p50_ms=1, p99_ms=2, created=1000, existing=0,
            errors=0, cpu={GUNICORN: cpu},
        )  # fmt: skip

    rounds = [
        # engine 1 % slower with metrics on, intake 10 % slower, in both rounds
        MetricsCostRound(engine(10, 3.0), engine(10.1, 3.03), intake(2, 1), intake(2.2, 1.1)),
        MetricsCostRound(engine(20, 3.0), engine(20.2, 3.03), intake(4, 1), intake(4.4, 1.1)),
    ]
    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only}")
    args = SimpleNamespace(triggers=100, intake_requests=1000)

    engine_row, intake_row = _metrics_rows(bench, {"metrics": rounds}, args)

    assert engine_row.ratio.startswith("0.99") and engine_row.met is True
    assert "pool CPU ms/step on 10.10" in engine_row.result
    assert intake_row.ratio.startswith("0.91") and intake_row.met is False
    assert _metrics_rows(bench, {}, args) == []
    # Issue 44: intake 10 % slower by req/s in a round (the machine's load), its CPU per request
    # the same: met, judged by the CPU the metrics add.
    noisy = [MetricsCostRound(engine(10, 3.0), engine(10, 3.0), intake(2, 1), intake(2.2, 1.0))]
    _, intake_row = _metrics_rows(bench, {"metrics": noisy}, args)
    assert intake_row.met is True
    assert (
        intake_row.ratio.startswith("0.91")
        and "by gunicorn CPU ms/request 1.00" in intake_row.ratio
    )


def test_the_recipient_row_is_judged_by_server_cpu_per_request():
    """Issue 44: the row had a target and no verdict. Req/s moves with how the clients spread
    over gunicorn's workers; the server's CPU per request is what a recipient could add."""
    from bench.intake import IntakeRun
    from bench.rows import _recipient_rows

    def intake(seconds: float, cpu: float) -> IntakeRun:
        return IntakeRun(
            requests=1000, seconds=seconds, p50_ms=1, p99_ms=2, created=1000, existing=0,
            errors=0, cpu={"gunicorn": cpu},
        )  # fmt: skip

    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only}")
    args = SimpleNamespace(intake_requests=1000)
    # Slower by req/s (the spread of clients), the same CPU per request: met.
    (row,) = _recipient_rows(
        bench, {"intake_http": [intake(2, 3.0)], "intake_http_recipient": [intake(3, 3.05)]}, args
    )
    assert row.met is True and row.ratio.startswith("recipient/inline 0.67")
    # 10 % more CPU per request: not met.
    (row,) = _recipient_rows(
        bench, {"intake_http": [intake(2, 3.0)], "intake_http_recipient": [intake(2, 3.3)]}, args
    )
    assert row.met is False


def test_the_fanout_row_gives_postgresqls_share_and_the_wal_of_a_run():
    """Issue 51 §5: the capacity model (docs/performance/capacity.md) needs a fan-out run's
    PostgreSQL CPU and WAL, not only the three processes' CPU together."""
    from bench.fanout import FanoutRun
    from bench.rows import _fanout_rows

    def run(side: str, database: float, wal: int) -> FanoutRun:
        return FanoutRun(
            side=side, audience=1000, created=1000, seconds=0.1, max_rss_mb=100,
            cpu_seconds=0.2, database_cpu_seconds=database, wal_bytes=wal,
        )  # fmt: skip

    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only}")
    rounds = [[run("fanout", 0.05, 900_000), run("bulk", 0.08, 2_000_000)]]
    (row,) = _fanout_rows(bench, {"fanout": rounds}, SimpleNamespace(fanout_subscribers=1000))
    assert "of which its PostgreSQL backend 0.050 vs 0.080" in row.result
    assert "WAL bytes per run 900 vs 2,000" in row.result
    assert "the backend 0.050), WAL 900 bytes a run" in str(rounds[0][0])


@pytest.mark.django_db
def test_the_scale_parts_charts_time_the_panel_uncached_and_cached_at_the_historys_end():
    """The `scale` part's chart figure on a tiny history: the part loads 1,000,000 runs with
    bench.scale's statement; this runs that statement for 300, in the test's transaction."""
    from django.core.cache import cache
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from bench.charts import charts_run
    from bench.rows import _scale_memory_rows
    from tests.support.history import tiny_history
    from triggers.charts import workflow_charts_cache_key
    from triggers.models import TriggerInstance

    history = tiny_history(300)
    # 300 runs, one every 2 s, all within the last 24 h of the history; but one moved to a day
    # before the history began, out of the window.
    TriggerInstance.objects.filter(workflow=history, idempotency_key="history-1").update(
        completed_at=F("completed_at") - timedelta(days=1)
    )

    with CaptureQueriesContext(connection) as queries:
        run = charts_run(history, repeat=2)

    # Each uncached draw queried the runs, each cached one did not.
    assert sum("percentile_cont" in q["sql"].lower() for q in queries.captured_queries) == 2
    assert run.window_runs == 299
    assert len(run.uncached_ms) == len(run.cached_ms) == 2
    assert all(ms > 0 for ms in run.uncached_ms + run.cached_ms)
    end = TriggerInstance.objects.filter(workflow=history).aggregate(end=Max("completed_at"))["end"]
    assert cache.get(workflow_charts_cache_key(workflow=history, now=end)) is None

    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only}")
    args = SimpleNamespace(scale_triggers=300, triggers=50)
    [row] = _scale_memory_rows(bench, {"scale_charts": run}, args)
    assert row.figure.startswith("6. admin charts")
    assert row.result.startswith("uncached ") and " cached " in row.result
    assert "299 runs in the window" in row.result and row.command == "make bench scale"


@pytest.mark.django_db
def test_the_funnel_parts_history_counts_the_same_through_the_triggers_and_the_backfill():
    """The `funnel` part on a tiny history (the part loads 1,000,000 runs): its statements for
    200 runs, once with every trigger off and its reports counted by deliveries migration 0006's
    backfill, once through the reports' row triggers; the steps of both are read past the
    sweep's watermark (no sweep passes this test's open transaction). Both funnels are the
    loader's own arithmetic."""
    from django.db import connection

    from bench.fixtures import ENGINE_DEFINITION
    from bench.funnel import LOAD_SQL, funnel_run, report_backfill
    from bench.rows import _scale_memory_rows
    from tests.factories import WorkflowFactory

    def load(workflow) -> None:
        with connection.cursor() as cursor:
            for statement in LOAD_SQL.split(";\n\n"):
                cursor.execute(
                    statement,
                    {
                        "workflow": workflow.pk,
                        "version": workflow.current_version_id,
                        "first": 1,
                        "last": 200,
                        "prefix": f"funnel-{workflow.pk}-",
                    },
                )

    counted, written = (WorkflowFactory(definition=ENGINE_DEFINITION) for _ in range(2))
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        load(counted)
        cursor.execute("SET LOCAL session_replication_role = origin")
        for statement in report_backfill():
            cursor.execute(statement)
    load(written)

    h = [(i * 7919) % 100 for i in range(1, 201)]
    welcome = {
        "sent": 200,
        "delivered": sum(x >= 3 for x in h),
        "bounced": sum(x < 2 for x in h),
        "opened": sum(3 <= x <= 42 for x in h),
        "clicked": sum(3 <= x <= 10 for x in h),
        "complained": sum(x == 50 for x in h),
        "unsubscribed": sum(x == 51 for x in h),
        "skipped": 0,
        "failed": 0,
    }
    runs = [funnel_run(w, load_seconds=1, backfill_seconds=1, repeat=2) for w in (counted, written)]
    from deliveries.funnel import workflow_funnel
    from triggers.models import TriggerInstance

    for workflow in (counted, written):
        end = TriggerInstance.objects.filter(workflow=workflow).latest("created_at").created_at
        nodes = workflow_funnel(workflow=workflow, since=end - timedelta(days=1), until=end).nodes
        assert [n.node for n in nodes] == ["welcome", "text", "follow_up"]
        assert nodes[0].counts == welcome
        assert (nodes[1].counts["sent"], nodes[1].counts["skipped"]) == (180, 20)
        assert nodes[2].counts["failed"] == 1
    assert runs[0].window_sent == runs[1].window_sent == 200 + 180 + 199
    assert "using funnel_count_once" in runs[1].plan  # the rollup: one range of its index
    bench = SimpleNamespace(cmd=lambda *a, **k: "make bench")
    args = SimpleNamespace(funnel_triggers=200, scale_triggers=0, triggers=0)
    (row,) = _scale_memory_rows(bench, {"funnel": runs[1]}, args)
    assert row.met is True and "200 runs" in row.result


def test_the_instant_emails_send_path_row_leaves_the_triggers_intake_out():
    from bench.cpu import OTHERS, PRODUCER, PRODUCER_BACKEND, WALL
    from bench.engine import EngineRun
    from bench.linkrun import LinkRound, link_rows

    def instant(pool: float, producer: float) -> EngineRun:
        cpu = {
            "worker pool processes": pool,
            "postgres: worker backends": 1.0,
            PRODUCER: producer,
            PRODUCER_BACKEND: 0.5,
            OTHERS: 9.0,
            WALL: 10.0,
        }
        return EngineRun(1000, 1000, 5.0, 1.0, 1000, 0, {}, cpu)

    args = SimpleNamespace(link_triggers=1000, link_warmup=0, link_layouts=[])
    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only} {sizes}", args=args)
    # Send path 2.5 + 1.0 and 3.5 + 1.0 s over 1,000 sends: 3.5 and 4.5 ms; intake 1.5 and 1.0.
    rounds = [LinkRound(instant(2.5, 1.0)), LinkRound(instant(3.5, 0.5))]

    _, send_path = link_rows(bench, rounds)

    assert send_path.result.startswith("4.00 (3.50-4.50, n=2); the trigger's intake")
    assert "1.25 (1.00-1.50, n=2) more: 5.25 (5.00-5.50, n=2) in all" in send_path.result
    assert send_path.target == "<= 4.5" and send_path.met is True
    rounds.append(LinkRound(instant(4.5, 0.5)))  # 3.5, 4.5 and 5.5 ms: the median at the target
    assert link_rows(bench, rounds)[1].met is True
    rounds.append(LinkRound(instant(5.5, 0.5)))  # and 6.5 ms: the median 5.0, over it
    assert link_rows(bench, rounds)[1].met is False


@pytest.mark.django_db
def test_the_history_sizes_sum_a_partitioned_table_over_its_partitions():
    from django.db import connection

    from bench.scale import table_sizes

    db = connection.settings_dict
    url = f"postgresql://{db['USER']}@{db['HOST']}:{db['PORT']}/{db['NAME']}"
    sizes = table_sizes(url)

    assert sorted(sizes) == ["send_ledger", "step_log", "trigger_event", "trigger_instance"]
    # The step log and the run events are partitioned: their parents hold nothing, their
    # partitions (a week of them, with their indexes) do.
    assert not sizes["step_log"].endswith(" 0 bytes") and not sizes["trigger_event"].endswith(
        " 0 bytes"
    )


def test_the_link_layouts_the_flag_accepts_are_the_ones_the_part_makes():
    from bench.link import LAYOUT_NAMES
    from bench.linkrun import SMTP_ONLY, _link_runs, link_layouts

    assert sorted(LAYOUT_NAMES) == sorted(link_layouts(8)) and set(SMTP_ONLY) <= set(LAYOUT_NAMES)
    assert _link_runs(True, near=True) == [("smtp", "link"), ("smtp", "near")]
    assert _link_runs(False, near=False) == [("smtp", "link"), ("esp", "link")]


def test_the_link_rows_give_each_layout_against_the_instant_and_the_same_sink_with_no_delay():
    from bench.engine import EngineRun
    from bench.link import PlainRun
    from bench.linkrun import LinkRound, link_rows

    def run(rate: float) -> EngineRun:  # 1,000 sends at `rate` a second
        return EngineRun(1000, 1000, 1000 / rate, 1.0, 1000, 0, {}, {"worker": 4.0})

    def one(instant: float, link: float, near: float, nopipe: float) -> LinkRound:
        return LinkRound(
            run(instant),
            smtp={"standard": run(link), "standard, no pipelining": run(nopipe)},
            esp={"standard": run(link)},
            plain_smtp=PlainRun("smtp", 1000, 8, 1000 / link),
            plain_esp=PlainRun("esp", 1000, 8, 1000 / link),
            near={"smtp": {"standard": run(near)}, "esp": {"standard": run(near)}},
        )

    args = SimpleNamespace(link_triggers=1000, link_warmup=0, link_layouts=["standard"])
    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only} {sizes}", args=args)
    rows = link_rows(bench, [one(500, 200, 250, 100), one(400, 240, 300, 120)])

    by_name = {row.figure: row for row in rows}
    smtp = by_name["link: engine, SMTP STARTTLS 10+10 ms, standard (sends/s)"]
    # link/instant 0.40 and 0.60, link/near 0.80 and 0.80, per round.
    assert smtp.ratio.startswith("link/instant 0.50 (0.40-0.60); link/near 0.80 (0.80-0.80);")
    assert "with no delay 275.0 (250.0-300.0, n=2) sends/s" in smtp.result
    # The SMTP-only layout (pipelining's A/B): no near run, no ESP row.
    nopipe = by_name["link: engine, SMTP STARTTLS 10+10 ms, standard, no pipelining (sends/s)"]
    assert "link/near" not in nopipe.ratio and "with no delay" not in nopipe.result
    assert not [name for name in by_name if "HTTPS" in name and "no pipelining" in name]


def test_the_fanout_rows_say_where_the_urgent_triggers_ran():
    from bench.__main__ import URGENT_LAYOUTS, Bench
    from bench.fanout_e2e import URGENT_WHERE, FanoutE2e, Latencies, Side, fanout_e2e_rows

    # The flag's choices, each said in the row, the default (the Procfile's) first.
    assert tuple(URGENT_WHERE) == URGENT_LAYOUTS and URGENT_LAYOUTS[0] == "own"

    def lanes(phase: str, lanes: tuple[str, ...], p99: dict[str, float]) -> list[Latencies]:
        return [Latencies(phase, [1.0] * 99 + [p99[lane]], lane) for lane in lanes]

    def side(name: str, seconds: float, lanes_: list[Latencies]) -> Side:
        return Side(name, 1000, seconds, lanes_)

    cmd = lambda only, **sizes: Bench.cmd(None, only, **sizes)  # noqa: E731 (its own method)
    own = "on the Procfile's `urgent` worker (2 processes)"
    shared = "on the standard worker's queue"
    for layout, where in (("own", own), ("shared", shared), ("own-nice", "the rest at nice 10")):
        ran = ("shared",) if layout == "shared" else ("own", "shared")
        run = FanoutE2e(
            1000,
            layout,
            idle=[lanes("idle", ran, {"own": 6.0, "shared": 5.0})],
            sides=[
                side("bulk", 10.0, lanes("bulk", ran, {"own": 9.0, "shared": 30.0})),
                side("fanout", 10.5, lanes("fanout", ran, {"own": 24.0, "shared": 25.0})),
            ],
            seconds=60.0,
        )
        rate, urgent, *ab = fanout_e2e_rows(SimpleNamespace(cmd=cmd), {"fanout_e2e": run}, None)
        assert rate.ratio == "fanout/bulk 0.95" and rate.met is True
        assert where in urgent.figure and urgent.target == "<= 2 x idle"
        assert (f"--fanout-urgent {layout}" in urgent.command) == (layout != "own")
        if layout == "shared":
            assert urgent.ratio == "fanout/idle 5.00" and urgent.met is False and not ab
            continue
        # The urgent worker's lane against the target; the standard queue's beside it, untargeted.
        assert urgent.ratio == "fanout/idle 4.00" and urgent.met is False
        [beside] = ab
        assert shared in beside.figure and "the same run" in beside.figure
        assert beside.ratio == "fanout/idle 5.00" and beside.met is None and not beside.target
        assert "during bulk 30 ms" in beside.result


def test_the_bench_starts_a_procfile_worker_with_the_procfiles_options():
    from bench.infra import procfile_worker_args

    assert procfile_worker_args("urgent") == ("-Q", "urgent", "-n", "urgent@%h", "-c", "2")
    assert procfile_worker_args("worker") == ()
    with pytest.raises(ValueError, match="not a worker"):
        procfile_worker_args("web")
    with pytest.raises(ValueError, match="no process 'nope'"):
        procfile_worker_args("nope")
