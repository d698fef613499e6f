"""The classifier's learned second stage (routing/learned.py): a decision class read from a failure's words when no
rule matched, only at high odds, never failing a run beside a transient word, and counted from the training corpus
as committed."""

from datetime import UTC, datetime

import pytest

from routing.classifier import FailureSignal, classify
from routing.codes import ErrorCode
from routing.explain import explain_error, signal_from_text
from routing.learned import MODEL, build, features, model, read
from routing.rules.learned_counts import COUNTS, DOCS
from testkit.corpus import corpus_lines

NOW = datetime(2026, 12, 1, tzinfo=UTC)


def test_the_committed_counts_are_the_ones_the_training_corpus_builds():
    built = build(corpus_lines(counted_only=True))
    assert built == (DOCS, COUNTS), "tests/corpus changed: run `python -m scripts.build_learned`"


def test_features_are_words_and_pairs_of_words_not_crossing_a_break():
    assert features("Connection reset by peer") == {"connection", "reset", "peer", "connection reset"}


def line(family: str, text: str, code: str) -> dict:
    return {"family": family, "signal": {"error_text": text}, "codes": [code]}


TOY = [
    *(line(f, f"credits exhausted, purchase more {n}", "quota_limited") for n, f in enumerate("abcdef")),
    *(line(f, f"connection reset by the upstream {n}", "network_unavailable") for n, f in enumerate("abcdef")),
    *(line(f, f"prompt is too long for the context {n}", "context_length_exceeded") for n, f in enumerate("abcdef")),
    line("a", "connection reset while the prompt was long", "network_unavailable"),
    line("b", "connection reset, prompt too long", "network_unavailable"),
]


def test_one_tools_boilerplate_is_no_evidence():
    lines = [line("goose", f"{n} transient or recoverable", "model_unavailable") for n in range(3)]
    assert "transient" not in build(lines)[1]
    lines.append(line("aider", "a transient hiccup", "model_unavailable"))
    assert build(lines)[1]["transient"] == {"model_unavailable": 4}


def test_unknown_lines_teach_nothing_but_the_other_code_they_accept():
    docs, counts = build([line("a", "something odd", "unknown"), line("b", "something odd", "unknown")])
    assert docs == {} and counts == {}
    either = [{**line(f, "something odd", "unknown"), "codes": ["unknown", "stream_truncated"]} for f in "ab"]
    assert build(either)[1]["odd"] == {"stream_truncated": 2}


@pytest.mark.parametrize(
    "text,code",
    [
        ("credits exhausted: purchase more", ErrorCode.quota_limited),
        ("the upstream connection was reset", ErrorCode.network_unavailable),
        ("your prompt is too long for the context", ErrorCode.context_length_exceeded),
        ("the flux capacitor is misaligned", None),  # no word it knows
        ("credits", None),  # one word: not sure enough
        ("the prompt is too long for the context after a connection reset", None),  # a transient word beside
    ],
)
def test_toy_readings(text, code):
    reading = read(text, model(*build(TOY)))
    assert (reading.code if reading else None) is code


def test_a_reading_names_its_decision_and_the_words_that_weighed_most():
    reading = read("credits exhausted: purchase more", model(*build(TOY)))
    assert reading is not None and reading.decision == "fallback" and reading.probability > 0.98
    assert "credit" in reading.words and 0 < len(reading.words) <= 4


# Texts in the style of what no rule matches, read by the committed counts (None: stays unknown).
@pytest.mark.parametrize(
    "text,code,decision",
    [
        ("remote connection closed", ErrorCode.network_unavailable, "short_retry"),
        ("Error: the connection was closed by peer", ErrorCode.network_unavailable, "short_retry"),
        ("Your account balance is insufficient; please top up", ErrorCode.subscription_required, "fallback"),
        ("invalid api key provided", ErrorCode.auth_required, "fallback"),
        ("the prompt is too long for the context window of this model; make it shorter", None, "fail"),
        ("prompt too long for the context window, the upstream connection timed out", None, None),
        ("the flux capacitor is misaligned", None, None),
    ],
)
def test_committed_readings(text, code, decision):
    reading = read(text, MODEL)
    assert (reading.decision if reading else None) == decision
    if code is not None:
        assert reading is not None and reading.code is code


def test_the_second_stage_only_speaks_where_nothing_else_did():
    alone = classify(FailureSignal(error_text="remote connection closed"))
    assert (alone.code, alone.rule) == (ErrorCode.network_unavailable, "learned.network_unavailable")
    with_status = classify(FailureSignal(status=503, error_text="the flux capacitor is misaligned"))
    assert with_status.rule == "http.status.503"
    assert classify(FailureSignal(error_text="the flux capacitor is misaligned")).code is ErrorCode.unknown


def test_explain_error_shows_the_words_that_decided():
    report = explain_error(signal_from_text("remote connection closed"), NOW)
    assert report.rule == "learned.network_unavailable" and "connection" in report.decided_by
    assert explain_error(signal_from_text("HTTP 503 Service Unavailable"), NOW).decided_by == []
