"""The hooks events calls (common/hooks.py; docs/design/hooks.md, "Hooks"). Events know nothing of
triggers but their ids."""

from __future__ import annotations

from collections.abc import Callable
from uuid import UUID

from common.hooks import Hook

# A run's stored trace context (its traceparent, or "" when it has none or is gone), which the
# webhook dispatcher reads while tracing is on: the first non-empty answer is the one.
RUN_TRACE_CONTEXT: Hook[Callable[[UUID], str]] = Hook()
