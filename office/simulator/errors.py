"""Error bodies in the documented shapes of each provider family."""

import json
from typing import Any

_OPENAI = {
    "auth": (
        "Incorrect API key provided: sk-sim-****. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "invalid_request_error",
        "invalid_api_key",
    ),
    "invalid_key": ("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
    "rate_limit": (
        "Rate limit reached for requests per min (RPM). Please try again in {ra}s.",
        "requests",
        "rate_limit_exceeded",
    ),
    "quota": (
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
    ),
    "credit_balance": (
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
    ),
    "model_not_found": (
        "The model `{model}` does not exist or you do not have access to it.",
        "invalid_request_error",
        "model_not_found",
    ),
    "overloaded": ("The engine is currently overloaded, please try again later.", "server_error", None),
    "server_error": ("The server had an error while processing your request. Sorry about that!", "server_error", None),
    "unavailable": ("Service unavailable.", "server_error", None),
    "context_length": (
        "This model's maximum context length is 8192 tokens.",
        "invalid_request_error",
        "context_length_exceeded",
    ),
    "content_policy": (
        "Your request was rejected as a result of our safety system.",
        "invalid_request_error",
        "content_policy_violation",
    ),
    "bad_request": ("Invalid request.", "invalid_request_error", None),
    "timeout": ("Gateway timeout.", "server_error", None),
    "subscription_limit": (
        "You exceeded your current quota, please check your plan and billing details.",
        "insufficient_quota",
        "insufficient_quota",
    ),
}
_ANTHROPIC = {
    "auth": ("invalid x-api-key", "authentication_error"),
    "invalid_key": ("invalid x-api-key", "authentication_error"),
    "rate_limit": ("Number of request tokens has exceeded your per-minute rate limit.", "rate_limit_error"),
    "quota": (
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing "
        "to upgrade or purchase credits.",
        "invalid_request_error",
    ),
    "credit_balance": (
        "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
        "Billing to upgrade or purchase credits.",
        "invalid_request_error",
    ),
    "model_not_found": ("model: {model}", "not_found_error"),
    "overloaded": ("Overloaded", "overloaded_error"),
    "server_error": ("Internal server error", "api_error"),
    "unavailable": ("Internal server error", "api_error"),
    "context_length": ("prompt is too long: 210000 tokens > 200000 maximum", "invalid_request_error"),
    "content_policy": ("Output blocked by content filtering policy", "invalid_request_error"),
    "bad_request": ("messages: field required", "invalid_request_error"),
    "timeout": ("Request timed out", "timeout_error"),
    # The body of a subscription window's 429 is a plain rate-limit error; what the window is and when it resets
    # travels in the anthropic-ratelimit-unified-* headers (office/simulator/wire.py subscription_limit_headers).
    "subscription_limit": ("Number of requests has exceeded your rate limit.", "rate_limit_error"),
}
_GEMINI = {
    "auth": ("API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", "API_KEY_INVALID"),
    "invalid_key": ("API key not valid. Please pass a valid API key.", "INVALID_ARGUMENT", "API_KEY_INVALID"),
    "rate_limit": ("Resource has been exhausted (e.g. check quota).", "RESOURCE_EXHAUSTED", None),
    "quota": (
        "Quota exceeded for metric: generativelanguage.googleapis.com/generate_requests_per_model_per_day",
        "RESOURCE_EXHAUSTED",
        None,
    ),
    "credit_balance": (
        "Gemini API free tier is not available in your country. Please enable billing on your "
        "project in Google AI Studio.",
        "FAILED_PRECONDITION",
        None,
    ),
    "model_not_found": (
        "models/{model} is not found for API version v1beta, or is not supported for generateContent.",
        "NOT_FOUND",
        None,
    ),
    "overloaded": ("The model is overloaded. Please try again later.", "UNAVAILABLE", None),
    "server_error": ("An internal error has occurred.", "INTERNAL", None),
    "unavailable": ("The service is currently unavailable.", "UNAVAILABLE", None),
    "context_length": (
        "The input token count (1048577) exceeds the maximum number of tokens allowed (1048576).",
        "INVALID_ARGUMENT",
        None,
    ),
    "content_policy": ("The prompt was blocked due to safety reasons.", "INVALID_ARGUMENT", None),
    "bad_request": ("Invalid JSON payload received.", "INVALID_ARGUMENT", None),
    "timeout": ("Deadline exceeded.", "DEADLINE_EXCEEDED", None),
    "subscription_limit": (
        "Quota exceeded for metric: generativelanguage.googleapis.com/generate_requests_per_model_per_day",
        "RESOURCE_EXHAUSTED",
        None,
    ),
}


def error_body(
    shape: str, kind: str, status: int, model: str | None, retry_after_s: float | None, message: str | None = None
) -> str:
    ra = f"{retry_after_s:g}" if retry_after_s is not None else "20"
    model = model or "unknown-model"
    if kind == "opaque":  # any shape: a message and nothing else
        return json.dumps({"error": {"message": message or "An error occurred."}})
    if shape == "anthropic":
        text, etype = _ANTHROPIC[kind]
        return json.dumps({"type": "error", "error": {"type": etype, "message": message or text.format(model=model)}})
    if shape == "gemini":
        text, status_name, reason = _GEMINI[kind]
        err: dict[str, Any] = {"code": status, "message": message or text.format(model=model), "status": status_name}
        details = []
        if reason:
            details.append(
                {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": "googleapis.com"}
            )
        if kind == "rate_limit" and retry_after_s is not None:
            details.append({"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{ra}s"})
        if details:
            err["details"] = details
        return json.dumps({"error": err})
    if shape == "openrouter":
        text, _, _ = _OPENAI[kind]
        if kind in ("quota", "credit_balance"):
            text = "Insufficient credits. Add more using https://openrouter.ai/credits"
        return json.dumps(
            {
                "error": {
                    "code": status,
                    "message": message or text.format(model=model, ra=ra),
                    "metadata": {"provider_name": "sim"},
                }
            }
        )
    if shape == "azure":
        text, _, code = _OPENAI[kind]
        if kind == "model_not_found":
            code, text = "DeploymentNotFound", "The API deployment for this resource does not exist."
        if kind == "auth":
            text = (
                "Access denied due to invalid subscription key or wrong API endpoint. Make sure to provide a "
                "valid key for an active subscription and use a correct regional API endpoint."
            )
            code = "401"
        if kind == "rate_limit":
            text = (
                "Requests to the ChatCompletions_Create Operation under Azure OpenAI API have exceeded token "
                "rate limit of your current OpenAI S0 pricing tier. Please retry after {ra} seconds."
            )
            code = "429"
        return json.dumps(
            {"error": {"code": code or str(status), "message": message or text.format(model=model, ra=ra)}}
        )
    text, etype, code = _OPENAI[kind]
    return json.dumps(
        {"error": {"message": message or text.format(model=model, ra=ra), "type": etype, "param": None, "code": code}}
    )
