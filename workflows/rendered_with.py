"""What content a step's messages were rendered with (docs/layouts.md, "5. Versions, and the step log"): the
versions of the layouts, partials and translation catalogs a render used, which the engine keeps
in the step log's `input.content`. Noted where each is used (the layout, the partials' loader,
the catalogs' lookup), gathered for the step that asked (rendered_with_recorded); outside one,
noting costs nothing and keeps nothing."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

# What the kinds are called in the record, each {key: version}.
KINDS = ("layouts", "partials", "catalogs")

_record: ContextVar[dict[str, dict[str, int]] | None] = ContextVar(
    "notiflow_rendered_with", default=None
)


@contextmanager
def rendered_with_recorded() -> Iterator[dict[str, dict[str, int]]]:
    """Gather, for the block, the content versions its renders use: {kind: {key: version}},
    only the kinds used."""
    record: dict[str, dict[str, int]] = {}
    token = _record.set(record)
    try:
        yield record
    finally:
        _record.reset(token)


def rendered_with_note(kind: str, key: str, version: int) -> None:
    """Note that a render used `key`'s `version` of `kind` (one of KINDS)."""
    record = _record.get()
    if record is not None:
        record.setdefault(kind, {})[key] = version


def rendered_with_current() -> dict[str, dict[str, int]]:
    """What the enclosing rendered_with_recorded gathered so far (empty outside one)."""
    record = _record.get()
    return {kind: dict(found) for kind, found in record.items()} if record else {}
