"""Transport failures in other languages (routing/rules/translated.py): read where a translation says them, and
nowhere else: not in a translated failure of another class, not in an English text."""

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from routing.classifier import FailureSignal, classify
from routing.codes import ErrorCode
from routing.rules.neutral import NEUTRAL
from testkit.corpus import CORPUS, TRANSLATED

NOW = datetime(2026, 1, 1, tzinfo=UTC)
# Translated failures of every other class (keys, quotas, rate limits, models, context, moderation, requests), in the
# 23 languages of tests/corpus/translated26.jsonl: no rule reads most of these classes in those languages yet, so
# they are no training lines; they hold the translated rules, and the learned stage, to their class.
OTHER_CLASSES = Path(__file__).resolve().parents[1] / "translated" / "other_classes.jsonl"
# Read wrongly before the translated readings existed (errors-2026.12.36), by rules and words they do not touch.
READ_SO_BEFORE = {
    "oc-dify-id-api-key-exceed-bill": "the learned stage's reading of an API KEY's words",
    "oc-dify-ko-api-key-exceed-bill": "the learned stage's reading of an API KEY's words",
    "oc-dify-zh-cn-api-key-rate-limit": "a Chinese cap reached (已达…上限), read as a quota",
}
# The translated rows as the classifier compiled them (routing/rules/neutral.py takes them into its table).
RULES = [rule for rule in NEUTRAL if rule.name.startswith("neutral.translated_")]


def _lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(raw) for raw in path.read_text(encoding="utf-8").splitlines() if raw.strip()]


def _text(line: dict[str, Any]) -> str:
    signal = line["signal"]
    return " ".join(" ".join(str(signal.get(k) or "") for k in ("error_text", "body")).split())


def _translated_readings(text: str) -> list[str]:
    return [rule.name for rule in RULES if rule.pattern.search(text)]


OTHER = _lines(OTHER_CLASSES)


CODE_OF = {rule.name: rule.code for rule in RULES}


@pytest.mark.parametrize("line", OTHER, ids=[line["id"] for line in OTHER])
def test_a_translated_failure_of_another_class_is_read_as_its_own_class_or_not_at_all(line: dict[str, Any]) -> None:
    assert [name for name in _translated_readings(_text(line)) if CODE_OF[name].value not in line["codes"]] == []
    if line["id"] not in READ_SO_BEFORE:
        code = classify(FailureSignal.model_validate(line["signal"]), NOW).code
        assert code is ErrorCode.unknown or code.value in line["codes"]


def test_no_english_training_line_is_read_by_the_translated_rules():
    english = [
        line
        for path in sorted(CORPUS.glob("*.jsonl"))
        if not path.match(TRANSLATED)
        for line in _lines(path)
        if _text(line).isascii()
    ]
    assert len(english) > 1000
    assert {
        line["id"]: _translated_readings(_text(line)) for line in english if _translated_readings(_text(line))
    } == {}


@pytest.mark.parametrize(
    "text,code",
    [
        # a word that holds a credential's word is still the connection ("подключиться" holds "ключ")
        ("Невозможно подключиться к серверу.", ErrorCode.network_unavailable),
        # a gateway's error names the connection too ("cổng kết nối"): the gateway decides
        ("Lỗi cổng kết nối. Vui lòng thử lại sau.", ErrorCode.provider_unavailable),
        # an error while connecting to a server: the connection, not the server's error
        ("Sunucuya bağlanırken hata oluştu, sayfayı yenilemeyi deneyin.", ErrorCode.network_unavailable),
        # a connection named beside a credential's expiry: the credential, which no translated rule reads
        ("無法連接 — 可能是 token 已經過期或無效", ErrorCode.unknown),
        # unavailable with no "for now" or "later": a service refused for good (a region, a plan) is not a blip
        ("Сервис недоступен в вашем регионе", ErrorCode.unknown),
        # an English gateway error is the English rules', not a translation's
        ("Cody Gateway blocked the request: acceptable use policy error", ErrorCode.unknown),
    ],
)
def test_translated_readings_decide_by_the_words_that_say_the_most(text: str, code: ErrorCode) -> None:
    result = classify(FailureSignal(error_text=text), NOW)
    if code is ErrorCode.unknown:
        assert not result.rule.startswith("neutral.translated_"), result.rule
    else:
        assert (result.code, result.rule.startswith("neutral.translated_")) == (code, True)
