"""What one webhook delivery costs the dispatcher (issue 32 §3): statements and wall time.

N events, one delivery each to one endpoint on the loopback receiver (tests/support/receiver.py,
answering 200), drained one after the other by this one process through the dispatcher's
`delivery_send`, as the `events.deliver` task calls it (claim, signed POST, fenced finish); the
broker is left out, a nudge's cost is not what is measured. The deliveries are written beforehand
in bulk, already nudged, so nothing is published. Reported: statements a delivery sends
(Django's query log, over `--counted` deliveries drained apart), and wall time a delivery, mean,
p50 and p99, over the N others.

Runs on a migrated database of its own (<db-prefix>_template, dropped afterwards unless --keep),
with the bench's production settings (bench.infra.base_env), loopback endpoints allowed. Standalone, not a part of `make
bench`: the same script, copied into an older checkout, measures the code before a change.

    python -m bench.webhooks [--deliveries 500] [--rounds 3]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from dataclasses import dataclass
from typing import Any

from bench import infra


@dataclass(frozen=True)
class DeliveryCost:
    deliveries: int
    statements: float  # a delivery
    mean_ms: float
    p50_ms: float
    p99_ms: float

    def __str__(self) -> str:
        return (
            f"{self.deliveries} deliveries: {self.statements:g} statements a delivery, "
            f"{self.mean_ms:.2f} ms mean, p50 {self.p50_ms:.2f} ms, p99 {self.p99_ms:.2f} ms "
            f"({1000 / self.mean_ms:.0f} deliveries/s)"
        )


def deliveries_pending(url: str, count: int) -> list[int]:
    """`count` pinged events, each with its pending delivery to one new endpoint at `url`."""
    from django.db.models.functions import Now

    from events import catalog
    from events.models import OutboxEvent, WebhookDelivery
    from events.services.endpoints import endpoint_create

    endpoint = endpoint_create(url=url, events=["*"])
    events = OutboxEvent.objects.bulk_create(
        OutboxEvent(type=catalog.PING, data={"message": "bench", "n": n}) for n in range(count)
    )
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(event=event, endpoint=endpoint, nudged_at=Now()) for event in events
    )
    return [delivery.pk for delivery in deliveries]


def statements_a_delivery(ids: list[int]) -> float:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    from events.services.dispatcher import delivery_send

    with CaptureQueriesContext(connection) as captured:
        for delivery_id in ids:
            assert delivery_send(delivery_id, worker_id="bench") == "delivered"
    return len(captured.captured_queries) / len(ids)


def drain_ms(ids: list[int]) -> list[float]:
    from events.services.dispatcher import delivery_send

    spent = []
    for delivery_id in ids:
        started = time.perf_counter()
        status = delivery_send(delivery_id, worker_id="bench")
        spent.append((time.perf_counter() - started) * 1000)
        assert status == "delivered", (delivery_id, status)
    return spent


def delivery_cost(url: str, *, deliveries: int, counted: int) -> DeliveryCost:
    counted_ids = deliveries_pending(url, counted)
    statements = statements_a_delivery(counted_ids)
    spent = sorted(drain_ms(deliveries_pending(url, deliveries)))
    return DeliveryCost(
        deliveries=deliveries,
        statements=statements,
        mean_ms=statistics.fmean(spent),
        p50_ms=spent[len(spent) // 2],
        p99_ms=spent[min(len(spent) - 1, int(len(spent) * 0.99))],
    )


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m bench.webhooks", description=__doc__)
    parser.add_argument("--deliveries", type=int, default=500, help="timed, a round")
    parser.add_argument("--counted", type=int, default=50, help="statement-counted, a round")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--db-prefix", default="notiflow_bench_webhooks")
    parser.add_argument("--redis-url", default="redis://127.0.0.1:6379/14", help="the broker's")
    parser.add_argument("--keep", action="store_true", help="keep the database afterwards")
    args = parser.parse_args(argv)
    config = infra.Config.from_env(db_prefix=args.db_prefix, redis_url=args.redis_url, port=None)
    infra.database_template(config)
    # The receiver is on loopback, which the address rule refuses outside development.
    os.environ.update(infra.base_env(config, "template", NOTIFLOW_WEBHOOK_ALLOW_PRIVATE="true"))
    import django

    django.setup()
    from django.db import connections

    from tests.support.receiver import Receiver

    receiver = Receiver()
    receiver.start()
    results: list[Any] = []
    try:
        for round_ in range(args.rounds):
            url = receiver.url(f"/ok/bench-{round_}")
            results.append(delivery_cost(url, deliveries=args.deliveries, counted=args.counted))
            print(f"round {round_ + 1}: {results[-1]}", flush=True)
    finally:
        receiver.stop()
        connections.close_all()
        if not args.keep:
            infra.database_drop(config, "template")


if __name__ == "__main__":
    main()
