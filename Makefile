# Everything runs from a local virtual environment built from the pinned requirements.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: venv build serve test lint cheatsheet clean bench mutants portability libcheck

$(STAMP): requirements.txt requirements-dev.txt pyproject.toml
	$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 11), "Python 3.11+ is required"'
	$(PYTHON) -m venv $(VENV)
	# --no-compile: byte-compiling every installed module is half of the install's time; Python
	# compiles the modules the build and tests import (a fraction) on first use instead.
	$(BIN)/pip install --quiet --no-compile --disable-pip-version-check -r requirements-dev.txt
	# The card package is used in place: a .pth file puts the project root on the venv's path.
	$(BIN)/python -c 'import site, os; open(os.path.join(site.getsitepackages()[0], "eqcards-project.pth"), "w").write(os.getcwd() + "\n")'
	touch $(STAMP)

# Node tools for the tests (axe-core), pinned exactly by package-lock.json; installed once.
NODE_STAMP := node_modules/.installed-stamp
$(NODE_STAMP): package.json package-lock.json
	npm ci --ignore-scripts --no-audit --no-fund
	touch $(NODE_STAMP)

venv: $(STAMP) $(NODE_STAMP)

build: $(STAMP)
	$(BIN)/mkdocs build --strict

# Our own server (eqcards/live/serve.py), not `mkdocs serve`: a saved card rebuilds its own page at
# once and the pages listing every card a moment later; problems show on their page.
serve: $(STAMP)
	$(BIN)/python -m eqcards.live.serve --dev-addr 127.0.0.1:8000

lint: $(STAMP)
	$(BIN)/ruff check eqcards overrides scripts snippets tests
	$(BIN)/actionlint .github/workflows/*.yml

# In parallel on every core (pytest-xdist; the workers share one build of the site), then the 15
# slowest tests, so the next person sees where the time goes.
test: lint $(NODE_STAMP)
	$(BIN)/pytest -q -n auto --dist worksteal --durations=15

# Every snippet under other BLAS kernels and thread counts (make test runs this too, as a test).
portability: $(STAMP)
	$(BIN)/python scripts/portability.py

BENCH_STAMP := $(VENV)/.bench-stamp
$(BENCH_STAMP): $(STAMP) requirements-bench.txt
	$(BIN)/pip install --quiet --disable-pip-version-check -r requirements-bench.txt
	touch $(BENCH_STAMP)

# Builds the site several ways and prints ratios (bench/latest.json, README table).
bench: $(BENCH_STAMP)
	cd scripts && ../$(BIN)/python bench.py

# Mutation testing: break every card's formula on purpose and fail if the checks miss too much
# (a card under 90% of its mutants killed, or the site under 95%). Scores: snippets/mutation-scores.json.
mutants: $(STAMP)
	$(BIN)/python scripts/mutants.py --check

# The heavy libraries of the "In code" sections (torch ...; requirements-libcheck.txt) in an
# environment of their own, so the build's .venv never needs them; every snippet with such a region
# runs whole there, and the outcomes go to snippets/libcheck-ledger.json (commit it).
LIBCHECK_VENV  := .venv-libcheck
LIBCHECK_STAMP := $(LIBCHECK_VENV)/.installed-stamp
$(LIBCHECK_STAMP): requirements.txt requirements-libcheck.txt
	$(PYTHON) -m venv $(LIBCHECK_VENV)
	$(LIBCHECK_VENV)/bin/pip install --quiet --disable-pip-version-check -r requirements.txt -r requirements-libcheck.txt
	$(LIBCHECK_VENV)/bin/python -c 'import site, os; open(os.path.join(site.getsitepackages()[0], "eqcards-project.pth"), "w").write(os.getcwd() + "\n")'
	touch $(LIBCHECK_STAMP)

libcheck: $(LIBCHECK_STAMP)
	$(LIBCHECK_VENV)/bin/python scripts/libcheck.py

cheatsheet: $(STAMP)
	$(BIN)/python scripts/build_cheatsheet.py

clean:
	rm -rf site .cache .pytest_cache .ruff_cache
