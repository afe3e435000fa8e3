"""Liquid templates and edge conditions, shared by the validator (parse) and the engine (render).

Templates render with strict undefined variables: a missing variable is an error naming it, never
an empty string in a customer's inbox. Edge conditions use lenient undefined, so that
`payload.vip == true` is simply false when the payload has no `vip`.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from liquid import Environment, StrictUndefined, Undefined
from liquid.exceptions import LiquidError


class TemplateError(Exception):
    """A template or condition that does not parse or does not render."""


class _SandboxedEnvironment(Environment):
    # Liquid cannot call Python, but a loop or an output can still be made huge: bound both.
    loop_iteration_limit = 10_000
    output_stream_limit = 1_000_000
    context_depth_limit = 30


_templates = _SandboxedEnvironment(undefined=StrictUndefined)
_conditions = _SandboxedEnvironment(undefined=Undefined)

_CONDITION_FORBIDDEN = ("{%", "%}", "{{", "}}")


@lru_cache(maxsize=4096)
def _parse_template(source: str) -> Any:
    try:
        return _templates.from_string(source)
    except LiquidError as exc:
        raise TemplateError(_first_line(exc)) from exc


def _condition_source(expression: str) -> str:
    if any(token in expression for token in _CONDITION_FORBIDDEN):
        raise TemplateError("a condition is a bare expression, without {{ }} or {% %}")
    return "{% if " + expression + " %}1{% endif %}"


@lru_cache(maxsize=4096)
def _parse_condition(expression: str) -> Any:
    try:
        return _conditions.from_string(_condition_source(expression))
    except LiquidError as exc:
        raise TemplateError(_first_line(exc)) from exc


def template_check(source: str) -> None:
    """Raise TemplateError when `source` is not a valid Liquid template."""
    _parse_template(source)


def condition_check(expression: str) -> None:
    """Raise TemplateError when `expression` is not a valid Liquid boolean expression."""
    if not expression.strip():
        raise TemplateError("the condition is empty")
    _parse_condition(expression)


def template_render(source: str, context: dict[str, Any]) -> str:
    """Render `source` against `context`; an undefined variable raises TemplateError naming it."""
    template = _parse_template(source)
    try:
        return str(template.render(**context))
    except LiquidError as exc:
        raise TemplateError(_first_line(exc)) from exc


def condition_holds(expression: str | None, context: dict[str, Any]) -> bool:
    """True when the edge condition holds; an edge without a condition always holds."""
    if expression is None or not expression.strip():
        return True
    template = _parse_condition(expression)
    try:
        return bool(template.render(**context) == "1")
    except LiquidError as exc:
        raise TemplateError(f"condition {expression!r}: {_first_line(exc)}") from exc


def template_variable_paths(source: str) -> list[tuple[str, ...]]:
    """The global variable paths a template reads, e.g. ("payload", "user", "email").

    For building sample payloads; a template that does not parse reads nothing.
    """
    try:
        segments = _parse_template(source).global_variable_segments()
    except (TemplateError, LiquidError):
        return []
    return [tuple(s) for s in segments if all(isinstance(part, str) for part in s)]


def condition_variable_paths(expression: str) -> list[tuple[str, ...]]:
    """The global variable paths an edge condition reads."""
    try:
        segments = _parse_condition(expression).global_variable_segments()
    except (TemplateError, LiquidError):
        return []
    return [tuple(s) for s in segments if all(isinstance(part, str) for part in s)]


def _first_line(exc: Exception) -> str:
    # python-liquid appends a source excerpt over several lines; the first line says it all.
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__
