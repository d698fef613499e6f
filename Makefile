# Two commands a new user needs: `make run` (embedded stack with a demo) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: install run test bench record-histories clean

$(BIN)/office: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/office

install: $(BIN)/office

run: install
	$(BIN)/office dev

test: install
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/office bench all

record-histories: install
	$(BIN)/python scripts/record_histories.py

clean:
	rm -rf $(VENV) .office-data
