"""ChaosResult with faults of other kinds (the hosts harness's): the chaos run's own table keeps
every kind it requested, and a run of other faults shows only those."""

from __future__ import annotations

from chaos.harness import ChaosConfig
from chaos.report import ChaosResult


def test_the_chaos_table_still_shows_every_kind_it_requested_even_at_zero():
    requested = ChaosConfig(
        kills=0, flushes=0, redis_restarts=0, pg_restarts=0, receiver_outages=0
    ).requested
    result = ChaosResult(triggers=0, faults_requested=dict(requested))
    table = result.table()
    for label in ("kills (SIGKILL)", "Redis flushes", "Redis restarts", "PostgreSQL restarts"):
        assert label in table
    assert result.faults_injected == requested
    assert "targets: all met" in table


def test_other_faults_are_counted_against_what_was_requested():
    result = ChaosResult(triggers=0, faults_requested={"link-down": 1})
    assert result.misses() == ["faults injected {} != requested {'link-down': 1}"]
    result.other_faults = {"link-down": 1}
    assert result.misses() == []
    assert "link-down" in result.table() and "Redis flushes" not in result.table()


def test_with_rabbitmq_as_the_broker_its_restarts_take_the_flushes_row():
    requested = ChaosConfig(
        broker="rabbitmq", kills=0, flushes=1, redis_restarts=0, pg_restarts=0, receiver_outages=0
    ).requested
    result = ChaosResult(triggers=0, broker="rabbitmq", faults_requested=dict(requested))
    result.rabbitmq_restarts = 1
    table = result.table()
    assert "RabbitMQ restarts (the broker)" in table and "Redis flushes" not in table
    assert "Redis restarts (cache and rate limits)" in table
    assert result.faults_injected == requested
