"""What an agent did on its own in a turn: the model that answered, and Claude Code's subscription usage limit."""

import json
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from activities.executors.agent_model import (
    SYNTHETIC_MODEL,
    answered_by,
    claude_transcript_pattern,
    claude_turn_models,
    claude_turn_usage,
    gemini_turn_models,
    reported_models,
    same_model,
    switch_decision,
    usage_limit_signal,
    usage_limit_window,
)
from activities.start_policy import warning_for
from routing.classifier import FailureSignal, classify
from routing.codes import ErrorCode
from routing.config import ExecutionProfile
from routing.decider import DecisionKind, RoutingContext, RunState, decide
from routing.model_policy import ModelDecision, PolicyMode, SelectionOutcome
from routing.run import Candidate
from routing.usage import Usage

NOW = datetime(2026, 1, 1, 12, 0, tzinfo=UTC)


def line(kind: str, model: str | None = None, **extra: object) -> str:
    entry: dict[str, object] = {"type": kind, **extra}
    if model is not None:
        entry["message"] = {"role": "assistant", "model": model, "content": [{"type": "text", "text": "hi"}]}
    return json.dumps(entry)


# --- the model that answered ---------------------------------------------------------------------------------


def test_claude_transcript_models_are_the_main_conversations_assistant_messages_in_order():
    appended = "\n".join(
        [
            line("user", None, message={"role": "user", "content": "Fix the test"}),
            line("assistant", "claude-opus-4-6"),
            line("assistant", "claude-haiku-4-5-20251001", isSidechain=True),  # a sub-agent's own model
            line("assistant", SYNTHETIC_MODEL),  # Claude Code's own notice, no model answered
            line("system", None, subtype="informational"),
            line("assistant", "claude-sonnet-4-6"),
            '{"type": "assistant", "message": {"model": "claude-son',  # the line being written: not yet
        ]
    )
    assert claude_turn_models(appended) == ["claude-opus-4-6", "claude-sonnet-4-6"]


def test_gemini_reports_the_models_of_its_turn_in_the_prompt_answer():
    answer = {
        "stopReason": "end_turn",
        "_meta": {
            "quota": {
                "token_count": {"input_tokens": 10, "output_tokens": 3},
                "model_usage": [
                    {"model": "gemini-2.5-pro", "token_count": {"input_tokens": 6, "output_tokens": 1}},
                    {"model": "gemini-2.5-flash", "token_count": {"input_tokens": 4, "output_tokens": 2}},
                ],
            }
        },
    }
    assert gemini_turn_models(answer) == ["gemini-2.5-pro", "gemini-2.5-flash"]
    assert reported_models(answer, line("assistant", "claude-x")) == ["gemini-2.5-pro", "gemini-2.5-flash", "claude-x"]


@pytest.mark.parametrize(
    "answer",
    [
        {"stopReason": "end_turn", "usage": {"inputTokens": 3}},  # claude-agent-acp, OpenCode: tokens only
        {"stopReason": "end_turn", "_meta": {}},
        {"_meta": {"quota": {"model_usage": "gemini-2.5-pro"}}},
        {"_meta": {"quota": {"model_usage": [{"token_count": {}}, "x", {"model": ""}]}}},
    ],
)
def test_an_answer_that_names_no_model_reports_none(answer):
    assert gemini_turn_models(answer) == [] and reported_models(answer, None) == []


SAME = [
    ("claude-sonnet-4-6", "claude-sonnet-4-6"),
    ("sonnet", "claude-sonnet-4-6"),  # the bridge's alias, resolved by Claude Code
    ("opus", "claude-opus-4-5-20251101"),
    ("sonnet[1m]", "claude-sonnet-4-6"),
    ("claude-opus-4-5", "claude-opus-4-5-20251101"),  # a dated id of the same model
    ("gemini-2.5-pro", "models/gemini-2.5-pro"),
    ("gpt-5", "openai/gpt-5"),
]
OTHER = [
    ("opus", "claude-sonnet-4-6"),  # Claude Code's own fallback
    ("claude-opus-4-6", "claude-sonnet-4-6"),
    ("claude-opus-4", "claude-opus-4-1-20250805"),  # another version is another model
    ("gemini-2.5-pro", "gemini-2.5-flash"),
    ("gpt-5", "gpt-5-mini"),
]


@pytest.mark.parametrize("selected, reported", SAME)
def test_the_selected_model_as_the_agent_resolved_it_is_the_same_model(selected, reported):
    assert same_model(selected, reported) and answered_by(selected, [reported, reported]) is None


@pytest.mark.parametrize("selected, reported", OTHER)
def test_another_model_is_another_model(selected, reported):
    assert not same_model(selected, reported)
    assert answered_by(selected, [reported]) == reported


@pytest.mark.parametrize("selected", ["default", "best", "opusplan", "auto", "auto-gemini-2.5", "Default[1m]"])
def test_a_selection_that_leaves_the_agent_the_choice_is_never_contradicted(selected):
    assert answered_by(selected, ["claude-sonnet-4-6", "gemini-2.5-flash-lite"]) is None


def test_the_last_model_that_was_not_the_selected_one_answered_the_turn():
    reported = ["claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-6"]
    assert answered_by("claude-opus-4-6", reported) == "claude-sonnet-4-6"
    assert answered_by("claude-opus-4-6", []) is None  # nothing reported: nothing to warn about
    assert answered_by(None, reported) is None  # the agent's default ran: nothing selected to compare with


@given(st.text(min_size=1, max_size=40))
def test_every_model_is_itself(model):
    assert same_model(model, model) and answered_by(model, [model] * 3) is None


def test_the_session_transcript_is_found_by_session_id_whatever_the_directory_name():
    assert claude_transcript_pattern("/w/.s.claude-r1/", "3f2a-*") == "/w/.s.claude-r1/projects/*/3f2a-[*].jsonl"


# --- the one warning, idempotent per run and effective model -----------------------------------------------


def candidate(fallback: str | None) -> Candidate:
    return Candidate(
        provider="anthropic",
        execution_profile="anthropic",
        profile=ExecutionProfile(kind="acp", command=["claude-agent-acp"]),
        tier="standard",
        requested_model="opus",
        fallback_model=fallback,
    )


def started(fallback: str | None) -> ModelDecision:
    return ModelDecision(
        mode=PolicyMode.fallback_model if fallback else PolicyMode.default_on_mismatch,
        requested="opus",
        fallback=fallback,
        effective="opus",
        outcome=SelectionOutcome.applied,
        reason=None,
        set_model_called=True,
    )


def test_a_turn_on_the_profiles_fallback_model_warns_once_per_run_and_model_however_many_turns():
    decision = started("sonnet")
    assert not decision.differs  # the start itself gave no warning
    turns = [switch_decision(decision, m) for m in ["claude-sonnet-4-6", "claude-sonnet-4-6", "claude-sonnet-4-6"]]
    assert all(t.differs and t.outcome is SelectionOutcome.fallback_applied for t in turns)
    warnings = [warning_for("run-1", "claude", candidate("sonnet"), t) for t in turns]
    assert len({w.idempotency_key for w in warnings}) == 1  # the store keeps one
    warning = warnings[0]
    assert (warning.requested_model, warning.effective_model, warning.fallback_model) == (
        "opus",
        "claude-sonnet-4-6",
        "sonnet",
    )
    # another run, or another effective model, is another warning
    other_run = warning_for("run-2", "claude", candidate("sonnet"), turns[0]).idempotency_key
    other_model = warning_for("run-1", "claude", candidate("sonnet"), switch_decision(decision, "claude-haiku-4-5"))
    assert len({warning.idempotency_key, other_run, other_model.idempotency_key}) == 3


def test_a_model_the_profile_never_named_is_the_agents_own_choice():
    switched = switch_decision(started(None), "gemini-2.5-flash")
    assert switched.outcome is SelectionOutcome.agent_default and switched.effective == "gemini-2.5-flash"
    assert switched.differs


# --- the subscription usage limit ---------------------------------------------------------------------------

# What claude-agent-acp 0.23.1 relays (JSON-RPC -32603 "Internal error", data = the result text), as the ACP
# client (activities/executors/acp.py _text) words it; the notices are Claude Code 2.1.83's (cli.js as9/rG6).
USAGE_LIMITS = [
    ("You've hit your session limit · resets 3pm (UTC)", "session limit", 3 * 3600),
    ("You've hit your weekly limit · resets Jan 5, 3pm (UTC)", "weekly limit", 4 * 86400 + 3 * 3600),
    ("You've hit your Opus limit · resets 2:30pm (UTC)", "opus limit", 9000),
    ("You've hit your Sonnet limit · resets 3:30pm (Europe/Berlin)", "sonnet limit", 9000),  # UTC+1 in January
    ("You've hit your limit · resets 1pm (America/Bogota)", "limit", 6 * 3600),  # the overage notice, UTC-5
    ("You've hit your usage limit · resets 5pm (UTC)", "usage limit", 5 * 3600),
    ("You're out of extra usage · resets 4pm (UTC)", "extra usage", 4 * 3600),
]


@pytest.mark.parametrize("notice, window, reset_s", USAGE_LIMITS)
def test_the_relayed_usage_limit_is_a_quota_with_its_reset(notice, window, reset_s):
    relayed = FailureSignal(jsonrpc_code=-32603, error_text=f"Internal error: {notice}", provider="claude")
    assert usage_limit_window(relayed.error_text) == window
    signal = usage_limit_signal(relayed, NOW)
    assert signal is not None and signal.status == 429 and signal.headers["retry-after"] == str(reset_s)
    assert signal.error_text is not None and signal.error_text.startswith(relayed.error_text)  # the words kept
    result = classify(signal, NOW)
    assert (result.code, result.retry_after_s) == (ErrorCode.quota_limited, reset_s)
    # a window of hours or days falls back to the next provider, never a short retry of the same one
    decision = decide(
        result, RoutingContext.office, RunState(attempts=1, max_attempts=8, other_candidate_eligible=True), rand=0.5
    )
    assert decision.kind is DecisionKind.fallback
    alone = decide(
        result, RoutingContext.office, RunState(attempts=1, max_attempts=8, other_candidate_eligible=False), rand=0.5
    )
    assert alone.kind is DecisionKind.wait and alone.delay_s == pytest.approx(reset_s, abs=1)


def test_a_usage_limit_is_read_once():
    relayed = FailureSignal(error_text="Internal error: You've hit your session limit · resets 3pm (UTC)")
    once = usage_limit_signal(relayed, NOW)
    assert once is not None and usage_limit_signal(once, NOW) == once


def test_a_usage_limit_without_a_clock_is_still_a_quota():
    signal = usage_limit_signal(FailureSignal(error_text="Internal error: You've hit your weekly limit"), NOW)
    assert signal is not None and "retry-after" not in signal.headers
    assert classify(signal, NOW).code is ErrorCode.quota_limited


@pytest.mark.parametrize(
    "text",
    [
        'Internal error: API Error: 529 {"type":"error","error":{"type":"overloaded_error"}}',
        "Internal error: You've used 90% of your session limit · resets 3pm (UTC)",  # a warning, not the limit
        "Internal error: Approaching weekly limit · resets Jan 5, 3pm (UTC)",
        "",
    ],
)
def test_other_failures_are_left_as_they_are(text):
    assert usage_limit_signal(FailureSignal(error_text=text or None), NOW) is None


# --- what Claude Code may switch to by itself ---------------------------------------------------------------

CLAUDE_BRIDGE = ExecutionProfile(kind="acp", command=["/opt/agents/node_modules/.bin/claude-agent-acp"])


@pytest.mark.parametrize(
    "fields, fallback",
    [
        ({}, None),  # no fallback model: Claude Code has none (no default in the bridge, the SDK or the CLI)
        ({"fallback_model": "claude-sonnet-4-6"}, "claude-sonnet-4-6"),
        ({"fallback_model": "claude-sonnet-4-6", "auto_fallback": True}, None),  # auto-fallback wins
        ({"fallback_model": "claude-sonnet-4-6", "model_pinned": True}, None),  # a pinned model is never substituted
        ({"fallback_model": "sonnet"}, None),  # an alias: Claude Code would send it unresolved and get a 404
        ({"fallback_model": "Sonnet[1m]"}, None),
        ({"fallback_model": "opus"}, None),  # the requested model itself: the SDK refuses it
    ],
)
def test_claude_code_may_fall_back_by_itself_only_to_the_profiles_fallback_model(fields, fallback):
    from activities.acp_session import claude_meta

    cand = Candidate(
        provider="anthropic",
        execution_profile="anthropic",
        profile=CLAUDE_BRIDGE,
        tier="standard",
        requested_model="opus",
        **fields,
    )
    meta = claude_meta(cand)
    assert meta is not None and meta["claudeCode"]["options"].get("fallbackModel") == fallback  # type: ignore[index, union-attr]


def _assistant(message_id: str, model: str, usage: dict, sidechain: bool = False) -> str:
    return json.dumps(
        {"type": "assistant", "isSidechain": sidechain, "message": {"id": message_id, "model": model, "usage": usage}}
    )


def test_a_turns_usage_is_read_from_claude_codes_transcript_once_per_message():
    """Claude Code writes each content block of an answer as a line of its own, each with the whole answer's usage:
    a message counts once; a sub-agent's answers are billed too; its own synthetic notices and a line still being
    written are not answers."""
    first = {"input_tokens": 10, "cache_read_input_tokens": 64, "cache_creation_input_tokens": 8, "output_tokens": 5}
    appended = "\n".join(
        [
            json.dumps({"type": "user", "message": {"content": "hi"}}),
            _assistant("msg_1", "claude-sonnet-4-5", first),  # its text block
            _assistant("msg_1", "claude-sonnet-4-5", first),  # its tool_use block: the same answer
            _assistant("msg_2", "claude-haiku-4-5", {"input_tokens": 3, "output_tokens": 2}, sidechain=True),
            _assistant("syn", "<synthetic>", {"input_tokens": 0, "output_tokens": 0}),
            '{"type": "assistant", "message": {"id": "msg_3", "usage": {"input_tok',
        ]
    )
    assert claude_turn_usage(appended) == Usage(
        input_tokens=10 + 64 + 8 + 3, output_tokens=5 + 2, cache_read_tokens=64, cache_write_tokens=8
    )
    assert claude_turn_usage(json.dumps({"type": "user", "message": {"content": "hi"}})) is None
