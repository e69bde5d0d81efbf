# Two commands set everything up on a fresh machine: `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
STAMP := $(VENV)/.installed

.PHONY: run test lint typecheck pytest content-check system-deps install web migrate clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Reinstall only when the dependency lists change.
$(STAMP): $(BIN)/python pyproject.toml grader/pyproject.toml
	$(BIN)/pip install -q -e '.[dev]' -e ./grader
	touch $(STAMP)

install: $(STAMP)

# Debian packages the sandbox and the browser tests need (we run as root on CI machines).
system-deps:
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

migrate: install
	$(BIN)/python -m app migrate

run: install system-deps
	$(BIN)/python -m app serve --host $(HOST) --port $(PORT)

web: run

lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

typecheck: install
	$(BIN)/mypy

content-check: install system-deps
	$(BIN)/python -m app content check --run

pytest: install system-deps
	$(BIN)/pytest

test: lint typecheck content-check pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
