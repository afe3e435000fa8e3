"""What the registry registers in workflows' hooks (common/hooks.py; docs/design/hooks.md, "Hooks")."""


def register() -> None:
    from registry.selectors import queue_unserved_warnings
    from workflows.hooks import SAVE_WARNING_HOOKS

    SAVE_WARNING_HOOKS.register(queue_unserved_warnings)
