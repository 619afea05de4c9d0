# Context Lens: `make run` starts the dashboard, `make test` runs every test.
# Both create the virtual environment (.venv) and install what they need when it is missing.

PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cksum pyproject.toml | cut -d' ' -f1)
PORT ?= 8501
STREAMLIT_FLAGS := --server.address 127.0.0.1 --server.port $(PORT) --browser.gatherUsageStats false --server.headless true

.PHONY: run test bench fuzz lint local-model browser clean

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	@rm -f $(VENV)/.installed-*
	@touch $(STAMP)

# `dashboard.serve` is `streamlit run app.py` that loads the first page's modules while the browser
# loads Streamlit's page (and writes the project's bytecode first, so no start compiles it).
run: $(STAMP)
	@$(PY) -c "from core.summarizers.local import missing_parts; import sys; sys.exit(0 if not missing_parts() else 1)" 2>/dev/null \
		|| echo "Tip: 'make local-model' installs an optional offline summary model (about 100 MB)."
	@echo "Context Lens on http://127.0.0.1:$(PORT)"
	$(PY) -m dashboard.serve $(STREAMLIT_FLAGS)

# The browser tests need Debian's chromium, the local-model test the bundled model. The tests run
# in TEST_WORKERS processes (pytest-xdist, a file's tests in one process), then those marked
# `serial` (they assert on wall time) run alone.
TEST_WORKERS ?= 2
TEST_ENV := CONTEXT_LENS_REQUIRE_LOCAL_LLM=1 CONTEXT_LENS_REQUIRE_BROWSER=1
test: $(STAMP) browser local-model
	$(TEST_ENV) $(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not serial" --durations=25
	$(TEST_ENV) $(PY) -m pytest -q -m serial --durations=10

bench: $(STAMP)
	$(PY) -m bench

# The differential check against the published Hermes releases runs CONTEXT_LENS_FUZZ_EXAMPLES
# cases per release here (a few hundred under `make test`).
fuzz: $(STAMP)
	CONTEXT_LENS_FUZZ_EXAMPLES=10000 $(PY) -m pytest -q tests/core/test_properties.py tests/robustness tests/differential/test_differential.py

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	PYTHONPATH=. $(VENV)/bin/lint-imports --no-cache

local-model: $(STAMP)
	@$(PY) -c "from core.summarizers.local import missing_parts; import sys; sys.exit(1 if missing_parts() else 0)" 2>/dev/null \
		|| bash scripts/install_local_model.sh

browser:
	@test -x /usr/bin/chromium || bash scripts/install_chromium.sh

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis test-artifacts
