"""A tiny history as the bench's scale part loads it (bench/scale.py's statement), in the test's
transaction: completed runs of the bench's three-step workflow, three step logs each, 60 days
old, in the step log's old table (no run_created_at)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from workflows.models import Workflow


def tiny_history(runs: int) -> Workflow:
    """A new workflow with `runs` completed runs; the workflow."""
    from django.db import connection

    from bench.fixtures import ENGINE_DEFINITION
    from bench.scale import LOAD_SQL
    from tests.factories import WorkflowFactory

    history = WorkflowFactory.create(definition=ENGINE_DEFINITION)
    with connection.cursor() as cursor:
        cursor.execute(
            LOAD_SQL,
            {
                "workflow": history.pk,
                "version": history.current_version_id,
                "first": 1,
                "last": runs,
            },
        )
    return history
