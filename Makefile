# Two commands a new user needs: `make run` (embedded stack with a demo) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: install agents run test bench record-histories clean

$(BIN)/office: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/office

install: $(BIN)/office

# Real ACP agents the test suite launches (no credentials: they must answer "authentication required").
AGENTS := .cache/agents
CLAUDE_ACP_VERSION ?= 0.16.2
$(AGENTS)/node_modules/.bin/claude-code-acp:
	npm install --silent --no-audit --no-fund --prefix $(AGENTS) @zed-industries/claude-code-acp@$(CLAUDE_ACP_VERSION)

agents: $(AGENTS)/node_modules/.bin/claude-code-acp

run: install
	$(BIN)/office dev

test: install agents
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/office bench all

record-histories: install
	$(BIN)/python scripts/record_histories.py

clean:
	rm -rf $(VENV) .office-data .cache
