"""What deliveries registers in the hooks of the rooms below (common/hooks.py; docs/design.md,
"Hooks")."""


def register() -> None:
    from deliveries.admin import recipient_deliveries_panel, recipient_suppressions_panel
    from deliveries.selectors import delivery_timeline
    from deliveries.why_admin import recipient_why_panel
    from recipients.hooks import RECIPIENT_PAGE_PANELS
    from triggers.hooks import TIMELINE_SOURCES

    TIMELINE_SOURCES.register(delivery_timeline)
    RECIPIENT_PAGE_PANELS.register(recipient_deliveries_panel)
    RECIPIENT_PAGE_PANELS.register(recipient_suppressions_panel)
    RECIPIENT_PAGE_PANELS.register(recipient_why_panel)
