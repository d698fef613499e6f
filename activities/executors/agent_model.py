"""What an ACP agent did on its own during a turn, read from what the client side can see (pure: no I/O).

**The model that answered.** An agent may answer a turn on another model than the one the start-model policy
selected, without saying so in ACP: Claude Code switches to its `fallbackModel` after consecutive overloaded
answers (cli.js 2.1.83 Wv8 → FallbackTriggeredError → the turn continues on the fallback), and Gemini CLI's model
policy may move an "auto" selection to a Flash model. What each agent reports of it:

- claude-agent-acp 0.23.1 relays no model at all: stream `message_start` events are dropped, assistant messages
  are relayed by content only, `result.modelUsage` becomes a context size, the prompt response carries token
  counts (dist/acp-agent.js prompt / streamEventToAcpNotifications). Claude Code itself records every assistant
  message, with the model the API answered with, in its session transcript: `<CLAUDE_CONFIG_DIR>/projects/
  <cwd, non-alphanumerics as "-">/<session id>.jsonl` (the bridge makes the ACP session id Claude Code's own).
  The configuration directory is the session's own (activities/acp_session.py claude_config_dir), so the worker
  reads what this turn appended (`claude_turn_models`).
- Gemini CLI 0.61 answers session/prompt with `_meta.quota.model_usage: [{model, token_count}]`, the model of each
  request of the turn (its ModelInfo event) (`gemini_turn_models`).
- Codex (codex-acp 0.16) and OpenCode 1.18 report no model per turn; neither switches by itself (Codex's server
  may reroute, which codex-acp only logs).

`answered_by` decides whether the reported models are the selected one (aliases such as "sonnet" resolve to dated
ids inside the agent), and `switch_decision` turns the finding into the start-model policy's decision, so the one
persisted warning goes through `activities.start_policy.settle_start` with a key that is the same for every turn
answered by that model.

**The subscription usage limit.** Claude Code with a claude.ai subscription (an OAuth token) does not retry a 429
that carries `anthropic-ratelimit-unified-*` headers: it emits a `rate_limit_event` (status "rejected",
resetsAt) — which claude-agent-acp drops — and ends the turn with "You've hit your <window> · resets <clock>
(<zone>)" (cli.js gG8/as9), which the bridge relays as JSON-RPC -32603 `Internal error` with that text as data.
`usage_limit_signal` reads that text as a quota with its reset.
"""

import json
import math
import re
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from routing.classifier import FailureSignal
from routing.model_policy import ModelDecision, SelectionOutcome
from routing.reset_hints import read_reset
from routing.usage import Usage, from_anthropic

SYNTHETIC_MODEL = "<synthetic>"
# The model names Claude Code resolves itself (cli.js 2.1.83 d4), with or without "[1m]"; it does not resolve the
# fallback model it switches to (the query loop sets `mainLoopModel` to it as given), so an alias there is a 404.
CLAUDE_MODEL_ALIASES = frozenset(
    {"default", "best", "opus", "sonnet", "haiku", "opusplan"}
)  # Claude Code's model name for messages it wrote itself (errors, notices)

# Claude Code 2.1.83 (cli.js as9, rG6): "You've hit your {session limit|weekly limit|Opus limit|Sonnet limit|
# limit|usage limit}[ · resets <clock> (<zone>)]" and "You're out of extra usage[ · resets …]".
_CLAUDE_USAGE_LIMIT = re.compile(
    r"you(?:'|’)ve hit your (?P<window>session limit|weekly limit|opus limit|sonnet limit|usage limit|limit)\b"
    r"|you(?:'|’)re out of (?P<extra>extra usage)",
    re.I,
)
# What the classifier reads as a quota (routing/rules/neutral.py "quota": "usage limit reached").
USAGE_LIMIT_NOTE = "usage limit reached: Claude subscription"


def is_claude_alias(model: str) -> bool:
    return re.sub(r"\[1m\]$", "", model.strip().lower()) in CLAUDE_MODEL_ALIASES


def claude_transcript_pattern(config_dir: str, session_id: str) -> str:
    """The glob that finds a session's transcript under its CLAUDE_CONFIG_DIR, whatever directory name Claude
    Code made of the working directory (cli.js JP: non-alphanumerics as "-", long paths shortened with a hash)."""
    return f"{config_dir.rstrip('/')}/projects/*/{_glob_escape(session_id)}.jsonl"


def _glob_escape(text: str) -> str:
    return re.sub(r"([*?\[])", r"[\1]", text)


def claude_turn_models(appended: str) -> list[str]:
    """The models of the main conversation's assistant messages in what a turn appended to Claude Code's
    transcript, in order. Sub-agent messages (`isSidechain`), Claude Code's own messages (`<synthetic>`) and lines
    that are not JSON (a line still being written) are left out."""
    models: list[str] = []
    for line in appended.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if not isinstance(entry, dict) or entry.get("type") != "assistant" or entry.get("isSidechain"):
            continue
        message = entry.get("message")
        model = message.get("model") if isinstance(message, dict) else None
        if isinstance(model, str) and model and model != SYNTHETIC_MODEL:
            models.append(model)
    return models


def claude_turn_usage(appended: str) -> Usage | None:
    """What the provider said this turn's answers used, from what the turn appended to Claude Code's transcript:
    every assistant message the API answered (each once: Claude Code writes a message's content blocks as lines of
    their own, each with the message's usage), sub-agents' included. None when the turn appended none. For a turn
    whose result the bridge did not relay (it read the answer as its login notice and threw)."""
    by_message: dict[str, Usage] = {}
    for line in appended.splitlines():
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        message = entry.get("message") if isinstance(entry, dict) and entry.get("type") == "assistant" else None
        if not isinstance(message, dict) or message.get("model") == SYNTHETIC_MODEL:
            continue
        usage = from_anthropic(message.get("usage"))
        if usage is not None:
            by_message[str(message.get("id") or len(by_message))] = usage
    return sum(by_message.values(), Usage()) if by_message else None


def gemini_turn_models(prompt_response: Mapping[str, Any]) -> list[str]:
    """The models Gemini CLI's session/prompt answer lists under `_meta.quota.model_usage` (each a request of
    the turn that used tokens)."""
    meta = prompt_response.get("_meta")
    quota = meta.get("quota") if isinstance(meta, Mapping) else None
    usage = quota.get("model_usage") if isinstance(quota, Mapping) else None
    if not isinstance(usage, list):
        return []
    return [u["model"] for u in usage if isinstance(u, Mapping) and isinstance(u.get("model"), str) and u["model"]]


def reported_models(prompt_response: Mapping[str, Any] | None, claude_appended: str | None = None) -> list[str]:
    """Every model the agent reported for this turn, from the prompt answer and (Claude Code) its transcript."""
    models = gemini_turn_models(prompt_response or {})
    if claude_appended:
        models += claude_turn_models(claude_appended)
    return models


def _plain(model: str) -> str:
    """A model id without what only names where it runs: a `models/` or `provider/` prefix, a `[1m]` suffix."""
    name = model.strip().lower().rsplit("/", 1)[-1]
    return re.sub(r"\[[^\]]*\]$", "", name)


def same_model(selected: str, reported: str) -> bool:
    """Whether `reported` is the `selected` model as the agent resolved it: equal, the same id with a date
    suffix ("claude-opus-4-5" → "claude-opus-4-5-20251101"), or an alias without a version that is one of the
    id's words ("sonnet" → "claude-sonnet-4-6")."""
    a, b = _plain(selected), _plain(reported)
    if a == b:
        return True
    if re.fullmatch(re.escape(a) + r"[-@]\d{8}(?:-v\d+(?::\d+)?)?", b):
        return True
    return a.isalpha() and a in re.split(r"[-_.@]", b)


def names_no_model(selected: str) -> bool:
    """A selection that leaves the choice of model to the agent, so no reported model can contradict it: Claude
    Code's "default", "best" and "opusplan" (Opus in plan mode, Sonnet otherwise), Gemini CLI's "auto…" routing."""
    name = _plain(selected)
    return name in ("default", "best", "opusplan") or name.startswith("auto")


def answered_by(selected: str | None, reported: Iterable[str]) -> str | None:
    """The model that answered (part of) this turn in place of `selected`: the last reported model that is not
    the selected one; None when every reported model is the selected one, nothing was reported, or the selection
    names no model (nothing selected: the agent's default runs; or a name that leaves the agent the choice)."""
    if not selected or names_no_model(selected):
        return None
    others = [m for m in reported if not same_model(selected, m)]
    return others[-1] if others else None


def switch_decision(started: ModelDecision, answered: str) -> ModelDecision:
    """The start-model decision as it stands once a turn was answered by `answered`: the model the warning names
    as effective, `fallback_applied` when it is the profile's fallback model (the only model Claude Code can
    switch to), else `agent_default`. Everything else (and so the warning's idempotency key, derived from the
    decision) is the same for every turn answered by that model."""
    on_fallback = started.fallback is not None and same_model(started.fallback, answered)
    return started.model_copy(
        update={
            "effective": answered,
            "outcome": SelectionOutcome.fallback_applied if on_fallback else SelectionOutcome.agent_default,
            "reason": None,
        }
    )


def usage_limit_window(text: str | None) -> str | None:
    """The window Claude Code names when a subscription limit ended the turn ("session limit", "Opus limit", …,
    "extra usage"), or None when the text is not that notice."""
    match = _CLAUDE_USAGE_LIMIT.search(text or "")
    if match is None:
        return None
    return (match["window"] or match["extra"]).lower()


def usage_limit_signal(signal: FailureSignal, now: datetime) -> FailureSignal | None:
    """The relayed usage-limit notice as the quota it is: HTTP 429 (Claude Code writes it only for a 429 with the
    unified rate-limit headers), the reset its clock names as Retry-After, and the text kept with a note naming
    the limit (once: a signal already read is returned as it is). None when the signal is not that notice."""
    window = usage_limit_window(signal.error_text)
    if window is None:
        return None
    if USAGE_LIMIT_NOTE in (signal.error_text or ""):
        return signal
    headers = dict(signal.headers)
    reset_s = read_reset(signal.error_text, None, now)
    if reset_s is not None and "retry-after" not in {k.lower() for k in headers}:
        headers["retry-after"] = str(max(1, math.ceil(reset_s)))
    return signal.model_copy(
        update={
            "status": signal.status or 429,
            "headers": headers,
            "error_text": f"{signal.error_text} ({USAGE_LIMIT_NOTE} {window})",
        }
    )
