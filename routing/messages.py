"""Actionable terminal messages: what failed, where, and what the user should change."""

from routing.codes import ANSWER_LIMIT_BYTES, ErrorCode, limit_text

PROVIDER_DEFAULT = "provider default, model not reported"

# {p}: provider, {m}: quoted model, {a}: agent profile
_TEMPLATES: dict[ErrorCode, str] = {
    ErrorCode.model_unavailable: "Model unavailable: the configured model {m} is no longer available on provider {p}. "
    "Change the model in agent profile {a} or configure a fallback.",
    ErrorCode.auth_required: "Authentication failed on provider {p}. Check the credentials its execution profile "
    "references (credential_env) and log the executor in again.",
    ErrorCode.missing_credentials: "Missing credentials for provider {p}: the environment variable its execution "
    "profile names is not set on the worker. Set it, then resume or resubmit.",
    ErrorCode.subscription_required: "Subscription or billing required on provider {p} for model {m}. Upgrade the "
    "plan or add credit, or remove {p} from the workspace provider order.",
    ErrorCode.quota_limited: "Quota exhausted on provider {p} for model {m}. Wait for the quota to reset, raise the "
    "plan's limits, or add another provider to the workspace order.",
    ErrorCode.provider_not_configured: "Provider {p} is not configured correctly (endpoint or command not found). "
    "Fix its execution profile in the workspace.",
    ErrorCode.content_policy: "The request was refused by provider {p}'s content policy. It is not retried on "
    "another provider; change the task.",
    ErrorCode.context_length_exceeded: "The conversation is too long for model {m} on provider {p}. Shorten the task "
    "or choose a model with a larger context window in agent profile {a}.",
    ErrorCode.invalid_request: "Provider {p} rejected the request as invalid for model {m}. Check agent profile {a}.",
    ErrorCode.unknown: "Unclassified failure on provider {p}; not routed to another provider (fail closed). "
    "Inspect the attempt's excerpt, then resubmit.",
    ErrorCode.answer_too_large: "The agent's answer to this turn was longer than the "
    f"{limit_text(ANSWER_LIMIT_BYTES)} an office run keeps for one answer, so the turn failed (provider {{p}} was "
    "not at fault and its health was not changed; no other provider was tried). Ask for a shorter answer: have "
    "the agent write long output to a file (in a run with a repository it lands on the run's branch) and answer "
    "with a summary.",
}
# Failures the office found itself: their detail is not something the provider said.
_OFFICE_FINDINGS = frozenset({ErrorCode.answer_too_large})
_TRANSIENT = "Provider {p} kept failing ({code}) for model {m}; no other provider was eligible."


def actionable_message(code: ErrorCode, provider: str | None, model: str | None, agent: str, detail: str = "") -> str:
    text = _TEMPLATES.get(code, _TRANSIENT).format(
        p=provider or "the provider", m=f'"{model}"' if model else "the configured model", a=agent, code=code.value
    )
    if not detail:
        return text
    return f"{text} (detail: {detail})" if code in _OFFICE_FINDINGS else f"{text} (provider said: {detail})"


def worker_lost_message(excerpts: list[str]) -> str:
    """A run whose workers kept dying: names the workers, and says plainly that the provider was not at fault."""
    named = list(dict.fromkeys(e.removeprefix("worker lost: ") for e in excerpts))[-3:]
    return (
        f"Workers lost: this run lost its worker {len(excerpts)} times and stopped "
        f"({'; '.join(named) or 'no worker named'}). The provider was not at fault and its health was not changed. "
        "Check the workers (crash loops, memory limits, a blocked event loop), then resubmit the run."
    )


def launch_stalled_message(provider: str, execution_profile: str | None, excerpt: str) -> str:
    """A run whose agent kept not starting on its last route: names the profile to check, not the workers' health
    in general, and says plainly that the provider was not at fault."""
    profile = f" (execution profile {execution_profile})" if execution_profile else ""
    said = excerpt.removeprefix("worker lost: ")
    return (
        f"Agent did not start: the agent for {provider}{profile} did not answer ACP initialize, attempt after "
        f"attempt ({said}). The provider was not at fault and its health was not changed. Check the profile's "
        "command (an ACP agent speaking on stdin and stdout) and the worker's load, then resubmit the run."
    )
