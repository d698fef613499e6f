# Two commands a new user needs: `make run` (embedded stack with a demo) and `make test`.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin

.PHONY: install sandbox agents run lint docs test bench record-histories clean

$(BIN)/office: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(BIN)/office

install: $(BIN)/office

# Real ACP agents the test suite launches against the provider simulator (pinned; offline once installed).
# codex-acp and opencode-ai ship their binaries as optional platform packages: this machine's Linux ones are pinned
# explicitly (an install that omits optional dependencies would otherwise leave them without their binary).
# The set is installed from scratch (no earlier package.json): only the pinned packages are declared.
AGENTS := .cache/agents
ARCH := $(shell node -p process.arch 2>/dev/null || echo x64)
CLAUDE_ACP_VERSION ?= 0.23.1
CODEX_ACP_VERSION ?= 0.16.0
GEMINI_CLI_VERSION ?= 0.61.0
OPENCODE_VERSION ?= 1.18.33
AGENT_PINS := $(CLAUDE_ACP_VERSION)-$(CODEX_ACP_VERSION)-$(GEMINI_CLI_VERSION)-$(OPENCODE_VERSION)
AGENT_PACKAGES := @zed-industries/claude-agent-acp@$(CLAUDE_ACP_VERSION) \
	@zed-industries/codex-acp@$(CODEX_ACP_VERSION) \
	@zed-industries/codex-acp-linux-$(ARCH)@$(CODEX_ACP_VERSION) \
	@google/gemini-cli@$(GEMINI_CLI_VERSION) \
	opencode-ai@$(OPENCODE_VERSION) \
	opencode-linux-$(ARCH)@$(OPENCODE_VERSION)
$(AGENTS)/.installed-$(AGENT_PINS):
	rm -f $(AGENTS)/.installed-* $(AGENTS)/package.json $(AGENTS)/package-lock.json
	npm install --silent --no-audit --no-fund --save-exact --prefix $(AGENTS) $(AGENT_PACKAGES)
	touch $@

# Agents run in a bubblewrap sandbox (Debian's bubblewrap): installed here when missing and apt-get may run.
sandbox:
	@command -v bwrap >/dev/null 2>&1 || apt-get install -y -q bubblewrap >/dev/null 2>&1 \
		|| (apt-get update -q >/dev/null && apt-get install -y -q bubblewrap >/dev/null) \
		|| { echo "agents run in a bubblewrap sandbox: install bubblewrap (apt-get install bubblewrap)"; exit 1; }

agents: sandbox $(AGENTS)/.installed-$(AGENT_PINS)

run: install sandbox
	$(BIN)/office dev

# Lint (with a complexity cap), format, types (mypy strict on every package; tests are looser) and the one-way
# import contracts.
lint: install
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports

# The manual (docs/, mkdocs.yml) into site/; --strict fails on a broken link or anchor or a stale generated page.
docs: install
	NO_MKDOCS_2_WARNING=1 $(BIN)/mkdocs build --strict --quiet

test: install agents
	$(BIN)/python -m pytest -q -n 2 --dist loadgroup

# The benchmarks are not in the installed package: `python -m` from the checkout's root imports them from it.
bench: install
	$(BIN)/python -m office.cli bench all

record-histories: install
	$(BIN)/python scripts/record_histories.py

clean:
	rm -rf $(VENV) .office-data .cache
