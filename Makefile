# The two commands of the README: `make run` and `make test`. Everything else is for developers.
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)

.PHONY: install run test bench migrate seed api worker sandbox dev-server clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	rm -f $(VENV)/.installed-* && touch $@

install: $(STAMP)

run: install
	$(BIN)/lineup db upgrade
	$(BIN)/lineup seed-demo
	exec $(BIN)/lineup run

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/python -m bench

migrate: install
	$(BIN)/lineup db upgrade

seed: install
	$(BIN)/lineup seed-demo

api: install
	$(BIN)/uvicorn api.main:app_from_env --factory --host 127.0.0.1 --port 8000

worker: install
	$(BIN)/python -m worker

sandbox: install
	$(BIN)/python -m sandbox

clean:
	rm -rf $(VENV) .data
