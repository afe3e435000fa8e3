"""The hosts harness (`make hosts`, `python -m hosts`): the delivery guarantees across machines.

Network namespaces on this machine stand for the machines: PostgreSQL in one, the broker (Redis)
in another, the web process and beat in a third, and one Celery worker on each of three worker
hosts, all on one bridge. For each fault - a host's link cut, a host cut from PostgreSQL only or
from the broker only, a host frozen - it fires triggers of an email -> delay -> SMS workflow,
does the fault on one host while they are in flight, undoes it, and counts with the chaos run's
tally: nothing lost, stuck or logged twice, every duplicate delivery within the ledger's count.
"""
