# Two commands do everything on a fresh machine: `make run` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
PORT ?= 8501
# Extra options for `streamlit run`, e.g. ARGS="--server.address 0.0.0.0" to serve a room.
ARGS ?=
# Host names and addresses a classroom's browsers may use to reach this machine.
CLASS_HOSTS ?= $(shell hostname) $(shell hostname -I 2>/dev/null) localhost 127.0.0.1

.PHONY: run classroom test test-slow test-durations lint docs bench mutation data browser warm clean-cache lock scheduler worker

$(PY):
	$(PYTHON) -m venv $(VENV)

# Stamps re-run pip only when a requirements file changed.
$(VENV)/.requirements: requirements.txt | $(PY)
	$(PY) -m pip install -r requirements.txt
	touch $@

$(VENV)/.requirements-dev: requirements-dev.txt $(VENV)/.requirements
	$(PY) -m pip install -r requirements-dev.txt
	touch $@

run: $(VENV)/.requirements
	@echo "Starting labeldp explorer: open http://localhost:$(PORT) in a browser (Ctrl+C stops it)."
	$(PY) -m streamlit run app.py --server.port $(PORT) $(ARGS)

# Serve a room on the local network, read-only: the cache warmed before class, no computation.
classroom: $(VENV)/.requirements
	@echo "Classroom mode (read-only): students open http://$(word 2,$(CLASS_HOSTS) $(CLASS_HOSTS)):$(PORT)"
	LABELDP_READ_ONLY=1 $(PY) -m streamlit run app.py --server.port $(PORT) \
		--server.address 0.0.0.0 $(foreach host,$(CLASS_HOSTS),--server.allowedHosts $(host)) $(ARGS)

# A Dask cluster for `--scheduler` (docs/cluster.md): `make scheduler` on one
# machine, `make worker SCHEDULER=tcp://HOST:8786` on each (after `make data` there).
NWORKERS ?= $(shell nproc)
scheduler: $(VENV)/.requirements
	PYTHONPATH=$(CURDIR) $(VENV)/bin/dask scheduler

worker: $(VENV)/.requirements
	@test -n "$(SCHEDULER)" || { echo "usage: make worker SCHEDULER=tcp://HOST:8786 [NWORKERS=n]"; exit 2; }
	PYTHONPATH=$(CURDIR) LABELDP_TORCH_THREADS=1 $(VENV)/bin/dask worker $(SCHEDULER) \
		--nworkers $(NWORKERS) --nthreads 1

# pytest rewrites each test module's asserts as it imports it and keeps the result in __pycache__,
# unless Python is told to write no bytecode (PYTHONDONTWRITEBYTECODE=1, set on some machines):
# then every worker, and every pytest the tests start, rewrote them all again (collecting took
# 28.5 s of CPU instead of 18.4 s in each worker: issue 52's notes). No recipe inherits it.
unexport PYTHONDONTWRITEBYTECODE

# The suite runs on every core, at most 4 (pytest-xdist; each worker imports torch and the app):
# the browser tests, the cluster tests and each module's shared fixture stay on one worker
# (--dist loadgroup; docs/develop/tests.md). TEST_WORKERS=0 runs it in this process.
TEST_WORKERS ?= $(shell n=$$(nproc); echo $$(( n < 4 ? n : 4 )))
PYTEST := $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadgroup

# Everything the suite reads is installed here (Fashion-MNIST's files, a browser): `make test` on a
# machine that never ran anything else must pass.
test: $(VENV)/.requirements-dev data browser
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs build --strict --quiet
	$(PYTEST)

# The checks marked slow, which `make test` leaves out (docs/develop/tests.md lists them).
test-slow: $(VENV)/.requirements-dev data browser
	$(PYTEST) -m slow

# The 20 slowest tests of the default suite into docs/develop/tests.md (runs the whole suite).
test-durations: $(VENV)/.requirements-dev data browser
	$(PY) tests/durations_report.py -n $(TEST_WORKERS)

# The documentation site (docs/, mkdocs.yml) on http://localhost:8000, rebuilt on every edit; its
# mechanism pages show our figures beside the papers' from this machine's cache.
docs: $(VENV)/.requirements-dev
	LABELDP_DOCS_OURS=1 NO_MKDOCS_2_WARNING=1 $(PY) -m mkdocs serve

lint: $(VENV)/.requirements-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

# requirements.lock: the exact versions this checkout was tested with, each with its sha256
# hashes, for deployments (`pip install --require-hashes -r requirements.lock`). Regenerate after
# changing requirements.txt and passing `make test`.
lock: $(VENV)/.requirements-dev
	mkdir -p build
	$(PY) -m pip freeze --exclude-editable > build/tested-versions.txt
	printf -- "-r ../requirements.txt\n-c tested-versions.txt\n" > build/lock.in
	$(PY) -m piptools compile --quiet --generate-hashes --allow-unsafe --strip-extras \
		--no-emit-index-url --no-emit-find-links \
		--no-header --output-file requirements.lock build/lock.in

# Mutation testing of the privacy-critical code ([tool.mutmut] in pyproject.toml): every mutant
# runs against the fast tests that execute it; prints the kill rate. Resumes where it stopped.
define MUTATION_REPORT
import json
stats = json.load(open("mutants/mutmut-cicd-stats.json"))
caught = stats["killed"] + stats["timeout"]
ran = caught + stats["survived"] + stats["suspicious"] + stats["segfault"]
print(f"mutants: {stats['total']}, run by some test: {ran}, killed: {stats['killed']}, "
      f"timed out (counted as killed): {stats['timeout']}, survived: {stats['survived']}, "
      f"not reached by the fast tests: {stats['no_tests']}")
print(f"kill rate of the privacy-critical modules: {caught / ran:.1%} of the mutants the tests run")
endef
export MUTATION_REPORT

mutation: $(VENV)/.requirements-dev
	$(PY) tests/mutation_targets.py --check
	OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 $(VENV)/bin/mutmut run
	$(VENV)/bin/mutmut export-cicd-stats
	$(PY) -c "$$MUTATION_REPORT"
	$(PY) tests/mutation_report.py

# The benchmarks, then the checks too slow for the default suite (marked slow).
bench: $(VENV)/.requirements-dev data browser
	for b in bench/*.py; do echo "== $$b"; $(PY) $$b || exit 1; done
	$(PYTEST) -m slow

# Loads Fashion-MNIST once from local files only (no download), so its files are unpacked where
# torchvision reads them and checked; a problem is one line that names the fix.
define DATA_CHECK
import sys
from labeldp_core.data import load_dataset
from labeldp_core.errors import DatasetUnavailableError
try:
    data = load_dataset("fashion-mnist")
except DatasetUnavailableError as exc:
    sys.exit(f"error: {exc}")
print(f"fashion-mnist ready: {data.n_train} training + {data.n_test} test images")
endef
export DATA_CHECK

# Installs the Debian packages named unless they are installed already, reading apt's lists first
# (a new machine may have none).
define APT_INSTALL
dpkg-query -W -f='$${Status}' $(1) 2>/dev/null | grep -q 'ok installed' || { $(SUDO) apt-get update -qq \
	&& DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $(1); }
endef

# Debian's Fashion-MNIST package; the loader unpacks its files where torchvision looks.
data: $(VENV)/.requirements
	@$(call APT_INSTALL,dataset-fashion-mnist)
	LABELDP_OFFLINE=1 $(PY) -c "$$DATA_CHECK"

# Debian's Chromium, for the tests that drive the app in a real browser (never a downloaded one).
browser:
	@$(call APT_INSTALL,chromium)

# Precompute the demo set for digits and Fashion-MNIST (resumable: rerun after an interruption).
warm: data
	$(PY) -m labeldp_core warm --dataset digits
	$(PY) -m labeldp_core warm --dataset fashion-mnist

clean-cache:
	rm -rf cache/* && touch cache/.gitkeep
