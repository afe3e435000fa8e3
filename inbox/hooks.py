"""The hooks the inbox calls (common/hooks.py; docs/design/hooks.md, "Hooks"), and what it registers
in recipients'."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from common.hooks import Hook

# Called with (mark, the changed rows of inbox.services.MARK_RETURNS) after a mark committed.
MARKED_HOOKS: Hook[Callable[[str, list[dict[str, Any]]], object]] = Hook()


def register() -> None:
    from inbox.admin import recipient_inbox_panel
    from inbox.services import inbox_erase
    from recipients.hooks import ERASERS, RECIPIENT_PAGE_PANELS

    # Erasing a person (DELETE /api/recipients/<id>/, the admin's erase) deletes their in-app
    # messages in the same transaction.
    ERASERS.register(inbox_erase)
    RECIPIENT_PAGE_PANELS.register(recipient_inbox_panel)
