# Two commands: `make run` (the whole workflow on the default config) and `make test` (the test suite).
# Both first make sure the environment exists: .venv/ with the pinned Python packages, and the Debian
# packages the workflow runs and the tests use (chromium-headless-shell opens the report in tests/report),
# installed when missing and we are root, otherwise the apt-get line is printed.

VENV ?= .venv
PYTHON := $(VENV)/bin/python
STAMP := $(VENV)/.installed
DEBIAN_PACKAGES := openmpi-bin libopenmpi-dev bubblewrap clang libomp-dev chromium-headless-shell
SNAKEMAKE_ARGS ?=

.PHONY: run test setup system-packages lint clean-results

run: setup
	$(VENV)/bin/snakemake --profile profiles/default --report-after-run --report results/report.html $(SNAKEMAKE_ARGS)

# The tests in two phases: every test but the `exclusive` ones on TEST_WORKERS workers (pytest-xdist: a test file
# runs on one worker, so its fixtures are built once, and every file that starts torch.distributed processes runs on
# one worker too, one after another: tests/conftest.py TORCH_DISTRIBUTED), then the exclusive ones alone
# (tests/conftest.py EXCLUSIVE says which and why). Both phases always run; either failing fails the target. A phase
# that PYTEST_ARGS leaves without tests (pytest's exit status 5) is not a failure. The files start slowest first
# (tests/conftest.py SLOW_FIRST; --no-loadscope-reorder keeps that order). Two workers: 17 min 30 s + 23 s in a fresh
# clone (2026-12-07, 2 cores); CI runs one worker (TEST_WORKERS=1): 1589 s with the linters (landing of 2026-12-07).
TEST_WORKERS ?= 2
test: setup
	@status=0; \
	$(PYTHON) -m pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not exclusive" $(PYTEST_ARGS) || { s=$$?; [ $$s -eq 5 ] || status=$$s; }; \
	$(PYTHON) -m pytest -p no:xdist -m exclusive $(PYTEST_ARGS) || { s=$$?; [ $$s -eq 5 ] || status=$$s; }; \
	exit $$status

setup: $(STAMP) system-packages

# Reinstalled only when the pins change; torch stays at the CPU build through constraints.txt.
$(STAMP): requirements.txt requirements-dev.txt constraints.txt
	test -x $(PYTHON) || python3 -m venv $(VENV)
	$(PYTHON) -m pip install --quiet --upgrade pip
	DS_BUILD_OPS=0 $(PYTHON) -m pip install --quiet -c constraints.txt -r requirements.txt -r requirements-dev.txt
	touch $(STAMP)

system-packages:
	@missing=""; for p in $(DEBIAN_PACKAGES); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  if [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian packages:$$missing"; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq$$missing >/dev/null; \
	  else \
	    echo "missing Debian packages; run as root:  apt-get install -y$$missing"; exit 1; \
	  fi; \
	fi

# Each file kind gets its own checker: ruff for Python, snakefmt for the Snakefile and rules/*.smk (ruff
# cannot parse Snakemake's grammar), and `snakemake --lint` with the advice the workflow declines on purpose
# listed, with the reasons, in .ci/snakemake_lint.py (a conda/container per rule; the PYTHONPATH it sets).
lint: setup
	$(VENV)/bin/ruff check .
	$(VENV)/bin/snakefmt --check Snakefile rules
	$(PYTHON) .ci/snakemake_lint.py

clean-results:
	rm -rf results
