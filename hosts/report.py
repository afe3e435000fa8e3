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
    claims_after_restore: int = 0
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
    # Seconds from the restore to the faulted host's first beat in the registry (None: never,
    # within hosts.run.BACK_TIMEOUT), and the triggers fired after that.
    back: float | None = None
    # Seconds from the restore to its first claim (None: none), and the triggers fired after the
    # restore, in batches, until it made one.
    at_work: float | None = None
    after: int = 0

    def misses(self) -> list[str]:
        late = sum(share.late_releases for share in self.shares)
        host = f"host{self.plan.host}"
        faulted = next((share for share in self.shares if share.host == host), None)
        checks = [
            (late == 0, f"{late} release(s) applied under a lease another worker had taken over"),
            (self.back is not None, f"{host} not back in the registry after the restore"),
            (
                faulted is None or faulted.claims_after_restore > 0 or not self.after,
                f"{host} claimed nothing of the {self.after} triggers fired after the restore",
            ),
        ]
        return self.chaos.misses() + [message for ok, message in checks if not ok]

    def table(self) -> str:
        shares = [
            f"  {s.host}: {s.claims} claims ({s.takeovers} of expired leases, "
            f"{s.claims_after_restore} after the restore); "
            f"{s.taken_over} of its leases expired and taken over, {s.late_releases} released "
            f"late under them; worker log: {s.fenced} outcomes fenced off, {s.cut_short} steps "
            "cut short by the time limits"
            for s in self.shares
        ]
        entries = [(entry.at, f"{entry.kind}: {entry.detail}") for entry in self.timeline]
        if self.all_terminal is not None:
            entries.append((self.all_terminal, "every trigger fired before the restore terminal"))
        restored = [entry.at for entry in self.timeline if entry.kind != self.plan.kind]
        host = f"host{self.plan.host}"
        if restored and self.back is not None:
            entries.append(
                (
                    restored[0] + self.back,
                    f"{host} beats again in the registry; from here on {self.after} more "
                    f"triggers fired, in batches until {host} claims one",
                )
            )
        if restored and self.at_work is not None:
            entries.append((restored[0] + self.at_work, f"{host} claims again"))
        timeline = [f"  {at:7.1f}s  {what}" for at, what in sorted(entries)]
        return "\n".join(
            [
                f"fault: {self.plan.describe()}",
                self.chaos.table(),
                "per host (the claim events' worker ids; the workers' logs):",
                *shares,
                "timeline (seconds since the harness started):",
                *timeline,
                "hosts targets: all met"
                if not self.misses()
                else "hosts targets MISSED: " + "; ".join(self.misses()),
            ]
        )
