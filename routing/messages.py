"""Actionable terminal messages: what failed, where, and what the user should change."""

from routing.codes import ErrorCode

PROVIDER_DEFAULT = "provider default, model not reported"


def actionable_message(code: ErrorCode, provider: str | None, model: str | None, agent: str,
                       detail: str = "") -> str:
    p = provider or "the provider"
    m = f'"{model}"' if model else "the configured model"
    suffix = f" (provider said: {detail})" if detail else ""
    if code is ErrorCode.model_unavailable:
        return (f"Model unavailable: the configured model {m} is no longer available on provider {p}. "
                f"Change the model in agent profile {agent} or configure a fallback.{suffix}")
    if code is ErrorCode.auth_required:
        return (f"Authentication failed on provider {p}. Check the credentials its execution profile references "
                f"(credential_env) and log the executor in again.{suffix}")
    if code is ErrorCode.missing_credentials:
        return (f"Missing credentials for provider {p}: the environment variable its execution profile names "
                f"is not set on the worker. Set it, then resume or resubmit.{suffix}")
    if code is ErrorCode.subscription_required:
        return (f"Subscription or billing required on provider {p} for model {m}. Upgrade the plan or add credit, "
                f"or remove {p} from the workspace provider order.{suffix}")
    if code is ErrorCode.quota_limited:
        return (f"Quota exhausted on provider {p} for model {m}. Wait for the quota to reset, raise the plan's "
                f"limits, or add another provider to the workspace order.{suffix}")
    if code is ErrorCode.provider_not_configured:
        return (f"Provider {p} is not configured correctly (endpoint or command not found). Fix its execution "
                f"profile in the workspace.{suffix}")
    if code is ErrorCode.content_policy:
        return (f"The request was refused by provider {p}'s content policy. It is not retried on another "
                f"provider; change the task.{suffix}")
    if code is ErrorCode.context_length_exceeded:
        return (f"The conversation is too long for model {m} on provider {p}. Shorten the task or choose a "
                f"model with a larger context window in agent profile {agent}.{suffix}")
    if code is ErrorCode.invalid_request:
        return f"Provider {p} rejected the request as invalid for model {m}. Check agent profile {agent}.{suffix}"
    if code is ErrorCode.unknown:
        return (f"Unclassified failure on provider {p}; not routed to another provider (fail closed). "
                f"Inspect the attempt's excerpt, then resubmit.{suffix}")
    return f"Provider {p} kept failing ({code}) for model {m}; no other provider was eligible.{suffix}"
