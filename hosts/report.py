"""What one fault's run measured: the chaos run's table (lost, stuck, steps logged twice,
duplicates against the ledger), then each host's share and the fault's timeline."""

from __future__ import annotations

from dataclasses import dataclass, field

from chaos.faults import FaultLog
from chaos.report import ChaosResult
from hosts.plan import FaultPlan


@dataclass
class HostShare:
    """One host's part, from the claim and release events (their actor is the lease token, which
    starts with the worker's hostname) and its worker's log."""

    host: str
    claims: int = 0
    takeovers: int = 0  # expired leases of other workers it claimed
    taken_over: int = 0  # its own leases that expired and another worker claimed
    # Releases under those taken-over leases: late writes the fence let through (target 0).
    late_releases: int = 0
    # Outcomes its worker logged as not recorded: "cancelled or lease lost meanwhile" (the
    # release's fence refused them; engine._record).
    fenced: int = 0
    # Steps its worker's time limits cut short (Celery's "Soft/Hard time limit ... exceeded"):
    # what becomes of a step frozen or cut off past the limits once it runs again.
    cut_short: int = 0


@dataclass
class HostsResult:
    plan: FaultPlan
    chaos: ChaosResult
    shares: list[HostShare] = field(default_factory=list)
    timeline: list[FaultLog] = field(default_factory=list)
    # When (on the timeline's clock) every trigger was first terminal; None when some never were.
    all_terminal: float | None = None

    def misses(self) -> list[str]:
        late = sum(share.late_releases for share in self.shares)
        fence = [f"{late} release(s) applied under a lease another worker had taken over"]
        return self.chaos.misses() + (fence if late else [])

    def table(self) -> str:
        shares = [
            f"  {s.host}: {s.claims} claims ({s.takeovers} of expired leases); "
            f"{s.taken_over} of its leases expired and taken over, {s.late_releases} released "
            f"late under them; worker log: {s.fenced} outcomes fenced off, {s.cut_short} steps "
            "cut short by the time limits"
            for s in self.shares
        ]
        entries = [(entry.at, f"{entry.kind}: {entry.detail}") for entry in self.timeline]
        if self.all_terminal is not None:
            entries.append((self.all_terminal, "every trigger terminal"))
        timeline = [f"  {at:7.1f}s  {what}" for at, what in sorted(entries)]
        return "\n".join(
            [
                f"fault: {self.plan.describe()}",
                self.chaos.table(),
                "per host (the claim events' worker ids; the workers' logs):",
                *shares,
                "timeline (seconds since the harness started):",
                *timeline,
            ]
        )
