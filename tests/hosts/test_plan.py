"""The hosts harness's pure parts: the fault plan, its arguments, and the namespace commands it
would run (nothing here runs them)."""

from __future__ import annotations

import pytest

from chaos.report import ChaosResult
from hosts import netns
from hosts.__main__ import parse
from hosts.plan import (
    BROKER_CUT,
    DURATIONS,
    FAULTS,
    LEASE_SECONDS,
    LINK_DOWN,
    PG_CUT,
    SIGSTOP,
    HostsConfig,
    parse_faults,
)
from hosts.report import HostShare, HostsResult


def test_every_fault_by_default_and_in_the_order_given_otherwise():
    assert parse_faults("") == parse_faults("all") == FAULTS
    assert parse_faults("sigstop, link-down,sigstop") == (SIGSTOP, LINK_DOWN)


def test_an_unknown_fault_is_refused_with_the_choices():
    with pytest.raises(ValueError, match=r"unknown fault.*link-up.*choose from link-down"):
        parse_faults("link-up")


def test_the_link_cut_and_the_freeze_outlast_the_lease_at_least_twice():
    assert DURATIONS[LINK_DOWN] > 3 * LEASE_SECONDS
    assert 2 * LEASE_SECONDS < DURATIONS[SIGSTOP] <= 3 * LEASE_SECONDS
    assert DURATIONS[PG_CUT] > LEASE_SECONDS and DURATIONS[BROKER_CUT] > LEASE_SECONDS


def test_each_fault_has_a_host_and_every_host_is_hit():
    config = HostsConfig()
    hosts = {config.plan(kind).host for kind in FAULTS}
    assert hosts == {1, 2, 3}


def test_arguments_make_the_config():
    config = parse(["--faults", "pg-cut", "--triggers", "100", "--seconds", "9", "--after", "7"])
    assert (config.faults, config.triggers, config.after) == ((PG_CUT,), 100, 7)
    plan = config.plan(PG_CUT)
    assert (plan.kind, plan.host, plan.seconds) == (PG_CUT, 2, 9)
    assert config.deadline_for(plan) == 120 + 0.15 * 100 + plan.after + 9


def test_one_host_is_too_few_to_carry_on():
    with pytest.raises(ValueError, match="at least 2 hosts"):
        HostsConfig(hosts=1)
    with pytest.raises(ValueError, match="broker-cut targets host3"):
        HostsConfig(hosts=2, faults=(BROKER_CUT,))


def test_every_name_and_address_stays_private():
    machines = netns.machines(3)
    assert all(m.namespace.startswith("nf-") and m.port.startswith("nf") for m in machines)
    assert all(len(m.port) <= 15 for m in machines)  # the kernel's interface name limit
    assert all(m.address.startswith("10.77.0.") for m in machines)
    assert len({m.address for m in machines}) == len(machines)
    assert {m.hostname for m in netns.worker_hosts(3)} == {"host1", "host2", "host3"}


def test_the_setup_puts_the_bridge_in_its_own_namespace_and_nothing_in_the_root_one():
    commands = netns.setup_commands(3)
    for command in commands:
        # Every command names its namespace: `ip netns add`, or `ip -n <ns> ...`.
        assert command[:3] == ["ip", "netns", "add"] or command[1] == "-n", command
    assert ["ip", "-n", "nf-sw", "link", "add", "nfbr0", "type", "bridge"] in commands
    assert ["ip", "-n", "nf-h2", "addr", "add", "10.77.0.12/24", "dev", "eth0"] in commands
    for machine in netns.machines(3):
        assert ["ip", "-n", machine.namespace, "link", "set", "lo", "up"] in commands


def test_the_teardown_removes_only_our_namespaces():
    assert netns.teardown_commands(["nf-db", "other", "nf-h1", "nfs"]) == [
        ["ip", "netns", "delete", "nf-db"],
        ["ip", "netns", "delete", "nf-h1"],
    ]


def test_a_cut_from_one_server_blackholes_both_directions_and_is_undone_the_same_way():
    host = netns.worker_hosts(3)[1]
    cut = netns.route_cut_commands(host, netns.DB, cut=True)
    assert cut == [
        ["ip", "-n", "nf-h2", "route", "add", "blackhole", "10.77.0.2/32"],
        ["ip", "-n", "nf-db", "route", "add", "blackhole", "10.77.0.12/32"],
    ]
    undo = netns.route_cut_commands(host, netns.DB, cut=False)
    assert [c[4] for c in undo] == ["delete", "delete"]
    assert [c[:4] + c[5:] for c in undo] == [c[:4] + c[5:] for c in cut]


def test_a_link_cut_takes_the_switch_port_down():
    host = netns.worker_hosts(3)[0]
    assert netns.link_commands(host, up=False) == [
        ["ip", "-n", "nf-sw", "link", "set", "nfp-h1", "down"]
    ]


def test_a_worker_host_runs_in_its_namespace_under_its_own_hostname():
    host = netns.worker_hosts(3)[2]
    argv = netns.as_host(host, ["celery", "worker"])
    assert argv[:4] == ["ip", "netns", "exec", "nf-h3"]
    assert argv[4:6] == ["unshare", "--uts"]
    assert "hostname host3" in argv[8] and argv[-2:] == ["celery", "worker"]


def result(*shares: HostShare, back: float | None = 1.0, after: int = 60) -> HostsResult:
    chaos = ChaosResult(triggers=0, faults_requested={SIGSTOP: 1}, other_faults={SIGSTOP: 1})
    plan = HostsConfig().plan(SIGSTOP)  # host1
    return HostsResult(plan=plan, chaos=chaos, shares=list(shares), back=back, after=after)


def test_a_host_back_at_work_with_its_stale_leases_fenced_meets_every_target():
    clean = result(HostShare("host1", taken_over=2, claims_after_restore=5), HostShare("host2"))
    assert clean.misses() == []
    assert "sigstop" in clean.table() and "kills" not in clean.table()


def test_a_late_release_under_a_lease_taken_over_is_a_miss():
    late = result(HostShare("host1", late_releases=1, claims_after_restore=5))
    assert late.misses() == ["1 release(s) applied under a lease another worker had taken over"]


def test_a_host_that_does_not_come_back_to_work_is_a_miss():
    assert result(HostShare("host1", claims_after_restore=5), back=None).misses() == [
        "host1 not back in the registry after the restore"
    ]
    assert result(HostShare("host1"), HostShare("host2", claims_after_restore=9)).misses() == [
        "host1 claimed nothing of the 60 triggers fired after the restore"
    ]
