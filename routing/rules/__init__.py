"""Classifier rules as data: one declarative table per family.

Each row is (name, pattern, code, confidence). The classifier evaluates every table and keeps the candidate with
the highest confidence; on a tie, the table's precedence decides (`Rule.precedence`, higher wins). The bands
below make the precedence the design asks for explicit (tests/unit/test_classifier.py asserts each):

- 0.98  agent/provider wording that names the outcome (Codex "You've hit your usage limit", Claude Code
        "usage limit reached|<epoch>")
- 0.975 a request over the whole budget of its window (`Limit N, Requested M`, M > N: routing/rules/windows.py);
        a rate limit over a window of an hour or longer reads as a quota one step above the rate-limit rule
- 0.97  a provider's numbered error codes (Zhipu 1113, 1301); a key's own spend cap (OpenRouter "Key limit
        exceeded"), one step above the balance words beside it
- 0.965 a prompt larger than its own token budget ("not enough free tokens for mandatory prompts"), one step above
        a gateway's budget words
- 0.96  billing / credit / quota / membership wording (so it beats any status, including 429 and 400, and a
        "rejected credentials" headline over it); a content filter that failed to run (no verdict, one step above the
        filter's words)
- 0.95  specific provider body type/code keys (`insufficient_quota`, `invalid_api_key`, `overloaded_error`),
        content policy, missing credential variables, JSON-RPC auth_required
- 0.94  a model's capacity not there yet (a cache that cannot allocate immediately, a pipeline "not loaded yet"),
        above the memory and not-loaded words of a model that cannot fit
- 0.92  authentication, model-availability, context-length wording
- 0.91  a peer that closed before sending any reply (nothing was cut short), above the exception class httpx raises
        for a cut body too
- 0.90  capacity/overload wording, exception types, ACP exit 127/126; a CDN's firewall block page (the path, above
        the 403 and the SDKs' PermissionDenied class that carry it)
- 0.88  a request refused as ill-formed, by its validation's vocabulary (a field path into the messages, tool calls
        and results that do not pair up, turns out of order, reasoning to pass back, an unreadable body)
- 0.87  an answer that never came (an empty response, a stream that ended without content or tool calls), above the
        rate-limit words a notice lists as a possible cause
- 0.85  rate-limit wording
- 0.81  a Node agent that crashed on an unhandled 'error' event, one step above the network words of its errno
- 0.80  HTTP 401/402/529 (a separate status or one found in the text); network failures in a runtime's own
        vocabulary (errno names, exception class names, DNS, TLS, a peer that closed the connection)
- 0.76  an agent's own catch-all error class (OpenCode `UnknownError`): stays unknown unless its words say more
- 0.75  stream-cut, timeout, server-unavailable wording (incidental words: lower than any credential rule)
- 0.74  an OAuth refresh said to have failed with no reason (any network or server words beside it decide); the
        SDKs' catch-all connection class
- 0.70  HTTP 429/5xx/408/413 (Cloudflare's 520-525 included)
- 0.55  generic body types (`invalid_request_error`, `api_error`, `server_error`, `INTERNAL`): a specific
        message always beats them
- 0.60  an endpoint path that is not served, named in the text (`Invalid URL (POST /v1/…)`, `Cannot POST /…`); HTTP
        499 (a request given up before any reply)
- 0.56  a 404 whose body names a not-found kind (`status: NOT_FOUND`), above the generic kinds a relay wraps it in
- 0.50  HTTP 404 (the model the request named) and other 4xx
- 0.495 a command a tool ran that exited with a code and no reason: stays unknown, above the tool's headline below
        and below any status
- 0.49  a tool's headline that it could not set a provider up ("Failed to configure provider"): a carried
        status or cause decides
- 0.48  an agent UI's connection headline ("trouble connecting", "unable to reach the provider"): a carried
        status decides
- 0.45  a client's own retries given up with no cause carried; the generic `invalid_request_error` kind
- 0.42  the worker's own relay saw the last connection toward the provider fail (refused, reset, a name that did not
        resolve: `relay.<errno>`, routing/classifier.py): a transport failure whatever words the agent found for it,
        where no rule read those words; the second stage is not consulted then
- 0.40  the second stage (routing/learned.py): a decision class read from its training vocabulary (naive Bayes, odds
        of e^4 at least, more for a longer text), only when nothing above matched
- 0.38  the third stage (activities/nearest.py): the code the training lines nearest in meaning share (a
        multilingual sentence embedding), only when neither a rule nor the second stage read anything
- 0.30  an agent process that exited with nothing more said
Read from the status beside the words (routing/classifier.py): a limit under 402 Payment Required is a quota, one
step above the rate-limit words; a connection failure named inside a 5xx the office received is the server's own
upstream (provider unavailable), one step above the network words.
Nothing matching means `unknown`, which never switches provider.
"""

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from routing.codes import ErrorCode
from routing.invariants import InvariantBroken

Target = Literal["text", "key", "exception"]

# The rules catalogue's version, stored with every classification it makes. Bump it with any change to what decides
# a code: a rule, the status table, a structured reading, a confidence, the learned counts. The fingerprint of each
# version (tests/unit/test_classifier.py) is the code of every module the classifier reads (testkit/catalogue.py).
CATALOGUE_VERSION = "errors-2026.12.47"

# Tie-break between tables at equal confidence: the more specific table wins.
PRECEDENCE: dict[str, int] = {"agent": 4, "provider": 3, "neutral": 2, "body": 1, "exception": 1}


@dataclass(frozen=True)
class Rule:
    name: str  # shows in Classification.rule, e.g. "codex.usage_limit"
    pattern: re.Pattern[str]
    code: ErrorCode
    confidence: float
    family: str  # "neutral", "body", "exception", an agent ("claude-code") or a provider ("openai")
    kind: str  # "agent", "provider", "neutral", "body", "exception"
    target: Target = "text"

    @property
    def precedence(self) -> int:
        return PRECEDENCE[self.kind]


Row = tuple[str, str, ErrorCode, float]


def table(family: str, kind: str, rows: Iterable[Row], target: Target = "text") -> tuple[Rule, ...]:
    built = tuple(
        Rule(
            name=f"{family}.{name}",
            pattern=re.compile(pattern, re.I),
            code=code,
            confidence=confidence,
            family=family,
            kind=kind,
            target=target,
        )
        for name, pattern, code, confidence in rows
    )
    names = [r.name for r in built]
    if len(names) != len(set(names)):  # a rule's name is what a recorded attempt names: never two alike
        raise InvariantBroken(f"duplicate rule names in {family}")
    return built
