"""notiflow-client: trigger Notiflow workflows from Python with idempotency, safe retries and
typed errors; verify its webhooks; render its inbox widget (README.md)."""

from ._version import __version__
from .aio import AsyncNotiflow
from .client import Notiflow
from .errors import (
    BadRequest,
    Conflict,
    ConnectionFailed,
    Forbidden,
    IdempotencyConflict,
    NotFound,
    NotiflowError,
    RateLimited,
    ServerError,
    Unauthorized,
    Unavailable,
)
from .inbox import inbox_token, inbox_widget
from .models import (
    BulkItem,
    Cancelled,
    Delivery,
    EventResult,
    Fanout,
    Recipient,
    Run,
    StepLog,
    Subscriber,
    Subscription,
    SubscriptionChange,
    Tenant,
    Topic,
)

__all__ = [
    "AsyncNotiflow",
    "BadRequest",
    "BulkItem",
    "Cancelled",
    "Conflict",
    "ConnectionFailed",
    "Delivery",
    "EventResult",
    "Fanout",
    "Forbidden",
    "IdempotencyConflict",
    "NotFound",
    "Notiflow",
    "NotiflowError",
    "RateLimited",
    "Recipient",
    "Run",
    "ServerError",
    "StepLog",
    "Subscriber",
    "Subscription",
    "SubscriptionChange",
    "Tenant",
    "Topic",
    "Unauthorized",
    "Unavailable",
    "__version__",
    "inbox_token",
    "inbox_widget",
]
