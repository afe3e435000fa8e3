"""The one home of "the lease expired" (docs/design/rules.md, rule 3): the lease of a trigger or of a
webhook delivery, `lease_until`, has expired when it is before the moment it is compared with
(the database's clock, statement_timestamp(), in the engine's statements). A NULL lease has not
expired (no lease); the
callers that also take an absent lease as free say so (`lease_free`; in SQL,
`notiflow_purge_deleted_v2`, workers migration 0013, which calls the function).

In SQL the rule is the function `notiflow_lease_expired_v1(lease_until, at)` (migration triggers
0011), which every statement and queryset that asks calls. It is one comparison in a LANGUAGE sql
IMMUTABLE function, which PostgreSQL inlines when it plans: the plans see `lease_until < at` and
use the indexes on `lease_until` exactly as before (tests/test_leases.py holds it with EXPLAIN).
A change of the rule is a new function (`_v2`) in a new migration and the new name here: the
statements that connections have prepared keep the one they were planned with.

`lease_expired()` is the same rule on a row already read (the operator's requeue); a test holds it
equal to the function's answers.
"""

from __future__ import annotations

import uuid
from datetime import datetime
from typing import Any

from django.db.models import BooleanField, Expression, F, Func, Value

LEASE_EXPIRED_FUNCTION = "notiflow_lease_expired_v1"


def lease_expired_sql(lease_until: str = "lease_until", at: str = "statement_timestamp()") -> str:
    """SQL: the lease in column `lease_until` has expired at `at` (SQL text of a timestamptz)."""
    return f"{LEASE_EXPIRED_FUNCTION}({lease_until}, {at})"


class LeaseExpired(Func):
    """The ORM's call of the function: `.filter(LeaseExpired(Now()))`, `~LeaseExpired(...)`."""

    function = LEASE_EXPIRED_FUNCTION
    output_field = BooleanField()

    def __init__(self, at: Expression | datetime, lease_until: str = "lease_until") -> None:
        moment: Any = at if isinstance(at, Expression) else Value(at)
        super().__init__(F(lease_until), moment)


def lease_expired(lease_until: datetime | None, at: datetime) -> bool:
    """The rule on a row already in hand (as the function would answer; NULL is not expired)."""
    return lease_until is not None and lease_until < at


def lease_free(lease_until: datetime | None, at: datetime) -> bool:
    """No live lease: none at all, or an expired one (on a row already in hand)."""
    return lease_until is None or lease_expired(lease_until, at)


def lease_token(worker_id: str) -> str:
    """A token unique to one claim, `<worker>/<random>`: what a fenced release compares with
    `leased_by` (docs/design/rules.md, rule 3)."""
    return f"{worker_id}/{uuid.uuid4().hex[:12]}"
