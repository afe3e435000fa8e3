"""The `link` part (issue 38): single-step email workflows through the engine with the instant
provider (dummy), then through the link (bench/link.py: STARTTLS SMTP, and anymail's Postmark
backend over HTTPS, each 10 ms away each way), then the plain programs over the same link at
the engine's concurrency. Alternated per round (`--repeat`); `--link-layouts` adds worker
arrangements over the link (the concurrency comparison).

Imported only after django.setup() (see bench.__main__).
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.cpu import OTHERS, PRODUCER, PRODUCER_BACKEND, WALL, cpu_seconds
from bench.engine import EngineRun, engine_run
from bench.fixtures import chain, email_node
from bench.infra import STANDARD, Layout, Proc
from bench.link import PlainRun, certificate, plain_run

EMAIL_ONLY = chain(email_node("only"))
SMTP_ONLY = ("standard-nopipe", "2x16threads-nopipe")  # NOTIFLOW_EMAIL_SMTP_PIPELINING=false
DELAY_MS = 10


def link_layouts(concurrency: int) -> dict[str, Layout]:
    """The arrangements `--link-layouts` names: the standard one, and more waiting senders."""
    threads16 = ("--pool", "threads", "-c", "16")
    # Before issue 51: MAIL, RCPT, DATA and the content each waiting for an answer.
    nopipe = (("NOTIFLOW_EMAIL_SMTP_PIPELINING", "false"),)
    return {
        "standard": STANDARD,
        # Before issue 38: a connection (TCP, TLS, EHLO; an HTTPS session) per message.
        "nokeep": Layout(
            "standard, a connection per message",
            env=(("NOTIFLOW_EMAIL_KEEP_CONNECTIONS", "false"),),
        ),
        "prefork32": Layout("prefork x32", args=("-c", "32")),
        "threads32": Layout("threads x32", args=("--pool", "threads", "-c", "32")),
        "2x16threads": Layout("2 workers x threads 16", workers=2, args=threads16),
        "standard-nopipe": Layout("standard, SMTP without pipelining", env=nopipe),
        "2x16threads-nopipe": Layout(
            "2 workers x threads 16, SMTP without pipelining", workers=2, args=threads16, env=nopipe
        ),
        # Half 2x16threads' threads, and half its PostgreSQL connections (one per thread).
        "2x8threads": Layout(
            "2 workers x threads 8", workers=2, args=("--pool", "threads", "-c", "8")
        ),
        "4x8threads": Layout(
            "4 workers x threads 8", workers=4, args=("--pool", "threads", "-c", "8")
        ),
        "prefork16": Layout("prefork x16", args=("-c", "16")),
        "threads8": Layout(f"threads x{concurrency}", args=("--pool", "threads", "-c", "8")),
    }


@dataclass
class LinkRound:
    instant: EngineRun
    smtp: dict[str, EngineRun] = field(default_factory=dict)  # by layout name
    esp: dict[str, EngineRun] = field(default_factory=dict)
    plain_smtp: PlainRun | None = None
    plain_esp: PlainRun | None = None
    sink_counts: str = ""
    # CPU ms per send of the link's own stand-ins (the sinks and the delaying proxies, one
    # process on the same cores as the engine), by kind and layout.
    link_cpu: dict[str, dict[str, float]] = field(default_factory=dict)
    # `--link-near`: the same sends to the same sinks with no delay, by kind and layout.
    near: dict[str, dict[str, EngineRun]] = field(default_factory=dict)


WHERE = {"link": "over the link", "near": "to the sink with no delay"}


def _link_runs(smtp_only: bool, *, near: bool) -> list[tuple[str, str]]:
    """(kind, where) of a layout's runs: SMTP and HTTPS over the link, each with no delay too
    when `near`; a layout of pipelining's A/B sends by SMTP only."""
    kinds = ("smtp",) if smtp_only else ("smtp", "esp")
    wheres = ("link", "near") if near else ("link",)
    return [(kind, where) for kind in kinds for where in wheres]


def _env_smtp(port: int, cert: str) -> dict[str, str]:
    return {"EMAIL_URL": f"smtp+tls://127.0.0.1:{port}", "SSL_CERT_FILE": cert}


def _env_esp(port: int, cert: str) -> dict[str, str]:
    options = {"server_token": "bench", "api_url": f"https://127.0.0.1:{port}/", "timeout": 10}
    return {
        "NOTIFLOW_EMAIL_PROVIDERS": "postmark",
        "NOTIFLOW_PROVIDER_POSTMARK_OPTIONS": json.dumps(options),
        "REQUESTS_CA_BUNDLE": cert,
    }


def _start_link(bench: Any, cert: str, key: str) -> tuple[Proc, dict[str, int]]:
    base = bench.config.port
    ports = {"smtp": base + 1, "esp": base + 2, "smtp_proxy": base + 3, "esp_proxy": base + 4}
    from bench.infra import base_env

    proc = bench.procs.spawn(
        "link",
        [
            sys.executable,
            "-m",
            "bench.link",
            "serve",
            "--cert",
            cert,
            "--key",
            key,
            "--delay-ms",
            str(DELAY_MS),
            "--smtp-port",
            str(ports["smtp"]),
            "--esp-port",
            str(ports["esp"]),
            "--smtp-proxy-port",
            str(ports["smtp_proxy"]),
            "--esp-proxy-port",
            str(ports["esp_proxy"]),
        ],
        base_env(bench.config),
    )
    proc.wait_for_log(r"link ready", timeout=60)
    return proc, ports


def link_run(bench: Any, say: Any) -> list[LinkRound]:
    from django.conf import settings

    a = bench.args
    n = a.link_triggers
    senders = settings.CELERY_WORKER_CONCURRENCY
    layouts = link_layouts(senders)
    chosen = [layouts[name] for name in a.link_layouts]
    # Pipelining's A/B: the layouts without it send by SMTP only.
    smtp_only = {layouts[name].name for name in SMTP_ONLY}
    cert, key = (str(p) for p in certificate(bench.config.workdir / "link"))
    link, ports = _start_link(bench, cert, key)
    rounds: list[LinkRound] = []
    sent = {"smtp": 0, "esp": 0}  # messages each sink should have received so far
    try:
        for round_ in range(a.repeat):
            tag = f"link{round_}"
            say(f"link: {n} single-email triggers, instant provider (round {round_ + 1})")
            profile = bench.config.workdir / f"profile-link-{round_}.txt" if a.profile else None
            one = LinkRound(
                instant=engine_run(
                    bench.procs,
                    triggers=n,
                    tag=f"{tag}i",
                    definition=EMAIL_ONLY,
                    profile_to=profile,
                    profile_idle=a.profile == "wall",
                    warmup=a.link_warmup,
                )
            )
            say(
                f"  {one.instant.steps_per_second:.1f} sends/s; CPU ms/send: engine "
                f"{engine_cpu_ms(one.instant):.2f}"
            )
            say("  CPU ms/send by component: " + _by_component(one.instant))
            if profile is not None and profile.exists():
                _profile_write(
                    profile, title=f"instant email step, {a.profile}, round {round_ + 1}"
                )
                say(
                    f"  profile: {profile.with_suffix('.summary.txt')}, {profile.with_suffix('.svg')}"
                )
            for index, layout in enumerate(chosen):
                for kind, where in _link_runs(layout.name in smtp_only, near=a.link_near):
                    port = ports[kind if where == "near" else f"{kind}_proxy"]
                    env = _env_smtp(port, cert) if kind == "smtp" else _env_esp(port, cert)
                    say(f"link: engine, {kind} {WHERE[where]}, {layout.name}")
                    link_before = cpu_seconds(link.pid)
                    run = engine_run(
                        bench.procs,
                        triggers=n,
                        tag=f"{tag}{kind}{where}{index}",
                        definition=EMAIL_ONLY,
                        layout=layout,
                        env=env,
                        warmup=a.link_warmup,
                    )
                    sent[kind] += a.link_warmup + run.steps
                    link_ms = (cpu_seconds(link.pid) - link_before) * 1000 / max(run.steps, 1)
                    if where == "near":
                        one.near.setdefault(kind, {})[layout.name] = run
                    else:
                        getattr(one, kind)[layout.name] = run
                        one.link_cpu.setdefault(kind, {})[layout.name] = link_ms
                    say(
                        f"  {run.steps_per_second:.1f} sends/s; CPU ms/send: engine "
                        f"{engine_cpu_ms(run):.2f}, the link's sinks and proxies {link_ms:.2f}; "
                        f"tasks {run.tasks} (the warm-up's with them), of which claimed nothing "
                        f"{run.idle_tasks}"
                    )
                    say(
                        "  CPU s by component: "
                        + ", ".join(f"{name} {seconds:.1f}" for name, seconds in run.cpu.items())
                    )
            if not chosen:  # `--link-layouts ""`: the instant engine alone (issue 51's A/B)
                rounds.append(one)
                continue
            say(f"link: plain smtplib, {senders} sender processes with kept connections")
            one.plain_smtp = plain_run(
                "smtp", ports["smtp_proxy"], Path(cert), messages=n, senders=senders
            )
            say(f"  {one.plain_smtp.per_second:.1f} sends/s")
            say(f"link: plain requests.Session, {senders} sender processes with kept connections")
            one.plain_esp = plain_run(
                "esp", ports["esp_proxy"], Path(cert), messages=n, senders=senders
            )
            say(f"  {one.plain_esp.per_second:.1f} sends/s")
            # Every message of the rounds so far, on each sink: the engine's runs and the plain one.
            sent["smtp"] += n
            sent["esp"] += n
            one.sink_counts = sink_counts(link, expected=(sent["smtp"], sent["esp"]))
            say(f"  sinks: {one.sink_counts}")
            rounds.append(one)
    finally:
        bench.procs.stop(link)
    return rounds


def _by_component(run: EngineRun) -> str:
    return ", ".join(
        f"{name} {seconds * 1000 / max(run.steps, 1):.2f}"
        for name, seconds in run.cpu.items()
        if name != WALL
    )


def _profile_write(raw: Path, *, title: str) -> None:
    """The recording's summary (bench.profile.summarise) and its flame graph (SVG) beside it."""
    from bench.profile import flamegraph_svg, summarise

    raw.with_suffix(".summary.txt").write_text(summarise(raw))
    flamegraph_svg(raw, raw.with_suffix(".svg"), title=title)


# The producer's share of a run's CPU: the triggers' intake (`trigger_create` in the bench
# process, and its PostgreSQL backend), which row 4 measures over HTTP; the rest is the send path.
INTAKE = (PRODUCER, PRODUCER_BACKEND)
# Issue 51 §1: the send path (render, MIME, the provider call, the ledger: the worker, beat, their
# PostgreSQL backends, Redis) of an instant email, in CPU ms a send.
SEND_PATH_TARGET_MS = 4.5


def engine_cpu_ms(run: EngineRun, *, leave_out: tuple[str, ...] = ()) -> float:
    """The engine's own CPU per send (every component of ours: workers, beat, PostgreSQL, Redis,
    the producer, less those left out), in ms."""
    ours = sum(
        seconds for name, seconds in run.cpu.items() if name not in (OTHERS, WALL, *leave_out)
    )
    return ours * 1000 / max(run.steps, 1)


def sink_counts(link: Proc, *, expected: tuple[int, int], timeout: float = 5) -> str:
    """The sinks' last counts line once the SMTP and the HTTPS sink have received `expected`
    messages (they print it each second it changes), or the last one at the deadline, marked
    short: a message the engine counted as sent that no sink received would show here."""
    deadline = time.monotonic() + timeout
    while True:
        lines = [line for line in link.log().splitlines() if line.startswith("counts")]
        last = lines[-1] if lines else ""
        received = [int(n) for n in re.findall(r"messages=(\d+)", last)]
        if len(received) == 2 and all(r >= e for r, e in zip(received, expected, strict=True)):
            return last
        if time.monotonic() > deadline:
            return f"{last} (SHORT: {expected[0]} and {expected[1]} expected)"
        time.sleep(0.1)


def link_rows(bench: Any, rounds: list[LinkRound]) -> list[Any]:
    from bench.report import Row, ratio, spread

    if not rounds:
        return []
    a = bench.args
    instant = [r.instant.steps_per_second for r in rounds]
    instant_cpu = [engine_cpu_ms(r.instant) for r in rounds]
    cmd = bench.cmd(
        "link",
        link_triggers=a.link_triggers,
        link_warmup=a.link_warmup,
        link_layouts=",".join(a.link_layouts) or "''",
    )
    send_path = [engine_cpu_ms(r.instant, leave_out=INTAKE) for r in rounds]
    intake = [cpu - path for cpu, path in zip(instant_cpu, send_path, strict=True)]
    rows = [
        Row(
            "link: engine, instant provider (sends/s)",
            spread(instant) + f"; {a.link_triggers} single-email triggers",
            command=cmd,
        ),
        Row(
            "link: instant email, the send path's CPU (ms a send: worker, beat, their PostgreSQL "
            "backends, Redis)",
            f"{spread(send_path, digits=2)}; the trigger's intake (the producer and its backend) "
            f"{spread(intake, digits=2)} more: {spread(instant_cpu, digits=2)} in all",
            target=f"<= {SEND_PATH_TARGET_MS}",
            met=statistics.median(send_path) <= SEND_PATH_TARGET_MS,
            command=cmd,
        ),
    ]
    for kind, plain_of in (("smtp", "plain_smtp"), ("esp", "plain_esp")):
        layouts = list(getattr(rounds[0], kind))
        plain = [getattr(r, plain_of).per_second for r in rounds if getattr(r, plain_of)]
        label = "SMTP STARTTLS" if kind == "smtp" else "Postmark-shaped HTTPS ESP"
        for name in layouts:
            engine = [getattr(r, kind)[name].steps_per_second for r in rounds]
            cpu = [engine_cpu_ms(getattr(r, kind)[name]) for r in rounds]
            link_cpu = [r.link_cpu.get(kind, {}).get(name, 0.0) for r in rounds]
            v_instant, t_instant = ratio(engine, instant)
            v_plain, t_plain = ratio(engine, plain)
            near_runs = [r.near[kind][name] for r in rounds if name in r.near.get(kind, {})]
            near, near_text = "", ""
            if len(near_runs) == len(rounds):
                near_rate = [run.steps_per_second for run in near_runs]
                near_cpu = [engine_cpu_ms(run) for run in near_runs]
                near = f"; link/near {ratio(engine, near_rate)[1]}"
                near_text = (
                    f"; with no delay {spread(near_rate)} sends/s, CPU ms/send "
                    f"{spread(near_cpu, digits=2)}"
                )
            rows.append(
                Row(
                    f"link: engine, {label} 10+10 ms, {name} (sends/s)",
                    spread(engine)
                    + f"; CPU ms/send: engine {spread(cpu, digits=2)} (instant {spread(instant_cpu, digits=2)}), "
                    f"the link's sinks and proxies {spread(link_cpu, digits=2)}{near_text}",
                    ratio=f"link/instant {t_instant}{near}; engine/plain {t_plain}",
                    target="link/instant >= 0.8; engine/plain >= 0.8",
                    met=None
                    if v_instant is None or v_plain is None
                    else v_instant >= 0.8 and v_plain >= 0.8,
                    command=cmd,
                )
            )
        if not plain:
            continue
        rows.append(
            Row(
                f"link: plain program, {label} (sends/s)",
                spread(plain) + f"; {rounds[0].plain_smtp.senders if rounds[0].plain_smtp else '?'}"
                " senders, kept connections",
                command=cmd,
            )
        )
    return rows
