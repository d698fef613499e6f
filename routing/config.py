"""Workspace routing configuration and agent profiles, validated. Secrets appear only as references."""

import re
from enum import StrEnum
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, StringConstraints, field_validator, model_validator

from routing.budget import Budgets
from routing.conversation import HistoryBound
from routing.decider import UNREADABLE_FAILURE_WAIT_S
from routing.notify import NotifyEndpoint
from routing.permissions import ASK_TURN_MARGIN_S, PermissionPolicy, ProfilePermissions
from routing.repository import RepositoryConfig
from routing.sandbox import ProfileSandbox, SandboxSettings
from routing.usage import ModelPrice
from routing.validation import http_url_problem, refuse_literal_secrets, secret_advice, secret_shape

NAME_PATTERN = r"^[a-z0-9][a-z0-9_.-]{0,62}$"
Name = Annotated[str, StringConstraints(pattern=NAME_PATTERN)]
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
SECRET_NAME = re.compile(r"(^|_)(KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIALS?)($|_)", re.IGNORECASE)


class ExecutorKind(StrEnum):
    openai = "openai"
    acp = "acp"


# The agents the ACP executor has an adapter for (activities/executors/agents.py); None: recognised from the command.
AgentAdapterName = Literal["claude-code", "codex", "gemini-cli", "opencode", "generic"]


class TierOverride(BaseModel):
    model_config = ConfigDict(extra="forbid")  # a misspelt setting is an error, never silently dropped

    model: str | None = None


class ExecutionProfile(BaseModel):
    """How to reach one provider. `credential_env` names an environment variable; it is never the key."""

    model_config = ConfigDict(extra="forbid")

    kind: ExecutorKind = ExecutorKind.openai
    base_url: str | None = None
    command: list[str] = Field(default_factory=list)
    adapter: AgentAdapterName | None = None  # acp only: how to launch the agent against base_url and the credential
    env: dict[str, str] = Field(default_factory=dict)  # plain settings for an agent process; never secrets
    credential_env: str | None = None
    default_model: str | None = None
    requests_per_minute: float | None = Field(default=None, gt=0)
    timeout_s: float = Field(default=120.0, gt=0)
    heartbeat_timeout_s: float = Field(default=30.0, gt=0)  # how soon a lost worker is noticed
    tiers: dict[str, TierOverride] = Field(default_factory=dict)
    max_concurrent_sessions: int | None = Field(
        default=None,
        ge=1,
        description=(
            "At most this many runs hold a session on this provider at once (a subscription's seats), counted "
            "across every workspace reaching the same endpoint with the same credential reference; further runs "
            "wait, queued, until one ends or moves to another provider. Unset: no ceiling."
        ),
    )
    # Narrows the workspace's permission policy for this agent (never widens it): e.g. {execute: deny}.
    permissions: ProfilePermissions | None = None
    # acp only: narrows the sandbox's network for this agent, names read-only paths its command needs.
    sandbox: ProfileSandbox | None = None

    @field_validator("credential_env")
    @classmethod
    def _env_name(cls, value: str | None) -> str | None:
        if value is not None and not ENV_NAME.match(value):
            raise ValueError("must be an environment variable NAME (e.g. OPENAI_API_KEY), never the key itself")
        return value

    @field_validator("env")
    @classmethod
    def _no_secrets(cls, value: dict[str, str]) -> dict[str, str]:
        for name in value:
            if not ENV_NAME.match(name):
                raise ValueError(f"{name!r} is not an environment variable name")
            if SECRET_NAME.search(name):
                raise ValueError(
                    f"{name} looks like a secret: workspace settings are stored in plain text; "
                    f"set it on the worker and name it in credential_env instead"
                )
        for name, setting in value.items():
            what = secret_shape(setting)
            if what:
                raise ValueError(secret_advice(f"env.{name}", what))
        return value

    @field_validator("base_url")
    @classmethod
    def _http_url(cls, value: str | None) -> str | None:
        if value is not None:
            what = secret_shape(value)
            if what:
                raise ValueError(secret_advice("base_url", what))
            problem = http_url_problem(value)
            if problem:
                raise ValueError(problem)
        return value

    @model_validator(mode="after")
    def _endpoint(self) -> "ExecutionProfile":
        if self.kind is ExecutorKind.openai and not self.base_url:
            raise ValueError("base_url is required for an openai executor (e.g. https://api.openai.com/v1)")
        if self.kind is ExecutorKind.acp and not self.command:
            raise ValueError(
                "command is required for an acp executor (e.g. ['/opt/agents/node_modules/.bin/claude-agent-acp'])"
            )
        if self.adapter is not None and self.kind is not ExecutorKind.acp:
            raise ValueError("adapter applies to an acp executor only (it says how to launch the agent)")
        return self


class ProviderEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    provider: Name
    emergency: bool = False


class WorkspaceConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name
    provider_order: list[ProviderEntry]
    default_tier: Name = "standard"
    providers: dict[str, ExecutionProfile]
    max_attempts: int = Field(default=8, ge=1, le=50)
    max_concurrent_runs: int | None = Field(
        default=None,
        ge=1,
        description=(
            "At most this many of the workspace's runs run at once; further runs wait, queued (no attempt made), and "
            "start as runs end, interactive first, then default, then batch, each class in submission order. "
            "Unset: no ceiling."
        ),
    )
    # Runs that change a repository: each run works on office/<run-id> from repository.base_ref.
    repository: RepositoryConfig | None = None
    # What an agent may do without asking (an unattended run refuses what would need a person).
    permissions: PermissionPolicy = PermissionPolicy()
    # Where ACP agents run: an OS sandbox holding their working copy, installation, a home and their provider.
    sandbox: SandboxSettings = Field(default_factory=SandboxSettings)
    idle_timeout: float = Field(
        default=0,
        ge=0,
        le=7 * 24 * 3600,
        description=(
            "Seconds an answered run stays open for more turns (`office runs say`) before it completes; 0: the run "
            "completes after its last turn."
        ),
    )
    unreadable_failure_wait: float = Field(
        default=UNREADABLE_FAILURE_WAIT_S,
        ge=0,
        le=7 * 24 * 3600,
        description=(
            "Seconds a run whose failure no rule could read waits, parked as unreadable_failure, for a person to "
            "decide (`office runs decide RUN --retry | --substitute PROVIDER | --cancel`) before it fails; it is never "
            "moved to another provider by itself. 0: such a run fails at once."
        ),
    )
    history_bound: HistoryBound = Field(
        default_factory=HistoryBound,
        description="When a run's workflow history has grown this far, the run continues as new (same run id).",
    )
    prices: dict[str, ModelPrice] = Field(
        default_factory=dict,
        description=(
            "Prices for models the maintained price table (genai-prices) does not know or that you pay otherwise "
            "(negotiated prices, local models at 0): model name, or provider/model for one provider only, to USD "
            "per million input, output and cache tokens. A listed model is priced from here; a model neither here "
            "nor in the table has an unknown cost, never a guess."
        ),
    )

    # Webhooks told about runs' events (completed, failed, parked, …): routing/notify.py.
    notify: list[NotifyEndpoint] = Field(default_factory=list)
    budgets: Budgets = Field(
        default_factory=Budgets,
        description=(
            "Spending limits: the workspace's USD per UTC day and month (daily_usd, monthly_usd), and the default "
            "max_cost_usd and max_tokens of its runs (run_max_cost_usd, run_max_tokens). A run that would pass one "
            "parks as budget_exhausted before its next attempt; see the Budgets section of the concepts page."
        ),
    )

    @model_validator(mode="before")
    @classmethod
    def _no_literal_secrets(cls, data: object) -> object:
        refuse_literal_secrets(data)  # anywhere: env values, URLs, query strings, commands, repository
        return data

    @field_validator("provider_order", mode="before")
    @classmethod
    def _accept_plain_names(cls, value: object) -> object:
        if isinstance(value, list):
            return [{"provider": v} if isinstance(v, str) else v for v in value]
        return value

    @model_validator(mode="after")
    def _consistent(self) -> "WorkspaceConfig":
        names = [e.provider for e in self.provider_order]
        if not names:
            raise ValueError("provider_order is empty: list at least one provider")
        dupes = sorted({n for n in names if names.count(n) > 1})
        if dupes:
            raise ValueError(f"provider_order lists {', '.join(dupes)} more than once")
        missing = [n for n in names if n not in self.providers]
        if missing:
            raise ValueError(f"provider_order names {', '.join(missing)} without an entry under providers")
        unknown = sorted(set(self.providers) - set(names))
        if unknown:
            raise ValueError(f"providers has {', '.join(unknown)} which provider_order does not list")
        for key in self.providers:
            if not re.match(NAME_PATTERN, key):
                raise ValueError(f"providers key {key!r} is not a valid name (lowercase letters, digits, . _ -)")
        labels = [endpoint.label(i) for i, endpoint in enumerate(self.notify)]
        if len(set(labels)) != len(labels):
            raise ValueError("notify: two endpoints have the same name; give each its own")
        self._ask_fits_in_turns()
        return self

    def _ask_fits_in_turns(self) -> None:
        """A question waits inside the agent's turn: the turn's timeout must leave room for the whole wait."""
        if not self.permissions.asks():
            return
        wait = self.permissions.ask_timeout
        for name, profile in self.providers.items():
            if profile.kind is ExecutorKind.acp and profile.timeout_s <= wait + ASK_TURN_MARGIN_S:
                raise ValueError(
                    f"permissions.ask_timeout ({wait:g} s) leaves no room in providers.{name}.timeout_s "
                    f"({profile.timeout_s:g} s): a question waits inside the agent's turn; set timeout_s above "
                    f"{wait + ASK_TURN_MARGIN_S:g} or lower ask_timeout"
                )


class AgentProfile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: Name
    model: str = Field(min_length=1, max_length=200)
    fallback_model: str | None = None
    auto_fallback: bool = False
    pinned_providers: list[str] = Field(default_factory=list)
    max_concurrent_sessions: int | None = Field(
        default=None,
        ge=1,
        description="At most this many runs of this agent profile run at once (every workspace); unset: no ceiling.",
    )

    @model_validator(mode="before")
    @classmethod
    def _no_literal_secrets(cls, data: object) -> object:
        refuse_literal_secrets(data)
        return data
