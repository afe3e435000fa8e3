"""The bench's EXPLAIN part reads a run's logs as the API does, and its row says which of the
history's partitions each plan read (issue 51 §4: partition pruning visible)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest


@pytest.mark.django_db
def test_a_runs_logs_are_read_from_its_partition_and_the_old_table_only():
    from bench.explain import plans
    from bench.rows import _explain_rows
    from tests.support.history import tiny_history

    # A history as the scale part loads it (60 days old, in the old table: no run_created_at).
    history = tiny_history(20)

    found = {plan.name: plan for plan in plans(history)}

    # The runs are older than the migration: their partition is step_log_before.
    assert found["logs of a trigger (API)"].partitions == ["step_log_before", "step_log_legacy"]
    # Across runs, every partition: the week ahead's too.
    by_node = found["logs of a node, first page (API)"].partitions
    assert {"step_log_before", "step_log_legacy"} < set(by_node) and len(by_node) > 4

    bench = SimpleNamespace(cmd=lambda only, **sizes: f"make bench {only}")
    [row] = _explain_rows(bench, {"explain": list(found.values())})
    assert "logs of a trigger (API) " in row.result
    assert "(reads step_log_before, step_log_legacy)" in row.result
    assert f"(reads {len(by_node)} partitions)" in row.result
