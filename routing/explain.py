"""`office explain-error` as a pure function: which rule matched, the code, what an office run would decide, the
reset time, and — for an unknown — the rules that almost matched, so a user can report the text with context."""

import re
from datetime import datetime

from pydantic import BaseModel, Field

from routing.classifier import ALL_RULES, Classification, FailureSignal, classify, evaluate, is_learned, learned_words
from routing.codes import ErrorClass, ErrorCode
from routing.decider import Decision, RoutingContext, RunState, decide
from routing.rules import Rule


class Considered(BaseModel):
    """A rule that matched but lost to a stronger one."""

    rule: str
    code: ErrorCode
    confidence: float


class NearMiss(BaseModel):
    """A rule that did not match, with the part of its pattern that came closest to the text."""

    rule: str
    code: ErrorCode
    score: float  # share of that alternative's words found in the text, 0..1
    closest: str  # the alternative, as words
    missing: list[str] = Field(default_factory=list)


class ErrorReport(BaseModel):
    code: ErrorCode
    error_class: ErrorClass
    confidence: float
    rule: str
    catalogue: str  # the rules catalogue version that decided the code
    decided_by: list[str] = Field(default_factory=list)  # a `learned.*` reading: the words that weighed most
    excerpt: str
    status: int | None
    status_in_text: bool
    retry_after_s: float | None
    decision: str
    reason: str
    delay_s: float | None
    park_reason: str | None
    health: dict[str, object] | None
    also_matched: list[Considered]
    near_misses: list[NearMiss]
    classification: Classification
    decision_detail: Decision


def signal_from_text(text: str) -> FailureSignal:
    """A bare agent error line, as the agent printed or relayed it (`API Error: 529 {…}`)."""
    return FailureSignal(error_text=text.strip())


_WORD = re.compile(r"[a-z][a-z0-9_'’-]{2,}")
_REGEX_NOISE = re.compile(r"\\[a-zA-Z]|\(\?[:!=<]*|\[[^\]]*\]|[{][\d,]*[}]|[()?*+^$|]")


def _alternatives(rule: Rule) -> list[list[str]]:
    """The top-level alternatives of a rule's pattern, each reduced to its literal words."""
    source, depth, parts, current = rule.pattern.pattern, 0, [], ""
    i = 0
    while i < len(source):
        ch = source[i]
        if ch == "\\" and i + 1 < len(source):
            current += source[i : i + 2]
            i += 2
            continue
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == "|" and depth == 0:
            parts.append(current)
            current = ""
        else:
            current += ch
        i += 1
    parts.append(current)
    words = [_WORD.findall(_REGEX_NOISE.sub(" ", p).lower()) for p in parts]
    return [w for w in words if w]


def near_misses(text: str, limit: int = 3, threshold: float = 0.34) -> list[NearMiss]:
    """Rules whose wording the text shares in part: the nearest ones first."""
    words = set(_WORD.findall(text.lower()))
    found: list[NearMiss] = []
    for rule in ALL_RULES:
        if rule.target != "text":
            continue
        best: tuple[float, list[str]] | None = None
        for alternative in _alternatives(rule):
            score = sum(1 for w in alternative if w in words) / len(alternative)
            if len(alternative) == 1:  # one shared word says little: the rule's structure did not match
                score /= 2
            if best is None or score > best[0]:
                best = (score, alternative)
        if best is not None and best[0] >= threshold:
            score, alternative = best
            found.append(
                NearMiss(
                    rule=rule.name,
                    code=rule.code,
                    score=round(score, 2),
                    closest=" ".join(alternative),
                    missing=[w for w in alternative if w not in words],
                )
            )
    found.sort(key=lambda m: (-m.score, m.rule))
    return found[:limit]


def explain_error(
    signal: FailureSignal,
    now: datetime,
    *,
    other_provider_eligible: bool = True,
    context: RoutingContext = RoutingContext.office,
) -> ErrorReport:
    """Classify `signal` and decide it as the first failure of an office run."""
    result = classify(signal, now)
    ev = evaluate(signal, now)
    decision = decide(
        result,
        context,
        RunState(attempts=1, max_attempts=8, other_candidate_eligible=other_provider_eligible),
        rand=0.5,
    )
    losers = sorted((c for c in ev.candidates if c.rule != result.rule), key=lambda c: c.rank, reverse=True)
    misses = near_misses(ev.text or signal.body or "") if result.code is ErrorCode.unknown else []
    return ErrorReport(
        code=result.code,
        error_class=result.error_class,
        confidence=result.confidence,
        rule=result.rule,
        catalogue=result.catalogue,
        decided_by=list(learned_words(signal)) if is_learned(result) else [],
        excerpt=result.excerpt,
        status=ev.status,
        status_in_text=ev.status_in_text,
        retry_after_s=result.retry_after_s,
        decision=decision.kind.value,
        reason=decision.reason,
        delay_s=decision.delay_s,
        park_reason=decision.park_reason.value if decision.park_reason else None,
        health=decision.health.model_dump(mode="json") if decision.health else None,
        also_matched=[Considered(rule=c.rule, code=c.code, confidence=c.confidence) for c in losers],
        near_misses=misses,
        classification=result,
        decision_detail=decision,
    )
