"""The bulk actions' tally (chaos/actions.py) from the rows PostgreSQL would answer: each run
replayed once and cancelled once meets every target, and each way of acting on a run twice, or
not at all, is a miss that names it."""

from __future__ import annotations

from typing import Any

from chaos.actions import (
    _ACTION_SQL,
    _OPEN_WAITS_SQL,
    REPLAY_WORKFLOW_KEY,
    Actions,
    tally_actions,
)

FIRED = {
    "replay": {"chaos-replay-00000": "r0", "chaos-replay-00001": "r1"},
    "cancel": {"chaos-cancel-00000": "c0", "chaos-cancel-00001": "c1"},
}
IDS = {"replay": "A", "cancel": "B"}


def rows(replays: list[tuple[Any, ...]], cancels: list[tuple[Any, ...]], open_waits: int = 0):
    """A query answering as the database would after the run."""

    def query(sql: str, params: Any = None) -> list[tuple[Any, ...]]:
        if sql == _ACTION_SQL:
            return [("done", 2, 2, 0, 0, "")]
        if sql == _OPEN_WAITS_SQL:
            return [(open_waits,)]
        originals = [("r0", "chaos-replay-00000", "completed", 1, 0)]
        originals.append(("r1", "chaos-replay-00001", "completed", 1, 0))
        return originals + replays if params == [REPLAY_WORKFLOW_KEY] else cancels

    return query


def tallied(query: Any) -> Actions:
    actions = Actions()
    tally_actions(actions, query=query, runs=2, fired=FIRED, action_ids=IDS)
    return actions


ONCE = [
    ("x0", "replay:A:r0", "completed", 1, 0),
    ("x1", "replay:A:r1", "completed", 1, 0),
]
CANCELLED = [
    ("c0", "chaos-cancel-00000", "cancelled", 1, 1),
    ("c1", "chaos-cancel-00001", "cancelled", 1, 1),
]


def test_each_run_acted_on_once_meets_every_target():
    actions = tallied(rows(ONCE, CANCELLED))
    assert actions.misses() == []
    assert (actions.replayed_once, actions.cancelled_once) == (2, 2)
    assert (actions.replay.status, actions.cancel.done) == ("done", 2)


def test_a_run_replayed_twice_or_never_and_a_stranger_are_misses():
    twice = [*ONCE, ("x2", "replay:A:r0", "completed", 1, 0)]
    assert "1 run(s) replayed twice" in tallied(rows(twice, CANCELLED)).misses()
    assert "1 run(s) never replayed" in tallied(rows(ONCE[:1], CANCELLED)).misses()
    other = [*ONCE, ("x3", "replay:Z:r0", "completed", 1, 0)]
    assert (
        "1 run(s) of the replayed workflow unaccounted" in tallied(rows(other, CANCELLED)).misses()
    )


def test_a_run_cancelled_twice_or_not_at_all_and_an_open_wait_are_misses():
    twice = [CANCELLED[0], ("c1", "chaos-cancel-00001", "cancelled", 1, 2)]
    assert "1 run(s) cancelled twice" in tallied(rows(ONCE, twice)).misses()
    waiting = [CANCELLED[0], ("c1", "chaos-cancel-00001", "waiting", 1, 0)]
    assert "1 run(s) not cancelled" in tallied(rows(ONCE, waiting)).misses()
    assert "1 run(s) not cancelled" in tallied(rows(ONCE, CANCELLED[:1])).misses()
    assert "1 cancelled run(s) with their wait open" in tallied(rows(ONCE, CANCELLED, 1)).misses()
