# Two commands a new user needs: `make run` (embedded stack with a demo) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: install sandbox agents run lint test bench record-histories clean

$(BIN)/office: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/office

install: $(BIN)/office

# Real ACP agents the test suite launches against the provider simulator (pinned; offline once installed).
# codex-acp ships its Rust binary as an optional platform package: this machine's Linux one is pinned explicitly
# (an install that omits optional dependencies would otherwise leave codex-acp without its binary).
AGENTS := .cache/agents
CLAUDE_ACP_VERSION ?= 0.16.2
CODEX_ACP_VERSION ?= 0.16.0
GEMINI_CLI_VERSION ?= 0.61.0
AGENT_PACKAGES := @zed-industries/claude-code-acp@$(CLAUDE_ACP_VERSION) \
	@zed-industries/codex-acp@$(CODEX_ACP_VERSION) \
	@zed-industries/codex-acp-linux-$(shell node -p process.arch 2>/dev/null || echo x64)@$(CODEX_ACP_VERSION) \
	@google/gemini-cli@$(GEMINI_CLI_VERSION)
$(AGENTS)/.installed-$(CLAUDE_ACP_VERSION)-$(CODEX_ACP_VERSION)-$(GEMINI_CLI_VERSION):
	npm install --silent --no-audit --no-fund --save-exact --prefix $(AGENTS) $(AGENT_PACKAGES)
	touch $@

# Agents run in a bubblewrap sandbox (Debian's bubblewrap): installed here when missing and apt-get may run.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || apt-get install -y -q bubblewrap >/dev/null 2>&1 \
		|| (apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null) \
		|| { echo "agents run in a bubblewrap sandbox: install bubblewrap (apt-get install bubblewrap)"; exit 1; }

agents: sandbox $(AGENTS)/.installed-$(CLAUDE_ACP_VERSION)-$(CODEX_ACP_VERSION)-$(GEMINI_CLI_VERSION)

run: install sandbox
	$(BIN)/office dev

# Lint, format, types (strict on routing/, workflows/, contracts/) and the one-way import contracts.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

test: install agents
	$(BIN)/python -m pytest -q

bench: install
	$(BIN)/office bench all

record-histories: install
	$(BIN)/python scripts/record_histories.py

clean:
	rm -rf $(VENV) .office-data .cache
