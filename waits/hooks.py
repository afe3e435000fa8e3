"""What waits registers in the hooks of the rooms below (common/hooks.py; docs/design/hooks.md,
"Hooks")."""


def register() -> None:
    from inbox.hooks import MARKED_HOOKS
    from triggers.hooks import CANCELLED_HOOKS
    from waits.messages import inbox_marked
    from waits.services import waits_cancel

    # In-app seen/read resume message waits: the inbox calls this after a mark commits.
    MARKED_HOOKS.register(inbox_marked)
    # A cancelled run's open wait is closed in the cancel's transaction.
    CANCELLED_HOOKS.register(waits_cancel)
