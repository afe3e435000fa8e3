"""How a step fails decides what happens next (docs/design.md, rule 7)."""

from datetime import timedelta


class StepError(Exception):
    """A node could not do its job."""


class TransientError(StepError):
    """Worth retrying: timeouts, refused connections, SMTP 4xx, HTTP 5xx and 429."""


class PermanentError(StepError):
    """Retrying cannot help: a template that does not render (whatever it raised, a render budget
    included), no recipient, a header value that could end its line or that Python's email
    package cannot parse (HeaderParseError), SMTP 5xx, HTTP 4xx."""


class RateLimited(Exception):
    """The provider's rate limit has no token for this send until `wait` has passed (our own
    limit, or the provider's 429 with Retry-After): the step is put back, not failed, and not
    counted as an attempt."""

    def __init__(self, provider: str, wait: timedelta):
        super().__init__(f"provider {provider!r} rate limit: waits {wait.total_seconds():.3f}s")
        self.provider = provider
        self.wait = wait


class RetryAfter(StepError):
    """The provider answered 429 with `Retry-After`: it took nothing and asks to wait. The engine
    puts the step back for `wait_seconds`, not counted as an attempt (as a provider's own rate
    limit does: docs/design.md, "Providers")."""

    def __init__(self, message: str, *, wait_seconds: float):
        super().__init__(message)
        self.wait_seconds = wait_seconds
