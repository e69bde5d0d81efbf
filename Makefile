# Two commands set everything up on a fresh machine: `make run` (what the platform needs to run)
# and `make test` (that plus the development tools: ruff, mypy, pytest, Playwright, Chromium).
SHELL := /bin/bash
PYTHON ?= $(shell command -v python3.11 || command -v python3)
VENV := .venv
BIN := $(VENV)/bin
PORT ?= 8000
HOST ?= 127.0.0.1
STAMP := $(VENV)/.installed
DEV_STAMP := $(VENV)/.installed-dev
# pytest-xdist workers for `make pytest` and `make test-fast` (a number, or auto: one per core).
PYTEST_WORKERS ?= auto

.PHONY: run test test-fast lint typecheck pytest content-check system-deps test-system-deps \
	install install-dev web worker compose-smoke migrate clean frontend translations \
	i18n-update i18n-init

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

# Reinstall only when the dependency lists change. Two stamps: the runtime dependencies
# (`make run`), and the dev extra on top of them (`make test`); a change of pyproject.toml
# renews the first, and so the second.
$(STAMP): $(BIN)/python pyproject.toml grader/pyproject.toml
	$(BIN)/pip install -q -e . -e ./grader
	touch $(STAMP)

$(DEV_STAMP): $(STAMP)
	$(BIN)/pip install -q -e '.[dev]'
	touch $(DEV_STAMP)

install: $(STAMP)

install-dev: $(DEV_STAMP)

# Debian packages (we run as root on CI machines): system-deps for the sandbox and the
# browser bundle, test-system-deps adds the Chromium builds the browser tests drive (the
# headless shell for most, the whole browser for what only it decides).
APT_INSTALL = if [ -n "$$missing" ]; then \
	  echo "installing:$$missing"; \
	  (apt-get update -qq || true) && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	fi

system-deps:
	@missing=""; \
	command -v bwrap >/dev/null || missing="$$missing bubblewrap"; \
	command -v npm >/dev/null || missing="$$missing nodejs npm"; \
	$(APT_INSTALL)

test-system-deps: system-deps
	@missing=""; \
	[ -x /usr/bin/chromium ] || missing="$$missing chromium"; \
	[ -x /usr/bin/chromium-headless-shell ] || missing="$$missing chromium-headless-shell"; \
	$(APT_INSTALL)

# The browser bundle: CodeMirror 6 and frontend/*.js, bundled by esbuild into
# app/static/dist/ (not committed). npm ci installs exactly what package-lock.json says, and
# only when the lock file changed; the bundle is rebuilt only when its sources changed.
NODE_STAMP := node_modules/.package-lock.json
BUNDLE := app/static/dist/app.js

$(NODE_STAMP): package.json package-lock.json
	npm ci --no-audit --no-fund --loglevel=error
	touch $(NODE_STAMP)

$(BUNDLE): $(NODE_STAMP) $(wildcard frontend/*.js frontend/*/*.js frontend/*.mjs)
	node frontend/build.mjs

frontend: $(BUNDLE)

# Interface translations: app/translations/<lang>/LC_MESSAGES/messages.po (committed),
# compiled to .mo (not committed). `make i18n-update` re-extracts the strings of templates
# and code and merges them into every catalog; `make i18n-init LOCALE=xx` starts a language.
PO_FILES := $(wildcard app/translations/*/LC_MESSAGES/messages.po)
MO_FILES := $(PO_FILES:.po=.mo)

%.mo: %.po $(STAMP)
	$(BIN)/pybabel -q compile --use-fuzzy -i $< -o $@

translations: $(MO_FILES)

app/translations/messages.pot: $(STAMP) babel.cfg $(wildcard app/*.py app/*/*.py app/*/*/*.py app/templates/*.html app/templates/*/*.html app/templates/*/*/*.html)
	$(BIN)/pybabel extract -F babel.cfg --no-location --sort-output --project=Tensorcamp --version=1 \
	  -o $@ app

i18n-update: app/translations/messages.pot
	$(BIN)/pybabel -q update --no-wrap --ignore-pot-creation-date --ignore-obsolete -N -i $< -d app/translations

i18n-init: app/translations/messages.pot
	@test -n "$(LOCALE)" || { echo "usage: make i18n-init LOCALE=xx"; exit 1; }
	$(BIN)/pybabel init -i $< -d app/translations -l $(LOCALE)

migrate: install
	$(BIN)/python -m app migrate

run: install system-deps frontend translations
	$(BIN)/python -m app serve --host $(HOST) --port $(PORT)

# The processes of distributed mode, configured by the same environment variables as
# docker-compose.yml (see README.md, "Processes"). web: HTTP plus, when REDIS_URL is set, the
# results consumer and the reaper (without REDIS_URL it grades in-process, like `make run`).
web: install system-deps frontend translations
	$(BIN)/python -m app serve --host $(HOST) --port $(PORT)

# A grader worker: REDIS_URL (required), GRADER_NAMESPACE, GRADER_DEVICES, GRADER_WORKERS.
worker: install system-deps
	$(BIN)/python -m grader.worker

# Builds the Docker images, grades the seed exercise through the compose stack, tears it down.
# Needs Docker (and root, the first time, to build a base image); not part of `make test`.
compose-smoke:
	scripts/compose-smoke

lint: install-dev
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/lint-imports

typecheck: install-dev
	$(BIN)/mypy

content-check: install system-deps
	$(BIN)/python -m app content check --run

# Every test, spread over PYTEST_WORKERS processes (pytest-xdist). --dist loadgroup: tests
# that share a module's warm grader or live app run on one worker (tests/conftest.py groups
# them), so each starts once; all other tests go wherever a worker is free. The 30 slowest
# are listed at the end: where the suite's time goes (bench/suite_time.py says more). pytest
# may keep its assertion-rewritten test modules even where PYTHONDONTWRITEBYTECODE is set: a
# worker that finds them collects in about half the CPU time (7 s less each, from the 2nd run).
PYTEST = PYTHONDONTWRITEBYTECODE= $(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadgroup

pytest: install-dev test-system-deps frontend translations
	$(BIN)/python -m compileall -q app grader tests  # the suite starts ~100 Python processes
	$(PYTEST) --durations=30

# The inner loop: SQLite only, no browser, no Redis/worker processes; the sandbox unit tests
# stay. Not a replacement for `make test` before a commit.
test-fast: install-dev system-deps frontend translations
	TEST_BACKENDS=sqlite $(PYTEST) -m "not browser and not distributed"

# content-check is not repeated here: tests/app/content/test_solutions.py runs it.
test: lint typecheck pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache node_modules app/static/dist test-artifacts
	rm -f $(MO_FILES)
