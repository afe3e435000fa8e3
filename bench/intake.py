"""Figure 4: trigger intake over HTTP (gunicorn as in the Procfile) against plain psycopg.

Both sides get the same request plan: N requests from 16 concurrent clients, 10% of them with a
key used before (the insert-or-return path). The HTTP client is a small asyncio HTTP/1.1
keep-alive client, so that the load generator costs little CPU next to the server; the psycopg
side uses 16 async connections in the same way.
"""

from __future__ import annotations

import asyncio
import json
import random
import re
import statistics
import time
import uuid
import zlib
from dataclasses import dataclass, field, replace

import psycopg

CLIENTS = 16
WARM_UP = 200
DUPLICATE_SHARE = 0.10
PAYLOAD = {"email": "ann@example.com", "name": "Ann", "phone": "+15550100", "plan": "pro"}


def request_plan(count: int, *, prefix: str, seed: int = 7) -> list[str]:
    """Idempotency keys: 90% new, 10% a key from earlier in the plan."""
    rng = random.Random(seed)
    keys: list[str] = []
    for i in range(count):
        if keys and rng.random() < DUPLICATE_SHARE:
            keys.append(rng.choice(keys))
        else:
            keys.append(f"{prefix}-{i}")
    return keys


@dataclass(frozen=True)
class IntakeRun:
    requests: int
    seconds: float
    p50_ms: float
    p99_ms: float
    created: int
    existing: int
    errors: int
    sent: int = 0  # warm-up included
    cpu: dict[str, float] = field(default_factory=dict)

    @property
    def per_second(self) -> float:
        return self.requests / self.seconds if self.seconds > 0 else 0.0


def _summary(latencies: list[float], seconds: float, codes: list[int]) -> IntakeRun:
    ordered = sorted(latencies)
    p99 = ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))] if ordered else 0.0
    return IntakeRun(
        requests=len(latencies),
        seconds=seconds,
        p50_ms=statistics.median(ordered) * 1000 if ordered else 0.0,
        p99_ms=p99 * 1000,
        created=codes.count(201),
        existing=codes.count(200),
        errors=sum(1 for code in codes if code not in (200, 201)),
    )


async def _close(states: list[dict]) -> None:
    """Close the clients' connections."""
    for state in states:
        if "close" in state:
            await state["close"]()


async def _clients(
    keys: list[str], one, states: list[dict]
) -> tuple[list[float], float, list[int]]:  # type: ignore[no-untyped-def]
    """Send `keys` through CLIENTS concurrent clients; their states (connections) persist."""
    queue: asyncio.Queue[str] = asyncio.Queue()
    for key in keys:
        queue.put_nowait(key)
    latencies: list[float] = []
    codes: list[int] = []

    async def client(state: dict) -> None:
        while not queue.empty():
            key = queue.get_nowait()
            started = time.perf_counter()
            codes.append(await one(state, key))
            latencies.append(time.perf_counter() - started)

    started = time.perf_counter()
    await asyncio.gather(*(client(state) for state in states))
    return latencies, time.perf_counter() - started, codes


def _measure(one, requests: int, prefix: str, on_done=None) -> IntakeRun:  # type: ignore[no-untyped-def]
    """200 warm-up requests (connections opened, code paths warm), then the measured plan."""

    async def phases() -> tuple[list[float], float, list[int]]:
        states: list[dict] = [{} for _ in range(CLIENTS)]
        try:
            await _clients(request_plan(WARM_UP, prefix=f"warm-{prefix}"), one, states)
            result = await _clients(request_plan(requests, prefix=prefix), one, states)
            if on_done is not None:
                on_done()  # while the connections are still open
            return result
        finally:
            await _close(states)

    latencies, seconds, codes = asyncio.run(phases())
    return replace(_summary(latencies, seconds, codes), sent=WARM_UP + requests)


# --- HTTP ---------------------------------------------------------------------------------------


async def _http_post(
    state: dict, port: int, api_key: str, path: str, body: bytes
) -> tuple[int, bytes]:
    """POST `body` on the client's keep-alive connection (opened, or opened again once, as
    needed); the status and the response body."""
    head = (
        f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n"
        f"Authorization: Bearer {api_key}\r\nContent-Type: application/json\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    for attempt in (1, 2):
        if "writer" not in state:
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            state.update(reader=reader, writer=writer)

            async def close(writer: asyncio.StreamWriter = writer) -> None:
                writer.close()

            state["close"] = close
        try:
            state["writer"].write(head + body)
            status_line = await state["reader"].readline()
            if not status_line:
                raise ConnectionError("closed by the server")
            headers = (await state["reader"].readuntil(b"\r\n\r\n")).decode("latin-1").lower()
            length = int(headers.split("content-length:")[1].split("\r\n")[0])
            answer = await state["reader"].readexactly(length)
            if "connection: close" in headers:
                state.pop("writer").close()
            return int(status_line.split()[1]), answer
        except (ConnectionError, asyncio.IncompleteReadError):
            state.pop("writer", None)
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


# The A/B of issue 33: a trigger naming its recipient by id (whose profile holds the address)
# against one carrying the address inline in its payload, as every trigger did before.
RECIPIENTS = 1000
RECIPIENT_PREFIX = "bench-rcpt-"
_PAYLOAD_WITHOUT_ADDRESS = {k: v for k, v in PAYLOAD.items() if k not in ("email", "phone")}


def _trigger_request(workflow_key: str, key: str, *, recipient: bool = False) -> dict:
    if not recipient:
        return {"workflow": workflow_key, "idempotency_key": key, "payload": PAYLOAD}
    # The same key always names the same recipient: a repeated request is the same request.
    who = f"{RECIPIENT_PREFIX}{zlib.crc32(key.encode()) % RECIPIENTS}"
    return {
        "workflow": workflow_key,
        "idempotency_key": key,
        "payload": _PAYLOAD_WITHOUT_ADDRESS,
        "recipient": who,
    }


def recipients_load(url: str) -> None:
    """RECIPIENTS recipients with an address, for the requests that name one (idempotent)."""
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute(
            "INSERT INTO recipient (key, email, phone, channels, properties, preferences) "
            "SELECT %s || i, 'ann@example.com', '+15550100', '{}', '{}', '{}' "
            "FROM generate_series(0, %s - 1) AS i ON CONFLICT DO NOTHING",
            [RECIPIENT_PREFIX, RECIPIENTS],
        )


def _http_one(port: int, api_key: str, workflow_key: str, recipient: bool):  # type: ignore[no-untyped-def]
    async def one(state: dict, key: str) -> int:
        request = _trigger_request(workflow_key, key, recipient=recipient)
        body = json.dumps(request).encode()
        status, _ = await _http_post(state, port, api_key, "/api/triggers/", body)
        return status

    return one


def http_run(
    *, port: int, api_key: str, workflow_key: str, requests: int, recipient: bool = False
) -> IntakeRun:
    """POST /api/triggers/ under gunicorn (started by the caller); with `recipient`, each
    request names one of RECIPIENTS recipients (recipients_load) instead of carrying the
    address in its payload."""
    one = _http_one(port, api_key, workflow_key, recipient)
    return _measure(one, requests, prefix=f"http-{uuid.uuid4().hex[:6]}")


BULK_BATCH = 500
BULK_CLIENTS = 4


def bulk_http_run(*, port: int, api_key: str, workflow_key: str, triggers: int) -> IntakeRun:
    """POST /api/triggers/bulk/ under gunicorn (started by the caller): the single figure's
    request plan (10% of the keys used before), BULK_BATCH triggers a request from BULK_CLIENTS
    clients, after one warm-up request per client. `requests` and the rate count triggers; the
    latencies are per bulk request."""
    prefix = f"bulk-{uuid.uuid4().hex[:6]}"
    keys = request_plan(triggers, prefix=prefix)
    batches = [keys[i : i + BULK_BATCH] for i in range(0, len(keys), BULK_BATCH)]
    warm = request_plan(BULK_BATCH * BULK_CLIENTS, prefix=f"warm-{prefix}")
    warm_batches = [warm[i : i + BULK_BATCH] for i in range(0, len(warm), BULK_BATCH)]
    codes: list[int] = []

    async def post(state: dict, batch: list[str]) -> None:
        items = [_trigger_request(workflow_key, key) for key in batch]
        body = json.dumps({"triggers": items}).encode()
        status, answer = await _http_post(state, port, api_key, "/api/triggers/bulk/", body)
        if status != 200:
            codes.extend([status] * len(batch))
            return
        codes.extend(result["status"] for result in json.loads(answer)["results"])

    async def phases() -> tuple[list[float], float]:
        states: list[dict] = [{} for _ in range(BULK_CLIENTS)]

        async def drain(todo: list[list[str]], latencies: list[float]) -> None:
            queue: asyncio.Queue[list[str]] = asyncio.Queue()
            for batch in todo:
                queue.put_nowait(batch)

            async def client(state: dict) -> None:
                while not queue.empty():
                    batch = queue.get_nowait()
                    started = time.perf_counter()
                    await post(state, batch)
                    latencies.append(time.perf_counter() - started)

            await asyncio.gather(*(client(state) for state in states))

        try:
            await drain(warm_batches, [])
            codes.clear()
            latencies: list[float] = []
            started = time.perf_counter()
            await drain(batches, latencies)
            return latencies, time.perf_counter() - started
        finally:
            await _close(states)

    latencies, seconds = asyncio.run(phases())
    run = _summary(latencies, seconds, codes)
    return replace(run, requests=len(keys), sent=len(warm) + len(keys))


# --- plain psycopg ------------------------------------------------------------------------------


def intake_statement(*, registry_check: bool) -> str:
    """The service's intake statement, or (for the A/B of its cost) the same statement with the
    registry's "does a live worker serve the queue" function replaced by `true`."""
    from registry.sql import QUEUE_SERVED_FUNCTION
    from triggers.sql import INTAKE_SQL

    if registry_check:
        return INTAKE_SQL
    check = re.compile(rf"{QUEUE_SERVED_FUNCTION}\(.*?\)(?= AS )")
    if not check.search(INTAKE_SQL):
        raise RuntimeError("the intake statement no longer carries the registry check")
    return check.sub("(SELECT true)", INTAKE_SQL)


def _sql_one(url: str, workflow_key: str, workflow: int, statement: str, recipient: bool = False):  # type: ignore[no-untyped-def]
    from registry.sql import live_within_seconds
    from triggers.services import request_hash
    from triggers.sql import INTAKE_EXISTING_SQL, INTAKE_WORKFLOW_COLUMNS, STATUS_PARAMS

    live_within = live_within_seconds()

    async def one(state: dict, key: str) -> int:
        if "conn" not in state:
            state["conn"] = await psycopg.AsyncConnection.connect(url, autocommit=True)
            state["close"] = state["conn"].close
        conn = state["conn"]
        # The service's own statement, prepared as the service prepares it (common/db.py).
        request = _trigger_request(workflow_key, key, recipient=recipient)
        who = request.get("recipient", "")
        payload_json = json.dumps(request["payload"], sort_keys=True, separators=(",", ":"))
        params = {
            **STATUS_PARAMS,
            "idx": 0,
            "id": str(uuid.uuid4()),
            "workflow": workflow_key,
            "key": key,
            "payload": payload_json,
            "priority": None,
            "cancellation_key": "",
            "hash": request_hash(
                payload_json=payload_json, priority=None, cancellation_key="", recipient=who
            ),
            # As the HTTP side sends: none, or (the A/B) one of RECIPIENTS by id, whose run goes
            # into the partial index on recipient (the statement's share of a recipient's cost).
            "recipient": who,
            "locale": "",
            "tenant": "",
            "actor": "api:bench",
            # As the bench's web process (bench/infra.py): no worker runs where intake is
            # measured. The statement asks the registry all the same.
            "require_worker": False,
            "live_within": live_within,
        }
        cur = await conn.execute(statement, params, prepare=True)
        row = await cur.fetchone()
        if row is not None and row[INTAKE_WORKFLOW_COLUMNS] is not None:
            return 201
        cur = await conn.execute(
            INTAKE_EXISTING_SQL, {"workflow_id": workflow, "key": key}, prepare=True
        )
        return 200 if await cur.fetchone() is not None else 500

    return one


def sql_run(
    *,
    url: str,
    workflow_key: str,
    workflow: int,
    requests: int,
    on_done=None,
    registry_check: bool = True,
    recipient: bool = False,
) -> IntakeRun:  # type: ignore[no-untyped-def]
    """The same insert-or-return: the service's intake statement (triggers/sql.py), and the
    SELECT of the existing trigger for a key used before; without the registry check when
    `registry_check` is off."""
    statement = intake_statement(registry_check=registry_check)
    one = _sql_one(url, workflow_key, workflow, statement, recipient)
    return _measure(one, requests, prefix=f"sql-{uuid.uuid4().hex[:6]}", on_done=on_done)
