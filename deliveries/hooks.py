"""What deliveries registers in the hooks of the rooms below (common/hooks.py; docs/design/hooks.md,
"Hooks")."""


def register() -> None:
    from deliveries.admin import recipient_deliveries_panel, recipient_suppressions_panel
    from deliveries.funnel_admin import workflow_funnel_panel
    from deliveries.selectors import delivery_timeline
    from deliveries.why_admin import recipient_why_panel
    from recipients.hooks import RECIPIENT_PAGE_PANELS
    from triggers.hooks import TIMELINE_SOURCES
    from workflows.hooks import WORKFLOW_PAGE_PANELS

    TIMELINE_SOURCES.register(delivery_timeline)
    RECIPIENT_PAGE_PANELS.register(recipient_deliveries_panel)
    RECIPIENT_PAGE_PANELS.register(recipient_suppressions_panel)
    RECIPIENT_PAGE_PANELS.register(recipient_why_panel)
    WORKFLOW_PAGE_PANELS.register(workflow_funnel_panel)  # after triggers' run charts
