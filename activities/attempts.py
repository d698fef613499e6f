"""Writing an attempt and its health evidence; used by the workflow's record step and by a session that
succeeded (which records its own success so a happy path needs no extra step). Health is written for the
attempt's provider identity (routing.identity.provider_key), never for its name alone; a store outage is
waited out (activities.bookkeeping), never recorded as the provider's."""

from datetime import datetime, timedelta
from typing import Any

from activities import bookkeeping, metrics
from activities.bookkeeping import clean_row, store_retrying
from contracts.activities import AttemptRecord, SessionTurnOutput
from routing.codes import ErrorCode
from routing.decider import DecisionKind, HealthState
from routing.identity import provider_key
from routing.run import AttemptOutcome, Candidate
from routing.usage import Usage
from store.repository import Store
from store.rows import TurnClose, utcnow


def succeeded(
    run_id: str,
    seq: int,
    cand: Candidate,
    model: str | None,
    started_at: datetime,
    spent: tuple[Usage | None, float | None] = (None, None),
    workspace: str | None = None,
    agent: str | None = None,
) -> AttemptRecord:
    """The attempt row of a turn that was answered (recorded with the answer, in one transaction); `spent`: the
    answer's usage and its cost."""
    return AttemptRecord(
        run_id=run_id,
        seq=seq,
        candidate=cand,
        effective_model=model,
        outcome=AttemptOutcome.succeeded,
        started_at=started_at,
        finished_at=utcnow(),
        usage=spent[0],
        cost_usd=spent[1],
        workspace=workspace,
        agent=agent,
    )


async def store_attempt(store: Store, rec: AttemptRecord) -> None:
    """Idempotent on (run, seq): an activity retry never adds a second row or a second health step."""
    failure, decision = rec.failure, rec.decision
    row = clean_row(attempt_row(rec))
    lost = failure is not None and failure.code is ErrorCode.worker_lost
    inserted = await store_retrying(
        lambda: store.record_attempt(row, supersede_success=lost), f"recording attempt {rec.seq} of {rec.run_id}"
    )
    if not inserted:
        return
    count(rec)
    provider, key = rec.candidate.provider, provider_key(rec.candidate.profile)
    if rec.outcome is AttemptOutcome.succeeded:
        await store_retrying(
            lambda: store.restore_health(provider, rec.effective_model, rec.run_id, key=key),
            f"restoring the health of {provider}",
        )
        return
    if decision is None or decision.health is None:
        return
    effect = decision.health
    retry_at = rec.finished_at + timedelta(seconds=effect.retry_after_s) if effect.retry_after_s else None
    if effect.state is HealthState.user_action_required:
        retry_at = None  # no timer: it waits for the user
    model = (rec.effective_model or rec.candidate.requested_model) if effect.model_scoped else None
    code = failure.code.value if failure else None
    await store_retrying(
        lambda: store.set_health(
            provider, model, effect.state, retry_at, code, rec.run_id, key=key, observed_at=rec.finished_at
        ),
        f"recording the health of {provider}",
    )


def attempt_row(rec: AttemptRecord) -> dict[str, Any]:
    failure, decision = rec.failure, rec.decision
    return {
        "run_id": rec.run_id,
        "seq": rec.seq,
        "provider": rec.candidate.provider,
        "provider_key": provider_key(rec.candidate.profile),
        "execution_profile": rec.candidate.execution_profile,
        "requested_model": rec.candidate.requested_model,
        "effective_model": rec.effective_model,
        "outcome": rec.outcome,
        "code": failure.code.value if failure else None,
        "confidence": failure.confidence if failure else None,
        "phase": failure.phase.value if failure else None,
        "rule": failure.rule if failure else None,
        "excerpt": failure.excerpt if failure else None,
        "retry_after_s": failure.retry_after_s if failure else None,
        "catalogue": (failure.catalogue or None) if failure else None,
        "decision": decision.kind.value if decision else None,
        "started_at": rec.started_at,
        "finished_at": rec.finished_at,
        "workspace": rec.workspace,
        "agent": rec.agent,
        "input_tokens": rec.usage.input_tokens if rec.usage else None,
        "output_tokens": rec.usage.output_tokens if rec.usage else None,
        "cache_read_tokens": rec.usage.cache_read_tokens if rec.usage else None,
        "cache_write_tokens": rec.usage.cache_write_tokens if rec.usage else None,
        "cost_usd": rec.cost_usd,
    }


def count(rec: AttemptRecord) -> None:
    attrs = {"provider": rec.candidate.provider}
    count_usage(rec)
    if rec.outcome is AttemptOutcome.succeeded:
        metrics.runs.add(1, attrs | {"outcome": "completed"})
        return
    code = rec.failure.code.value if rec.failure else "unknown"
    kind = rec.decision.kind if rec.decision else DecisionKind.fail
    if kind is DecisionKind.fallback:
        metrics.fallbacks.add(1, attrs | {"code": code})
    elif kind is DecisionKind.short_retry:
        metrics.retries.add(1, attrs | {"code": code})
    elif kind in (DecisionKind.park, DecisionKind.wait):
        reason = rec.decision.park_reason.value if rec.decision and rec.decision.park_reason else "wait"
        metrics.parks.add(1, attrs | {"reason": reason})
    else:
        metrics.runs.add(1, attrs | {"outcome": "failed", "code": code})


def count_usage(rec: AttemptRecord) -> None:
    """The attempt's tokens by kind and its cost, by provider and model (only what the executor reported)."""
    if rec.usage is None:
        return
    attrs = {"provider": rec.candidate.provider, "model": rec.effective_model or rec.candidate.requested_model}
    usage = rec.usage
    for kind, tokens in (
        ("input", usage.uncached_input_tokens),
        ("cache_read", usage.cache_read_tokens),
        ("cache_write", usage.cache_write_tokens),
        ("output", usage.output_tokens),
    ):
        if tokens:
            metrics.tokens.add(tokens, attrs | {"kind": kind})
    if rec.cost_usd is not None:
        metrics.cost.add(rec.cost_usd, attrs)


async def close_answered(store: Store, turn: SessionTurnOutput, record: AttemptRecord) -> SessionTurnOutput:
    """Every executor's end of an answered turn: its answer and succeeded attempt row written together (the
    provider's health restored), counted once, and the turn as the run keeps it (`bookkeeping.as_stored`). The
    answer is in hand: a store outage is waited out, and the answer is carried in the failure if it lasts."""
    out = turn.output
    close = TurnClose(
        record.run_id, out.transcript_seq, out.text, record.candidate.provider, attempt_row(record),
        record.effective_model,
    )  # fmt: skip
    closed = await bookkeeping.close_turn(store, close, held=turn.model_dump(mode="json"))
    if closed.inserted:
        count(record)
    return bookkeeping.as_stored(turn, closed)
