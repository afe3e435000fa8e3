"""A chat webhook goes to the address its name resolved to when it was checked (docs/security/providers.md,
"Chat webhooks"; events.services.sender.pinned_post): a DNS answer that changes between the
check and the connection (rebinding) cannot send it elsewhere, and the request still names the
URL's host (the Host header; over https the TLS server name)."""

from __future__ import annotations

import datetime
import socket
import ssl
import threading
import uuid
from collections.abc import Iterator

import pytest
from cryptography.hazmat.primitives.asymmetric import ec

from common.certificates import private_key_pem, self_signed_certificate
from tests.factories import chain, slack_node, teams_node
from tests.workers.helpers import due_trigger
from triggers.models import TriggerInstance
from workers.services.engine import step_execute

pytestmark = pytest.mark.django_db

HOST = "hooks.rebind.test"


@pytest.fixture
def rebinding(monkeypatch) -> list[str]:
    """HOST resolves to 127.0.0.1 the first time it is asked, to 127.0.0.2 (where nothing
    listens) after that: a sender that resolves again connects nowhere. The names asked."""
    real = socket.getaddrinfo
    asked: list[str] = []

    def getaddrinfo(host, port, *args, **kwargs):
        if host != HOST:
            return real(host, port, *args, **kwargs)
        asked.append(host)
        address = "127.0.0.1" if len(asked) == 1 else "127.0.0.2"
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return asked


def run(definition) -> TriggerInstance:
    trigger = due_trigger(definition, payload={"name": "Al"})
    step_execute(trigger_id=str(trigger.pk), worker_id="w")
    return TriggerInstance.objects.get(pk=trigger.pk)


@pytest.mark.parametrize(("service", "node"), [("slack", slack_node), ("teams", teams_node)])
def test_a_webhook_goes_to_the_address_checked_whatever_dns_answers_next(
    chat_server, rebinding, service, node
):
    port = chat_server.server.server_address[1]
    path = f"/{service}/ok/{uuid.uuid4().hex[:10]}"
    trigger = run(chain(node(webhook_url=f"http://{HOST}:{port}{path}")))

    assert trigger.status == "completed", trigger.last_error
    (request,) = chat_server.received(path=path)
    assert request.headers["host"] == f"{HOST}:{port}"
    assert rebinding == [HOST]  # asked once, by the check; the POST went to its answer


def test_a_name_that_resolves_to_a_private_address_is_refused(chat_server, rebinding, settings):
    settings.NOTIFLOW_CHAT_ALLOW_PRIVATE = False
    port = chat_server.server.server_address[1]
    path = f"/teams/ok/{uuid.uuid4().hex[:10]}"
    trigger = run(chain(teams_node(webhook_url=f"http://{HOST}:{port}{path}")))

    assert trigger.status == "failed" and "non-public address (127.0.0.1)" in trigger.last_error
    assert chat_server.received(path=path) == []


@pytest.fixture
def tls_listener(tmp_path) -> Iterator[tuple[int, list[str | None]]]:
    """A TLS server on 127.0.0.1 with a self-signed certificate for HOST, recording the server
    name (SNI) of each ClientHello; no client trusts its certificate, so no request completes."""
    key = ec.generate_private_key(ec.SECP256R1())
    (tmp_path / "cert.pem").write_bytes(
        self_signed_certificate(
            key,
            HOST,
            valid_since=datetime.timedelta(minutes=1),
            valid_for=datetime.timedelta(hours=1),
            names=(HOST,),
        )
    )
    (tmp_path / "key.pem").write_bytes(private_key_pem(key))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    names: list[str | None] = []
    context.sni_callback = lambda _sock, server_name, _ctx: names.append(server_name)
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.2)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                conn, _ = listener.accept()
            except TimeoutError:
                continue
            conn.settimeout(5)
            try:
                with context.wrap_socket(conn, server_side=True):
                    pass
            except (ssl.SSLError, OSError):
                pass  # the client refuses the certificate: expected

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    yield listener.getsockname()[1], names
    stop.set()
    thread.join(timeout=5)
    listener.close()


def test_over_https_the_tls_server_name_is_the_urls_host(tls_listener, rebinding):
    port, names = tls_listener
    trigger = run(chain(slack_node(webhook_url=f"https://{HOST}:{port}/slack/ok/x")))

    # The certificate is no CA's: the send fails (and is retried), but it spoke TLS to the
    # checked address, naming the URL's host, and refused a certificate it could not verify.
    assert (trigger.status, trigger.attempts) == ("enqueued", 1)
    assert "CERTIFICATE_VERIFY_FAILED" in trigger.last_error
    assert names == [HOST] and rebinding == [HOST]
