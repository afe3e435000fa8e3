"""`notiflow workflows pull|diff|push|validate` (issue 47, workflows as code) end to end: the CLI
of clients/python against two live deployments, each a gunicorn on a freshly migrated database
of its own ("staging" and "production"), so that each holds only what these tests put there.

Pulling staging and pushing to an empty production is promotion, after which `diff` has nothing
to say; a changed definition becomes one new version with the key and message that pushed it,
an unchanged one none; `--dry-run` changes nothing; `--prune` deactivates, never deletes; a bad
file (not JSON, a key not its file name, an unknown field, an unknown category, an invalid node,
a translation catalog the server refuses) is named with its path, exit status 2, and nothing of
the tree is applied; an unreachable server or a refused key is one sentence naming the URL and
the scope needed. Catalogs are pulled as DIR/translations/<locale>.json and pushed first; so
are layouts (DIR/layouts/<key>.json) and partials (DIR/partials/<key>.liquid), before the
workflows that name them.

Over 500 lines: every test here runs against the same two live deployments (a module-scoped
fixture, each a gunicorn on a freshly migrated database, about a minute to start); a second
module would start a second pair for the same checks."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import pytest
import requests
from notiflow_client.cli import main

from tests.conftest import TEST_BROKER_URL, unique
from tests.factories import chain, delay_node, email_node, sms_node
from tests.support.smtp import free_port
from tests.support.stack import ROOT, Stack, web_on_own_database

pytestmark = pytest.mark.e2e


@dataclass
class Deployment:
    stack: Stack
    key: str
    key_name: str

    @property
    def url(self) -> str:
        return self.stack.base_url

    def api(self, method: str, path: str, **kwargs: Any) -> requests.Response:
        headers = {"Authorization": f"Bearer {self.key}"}
        return requests.request(method, self.url + path, headers=headers, timeout=10, **kwargs)

    def get(self, path: str) -> Any:
        answer = self.api("GET", path)
        assert answer.status_code == 200, answer.text
        return answer.json()

    def state(self) -> dict[str, Any]:
        """Everything a push could change: workflows (with their versions), categories and
        translation catalogs."""
        workflows = self.get("/api/workflows/?page=1")
        assert workflows["next"] is None  # the tests make fewer than a page
        return {
            "workflows": workflows["results"],
            "versions": {
                w["key"]: self.get(f"/api/workflows/{w['key']}/versions/")["results"]
                for w in workflows["results"]
            },
            "categories": self.get("/api/categories/")["results"],
            "translations": self.get("/api/translations/")["results"],
            "layouts": self.get("/api/layouts/")["results"],
            "partials": self.get("/api/partials/")["results"],
        }


@pytest.fixture(scope="module")
def deployments(django_db_setup, tmp_path_factory) -> Iterator[dict[str, Deployment]]:
    broker = urlsplit(TEST_BROKER_URL)
    number = int(broker.path.strip("/") or 0)
    env = {
        **os.environ,
        # Not the stack's queue (no triggers are made here anyway).
        "CELERY_BROKER_URL": urlunsplit(broker._replace(path=f"/{number - 2}")),
        "NOTIFLOW_RATE_LIMIT_ADMIN": "off",
    }
    names = {"staging": unique("ci-staging"), "production": unique("ci-production")}
    with (
        web_on_own_database(
            "cli_staging", tmp_path_factory.mktemp("staging"), env, key_name=names["staging"]
        ) as (staging, staging_key),
        web_on_own_database(
            "cli_production",
            tmp_path_factory.mktemp("production"),
            env,
            key_name=names["production"],
        ) as (production, production_key),
    ):
        yield {
            "staging": Deployment(staging, staging_key, names["staging"]),
            "production": Deployment(production, production_key, names["production"]),
        }


@pytest.fixture
def staging(deployments) -> Deployment:
    return deployments["staging"]


@pytest.fixture
def production(deployments) -> Deployment:
    return deployments["production"]


def notiflow(
    capsys: pytest.CaptureFixture[str], deployment: Deployment | str, *argv: str, key: str = ""
) -> tuple[int, str, str]:
    """The CLI in this process: (exit status, stdout, stderr)."""
    url = deployment if isinstance(deployment, str) else deployment.url
    key = key or (deployment.key if isinstance(deployment, Deployment) else "any")
    capsys.readouterr()
    out = io.StringIO()
    code = main(["--url", url, "--api-key", key, *argv], out=out)
    return code, out.getvalue(), capsys.readouterr().err


def notiflow_process(deployment: Deployment, *argv: str) -> subprocess.CompletedProcess[str]:
    """The CLI as CI runs it: a process, configured through the environment."""
    env = {**os.environ, "NOTIFLOW_URL": deployment.url, "NOTIFLOW_API_KEY": deployment.key}
    return subprocess.run(
        [sys.executable, "-m", "notiflow_client.cli", *argv],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
    )


FR_PLURAL = {"one": "{{ count }} article", "other": "{{ count }} articles"}


def workflow_body(key: str, *nodes: dict[str, Any], **fields: Any) -> dict[str, Any]:
    return {"key": key, "name": key.title(), **chain(*(nodes or [delay_node()])), **fields}


def write(root: Path, kind: str, name: str, document: Any) -> Path:
    path = root / kind / f"{name}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(document if isinstance(document, str) else json.dumps(document, indent=2))
    return path


def read(root: Path, kind: str, name: str) -> dict[str, Any]:
    return json.loads((root / kind / f"{name}.json").read_text())


# --- promotion ------------------------------------------------------------------------------


def test_pull_from_staging_push_to_an_empty_production_then_diff_finds_nothing(
    staging, production, tmp_path
):
    category = unique("billing")
    invoice, reminder = unique("billing.invoice"), unique("reminder")
    made = staging.api(
        "PUT", f"/api/categories/{category}/", json={"name": "Billing", "defaults": {"sms": False}}
    )
    assert made.status_code == 201, made.text
    first = workflow_body(invoice, email_node("mail"), sms_node("text"))
    created = staging.api("POST", "/api/workflows/", json=first)
    assert created.status_code == 201, created.text
    second = {**first, "preference_category": category, "description": "Invoices"}
    assert staging.api("PUT", f"/api/workflows/{invoice}/", json=second).json()["version"] == 2
    staging.api("POST", "/api/workflows/", json=workflow_body(reminder, active=False))
    french = {
        "welcome": {"subject": "Bienvenue, {{ name }}"},
        "cart": {"items": FR_PLURAL},
        "a": "b",
    }
    assert staging.api("PUT", "/api/translations/fr/", json={"messages": french}).ok

    pulled = notiflow_process(staging, "workflows", "pull", str(tmp_path))
    assert pulled.returncode == 0, pulled.stderr
    shown = staging.get(f"/api/workflows/{invoice}/")
    file_text = (tmp_path / "workflows" / f"{invoice}.json").read_text()
    server_set = ("version", "created_at", "updated_at")
    expected = {k: v for k, v in shown.items() if k not in server_set}
    assert file_text == json.dumps(expected, indent=2, ensure_ascii=False) + "\n"
    assert list(json.loads(file_text)) == list(expected)  # the API's order, stably
    assert read(tmp_path, "categories", category) == {
        "slug": category,
        "name": "Billing",
        "description": "",
        "defaults": {"sms": False},
    }
    catalog_text = (tmp_path / "translations" / "fr.json").read_text()
    assert catalog_text == json.dumps(french, indent=2, ensure_ascii=False, sort_keys=True) + "\n"

    pushed = notiflow_process(
        production, "workflows", "push", str(tmp_path), "--message", "promote 5f3c2a1"
    )

    assert pushed.returncode == 0, pushed.stderr
    assert f"categories/{category}.json: created" in pushed.stdout
    assert f"workflows/{invoice}.json: created: version 1" in pushed.stdout
    lines = pushed.stdout.splitlines()
    first_workflow = min(i for i, line in enumerate(lines) if line.startswith("workflows/"))
    assert lines.index("translations/fr.json: created") < first_workflow
    assert production.get("/api/translations/fr/")["messages"] == french
    diff = notiflow_process(production, "workflows", "diff", str(tmp_path))
    assert (diff.returncode, diff.stdout.splitlines()[-1]) == (0, "nothing to change"), diff.stdout
    promoted = production.get(f"/api/workflows/{invoice}/")
    assert {k: v for k, v in promoted.items() if k not in server_set} == expected
    assert production.get(f"/api/workflows/{reminder}/")["active"] is False
    (version,) = production.get(f"/api/workflows/{invoice}/versions/")["results"]
    assert (version["created_by"], version["message"]) == (
        f"api:{production.key_name}",
        "promote 5f3c2a1",
    )


def test_layouts_and_partials_are_pulled_as_files_and_pushed_before_the_workflows_naming_them(
    staging, production, tmp_path
):
    brand, footer, key = unique("brand"), unique("footer"), unique("laid-out")
    layout = {"name": "Brand", "html": f'<main>{{{{ content }}}}{{% render "{footer}" %}}</main>'}
    partial = "<small>{{ payload.name }}</small>\n"
    assert staging.api("PUT", f"/api/partials/{footer}/", json={"content": partial}).ok
    assert staging.api("PUT", f"/api/layouts/{brand}/", json=layout).ok
    body = workflow_body(key, email_node("mail", layout=brand), default_layout=brand)
    created = staging.api("POST", "/api/workflows/", json=body)
    assert created.status_code == 201, created.text

    pulled = notiflow_process(staging, "workflows", "pull", str(tmp_path))
    assert pulled.returncode == 0, pulled.stderr
    assert (tmp_path / "partials" / f"{footer}.liquid").read_text() == partial
    assert read(tmp_path, "layouts", brand) == {**layout, "text": ""}

    pushed = notiflow_process(production, "workflows", "push", str(tmp_path))

    assert pushed.returncode == 0, pushed.stderr
    lines = pushed.stdout.splitlines()
    order = [
        lines.index(f"partials/{footer}.liquid: created"),
        lines.index(f"layouts/{brand}.json: created"),
        lines.index(f"workflows/{key}.json: created: version 1"),
    ]
    assert order == sorted(order)
    assert production.get(f"/api/partials/{footer}/")["content"] == partial
    assert production.get(f"/api/workflows/{key}/")["default_layout"] == brand
    diff = notiflow_process(production, "workflows", "diff", str(tmp_path))
    assert (diff.returncode, diff.stdout.splitlines()[-1]) == (0, "nothing to change"), diff.stdout

    (tmp_path / "partials" / f"{footer}.liquid").write_text("<small>bye</small>\n")
    diff = notiflow_process(production, "workflows", "diff", str(tmp_path))
    assert diff.returncode == 1 and f"partials/{footer}.liquid: changed" in diff.stdout
    assert "+<small>bye</small>" in diff.stdout


def test_tenants_and_their_own_catalogs_are_pulled_diffed_and_pushed(
    staging, production, tmp_path, capsys
):
    """A tenant (naming a layout and a category only the tree makes) and its own French catalog:
    pulled from staging as tenants/<id>.json and tenants/<id>/translations/fr.json, pushed to
    production after what it names and before nothing it needs, then diff finds nothing; a
    change of either is diffed and pushed; an unknown field or file under tenants/ is exit 2."""
    tenant, brand, news = unique("acme"), unique("brand"), unique("news")
    assert staging.api(
        "PUT", f"/api/layouts/{brand}/", json={"name": "B", "html": "{{ content }}"}
    ).ok
    assert staging.api("PUT", f"/api/categories/{news}/", json={"name": "News"}).ok
    body = {"name": "Acme", "properties": {"logo": "a.png"}, "layout": brand,
            "preferences": {news: {"email": False}}}  # fmt: skip
    assert staging.api("PUT", f"/api/tenants/{tenant}/", json=body).status_code == 201
    catalog = {"messages": {"hello": "Salut de {{ tenant.name }}"}}
    assert staging.api("PUT", f"/api/translations/fr/?tenant={tenant}", json=catalog).ok

    pulled = notiflow_process(staging, "workflows", "pull", str(tmp_path))
    assert pulled.returncode == 0, pulled.stderr
    assert read(tmp_path, "tenants", tenant) == {"id": tenant, "default_locale": "", **body}
    own = tmp_path / "tenants" / tenant / "translations" / "fr.json"
    assert json.loads(own.read_text()) == catalog["messages"]

    pushed = notiflow_process(production, "workflows", "push", str(tmp_path))
    assert pushed.returncode == 0, pushed.stderr
    lines = pushed.stdout.splitlines()
    order = [
        lines.index(f"layouts/{brand}.json: created"),
        lines.index(f"categories/{news}.json: created"),
        lines.index(f"tenants/{tenant}.json: created"),
        lines.index(f"tenants/{tenant}/translations/fr.json: created"),
    ]
    assert order == sorted(order)
    assert production.get(f"/api/tenants/{tenant}/")["preferences"] == {news: {"email": False}}
    (stored,) = production.get(f"/api/translations/?tenant={tenant}")["results"]
    assert stored["messages"] == catalog["messages"]
    diff = notiflow_process(production, "workflows", "diff", str(tmp_path))
    assert (diff.returncode, diff.stdout.splitlines()[-1]) == (0, "nothing to change"), diff.stdout

    own.write_text(json.dumps({"hello": "Bonjour de {{ tenant.name }}"}))
    write(tmp_path, "tenants", tenant, {**read(tmp_path, "tenants", tenant), "name": "Acme SA"})
    diff = notiflow_process(production, "workflows", "diff", str(tmp_path))
    assert diff.returncode == 1, diff.stdout
    assert f"tenants/{tenant}/translations/fr.json: changed" in diff.stdout
    assert (
        f"tenants/{tenant}.json: changed" in diff.stdout and '+  "name": "Acme SA",' in diff.stdout
    )
    code, out, _ = notiflow(capsys, production, "workflows", "push", str(tmp_path))
    assert code == 0, out
    assert production.get(f"/api/tenants/{tenant}/")["name"] == "Acme SA"
    (stored,) = production.get(f"/api/translations/?tenant={tenant}")["results"]
    assert stored["messages"] == {"hello": "Bonjour de {{ tenant.name }}"}

    write(tmp_path, "tenants", tenant, {**read(tmp_path, "tenants", tenant), "colour": "red"})
    (tmp_path / "tenants" / tenant / "notes.txt").write_text("hi")
    write(tmp_path / "tenants", "nobody/translations", "fr", {"a": "b"})
    code, _, err = notiflow(capsys, production, "workflows", "push", str(tmp_path))
    assert code == 2
    assert f"tenants/{tenant}.json: colour: unknown field" in err
    assert f"tenants/{tenant}/notes.txt: unknown file" in err
    assert "tenants/nobody/: a tenant's directory needs tenants/nobody.json beside it" in err
    assert production.get(f"/api/tenants/{tenant}/")["name"] == "Acme SA"  # nothing applied


# --- versions -------------------------------------------------------------------------------


def test_a_changed_definition_is_one_new_version_and_an_unchanged_one_none(
    production, tmp_path, capsys
):
    key = unique("welcome")
    # Written by hand: no entry node, no edges, no description; the server's form differs,
    # and only its own verdict says whether the definition changed.
    document = {"key": key, "name": "Welcome", "nodes": [email_node("mail", subject="Hello")]}
    write(tmp_path, "workflows", key, document)
    assert notiflow(capsys, production, "workflows", "push", str(tmp_path))[0] == 0

    again = notiflow(capsys, production, "workflows", "push", str(tmp_path), "--message", "m")

    assert again[0] == 0
    assert f"workflows/{key}.json: created" not in again[1]
    assert production.get(f"/api/workflows/{key}/")["version"] == 1

    document["nodes"][0]["subject"] = "Welcome aboard"
    write(tmp_path, "workflows", key, document)
    code, out, _ = notiflow(capsys, production, "workflows", "diff", str(tmp_path))

    assert code == 1
    assert f"workflows/{key}.json: new version" in out
    assert '  -      "subject": "Hello",' in out
    assert '  +      "subject": "Welcome aboard",' in out
    assert f"  --- server/workflows/{key}.json" in out

    code, out, _ = notiflow(
        capsys, production, "workflows", "push", str(tmp_path), "--message", "sha 2222"
    )

    assert (code, f"workflows/{key}.json: new version: version 2" in out) == (0, True), out
    versions = production.get(f"/api/workflows/{key}/versions/")["results"]
    assert [(v["number"], v["message"]) for v in versions] == [(2, "sha 2222"), (1, "")]

    write(tmp_path, "workflows", key, {**document, "name": "Welcome!"})
    code, out, _ = notiflow(capsys, production, "workflows", "push", str(tmp_path))

    assert f"workflows/{key}.json: changed (version 2 kept)" in out
    assert production.get(f"/api/workflows/{key}/")["name"] == "Welcome!"
    assert notiflow(capsys, production, "workflows", "diff", str(tmp_path))[0] == 0


def test_a_dry_run_prints_the_plan_and_changes_nothing(production, tmp_path, capsys):
    existing, new, category = unique("existing"), unique("new"), unique("news")
    production.api("POST", "/api/workflows/", json=workflow_body(existing))
    write(tmp_path, "workflows", existing, workflow_body(existing, delay_node(delay_ms=5)))
    write(tmp_path, "workflows", new, workflow_body(new, preference_category=category))
    write(tmp_path, "categories", category, {"slug": category, "name": "News"})
    before = production.state()

    code, out, err = notiflow(capsys, production, "workflows", "push", str(tmp_path), "--dry-run")

    assert code == 0, err
    assert f"workflows/{existing}.json: new version" in out
    assert f"workflows/{new}.json: created" in out
    assert f"categories/{category}.json: created" in out
    assert out.splitlines()[-1] == "dry run: 3 to change, nothing changed"
    assert production.state() == before


# --- prune ----------------------------------------------------------------------------------


def test_prune_deactivates_what_is_only_on_the_server_and_never_deletes(
    production, tmp_path, capsys
):
    kept, dropped = unique("kept"), unique("dropped")
    for key in (kept, dropped):
        production.api("POST", "/api/workflows/", json=workflow_body(key))
    assert notiflow(capsys, production, "workflows", "pull", str(tmp_path))[0] == 0
    (tmp_path / "workflows" / f"{dropped}.json").unlink()

    plain = notiflow(capsys, production, "workflows", "diff", str(tmp_path))
    pruning = notiflow(capsys, production, "workflows", "diff", str(tmp_path), "--prune")

    assert plain[0] == 0
    assert f"workflows/{dropped}.json: only on the server (left alone: push --prune" in plain[1]
    assert pruning[0] == 1
    assert f"workflows/{dropped}.json: deactivate" in pruning[1]

    code, out, _ = notiflow(capsys, production, "workflows", "push", str(tmp_path), "--prune")

    assert code == 0
    assert f"workflows/{dropped}.json: deactivated" in out
    assert production.get(f"/api/workflows/{dropped}/")["active"] is False
    assert production.get(f"/api/workflows/{kept}/")["active"] is True
    assert notiflow(capsys, production, "workflows", "diff", str(tmp_path), "--prune")[0] == 0


# --- bad input ------------------------------------------------------------------------------

BAD_FILES = {
    "not JSON": (
        "workflows",
        "{name}",
        '{"key": "{name}",',
        "workflows/{name}.json: is not JSON: Expecting",
    ),
    "a key that is not its file name": (
        "workflows",
        "{name}",
        {"key": "someone-else", "name": "X", "nodes": [delay_node()]},
        "workflows/{name}.json: key: 'someone-else' does not match the file name ('{name}')",
    ),
    "an unknown field": (
        "workflows",
        "{name}",
        {"key": "{name}", "name": "X", "nodes": [delay_node()], "colour": "red"},
        "workflows/{name}.json: colour: ",
    ),
    "an unknown category": (
        "workflows",
        "{name}",
        {"key": "{name}", "name": "X", "nodes": [delay_node()], "preference_category": "nope"},
        "workflows/{name}.json: preference_category: unknown category 'nope'",
    ),
    "an invalid node": (
        "workflows",
        "{name}",
        {"key": "{name}", "name": "X", "nodes": [sms_node("text", colour="red")]},
        "workflows/{name}.json: nodes[0].colour: ",
    ),
    "a catalog's plural object without other": (
        "translations",
        "fr",
        {"welcome": {"subject": "Bienvenue"}, "cart": {"items": {"one": "{{ count }} article"}}},
        "translations/fr.json: messages.cart.items: a plural object",
    ),
    "a catalog's message that is not Liquid": (
        "translations",
        "de",
        {"welcome": {"subject": "{% if %}"}},
        "translations/de.json: messages.welcome.subject: template: ",
    ),
    "a catalog named by no locale": (
        "translations",
        "zz-notalocale",
        {"a": "b"},
        "translations/zz-notalocale.json: locale: ",
    ),
    "a catalog named in another casing": (
        "translations",
        "pt-br",
        {"a": "b"},
        "translations/pt-br.json: locale: name the file pt-BR.json",
    ),
    "a catalog that is not an object": (
        "translations",
        "it",
        ["a"],
        "translations/it.json: must hold a JSON object",
    ),
    "a layout without its content slot": (
        "layouts",
        "{name}",
        {"name": "Bad", "html": "<main></main>"},
        "layouts/{name}.json: html: must hold {{ content }} exactly once",
    ),
    "a workflow naming a layout nowhere": (
        "workflows",
        "{name}",
        {"key": "{name}", "name": "X", "nodes": [email_node("mail", layout="nowhere")]},
        "workflows/{name}.json: nodes[0].layout: layout 'nowhere' does not exist",
    ),
    "a category's unknown field": (
        "categories",
        "{name}",
        {"slug": "{name}", "colour": "red"},
        "categories/{name}.json: colour: unknown field",
    ),
    "a category's default for no channel": (
        "categories",
        "{name}",
        {"slug": "{name}", "defaults": {"pigeon": True}},
        "categories/{name}.json: defaults.pigeon: ",
    ),
}


def _filled(value: Any, name: str) -> Any:
    if isinstance(value, str):
        return value.replace("{name}", name)
    if isinstance(value, list | tuple):
        return type(value)(_filled(v, name) for v in value)
    if isinstance(value, dict):
        return {k: _filled(v, name) for k, v in value.items()}
    return value


@pytest.mark.parametrize("case", list(BAD_FILES))
def test_a_bad_file_is_named_with_its_path_exit_2_and_nothing_is_applied(
    production, tmp_path, capsys, case
):
    good = unique("good")
    write(tmp_path, "workflows", good, workflow_body(good))
    kind, name, document, expected = _filled(BAD_FILES[case], unique("bad"))
    write(tmp_path, kind, name, document)
    before = production.state()

    for command in ("push", "validate", "diff"):
        code, out, err = notiflow(capsys, production, "workflows", command, str(tmp_path))

        assert code == 2, (command, out, err)
        assert expected in err, (command, err)
        last = err.splitlines()[-1]
        assert last == f"notiflow: 1 problem(s) in {tmp_path}: nothing was applied", command
    assert production.state() == before


def test_a_directory_without_workflows_is_refused_so_prune_never_empties_a_deployment(
    production, tmp_path, capsys
):
    key = unique("still-here")
    production.api("POST", "/api/workflows/", json=workflow_body(key))
    (tmp_path / "categories").mkdir()

    code, _, err = notiflow(capsys, production, "workflows", "push", str(tmp_path), "--prune")

    assert code == 2
    assert f"{tmp_path}: has no workflows/ directory" in err
    assert production.get(f"/api/workflows/{key}/")["active"] is True


# --- the server -----------------------------------------------------------------------------


def test_an_unreachable_server_is_one_sentence_naming_the_url_and_the_scope(tmp_path, capsys):
    url = f"http://127.0.0.1:{free_port()}"

    code, out, err = notiflow(capsys, url, "workflows", "pull", str(tmp_path))

    assert (code, out) == (2, "")
    assert len(err.splitlines()) == 1
    assert err.startswith(f"notiflow: cannot reach Notiflow at {url} (")
    assert "needs an API key with the `admin` scope" in err


def test_a_refused_key_is_one_sentence_naming_the_url_and_the_scope(production, tmp_path, capsys):
    manage = [sys.executable, str(ROOT / "manage.py"), "create_api_key", unique("reader")]
    made = subprocess.run(
        [*manage, "--scope", "trigger"],
        env=production.stack.env,
        check=True,
        capture_output=True,
        text=True,
        timeout=60,
    )
    trigger_key = made.stdout.strip().splitlines()[-1]

    for key, status in (("nf_not-a-key", 401), (trigger_key, 403)):
        code, out, err = notiflow(capsys, production, "workflows", "pull", str(tmp_path), key=key)

        assert (code, out) == (2, "")
        assert len(err.splitlines()) == 1, err
        assert err.startswith(
            f"notiflow: Notiflow at {production.url} refused the API key ({status}: "
        )
        assert err.rstrip().endswith(
            "this command needs an API key with the `admin` scope "
            "(manage.py create_api_key NAME --scope admin)"
        )
