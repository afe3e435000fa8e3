"""The hooks recipients calls (common/hooks.py; docs/design/hooks.md, "Hooks"), and what it registers
in workflows'."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from common.hooks import Hook

if TYPE_CHECKING:
    from recipients.models import Recipient

# What the rooms above keep of a person, erased with them in the same transaction
# (recipients.services.recipient_erase): each a function of the person's key returning how many
# of each thing it removed, by its name in the erase's answer.
ERASERS: Hook[Callable[[str], dict[str, int]]] = Hook()
# Panels on a recipient's admin page below the profile, each a function of the recipient
# returning its HTML (recipients.admin.recipient_panel builds one), in the order registered.
RECIPIENT_PAGE_PANELS: Hook[Callable[[Recipient], str]] = Hook()


def register() -> None:
    from recipients.selectors import category_exists
    from workflows.hooks import CATEGORY_EXISTS

    CATEGORY_EXISTS.register(category_exists)
