"""What one render may cost (docs/security/content.md, "Limits"), kept by workflows.templating.

A node's templates share one budget (`render_budget`): loop iterations, a wall-clock deadline,
and the bytes its filters allocate. Every filter call goes through `filter_call`, python-liquid's
one hook for them (`RenderContext.filter` hands out the callable `Filter.evaluate` calls): it
looks at the clock before and after, refuses a call whose result it can tell in advance would be
too big (`replace`, `join`, `times`: the filters that multiply), bounds the size of every result
and the sum of them all, counts a range a filter walks as loop iterations, and turns anything a
filter raises on odd data (an AssertionError, a ValueError, ...) into a Liquid error naming the
filter. Sizes are estimates of memory, in bytes: a string's characters, 8 per list item plus its
strings' characters, a number's bytes.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from liquid.builtin.filters.array import uniq as liquid_uniq
from liquid.exceptions import FilterArgumentError, LiquidError, ResourceLimitError
from liquid.filter import sequence_filter


class RenderBudgetError(ResourceLimitError):
    """A render went over one of its budgets (the message names which, and its setting)."""

    def __init__(self, message: str):
        super().__init__(message, token=None)


class FilterFailed(LiquidError):
    """A filter raised something other than a Liquid error on the data it was given."""

    def __init__(self, message: str):
        super().__init__(message, token=None)


@dataclass
class _Budget:
    deadline: float
    iterations_left: int
    bytes_left: int


_budget: ContextVar[_Budget | None] = ContextVar("notiflow_render_budget", default=None)


@contextmanager
def render_budget() -> Iterator[None]:
    """One budget (iterations, deadline, bytes) for every render inside: a node's fields share
    one. Renders outside any get a budget each."""
    if _budget.get() is not None:
        yield
        return
    token = _budget.set(
        _Budget(
            deadline=time.monotonic() + settings.NOTIFLOW_TEMPLATE_DEADLINE_SECONDS,
            iterations_left=settings.NOTIFLOW_TEMPLATE_MAX_ITERATIONS,
            bytes_left=settings.NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES,
        )
    )
    try:
        yield
    finally:
        _budget.reset(token)


def too_many_iterations() -> RenderBudgetError:
    return RenderBudgetError(
        f"over {settings.NOTIFLOW_TEMPLATE_MAX_ITERATIONS} loop iterations "
        "(NOTIFLOW_TEMPLATE_MAX_ITERATIONS)"
    )


def spend(iterations: int = 0) -> None:
    """Count `iterations` against the budget and look at the clock."""
    budget = _budget.get()
    if budget is None:
        return
    budget.iterations_left -= iterations
    if budget.iterations_left < 0:
        raise too_many_iterations()
    if time.monotonic() > budget.deadline:
        raise RenderBudgetError(
            f"took over {settings.NOTIFLOW_TEMPLATE_DEADLINE_SECONDS:g}s to render "
            "(NOTIFLOW_TEMPLATE_DEADLINE_SECONDS)"
        )


# Python will not print an int longer than this (sys.get_int_max_str_digits()), and multiplying
# two much longer ones takes seconds: a number that cannot be shown has no place in a message.
MAX_NUMBER_DIGITS = 4300
_MAX_NUMBER_BITS = int(MAX_NUMBER_DIGITS * 3.33)


def _range_length(span: range) -> int:
    # len() of (1..10**20) is an OverflowError, not a length.
    return max(0, -(-(span.stop - span.start) // span.step))


def size_of(value: Any) -> int:
    """An estimate of the bytes `value` holds (shallow: a list's strings, not its dicts)."""
    if isinstance(value, str | bytes):
        return len(value)
    if isinstance(value, list | tuple | dict | set | range):
        items = value.values() if isinstance(value, dict) else value
        if isinstance(value, range):
            return 8 * _range_length(value)
        return 8 * len(value) + sum(len(item) for item in items if isinstance(item, str))
    if isinstance(value, bool):
        return 1
    if isinstance(value, int):
        return value.bit_length() // 8 + 1
    if isinstance(value, Decimal):
        return len(value.as_tuple().digits) // 2 + 1
    return 8


def _refuse_value(name: str, size: int) -> None:
    limit = settings.NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES
    if size > limit:
        raise RenderBudgetError(
            f"filter {name!r} would make a value of {size} bytes, over {limit} "
            "(NOTIFLOW_TEMPLATE_MAX_VALUE_BYTES)"
        )


def _refuse_number(name: str, bits: int) -> None:
    if bits > _MAX_NUMBER_BITS:
        raise RenderBudgetError(
            f"filter {name!r} would make a number of over {MAX_NUMBER_DIGITS} digits"
        )


def _text(value: Any) -> str:
    return value if isinstance(value, str) else str(value)


def _predicted_size(name: str, left: Any, args: tuple[Any, ...]) -> int:
    """The size of the result, for the filters whose result can be far bigger than their
    inputs; 0 for the others (their result is measured once made)."""
    if name == "replace" and isinstance(left, str) and args:
        old, new = _text(args[0]), _text(args[1]) if len(args) > 1 else ""
        count = len(left) + 1 if old == "" else left.count(old)
        return len(left) + count * max(len(new) - len(old), 0)
    if name == "join" and isinstance(left, list | tuple):
        separator = _text(args[0]) if args else " "
        return size_of(left) + len(separator) * len(left)
    return 0


def _charge(name: str, result: Any) -> None:
    if isinstance(result, int) and not isinstance(result, bool):
        _refuse_number(name, result.bit_length())
    size = size_of(result)
    _refuse_value(name, size)
    budget = _budget.get()
    if budget is not None:
        budget.bytes_left -= size
        if budget.bytes_left < 0:
            raise RenderBudgetError(
                f"filters made over {settings.NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES} bytes in all "
                "(NOTIFLOW_TEMPLATE_MAX_RENDER_BYTES)"
            )


def filter_call(
    name: str, func: Callable[..., Any], left: Any, /, *args: Any, **kwargs: Any
) -> Any:
    """Call the filter `func` (registered as `name`) within the render's budget."""
    spend(sum(_range_length(value) for value in (left, *args) if isinstance(value, range)))
    _refuse_value(name, _predicted_size(name, left, args))
    if name == "times":
        bits = sum(v.bit_length() for v in (left, *args[:1]) if isinstance(v, int))
        _refuse_number(name, bits)
    try:
        result = func(left, *args, **kwargs)
    except LiquidError:
        raise
    except Exception as exc:  # whatever a filter raises on odd data
        raise FilterFailed(f"filter {name!r} failed: {type(exc).__name__}: {exc}"[:500]) from exc
    _charge(name, result)
    spend()
    return result


def _frozen(value: Any) -> Any:
    """A hashable stand-in equal where `value` is equal (for uniq)."""
    if isinstance(value, dict):
        return ("dict", frozenset((key, _frozen(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return ("list", tuple(_frozen(item) for item in value))
    hash(value)  # TypeError for what has no stand-in: uniq then compares as liquid does
    return value


_MISSING = object()


@sequence_filter
def uniq(sequence: list[Any], key: object = None) -> list[Any]:
    """python-liquid's `uniq`, linear: its own compares every item with every other one (a
    2 MB list of payload items took minutes)."""
    seen: set[Any] = set()
    kept = []
    for obj in sequence:
        item = obj
        if key is not None:
            try:
                item = obj[key]
            except KeyError:
                item = _MISSING
            except TypeError as exc:
                raise FilterArgumentError(
                    f"can't read property '{key}' of {obj}", token=None
                ) from exc
        try:
            marker = _frozen(item)
        except TypeError:  # no stand-in (not JSON-like): compare as liquid does
            return list(liquid_uniq(sequence, key))
        if marker not in seen:
            seen.add(marker)
            kept.append(obj)
    return kept
