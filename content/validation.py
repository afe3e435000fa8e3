"""What a translation catalog, a layout and a partial may hold (docs/translations.md,
docs/layouts.md): the one home of their rules, which the API, the admin and the services
apply. Pure: each problem is returned by its path (`messages.cart.items`, `html`).

A catalog's `messages` is an object of keys; each value is a message (a string that parses as
Liquid), a plural object (an object whose keys are all CLDR plural categories, `zero`, `one`,
`two`, `few`, `many`, `other`, which must have `other`, each a message), or an object of more
keys. A key is not empty and has no `.` (keys nest; `welcome.subject` is how a template names
`{"welcome": {"subject": …}}`).

A layout's `html` holds `{{ content }}` exactly once and parses as Liquid; its `text` too, when it
has one. A partial's `content` parses. Which partials they render is not checked here (a partial
may be pushed before the one it renders): a workflow's templates are, when it is saved.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings

from workflows.layouts import KEY_PATTERN, KEY_RULE, content_slots
from workflows.locales import PLURAL_CATEGORIES
from workflows.templating import TemplateError, template_check

# How deep keys may nest: deeper is a mistake, not a catalog.
MAX_DEPTH = 10


def is_plural(value: Any) -> bool:
    """Whether `value` is a plural object: an object whose keys are all CLDR categories."""
    return isinstance(value, dict) and bool(value) and set(value) <= set(PLURAL_CATEGORIES)


def flattened(messages: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    """The catalog's messages by their dotted keys (`welcome.subject`): strings and plural
    objects; the objects that group keys are walked."""
    found: dict[str, Any] = {}
    for key, value in messages.items():
        path = f"{prefix}{key}"
        if isinstance(value, str) or is_plural(value):
            found[path] = value
        elif isinstance(value, dict):
            found.update(flattened(value, f"{path}."))
    return found


def catalog_problems(messages: Any, *, patch: bool = False) -> dict[str, list[str]]:
    """Every problem of a catalog's `messages` by its path; none when it may be stored. In a
    `patch`, a key given null is one to remove."""
    if not isinstance(messages, dict):
        return {"messages": ["must be an object of keys"]}
    problems: dict[str, list[str]] = {}
    _walk(messages, "messages", 1, patch, problems)
    return problems


def _walk(
    messages: dict[str, Any], path: str, depth: int, patch: bool, problems: dict[str, list[str]]
) -> None:
    if depth > MAX_DEPTH:
        problems[path] = [f"keys nest over {MAX_DEPTH} deep"]
        return
    for key, value in messages.items():
        where = f"{path}.{key}"
        if not key or "." in key:
            problems[where] = ["a key is not empty and has no '.' (keys nest: use an object)"]
        elif value is None and patch:
            continue  # removed
        elif isinstance(value, str):
            _check_message(value, where, problems)
        elif is_plural(value):
            if "other" not in value:
                problems[where] = [
                    "a plural object (its keys all CLDR categories: "
                    f"{', '.join(PLURAL_CATEGORIES)}) must have 'other'"
                ]
            for category, form in value.items():
                if isinstance(form, str):
                    _check_message(form, f"{where}.{category}", problems)
                else:
                    problems[f"{where}.{category}"] = ["a plural form must be a string"]
        elif isinstance(value, dict) and value:
            _walk(value, where, depth + 1, patch, problems)
        else:
            problems[where] = [
                "must be a string (a Liquid template), a plural object or an object of keys"
            ]


def _check_message(source: str, where: str, problems: dict[str, list[str]]) -> None:
    limit = settings.NOTIFLOW_TEMPLATE_MAX_BYTES
    if len(source) > limit:
        problems[where] = [
            f"is {len(source)} characters, more than {limit} (NOTIFLOW_TEMPLATE_MAX_BYTES)"
        ]
        return
    try:
        template_check(source)
    except TemplateError as exc:
        problems[where] = [f"template: {exc}"]


def messages_merged(stored: dict[str, Any], patch: dict[str, Any]) -> dict[str, Any]:
    """`stored` with `patch` merged in, key by key at every depth: a key given null is removed;
    a message or a plural object replaces what was there; an object of keys merges into the
    object there (and replaces anything else). An object left without keys is removed."""
    merged = dict(stored)
    for key, value in patch.items():
        if value is None:
            merged.pop(key, None)
        elif isinstance(value, dict) and not is_plural(value):
            before = merged.get(key)
            base = before if isinstance(before, dict) and not is_plural(before) else {}
            inner = messages_merged(base, value)
            if inner:
                merged[key] = inner
            else:
                merged.pop(key, None)
        else:
            merged[key] = value
    return merged


def _template_problem(source: Any, where: str, problems: dict[str, list[str]]) -> bool:
    """Whether `source` is a template that may be stored, else its problem noted at `where`."""
    if not isinstance(source, str):
        problems[where] = ["must be a string (a Liquid template)"]
        return False
    before = len(problems)
    _check_message(source, where, problems)
    return len(problems) == before


def layout_problems(fields: dict[str, Any]) -> dict[str, list[str]]:
    """Every problem of a layout's `name`, `html` and `text` by its field; none when it may be
    stored. `html` holds `{{ content }}` exactly once and parses; `text`, when not empty, too."""
    problems: dict[str, list[str]] = {}
    name = fields.get("name")
    if not isinstance(name, str) or not name.strip():
        problems["name"] = ["is required: a non-empty string"]
    elif len(name) > 200:
        problems["name"] = ["is over 200 characters"]
    for field, required in (("html", True), ("text", False)):
        source = fields.get(field, "")
        if not required and source in (None, ""):
            continue
        if not _template_problem(source, field, problems):
            continue
        if (slots := content_slots(source)) != 1:
            problems[field] = [
                f"must hold {{{{ content }}}} exactly once (where the message goes), not {slots} "
                "times"
            ]
    return problems


def partial_problems(fields: dict[str, Any]) -> dict[str, list[str]]:
    """Every problem of a partial's `content` by its field; none when it may be stored."""
    problems: dict[str, list[str]] = {}
    _template_problem(fields.get("content"), "content", problems)
    return problems


def key_problem(key: str) -> dict[str, list[str]]:
    """A layout's or a partial's key that is not one: the problem, named `key`."""
    return {} if KEY_PATTERN.match(key) else {"key": [f"must be {KEY_RULE}"]}
