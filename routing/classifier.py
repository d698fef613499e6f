"""Classifies a provider or agent failure into a stable code.

Every signal is turned into candidates: structured ones (exit code, JSON-RPC code, HTTP status — a separate
status or one carried in the agent's text, e.g. `API Error: 529 …`), body type/code keys (from the body, or from
JSON embedded in the agent's text), exception types, and the message rules of every family table in
routing/rules/. The candidate with the highest confidence wins; equal confidence goes to the more specific table
(see routing/rules/__init__.py for the bands). When nothing at all matched, a second stage reads the failure class
from its words (routing/learned.py), at odds of e^4 at least; where that says nothing either, the code the training
lines nearest in meaning share, when the office found one (`nearest_code`, activities/nearest.py). Nothing matching
is `unknown`, which never triggers an automatic provider switch (fail closed). The classifier never raises.
"""

import ast
import json
import re
import warnings
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from pydantic import BaseModel, Field

from routing.codes import ErrorClass, ErrorCode, Phase, class_of
from routing.learned import MODEL, read
from routing.lexicon import signal_text
from routing.rate_limits import requests_per_minute
from routing.redact import redact
from routing.reset_hints import read_reset
from routing.rules import CATALOGUE_VERSION, Rule
from routing.rules.agents import AGENTS
from routing.rules.neutral import BODY, EXCEPTIONS, NEUTRAL
from routing.rules.providers import PROVIDERS
from routing.rules.windows import (
    ALLOWANCE_WINDOWS,
    LIMIT_SPENT,
    LONG_WINDOW_S,
    over_budget,
    window_of,
)


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
    # What the worker's own relay saw of the last connection the sandboxed agent opened toward its provider in this
    # turn, when it failed (activities/executors/sandbox.py): an errno name (ECONNREFUSED, ECONNRESET, ETIMEDOUT) or
    # a resolver's (EAI_NONAME). Set by the office, never read from an agent's words.
    relay_fault: str | None = None
    # The code the training lines nearest in meaning share (activities/nearest.py, a multilingual sentence embedding
    # of the words), set by the office only where nothing here read the words. Never read from an agent.
    nearest_code: str | None = None


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
    limit_rpm: float | None = None  # the request limit the provider's rate-limit headers state, if any
    # The rules catalogue that decided it (CATALOGUE_VERSION), so a later catalogue never relabels a recorded
    # attempt. "" when no catalogue did: the office's own findings (a lost worker, admission) and classifications
    # recorded before catalogues were versioned.
    catalogue: str = ""


def worker_fault(phase: Phase, provider: str | None, rule: str, what: str) -> Classification:
    """The office's own finding that a worker, not the provider, failed the attempt (lost, stalled, or unable to
    start the agent in time): the same route on a live worker, never booked against the provider."""
    return Classification(
        code=ErrorCode.worker_lost,
        error_class=ErrorClass.infrastructure,
        confidence=1.0,
        phase=phase,
        rule=rule,
        provider=provider,
        excerpt=f"worker lost: {what}",
    )


# Every rule table, by family, in precedence order (agents, providers, neutral, body keys, exception types).
RULE_TABLES: dict[str, tuple[Rule, ...]] = {
    **AGENTS,
    **PROVIDERS,
    "neutral": NEUTRAL,
    "body": BODY,
    "exception": EXCEPTIONS,
}
ALL_RULES: tuple[Rule, ...] = tuple(rule for rules in RULE_TABLES.values() for rule in rules)
# The readings of other languages' words (routing/rules/translated*.py) rank below every English reading, so they are
# read only where nothing above them matched: their long word lists cost more than all the other rules together.
TRANSLATED_PREFIX = "neutral.translated_"
TRANSLATED_RULES = tuple(rule for rule in ALL_RULES if rule.name.startswith(TRANSLATED_PREFIX))
FIRST_RULES = tuple(rule for rule in ALL_RULES if not rule.name.startswith(TRANSLATED_PREFIX))
TRANSLATED_CEILING = max(rule.confidence for rule in TRANSLATED_RULES)

# HTTP status alone (separate, or found in the text), when nothing more specific was said.
STATUS_CODES: dict[int, tuple[ErrorCode, float]] = {
    401: (ErrorCode.auth_required, 0.8),
    402: (ErrorCode.subscription_required, 0.8),
    403: (ErrorCode.auth_required, 0.6),
    # a 404 at an LLM API is the model (or deployment, or resource) the request named, which is scoped to that model;
    # an endpoint path that is not served is read from the words that name it (neutral.endpoint_not_found)
    404: (ErrorCode.model_unavailable, 0.5),
    # a proxy on the way asks for its own credentials: the path to the provider, not the request (neutral.proxy)
    407: (ErrorCode.network_unavailable, 0.6),
    408: (ErrorCode.timeout, 0.7),
    413: (ErrorCode.context_length_exceeded, 0.7),
    429: (ErrorCode.rate_limited, 0.7),
    # nginx's "client closed request": the connection was given up before any reply, by the client or a proxy on the
    # way; nothing says the request was wrong
    499: (ErrorCode.network_unavailable, 0.6),
    500: (ErrorCode.provider_unavailable, 0.7),
    502: (ErrorCode.provider_unavailable, 0.7),
    503: (ErrorCode.provider_unavailable, 0.7),
    # a gateway's dependency failed (Vercel AI Gateway's `failed_dependency`): the server behind it, not the request
    424: (ErrorCode.provider_unavailable, 0.6),
    504: (ErrorCode.timeout, 0.7),
    524: (ErrorCode.timeout, 0.6),
    520: (ErrorCode.provider_unavailable, 0.7),  # Cloudflare: the origin answered with something unexpected
    521: (ErrorCode.provider_unavailable, 0.7),  # Cloudflare: the origin refused the connection
    522: (ErrorCode.timeout, 0.7),  # Cloudflare: connecting to the origin timed out
    523: (ErrorCode.network_unavailable, 0.7),  # Cloudflare: the origin is unreachable
    525: (ErrorCode.network_unavailable, 0.7),  # Cloudflare: TLS handshake with the origin failed
    529: (ErrorCode.provider_overloaded, 0.8),
}
OTHER_4XX = (ErrorCode.invalid_request, 0.5)

# Exception types this project's own executors raise (activities/executors): structured signals, like exit codes.
OWN_EXCEPTIONS: dict[str, ErrorCode] = {"MissingCredentials": ErrorCode.missing_credentials}
# What the office itself found, not anything a provider or agent said: certain, so no wording outranks it.
ANSWER_TOO_LARGE = "AnswerTooLarge"  # the executor kept ANSWER_LIMIT_BYTES of an agent's answer and dropped the rest
OFFICE_FINDINGS: dict[str, ErrorCode] = {ANSWER_TOO_LARGE: ErrorCode.answer_too_large}

# A status carried inside an agent's text counts as a status.
_TEXT_STATUS = [
    re.compile(r"API Error:?\s*(\d{3})\b", re.I),
    re.compile(r"\b(?:last )?status(?: code)?\s*[:=]?\s*(\d{3})\b", re.I),
    re.compile(r"\bHTTP(?:/\d(?:\.\d)?)?\s*(?:error\s*)?(\d{3})\b", re.I),
    re.compile(r"\b(\d{3})\s+status code\b", re.I),
    re.compile(r"\berror code:?\s*(\d{3})\b", re.I),
    re.compile(r"\"?httpStatusCode\"?\s*[:=]\s*(\d{3})\b"),
    re.compile(r"\b(?:rejected|failed)\s*\((\d{3})\)", re.I),  # Claude Code "Request rejected (429)"
    re.compile(r"\b(?:load|fetch|request) failed:\s*(\d{3})\b", re.I),  # Safari "TypeError: Load failed: 401"
    # a reason with its status in parentheses before the body (Goose "Resource not found (404): …")
    re.compile(r"\b[a-z]+ \((\d{3})\):", re.I),
    re.compile(
        r"\b(\d{3})\s*(?:Too Many Requests|Unauthorized|Forbidden|Not Found|Bad Request|Payment Required"
        r"|Request Timeout|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out"
        r"|Request Entity Too Large|Unprocessable Entity)\b",
        re.I,
    ),
    # (also after an exception class named for it: "CAPIError: 503 {…}", "APIStatusError: 429")
    re.compile(r"\b\w*Error:?\s*\[?(\d{3})\b"),
    # the Stainless SDKs' message ("401 You didn't provide an API key", "403 Key limit exceeded"): status first
    re.compile(r"^\W{0,3}(\d{3}) (?=[A-Z])"),
    # a wrapper's own words for the status it got ("provider returned 402:", "responded with 503")
    re.compile(r"\b(?:returned|responded with|received|got)\s+(?:an?\s+)?(?:HTTP\s+)?(?:status\s+)?(\d{3})\b", re.I),
    # a client's "Response 402: Rate limit reached" (gpt4free's providers)
    re.compile(r"\bresponse (\d{3}):", re.I),
    # a CDN's error page as text: Google Front End "502. That’s an error.", CloudFront "502 ERROR"
    re.compile(r"\b(\d{3})\.\s+That.s an error\b"),
    re.compile(r"\b(\d{3}) ERROR\b"),
    # a Java map's toString of a body (LangChain4j "{error={code=404, message=Resource not found}}")
    re.compile(r"\{error=\{code=(\d{3})\b"),
]


@dataclass(frozen=True)
class Candidate:
    rule: str
    code: ErrorCode
    confidence: float
    precedence: int  # tie-break: a more specific table wins

    @property
    def rank(self) -> tuple[float, int]:
        return (self.confidence, self.precedence)


@dataclass
class BodyFields:
    """The error fields that the major providers put in their bodies, flattened."""

    keys: list[str] = field(default_factory=list)  # type, code, status, ErrorInfo reasons, innererror codes
    message: str = ""
    messages: list[str] = field(default_factory=list)  # every message field found, in body order
    status: int | None = None  # a numeric HTTP code in the body (Gemini `code: 429`, `status: 400`)


@dataclass
class Evaluation:
    """Everything the classifier saw and considered; `explain` reads it to show what almost matched."""

    text: str
    keys: list[str]
    status: int | None
    status_in_text: bool
    candidates: list[Candidate]
    retry_after_s: float | None

    @property
    def winner(self) -> Candidate | None:
        return max(self.candidates, key=lambda c: c.rank, default=None)


def _as_status(value: Any) -> int | None:
    try:
        number = int(value)
    except (TypeError, ValueError):
        return None
    return number if 400 <= number <= 599 else None


# Field names, lower-cased, that carry an error's kind, its HTTP status or its words, at any depth of a body.
_KEY_FIELDS = frozenset(
    {
        "type",
        "code",
        "status",
        "reason",
        "__type",
        "errortype",
        "error_type",
        "errorcode",
        "error_code",
        "errorkind",
        "name",
    }
)
_STATUS_FIELDS = frozenset(
    {"code", "status", "statuscode", "status_code", "httpstatuscode", "http_status", "http_status_code"}
)
# (Baidu Qianfan/ERNIE and iFlytek put theirs in `error_msg`, WeChat-style APIs in `errmsg`, MiniMax in
# `base_resp.status_msg` beside its own numbered `status_code`)
_MESSAGE_FIELDS = frozenset(
    {
        "message",
        "detail",
        "details",
        "error",
        "error_description",
        "errormessage",
        "error_message",
        "msg",
        "raw",
        "title",
        "error_msg",
        "errmsg",
        "err_msg",
        "errormsg",
        "status_msg",
        "statusmsg",
        # (WSO2 API Manager's and Synapse's faults: `code`, `message` "Message throttled out", `description` with
        # the why)
        "description",
    }
)
# Fields that say why a generation ended: a policy stop inside a 200 is a refusal, a length stop an answer cut short.
# (Not ACP's `stopReason`: an agent reports `refusal` there for a tool call the user rejected too.)
_FINISH_FIELDS = frozenset({"finishreason", "finish_reason", "stop_reason"})
# A field named for a message in a gateway's own style (Portkey's `html-message`) carries words too.
_MESSAGE_SUFFIXES = ("-message", "_message", "message")
_MAX_DEPTH = 8

# gRPC status numbers (`grpc_status:7` in a gRPC debug string), read as their names so the body keys decide.
GRPC_CODES: dict[int, str] = {
    4: "DEADLINE_EXCEEDED",
    7: "PERMISSION_DENIED",
    8: "RESOURCE_EXHAUSTED",
    14: "UNAVAILABLE",
    16: "UNAUTHENTICATED",
}
_GRPC_STATUS = re.compile(r"\bgrpc[_-]status\W{0,3}(\d{1,2})\b", re.I)
# gRPC status names as the runtimes print them: Python `StatusCode.PERMISSION_DENIED`, Java
# `StatusRuntimeException: RESOURCE_EXHAUSTED: …`.
# Node's grpc-js `Error: 14 UNAVAILABLE: No connection established`, Go's `rpc error: code = Unavailable desc = …`.
_GRPC_NAME = re.compile(
    r"\bStatusCode\.([A-Z_]{4,})\b|StatusRuntimeException: ([A-Z_]{4,}):|\b\d{1,2} ([A-Z_]{4,}): "
    r"|\brpc error: code = ([A-Za-z]{4,}) desc\b"
    # Connect RPC's `[code] message` (connect-es ConnectError "[permission_denied] permission denied")
    r"|(?:^|\s)\[(permission_denied|unauthenticated|resource_exhausted|unavailable|deadline_exceeded"
    r"|invalid_argument)\]"
)


_PROBLEM_TYPE = re.compile(r"(?:https?://[^/\s]+)?(?:/[\w.~-]+)+/?")


def _key_name(value: str) -> str:
    """`com.amazon.coral.service#ThrottlingException` and `ThrottlingException:http://…` name `ThrottlingException`;
    an RFC 9457 problem `type` URI (`/errors/content-policy-violation/`) names its kind by its last path segment."""
    text = value.strip()
    if _PROBLEM_TYPE.fullmatch(text):
        return text.rstrip("/").rsplit("/", 1)[-1].replace("-", "_")
    return text.rsplit("#", 1)[-1].split(":", 1)[0].strip()


def _nested_json(text: str) -> Any:
    """A string field that holds JSON itself (OpenRouter's `metadata.raw`, a relay's quoted upstream body)."""
    stripped = text.strip()
    if not stripped or stripped[0] not in "{[":
        return None
    try:
        return json.loads(stripped)
    except (ValueError, RecursionError):
        return None


def _scalar(name: str, value: Any, fields: "BodyFields") -> None:
    if isinstance(value, bool) or value is None:
        return
    text = str(value).strip()
    if name in _STATUS_FIELDS and _as_status(value) is not None:
        fields.status = fields.status or _as_status(value)
    elif name in _KEY_FIELDS and text and text.lower() != "error":
        fields.keys.append(_key_name(text))
    elif name == "quotaid":  # google.rpc.QuotaFailure: which quota (per minute, per day)
        fields.messages.append(f"[quotaId: {text}]")
    elif name == "blockreason":  # Gemini promptFeedback.blockReason: a refusal even inside a 200 or a relayed 429
        fields.messages.append(f"[blockReason: {text}]")
    elif name in _FINISH_FIELDS:  # why a generation ended (Gemini SAFETY, OpenAI content_filter, Anthropic refusal)
        fields.messages.append(f"[finishReason: {text}]")
    elif (name in _MESSAGE_FIELDS or name.endswith(_MESSAGE_SUFFIXES)) and text:
        fields.messages.append(text)
        if name == "error" and re.fullmatch(r"[a-z_]+", text):  # `{"error": "rate_limit_exceeded"}`
            fields.keys.append(text)


def _walk(node: Any, fields: "BodyFields", depth: int = 0) -> None:
    """Every error field of a body, whatever its shape: nested `error` objects, lists, gRPC `details`,
    `innererror`, provider wrappers, and JSON held in a string field."""
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, list):
        for item in node[:20]:
            _walk(item, fields, depth + 1)
        return
    if not isinstance(node, dict):
        return
    # a `text` beside an `error_code` is that error's message (LMDeploy `{"error_code": 10402, "text": "…"}`); alone,
    # a `text` may be an answer, so it is not read
    if "error_code" in node and isinstance(node.get("text"), str) and node["text"].strip():
        fields.messages.append(node["text"].strip())
    # a gateway's deny answer shaped as a completion under its error status (APISIX ai-lakera-guard's "Request blocked
    # by Lakera Guard" as the assistant's content): the words of the refusal
    if node.get("role") == "assistant" and isinstance(node.get("content"), str) and node["content"].strip():
        fields.messages.append(node["content"].strip())
    for key, value in node.items():
        if isinstance(value, dict | list):
            _walk(value, fields, depth + 1)
        elif isinstance(value, str) and (inner := _nested_json(value)) is not None:
            _walk(inner, fields, depth + 1)
        else:
            _scalar(str(key).lower(), value, fields)


def _flatten(data: Any) -> BodyFields:
    if not isinstance(data, dict | list):
        return BodyFields(message=str(data))
    fields = BodyFields()
    _walk(data, fields)
    fields.message = " ".join(dict.fromkeys(fields.messages))
    return fields


_SSE_DATA = re.compile(r"^data:\s?(.*)$", re.M)
# an event named `error` before its data line (vLLM's stream "event: error\ndata: {\"code\":400,\"details\":…}")
_SSE_ERROR_EVENT = re.compile(r"^event:\s?error\s*\n(?:(?!\n\n)[^\n]*\n)*?data:\s?(.*)$", re.M)
_HTML = re.compile(r"<(?:!doctype html|html|head|title|body)\b", re.I)
_HTML_HEADINGS = re.compile(r"<(title|h1|h2)\b[^>]*>(.*?)</\1>", re.I | re.S)
_TAG = re.compile(r"<[^>]+>")
# a proxy's error page that names its kind on the page's body (Squid's templates: `<body id=ERR_DNS_FAIL>`), or
# signs itself as a forwarding proxy's own page (tinyproxy's default.html, "Generated by <a …>tinyproxy version …")
_HTML_KIND = re.compile(r"<body\b[^>]*\bid=[\"']?(ERR_[A-Z_]+)|\bGenerated by <a\b[^>]*>(tinyproxy)\b", re.I)


def _sse_error(body: str) -> BodyFields | None:
    """A stream that answered 200 and then sent its error as an event (`event: error` / `data: {"error": …}`)."""
    events = [_nested_json(m[1]) for m in _SSE_DATA.finditer(body)]
    errors = [e for e in events if isinstance(e, dict) and '"error"' in json.dumps(e)]
    errors = errors or [e for m in _SSE_ERROR_EVENT.finditer(body) if isinstance(e := _nested_json(m[1]), dict)]
    if not errors:
        return None
    return _flatten(errors[-1])


def _html_error(body: str) -> BodyFields | None:
    """A CDN's or reverse proxy's error page: its title and headings name the status and the failure."""
    if not _HTML.search(body[:2000]):
        return None
    words = [" ".join(_TAG.sub(" ", m[2]).split()) for m in _HTML_HEADINGS.finditer(body)]
    message = " | ".join(dict.fromkeys(w for w in words if w))
    statuses = [_as_status(m[0]) for m in re.finditer(r"\b[45]\d\d\b", message)]
    kinds = [m[1] or m[2] for m in _HTML_KIND.finditer(body)]
    return BodyFields(keys=kinds, message=message, status=next((s for s in statuses if s), None))


def _parse_body(body: str | None) -> BodyFields:
    if not body:
        return BodyFields()
    try:
        return _flatten(json.loads(body))
    except (ValueError, TypeError, RecursionError):
        pass
    return _sse_error(body) or _html_error(body) or BodyFields(message=body)


def _balanced(text: str, start: int) -> str | None:
    """The `{…}` that opens at `start`, quotes respected; None when it never closes."""
    depth, quote, escaped = 0, "", False
    for i in range(start, min(len(text), start + 20_000)):
        ch = text[i]
        if quote:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == quote:
                quote = ""
        elif ch in "\"'":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return text[start : i + 1]
    return None


def _embedded_json(text: str) -> BodyFields:
    """A body an agent printed inside its error line: JSON (`API Error: 529 {"type":"error",…}`) or the Python
    SDKs' dict repr (`Error code: 413 - {'error': {'type': 'request_too_large', …}}`)."""
    start = 0
    for _ in range(5):
        i = text.find("{", start)
        if i < 0:
            break
        start = i + 1
        chunk = _balanced(text, i)
        if chunk is None:
            continue
        data: Any = None
        try:
            data = json.loads(chunk)
        except (ValueError, RecursionError):
            try:
                with warnings.catch_warnings():  # JSON escapes such as "\/" are not Python escapes
                    warnings.simplefilter("ignore")
                    data = ast.literal_eval(chunk)
            except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
                continue
        if isinstance(data, dict):
            return _flatten(data)
    return BodyFields()


def _exception_keys(exception_type: str | None) -> list[str]:
    """The error code a provider's SDK carries as the exception's type (AWS `ServiceQuotaExceededException`,
    Volcano Ark `AccountOverdueError`, `SensitiveContentDetected.Violence`) is the body's code by another road: a
    key. A dotted name gives its first part (Ark's code family) and its last (a class named with its module,
    `botocore.errorfactory.ThrottlingException`) too."""
    full = _key_name(exception_type or "")
    if not full:
        return []
    parts = full.split(".")
    return list(dict.fromkeys(p for p in (full, parts[0], parts[-1]) if p))


def _header_keys(headers: dict[str, str]) -> list[str]:
    """AWS names the error's kind in a header (`x-amzn-ErrorType: ThrottlingException:http://…`)."""
    return [_key_name(v) for k, v in headers.items() if k.lower() in ("x-amzn-errortype", "x-amz-error-code")]


def _in_text(text: str) -> BodyFields:
    """A body an agent printed inside its error line: an HTML error page (`API Error: 524 <!DOCTYPE html>…`), or
    JSON or a Python dict repr."""
    page = _html_error(text)
    if page is not None:
        return page
    return _embedded_json(text)


def _grpc_keys(text: str) -> list[str]:
    """The gRPC status names a gRPC debug string gives by number (`grpc_status:7` is PERMISSION_DENIED)."""
    numbered = [GRPC_CODES[int(m[1])] for m in _GRPC_STATUS.finditer(text) if int(m[1]) in GRPC_CODES]
    named = [m[1] or m[2] or m[3] or (m[4] and _snake(m[4])) or m[5].upper() for m in _GRPC_NAME.finditer(text)]
    return numbered + named


def _snake(name: str) -> str:
    """Go's `ResourceExhausted` is the status name RESOURCE_EXHAUSTED."""
    return re.sub(r"(?<=[a-z])(?=[A-Z])", "_", name).upper()


def _status_in_text(text: str) -> int | None:
    for pattern in _TEXT_STATUS:
        for m in pattern.finditer(text):
            status = _as_status(m.group(1))
            if status is not None:
                return status
    return None


def _matches(rule: Rule, text: str, keys: list[str], exception_type: str) -> bool:
    if rule.target == "text":
        return bool(text) and rule.pattern.search(text) is not None
    if rule.target == "key":
        return any(rule.pattern.fullmatch(k) for k in keys)
    return bool(exception_type) and rule.pattern.search(exception_type) is not None


RELAY_RULE_PREFIX = "relay."  # `relay.<errno name>`: the sandbox relay's own sight of the transport failing
RELAY_FAULT = re.compile(r"E[A-Z0-9_]{1,30}")


def _structured_candidates(signal: FailureSignal) -> list[Candidate]:
    """What the exception type, the JSON-RPC code and the exit code say, each as certain as a status."""
    candidates: list[Candidate] = []
    if signal.exception_type in OWN_EXCEPTIONS:
        own = OWN_EXCEPTIONS[signal.exception_type]
        candidates.append(Candidate(f"exception.{signal.exception_type}", own, 0.95, 0))
    if signal.exception_type in OFFICE_FINDINGS:
        found = OFFICE_FINDINGS[signal.exception_type]
        candidates.append(Candidate(f"office.{signal.exception_type}", found, 1.0, 0))
    if signal.relay_fault is not None and RELAY_FAULT.fullmatch(signal.relay_fault):
        # the worker saw the transport fail, whatever words the agent found for it: read where no rule read them
        candidates.append(Candidate(f"{RELAY_RULE_PREFIX}{signal.relay_fault}", ErrorCode.network_unavailable, 0.42, 0))
    if signal.jsonrpc_code == -32000:  # ACP: authentication required
        candidates.append(Candidate("jsonrpc.-32000", ErrorCode.auth_required, 0.95, 0))
    elif signal.jsonrpc_code == -32601:  # method not found
        candidates.append(Candidate("jsonrpc.-32601", ErrorCode.invalid_request, 0.8, 0))
    if signal.exit_code is not None and signal.status is None:
        if signal.exit_code == 127:
            candidates.append(Candidate("exit.127", ErrorCode.provider_not_configured, 0.95, 0))
        elif signal.exit_code == 126:
            candidates.append(Candidate("exit.126", ErrorCode.provider_not_configured, 0.9, 0))
        else:  # an agent process that died mid-session: a lost transport unless its text says more
            candidates.append(Candidate("exit.unexpected", ErrorCode.provider_unavailable, 0.3, 0))
    return candidates


def evaluate(signal: FailureSignal, now: datetime | None = None) -> Evaluation:
    body = _parse_body(signal.body)
    embedded = _in_text(signal.error_text) if signal.error_text else BodyFields()
    raw_body = signal.body or ""
    # Whitespace read as one space: an agent's terminal wraps its error lines anywhere ("considered high\n risk",
    # "is not\nsupported"), and a wording is the same wording wherever the line broke.
    text = " ".join(
        " ".join(t.split())
        for t in (body.message, embedded.message, signal.exception_type or "", signal.error_text or "")
        if t
    )
    reset_text = " ".join(t for t in (signal.error_text or "", raw_body) if t)
    grpc = _grpc_keys(reset_text)
    keys = [
        k.lower()
        for k in (
            *body.keys,
            *embedded.keys,
            *_header_keys(signal.headers),
            *grpc,
            *_exception_keys(signal.exception_type),
        )
        if k
    ]
    retry_after = read_reset(reset_text, signal.headers, now)

    candidates = [
        Candidate(r.name, r.code, r.confidence, r.precedence)
        for r in FIRST_RULES
        if _matches(r, text, keys, signal.exception_type or "")
    ]

    status, in_text = signal.status, False
    # (a 200 stream's later error event names a status of its own, but vLLM and SGLang send 400 for any failure after
    # the 200, an engine that died included: its words decide, not that status)
    if status is None:
        status = body.status or embedded.status or _status_in_text(f"{signal.error_text or ''} {raw_body}")
        in_text = status is not None
    if status is not None:
        code_conf = STATUS_CODES.get(status) or (OTHER_4XX if 400 <= status < 500 else None)
        if code_conf is not None:
            prefix = "text.status" if in_text else "http.status"
            candidates.append(Candidate(f"{prefix}.{status}", code_conf[0], code_conf[1], 0))

    candidates += _structured_candidates(signal)
    if all(c.confidence <= TRANSLATED_CEILING for c in candidates):
        candidates += [
            Candidate(r.name, r.code, r.confidence, r.precedence)
            for r in TRANSLATED_RULES
            if _matches(r, text, keys, signal.exception_type or "")
        ]
    # (a client's own internal response, Perl LWP's "Client-Warning: Internal response", is no server's reply; nor
    # is a caching proxy's own error page named by its kind, Squid's ERR_DNS_FAIL under its 503: the proxy answered)
    proxy_page = any(c.rule == PROXY_PAGE for c in candidates)
    separate = None if CLIENT_INTERNAL.search(text) or proxy_page else signal.status
    candidates += _answered_candidates(separate, status, candidates, keys)
    if not candidates:  # no rule, status or structured signal said anything: the class's vocabulary may
        candidates += _learned_candidates(signal)
    if not candidates:  # nor any word of it: what the lines nearest in meaning say, in any language
        candidates += _nearest_candidates(signal)
    candidates += _limit_candidates(text, candidates, retry_after)
    if any(c.rule == OVER_BUDGET for c in candidates):
        retry_after = None  # no reset lets it fit: the reset the text names is not worth waiting for
    return Evaluation(
        text=text,
        keys=keys,
        status=status,
        status_in_text=in_text,
        candidates=candidates,
        retry_after_s=retry_after,
    )


OVER_BUDGET = "budget.request_over_limit"
PAYMENT_STATUS = 402
PAYMENT_LIMIT = "payment.limit"
SERVER_UPSTREAM = "status.server_upstream"
# Perl LWP marks a status it made up itself (a connect that failed) with this header: the office's path, not the server
CLIENT_INTERNAL = re.compile(r"\bClient-Warning:\s*Internal response\b", re.I)
NOT_FOUND_KIND = "status.404_not_found"
PROXY_PAGE = "body.proxy_page_kind"
_NOT_FOUND_KEY = re.compile(r"not_?found(?:_error)?", re.I)


def _answered_candidates(
    separate: int | None, status: int | None, candidates: list[Candidate], keys: list[str]
) -> list[Candidate]:
    """What a status says about the other words beside it.

    A limit under 402 Payment Required ("402 Rate limited") is a spent allowance, never a per-minute rate: a quota,
    one step above the rate-limit words. A 5xx the office received as a separate status is a reply from the server it
    called, so a connection failure named inside it ("rpc error: code = Unavailable desc = … connect: connection
    refused", a local server that cannot reach the backend it started) is that server's own upstream, not the
    office's network path: the provider is unavailable, one step above the network words. A 404 whose body names a
    not-found kind (Google's `status: NOT_FOUND`, "Requested entity was not found.") is the model the request named,
    one step above the generic kind a relay wraps it in (`"type": "api_error"` with `upstreamStatus: 404`)."""
    found: list[Candidate] = []
    limits = [c.confidence for c in candidates if c.code is ErrorCode.rate_limited]
    if status == PAYMENT_STATUS and limits:
        found.append(Candidate(PAYMENT_LIMIT, ErrorCode.quota_limited, min(0.99, max(limits) + 0.01), 0))
    network = [c.confidence for c in candidates if c.code is ErrorCode.network_unavailable]
    server_answered = (
        separate is not None
        and separate >= 500
        and STATUS_CODES.get(separate, OTHER_4XX)[0] is ErrorCode.provider_unavailable
    )
    if network and server_answered:
        found.append(Candidate(SERVER_UPSTREAM, ErrorCode.provider_unavailable, min(0.99, max(network) + 0.01), 0))
    if status == 404 and any(_NOT_FOUND_KEY.fullmatch(k) for k in keys):
        found.append(Candidate(NOT_FOUND_KIND, ErrorCode.model_unavailable, 0.56, 0))
    return found


LEARNED_CONFIDENCE = 0.4
LEARNED_RULE_PREFIX = "learned."  # the rule name of every second-stage reading: `learned.<code>`


def is_learned(failure: Classification) -> bool:
    """A reading the second stage made from the words alone, where no rule spoke: a guess, however likely."""
    return failure.rule.startswith(LEARNED_RULE_PREFIX)


# A reading of words only the agent vouches for (a line its process writes on its stderr, which nothing checks
# against the provider's own answer): `unverified.<rule>`.
UNVERIFIED_RULE_PREFIX = "unverified."


def unverified(reading: Classification) -> Classification:
    return reading.model_copy(update={"rule": UNVERIFIED_RULE_PREFIX + reading.rule})


def is_guess(failure: Classification) -> bool:
    """A reading that decides its own run's next step but never a verdict every run obeys: the learned stage's, the
    nearest lines' (`nearest`), or one of words nobody can vouch for (`unverified`)."""
    return is_learned(failure) or failure.rule.startswith((UNVERIFIED_RULE_PREFIX, NEAREST_RULE_PREFIX))


NEAREST_RULE_PREFIX = "nearest."  # `nearest.<code>`: the third stage, the training lines nearest in meaning
NEAREST_CONFIDENCE = 0.38
# A rate limit's retry rests on its window, which the words state ("per day") and a similarity does not read; the
# nearest lines never say "unknown" either (they abstain instead).
NOT_NEAREST = frozenset({ErrorCode.rate_limited, ErrorCode.unknown})


def _nearest_candidates(signal: FailureSignal) -> list[Candidate]:
    code = next((c for c in ErrorCode if c.value == signal.nearest_code), None)
    if code is None or code in NOT_NEAREST:
        return []
    return [Candidate(f"{NEAREST_RULE_PREFIX}{code.value}", code, NEAREST_CONFIDENCE, 0)]


def _learned_candidates(signal: FailureSignal) -> list[Candidate]:
    """The second stage (routing/learned.py): what to do read from the words, only where nothing else spoke. Ranked
    below every other reading, so a window or a wait read after it still decides."""
    reading = read(signal_text(signal.model_dump()), MODEL)
    if reading is None:
        return []
    return [Candidate(f"{LEARNED_RULE_PREFIX}{reading.code.value}", reading.code, LEARNED_CONFIDENCE, 0)]


def learned_words(signal: FailureSignal) -> tuple[str, ...]:
    """The words (or word pairs) that decided a `learned.*` reading, for explain-error."""
    reading = read(signal_text(signal.model_dump()), MODEL)
    return reading.words if reading is not None else ()


WAIT_IS_WINDOW = "window.wait"
# A limit spent over a long window with no rate-limit wording: one step above the rate-limit wording, below billing
SPENT_CONFIDENCE = 0.86


def _limit_candidates(text: str, candidates: list[Candidate], retry_after: float | None) -> list[Candidate]:
    """A limit read as data: a request over its whole budget, or a rate limit over a window no short retry
    outlasts (named, or measured by the wait it asks for), is a quota (wait for the reset or fall back), whatever
    wording named it."""
    window = window_of(text)
    # an allowance counted in words is no window where the text asks for a retry within seconds ("retry in 30 seconds.
    # Tokens used this month: …"): what refused is a short rate, the count beside it only reports
    if window in ALLOWANCE_WINDOWS and retry_after is not None and retry_after < LONG_WINDOW_S:
        window = None
    # a request over the model's own token limit ("exceeded model token limit: 262144 (requested: 287431)") is a
    # context overflow, which no budget window resets: only a limit beside a window, or with no context words, is one
    context = any(c.code is ErrorCode.context_length_exceeded for c in candidates)
    if over_budget(text) and (window is not None or not context):
        return [Candidate(OVER_BUDGET, ErrorCode.quota_limited, 0.975, 0)]
    limits = [c.confidence for c in candidates if c.code is ErrorCode.rate_limited]
    long_wait = retry_after is not None and retry_after >= LONG_WINDOW_S
    if not limits:
        if window is not None and window.seconds >= LONG_WINDOW_S and LIMIT_SPENT.search(text):
            return [Candidate(f"window.{window.name}", ErrorCode.quota_limited, SPENT_CONFIDENCE, 0)]
        # a wait of hours asked for with no reason given is still a window: weakest of all signals
        return [Candidate(WAIT_IS_WINDOW, ErrorCode.quota_limited, 0.6, 0)] if long_wait else []
    confidence = min(0.99, max(limits) + 0.01)
    if window is not None and window.seconds >= LONG_WINDOW_S:
        return [Candidate(f"window.{window.name}", ErrorCode.quota_limited, confidence, 0)]
    if long_wait:  # a wait of hours is a window of hours
        return [Candidate(WAIT_IS_WINDOW, ErrorCode.quota_limited, confidence, 0)]
    return []


def _result(
    code: ErrorCode,
    confidence: float,
    rule: str,
    signal: FailureSignal,
    text: str,
    retry_after_s: float | None,
    status: int | None,
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
        status=status,
        limit_rpm=requests_per_minute(signal.headers),
        catalogue=CATALOGUE_VERSION,
    )


UNMATCHED = "unmatched"  # the rule of a reading nothing made: `unknown`


def classify(signal: FailureSignal, now: datetime | None = None) -> Classification:
    try:
        ev = evaluate(signal, now)
    except Exception as exc:  # never raise: an unexpected shape is simply unknown
        return _result(
            ErrorCode.unknown, 0.0, f"classifier.error.{type(exc).__name__}", signal, "", None, signal.status
        )
    text = ev.text or signal.body or ""
    best = ev.winner
    if best is None:
        return _result(ErrorCode.unknown, 0.0, UNMATCHED, signal, text, ev.retry_after_s, ev.status)
    return _result(best.code, best.confidence, best.rule, signal, text, ev.retry_after_s, ev.status)
