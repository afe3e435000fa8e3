"""Custom migration operations the apps' migrations share (migration files import them from here,
so what a migration did stays what it does)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.contrib.postgres.operations import AddIndexConcurrently


class AddIndexConcurrentlyWhereItCan(AddIndexConcurrently):
    """Concurrently when the migration runs as deployed (atomic = False, no transaction); plainly
    when a caller migrates inside a transaction of its own (a test that migrates back and forth
    in its test transaction), where PostgreSQL refuses CONCURRENTLY: the same index either way."""

    def _ensure_not_in_transaction(self, schema_editor: Any) -> None:
        pass

    def database_forwards(
        self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any
    ) -> None:
        self._index_change(app_label, schema_editor, to_state, schema_editor.add_index)

    def database_backwards(
        self, app_label: str, schema_editor: Any, from_state: Any, to_state: Any
    ) -> None:
        self._index_change(app_label, schema_editor, from_state, schema_editor.remove_index)

    def _index_change(
        self, app_label: str, schema_editor: Any, state: Any, change: Callable[..., None]
    ) -> None:
        """`change` (the schema editor's add_index or remove_index) on the model as `state` has
        it: CONCURRENTLY unless in a transaction."""
        model = state.apps.get_model(app_label, self.model_name)
        if self.allow_migrate_model(schema_editor.connection.alias, model):
            change(model, self.index, concurrently=not schema_editor.connection.in_atomic_block)
