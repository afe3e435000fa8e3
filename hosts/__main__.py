"""python -m hosts [--faults link-down,pg-cut,broker-cut,sigstop] [--triggers 600] ...

Run as root (it makes network namespaces). It builds the machines (hosts/netns.py), then runs
itself again inside the web machine's namespace, where every fault's run happens; the machines
are removed at the end, whatever happened (and a crashed run's leftovers at the start).
Prints one table per fault on stdout (progress on stderr); exits 0 when every target of every
fault was met, 1 when one was missed, 2 when the harness itself could not run.
"""

from __future__ import annotations

import argparse
import fcntl
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from hosts import netns
from hosts.plan import FAULTS, HostsConfig, parse_faults

INSIDE = "NOTIFLOW_HOSTS_INSIDE"  # set for the run inside the web namespace
# The namespaces have fixed names: a second run at the same time would tear the first one's down.
LOCK = Path("/run/notiflow-hosts.lock")


def parse(argv: list[str]) -> HostsConfig:
    defaults = HostsConfig()
    parser = argparse.ArgumentParser(prog="python -m hosts", description=__doc__.splitlines()[0])
    parser.add_argument(
        "--faults",
        default="all",
        help=f"comma-separated, in order, from {','.join(FAULTS)} [all]",
    )
    parser.add_argument(
        "--triggers", type=int, default=defaults.triggers, help="per fault [%(default)s]"
    )
    parser.add_argument(
        "--after",
        type=int,
        default=defaults.after,
        help="triggers fired once the faulted host is back: it must take a share [%(default)s]",
    )
    parser.add_argument(
        "--concurrency", type=int, default=defaults.concurrency, help="pool processes per worker"
    )
    parser.add_argument(
        "--fault-after",
        type=float,
        default=defaults.fault_after,
        help="seconds from the first trigger to the fault [%(default)s]",
    )
    parser.add_argument(
        "--seconds", type=float, help="how long every fault lasts [hosts/plan.py DURATIONS]"
    )
    parser.add_argument("--deadline", type=float, help="seconds for every trigger to be terminal")
    parser.add_argument("--logs", type=Path, help="keep process logs here [a temporary dir]")
    args = parser.parse_args(argv)
    try:
        faults = parse_faults(args.faults)
    except ValueError as exc:
        parser.error(str(exc))
    return HostsConfig(
        faults=faults,
        triggers=args.triggers,
        after=args.after,
        concurrency=args.concurrency,
        fault_after=args.fault_after,
        seconds={kind: args.seconds for kind in faults} if args.seconds else {},
        deadline=args.deadline,
        logs=args.logs,
    )


def outside(argv: list[str]) -> int:
    """Build the machines, run `python -m hosts` in the web namespace, remove the machines."""
    config = parse(argv)  # refuses bad arguments before anything is made
    if os.geteuid() != 0:
        print("python -m hosts makes network namespaces: run it as root", file=sys.stderr)
        return 2
    inside = None
    lock = LOCK.open("w")
    try:
        fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        print(f"another hosts run holds {LOCK}; wait for it to end", file=sys.stderr)
        return 2
    try:
        netns.setup(config.hosts)
        command = netns.in_namespace(netns.WEB, [sys.executable, "-m", "hosts", *argv])
        inside = subprocess.Popen(command, env={**os.environ, INSIDE: "1"})
        return inside.wait()
    except KeyboardInterrupt:
        # The run inside had the same Ctrl-C (one terminal, one process group) and is stopping
        # what it started: let it finish rather than cut its cleanup short.
        if inside is not None:
            inside.wait(timeout=120)
        return 130
    except Exception as exc:
        print(f"hosts harness error: {exc}", file=sys.stderr)
        return 2
    finally:
        if inside is not None and inside.poll() is None:
            inside.terminate()  # it stops everything it started, then exits
            try:
                inside.wait(timeout=120)
            except subprocess.TimeoutExpired:
                inside.kill()
        netns.teardown()
        lock.close()


def main(argv: list[str]) -> int:
    """Inside the web namespace: one run per fault, each on fresh services."""
    from hosts.run import HostsRun  # Django's settings and the chaos code: only in here

    config = parse(argv)
    command = "python -m hosts " + " ".join(argv) if argv else "python -m hosts"
    started = time.monotonic()
    missed = False
    for kind in config.faults:
        plan = config.plan(kind)
        try:
            with HostsRun(config, plan, started=started) as run:
                result = run.run()
        except KeyboardInterrupt:
            print("interrupted; everything the run started has been stopped", file=sys.stderr)
            return 130
        except Exception as exc:
            print(f"hosts harness error ({kind}): {exc}", file=sys.stderr)
            return 2
        print(
            f"\nNotiflow hosts run ({command}), {kind}: {config.triggers} triggers of email -> "
            f"{config.delay_ms} ms delay -> SMS; PostgreSQL on {netns.DB.address}, Redis on "
            f"{netns.MQ.address}, web + beat on {netns.WEB.address}, {config.hosts} worker hosts "
            f"x {config.concurrency} on {netns.worker_hosts(config.hosts)[0].address}-"
            f"{netns.worker_hosts(config.hosts)[-1].address}"
        )
        print(result.table(), flush=True)
        missed = missed or bool(result.misses())
    return 1 if missed else 0


if __name__ == "__main__":
    # SIGTERM unwinds like Ctrl-C, so the context managers stop and remove everything.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    sys.exit(main(sys.argv[1:]) if os.environ.get(INSIDE) else outside(sys.argv[1:]))
