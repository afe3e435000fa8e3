"""The sweeper (docs/design/rules.md, rules 1 and 5): PostgreSQL decides what is due; the broker only
nudges. The policy is the leased-work primitive's (common/leased_work.py), for runs
(triggers/work.py)."""

from __future__ import annotations

from common.leased_work import work_sweep
from triggers.dispatch import Nudge
from triggers.work import RUNS


def sweep() -> list[list[Nudge]]:
    """Nudge every trigger whose lease expired, then every one due; return the batches of nudges
    it published, each to its workflow's queue at its priority (docs/design/rules.md, rule 11), the
    most urgent first. Looks one sweep interval ahead and sets a countdown, so a long delay fires
    on time rather than up to one interval late; re-sends a lost nudge only while the workflows'
    queues together are short (common/leased_work.py, back-pressure)."""
    return work_sweep(RUNS)
