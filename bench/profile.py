"""Summarise a py-spy raw (collapsed stacks) recording of the worker's pool processes.

`make bench ARGS="--only engine --profile"` records the engine run; this turns the recording into
where the pool processes spend their wall time (idle included: waiting on PostgreSQL or Redis
shows up as such), by function and by broad cost.
"""

from __future__ import annotations

import re
import shutil
import signal
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

from bench.infra import BIN, Proc

# A sample inside a new connection counts as connecting, whatever the innermost frame.
CONNECT = ("PostgreSQL: connect", r"get_new_connection")
# Otherwise the innermost frame that matches one of these decides (in this order).
BUCKETS: list[tuple[str, str]] = [
    ("PostgreSQL: statements (wait + driver)", r"psycopg/|django/db/backends/"),
    ("Django ORM: build / compile SQL", r"django/db/models/"),
    ("Redis: publish nudge", r"kombu/|redis/"),
    ("Liquid: render", r"liquid/"),
    ("email: build message", r"django/core/mail/"),
    ("JSON", r"json/"),
    ("Celery: task machinery", r"celery/|billiard/"),
    ("DRF: views, serializers", r"rest_framework/"),
    ("Django: request handling", r"django/"),
    ("gunicorn", r"gunicorn/"),
]

_FRAME = re.compile(r"^(?P<func>.*?) \((?P<file>[^)]*?)(?::\d+)?\)$")


def _frames(stack: str) -> list[str]:
    return [f for f in stack.split(";") if f]


class Profiler:
    """py-spy recording a process and its children: wall clock (idle included) or CPU only."""

    def __init__(self, worker: Proc, output: Path, *, idle: bool = True):
        self.output = output
        self.popen: subprocess.Popen | None = None
        py_spy = shutil.which("py-spy", path=str(BIN)) or shutil.which("py-spy")
        if py_spy is None:
            print("  (py-spy not installed: `.venv/bin/pip install py-spy`; not profiling)")
            return
        self.popen = subprocess.Popen(
            [
                py_spy,
                "record",
                "--pid",
                str(worker.pid),
                "--subprocesses",
                *(["--idle"] if idle else []),
                "--rate",
                "250",
                "--format",
                "raw",
                "--output",
                str(output),
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        time.sleep(1.5)  # attach before the work starts

    def stop(self) -> None:
        if self.popen is not None and self.popen.poll() is None:
            self.popen.send_signal(signal.SIGINT)
            self.popen.wait(timeout=60)


def _bucket(frames: list[str]) -> str:
    if any(re.search(CONNECT[1], f) for f in frames):
        return CONNECT[0]
    for frame in reversed(frames):
        for label, pattern in BUCKETS:
            if re.search(pattern, frame):
                return label
    return "other Python"


def summarise(raw: Path, *, inside: str = r"execute_node|trace_task", top: int = 25) -> str:
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
        if not any(re.search(inside, f) for f in frames):
            continue  # only samples inside a task or a request (not the idle main loops)
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
        buckets[_bucket(frames)] += count
    if not total:
        return "no samples inside tasks or requests"

    def pct(n: int) -> str:
        return f"{100 * n / total:5.1f}%"

    out = [f"{total} samples inside {inside}", "", "by broad cost:"]
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


def flamegraph_svg(raw: Path, svg: Path, *, inside: str = r"execute_node", title: str = "") -> int:
    """Draw the samples of a raw recording taken inside `inside` as a flame graph (SVG, the
    callers at the bottom, each frame as wide as its samples; hover shows the frame and its
    share), from `inside`'s frame up. Returns the samples drawn."""
    from html import escape

    root: dict[str, Any] = {"n": 0, "kids": {}}
    for line in raw.read_text(errors="replace").splitlines():
        stack, _, count_text = line.rpartition(" ")
        if not count_text.isdigit():
            continue
        frames = _frames(stack)
        start = next((i for i, f in enumerate(frames) if re.search(inside, f)), None)
        if start is None:
            continue
        count = int(count_text)
        node = root
        node["n"] += count
        for frame in frames[start:]:
            match = _FRAME.match(frame)  # one box per function, whatever its line
            frame = f"{match['func']} ({match['file']})" if match else frame
            node = node["kids"].setdefault(frame, {"n": 0, "kids": {}})
            node["n"] += count
    total = root["n"]
    if not total:
        return 0
    width, row = 1600.0, 16
    boxes: list[tuple[int, float, float, str, int]] = []  # depth, x, width, frame, samples

    def walk(node: dict[str, Any], depth: int, x: float) -> int:
        deepest = depth
        for frame, kid in sorted(node["kids"].items()):
            w = width * kid["n"] / total
            if w >= 0.3:
                boxes.append((depth, x, w, frame, kid["n"]))
                deepest = max(deepest, walk(kid, depth + 1, x))
            x += w
        return deepest

    height = (walk(root, 0, 0.0) + 3) * row
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height}" '
        f'font-family="monospace" font-size="11">',
        f'<text x="4" y="14">{escape(title)} ({total} samples inside {escape(inside)})</text>',
    ]
    for depth, x, w, frame, n in boxes:
        y = height - (depth + 1) * row
        match = _FRAME.match(frame)
        label = match["func"] if match else frame
        hue = 20 + (sum(map(ord, frame)) % 40)
        shown = label[: int(w / 6.6)] if w > 20 else ""
        out.append(
            f"<g><title>{escape(frame)}: {n} samples, {100 * n / total:.1f}%</title>"
            f'<rect x="{x:.1f}" y="{y}" width="{max(w - 0.5, 0.1):.1f}" height="{row - 1}" '
            f'fill="hsl({hue},90%,60%)"/>'
            f'<text x="{x + 2:.1f}" y="{y + row - 4}">{escape(shown)}</text></g>'
        )
    out.append("</svg>")
    svg.write_text("\n".join(out))
    return total
