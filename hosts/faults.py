"""The faults, done and undone: a link cut, a route cut from one server, a freeze. One run has
one fault, on one host, on a timeline of its own (FaultPlan): cut, wait, restore."""

from __future__ import annotations

import os
import signal
import time
from collections.abc import Callable

from chaos.faults import FaultInjector, FaultLog
from hosts import netns
from hosts.plan import BROKER_CUT, LINK_DOWN, PG_CUT, SIGSTOP, FaultPlan
from tests.support.stack import Process

RESTORE = "restore"


def fault_actions(
    plan: FaultPlan, host: netns.Machine, worker: Process
) -> tuple[Callable[[], str], Callable[[], str]]:
    """(do, undo) for `plan` on `host`, whose Celery worker is `worker`."""
    if plan.kind == LINK_DOWN:
        return _commands(netns.link_commands(host, up=False), "link down"), _commands(
            netns.link_commands(host, up=True), "link up"
        )
    if plan.kind in (PG_CUT, BROKER_CUT):
        server = netns.DB if plan.kind == PG_CUT else netns.MQ
        return _commands(
            netns.route_cut_commands(host, server, cut=True), f"blackhole to {server.address}"
        ), _commands(netns.route_cut_commands(host, server, cut=False), "routes back")
    if plan.kind == SIGSTOP:
        # The worker is its process group's leader (its own session): the group is the main
        # process and every pool process, frozen and resumed together.
        def freeze() -> str:
            os.killpg(worker.popen.pid, signal.SIGSTOP)
            return f"SIGSTOP to {worker.name}'s process group {worker.popen.pid}"

        def resume() -> str:
            os.killpg(worker.popen.pid, signal.SIGCONT)
            return f"SIGCONT to {worker.name}'s process group {worker.popen.pid}"

        return freeze, resume
    raise ValueError(f"unknown fault {plan.kind}")


def _commands(commands: list[list[str]], label: str) -> Callable[[], str]:
    def run() -> str:
        netns.sh(commands)
        return f"{label}: " + "; ".join(" ".join(command[1:]) for command in commands)

    return run


ARM_TIMEOUT = 15.0  # seconds to wait for the host to hold a lease before faulting anyway


class TimedFault(FaultInjector):
    """The plan's fault `after` seconds from start() - at the first moment from then on that the
    host holds a lease (`holding`: its leases held now, per PostgreSQL), since a fault that finds
    it between steps tests no fence - undone `seconds` later (whatever happens: a stop request
    restores at once). Its log has the fault (with the triggers in flight and the host's leases
    just after) and the restore (in flight in its detail, so the chaos count of faults during
    work stays one per fault)."""

    def __init__(
        self,
        plan: FaultPlan,
        do: Callable[[], str],
        undo: Callable[[], str],
        *,
        in_flight: Callable[[], int | None],
        holding: Callable[[], int],
        clock: Callable[[], float],
        say: Callable[[str], None],
    ):
        super().__init__(
            [plan.kind], {plan.kind: do}, interval=0, in_flight=in_flight, clock=clock, say=say
        )
        self.fault = plan
        self.undo = undo
        self.holding = holding
        self.restored_wall: float | None = None  # time.time(), to compare with PostgreSQL's

    def _armed(self) -> bool:
        """Until the host holds a lease (or ARM_TIMEOUT); False when asked to stop."""
        deadline = time.monotonic() + ARM_TIMEOUT
        while not self.holding() and time.monotonic() < deadline:
            if self.stopping.wait(0.005):
                return False
        return True

    def run(self) -> None:
        try:
            if self.stopping.wait(self.fault.after) or not self._armed():
                return
            detail = self.actions[self.fault.kind]()
            in_flight = self.in_flight()
            detail += f"; the host's leases held just after: {self.holding()}"
            self.log.append(FaultLog(self.fault.kind, self.clock(), in_flight, detail))
            self.say(f"fault {self.fault.kind}: {detail} ({in_flight} trigger(s) in flight)")
            try:
                self.stopping.wait(self.fault.seconds)
            finally:
                detail = self.undo()
                self.restored_wall = time.time()
                in_flight = self.in_flight()
                detail += f" ({in_flight} trigger(s) in flight)"
                self.log.append(FaultLog(RESTORE, self.clock(), None, detail))
                self.say(f"restored: {detail}")
        except BaseException as exc:  # reported by the run, which then fails
            self.error = exc
