"""Liquid templates and edge conditions, shared by the validator (parse) and the engine (render).

Templates render with strict undefined variables: a missing variable is an error naming it, never
an empty string in a customer's inbox. Edge conditions use lenient undefined, so that
`payload.vip == true` is simply false when the payload has no `vip`. HTML fields render with
autoescape: what comes from the payload or vars is escaped unless the template says `| raw`.

Every render has a budget (docs/security/content.md), whatever the template does: loop iterations in all
(not only nested ones), the size of what it assigns, the size of its output, the bytes its
filters make (workflows.render_budget), and a wall-clock deadline looked at on every loop,
assignment, write and filter call. Exceeding any is a TemplateError naming the limit and its
setting, which fails the step permanently: the same template on the same data would exceed it
again. So is anything else a render raises (a filter's ValueError on odd payload data): a
TemplateError naming it, never a crash or a retry.
"""

from __future__ import annotations

import difflib
import json
import re
import threading
from collections import OrderedDict
from collections.abc import Callable
from functools import lru_cache, partial
from io import StringIO
from typing import Any, NamedTuple

from django.conf import settings
from liquid import Environment, RenderContext, StrictUndefined, Undefined
from liquid.builtin.expressions.primitive import StringLiteral
from liquid.builtin.tags.for_tag import ForNode
from liquid.builtin.tags.render_tag import RenderNode
from liquid.exceptions import LiquidError, LoopIterationLimitError, ResourceLimitError
from liquid.token import Token
from liquid.undefined import UNDEFINED
from markupsafe import Markup

from workflows.partials import PartialLoader
from workflows.render_budget import RenderBudgetError, filter_call, spend, too_many_iterations, uniq
from workflows.render_budget import render_budget as render_budget
from workflows.translation import FILTERS as LOCALE_FILTERS


class TemplateError(Exception):
    """A template or condition that does not parse or does not render."""


class _BudgetedContext(RenderContext):
    """Counts every loop iteration of the render (liquid's own limit counts nested loops only),
    looks at the clock at every loop and every assignment, and calls every filter through the
    budget (render_budget.filter_call)."""

    def filter(self, name: str, token: Token | None) -> Callable[..., object]:
        return partial(filter_call, name, super().filter(name, token))

    def raise_for_loop_limit(self, length: int = 1) -> None:
        spend(length)
        try:
            super().raise_for_loop_limit(length)  # nested loops, counted up front
        except LoopIterationLimitError as exc:
            raise too_many_iterations() from exc

    def assign(self, key: str, val: Any) -> None:
        spend()
        try:
            super().assign(key, val)
        except ResourceLimitError as exc:
            raise RenderBudgetError(
                f"assigned over {settings.NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES} bytes "
                "(NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES)"
            ) from exc


class _BudgetedOutput(StringIO):
    """The render's output, bounded in size, with a look at the clock at every write."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = limit
        self.size = 0

    def write(self, text: str) -> int:
        if text:
            self.size += len(text)
            if self.size > self.limit:
                raise RenderBudgetError(
                    f"output over {self.limit} characters (NOTIFLOW_TEMPLATE_MAX_OUTPUT_CHARS)"
                )
            spend()
        return super().write(text)


def _json_filter(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=str)


class _SandboxedEnvironment(Environment):
    # Liquid cannot call Python; the budgets above bound what a template can make it do.
    context_depth_limit = 30

    def __init__(self, **options: Any):
        # `{% render "footer" %}`: the partials of the content app (workflows.partials).
        super().__init__(loader=PartialLoader(), **options)
        # `raw`: the explicit opt-out of autoescape in HTML fields (a no-op elsewhere).
        self.filters["raw"] = self.filters["safe"]
        self.filters["uniq"] = uniq  # linear; liquid's own is quadratic
        # `json`: a value written as JSON, for templates that render JSON (a Slack node's
        # blocks, a Teams card), so a quote in a payload string cannot break the document.
        self.filters["json"] = _json_filter
        # `t`, `money`, `number`, `date` and `datetime`: in the run's locale
        # (workflows.translation; `date` with a `%` format is still Liquid's own).
        self.filters.update(LOCALE_FILTERS)

    def message_render(self, source: str, variables: dict[str, Any]) -> str:
        """A translated message (the `t` filter), rendered in this environment within the
        render's budget: in an HTML field, what it inserts is escaped and the result is not
        escaped again."""
        text = _render(PARSED.get_or_parse(self, source), variables)
        # Rendered with autoescape: what it inserted is escaped already.
        return Markup(text) if self.autoescape else text  # noqa: S704

    def partial_parsed(self, source: str, name: str) -> Any:
        """A partial's template, parsed in this environment through the one bounded cache."""
        return PARSED.get_or_parse(self, source, name=name)

    @property
    def local_namespace_limit(self) -> int:  # type: ignore[override]
        return int(settings.NOTIFLOW_TEMPLATE_MAX_NAMESPACE_BYTES)

    @property
    def loop_iteration_limit(self) -> int:  # type: ignore[override]
        return int(settings.NOTIFLOW_TEMPLATE_MAX_ITERATIONS)


# Why a name the context may lack is missing, by name, when the bare "is undefined" would not
# say (workflows.semantics registers `preferences_url`'s: a setting that is not set).
UNDEFINED_HINTS: dict[str, Callable[[], str]] = {}


class _HintedUndefined(StrictUndefined):
    __slots__ = ()

    def __init__(
        self, name: str, *, token: Token | None, obj: object = UNDEFINED, hint: str | None = None
    ):
        # Only the name itself missing (liquid's own hint for it), not a key under it.
        if name in UNDEFINED_HINTS and hint in (None, f"{name!r} is undefined"):
            hint = f"{name!r} is undefined: {UNDEFINED_HINTS[name]()}"
        super().__init__(name, token=token, obj=obj, hint=hint)


_templates = _SandboxedEnvironment(undefined=_HintedUndefined)
_html_templates = _SandboxedEnvironment(undefined=_HintedUndefined, autoescape=True)
_conditions = _SandboxedEnvironment(undefined=Undefined)

_CONDITION_FORBIDDEN = ("{%", "%}", "{{", "}}")


# What a parsed template costs, measured with tracemalloc (python-liquid 2.3): at most ~118 bytes
# per character of markup (`{{a}}` repeated: 64 KB of source parse to 7.5 MB), 30-90 for usual
# markup, next to nothing for text (kept by reference to the source).
PARSED_BYTES_PER_MARKUP_CHAR = 128
_MARKUP_OPENER = re.compile(r"\{[{%]")


def parsed_size_estimate(source: str) -> int:
    """An upper bound of the memory `source` takes once parsed and cached, in bytes: the source
    itself and PARSED_BYTES_PER_MARKUP_CHAR per character inside {{ }} and {% %}. Linear."""
    markup, at = 0, 0
    while (opener := _MARKUP_OPENER.search(source, at)) is not None:
        closer = "}}" if opener.group() == "{{" else "%}"
        end = source.find(closer, opener.end())
        end = len(source) if end < 0 else end + 2
        markup += end - opener.start()
        at = end
    return len(source) + PARSED_BYTES_PER_MARKUP_CHAR * markup


class _ParsedCache:
    """Parsed templates by source, least recently used first out, bounded by the memory they take
    (parsed_size_estimate, NOTIFLOW_TEMPLATE_CACHE_BYTES): a few markup-dense templates cannot
    fill a process the way a bound by source size let them (4 MB of source was ~430 MB)."""

    def __init__(self) -> None:
        self._entries: OrderedDict[tuple[int, str, str], tuple[Any, int]] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    def get_or_parse(self, environment: Environment, source: str, *, name: str = "") -> Any:
        key = (id(environment), name, source)
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key][0]
        parsed = _parse(environment, source, name)
        limit = settings.NOTIFLOW_TEMPLATE_CACHE_BYTES
        size = parsed_size_estimate(source)
        with self._lock:
            if key not in self._entries and size <= limit:
                self._entries[key] = (parsed, size)
                self._bytes += size
                while self._bytes > limit:
                    _, (_, evicted) = self._entries.popitem(last=False)
                    self._bytes -= evicted
        return parsed

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()
            self._bytes = 0

    @property
    def size_bytes(self) -> int:
        """The estimated memory of what the cache holds (parsed_size_estimate)."""
        return self._bytes


PARSED = _ParsedCache()


def _parse(environment: Environment, source: str, name: str = "") -> Any:
    try:
        return environment.from_string(source, name=name)
    except LiquidError as exc:
        raise TemplateError(_first_line(exc)) from exc
    except Exception as exc:
        raise TemplateError(_unexpected(exc)) from exc


def _condition_source(expression: str) -> str:
    if any(token in expression for token in _CONDITION_FORBIDDEN):
        raise TemplateError("a condition is a bare expression, without {{ }} or {% %}")
    return "{% if " + expression + " %}1{% endif %}"


class TemplateUses(NamedTuple):
    """What a template names as literals, in order: the keys it translates (`{{
    "welcome.subject" | t }}`) and the partials it renders (`{% render "footer" %}`). What is
    computed at run time is not known before."""

    keys: list[str]
    partials: list[str]


def template_check(source: str) -> TemplateUses:
    """Raise TemplateError when `source` is not a valid Liquid template, or uses a filter that
    no environment registers (a render would fail on it at run time), naming it with the
    closest known one. Else what it translates and renders (TemplateUses). Parses without
    caching: a definition that fails validation leaves nothing behind."""
    template = _parse(_templates, source)
    known = _templates.filters.keys() | _html_templates.filters.keys()
    for name in _filter_names(template.nodes):
        if name not in known:
            close = difflib.get_close_matches(name, sorted(known), n=1)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise TemplateError(f"unknown filter {name!r}{hint}")
    return TemplateUses(
        list(dict.fromkeys(_translated(template.nodes))),
        list(dict.fromkeys(_rendered_partials(template.nodes))),
    )


def condition_check(expression: str) -> None:
    """Raise TemplateError when `expression` is not a valid Liquid boolean expression."""
    if not expression.strip():
        raise TemplateError("the condition is empty")
    _parse(_conditions, _condition_source(expression))


def _render(template: Any, context: dict[str, Any]) -> str:
    with render_budget():
        render_context = _BudgetedContext(template, globals=template.make_globals(context))
        output = _BudgetedOutput(settings.NOTIFLOW_TEMPLATE_MAX_OUTPUT_CHARS)
        template.render_with_context(render_context, output)
        spend()  # a render that wrote nothing still had a deadline
        return output.getvalue()


def _unexpected(exc: Exception) -> str:
    # What python-liquid lets through on odd data (a number too long to print, a RecursionError):
    # named, and as permanent as any other template error.
    return f"{type(exc).__name__}: {exc}"[:500]


def template_render(source: str, context: dict[str, Any], *, html: bool = False) -> str:
    """Render `source` against `context` within the render budget; an undefined variable or an
    exceeded budget raises TemplateError naming it. `html` escapes what the context inserts."""
    template = PARSED.get_or_parse(_html_templates if html else _templates, source)
    try:
        return str(_render(template, context))
    except ResourceLimitError as exc:
        raise TemplateError(f"template budget: {_first_line(exc)}") from exc
    except LiquidError as exc:
        raise TemplateError(_first_line(exc)) from exc
    except Exception as exc:
        raise TemplateError(_unexpected(exc)) from exc


def condition_holds(expression: str | None, context: dict[str, Any]) -> bool:
    """True when the edge condition holds; an edge without a condition always holds."""
    if expression is None or not expression.strip():
        return True
    template = PARSED.get_or_parse(_conditions, _condition_source(expression))
    try:
        return bool(_render(template, context) == "1")
    except LiquidError as exc:
        raise TemplateError(f"condition {expression!r}: {_first_line(exc)}") from exc
    except Exception as exc:
        raise TemplateError(f"condition {expression!r}: {_unexpected(exc)}") from exc


def template_variable_paths(source: str) -> list[tuple[str, ...]]:
    """The global variable paths a template reads, e.g. ("payload", "user", "email").

    For building sample payloads; a template that does not parse reads nothing.
    """
    try:
        segments = PARSED.get_or_parse(_templates, source).global_variable_segments()
    except (TemplateError, LiquidError):
        return []
    return [tuple(s) for s in segments if all(isinstance(part, str) for part in s)]


def condition_variable_paths(expression: str) -> list[tuple[str, ...]]:
    """The global variable paths an edge condition reads."""
    try:
        parsed = PARSED.get_or_parse(_conditions, _condition_source(expression))
        segments = parsed.global_variable_segments()
    except (TemplateError, LiquidError):
        return []
    return [tuple(s) for s in segments if all(isinstance(part, str) for part in s)]


def template_loops(source: str) -> list[tuple[tuple[str, ...], list[tuple[str, ...]]]]:
    """The `for` loops of a template over a named path: each as that path and the paths read
    through the loop's variable, without the variable: `{% for e in vars.d.events %}{{ e.author }}`
    gives `(("vars", "d", "events"), [("author",)])`. For sample payloads; a template that does
    not parse has none. Parsed through the one bounded cache (PARSED)."""
    try:
        template = PARSED.get_or_parse(_templates, source)
        used = template.analyze().variables
    except (TemplateError, LiquidError):
        return []
    loops = []
    for loop in _for_nodes(template.nodes):
        iterable = getattr(loop.expression.iterable, "path", None)
        if not isinstance(iterable, list) or not all(isinstance(p, str) for p in iterable):
            continue
        tails = [tuple(v.segments[1:]) for v in used.get(loop.expression.identifier, [])]
        named = [t for t in tails if t and all(isinstance(part, str) for part in t)]
        loops.append((tuple(iterable), named))
    return loops


@lru_cache(maxsize=256)
def template_filters(source: str) -> frozenset[str]:
    """The names of the filters a template applies; none for one that does not parse."""
    try:
        return frozenset(_filter_names(PARSED.get_or_parse(_templates, source).nodes))
    except (TemplateError, LiquidError):
        return frozenset()


def _translated(nodes: Any) -> Any:
    for node in nodes:
        for expression in node.expressions():
            yield from _expression_keys(expression)
        yield from _translated(node.children(None, include_partials=False))


def _rendered_partials(nodes: Any) -> Any:
    for node in nodes:
        if isinstance(node, RenderNode) and isinstance(node.name, StringLiteral):
            yield node.name.value
        yield from _rendered_partials(node.children(None, include_partials=False))


def _expression_keys(expression: Any) -> Any:
    filters = getattr(expression, "filters", None) or ()
    left = getattr(expression, "left", None)
    if filters and filters[0].name == "t" and isinstance(left, StringLiteral):
        yield left.value
    for child in expression.children():
        yield from _expression_keys(child)


def _filter_names(nodes: Any) -> Any:
    """The names of the filters a parsed template's nodes apply, in order. A walk of its own:
    liquid's `analyze()` builds a render context per call, which cost twice the parse."""
    for node in nodes:
        for expression in node.expressions():
            yield from _expression_filters(expression)
        yield from _filter_names(node.children(None, include_partials=False))


def _expression_filters(expression: Any) -> Any:
    # A filtered expression's `filters`; a ternary's `tail_filters` too (`a if b else c | f`).
    for kind in ("filters", "tail_filters"):
        for applied in getattr(expression, kind, None) or ():
            yield applied.name
    for child in expression.children():
        yield from _expression_filters(child)


def _for_nodes(nodes: Any) -> Any:
    for node in nodes:
        if isinstance(node, ForNode):
            yield node
        yield from _for_nodes(node.children(None, include_partials=False))


@lru_cache(maxsize=256)
def read_paths(source: str, *, condition: bool = False) -> tuple[tuple[str, ...], ...]:
    """The global variable paths a template (or an edge condition) reads, each cut at its first
    segment that is not a name (`payload[vars.k].x` reads `payload`, and `vars.k`); a source
    that does not parse reads nothing. Kept per source (every step asks it of its node's
    templates and conditions, for its step log and whether it reads the recipient: the
    walk of the parsed template cost more than the render). At most 256 sources, the cached
    workflow versions' own strings mostly (the cache holds no copy of them)."""
    try:
        if condition:
            parsed = PARSED.get_or_parse(_conditions, _condition_source(source))
        else:
            parsed = PARSED.get_or_parse(_templates, source)
        segments = parsed.global_variable_segments()
    except (TemplateError, LiquidError):
        return ()
    paths = []
    for path in segments:
        names = []
        for part in path:
            if not isinstance(part, str):
                break
            names.append(part)
        paths.append(tuple(names))
    return tuple(paths)


def _first_line(exc: Exception) -> str:
    # python-liquid appends a source excerpt over several lines; the first line says it all.
    return str(exc).splitlines()[0] if str(exc) else type(exc).__name__


def template_has_markup(source: str) -> bool:
    """Whether `source` holds Liquid output or tags, or is plain text rendered as itself."""
    return "{{" in source or "{%" in source
