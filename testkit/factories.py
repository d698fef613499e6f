"""The values tests build again and again: execution profiles, route candidates and plans, failures.

Every field a test is not about gets one fixed, valid value here, so a test names only what it checks:

    plan("a", "b", max_attempts=2)                       # two OpenAI-compatible candidates, never called
    provider_failure(ErrorCode.rate_limited, retry_after_s=0.1)   # what a turn activity raises
    scripted_agent(log, models=["m1"], latency_s=4)     # the scripted ACP agent, as the worker launches it
"""

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from temporalio.exceptions import ApplicationError

from contracts.failures import PROVIDER_FAILURE
from routing.classifier import Classification
from routing.codes import ErrorCode, Phase, class_of
from routing.config import AgentProfile, ExecutionProfile, ExecutorKind
from routing.run import Candidate, RoutePlan
from testkit.agents import ROOT, scripted_sandbox

UNREACHABLE_URL = "http://127.0.0.1:9/v1"  # the discard port: an endpoint nothing answers on
TEST_CREDENTIAL_ENV = "OFFICE_CRED_TEST_KEY"  # tests/conftest.py sets it for every test
AGENT = AgentProfile(name="coder", model="m1")


def openai_profile(base_url: str = UNREACHABLE_URL, **fields: Any) -> ExecutionProfile:
    """An OpenAI-compatible provider at `base_url` (by default one that is never reached)."""
    return ExecutionProfile(kind=ExecutorKind.openai, base_url=base_url, **fields)


def acp_profile(command: Sequence[str], **fields: Any) -> ExecutionProfile:
    """An ACP agent launched as `command`."""
    return ExecutionProfile(kind=ExecutorKind.acp, command=list(command), **fields)


def scripted_agent(
    log: Path | None = None, *, identity: str | None = None, profile: Mapping[str, Any] | None = None, **script: Any
) -> ExecutionProfile:
    """The scripted ACP agent (`python -m office.scripted_agent`) behaving as `script` says (the keys are listed in
    office/scripted_agent.py), logging every call it receives to `log`, in its sandbox.

    `identity`: an argument the agent ignores, which gives the profile a provider identity of its own (health,
    breakers and pacing are keyed by the command), so no other test's evidence applies to it; by default the log's
    path, unique to the test. `profile`: execution profile fields besides the command, its environment and sandbox
    (a lost worker is noticed in 3 s, a turn may take 30 s unless it says otherwise)."""
    tag = identity if identity is not None else (str(log) if log is not None else None)
    behaviour = {"log": str(log), **script} if log is not None else script
    return acp_profile(
        [sys.executable, "-m", "office.scripted_agent", *([tag] if tag else [])],
        **{
            "env": {"SCRIPTED_AGENT": json.dumps(behaviour), "PYTHONPATH": str(ROOT)},
            "heartbeat_timeout_s": 3,
            "timeout_s": 30,
            "sandbox": scripted_sandbox(log),
            **(profile or {}),
        },
    )


def candidate(provider: str = "p", profile: ExecutionProfile | None = None, **fields: Any) -> Candidate:
    """A route to `provider` (its execution profile named after it) on the default tier for model m1; by default
    an OpenAI-compatible profile that is never reached."""
    return Candidate(
        provider=provider,
        profile=profile or openai_profile(credential_env=TEST_CREDENTIAL_ENV),
        **{"execution_profile": provider, "tier": "default", "requested_model": AGENT.model, **fields},
    )


def plan(*providers: str, max_attempts: int = 6, **fields: Any) -> RoutePlan:
    """A route plan of workspace "ws" for the agent coder (model m1): one `candidate` per provider, in order."""
    return RoutePlan(
        candidates=[candidate(p) for p in providers],
        max_attempts=max_attempts,
        **{"workspace": "ws", "agent": AGENT, "tier": "default", **fields},
    )


def classification(code: ErrorCode | str, *, rule: str = "test", **fields: Any) -> Classification:
    """A failure classified as `code` (its class follows from it) after the session started, with certainty."""
    found = ErrorCode(code)
    return Classification(
        code=found,
        error_class=class_of(found),
        rule=rule,
        **{"confidence": 1.0, "phase": Phase.after_start, **fields},
    )


def provider_failure(code: ErrorCode, **fields: Any) -> ApplicationError:
    """What a turn activity raises when the provider fails with `code`: not retried by Temporal (the workflow
    decides), typed ProviderFailure.<code>, the classification as its details."""
    found = classification(code, **fields)
    return ApplicationError(
        code.value, found.model_dump(mode="json"), type=f"{PROVIDER_FAILURE}.{code.value}", non_retryable=True
    )
