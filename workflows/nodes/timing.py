"""What the nodes that wait share (delay, window): a run that goes on at `resume_at`, and a
preview that says how long it would wait (docs/design/workflows.md, "Timing and flow-control nodes")."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from workflows.decisions import StepDecision
from workflows.nodes.base import NodePreview, NodeRun, NodeType, StepPort


@dataclass(frozen=True)
class Wait:
    """When a run goes on after a delay or window node (`resume_at`, `now` for at once), and
    what its step log says."""

    resume_at: datetime
    output: dict[str, Any]


class TimingType(NodeType):
    colours = ("#fdf6e3", "#b8860b")

    def wait(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> Wait:
        """The wait from `now`; RenderError (permanent) for a value that renders unusable."""
        raise NotImplementedError

    def spelled(self, node: dict[str, Any]) -> str:
        """The wait as its author wrote it, when fixed ("15m"), else ""."""
        return ""

    def decided(self, node: dict[str, Any], wait: Wait, now: datetime) -> StepDecision:
        """What the step decided (workflows.decisions): held until `wait.resume_at`, or went
        on at once."""
        raise NotImplementedError

    def run(self, node: dict[str, Any], *, step: StepPort) -> NodeRun:
        wait = self.wait(node, step.context, step.now)
        decision = self.decided(node, wait, step.now)
        return NodeRun(output=wait.output, resume_at=wait.resume_at, decision=decision)

    def preview(self, node: dict[str, Any], context: dict[str, Any], now: datetime) -> NodePreview:
        wait = self.wait(node, context, now)
        if wait.resume_at <= now:
            return NodePreview(node["id"], self.name, note="goes on at once")
        # A window's opening in its own zone; a delay's time in UTC.
        opens_at = wait.output.get("opens_at")
        until = datetime.fromisoformat(opens_at) if opens_at else wait.resume_at
        waited = self.spelled(node) or _spelled(wait.resume_at - now)
        return NodePreview(node["id"], self.name, note=f"waits {waited}, until {_moment(until)}")


def milliseconds(wait: timedelta) -> int:
    return int(wait.total_seconds() * 1000)


def _spelled(wait: timedelta) -> str:
    """A wait in its two largest units ("2d 12h")."""
    total = float(round(max(wait.total_seconds(), 0.0)))
    units = (("d", 86400), ("h", 3600), ("m", 60), ("s", 1))
    for (big, big_size), (small, small_size) in itertools.pairwise(units):
        if total >= big_size:  # rounded to the smaller unit: 2d 11h 59m 59s is "2d 12h"
            whole, rest = divmod(round(total / small_size) * small_size, big_size)
            return f"{whole}{big} {rest // small_size}{small}" if rest else f"{whole}{big}"
    return f"{round(total)}s"


def _moment(when: datetime) -> str:
    """A time to the minute (to the second when it has seconds), with its zone: "UTC" or the
    offset of the zone it was computed in ("2026-03-30 09:00 +02:00")."""
    shown = when.strftime("%Y-%m-%d %H:%M:%S" if when.second else "%Y-%m-%d %H:%M")
    offset = when.utcoffset()
    if not offset:
        return f"{shown} UTC"
    sign, minutes = (
        ("+" if offset >= timedelta(0) else "-"),
        abs(round(offset.total_seconds() / 60)),
    )
    return f"{shown} {sign}{minutes // 60:02d}:{minutes % 60:02d}"
