"""Push services on loopback that speak the real protocols, whose answer depends on the address.

PushService, a web push service (RFC 8030): `subscribe(name)` makes a browser's subscription
(an ECDH P-256 key pair and an auth secret, as a browser would) and returns its PushSubscription
JSON; every message POSTed to its endpoint has its VAPID JWT verified with the public key the
service was given (RFC 8292: ES256, `aud` the endpoint's origin, `exp` within 24 h, a `sub`, and
`k` that very key) and its body **decrypted** with the subscription's private key (RFC 8291,
http_ece). A message that fails either check is answered 401 / 400 and not recorded. By name:

ok-*        201 with a Location (any name not matching a rule below is accepted too)
gone-*      410 Gone (the subscription expired)
missing-*   404 Not Found
busy-*      429 with Retry-After: 1 for the first request, then accepted
fail1-*     503 for the first request, then accepted
fail-*      503 always
hang1-*     the first request is counted, then held 20 s (past any sender's timeout: a worker
            killed meanwhile never hears back); later ones accepted

FcmService, FCM HTTP v1 with its OAuth 2 token endpoint: `/token` takes the service account's
signed JWT assertion (RS256, verified with the account's public key) and hands out a bearer
token; `/v1/projects/<project>/messages:send` requires it. By device token:

ok-*            200 {"name": "projects/<project>/messages/<n>"}
unregistered-*  404 with errorCode UNREGISTERED (the app was uninstalled)
busy-*          429 with Retry-After: 1 for the first request, then accepted
fail-*          503 always
bad-*           400 INVALID_ARGUMENT

Both record what they accepted, decrypted, in `messages` (name or token → list of payloads).
"""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections import Counter, defaultdict
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec, rsa

from tests.support.serving import serving_thread


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).decode().rstrip("=")


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class _Server:
    """A threaded HTTP server on loopback around a handler function."""

    def __init__(self, handle: Any) -> None:
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                headers = {name.lower(): value for name, value in self.headers.items()}
                status, headers, answer = handle(self.path, headers, body)
                self.send_response(status)
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(answer)))
                self.end_headers()
                self.wfile.write(answer)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = serving_thread(self.server)
        self.lock = threading.Lock()
        self.counts: Counter[str] = Counter()
        self.messages: defaultdict[str, list[dict[str, Any]]] = defaultdict(list)
        self.requests: list[tuple[str, dict[str, str]]] = []
        outer.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def _count(self, name: str) -> int:
        with self.lock:
            self.counts[name] += 1
            return self.counts[name]


def _json(status: int, body: dict[str, Any], **headers: str) -> tuple[int, dict[str, str], bytes]:
    return status, {"Content-Type": "application/json", **headers}, json.dumps(body).encode()


def _faulted(name: str, seen: int) -> int | None:
    """The fault status a name asks for on its `seen`-th request, or None to accept."""
    if name.startswith("fail-"):
        return 503
    if name.startswith("fail1-") and seen == 1:
        return 503
    if name.startswith("busy-") and seen == 1:
        return 429
    return None


class PushService(_Server):
    def __init__(self, vapid_public_key: str) -> None:
        super().__init__(self._handle)
        self.vapid_public_key = vapid_public_key
        self.subscribers: dict[str, tuple[ec.EllipticCurvePrivateKey, bytes]] = {}

    def subscribe(self, name: str) -> dict[str, Any]:
        """A new browser subscription at this service, as PushSubscription.toJSON() gives it."""
        key, auth = ec.generate_private_key(ec.SECP256R1()), os.urandom(16)
        self.subscribers[name] = (key, auth)
        public = key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint
        )
        return {
            "endpoint": f"{self.url}/push/{name}",
            "expirationTime": None,
            "keys": {"p256dh": b64url(public), "auth": b64url(auth)},
        }

    def _vapid_problem(self, headers: dict[str, str]) -> str:
        scheme, _, params = headers.get("authorization", "").partition(" ")
        values = dict(part.strip().split("=", 1) for part in params.split(",") if "=" in part)
        if scheme.lower() != "vapid" or values.get("k") != self.vapid_public_key:
            return "not a VAPID authorization with our public key"
        public = ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), b64url_decode(self.vapid_public_key)
        )
        try:
            claims = jwt.decode(
                values.get("t", ""), public, algorithms=["ES256"], audience=self.url
            )
        except jwt.PyJWTError as exc:
            return f"VAPID JWT: {exc}"
        if not claims.get("sub") or claims["exp"] > time.time() + 24 * 3600:
            return "VAPID JWT: no sub, or exp more than 24 h ahead"
        return ""

    def _handle(self, path: str, headers: dict[str, str], body: bytes) -> Any:
        name = path.removeprefix("/push/")
        if name not in self.subscribers:
            return _json(404, {"error": "no such subscription"})
        if problem := self._vapid_problem(headers):
            return _json(401, {"error": problem})
        key, auth = self.subscribers[name]
        try:
            payload = json.loads(http_ece.decrypt(body, private_key=key, auth_secret=auth))
        except Exception as exc:
            return _json(400, {"error": f"cannot decrypt: {exc!r}"})
        seen = self._count(name)
        with self.lock:
            self.requests.append((name, headers))
        if name.startswith("hang1-") and seen == 1:
            time.sleep(20)
            return _json(503, {"error": "too late"})
        if name.startswith("gone-"):
            return _json(410, {"error": "subscription expired"})
        if name.startswith("missing-"):
            return _json(404, {"error": "no such subscription"})
        if (status := _faulted(name, seen)) is not None:
            return _json(
                status, {"error": "try later"}, **({"Retry-After": "1"} if status == 429 else {})
            )
        with self.lock:
            self.messages[name].append({**payload, "_headers": headers})
            number = sum(len(m) for m in self.messages.values())
        return 201, {"Location": f"{self.url}/messages/{number}"}, b""


class FcmService(_Server):
    def __init__(self, project: str = "notiflow-test") -> None:
        super().__init__(self._handle)
        self.project = project
        self.key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
        self.tokens: set[str] = set()
        self.token_requests = 0

    def service_account(self) -> dict[str, Any]:
        """A service account JSON, as the Firebase console downloads it, whose token_uri is ours."""
        pem = self.key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        ).decode()
        return {
            "type": "service_account",
            "project_id": self.project,
            "private_key_id": "test-key-1",
            "private_key": pem,
            "client_email": f"notiflow@{self.project}.iam.gserviceaccount.com",
            "client_id": "1",
            "token_uri": f"{self.url}/token",
        }

    def _token(self, body: bytes) -> Any:
        form = parse_qs(body.decode())
        if form.get("grant_type") != ["urn:ietf:params:oauth:grant-type:jwt-bearer"]:
            return _json(400, {"error": "unsupported_grant_type"})
        try:
            claims = jwt.decode(
                form["assertion"][0],
                self.key.public_key(),
                algorithms=["RS256"],
                # google-auth addresses its assertion to Google's token endpoint whatever the
                # token_uri it posts to, as Google's endpoint expects.
                audience="https://oauth2.googleapis.com/token",
            )
        except (KeyError, jwt.PyJWTError) as exc:
            return _json(400, {"error": "invalid_grant", "error_description": str(exc)})
        if "firebase.messaging" not in claims.get("scope", ""):
            return _json(400, {"error": "invalid_scope"})
        token = b64url(os.urandom(24))
        with self.lock:
            self.tokens.add(token)
            self.token_requests += 1
        return _json(200, {"access_token": token, "expires_in": 3600, "token_type": "Bearer"})

    def _handle(self, path: str, headers: dict[str, str], body: bytes) -> Any:
        if urlsplit(path).path == "/token":
            return self._token(body)
        if path != f"/v1/projects/{self.project}/messages:send":
            return _json(404, {"error": {"code": 404, "status": "NOT_FOUND"}})
        bearer = headers.get("authorization", "").removeprefix("Bearer ")
        if bearer not in self.tokens:
            return _json(401, {"error": {"code": 401, "status": "UNAUTHENTICATED"}})
        message = json.loads(body)["message"]
        device = message["token"]
        seen = self._count(device)
        with self.lock:
            self.requests.append((device, headers))
        if device.startswith("unregistered-"):
            detail = {
                "@type": "type.googleapis.com/google.firebase.fcm.v1.FcmError",
                "errorCode": "UNREGISTERED",
            }
            return _json(404, {"error": {"code": 404, "status": "NOT_FOUND", "details": [detail]}})
        if device.startswith("bad-"):
            return _json(400, {"error": {"code": 400, "status": "INVALID_ARGUMENT"}})
        if (status := _faulted(device, seen)) is not None:
            return _json(
                status,
                {"error": {"code": status}},
                **({"Retry-After": "1"} if status == 429 else {}),
            )
        with self.lock:
            self.messages[device].append(message)
            number = sum(len(m) for m in self.messages.values())
        return _json(200, {"name": f"projects/{self.project}/messages/{number}"})
