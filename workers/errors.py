"""How a step fails decides what happens next (docs/design/rules.md, rule 7)."""

from datetime import timedelta
from typing import Any

from workflows.nodes.base import StepFailed


class StepError(StepFailed):
    """A node could not do its job. `rule` and `evidence`, when given, are what the step log's
    decision names (workflows.decisions: a send cap, a suppression that fails a send)."""

    def __init__(self, message: str, *, rule: str = "", evidence: dict[str, Any] | None = None):
        super().__init__(message)
        self.rule = rule
        self.evidence = evidence or {}


class TransientError(StepError):
    """Worth retrying: timeouts, refused connections, SMTP 4xx, HTTP 5xx and 429."""

    transient = True


class PermanentError(StepError):
    """Retrying cannot help: a template that does not render (whatever it raised, a render budget
    included), no recipient, a header value that could end its line or that Python's email
    package cannot parse (HeaderParseError), SMTP 5xx, HTTP 4xx."""


class RateLimited(Exception):
    """The provider's rate limit has no token for this send until `wait` has passed: our own
    limit, or the provider's answer asking to wait (a 429 with Retry-After: Slack, Teams, web
    push, FCM). The step is put back, not failed, and not counted as an attempt. `reached` says
    whether this attempt sent anything before the wait (a push to several addresses, some
    accepted): the send ledger then counts it as having reached the provider."""

    def __init__(
        self,
        provider: str,
        wait: timedelta,
        *,
        reached: bool = False,
        vars_patch: dict[str, Any] | None = None,
    ):
        super().__init__(f"provider {provider!r} rate limit: waits {wait.total_seconds():.3f}s")
        self.provider = provider
        self.wait = wait
        self.reached = reached
        # What the run keeps of the wait (a fetch's time waited so far), released with it.
        self.vars_patch = vars_patch
