# Two commands do all setup on a fresh machine:
#   make run    creates .venv, installs gpucalc, runs tonight's pipeline on the bundled data
#   make test   creates .venv, installs gpucalc with test tools, runs the test suite
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# Python keeps compiled modules (and pytest its rewritten test modules) even where the environment
# says not to, so a later run, and each `gpucalc` process the tests start, imports them compiled.
unexport PYTHONDONTWRITEBYTECODE

.PHONY: run test test-slow lint bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[dev]"
	touch $(STAMP)

run: $(STAMP)
	$(BIN)/gpucalc run --offline

test: $(STAMP)
	$(BIN)/pytest -q -n 2 --dist loadfile

# the benchmark, timing and size-limit checks (pytest -m slow): CI runs them after `make test`
test-slow: $(STAMP)
	$(BIN)/pytest -q -n 2 -m slow

lint: $(STAMP)
	$(BIN)/ruff check flows sources warehouse reports tests

bench: $(STAMP)
	$(BIN)/gpucalc bench --estimates 10000000

clean:
	rm -rf $(VENV)
