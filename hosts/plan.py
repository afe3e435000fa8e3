"""What a hosts run does: which faults, on which host, for how long, and when. Pure (no side
effects), so the unit tests check it as is."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from chaos.harness import ENGINE_TIMINGS

LINK_DOWN = "link-down"
PG_CUT = "pg-cut"
BROKER_CUT = "broker-cut"
SIGSTOP = "sigstop"
FAULTS = (LINK_DOWN, PG_CUT, BROKER_CUT, SIGSTOP)

LEASE_SECONDS = float(ENGINE_TIMINGS["NOTIFLOW_LEASE_SECONDS"])

# How long each fault lasts. The cut and the freeze outlast the lease several times over, so the
# sweeper has reclaimed every claim the host held, the other hosts have run those steps, and the
# host's late writes (after the link comes back, or it is resumed) meet a lease that is no longer
# theirs. The partial cuts last as long: a step that cannot reach PostgreSQL (or a worker that
# cannot reach the broker) for that long is the same test of the lease from another side.
DURATIONS = {
    LINK_DOWN: round(3.5 * LEASE_SECONDS),  # 21 s: > 3 leases, and TCP's retries back off past it
    PG_CUT: round(3.5 * LEASE_SECONDS),
    BROKER_CUT: round(3.5 * LEASE_SECONDS),
    SIGSTOP: round(2.5 * LEASE_SECONDS),  # 15 s: > 2 leases (the brief's 2-3x)
}
# Each fault on its own host in turn (hosts are numbered from 1), so every host is hit once.
TARGETS = {LINK_DOWN: 1, PG_CUT: 2, BROKER_CUT: 3, SIGSTOP: 1}


@dataclass(frozen=True)
class FaultPlan:
    kind: str
    host: int  # 1-based
    after: float  # seconds from the first trigger fired to the fault
    seconds: float  # how long until it is undone

    def describe(self) -> str:
        what = {
            LINK_DOWN: "link down (its switch port: no carrier, every packet dropped)",
            PG_CUT: "cut from PostgreSQL only (blackhole routes both ways)",
            BROKER_CUT: "cut from the broker (Redis) only (blackhole routes both ways)",
            SIGSTOP: "frozen (SIGSTOP to its worker and pool processes)",
        }[self.kind]
        return (
            f"host{self.host} {what} {self.after:g}s after the first trigger, for {self.seconds:g}s "
            f"({self.seconds / LEASE_SECONDS:.1f}x the {LEASE_SECONDS:g}s lease)"
        )


def parse_faults(text: str) -> tuple[str, ...]:
    """ "link-down,pg-cut" -> ("link-down", "pg-cut"); "all" or "" -> every fault, in order."""
    names = [name.strip() for name in text.split(",") if name.strip()]
    if not names or names == ["all"]:
        return FAULTS
    unknown = [name for name in names if name not in FAULTS]
    if unknown:
        raise ValueError(f"unknown fault(s) {', '.join(unknown)}; choose from {', '.join(FAULTS)}")
    return tuple(dict.fromkeys(names))  # in the order given, each once


@dataclass
class HostsConfig:
    faults: tuple[str, ...] = FAULTS
    triggers: int = 600
    hosts: int = 3
    concurrency: int = 2
    delay_ms: int = 1000
    fire_threads: int = 8
    # Triggers fired once the fault is undone and the host beats again: it must take its share.
    after: int = 60
    # The fault comes this long after the first trigger is fired: the host holds claims, and most
    # of the triggers are still to run (or to be fired).
    fault_after: float = 1.0
    # Seconds per fault, overriding DURATIONS.
    seconds: dict[str, float] = field(default_factory=dict)
    # From the first trigger fired to the last one terminal; default 120 + 0.15 s per trigger
    # (as the chaos run's) plus the fault's length.
    deadline: float | None = None
    logs: Path | None = None
    quiet: bool = False

    def __post_init__(self) -> None:
        if self.hosts < 2:
            raise ValueError("at least 2 hosts: one is cut off, another must carry on")
        for kind in self.faults:
            if TARGETS[kind] > self.hosts:
                raise ValueError(f"{kind} targets host{TARGETS[kind]}; only {self.hosts} hosts")

    def plan(self, kind: str) -> FaultPlan:
        seconds = self.seconds.get(kind, DURATIONS[kind])
        return FaultPlan(kind=kind, host=TARGETS[kind], after=self.fault_after, seconds=seconds)

    def deadline_for(self, plan: FaultPlan) -> float:
        return self.deadline or 120 + 0.15 * self.triggers + plan.after + plan.seconds
