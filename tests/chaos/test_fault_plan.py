"""The chaos run's plan: each kind of fault spread over the run, the broker's own fault in the
flushes' slots."""

from chaos.faults import (
    KILL_POOL_PROCESS,
    KILL_WORKER,
    PG_RESTART,
    RABBITMQ_RESTART,
    REDIS_FLUSH,
    REDIS_RESTART,
    fault_plan,
)


def test_kills_alternate_and_every_kind_is_spread_over_the_run():
    plan = fault_plan(kills=4, flushes=2, redis_restarts=1, pg_restarts=1)
    assert plan == [
        KILL_POOL_PROCESS,
        REDIS_FLUSH,
        KILL_WORKER,
        PG_RESTART,
        REDIS_RESTART,
        KILL_POOL_PROCESS,
        REDIS_FLUSH,
        KILL_WORKER,
    ]


def test_with_rabbitmq_the_broker_restart_takes_each_flush_slot():
    redis = fault_plan(kills=2, flushes=2, redis_restarts=1, pg_restarts=0)
    rabbitmq = fault_plan(
        kills=2, flushes=2, redis_restarts=1, pg_restarts=0, flush=RABBITMQ_RESTART
    )
    assert rabbitmq == [RABBITMQ_RESTART if kind == REDIS_FLUSH else kind for kind in redis]
    assert rabbitmq.count(RABBITMQ_RESTART) == 2 and REDIS_FLUSH not in rabbitmq
