"""Delivery events: what providers report about messages they accepted (docs/design.md)."""
