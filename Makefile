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

# Re-install when pyproject.toml or the pinned versions change (stamp files).
$(VENV)/.stamp-runtime: pyproject.toml $(CONSTRAINTS)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	$(PY) -m pip install -q $(PIN) -e .
	@touch $@

$(VENV)/.stamp-dev: pyproject.toml $(CONSTRAINTS) $(VENV)/.stamp-runtime
	$(PY) -m pip install -q $(PIN) -e '.[dev]'
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
