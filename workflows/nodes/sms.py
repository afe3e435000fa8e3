"""The SMS node type: `to` (a phone number) and `body`, sent on the sms channel."""

from __future__ import annotations

import re
from typing import Any

from workflows.nodes.base import Rendered, RenderError
from workflows.nodes.email import HEADER_FIELDS, header_value_problem
from workflows.nodes.sending import SendingType

# E.164: a plus, a country code that does not start with 0, at most 15 digits in all. Spaces,
# dashes, dots and parentheses between the digits are dropped first.
_E164 = re.compile(r"^\+[1-9]\d{1,14}$")
_PHONE_PUNCTUATION = re.compile(r"[\s().-]")


class SmsNode(SendingType):
    name = "sms"
    channel = "sms"
    required = ("body",)
    # to: left out, the run's recipient's phone (docs/design/recipients.md, "Recipients").
    optional = ("to", "provider", "skip_suppressed", "skip_missing")
    templates = ("to", "body")
    colours = ("#eaf6ec", "#2e8b47")
    form_groups = (("to",), ("body",), ("provider",), ("skip_suppressed",), ("skip_missing",))

    def recipient_check(self, node: dict[str, Any], rendered: Rendered) -> Rendered:
        """The rendered fields with `to` in E.164 form, or RenderError."""
        where = f"node {node['id']!r}"
        for name in HEADER_FIELDS:
            if problem := header_value_problem(rendered.get(name, "")):
                raise RenderError(f"{where}: {name!r} rendered {problem}", field=name)
        recipient = rendered.get("to", "").strip()
        if not recipient:
            raise RenderError(f"{where}: recipient 'to' rendered empty", field="to")
        number = _PHONE_PUNCTUATION.sub("", recipient)
        if not _E164.match(number):
            raise RenderError(
                f"{where}: {recipient!r} is not a phone number in E.164 form (+15550100)",
                field="to",
            )
        return {**rendered, "to": number}
