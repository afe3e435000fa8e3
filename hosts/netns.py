"""The machines: network namespaces on one bridge, and the commands that build, cut and remove them.

Every name starts with `nf`, so a crashed run's leftovers are found and removed by name. The
bridge lives in a switch namespace of its own (nf-sw), not in the root namespace: the run adds
nothing there, and a link cut (`ip -n nf-sw link set <port> down`) takes the carrier away from
the host's side exactly as a pulled cable does. The functions returning commands are pure (the
unit tests check them); `sh` runs them.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from dataclasses import dataclass

PREFIX = "nf"
SWITCH = "nf-sw"
BRIDGE = "nfbr0"
SUBNET = "10.77.0"
PREFIXLEN = 24


@dataclass(frozen=True)
class Machine:
    """One namespace with one address on the bridge. `port` is its veth end in the switch."""

    namespace: str
    address: str
    hostname: str

    @property
    def port(self) -> str:
        # Interface names are at most 15 characters: "nf-h1" -> "nfp-h1".
        return "nfp-" + self.namespace.removeprefix(PREFIX + "-")


DB = Machine("nf-db", f"{SUBNET}.2", "db")
MQ = Machine("nf-mq", f"{SUBNET}.3", "mq")
WEB = Machine("nf-web", f"{SUBNET}.10", "web")


def worker_hosts(count: int) -> list[Machine]:
    return [Machine(f"nf-h{i}", f"{SUBNET}.{10 + i}", f"host{i}") for i in range(1, count + 1)]


def machines(hosts: int) -> list[Machine]:
    return [DB, MQ, WEB, *worker_hosts(hosts)]


def in_namespace(machine: Machine, argv: list[str]) -> list[str]:
    """`argv` run inside `machine`'s namespace. `ip netns exec` execs (no fork), so the pid is
    the command's own and signals sent to it reach it."""
    return ["ip", "netns", "exec", machine.namespace, *argv]


def as_host(machine: Machine, argv: list[str]) -> list[str]:
    """`argv` inside `machine`'s namespace, with its own hostname: a UTS namespace of its own
    (unshare execs, and so does the shell), so gethostname() - part of every worker id and lease
    token - names the host, as on separate machines."""
    shell = f'hostname {machine.hostname} && exec "$@"'
    return in_namespace(machine, ["unshare", "--uts", "sh", "-c", shell, "sh", *argv])


def setup_commands(hosts: int) -> list[list[str]]:
    """The namespaces, the bridge in the switch namespace, one veth per machine (its switch end
    a bridge port, the other `eth0` in the machine with its address), loopback up everywhere."""
    commands = [
        ["ip", "netns", "add", SWITCH],
        ["ip", "-n", SWITCH, "link", "add", BRIDGE, "type", "bridge"],
        ["ip", "-n", SWITCH, "link", "set", BRIDGE, "up"],
        ["ip", "-n", SWITCH, "link", "set", "lo", "up"],
    ]
    for machine in machines(hosts):
        ns = machine.namespace
        commands += [
            ["ip", "netns", "add", ns],
            [
                *("ip", "-n", SWITCH, "link", "add", machine.port, "type", "veth"),
                *("peer", "name", "eth0", "netns", ns),
            ],
            ["ip", "-n", SWITCH, "link", "set", machine.port, "master", BRIDGE],
            ["ip", "-n", SWITCH, "link", "set", machine.port, "up"],
            ["ip", "-n", ns, "addr", "add", f"{machine.address}/{PREFIXLEN}", "dev", "eth0"],
            ["ip", "-n", ns, "link", "set", "eth0", "up"],
            ["ip", "-n", ns, "link", "set", "lo", "up"],
        ]
    return commands


def teardown_commands(existing: list[str]) -> list[list[str]]:
    """Delete every `nf-` namespace in `existing` (`ip netns list` names). A namespace's veths
    and the bridge go with it."""
    return [["ip", "netns", "delete", name] for name in existing if name.startswith(PREFIX + "-")]


def link_commands(machine: Machine, *, up: bool) -> list[list[str]]:
    """The cable: the machine's switch port down (its eth0 loses carrier, every packet to and
    from it is dropped silently) or up again."""
    return [["ip", "-n", SWITCH, "link", "set", machine.port, "up" if up else "down"]]


def route_cut_commands(machine: Machine, server: Machine, *, cut: bool) -> list[list[str]]:
    """Cut `machine` from `server` alone (or restore): a blackhole route on both sides, since
    there is no packet filter. Packets of the connections already open (a worker's broker
    connection, its persistent database connections) are dropped without a word, as in a
    partition; a new connection from the machine fails at once (EINVAL); the server's answers
    to packets sent before the cut are dropped too."""
    verb = "add" if cut else "delete"
    return [
        ["ip", "-n", machine.namespace, "route", verb, "blackhole", f"{server.address}/32"],
        ["ip", "-n", server.namespace, "route", verb, "blackhole", f"{machine.address}/32"],
    ]


def existing_namespaces() -> list[str]:
    listed = subprocess.run(
        ["ip", "netns", "list"], capture_output=True, text=True, check=True, timeout=30
    )
    # Lines read "nf-db" or "nf-db (id: 3)".
    return [line.split()[0] for line in listed.stdout.splitlines() if line.strip()]


def sh(commands: list[list[str]], *, check: bool = True) -> None:
    for command in commands:
        done = subprocess.run(command, capture_output=True, text=True, check=False, timeout=30)
        if check and done.returncode != 0:
            raise RuntimeError(f"{' '.join(command)}: {done.stderr.strip()}")


def teardown() -> None:
    """Every `nf-` namespace deleted, after SIGKILLing what still runs in it (only a run that
    was itself killed leaves anything: a namespace outlives its deletion while a process holds
    it, and so would a PostgreSQL server)."""
    ours = [name for name in existing_namespaces() if name.startswith(PREFIX + "-")]
    for name in ours:
        listed = subprocess.run(
            ["ip", "netns", "pids", name], capture_output=True, text=True, check=False, timeout=30
        )
        for pid in listed.stdout.split():
            with contextlib.suppress(ProcessLookupError):
                os.kill(int(pid), signal.SIGKILL)
    sh(teardown_commands(ours), check=False)


def setup(hosts: int) -> None:
    """Remove a crashed run's leftovers, then build the machines afresh."""
    teardown()
    sh(setup_commands(hosts))
