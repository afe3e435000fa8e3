"""The docs' runnable blocks run as written against `make run` (tests/support/make_run.py): the
README's five-minute tour, then docs/tutorial.md, each page in one shell as a newcomer pastes it.
Every block exits 0, and what the page says happens has happened: the tour's email is on the mail
page and its run in the admin; the tutorial's email is on the mail page and its in-app message
in the recipient's inbox."""

from __future__ import annotations

import re

import pytest
import requests

from tests.support.make_run import (
    json_documents,
    make_run,
    run_blocks,
    run_database,
    runnable_blocks,
    sibling_broker_url,
)
from tests.support.stack import ROOT, wait_for

README, TUTORIAL = ROOT / "README.md", ROOT / "docs" / "tutorial.md"


def test_the_readme_tour_and_the_tutorial_mark_their_blocks_runnable():
    assert len(runnable_blocks(README.read_text())) == 1
    assert len(runnable_blocks(TUTORIAL.read_text())) >= 5


def test_only_a_sh_fence_right_after_the_marker_is_runnable():
    page = "<!-- runnable -->\n```sh\necho 1\n```\n\n```sh\necho 2\n```\n<!-- runnable -->\n```sh\nb\n```\n"
    assert runnable_blocks(page) == ["echo 1\n", "b\n"]


def on_mail_page(mail: str, text: str) -> None:
    wait_for(
        lambda: text in requests.get(mail, timeout=10).text,
        timeout=60,
        interval=0.5,
        message=f"{text!r} on the mail page",
    )


@pytest.mark.e2e
@pytest.mark.alone  # make run's database and vhost are the slot's: one make run at a time
@pytest.mark.timeout(400)
def test_the_readme_tour_and_the_tutorial_run_as_written_against_make_run(tmp_path):
    broker = {"CELERY_BROKER_URL": sibling_broker_url()}
    with run_database() as database, make_run(tmp_path, database, broker) as instance:
        # The README's tour: a new workflow, a trigger of it, its email, its run in the admin.
        [tour] = run_blocks(runnable_blocks(README.read_text()), instance, cwd=tmp_path)
        workflow, trigger = json_documents(tour)
        assert workflow["key"] == "order-shipped", workflow
        assert trigger["workflow"] == "order-shipped" and trigger["id"], trigger
        on_mail_page(instance.mail, "Order 1001 shipped")
        admin = requests.Session()
        web = instance.web
        login = admin.get(f"{web}/admin/login/", timeout=10)
        token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', login.text)
        assert token, login.text[:2000]
        admin.post(
            f"{web}/admin/login/?next=/admin/",
            data={
                "username": "admin",
                "password": instance.password,
                "csrfmiddlewaretoken": token[1],
            },
            headers={"Referer": f"{web}/admin/login/"},
            timeout=10,
        )
        runs = admin.get(f"{web}/admin/triggers/triggerinstance/?q=order-1001", timeout=10)
        assert runs.status_code == 200 and "order-shipped" in runs.text, runs.text[:2000]

        # The tutorial: a recipient, a workflow that emails, waits for an event and posts to the
        # inbox; its email on the mail page, the event posted, the message read over the API.
        outputs = run_blocks(runnable_blocks(TUTORIAL.read_text()), instance, cwd=tmp_path)
        on_mail_page(instance.mail, "Invoice 2024-17")
        headers = {"Authorization": f"Bearer {instance.key}"}
        runs = requests.get(
            f"{web}/api/triggers/?workflow=invoice-paid", headers=headers, timeout=10
        ).json()["results"]
        assert [run["status"] for run in runs] == ["completed"], runs
        inbox = json_documents(outputs[-1])[-1]
        assert [m["title"] for m in inbox["results"]] == ["Invoice 2024-17 paid"], inbox
