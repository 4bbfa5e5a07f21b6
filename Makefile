# Hideout — the two commands a newcomer needs are `make run` and `make test`.
SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PG_URL ?= postgresql://postgres@127.0.0.1:5432/test
# -rs: a skipped test says why in the summary (each is one the other database's run covers).
# --durations: each suite's slowest tests, so a CI log shows where the time of issue 31 goes.
PYTEST := $(BIN)/pytest -p no:cacheprovider -rs --durations=15
# Python keeps the bytecode it compiles (ignored by git; kept out of the package by MANIFEST.in
# and pyproject.toml), even where the shell says not to: each test worker, server and command the
# suite starts then reads the app and the tests compiled, not compiling them again (about 8 s a
# worker).
unexport PYTHONDONTWRITEBYTECODE
# The database suites run on two workers (each with its own database); `make test-sqlite WORKERS=0` runs them in one process.
WORKERS ?= 2
# `make run HOST=0.0.0.0 PORT=8080` serves the club's Wi-Fi, not only this machine (set on the
# command line; a HOST or PORT in the environment is ignored).
HOST = 127.0.0.1
PORT = 8000

.PHONY: lint run test test-sqlite test-postgres test-e2e test-fuzz i18n chromium vnu lighthouse clean bench bench-load

# `make run` installs what the server needs; the test and fuzzing tools come with `make test`.
# uv installs the same pinned versions as pip in seconds rather than most of a minute (issue 31);
# where no uv wheel installs, pip does it. A club's plain `pip install` is checked by test-package.
UV := $(shell grep -o '"uv==[^"]*"' pyproject.toml | tr -d '"')
comma := ,
INSTALL = { [ -x $(BIN)/uv ] && $(BIN)/uv pip install -q --python $(BIN)/python $(1); } || $(BIN)/pip install -q $(1)

$(BIN)/.server: pyproject.toml
	@echo "Installing Hideout into $(VENV) (under a minute)…"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q $(UV) || echo "uv did not install: pip installs Hideout instead."
	$(call INSTALL,-e .)
	touch $@

$(BIN)/.installed: $(BIN)/.server
	@echo "Installing the test tools into $(VENV)…"
	$(call INSTALL,-e '.[dev$(comma)fuzz]')
	touch $@

## Install, migrate, seed the demo campaign and serve on http://$(HOST):$(PORT) (default 127.0.0.1:8000)
run: $(BIN)/.server
	$(BIN)/hideout serve --host $(HOST) --port $(PORT)

## Install everything and run every test: SQLite, PostgreSQL, the browser and API fuzzing
# Issue 31 (the whole of `make test` in under 12 minutes): after lint, tools/suites.py runs the
# suites in two lanes at once (SQLite then the browser; PostgreSQL then the fuzzing), each
# filling the cores the other leaves idle, the club's install beside them; each suite's output
# is printed whole when it ends, with its seconds. `make test LANES=1` runs them one by one.
LANES ?= 2
test: $(BIN)/.installed chromium vnu
	$(BIN)/python tools/suites.py --lanes $(LANES)

# Each database suite is one session: its fast tests first, then the slow ones marked `load`
# (tests/load, server processes, walks over every route), slowest first (tests/conftest.py).
# `-m "not load"` runs the fast ones alone.
test-sqlite: $(BIN)/.installed vnu
	@echo "== unit, api and web tests on SQLite, then the load tests =="
	env -u TEST_DATABASE_URL $(PYTEST) -n $(WORKERS) tests --ignore=tests/e2e

test-postgres: $(BIN)/.installed vnu
	@echo "== api and web tests on PostgreSQL, then the load tests =="
	@if ! $(BIN)/python -c "import psycopg,sys; psycopg.connect('$(or $(TEST_DATABASE_URL),$(PG_URL))', connect_timeout=3).close()" 2>/dev/null; then \
	  if [ "$$CI" = "true" ]; then echo "PostgreSQL is not reachable at $(or $(TEST_DATABASE_URL),$(PG_URL))"; exit 1; fi; \
	  echo "PostgreSQL is not reachable: skipping its run (CI runs it)."; exit 0; fi; \
	TEST_DATABASE_URL=$(or $(TEST_DATABASE_URL),$(PG_URL)) $(PYTEST) -n $(WORKERS) tests --ignore=tests/e2e --ignore=tests/unit

# --tb=short: a failure prints its failing line, not the whole test (a CI log keeps only its ends).
test-e2e: $(BIN)/.installed chromium
	@echo "== browser tests in Chromium at 390x844 =="
	env -u TEST_DATABASE_URL $(PYTEST) --tb=short -n $(WORKERS) tests/e2e

## ruff (lint and format), import-linter's layer contracts, mypy (pyproject.toml), and the sizes of issue 31 (tools/sizes.py)
lint: $(BIN)/.installed
	@echo "== ruff, import-linter, mypy =="
	$(BIN)/ruff check app tests tools bench
	$(BIN)/ruff format --check app tests tools bench
	$(BIN)/lint-imports
	$(BIN)/mypy
	$(BIN)/python tools/sizes.py

## Schemathesis (--checks all) against a live server, as the GM and as a player (about a minute)
test-fuzz: $(BIN)/.installed
	@echo "== schemathesis against a live server =="
	$(BIN)/python tools/fuzz_api.py --max-examples 10

## A club's install: build the wheel, pip install it into a fresh venv, serve from elsewhere
test-package: $(BIN)/.installed
	@echo "== the wheel, installed and served outside the checkout =="
	$(BIN)/python tools/check_package.py

## Debian's Chromium for the browser tests (never a downloaded browser build)
# The browser suite drives Debian's chromium-headless-shell, built from the same Chromium
# source: it renders pages as Chromium does, without the full browser's windowing, and the
# suite takes 40 % less time in it (issue 31: 237 s -> 141 s). Where Debian has no such
# package, the tests use chromium itself (tests/e2e/conftest.py), and apt is not asked again.
chromium:
	@command -v chromium >/dev/null 2>&1 && { command -v chromium-headless-shell || ! apt-cache show chromium-headless-shell; } >/dev/null 2>&1 || { \
	  echo "Installing Debian's chromium and chromium-headless-shell packages..."; \
	  SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium fonts-dejavu-core >/dev/null && \
	  { DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 || \
	    echo "No chromium-headless-shell package here: the browser tests run in chromium."; }; }

# Node tools (issue 30) live in tools/node/, ignored by git; Java and npm are Debian's packages.
NODE_TOOLS := tools/node
VNU_JAR := $(NODE_TOOLS)/vnu/node_modules/vnu-jar/build/dist/vnu.jar
LIGHTHOUSE := $(NODE_TOOLS)/lighthouse/node_modules/.bin/lighthouse

## The Nu Html Checker for tests/web/test_html_valid.py (npm's vnu-jar, run on Debian's JRE)
vnu: $(VNU_JAR)
$(VNU_JAR):
	@command -v java >/dev/null 2>&1 || { echo "Installing Debian's JRE..."; SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
	  $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq default-jre-headless >/dev/null; }
	npm install --no-audit --no-fund --prefix $(NODE_TOOLS)/vnu vnu-jar@26.9.27

$(LIGHTHOUSE):
	npm install --no-audit --no-fund --prefix $(NODE_TOOLS)/lighthouse lighthouse@12.2.3

## Lighthouse's mobile audit of every app page against a demo server (slow: not in `make test`)
lighthouse: $(BIN)/.installed chromium $(LIGHTHOUSE)
	$(BIN)/python tools/lighthouse.py

## Extract messages and update the Polish catalog
i18n: $(BIN)/.installed
	$(BIN)/pybabel extract -F babel.cfg --no-location --sort-output --width=100 -o app/translations/messages.pot --project=Hideout --version=0.1 .
	$(BIN)/python tools/update_catalogs.py

bench: $(BIN)/.installed
	$(BIN)/python -m bench.report
	$(BIN)/python -m bench.request_cpu
	$(BIN)/python -m bench.request_split
	$(BIN)/python -m bench.page_parts
	$(BIN)/python -m bench.collector
	$(BIN)/python -m bench.page_statements
	$(BIN)/python -m bench.season_reads
	$(BIN)/python -m bench.prepared_routes
	$(BIN)/python -m bench.write_cost
	$(BIN)/python -m bench.dashboard
	$(BIN)/python -m bench.map_page
	$(BIN)/python -m bench.announce
	$(BIN)/python -m bench.live_streams
	$(BIN)/python -m bench.suite_client
	$(BIN)/python -m bench.wrk --database both
	$(BIN)/python -m bench.slots --database both
	$(BIN)/python -m bench.pinning --database both

## Club night: 200 members for 2 minutes on SQLite, then PostgreSQL with 2 workers (about 10 minutes)
bench-load: $(BIN)/.installed
	$(BIN)/python -m bench.club_night --database both --users 200 --seconds 120

clean:
	rm -rf $(VENV) var test-artifacts
