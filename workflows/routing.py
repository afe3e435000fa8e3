"""Where a workflow's runs go and how urgently (docs/design/rules.md, rule 11): workflow keys, queues
and priorities. The mapping of a priority to a broker's own convention is common/broker.py's."""

from __future__ import annotations

from django.core.validators import RegexValidator

# Letters, digits, `_` and `-` in dot-separated segments: `billing.invoice_due.v1`, `welcome`.
NAME_REGEX = r"[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*"
NAME_PATTERN = f"^{NAME_REGEX}$"
NAME_MAX_LENGTH = 100
NAME_RULE = "letters, digits, '_' and '-', in segments separated by single dots"

key_validator = RegexValidator(NAME_PATTERN, f"a workflow key has {NAME_RULE}")
queue_validator = RegexValidator(NAME_PATTERN, f"a queue name has {NAME_RULE}")

DEFAULT_QUEUE = "default"

# Higher is more urgent.
PRIORITY_MIN, PRIORITY_MAX, PRIORITY_DEFAULT = 0, 9, 5


class KeyConverter:
    """The URL converter for a workflow key (notiflow/urls.py): any other path is a 404."""

    regex = NAME_REGEX

    def to_python(self, value: str) -> str:
        return value

    def to_url(self, value: str) -> str:
        return value


def default_queue(key: str) -> str:
    """A workflow's queue unless set: its dotted key's first segment, `default` for a key
    without a dot."""
    head, dot, _ = key.partition(".")
    return head if dot else DEFAULT_QUEUE
