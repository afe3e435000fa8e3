"""Loading a history with `INSERT … SELECT generate_series`, a batch of rows a transaction (the
funnel's and the purge's loaders)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import psycopg


def batches_load(
    conn: psycopg.Connection,
    statements: str,
    *,
    count: int,
    batch: int,
    on_batch: Callable[[int], object] | None = None,
    **params: Any,
) -> None:
    """Run `statements` (separated by a line that ends in `;` and a blank line) for the rows
    numbered 1 to `count`, `batch` of them a transaction: each statement is given `first` and
    `last`, the batch's numbers, beside `params`; `on_batch(last)` after each commit."""
    for first in range(1, count + 1, batch):
        last = min(count, first + batch - 1)
        with conn.transaction():
            for statement in statements.split(";\n\n"):
                conn.execute(statement, {**params, "first": first, "last": last})
        if on_batch is not None:
            on_batch(last)
