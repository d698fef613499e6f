"""What the worker's sandbox relay saw of the transport (FailureSignal.relay_fault: the errno name of the last
connection toward the provider that failed) beside the agent's words: the words decide where a rule reads them;
where none does, the relay's sight of a refused, reset or unresolved connection makes the failure the network's."""

from datetime import UTC, datetime

import pytest

from routing.classifier import FailureSignal, classify
from routing.decider import RoutingContext, RunState, decide
from testkit.corpus import corpus_lines

NOW = datetime(2026, 1, 1, tzinfo=UTC)
RELAY_CONFIDENCE = 0.42


def reading(signal: FailureSignal) -> tuple[str, str, str]:
    result = classify(signal, NOW)
    first = RunState(attempts=1, max_attempts=8, other_candidate_eligible=True)
    decision = decide(result, RoutingContext.office, first, rand=0.5)
    return result.code.value, result.rule, decision.kind.value


@pytest.mark.parametrize(
    "signal, expected",
    [
        # words no rule reads: an unknown error that waits for a person, unless the relay saw the transport fail
        (FailureSignal(error_text="Something went wrong."), ("unknown", "unmatched", "park")),
        (
            FailureSignal(error_text="Something went wrong.", relay_fault="ECONNREFUSED"),
            ("network_unavailable", "relay.ECONNREFUSED", "short_retry"),
        ),
        (FailureSignal(relay_fault="ECONNRESET"), ("network_unavailable", "relay.ECONNRESET", "short_retry")),
        (
            FailureSignal(exit_code=1, exception_type="AgentExited", relay_fault="EAI_AGAIN"),
            ("network_unavailable", "relay.EAI_AGAIN", "short_retry"),
        ),
        # a guess from the words alone (the second stage) is not made where the relay saw the transport fail
        (
            FailureSignal(error_text="请求内容没有通过安全策略"),
            ("content_policy", "learned.content_policy", "fail"),
        ),
        (
            FailureSignal(error_text="请求内容没有通过安全策略", relay_fault="ETIMEDOUT"),
            ("network_unavailable", "relay.ETIMEDOUT", "short_retry"),
        ),
        # words a rule reads decide: an earlier connection's fault is no reason to doubt what the provider said
        (
            FailureSignal(error_text="Invalid API key provided: sk-****", relay_fault="ECONNRESET"),
            ("auth_required", "neutral.auth", "fallback"),
        ),
        (
            FailureSignal(error_text="429 Too Many Requests", relay_fault="ECONNREFUSED"),
            ("rate_limited", "neutral.rate_limit", "short_retry"),
        ),
        # only an errno's name is read: anything else in the field is ignored
        (FailureSignal(error_text="Something went wrong.", relay_fault="refused"), ("unknown", "unmatched", "park")),
    ],
)
def test_the_relays_sight_of_the_transport_beside_the_agents_words(signal, expected):
    assert reading(signal) == expected


def test_the_relay_changes_no_reading_a_rule_made_of_any_training_line():
    """Every 10th training line, read with and without a relay fault: the code changes only where no rule (or only a
    weaker structured signal than the relay, an agent's bare exit) read the words, and then to the network's."""
    changed = 0
    for line in corpus_lines()[::10]:
        signal = FailureSignal.model_validate(line["signal"])
        alone = classify(signal, NOW)
        with_relay = classify(signal.model_copy(update={"relay_fault": "ECONNRESET"}), NOW)
        if alone.rule == "unmatched" or alone.rule.startswith("learned.") or alone.confidence < RELAY_CONFIDENCE:
            assert (with_relay.code.value, with_relay.rule) == ("network_unavailable", "relay.ECONNRESET"), line["id"]
            changed += 1
        else:
            assert (with_relay.code, with_relay.rule) == (alone.code, alone.rule), line["id"]
    assert changed > 0
