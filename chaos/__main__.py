"""python -m chaos [--triggers 2000] [--kills 10] [--flushes 2] [--pg-restarts 1] ...

Prints the run's table on stdout (progress on stderr) and exits 0 when every target was met,
1 when one was missed, 2 when the harness itself could not run.
"""

from __future__ import annotations

import argparse
import signal
import sys
from dataclasses import fields
from pathlib import Path

from chaos.harness import BROKERS, ChaosConfig, ChaosRun

DEFAULTS = ChaosConfig()
STRINGS = ("digest_window", "broker", "pool")
FLOATS = (
    "fault_interval",
    "deadline",
    "webhook_fail_first",
    "receiver_outage_seconds",
    "webhook_deadline",
)


def parse(argv: list[str]) -> ChaosConfig:
    parser = argparse.ArgumentParser(prog="python -m chaos", description=__doc__.splitlines()[0])
    helps = {
        "triggers": "triggers to fire",
        "kills": "SIGKILLs, alternating one pool process and a whole worker (then replaced)",
        "broker": "redis, or rabbitmq (a node of the harness's own; Redis stays as the cache)",
        "flushes": "Redis FLUSHALLs (RabbitMQ restarts with --broker rabbitmq)",
        "redis_restarts": "Redis restarts (no persistence: everything in it is lost)",
        "pg_restarts": "PostgreSQL fast restarts",
        "receiver_outages": "webhook receiver outages (its port refuses connections)",
        "workers": "Celery worker processes",
        "concurrency": "pool processes per worker",
        "pool": "the workers' pool: prefork, or threads (the Procfile's `sends`)",
        "fault_interval": "seconds between faults",
        "delay_ms": "the workflow's delay node",
        "digest_triggers": "runs of the digest workflow, fired alongside",
        "digest_groups": "digest keys the digest runs are spread over",
        "digest_window": "the digest node's window",
        "waiting_runs": "runs waiting for an event, posted under the faults, 10 %% twice (0: none)",
        "waiting_timeouts": "more runs waiting for an event nobody posts: they time out",
        "action_runs": "runs replayed in bulk once completed, and as many waiting runs cancelled "
        "in bulk, both asked under the faults (0: none)",
        "fire_threads": "concurrent HTTP clients firing triggers",
        "fanout_subscribers": "subscribers of the topic fanned out once under the faults (0: none)",
        "schedule_subscribers": "subscribers of a topic scheduled once under the faults (0: none)",
        "webhook_fail_first": "fraction of webhook events whose first attempt the receiver fails (500)",
        "receiver_outage_seconds": "seconds the receiver is down at each outage",
        "webhook_deadline": "seconds, once every trigger is terminal, for webhook deliveries to settle",
        "deadline": "seconds for every trigger to be terminal [120 + 0.15 per trigger]",
        "seed": "random seed (which worker dies)",
    }
    for f in fields(ChaosConfig):
        if f.name in helps:
            default = getattr(DEFAULTS, f.name)
            parser.add_argument(
                "--" + f.name.replace("_", "-"),
                type=float if f.name in FLOATS else str if f.name in STRINGS else int,
                default=default,
                help=f"{helps[f.name]} [{default}]",
                choices={"broker": BROKERS, "pool": ("prefork", "threads")}.get(f.name),
            )
    parser.add_argument(
        "--as-owner",
        action="store_true",
        help="run every process as the database owner instead of the least-privilege roles",
    )
    parser.add_argument(
        "--webhook-events",
        default=",".join(DEFAULTS.webhook_events),
        help="what the webhook endpoint subscribes to, comma-separated: trigger.completed, or * "
        f"for every event; empty for no endpoint [{','.join(DEFAULTS.webhook_events)}]",
    )
    parser.add_argument("--logs", type=Path, help="keep process logs here [a temporary dir]")
    args = parser.parse_args(argv)
    values = {f.name: getattr(args, f.name) for f in fields(ChaosConfig) if f.name in helps}
    events = tuple(name.strip() for name in args.webhook_events.split(",") if name.strip())
    return ChaosConfig(
        **values, webhook_events=events, least_privilege=not args.as_owner, logs=args.logs
    )


def main(argv: list[str]) -> int:
    config = parse(argv)
    # SIGTERM unwinds like Ctrl-C, so the context manager stops and removes everything.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    command = "python -m chaos " + " ".join(argv) if argv else "python -m chaos"
    try:
        with ChaosRun(config) as run:
            result = run.run()
    except KeyboardInterrupt:
        print("interrupted; everything the run started has been stopped", file=sys.stderr)
        return 130
    except Exception as exc:
        print(f"chaos harness error: {exc}", file=sys.stderr)
        return 2
    print(
        f"Notiflow chaos run ({command}): {config.triggers} triggers of email -> "
        f"{config.delay_ms} ms delay -> SMS -> in-app -> Slack"
        + (
            f" and {config.digest_triggers} of digest ({config.digest_window}, "
            f"{config.digest_groups} keys) -> email"
            if config.digest_triggers
            else ""
        )
        + f", {config.broker} as the broker, {config.workers} workers x {config.concurrency}, "
        f"{'least-privilege roles' if config.least_privilege else 'owner role'}; "
        + (
            f"webhooks ({', '.join(config.webhook_events)}) to a receiver failing "
            f"{config.webhook_fail_first:.0%} of first attempts"
            if config.webhook_events
            else "no webhooks"
        )
    )
    print(result.table())
    return 1 if result.misses() else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
