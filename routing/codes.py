"""Stable error codes and their classes. Codes are part of the public contract (search attributes, CLI)."""

from enum import StrEnum


class ErrorCode(StrEnum):
    auth_required = "auth_required"
    missing_credentials = "missing_credentials"
    subscription_required = "subscription_required"
    provider_not_configured = "provider_not_configured"
    model_unavailable = "model_unavailable"
    quota_limited = "quota_limited"
    rate_limited = "rate_limited"
    provider_overloaded = "provider_overloaded"
    provider_unavailable = "provider_unavailable"
    model_capacity = "model_capacity"
    network_unavailable = "network_unavailable"
    timeout = "timeout"
    stream_truncated = "stream_truncated"
    circuit_open = "circuit_open"  # refused before calling: breaker open, probe in flight, budget spent
    content_policy = "content_policy"
    context_length_exceeded = "context_length_exceeded"
    invalid_request = "invalid_request"
    unknown = "unknown"
    # Not the provider's: the run cannot go on as given. Never routed, never counted against a provider.
    invalid_configuration = "invalid_configuration"  # workspace, profile or repository settings
    invalid_input = "invalid_input"  # the run request itself (e.g. from a foreign client)
    # Not the provider's either: the worker running the attempt died, stalled or shut down. The same route again
    # on a live worker, never counted against the provider (budget, breaker, health) or its attempt cap.
    worker_lost = "worker_lost"
    # Not the provider's either: the agent answered one turn with more text than a run keeps (ANSWER_LIMIT_BYTES).
    # The turn fails with a message naming the limit: asking again, here or elsewhere, would only repeat it.
    answer_too_large = "answer_too_large"


class ErrorClass(StrEnum):
    user_action = "user_action"
    model = "model"
    quota = "quota"
    transient = "transient"
    terminal = "terminal"
    unclassified = "unclassified"
    infrastructure = "infrastructure"  # the office's own machinery failed, not the provider


class Phase(StrEnum):
    session_start = "session_start"
    after_start = "after_start"


CODE_CLASS: dict[ErrorCode, ErrorClass] = {
    ErrorCode.auth_required: ErrorClass.user_action,
    ErrorCode.missing_credentials: ErrorClass.user_action,
    ErrorCode.subscription_required: ErrorClass.user_action,
    ErrorCode.provider_not_configured: ErrorClass.user_action,
    ErrorCode.model_unavailable: ErrorClass.model,
    ErrorCode.quota_limited: ErrorClass.quota,
    ErrorCode.rate_limited: ErrorClass.transient,
    ErrorCode.provider_overloaded: ErrorClass.transient,
    ErrorCode.provider_unavailable: ErrorClass.transient,
    ErrorCode.model_capacity: ErrorClass.transient,
    ErrorCode.network_unavailable: ErrorClass.transient,
    ErrorCode.timeout: ErrorClass.transient,
    ErrorCode.stream_truncated: ErrorClass.transient,
    ErrorCode.circuit_open: ErrorClass.transient,
    ErrorCode.content_policy: ErrorClass.terminal,
    ErrorCode.context_length_exceeded: ErrorClass.terminal,
    ErrorCode.invalid_request: ErrorClass.terminal,
    ErrorCode.unknown: ErrorClass.unclassified,
    ErrorCode.invalid_configuration: ErrorClass.terminal,
    ErrorCode.invalid_input: ErrorClass.terminal,
    ErrorCode.worker_lost: ErrorClass.infrastructure,
    ErrorCode.answer_too_large: ErrorClass.terminal,
}

# The most text an agent's answer to one turn may hold, in bytes of its UTF-8 JSON string (a control character
# counts as its 6-byte escape): the answer travels in an activity result and the run's view, each of which must stay
# well below Temporal's 2 MB payload limit. The executor keeps no more than this; a longer answer is answer_too_large.
ANSWER_LIMIT_BYTES = 1024 * 1024


def limit_text(limit_bytes: int) -> str:
    """A byte limit as people read it: `1 MiB`, `8 MiB`, `512 KiB`, `100 bytes`."""
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if limit_bytes >= size and limit_bytes % (size // 16) == 0:
            return f"{limit_bytes / size:g} {unit}"
    return f"{limit_bytes} bytes"


def class_of(code: ErrorCode) -> ErrorClass:
    return CODE_CLASS[code]
