"""The chaos run's count of its waiting runs (chaos/waits.py), on rows made up here: a run resumed
the right way passes; the other branch, another run's event, two resumptions, a run not
completed and a wait left open are each a miss. (The chaos run itself is `make chaos`.)"""

from __future__ import annotations

from collections import Counter

from chaos.waits import TIMEOUT_WORKFLOW_KEY, WAIT_WORKFLOW_KEY, EventPosting, Waits, tally_waits


def received(n: str) -> dict:
    return {"received": True, "timed_out": False, "event": {"data": {"n": n}}}


TIMED_OUT = {"received": False, "timed_out": True, "event": None}
GOOD = [
    (WAIT_WORKFLOW_KEY, "completed", received("w0"), "w0", 1, "got"),
    (WAIT_WORKFLOW_KEY, "completed", received("w1"), "w1", 1, "got"),
    (TIMEOUT_WORKFLOW_KEY, "completed", TIMED_OUT, "t0", 1, "late"),
]


def counted(rows: list[tuple], open_waits: int = 0) -> Waits:
    def query(sql: str, params=None) -> list[tuple]:
        return [(open_waits,)] if "event_wait" in sql else rows

    posting = EventPosting(base_url="", headers={}, threads=1)
    posting.answers = Counter({201: 2, 200: 1})
    waits = Waits()
    tally_waits(waits, query=query, runs=2, timeouts=1, fired=3, posting=posting)
    return waits


def test_runs_resumed_once_the_right_way_meet_every_target():
    waits = counted(GOOD)
    assert waits.misses() == []
    assert (waits.received, waits.timed_out, waits.events_repeated) == (2, 1, 1)
    assert ("waiting runs (event / timeout)", "2 / 1") in waits.rows()


def test_each_wrong_outcome_is_a_miss():
    wrong = [
        (WAIT_WORKFLOW_KEY, "completed", received("w1"), "w0", 1, "got"),  # another's event
        (WAIT_WORKFLOW_KEY, "completed", received("w1"), "w1", 2, "got"),  # resumed twice
        (TIMEOUT_WORKFLOW_KEY, "completed", TIMED_OUT, "t0", 1, "got"),  # the other branch
    ]
    waits = counted(wrong)
    assert (waits.wrong, waits.resumed_twice, waits.received, waits.timed_out) == (2, 1, 0, 0)
    assert len(waits.misses()) == 4

    stuck = counted([*GOOD[:2], (TIMEOUT_WORKFLOW_KEY, "waiting", None, "t0", 0, "")], 1)
    assert stuck.not_completed == 1 and stuck.open_waits == 1
    assert any("left open" in miss for miss in stuck.misses())
    assert counted(GOOD[:2]).missing == 1
