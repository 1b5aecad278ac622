# Two commands do all set-up on a fresh clone: `make demo` and `make test`.
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-stamp

.PHONY: test demo bench install clean fault-matrix overloads

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --disable-pip-version-check --upgrade pip
	$(PY) -m pip install -q --disable-pip-version-check -e '.[all,test,bench]'
	touch $(STAMP)

install: $(STAMP)

test: $(STAMP)
	$(PY) -m pytest

demo: $(STAMP)
	$(PY) examples/tool_loop.py

bench: $(STAMP)
	$(PY) benchmarks/run.py

# Re-run the transport fault suite and regenerate the fault matrix of docs/reliability.md.
fault-matrix: $(STAMP)
	$(PY) scripts/fault_matrix.py

overloads: $(STAMP)
	$(PY) scripts/create_overloads.py

clean:
	rm -rf $(VENV) build *.egg-info
