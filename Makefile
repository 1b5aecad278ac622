# Two commands do all set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip install -q --disable-pip-version-check
# Everything: the test suite, its tools (mypy, ruff, import-linter), DBOS, MCP, benchmarks.
STAMP := $(VENV)/.installed-stamp
# Only what the demo needs: the package and the SDKs of the families it can pick.
DEMO_STAMP := $(VENV)/.demo-stamp
# Test workers: two per core, since most of the suite's time waits on subprocesses, loopback
# servers and timeouts (`make test WORKERS=0` runs in one process).
WORKERS ?= $(shell python3 -c 'import os; print(2 * (os.cpu_count() or 1))')

.PHONY: test check lint types imports demo bench install clean fault-matrix overloads doc-cassettes \
	portability-matrix interop

$(VENV)/.venv-stamp:
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	touch $@

$(STAMP): pyproject.toml $(VENV)/.venv-stamp
	$(PIP) -e '.[all,test,bench]'
	touch $(STAMP)

$(DEMO_STAMP): pyproject.toml $(VENV)/.venv-stamp
	$(PIP) -e '.[demo]'
	touch $(DEMO_STAMP)

install: $(STAMP)

# The whole suite, in parallel: the tests, the documentation's examples, and the code-health
# checks (ruff, mypy --strict, lint-imports run inside tests/test_code_health.py).
test: $(STAMP)
	$(PY) -m pytest -n $(WORKERS)

# What CI checks, each tool on its own first (its output in full), then the whole suite.
check: lint types imports test

lint: $(STAMP)
	$(VENV)/bin/ruff check aisuite_like tests/test_code_health.py tests/typing_checks.py \
		scripts/create_overloads.py scripts/record_doc_cassettes.py conftest.py

types: $(STAMP)
	$(VENV)/bin/mypy

imports: $(STAMP)
	$(VENV)/bin/lint-imports

demo: $(DEMO_STAMP)
	$(PY) examples/tool_loop.py

bench: $(STAMP)
	$(PY) benchmarks/run.py

# Re-run the transport fault suite and regenerate the fault matrix of docs/reliability.md.
fault-matrix: $(STAMP)
	$(PY) scripts/fault_matrix.py

# The client against servers nobody here wrote (docs/interop.md): llmock and llm-katan (also
# in `make test`) and LiteLLM's proxy, each installed into an environment of its own under
# .venv/interop and .interop/; rewrites the results of docs/interop.md when every test passed.
interop: $(STAMP)
	$(PY) scripts/interop_matrix.py

overloads: $(STAMP)
	$(PY) scripts/create_overloads.py

# Re-run the portability matrix and regenerate the ordered-pair table of docs/portability.md.
portability-matrix: $(STAMP)
	$(PY) scripts/portability_matrix.py

# Re-record the cassettes the documentation's examples replay (docs/testing.md).
doc-cassettes: $(STAMP)
	$(PY) scripts/record_doc_cassettes.py

clean:
	rm -rf $(VENV) build *.egg-info .interop
