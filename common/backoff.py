"""Exponential backoff with jitter, the one rule for every retry (steps and webhook deliveries)."""

from __future__ import annotations

import random
from datetime import timedelta


def backoff(attempts: int, *, base: float, jitter: float, maximum: float) -> timedelta:
    """base * 2^(attempts-1) seconds, stretched by up to `jitter` (a fraction) at random so that
    retries of many failures spread out, and never longer than `maximum`."""
    delay = base * 2 ** (attempts - 1)
    stretched = delay * (1 + random.random() * jitter)
    return timedelta(seconds=min(stretched, maximum))
