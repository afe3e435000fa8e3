"""Summarise a py-spy raw (collapsed stacks) recording of the worker's pool processes.

`make bench ARGS="--only engine --profile"` records the engine run; this turns the recording into
where the pool processes spend their wall time (idle included: waiting on PostgreSQL or Redis
shows up as such), by function and by broad cost.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

# Broad costs, first match wins, tested from the innermost frame outwards.
BUCKETS: list[tuple[str, str]] = [
    (
        "PostgreSQL: connect",
        r"psycopg/connection\.py.*connect|get_new_connection|connect \(psycopg",
    ),
    ("PostgreSQL: statements (wait + driver)", r"psycopg/|django/db/backends/"),
    ("Django ORM: build / compile SQL", r"django/db/models/"),
    ("Redis: publish nudge", r"kombu/|redis/"),
    ("Liquid: render", r"liquid/"),
    ("email: build message", r"django/core/mail/"),
    ("JSON", r"json/"),
    ("Celery: task machinery", r"celery/|billiard/"),
]

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^)]*?)(?::\d+)?\)$")


def _frames(stack: str) -> list[str]:
    return [f for f in stack.split(";") if f]


def summarise(raw: Path, *, top: int = 25) -> str:
    """A text report: samples per broad cost, then the heaviest functions (inclusive, self)."""
    inclusive: Counter[str] = Counter()
    self_time: Counter[str] = Counter()
    buckets: Counter[str] = Counter()
    total = 0
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        frames = _frames(stack)
        if not any("execute_node" in f or "trace_task" in f for f in frames):
            continue  # only samples inside a task (pool processes; the main one dispatches)
        count = int(count_text)
        total += count
        names = []
        for frame in frames:
            match = _FRAME.match(frame)
            names.append(f"{match['func']} ({match['file']})" if match else frame)
        for name in set(names):
            inclusive[name] += count
        if names:
            self_time[names[-1]] += count
        for label, pattern in BUCKETS:
            if any(re.search(pattern, f) for f in reversed(frames)):
                buckets[label] += count
                break
        else:
            buckets["other Python"] += count
    if not total:
        return "no samples inside tasks"

    def pct(n: int) -> str:
        return f"{100 * n / total:5.1f}%"

    out = [f"{total} samples inside tasks (pool processes, wall clock)", "", "by broad cost:"]
    out += [f"  {pct(n)}  {label}" for label, n in buckets.most_common()]
    out += ["", "heaviest functions, inclusive (project code and drivers):"]
    interesting = re.compile(
        r"(notiflow|workers|triggers|workflows|psycopg|kombu|liquid|django/db)"
    )
    shown = [(k, v) for k, v in inclusive.most_common() if interesting.search(k)][:top]
    out += [f"  {pct(n)}  {name}" for name, n in shown]
    out += ["", "heaviest functions, self:"]
    out += [f"  {pct(n)}  {name}" for name, n in self_time.most_common(top)]
    return "\n".join(out)
