# Notiflow developer commands. `make run` and `make test` work on a fresh machine.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)

.PHONY: install run test lint format bench chaos clean

$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is needed"'
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[dev]'
	rm -f $(VENV)/.installed-* && touch $(STAMP)

install: $(STAMP)

## Set everything up (database, demo workflow, admin user, API key) and run all processes.
run: install
	$(PY) scripts/run.py

## The whole test suite against local PostgreSQL, Redis, real Celery workers and SMTP.
test: install
	$(PY) scripts/services.py check
	$(PY) -m pytest $(PYTEST_ARGS)

## Benchmarks (not part of `make test`): prints a table and updates BENCHMARKS.md. Several
## minutes at the default sizes; `make bench ARGS="--quick"` for a small run, `--help` for options.
bench: install
	$(PY) scripts/services.py check
	$(PY) -m bench $(ARGS)

lint: install
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy .

format: install
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

clean:
	rm -rf $(VENV) .run .pytest_cache .mypy_cache .ruff_cache staticfiles
