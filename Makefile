# The two commands of the README: `make run` and `make test`. Everything else is for developers.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
# The Python client (clients/python) is a package of its own; the tests use it installed editable, as a channel would.
PROJECTS := pyproject.toml clients/python/pyproject.toml
# Every dependency of both, the test extra's included, at one version with its hashes: what `make install` installs.
LOCK := requirements.lock
# What installing depends on: the lock and the projects' own tables ([build-system], [project], [tool.setuptools…]).
# A tool's settings in pyproject.toml (ruff, mypy, pytest, the import contracts) reinstall nothing.
INSTALLED_FROM := $(shell awk '/^\[/ { kept = /^\[(build-system|project|tool\.setuptools)/ } kept' $(PROJECTS) | cat - $(LOCK) | cksum | cut -d' ' -f1)
STAMP := $(VENV)/.installed-$(INSTALLED_FROM)
# The lock's one command (uv, pinned in the test extra). --no-config: no uv.toml of a machine or a user changes the
# index; Python 3.11 whatever runs it; the pins already in the output file are kept (preferences), so the same
# pyproject.toml gives the same lock until `make lock LOCK_ARGS=--upgrade` (or `-P <name>`) asks for newer releases.
LOCK_COMPILE = $(BIN)/uv pip compile --quiet --no-config --python-version 3.11 --generate-hashes --extra test \
	--custom-compile-command 'make lock' $(LOCK_ARGS) $(PROJECTS)

.PHONY: install install-key lock lock-check run test lint fmt generate bench capacity profile soak histories migrate seed api worker sandbox clean

# The lock first, every file checked against its hashes (pip's own resolver never runs); then the two projects
# themselves, editable and without dependencies. A package the lock drops stays until `make clean`. The stamp's name
# is the key: a venv installed from the same lock and tables is never installed again.
$(STAMP):
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --require-hashes --no-deps -r $(LOCK)
	$(BIN)/python -m pip install --quiet --no-deps -e . -e ./clients/python
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

# The key `make install` is stamped with (tests/test_tools.py holds what changes it).
install-key:
	@echo $(INSTALLED_FROM)

# After a dependency is added, removed or given other bounds in a pyproject.toml: rewrites requirements.lock.
lock: install
	$(LOCK_COMPILE) -o $(LOCK)

# Fails while requirements.lock is not what `make lock` writes from the pyproject.toml files (make lint runs it).
lock-check: install
	@fresh=$$(mktemp -d) && cp $(LOCK) $$fresh/ && $(LOCK_COMPILE) -o $$fresh/$(LOCK) \
		&& diff -u $(LOCK) $$fresh/$(LOCK) && rm -r $$fresh \
		|| { echo "requirements.lock is stale: run make lock"; rm -rf $$fresh; exit 1; }

# The demo deployment maps two vendor carrier codes channels of the original service send (decisions.md).
run: install
	$(BIN)/lineup db upgrade
	$(BIN)/lineup seed-demo
	LINEUP_CARRIER_ALIASES="$${LINEUP_CARRIER_ALIASES-BLUECONNECTSATT:ATT,NEXUS:TMB}" exec $(BIN)/lineup run

# Coverage is printed on every run; under CI=true a total below the floor fails the run.
COVERAGE_FLOOR ?= 93
# Tests run in one pytest-xdist process per core (`make test TEST_WORKERS=0` for one process, e.g. to debug):
# most of a test's time is spent waiting on servers and subprocesses, so two processes on 2 cores halve the run.
TEST_WORKERS ?= auto

# The console's browser tests drive Debian's chromium, the alert rules' tests Debian's prometheus and promtool;
# the script installs each once (needs root or sudo).
test: install
	bash scripts/apt-install.sh chromium /usr/bin/chromium
	bash scripts/apt-install.sh prometheus /usr/bin/promtool
	$(BIN)/python -m pytest -n $(TEST_WORKERS) --cov --cov-report=term $(if $(CI),--cov-fail-under=$(COVERAGE_FLOOR))

# ruff (rules and why, in pyproject.toml), mypy strict, the import contracts, the lock, and every generated file
# (the files to follow run three calls through a stack of their own: about 20 s).
lint: lock-check
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy .
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m codegen --check
	$(BIN)/python -m tests.support.files_to_follow --check

fmt: install
	$(BIN)/ruff check --fix .
	$(BIN)/ruff format .

# Every generated file, after an action, a setting or a module changes: the docs' tables, both clients' generated
# code from the OpenAPI document the app serves (runs npm: Node 18+), the files to follow. `make lint` fails while one
# is stale (docs/architecture.md, "Adding an action").
generate: install
	$(BIN)/python -m codegen
	$(BIN)/python -m tests.support.files_to_follow --write

# issues 11, 17 and 20's measurements as ratios (~30 min on 2 cores); e.g. make bench BENCH="--only T1,T2 --quick";
# BENCH=--capacity also writes docs/capacity.md from the run.
bench: install
	bash scripts/apt-install.sh wrk /usr/bin/wrk
	$(BIN)/python -m bench $(BENCH)

# Issue 19's soak: production's processes under restart loops, ~1 enrollment/s from 8 channels, a SIGKILL every
# 45 s (a worker, the API, Temporal, PostgreSQL), a carrier outage; 0 lost, 0 duplicated, 0 HTTP 500s, every stuck
# line healed. 3 minutes of load by default (~4 in all); `make soak SOAK="--minutes 10"` for the full one. Runs a
# PostgreSQL server of its own (Debian's postgresql binaries); never restarts the one on 127.0.0.1:5432.
soak: install
	$(BIN)/python -m soak $(SOAK)

# docs/capacity.md and docs/performance.md's block of the latest run from a bench JSON: the newest under
# .data/bench, or BENCH_JSON=path (`make bench BENCH=--capacity` writes both at the end of the run instead).
# Written only if every figure they read is there (the shared floor's among them).
BENCH_JSON ?= $(shell ls -t .data/bench/bench-*.json 2>/dev/null | head -1)
capacity: install
	$(BIN)/python -m bench.capacity $(BENCH_JSON) > docs/capacity.md.new && mv docs/capacity.md.new docs/capacity.md || (rm -f docs/capacity.md.new; exit 1)
	$(BIN)/python -m bench.goals $(BENCH_JSON)

# Where one chained update_location_coordinate's time goes (~1 min each): the API in-process under pyinstrument,
# on SQLite then on PostgreSQL (127.0.0.1:5432), each section written into docs/performance.md; e.g.
# `make profile PROFILE="--calls 500"` to look without writing.
PROFILE ?= --write
profile: install
	$(BIN)/python -m bench.profile_call --database sqlite $(PROFILE)
	$(BIN)/python -m bench.profile_call --database postgresql $(PROFILE)

# Records tests/workflows/histories (~1 min); `make histories FLOWS="tax_collection"` for some flows only.
# Only for workflows that cannot still be running anywhere: docs/reliability.md, "Changing a workflow safely".
histories: install
	$(BIN)/python -m tests.support.record_histories $(FLOWS)

migrate: install
	$(BIN)/lineup db upgrade

seed: install
	$(BIN)/lineup seed-demo

api: install
	$(BIN)/uvicorn api.main:app_from_env --factory --host 127.0.0.1 --port 8000 --http=api.edge:ReadTimeouts --no-proxy-headers

worker: install
	$(BIN)/python -m worker

sandbox: install
	$(BIN)/python -m sandbox

clean:
	rm -rf $(VENV) .data
