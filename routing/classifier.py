"""Classifies a provider failure into a stable code.

Structured signals are read first (exit code, JSON-RPC code, exception type, HTTP status with the
provider's error type/code fields), then message rules. Anything unrecognised is `unknown`, which
never triggers an automatic provider switch (fail closed). The classifier never raises.
"""

import json
import re
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from routing.codes import ErrorClass, ErrorCode, Phase, class_of
from routing.redact import redact
from routing.reset_hints import parse_go_duration, reset_hint_from_headers, reset_hint_from_text


class FailureSignal(BaseModel):
    """Everything known about one failure, as raw as it came."""

    phase: Phase = Phase.after_start
    provider: str | None = None
    status: int | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    body: str | None = None
    jsonrpc_code: int | None = None
    error_text: str | None = None
    exception_type: str | None = None
    exit_code: int | None = None


class Classification(BaseModel):
    code: ErrorCode
    error_class: ErrorClass
    confidence: float
    phase: Phase
    rule: str
    excerpt: str = ""
    retry_after_s: float | None = None
    provider: str | None = None
    status: int | None = None


class _Fields(BaseModel):
    """The error fields that the major providers put in their bodies, flattened."""

    type: str = ""
    code: str = ""
    status: str = ""
    message: str = ""
    reasons: list[str] = Field(default_factory=list)
    retry_delay_s: float | None = None


def _flatten_body(body: str | None) -> _Fields:
    if not body:
        return _Fields()
    try:
        data: Any = json.loads(body)
    except (ValueError, TypeError):
        return _Fields(message=body)
    if isinstance(data, list) and data and isinstance(data[0], dict):  # Gemini sometimes wraps in a list
        data = data[0]
    if not isinstance(data, dict):
        return _Fields(message=str(data))
    err = data.get("error", data)
    if isinstance(err, str):
        return _Fields(message=err, type=str(data.get("type", "")))
    if not isinstance(err, dict):
        return _Fields(message=str(err))
    fields = _Fields(
        type=str(err.get("type") or ""),
        code=str(err.get("code") if err.get("code") is not None else ""),
        status=str(err.get("status") or ""),
        message=str(err.get("message") or ""),
    )
    for detail in err.get("details") or []:
        if not isinstance(detail, dict):
            continue
        if detail.get("reason"):
            fields.reasons.append(str(detail["reason"]))
        if detail.get("retryDelay"):
            fields.retry_delay_s = parse_go_duration(str(detail["retryDelay"]))
    metadata = err.get("metadata")
    if isinstance(metadata, dict) and metadata.get("raw"):
        fields.message = f"{fields.message} {metadata['raw']}".strip()
    inner = err.get("innererror")
    if isinstance(inner, dict) and inner.get("code"):
        fields.reasons.append(str(inner["code"]))
    return fields


# Message rules, provider-neutral, checked in order.
_MESSAGE_RULES: list[tuple[str, re.Pattern[str], ErrorCode]] = [
    (
        "msg.credit_balance",
        re.compile(r"credit balance is too low|insufficient credits|insufficient[_ ]funds|payment required", re.I),
        ErrorCode.subscription_required,
    ),
    (
        "msg.subscription",
        re.compile(
            r"subscription (is )?required|upgrade your plan|plan does not (include|allow)|not available on your plan",
            re.I,
        ),
        ErrorCode.subscription_required,
    ),
    (
        "msg.quota",
        re.compile(
            r"exceeded your current quota|insufficient_quota|quota exceeded|usage limit|billing (hard )?limit", re.I
        ),
        ErrorCode.quota_limited,
    ),
    (
        "msg.content_policy",
        re.compile(
            r"content (management |filtering )?policy|content_filter|safety (system|filter|reasons)|blocked due to safety|flagged|moderation",
            re.I,
        ),
        ErrorCode.content_policy,
    ),
    (
        "msg.context_length",
        re.compile(
            r"context[_ ]length|maximum context|prompt is too long|too many tokens|request too large|input is too long|exceeds the maximum number of tokens",
            re.I,
        ),
        ErrorCode.context_length_exceeded,
    ),
    (
        "msg.model_gone",
        re.compile(
            r"\bmodels?\b.*\b(not found|does not exist|not supported|is not available|has been deprecated|decommissioned)|(unknown|invalid) model|DeploymentNotFound|no such model",
            re.I,
        ),
        ErrorCode.model_unavailable,
    ),
    (
        "msg.missing_credentials",
        re.compile(
            r"no api key|api key (is )?(missing|not set|required)|missing credentials|credentials? not (found|set)",
            re.I,
        ),
        ErrorCode.missing_credentials,
    ),
    (
        "msg.auth",
        re.compile(
            r"invalid[ _-]?(x-)?api[ _-]?key|api key not valid|incorrect api key|unauthori[sz]ed|authentication|access denied|invalid subscription key|not logged in|please (log ?in|login|authenticate)",
            re.I,
        ),
        ErrorCode.auth_required,
    ),
    (
        "msg.model_capacity",
        re.compile(
            r"model is (currently )?(overloaded|at capacity)|at capacity|capacity (is )?(exceeded|constraints)", re.I
        ),
        ErrorCode.model_capacity,
    ),
    ("msg.overloaded", re.compile(r"overloaded", re.I), ErrorCode.provider_overloaded),
    (
        "msg.rate_limit",
        re.compile(r"rate[ _-]?limit|too many requests|requests per min|tokens per min|\bRPM\b|\bTPM\b", re.I),
        ErrorCode.rate_limited,
    ),
    (
        "msg.stream_cut",
        re.compile(
            r"stream (ended|closed|terminated|truncated)|incomplete (chunked )?read|premature(ly)? (end|close)|without a final",
            re.I,
        ),
        ErrorCode.stream_truncated,
    ),
    ("msg.timeout", re.compile(r"timed? ?out|deadline exceeded|timeout", re.I), ErrorCode.timeout),
    (
        "msg.network",
        re.compile(
            r"connection (refused|reset|aborted)|name or service not known|network is unreachable|broken pipe|temporary failure in name resolution|connecterror",
            re.I,
        ),
        ErrorCode.network_unavailable,
    ),
    (
        "msg.unavailable",
        re.compile(
            r"service unavailable|temporarily unavailable|bad gateway|internal server error|server error|upstream", re.I
        ),
        ErrorCode.provider_unavailable,
    ),
]

_EXCEPTION_RULES: list[tuple[re.Pattern[str], ErrorCode]] = [
    (re.compile(r"Timeout|TimedOut|DeadlineExceeded", re.I), ErrorCode.timeout),
    (
        re.compile(r"RemoteProtocolError|IncompleteRead|StreamTruncated|ChunkedEncodingError|ReadError", re.I),
        ErrorCode.stream_truncated,
    ),
    (
        re.compile(
            r"ConnectError|ConnectionRefused|ConnectionReset|NetworkError|gaierror|BrokenPipe|ConnectionError|AgentSessionLost",
            re.I,
        ),
        ErrorCode.network_unavailable,
    ),
    (re.compile(r"MissingCredentials", re.I), ErrorCode.missing_credentials),
]

# Type/code values from the provider documents (OpenAI, Anthropic, Gemini, OpenRouter, Azure OpenAI).
_TYPE_CODES: dict[str, ErrorCode] = {
    # OpenAI / Azure OpenAI
    "invalid_api_key": ErrorCode.auth_required,
    "insufficient_quota": ErrorCode.quota_limited,
    "rate_limit_exceeded": ErrorCode.rate_limited,
    "model_not_found": ErrorCode.model_unavailable,
    "deploymentnotfound": ErrorCode.model_unavailable,
    "context_length_exceeded": ErrorCode.context_length_exceeded,
    "content_policy_violation": ErrorCode.content_policy,
    "content_filter": ErrorCode.content_policy,
    "responsibleaipolicyviolation": ErrorCode.content_policy,
    "server_error": ErrorCode.provider_unavailable,
    "unsupported_country_region_territory": ErrorCode.provider_not_configured,
    # Anthropic
    "authentication_error": ErrorCode.auth_required,
    "permission_error": ErrorCode.auth_required,
    "billing_error": ErrorCode.subscription_required,
    "not_found_error": ErrorCode.model_unavailable,
    "rate_limit_error": ErrorCode.rate_limited,
    "overloaded_error": ErrorCode.provider_overloaded,
    "api_error": ErrorCode.provider_unavailable,
    "request_too_large": ErrorCode.context_length_exceeded,
    "timeout_error": ErrorCode.timeout,
    # Gemini (google.rpc status and ErrorInfo reasons)
    "api_key_invalid": ErrorCode.auth_required,
    "unauthenticated": ErrorCode.auth_required,
    "permission_denied": ErrorCode.auth_required,
    "deadline_exceeded": ErrorCode.timeout,
    "unavailable": ErrorCode.provider_unavailable,
    "internal": ErrorCode.provider_unavailable,
}

# HTTP status alone, when the body said nothing more specific.
_STATUS_CODES: dict[int, tuple[ErrorCode, float]] = {
    401: (ErrorCode.auth_required, 0.8),
    402: (ErrorCode.subscription_required, 0.8),
    403: (ErrorCode.auth_required, 0.6),
    408: (ErrorCode.timeout, 0.8),
    413: (ErrorCode.context_length_exceeded, 0.7),
    429: (ErrorCode.rate_limited, 0.7),
    500: (ErrorCode.provider_unavailable, 0.7),
    502: (ErrorCode.provider_unavailable, 0.7),
    503: (ErrorCode.provider_unavailable, 0.7),
    504: (ErrorCode.timeout, 0.7),
    524: (ErrorCode.timeout, 0.6),
    529: (ErrorCode.provider_overloaded, 0.9),
}


def _result(
    code: ErrorCode, confidence: float, rule: str, signal: FailureSignal, text: str, retry_after_s: float | None
) -> Classification:
    return Classification(
        code=code,
        error_class=class_of(code),
        confidence=confidence,
        phase=signal.phase,
        rule=rule,
        excerpt=redact(text),
        retry_after_s=retry_after_s,
        provider=signal.provider,
        status=signal.status,
    )


def _match_message(text: str) -> tuple[str, ErrorCode] | None:
    for rule, pattern, code in _MESSAGE_RULES:
        if pattern.search(text):
            return rule, code
    return None


def _classify_http(signal: FailureSignal, fields: _Fields, text: str) -> tuple[ErrorCode, float, str] | None:
    status = signal.status
    keys = [k.lower() for k in (fields.code, fields.type, fields.status, *fields.reasons) if k]
    message_match = _match_message(text)

    # Awkward shapes first: the same status means different things per body.
    if (
        status == 429
        and message_match
        and message_match[1] in (ErrorCode.quota_limited, ErrorCode.subscription_required)
    ):
        return message_match[1], 0.95, f"http.429.{message_match[0]}"
    if "insufficient_quota" in keys:
        return ErrorCode.quota_limited, 0.95, "http.type.insufficient_quota"
    if status == 429 and "resource_exhausted" in keys:
        daily = re.search(r"per ?day|PerDay|daily", text, re.I)
        if daily:
            return ErrorCode.quota_limited, 0.85, "http.429.gemini_daily_quota"
        return ErrorCode.rate_limited, 0.9, "http.429.gemini_resource_exhausted"
    if (
        status == 400
        and message_match
        and message_match[1] in (ErrorCode.subscription_required, ErrorCode.auth_required, ErrorCode.quota_limited)
    ):
        return message_match[1], 0.9, f"http.400.{message_match[0]}"
    if status == 400 and "failed_precondition" in keys and re.search(r"billing|free tier|not available", text, re.I):
        return ErrorCode.subscription_required, 0.85, "http.400.gemini_failed_precondition"
    if (
        status in (503, 500)
        and message_match
        and message_match[1] in (ErrorCode.model_capacity, ErrorCode.provider_overloaded)
    ):
        return message_match[1], 0.9, f"http.{status}.{message_match[0]}"

    for key in keys:
        if key in _TYPE_CODES:
            code = _TYPE_CODES[key]
            if code is ErrorCode.model_unavailable and key == "not_found_error" and not re.search(r"model", text, re.I):
                continue  # an Anthropic 404 about something other than the model
            return code, 0.95, f"http.type.{key}"
    if message_match:
        return message_match[1], 0.8, f"http.{status}.{message_match[0]}"
    if status in _STATUS_CODES:
        code, confidence = _STATUS_CODES[status]
        return code, confidence, f"http.status.{status}"
    if status == 404:
        return ErrorCode.provider_not_configured, 0.5, "http.status.404"
    if status is not None and 400 <= status < 500:
        return ErrorCode.invalid_request, 0.5, f"http.status.{status}"
    return None


def classify(signal: FailureSignal, now: datetime | None = None) -> Classification:
    try:
        return _classify(signal, now)
    except Exception as exc:  # never raise: an unexpected shape is simply unknown
        return _result(ErrorCode.unknown, 0.0, f"classifier.error.{type(exc).__name__}", signal, "", None)


def _classify(signal: FailureSignal, now: datetime | None) -> Classification:
    fields = _flatten_body(signal.body)
    text = " ".join(
        t for t in (fields.message, signal.error_text or "", signal.body or "" if not fields.message else "") if t
    )
    retry_after = reset_hint_from_headers(signal.headers, now)
    if retry_after is None:
        retry_after = fields.retry_delay_s
    if retry_after is None:
        retry_after = reset_hint_from_text(text)

    def done(code: ErrorCode, confidence: float, rule: str) -> Classification:
        return _result(code, confidence, rule, signal, text, retry_after)

    if signal.exit_code is not None and signal.status is None:
        if signal.exit_code == 127:
            return done(ErrorCode.provider_not_configured, 0.95, "exit.127")
        if signal.exit_code == 126:
            return done(ErrorCode.provider_not_configured, 0.9, "exit.126")
    if signal.jsonrpc_code is not None:
        if signal.jsonrpc_code == -32000:
            return done(ErrorCode.auth_required, 0.95, "jsonrpc.-32000")
        if signal.jsonrpc_code == -32601:
            return done(ErrorCode.invalid_request, 0.8, "jsonrpc.-32601")
    if signal.status is not None:
        http = _classify_http(signal, fields, text)
        if http:
            return done(*http)
    if signal.exception_type:
        for pattern, code in _EXCEPTION_RULES:
            if pattern.search(signal.exception_type):
                return done(code, 0.9, f"exception.{signal.exception_type}")
    match = _match_message(text)
    if match:
        return done(match[1], 0.7, match[0])
    if signal.exit_code is not None and signal.status is None:  # an agent process died mid-session
        return done(ErrorCode.provider_unavailable, 0.6, "exit.unexpected")
    return done(ErrorCode.unknown, 0.0, "unmatched")
