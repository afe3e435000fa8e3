# Notiflow developer commands. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
# Bytecode caches on even where the environment turns them off (PYTHONDONTWRITEBYTECODE=1, as
# the Dockerfile sets for its image): without __pycache__ (git-ignored) each test process
# rewrites the asserts of every test module again, some 6 s of CPU per process at each start.
unexport PYTHONDONTWRITEBYTECODE
# Reinstalls when a pyproject.toml (the service's, the client package's) or constraints.txt changes (the stamp's name is their checksum).
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml clients/python/pyproject.toml constraints.txt | cksum | cut -d' ' -f1)

.PHONY: install run manage test test-rabbitmq test-pgbouncer test-fast test-tools lint format docs docs-serve docs-reference bench chaos hosts schemathesis clean

## Every package at the version constraints.txt pins (the one the suite last passed with; how to
## upgrade is in its header and in docs/upgrading.md).
$(STAMP): pyproject.toml clients/python/pyproject.toml constraints.txt
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -c constraints.txt -e '.[dev]'
	$(PY) -m pip install --quiet -c constraints.txt -e './clients/python[django]'
	rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

## Set everything up (database, demo workflow, admin user, API key) and run web, worker, beat,
## flower and a mail catcher; prints their URLs once they answer (scripts/run.py).
run: install
	$(PY) scripts/run.py

## A manage.py command against the instance `make run` set up, with its environment: the
## variables it wrote to .run/env (database, broker, EMAIL_URL, DJANGO_SECRET_KEY, ...; NOTIFLOW_RUN_DIR
## moves it). e.g. make manage ARGS="notiflow_stats"; in a shell, `. .run/env` does the same.
RUN_DIR = $(or $(NOTIFLOW_RUN_DIR),.run)
manage:
	@test -f "$(RUN_DIR)/env" || { echo "make manage: no $(RUN_DIR)/env: run make run first, which writes it" >&2; exit 1; }
	. "$(abspath $(RUN_DIR))/env" && $(PY) manage.py $(ARGS)

## System tools the tests drive: Debian's chromium (the admin browser test, no browser download),
## docker-compose (validates docker-compose.yml; no Docker engine needed) and pgbouncer (the tests
## start private ones on loopback; Debian's service is not used). `make test` runs this first: as
## root it installs the missing ones with apt-get; otherwise it prints the apt-get line to run
## and fails.
test-tools:
	@missing=""; \
	test -x /usr/bin/chromium || missing="$$missing chromium"; \
	command -v docker-compose >/dev/null 2>&1 || missing="$$missing docker-compose"; \
	test -x /usr/sbin/pgbouncer || command -v pgbouncer >/dev/null 2>&1 || missing="$$missing pgbouncer"; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
	    echo "make test-tools: running as root, installing$$missing with apt-get"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing >/dev/null; \
	  else \
	    echo "The tests need$$missing: run  sudo apt-get install -y$$missing  (Debian/Ubuntu)"; exit 1; \
	  fi; \
	fi

## The whole test suite against local PostgreSQL, Redis, real Celery workers and SMTP: the tests
## without real processes in FAST_WORKERS processes (as `make test-fast`, its slow ones included),
## then the end-to-end, browser and chaos tests in E2E_WORKERS processes (pytest-xdist, a file at a
## time: each process has its own test database, Redis databases and stack, tests/settings.py; they
## mostly wait on sockets and child processes, so two on two cores take about two thirds of one's
## time; the 25 slowest are listed, to show where the time goes; a path in PYTEST_ARGS that selects
## none of one half is not a failure, pytest's exit 5); then, in one process with the machine to
## themselves, those marked `alone` (a latency, a cost or a page's time held to a bound); then the short
## second-broker run: the engine's end-to-end tests with RabbitMQ as the broker (`make
## test-rabbitmq` runs every end-to-end test that does not drive Redis itself, and the `rabbitmq`
## ones: RabbitMQ restarted under a chaos run, `make run` on RabbitMQ); then the short PgBouncer
## run: the engine's and the flow nodes' end-to-end tests with the stack's processes behind a
## PgBouncer in transaction mode (`make test-pgbouncer`: every one).
RABBITMQ_URL ?= amqp://guest:guest@127.0.0.1:5672//
RABBITMQ_SHORT = tests/workers/test_engine_e2e.py tests/workers/test_cancellation.py \
	tests/workers/test_queues_priority.py tests/workers/test_flow_nodes_e2e.py
RABBITMQ_FULL = tests/workers tests/triggers tests/events tests/deliveries tests/registry
E2E_WORKERS ?= 2
PGBOUNCER_SHORT = tests/workers/test_engine_e2e.py tests/workers/test_flow_nodes_e2e.py
test: install test-tools
	$(PY) scripts/services.py check
	$(PY) -m pytest -m "not e2e and not browser and not chaos and not alone" \
		-n $(FAST_WORKERS) --dist loadfile $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(PY) -m pytest -m "(e2e or browser or chaos) and not rabbitmq and not alone" \
		-n $(E2E_WORKERS) --dist loadfile --durations=25 $(PYTEST_ARGS) || [ $$? -eq 5 ]
	$(PY) -m pytest -m "alone and not rabbitmq" $(PYTEST_ARGS) || [ $$? -eq 5 ]
	CELERY_BROKER_URL=$(RABBITMQ_URL) $(PY) scripts/services.py check
	CELERY_BROKER_URL=$(RABBITMQ_URL) $(PY) -m pytest -m e2e $(RABBITMQ_SHORT) $(PYTEST_ARGS)
	NOTIFLOW_TEST_PGBOUNCER=1 $(PY) -m pytest -m e2e $(PGBOUNCER_SHORT) $(PYTEST_ARGS)

## The end-to-end tests again with RabbitMQ as the broker (a few minutes).
test-rabbitmq: install test-tools
	CELERY_BROKER_URL=$(RABBITMQ_URL) $(PY) scripts/services.py check
	CELERY_BROKER_URL=$(RABBITMQ_URL) $(PY) -m pytest -m e2e $(RABBITMQ_FULL) $(PYTEST_ARGS)
	$(PY) -m pytest -m rabbitmq $(PYTEST_ARGS)

## Every end-to-end test with the stack's web, workers and beat behind a private PgBouncer in
## transaction mode (tests/support/pgbouncer.py, on a free loopback port; the test process itself
## stays direct: it creates and migrates the test database). Not the chaos tests: they run a
## PostgreSQL and Redis of their own.
test-pgbouncer: install test-tools
	$(PY) scripts/services.py check
	NOTIFLOW_TEST_PGBOUNCER=1 $(PY) -m pytest -m "e2e and not chaos" tests $(PYTEST_ARGS)

## The quick loop (under a minute on two cores): everything but the end-to-end, browser, chaos,
## slow and alone tests (pytest markers, set in tests/conftest.py), in three processes (pytest-xdist, a file
## at a time; each has its own test database and Redis databases, tests/settings.py): a third
## process on two cores fills the time the others wait on sockets and child processes.
## test-tools too: tests/test_pgbouncer.py is fast.
FAST_WORKERS ?= 3
test-fast: install test-tools
	$(PY) scripts/services.py check
	$(PY) -m pytest -m "not e2e and not browser and not chaos and not slow and not alone" \
		-n $(FAST_WORKERS) --dist loadfile $(PYTEST_ARGS)

## Schemathesis against the live test stack for longer than `make test` does
## (tests/test_schemathesis.py): EXAMPLES generated cases per operation, SEED to vary or replay.
EXAMPLES ?= 500
SEED ?= 20261123
schemathesis: install
	$(PY) scripts/services.py check
	SCHEMATHESIS_MAX_EXAMPLES=$(EXAMPLES) SCHEMATHESIS_SEED=$(SEED) \
		$(PY) -m pytest tests/test_schemathesis.py -rP $(PYTEST_ARGS)

## The documentation site (mkdocs.yml; MkDocs with Material), sources under docs/: built into site/
## in strict mode, so a broken link, a missing page or an unknown anchor fails it
## (tests/test_docs_site.py builds it in `make test`). docs-serve: on 127.0.0.1 only, rebuilt on
## every change; DOCS_PORT moves it.
DOCS_PORT ?= 8001
docs: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs build --strict --site-dir site

docs-serve: install
	NO_MKDOCS_2_WARNING=1 $(VENV)/bin/mkdocs serve --strict --dev-addr 127.0.0.1:$(DOCS_PORT)

## The reference pages generated from the code (docs/reference/: settings, node types, channels,
## metrics, commands, webhook events, the OpenAPI schema) written again from it; review with
## `git diff docs/reference`. tests/test_docs_reference.py fails while a committed page is stale.
docs-reference: install
	NOTIFLOW_SNAPSHOT_UPDATE=1 $(PY) -m pytest tests/test_docs_reference.py -q $(PYTEST_ARGS)

## Benchmarks (not part of `make test`): prints a table and updates BENCHMARKS.md. Several
## minutes at the default sizes; `make bench ARGS="--quick"` for a small run, `--help` for options.
bench: install
	$(PY) scripts/services.py check
	$(PY) -m bench $(ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .
	$(VENV)/bin/mypy --config-file clients/python/pyproject.toml clients/python/src  # strict: the client package
	$(VENV)/bin/lint-imports  # the rooms of docs/design/index.md "Stack and layout" (pyproject.toml)
# The rules import contracts cannot say, read off the source (no database, no broker): no
# package but triggers names the run table in SQL, no consumer branches on a node type's or a
# channel's name, workflows imports none of the apps that run it.
	$(PY) -m pytest -q -p no:cacheprovider tests/test_run_transitions.py \
		tests/test_node_types.py::test_no_consumer_branches_on_a_node_type_name \
		tests/test_node_types.py::test_the_scan_finds_a_type_branch \
		tests/test_node_types.py::test_node_types_keep_workflows_free_of_the_apps_that_run_them

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

## Chaos run (docs/reliability/chaos.md): its own PostgreSQL and Redis (and RabbitMQ), N triggers while workers are
## SIGKILLed, Redis flushed and restarted, PostgreSQL restarted, and every event webhooked to a
## flaky receiver that is also taken down; DIGESTS runs of a digest workflow alongside (every
## run in exactly one digest, each digest sent once), and a topic of FANOUT subscribers triggered
## once (every subscriber exactly one run), a topic of SCHEDULE subscribers scheduled once (every
## subscriber exactly one run of the occurrence); WAITS runs waiting for an event, posted under the
## faults with 10 % repeated, and WAIT_TIMEOUTS more that time out (each resumed once, the right
## way); ACTIONS runs replayed in bulk once completed and ACTIONS waiting runs cancelled in bulk,
## both asked under the faults (each run acted on exactly once). Exit 1 when a target is missed.
## BROKER=rabbitmq: a RabbitMQ node of the run's own is the broker, restarted (stop_app/start_app)
## in each flush's place; Redis stays as the cache and is still restarted.
## e.g. make chaos N=200 DIGESTS=50 KILLS=2 FLUSHES=1 REDIS_RESTARTS=0 PG_RESTARTS=0
N ?= 2000
BROKER ?= redis
DIGESTS ?= 500
FANOUT ?= 2000
SCHEDULE ?= 10000
WAITS ?= 1000
WAIT_TIMEOUTS ?= 100
ACTIONS ?= 500
KILLS ?= 10
FLUSHES ?= 2
REDIS_RESTARTS ?= 1
PG_RESTARTS ?= 1
RECEIVER_OUTAGES ?= 1
CHAOS_ARGS ?=
chaos: install
	$(PY) -m chaos --broker $(BROKER) --triggers $(N) --digest-triggers $(DIGESTS) --fanout-subscribers $(FANOUT) \
		--schedule-subscribers $(SCHEDULE) \
		--waiting-runs $(WAITS) --waiting-timeouts $(WAIT_TIMEOUTS) --action-runs $(ACTIONS) \
		--kills $(KILLS) --flushes $(FLUSHES) \
		--redis-restarts $(REDIS_RESTARTS) --pg-restarts $(PG_RESTARTS) \
		--receiver-outages $(RECEIVER_OUTAGES) $(CHAOS_ARGS)

## Several hosts (docs/reliability/hosts.md): as root, network namespaces on this machine stand for the
## machines - PostgreSQL, Redis, web + beat, and three worker hosts on one bridge (10.77.0.0/24;
## nothing in the root namespace). Each fault on one host under HOSTS_N triggers: link-down (its
## link cut past the lease), pg-cut / broker-cut (cut from PostgreSQL / the broker only), sigstop
## (frozen past the lease). One table per fault; exit 1 when a target is missed.
## e.g. make hosts FAULTS=sigstop HOSTS_N=100
HOSTS_N ?= 600
FAULTS ?= link-down,pg-cut,broker-cut,sigstop
HOSTS_ARGS ?=
hosts: install
	$(PY) -m hosts --faults $(FAULTS) --triggers $(HOSTS_N) $(HOSTS_ARGS)

clean:
	rm -rf $(VENV) .run .pytest_cache .mypy_cache .ruff_cache staticfiles site
