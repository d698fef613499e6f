"""The classifier's second stage (routing/lexicon.py): a failure class read from its vocabulary when no rule matched,
never from one signal, never failing a run beside a transient word. The classifier now reads routing/learned.py
instead; this stage is the baseline scripts/second_stage_cv.py measures."""

import re

from hypothesis import given
from hypothesis import strategies as st

from routing.classifier import FailureSignal, classify
from routing.codes import ErrorCode
from routing.lexicon import build, read, words

TABLE = {
    "credit": "quota_limited",
    "purchase": "quota_limited",
    "subscription": "subscription_required",
    "handshake": "network_unavailable",
    "context": "context_length_exceeded",
    "shorter": "context_length_exceeded",
    "rate": "rate_limited",
    "limit": "rate_limited",
}


def test_two_independent_signals_decide_and_one_does_not():
    assert read("Your credits ran out; purchase more to go on", TABLE).code is ErrorCode.quota_limited
    assert read("Your credits ran out", TABLE) is None
    assert read("the flux capacitor is misaligned", TABLE) is None


def test_consecutive_words_of_one_class_are_one_signal():
    assert read("rate limit", TABLE) is None  # one phrase, one signal
    assert read("rate of requests over the limit", TABLE).code is ErrorCode.rate_limited


def test_a_tie_between_classes_stays_unknown():
    assert read("credits and purchase, or the context made shorter", TABLE) is None


def test_a_transient_word_beside_a_failing_class_never_fails_the_run_from_words():
    assert read("the context is over; make it shorter", TABLE).code is ErrorCode.context_length_exceeded
    assert read("the context is over; make it shorter after the handshake", TABLE) is None


def test_one_tools_boilerplate_is_no_signal():
    lines = [
        {"family": "goose", "signal": {"error_text": f"{n} Please retry: transient or recoverable"}, "codes": [code]}
        for n, code in enumerate(["model_unavailable"] * 3)
    ]
    assert "transient" not in build(lines)
    lines += [{"family": "aider", "signal": {"error_text": "a transient hiccup"}, "codes": ["model_unavailable"]}]
    assert build(lines)["transient"] == "model_unavailable"


def test_the_second_stage_only_speaks_where_nothing_else_did():
    words = "Your plan's credits are depleted: purchase more"
    read_alone = classify(FailureSignal(error_text=words))
    assert read_alone.rule.startswith("lexicon.") or read_alone.code is not ErrorCode.unknown
    with_status = classify(FailureSignal(status=503, error_text="the flux capacitor is misaligned"))
    assert with_status.rule == "http.status.503"
    assert classify(FailureSignal(error_text="the flux capacitor is misaligned")).code is ErrorCode.unknown


# The tokenisation before it read every script: ASCII words split at camelCase, CJK runs as pairs, nothing else.
_WORD_BEFORE = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|[\u3040-\u30ff\u4e00-\u9fff]+")


def _ascii_words_before(text: str) -> list[str]:
    out = []
    for m in _WORD_BEFORE.finditer(text):
        w = m[0].lower()
        if len(w) < 3:
            out.append("")
            continue
        if len(w) > 4 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(w)
    return out


@given(st.text(alphabet=st.characters(max_codepoint=127)))
def test_an_ascii_text_is_read_into_the_words_it_was_read_into_before_other_scripts_were(text: str) -> None:
    assert words(text) == _ascii_words_before(text)


def test_a_word_of_any_script_is_read_whole_and_in_one_spelling():
    assert words("La connexion a été refusée") == ["", "connexion", "", "été", "refusée"]
    assert words("В соединении отказано") == ["", "соединении", "отказано"]
    assert words("Lỗi kết nối") == ["lỗi", "kết", "nối"]
    assert words("कनेक्शन विफल") == ["कनेक्शन", "विफल"]  # a vowel sign is part of its word
    assert words("مؤقتًا") == words("مؤقتا")  # Arabic's vowel marks, written or not
    assert words("refuse\u0301e") == words("refusée")  # a combining accent is its precomposed letter
    assert words("连接超时Error") == ["连接", "接超", "超时", "error"]
