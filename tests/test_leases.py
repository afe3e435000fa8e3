"""The lease-expired rule has one home (common/leases.py, the SQL function
notiflow_lease_expired_v1): every statement and queryset calls it, PostgreSQL inlines it (the
plans are those of the bare comparison), and the Python reading of a row agrees with it."""

from __future__ import annotations

import re
from datetime import timedelta
from uuid import uuid4

import pytest
from django.db import connection
from django.utils import timezone

from common.leased_work import sweep_params
from common.leases import LEASE_EXPIRED_FUNCTION, lease_expired, lease_expired_sql
from tests.support.functions import claim_lock_sql
from tests.support.sources import project_sources
from tests.support.stack import ROOT
from triggers.work import RUNS

# A comparison of a lease with a moment, in SQL or in the ORM, written out by hand.
BY_HAND = re.compile(r"lease_until\s*[<>]|lease_until__(lt|lte|gt|gte)\b|lease_until\s*<\s*now")


def test_no_lease_is_compared_with_a_moment_but_in_the_rules_home():
    found = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in project_sources()
        if path.name != "leases.py"
        for number, line in enumerate(path.read_text().splitlines(), 1)
        if BY_HAND.search(line)
    ]
    assert found == [], f"lease tests written by hand (use common/leases.py): {found}"


def explain(sql: str, params: dict | None = None) -> str:
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("EXPLAIN (COSTS OFF, VERBOSE) " + sql, params)
        return "\n".join(row[0] for row in cursor.fetchall())


@pytest.mark.django_db
def test_the_function_is_inlined_so_the_plans_are_those_of_the_bare_comparison():
    bare = "SELECT id FROM trigger_instance WHERE status = 'processing' AND lease_until < statement_timestamp()"
    called = bare.replace(
        "lease_until < statement_timestamp()",
        lease_expired_sql("lease_until", "statement_timestamp()"),
    )
    assert explain(called) == explain(bare)
    params = sweep_params(RUNS, renudge_lost=True)
    plan = explain(RUNS.sweep_expired_sql, params)
    assert LEASE_EXPIRED_FUNCTION not in plan and "lease_until < statement_timestamp())" in plan
    by_hand = RUNS.sweep_expired_sql.replace(
        lease_expired_sql(), "lease_until < statement_timestamp()"
    )
    assert by_hand != RUNS.sweep_expired_sql and explain(by_hand, params) == plan
    claim, params = claim_lock_sql(), {"id": uuid4()}
    by_hand = claim.replace(
        "public." + lease_expired_sql("p.lease_until"), "p.lease_until < statement_timestamp()"
    )
    assert by_hand != claim and explain(by_hand, params) == explain(claim, params)


@pytest.mark.django_db
@pytest.mark.parametrize("offset", [None, -1, 0, 1])
def test_the_python_reading_agrees_with_the_function(offset):
    at = timezone.now()
    lease = None if offset is None else at + timedelta(seconds=offset)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {LEASE_EXPIRED_FUNCTION}(%s, %s)", [lease, at])
        (answer,) = cursor.fetchone()
    assert bool(answer) == lease_expired(lease, at)
