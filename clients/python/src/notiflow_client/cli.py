"""`notiflow`: workflows as code against any Notiflow deployment, over its REST API with an
`admin` key (docs/workflows-as-code.md).

    notiflow workflows pull DIR
    notiflow workflows diff DIR [--prune]
    notiflow workflows push DIR [--dry-run] [--prune] [--message TEXT]
    notiflow workflows validate DIR

The deployment is `--url` or NOTIFLOW_URL, the key `--api-key` or NOTIFLOW_API_KEY. Exit status:
0 nothing to change (or done), 1 `diff` found something pushing would change, 2 bad input (a
file the server or the CLI refuses: nothing is applied), an unreachable server or a key it
refuses.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from notiflow_client import Notiflow, NotiflowError
from notiflow_client._tree import DEACTIVATE, ONLY_ON_SERVER, WORKFLOWS, Plan
from notiflow_client.workflows_sync import plan_apply, plan_make, pull

CLEAN, CHANGES, BAD_INPUT = 0, 1, 2
SCOPE_HINT = "an API key with the `admin` scope (manage.py create_api_key NAME --scope admin)"


class Refused(Exception):
    """A sentence for the user and exit status 2: the server is unreachable or refuses the key,
    or the command lacks what it needs."""


def parser() -> argparse.ArgumentParser:
    top = argparse.ArgumentParser(prog="notiflow", description=__doc__.split("\n\n")[0])
    top.add_argument("--url", help="the deployment's base URL (default: $NOTIFLOW_URL)")
    top.add_argument("--api-key", help="an `admin` API key (default: $NOTIFLOW_API_KEY)")
    resources = top.add_subparsers(dest="resource", required=True, metavar="RESOURCE")
    workflows = resources.add_parser(
        "workflows",
        help="workflows, preference categories, translation catalogs, layouts, partials and "
        "tenants",
    )
    commands = workflows.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("directory", metavar="DIR", type=Path)
        return sub

    command(
        "pull",
        "write every workflow, category, translation catalog, layout, partial and tenant of the "
        "server under DIR",
    )
    diff = command(
        "diff", "show what pushing DIR would change; exit 1 when it would change anything"
    )
    diff.add_argument("--prune", action="store_true", help="count what push --prune deactivates")
    push = command("push", "apply DIR: a changed definition becomes a new version")
    push.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    push.add_argument(
        "--prune", action="store_true", help="deactivate (never delete) workflows not in DIR"
    )
    push.add_argument(
        "--message", default="", help="recorded on each version it makes (e.g. a commit sha)"
    )
    command("validate", "check DIR's files against the server without changing anything")
    return top


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = parser().parse_args(argv)
    url = (args.url or os.environ.get("NOTIFLOW_URL") or "").rstrip("/")
    try:
        if not url:
            raise Refused("no deployment: pass --url or set NOTIFLOW_URL")
        key = args.api_key or os.environ.get("NOTIFLOW_API_KEY") or ""
        if not key:
            raise Refused(f"no API key for {url}: pass --api-key or set NOTIFLOW_API_KEY")
        client = Notiflow(url, key)
        try:
            return COMMANDS[args.command](client, args, out)
        except NotiflowError as exc:
            raise Refused(_refusal(url, exc)) from None
    except Refused as exc:
        print(f"notiflow: {exc}", file=sys.stderr)
        return BAD_INPUT


def _refusal(url: str, exc: NotiflowError) -> str:
    if not exc.status:
        return f"cannot reach Notiflow at {url} ({exc.detail}); this command needs {SCOPE_HINT}"
    if exc.status in (401, 403):
        return (
            f"Notiflow at {url} refused the API key ({exc.status}: {exc.detail}); "
            f"this command needs {SCOPE_HINT}"
        )
    return f"Notiflow at {url} answered {exc.status}: {exc.detail}"


def _pull(client: Any, args: argparse.Namespace, out: TextIO) -> int:
    for line in pull(client, args.directory):
        print(line, file=out)
    return CLEAN


def _checked_plan(client: Any, args: argparse.Namespace) -> Plan:
    plan = plan_make(client, args.directory, prune=getattr(args, "prune", False))
    if plan.problems:
        for problem in plan.problems:
            print(problem, file=sys.stderr)
        count = len(plan.problems)
        raise Refused(f"{count} problem(s) in {args.directory}: nothing was applied")
    return plan


def _show(plan: Plan, root: str, out: TextIO, *, diffs: bool) -> None:
    for item in plan.items:
        action = item.action
        if action == ONLY_ON_SERVER:
            action += " (left alone" + (
                ": push --prune deactivates it)" if item.kind == WORKFLOWS and item.active else ")"
            )
        print(f"{item.file}: {action}", file=out)
        if diffs and item.changes:
            for line in item.diff(root):
                print(f"  {line}", file=out)


def _diff(client: Any, args: argparse.Namespace, out: TextIO) -> int:
    plan = _checked_plan(client, args)
    _show(plan, str(args.directory), out, diffs=True)
    changes = plan.changes
    print(f"{len(changes)} to change" if changes else "nothing to change", file=out)
    return CHANGES if changes else CLEAN


def _push(client: Any, args: argparse.Namespace, out: TextIO) -> int:
    plan = _checked_plan(client, args)
    if args.dry_run:
        _show(plan, str(args.directory), out, diffs=True)
        print(f"dry run: {len(plan.changes)} to change, nothing changed", file=out)
        return CLEAN
    for line in plan_apply(client, plan, message=args.message):
        print(line, file=out)
    deactivated = sum(item.action == DEACTIVATE for item in plan.items)
    print(
        f"{len(plan.changes) - deactivated} pushed, {deactivated} deactivated, "
        f"{sum(not item.changes for item in plan.items)} left as they were",
        file=out,
    )
    return CLEAN


def _validate(client: Any, args: argparse.Namespace, out: TextIO) -> int:
    plan = _checked_plan(client, args)
    files = sum(item.document is not None for item in plan.items)
    print(f"{files} file(s) valid", file=out)
    return CLEAN


COMMANDS = {"pull": _pull, "diff": _diff, "push": _push, "validate": _validate}


if __name__ == "__main__":
    sys.exit(main())
