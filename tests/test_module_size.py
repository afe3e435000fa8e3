"""No module passes 500 lines without saying why at its top (issue 45 §6; a module that grows
past a few hundred lines becomes a package of small ones, or keeps its size for a reason a
reader sees first). The bench and the chaos harness are tools, not the service: left out."""

from __future__ import annotations

import ast

from tests.support.stack import ROOT

LIMIT = 500
REASON = "Over 500 lines:"
LEFT_OUT = {".venv", "bench", "chaos", "migrations", "node_modules", "build"}


def long_modules_without_a_reason() -> dict[str, int]:
    found = {}
    for path in sorted(ROOT.rglob("*.py")):
        relative = path.relative_to(ROOT)
        if LEFT_OUT & set(relative.parts):
            continue
        source = path.read_text()
        lines = source.count("\n")
        if lines > LIMIT and REASON not in (ast.get_docstring(ast.parse(source)) or ""):
            found[str(relative)] = lines
    return found


def test_no_module_passes_500_lines_without_a_reason_at_its_top():
    found = long_modules_without_a_reason()
    assert not found, f"split these, or say why at the top ({REASON!r}): {found}"
