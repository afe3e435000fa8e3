"""Hooks (docs/design/hooks.md, "Hooks: how a room below calls one above"): every hook is declared in
an app's hooks.py, registered from the registering app's hooks.py, and named in the design doc's
list with who registers and who calls; a hook declared or registered that the list does not name
fails here. No app replaces another module's attribute at start (the monkey-patch the hooks
replaced)."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Any

from common.hooks import DECLARED, Hook
from tests.support.stack import ROOT
from workflows.nodes import REGISTERED
from workflows.nodes.base import NodeType

APPS = ["workflows", "registry", "triggers", "workers", "events", "deliveries"]
APPS += ["recipients", "inbox", "waits", "content", "tenants"]
DESIGN = ROOT / "docs" / "design" / "hooks.md"
TABLE_HEADING = "# Hooks: how a room below calls one above"
# The one node-type method the list names as a hook: node types override it to see the graph.
METHOD_HOOKS = {"workflows.nodes.base.NodeType.graph_problems": NodeType.graph_problems}


def hooks_modules() -> dict[str, ModuleType]:
    return {
        app: import_module(f"{app}.hooks") for app in APPS if (ROOT / app / "hooks.py").exists()
    }


def declared_hooks() -> dict[str, Hook[Any]]:
    """Every Hook found in an app's hooks.py, by its dotted name."""
    return {
        f"{module.__name__}.{name}": value
        for module in hooks_modules().values()
        for name, value in vars(module).items()
        if isinstance(value, Hook)
    }


def dotted(function: Any) -> str:
    return f"{function.__module__}.{function.__qualname__}"


def registered() -> dict[str, set[str]]:
    """What runs: each hook with the functions registered in it (a method hook, the node types
    that override it)."""
    found = {name: {dotted(f) for f in hook} for name, hook in declared_hooks().items()}
    for name, method in METHOD_HOOKS.items():
        overriding = (getattr(node_type, method.__name__) for node_type in REGISTERED)
        found[name] = {dotted(function) for function in overriding if function is not method}
    return found


def listed() -> dict[str, tuple[set[str], set[str]]]:
    """The design doc's list: each hook with (who registers, who calls)."""
    text = DESIGN.read_text()
    assert TABLE_HEADING in text, f"docs/design/hooks.md has no {TABLE_HEADING!r}"
    rows = text.split(TABLE_HEADING, 1)[1].split("\n\n|", 1)[1].split("\n\n", 1)[0]
    found = {}
    for line in ("|" + rows).splitlines()[2:]:
        hook, registers, calls = (cell.strip() for cell in line.strip("|").split("|"))
        name = re.findall(r"`([\w.]+)`", hook)[0]
        found[name] = (
            set(re.findall(r"`([\w.]+)`", registers)),
            set(re.findall(r"`([\w./]+\.py)`", calls)),
        )
    return found


def test_every_hook_is_declared_in_an_apps_hooks_module():
    in_hooks_modules = {id(hook) for hook in declared_hooks().values()}
    elsewhere = [hook for hook in DECLARED if id(hook) not in in_hooks_modules]
    assert not elsewhere, f"hooks declared outside an app's hooks.py: {elsewhere}"


def test_the_design_doc_lists_every_hook_with_who_registers_it():
    doc = {name: registers for name, (registers, _) in listed().items()}
    assert registered() == doc


def test_the_design_doc_names_who_calls_each_hook():
    for name, (_, calls) in listed().items():
        attribute = name.rsplit(".", 1)[1]
        assert calls, f"{name}: the list names no caller"
        for path in calls:
            source = (ROOT / path).read_text()
            assert re.search(rf"\b{attribute}\b", source), f"{path} does not call {name}"


def test_each_app_registers_its_functions_in_its_own_hooks_module():
    for name, functions in registered().items():
        if name in METHOD_HOOKS:
            continue
        attribute = name.rsplit(".", 1)[1]
        for function in functions:
            app, short = function.split(".", 1)[0], function.rsplit(".", 1)[1]
            source = (ROOT / app / "hooks.py").read_text()
            assert f"{attribute}.register({short})" in source, (
                f"{function} is registered in {name} outside {app}/hooks.py"
            )


def app_modules() -> Iterator[Path]:
    for app in ["common", "notiflow", *APPS]:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def attributes_replaced(source: str, app: str) -> list[str]:
    """`module.name = ...` where `module` is a name this source imported from another of our
    apps: that app's attribute changed from outside (a monkey-patch). Libraries' attributes
    (Django's connection, sys.excepthook) are not ours to declare hooks for."""
    ours = {"common", "notiflow", *APPS} - {app}
    tree = ast.parse(source)
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported |= {
                (alias.asname or alias.name).split(".")[0]
                for alias in node.names
                if alias.name.split(".")[0] in ours
            }
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in ours:
            imported |= {alias.asname or alias.name for alias in node.names}
    found = []
    for node in ast.walk(tree):
        targets = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        for target in targets:
            value = target.value if isinstance(target, ast.Attribute) else None
            if isinstance(value, ast.Name) and value.id in imported:
                found.append(f"line {target.lineno}: {value.id}.{target.attr}")
    return found


def test_no_app_replaces_an_attribute_of_a_module_it_imports():
    found = {
        str(path.relative_to(ROOT)): replaced
        for path in app_modules()
        if (replaced := attributes_replaced(path.read_text(), path.relative_to(ROOT).parts[0]))
    }
    assert not found, f"a hook (common/hooks.py) instead: {found}"


def test_the_old_monkey_patch_is_what_the_scan_finds():
    old = "from workflows import definition\ndefinition.category_exists = lambda slug: True\n"
    assert attributes_replaced(old, "recipients") == ["line 2: definition.category_exists"]
