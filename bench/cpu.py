"""CPU time spent per component during a measurement, from /proc (Linux).

On a 2-core machine that the engine saturates, wall-clock profiles blur (a process waiting for
PostgreSQL is often waiting for a CPU); CPU seconds per step do not, and they add up to the
machine's budget: at most `cores / cpu_seconds_per_step` steps per second.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable
from pathlib import Path

import psycopg
import redis

_TICK = os.sysconf("SC_CLK_TCK")
MACHINE = "machine"
# Not ours: other users of this shared machine (and processes the bench does not attribute).
OTHERS = "others on the machine (not ours)"
WALL = "wall clock seconds"  # of the measurement, not CPU
# The bench process itself (the producer of an engine run's triggers, and its polling for them),
# and the producer's PostgreSQL backend (an engine run's group: bench.engine).
PRODUCER = "bench process (producer, polling)"
PRODUCER_BACKEND = "postgres: producer backend"


def machine_busy_seconds() -> float:
    """CPU seconds all cores spent not idle since boot (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = (fields + [0] * 8)[:8]
    return (user + nice + system + irq + softirq + steal) / _TICK


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of one process (0 when it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (FileNotFoundError, ProcessLookupError):
        return 0.0
    return (int(fields[11]) + int(fields[12])) / _TICK  # utime, stime


def children(pid: int) -> list[int]:
    path = Path(f"/proc/{pid}/task/{pid}/children")
    try:
        return [int(p) for p in path.read_text().split()]
    except FileNotFoundError:
        return []


def backends(server_url: str, database: str) -> list[int]:
    """PostgreSQL backend pids connected to `database` (this process's own one included)."""
    with psycopg.connect(f"{server_url}/postgres", autocommit=True) as conn:
        rows = conn.execute(
            "SELECT pid FROM pg_stat_activity WHERE datname = %s AND backend_type = 'client backend'",
            [database],
        ).fetchall()
    return [row[0] for row in rows]


class CpuMeter:
    """CPU seconds per named group of processes between start() and stop().

    `groups` maps a name to a function returning the group's pids at that moment. A process that
    appears during the measurement counts from zero; one that ends before stop() (a worker pool
    process recycling its PostgreSQL connection, say) counts up to its last sample: a thread
    samples every `every` seconds.
    """

    def __init__(self, groups: dict[str, Callable[[], list[int]]], every: float = 0.5):
        self.groups = groups
        self.every = every
        self.before: dict[str, dict[int, float]] = {}
        self.last: dict[str, dict[int, float]] = {}
        self.spent: dict[str, float] = {}
        self._done = threading.Event()
        self._thread: threading.Thread | None = None
        self._known: dict[str, list[int]] = {}

    def _pids(self, name: str) -> list[int]:
        """The group's pids now; its last known ones when they cannot be asked (PostgreSQL out
        of connections on a shared machine: `too many clients already`)."""
        with contextlib.suppress(psycopg.OperationalError):
            self._known[name] = self.groups[name]()
        return self._known.get(name, [])

    def _sample(self) -> dict[str, dict[int, float]]:
        sample = {name: {pid: cpu_seconds(pid) for pid in self._pids(name)} for name in self.groups}
        own = os.times()
        sample[PRODUCER] = {0: own.user + own.system}
        sample[MACHINE] = {0: machine_busy_seconds()}
        sample[WALL] = {0: time.monotonic()}
        return sample

    def _remember(self, sample: dict[str, dict[int, float]]) -> None:
        for name, pids in sample.items():
            seen = self.last.setdefault(name, {})
            for pid, seconds in pids.items():
                if seconds > 0:  # 0: the process is gone (or never ran)
                    seen[pid] = max(seen.get(pid, 0.0), seconds)

    def _loop(self) -> None:
        while not self._done.wait(self.every):
            self._remember(self._sample())

    def start(self) -> None:
        self.before = self._sample()
        self.last = {}
        self._remember(self.before)
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self._thread.start()

    def stop(self) -> dict[str, float]:
        """CPU seconds per group, OTHERS (what the rest of the machine used meanwhile) and WALL."""
        self._done.set()
        if self._thread is not None:
            self._thread.join()
        self._remember(self._sample())
        spent = {
            name: sum(
                seconds - self.before.get(name, {}).get(pid, 0.0) for pid, seconds in pids.items()
            )
            for name, pids in self.last.items()
        }
        machine, wall = spent.pop(MACHINE), spent.pop(WALL)
        self.spent = {**spent, OTHERS: max(0.0, machine - sum(spent.values())), WALL: wall}
        return self.spent


def redis_group(url: str) -> dict[str, Callable[[], list[int]]]:
    """redis-server's pid, when it runs on this machine (it serves other clients too)."""
    pid = int(redis.Redis.from_url(url).info("server").get("process_id", 0))
    return {"redis-server (shared)": lambda: [pid]} if Path(f"/proc/{pid}").exists() else {}
