"""The email node type: `to`, `subject`, `body` (and `html`), sent on the email channel."""

from __future__ import annotations

import re
from email.utils import formataddr, getaddresses
from functools import lru_cache
from typing import TYPE_CHECKING, Any, ClassVar

from django.conf import settings
from django.core.exceptions import ValidationError
from django.core.validators import validate_email

from workflows.layouts import KEY_PATTERN, layout_problem, message_laid_out
from workflows.nodes.base import Problem, Rendered, RenderError
from workflows.nodes.sending import SendingType
from workflows.templating import TemplateError

if TYPE_CHECKING:
    from django import forms

# The rendered fields that become email headers.
HEADER_FIELDS = ("to", "subject")
# What can end a header line between here and the inbox: Python's email package breaks lines on
# \v \f \x1c-\x1e \x85 \u2028 \u2029 as well as \r \n (str.splitlines), and no other control
# character but tab belongs in a header either (C0, DEL, C1).
_HEADER_BREAKING = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u2028\u2029]")


def header_value_problem(value: str) -> str:
    """Why `value` cannot be an email header's value (header injection), or "" when it can."""
    found = _HEADER_BREAKING.search(value)
    if found is None:
        return ""
    return f"a line break or control character ({found.group()!r}); a header is one line"


class EmailNode(SendingType):
    name = "email"
    channel = "email"
    required = ("subject", "body")
    # to: left out, the run's recipient's email (docs/design/recipients.md, "Recipients").
    # max_recipients: how many addresses `to` may render to (1 unless set; docs/security/content.md).
    # provider: the named provider to send through first (docs/design/channels.md, "Providers").
    # skip_suppressed: a suppressed recipient skips the node instead of failing the run.
    # skip_missing: no `to` and no recipient's email skips the node instead of failing the run.
    # layout: the layout's key (docs/layouts.md); left out, the workflow's or the installation's.
    optional = (
        "to",
        "html",
        "layout",
        "max_recipients",
        "provider",
        "skip_suppressed",
        "skip_missing",
    )
    templates = ("to", "subject", "body", "html")
    html = ("html",)
    colours = ("#e8f1fb", "#2f6fb5")
    field_schemas: ClassVar[dict[str, dict[str, Any]]] = {
        **SendingType.field_schemas,
        "max_recipients": {"type": "integer", "minimum": 1},
        "layout": {"type": "string", "pattern": KEY_PATTERN.pattern},
    }
    form_groups = (
        ("to",),
        ("subject",),
        ("body",),
        ("html",),
        ("layout",),
        ("provider",),
        ("skip_suppressed",),
        ("skip_missing",),
    )

    def problems(self, node: dict[str, Any]) -> list[Problem]:
        found = super().problems(node)
        if "max_recipients" in node:
            value, ceiling = node["max_recipients"], settings.NOTIFLOW_MAX_RECIPIENTS
            if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= ceiling:
                found.append(("max_recipients", f"must be a whole number from 1 to {ceiling}"))
        if node.get("layout") not in (None, "") and (problem := layout_problem(node["layout"])):
            found.append(("layout", problem))
        return found

    def message_finish(
        self, node: dict[str, Any], rendered: Rendered, context: dict[str, Any]
    ) -> Rendered:
        """The email in its layout (workflows.layouts: the node's, the tenant's, the
        workflow's, the installation's), when it has one."""
        try:
            return message_laid_out(node, rendered, context)
        except TemplateError as exc:
            raise RenderError(f"node {node['id']!r}: {exc}", field="layout") from exc

    def category_problems(self, node: dict[str, Any], *, marketing: bool) -> list[Problem]:
        """Marketing email goes to one recipient per message: each carries that recipient's own
        one-click unsubscribe link."""
        if marketing and node.get("max_recipients", 1) not in (1, None):
            message = (
                "must be 1 in a marketing workflow (each message carries its recipient's own "
                "unsubscribe link)"
            )
            return [("max_recipients", message)]
        return []

    def recipient_check(self, node: dict[str, Any], rendered: Rendered) -> Rendered:
        """The rendered fields as they will be sent (`to` normalised), or RenderError when they
        cannot be: an empty or malformed recipient, more recipients than the node allows
        (`max_recipients`, 1 unless set), a header field with a character that can end a header
        line (header injection: header_value_problem)."""
        where = f"node {node['id']!r}"
        for name in HEADER_FIELDS:
            if problem := header_value_problem(rendered.get(name, "")):
                raise RenderError(f"{where}: {name!r} rendered {problem}", field=name)
        recipient = rendered.get("to", "").strip()
        if not recipient:
            raise RenderError(f"{where}: recipient 'to' rendered empty", field="to")
        return {**rendered, "to": _email_recipients(node, recipient, where)}

    def recipients(self, node: dict[str, Any], rendered: Rendered) -> list[str]:
        return [address for _, address in email_addresses(rendered["to"])]

    def form_fields(self) -> dict[str, forms.Field]:
        from django import forms

        return {
            **super().form_fields(),
            "subject": forms.CharField(required=False, strip=False),
            # Full-width boxes, tall enough to read a real message without scrolling inside.
            "body": forms.CharField(
                required=False, strip=False, widget=forms.Textarea(attrs={"rows": 6})
            ),
            "html": forms.CharField(
                required=False,
                strip=False,
                label="HTML body",
                widget=forms.Textarea(attrs={"rows": 4}),
                help_text="optional",
            ),
            "layout": forms.CharField(
                required=False,
                max_length=64,
                help_text="optional: the layout's key; empty: the workflow's default layout",
            ),
        }


@lru_cache(maxsize=256)
def email_addresses(value: str) -> tuple[tuple[str, str], ...]:
    """The (name, address) pairs of an email `to` value, as email.utils.getaddresses reads them.
    A send step reads its `to` four times (the check, the suppression list, the caps, the
    send): parsed once (the parser was a tenth of a send step's Python time)."""
    return tuple(getaddresses([value]))


def _email_recipients(node: dict[str, Any], recipient: str, where: str) -> str:
    allowed = int(node.get("max_recipients") or 1)
    addresses = [(name, address) for name, address in email_addresses(recipient) if address]
    if not addresses:
        raise RenderError(f"{where}: {recipient!r} is not an email address", field="to")
    if len(addresses) > allowed:
        raise RenderError(
            f"{where}: 'to' rendered {len(addresses)} recipients, more than max_recipients "
            f"({allowed})",
            field="to",
        )
    for _, address in addresses:
        # The parser keeps a word of `not an email`, and glues `a@example.com junk` into one
        # address: what it found must be an address, and be written so in the value.
        if _is_email(address) and address in recipient:
            continue
        named = repr(recipient) if len(addresses) == 1 else f"{address!r} (in {recipient!r})"
        raise RenderError(f"{where}: {named} is not an email address", field="to")
    return ", ".join(formataddr(pair) for pair in addresses)


def email_check_warm() -> None:
    """Compile what checking an address compiles on its first use in a process: Django's email
    validator's regular expressions (lazy; some 40 ms of CPU, most of it the domain's). A
    prefork worker's main process calls it before it forks its pool, so that its pool processes
    inherit them instead of compiling them each (notiflow/celery.py)."""
    _is_email("warm@example.com")


def _is_email(address: str) -> bool:
    try:
        validate_email(address)
    except ValidationError:
        return False
    return True
