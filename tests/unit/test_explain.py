"""routing.explain: the report `office explain-error` prints, as a pure function."""

from datetime import UTC, datetime

from hypothesis import given, settings
from hypothesis import strategies as st

from routing.classifier import FailureSignal
from routing.codes import ErrorCode
from routing.explain import explain_error, near_misses, signal_from_text
from routing.rules import CATALOGUE_VERSION

NOW = datetime(2026, 1, 1, tzinfo=UTC)


def test_a_bare_claude_code_line_names_the_rule_the_status_and_the_decision():
    line = 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    report = explain_error(signal_from_text(line), NOW)
    assert (report.code, report.rule, report.decision) == (
        ErrorCode.provider_overloaded,
        "body.overloaded_error",
        "short_retry",
    )
    assert (report.status, report.status_in_text) == (529, True)
    assert {c.rule for c in report.also_matched} == {"neutral.overloaded", "text.status.529"}
    assert report.near_misses == []
    assert report.catalogue == CATALOGUE_VERSION == report.classification.catalogue


def test_a_reset_time_decides_between_short_retry_and_fallback():
    soon = explain_error(signal_from_text("429 rate limit exceeded, please try again in 20s"), NOW)
    later = explain_error(signal_from_text("429 rate limit exceeded, please try again in 2 hours"), NOW)
    assert (soon.decision, soon.retry_after_s) == ("short_retry", 20)
    assert (later.decision, later.retry_after_s) == ("fallback", 7200)
    alone = explain_error(
        signal_from_text("You've hit your session limit · resets 3pm (America/Bogota)"),
        NOW,
        other_provider_eligible=False,
    )
    assert (alone.code, alone.decision, alone.delay_s) == (ErrorCode.quota_limited, "wait", 72000)


def test_an_unknown_waits_for_a_person_and_shows_the_rules_that_almost_matched():
    report = explain_error(signal_from_text("Error: the connection dropped"), NOW)
    assert (report.code, report.decision, report.rule) == (ErrorCode.unknown, "park", "unmatched")
    assert report.park_reason == "unreadable_failure"
    assert report.near_misses and report.near_misses[0].rule == "neutral.network"
    assert report.near_misses[0].score >= 0.75 and report.near_misses[0].closest == "connection error"
    # words of the network vocabulary: the second stage reads the class, nothing is unknown
    peer = explain_error(signal_from_text("Error: the connection was closed by peer"), NOW)
    assert (peer.code, peer.decision, peer.rule) == (
        ErrorCode.network_unavailable,
        "short_retry",
        "learned.network_unavailable",
    )
    assert "connection" in peer.decided_by
    nothing = explain_error(signal_from_text("the flux capacitor is misaligned"), NOW)
    assert (nothing.code, nothing.decision, nothing.near_misses) == (ErrorCode.unknown, "park", [])


def test_near_misses_are_only_computed_for_unknowns():
    report = explain_error(FailureSignal(status=401, body='{"error":{"code":"invalid_api_key"}}'), NOW)
    assert report.code is ErrorCode.auth_required and report.near_misses == []


@settings(max_examples=200, deadline=None)
@given(st.text(max_size=200))
def test_never_raises_and_near_misses_are_ranked(text):
    report = explain_error(signal_from_text(text), NOW)
    assert report.decision != "fallback" or report.code is not ErrorCode.unknown
    scores = [m.score for m in near_misses(text)]
    assert scores == sorted(scores, reverse=True) and all(0 < s <= 1 for s in scores)
