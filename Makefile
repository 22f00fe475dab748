# tilecam — the two commands: `make serve` and `make test`.
# Each creates/updates the local virtualenv .venv by itself, then runs.

PYTHON ?= python3
VENV   ?= .venv
PY     := $(VENV)/bin/python
# The package versions the project is tested with (tools/pin_versions.py writes the file);
# `make test CONSTRAINTS=` installs the newest releases instead.
CONSTRAINTS ?= constraints.txt
PIN    := $(if $(CONSTRAINTS),-c $(CONSTRAINTS))
# `make serve PORT=9000` or `TILECAM_PORT=9000 make serve` (likewise HOST / TILECAM_HOST)
HOST   ?= $(or $(TILECAM_HOST),127.0.0.1)
PORT   ?= $(or $(TILECAM_PORT),8000)

.PHONY: serve test lint typecheck pytest install clean

# The oldest Python tilecam runs on (pyproject.toml's requires-python).
PY_OK  := import sys; sys.exit(sys.version_info < (3, 11))

# setuptools warns at every editable install of a project whose packages sit at its root
# (as tilecam's do) that folders named like them could shadow them: here they are them.
QUIET_EDITABLE := PYTHONWARNINGS='ignore:Editable installation'

# Re-install when pyproject.toml or the pinned versions change (stamp files).
# A Python older than 3.11 is refused with what to do, before a venv is made; a venv
# left by such a Python (or whose interpreter is gone) is made again with $(PYTHON).
$(VENV)/.stamp-runtime: pyproject.toml $(CONSTRAINTS)
	@$(PYTHON) -c '$(PY_OK)' 2>/dev/null || { \
	  echo "tilecam needs Python 3.11 or newer; PYTHON=$(PYTHON) is $$(command -v $(PYTHON) >/dev/null && $(PYTHON) -V 2>&1 | head -n 1 || echo "not found")." >&2; \
	  echo "Name a newer one, e.g. make $(or $(MAKECMDGOALS),serve) PYTHON=python3.11" >&2; exit 1; }
	@if test -f $(VENV)/pyvenv.cfg && ! $(PY) -c '$(PY_OK)' 2>/dev/null; then \
	  echo "$(VENV) was made with $$($(PY) -V 2>&1 | head -n 1 || true): making it again with $(PYTHON)"; \
	  rm -rf $(VENV); fi
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(QUIET_EDITABLE) $(PY) -m pip install -q $(PIN) -e .
	@touch $@

$(VENV)/.stamp-dev: pyproject.toml $(CONSTRAINTS) $(VENV)/.stamp-runtime
	$(QUIET_EDITABLE) $(PY) -m pip install -q $(PIN) -e '.[dev]'
	@touch $@

install: $(VENV)/.stamp-runtime

serve: $(VENV)/.stamp-runtime
	$(VENV)/bin/tilecam serve --host $(HOST) --port $(PORT)

lint: $(VENV)/.stamp-dev
	$(VENV)/bin/ruff check .

typecheck: $(VENV)/.stamp-dev
	$(VENV)/bin/mypy

pytest: $(VENV)/.stamp-dev
	$(PY) -m pytest -q -m "not slow"

test: lint typecheck pytest

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
