# Two commands do all the set-up on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
LAB    := $(VENV)/bin/lab
STAMP  := $(VENV)/.installed-stamp
OUT    ?= runs/flagship

.PHONY: run test docs docs-papers check faults urdf bench report sweep clean regress-record

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q -e '.[dev]'
	touch $(STAMP)

## run the flagship scenario headless, write results and plots, print a summary
run: $(STAMP)
	$(LAB) run snake_passive_creeping --out $(OUT) --overwrite

## the test suite (physics, robots, scenarios, CLI, GUI smoke test under Xvfb), the documentation site
## (strict: a broken link or a missing reference fails), then the lab's own regression suite against its
## committed baseline (a table of what drifted if anything did)
test: $(STAMP)
	$(PY) -m pytest -q
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet --site-dir site
	$(LAB) regress check regression --baseline tests/baselines/regression --workers 2

## after an intended physics change: re-record the baseline, and commit it with the change and the reason
regress-record: $(STAMP)
	$(LAB) regress record regression --out tests/baselines/regression --overwrite --workers 2

## the documentation site into site/ (MkDocs + Material + mkdocstrings), strict
docs: $(STAMP)
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --site-dir site

## rewrite the paper pages docs/papers/ from a quick report (a full one: make docs-papers QUICK=, ~20 min on 2 quiet cores)
QUICK ?= --quick
docs-papers: $(STAMP)
	$(LAB) report $(QUICK) --out runs/report-docs --overwrite --docs docs/papers

check: $(STAMP)
	$(LAB) check --out runs/checks --overwrite

## every check under every fault (docs/checks.md): which check catches which fault; takes long
faults: $(STAMP)
	$(LAB) check --faults --out runs/faults --overwrite

## rewrite the committed default URDFs under assets/urdf/
urdf: $(STAMP)
	$(PY) -m lab.robots.assets

bench: $(STAMP)
	$(PY) benchmarks/step_overhead.py

report: $(STAMP)
	$(LAB) report --out runs/report --overwrite

clean:
	rm -rf runs .pytest_cache site
