"""One admission and failure-accounting place for every executor (OpenAI-compatible and ACP), keyed per provider.

Before a provider call, `admit` asks the provider key's shared breaker, probe lease, retry budget and pacer
(routing.capacity, applied by the store in one locked transaction); a refusal raises the typed `circuit_open`
failure, a wait (a Retry-After floor, a pacing slot) is waited out here, heartbeating. After the call, a
classified failure is noted at once with `note_failure` (or `accounted` around the call), so the shared window
learns of it without a workflow round trip. A success is noted by `Store.close_turn`, which every executor's
turn already calls: the answer, the attempt row and the provider's restored health commit together.

Keyed by the provider's identity (routing.identity.provider_key: kind, endpoint, credential reference), so two
workspaces' providers of the same name never share a breaker unless they are the same endpoint and key. The
store calls here wait out a store outage (activities.bookkeeping): an outage is never a provider failure.

Also the provider call's envelope both executors share: the typed failure and the heartbeat while waiting."""

import asyncio
import contextlib
import functools
import logging
from collections.abc import AsyncIterator
from datetime import datetime

from temporalio.exceptions import ApplicationError

from activities import metrics
from activities.bookkeeping import store_retrying
from activities.heartbeat import heartbeating
from contracts.failures import STORE_REJECTED, STORE_UNAVAILABLE, provider_failure, provider_failure_of
from routing.capacity import CAPACITY_SIGNALS, Admission, CallRequest
from routing.classifier import Classification, is_guess
from routing.codes import ErrorClass, ErrorCode, Phase
from routing.identity import provider_key
from routing.run import Candidate
from store.repository import Store
from store.rows import TurnOpening, utcnow
from store.tables import TranscriptEntryRow

log = logging.getLogger(__name__)
ASK_AHEAD_S = 0.25  # a paced caller re-asks this long before its slot, so the answer never delays the call
NOTE_BOUND_S = 30.0  # how long a failed call waits for the store to count its failure before reporting it


def refusal(cand: Candidate, admission: Admission, phase: Phase = Phase.session_start) -> ApplicationError:
    """Not called: the breaker is open, its probe is in flight, the retry budget is spent or the pacing
    backlog is too long. Transient with a retry-after, so the decider moves on or waits; it never queues."""
    rule = admission.rule or "breaker"
    return provider_failure(
        Classification(
            code=ErrorCode.circuit_open,
            error_class=ErrorClass.transient,
            confidence=1.0,
            phase=phase,
            rule=rule,
            provider=cand.provider,
            retry_after_s=admission.retry_after_s,
            excerpt=f"not called: {rule}",
        )
    )


async def admit(
    store: Store, run_id: str, cand: Candidate, is_retry: bool = False, phase: Phase = Phase.session_start
) -> Admission:
    """Before a provider call: admitted (maybe as the half-open probe, maybe after waiting for its slot here)
    or refused with the `circuit_open` failure. `is_retry`: the call repeats a failed one on the same route
    and spends the provider key's shared retry budget."""
    admission, _ = await admit_and_open(store, run_id, cand, is_retry, phase)
    return admission


async def admit_and_open(
    store: Store,
    run_id: str,
    cand: Candidate,
    is_retry: bool = False,
    phase: Phase = Phase.session_start,
    opening: TurnOpening | None = None,
) -> tuple[Admission, list[TranscriptEntryRow] | None]:
    """`admit`, and with `opening`, the turn's user message and snapshot read in the admission's own
    transaction when the call may go (else None: open the turn yourself)."""
    key, reserved_at, slot_at, probe = provider_key(cand.profile), None, None, False
    quota = cand.profile.requests_per_minute
    while True:
        asked_at = utcnow()
        request = CallRequest(run_id, is_retry, quota, reserved_at)
        admission, snapshot = await store_retrying(
            functools.partial(store.admit_and_open, cand.provider, request, opening, key=key),
            f"admitting a call to {cand.provider}",
        )
        if not admission.allowed:
            metrics.refusals.add(1, {"provider": cand.provider, "rule": admission.rule or "breaker"})
            raise refusal(cand, admission, phase)
        probe = probe or admission.probe
        stands = reserved_at is not None and admission.wait_s <= 0  # the slot given before still stands
        slot_at = slot_at if stands else admission.slot_at
        left_s = ((slot_at or asked_at) - utcnow()).total_seconds()
        if left_s > 0 and stands:  # asked ahead of the slot: the store's answer is off the call's path
            async with heartbeating():
                await asyncio.sleep(left_s)
        if admission.wait_s <= 0:
            return admission.model_copy(update={"probe": probe, "slot_at": slot_at or asked_at}), snapshot
        # A Retry-After floor on this provider key, or the pacer's slot: wait, then ask (a little ahead of the
        # slot) whether it still stands: a 429 meanwhile voids it (the rate was too high; paced anew).
        async with heartbeating():
            await asyncio.sleep(max(0.0, admission.wait_s - ASK_AHEAD_S))
        reserved_at = asked_at


def failure_code(err: BaseException) -> str | None:
    """The classified code of a provider failure raised by `provider_failure`; None for anything else."""
    failure = provider_failure_of(err)
    return failure.code.value if failure else None


async def note_failure(
    store: Store, run_id: str, cand: Candidate, err: BaseException, admitted_at: datetime | None = None
) -> bool:
    """After a failed call, at once: a classified provider failure counts in the provider key's shared window
    (refusals do not) and may open its breaker; a failed half-open probe re-opens it; a rate or quota limit
    teaches the provider key's rate and sets its Retry-After floor instead.
    Returns True when this failure opened the breaker. Infrastructure errors never count. If the store stays
    out longer than NOTE_BOUND_S the count is skipped (logged): the provider's failure still reaches the
    workflow, which records the attempt and its health evidence itself."""
    failure = provider_failure_of(err)
    if failure is None:
        return False
    code, key = failure.code.value, provider_key(cand.profile)
    retry_after_s, limit_rpm = failure.retry_after_s, failure.limit_rpm
    if is_guess(failure):  # a guess, or unvouched words: one failure in the window, never the key's rate or a floor
        code = ErrorCode.unknown.value if code in CAPACITY_SIGNALS else code
        retry_after_s = limit_rpm = None
    try:
        opened = await store_retrying(
            lambda: store.note_failure(
                cand.provider,
                code,
                run_id,
                key=key,
                retry_after_s=retry_after_s,
                limit_rpm=limit_rpm,
                admitted_at=admitted_at,
            ),
            f"counting a failure of {cand.provider}",
            bound_s=NOTE_BOUND_S,
        )
    except ApplicationError as store_err:
        if store_err.type not in (STORE_UNAVAILABLE, STORE_REJECTED):
            raise
        log.warning("failure of %s (%s, run %s) not counted: %s", cand.provider, code, run_id, store_err.message)
        return False
    if opened:
        metrics.breaker_opened.add(1, {"provider": cand.provider, "code": code})
        log.info("breaker for %s opened by %s (run %s)", cand.provider, code, run_id)
    return opened


async def note_stated_rate(store: Store, cand: Candidate, admission: Admission, limit_rpm: float | None) -> None:
    """An answer's rate-limit headers stated a request limit the provider key's row does not hold yet: note it
    (a write only when it changed, so a happy turn costs no extra round trip). A declared quota wins anyway."""
    if limit_rpm is None or cand.profile.requests_per_minute or limit_rpm == admission.learned_rpm:
        return
    key = provider_key(cand.profile)
    try:
        await store_retrying(
            lambda: store.note_rate(cand.provider, limit_rpm, key=key),
            f"noting the rate limit of {cand.provider}",
            bound_s=NOTE_BOUND_S,
        )
    except ApplicationError as store_err:
        if store_err.type not in (STORE_UNAVAILABLE, STORE_REJECTED):
            raise
        log.warning("rate limit of %s not noted: %s", cand.provider, store_err.message)


@contextlib.asynccontextmanager
async def accounted(
    store: Store, run_id: str, cand: Candidate, admission: Admission | None = None
) -> AsyncIterator[None]:
    """Around a provider call: a classified failure raised inside is noted before it propagates (with when the
    call was admitted, so a 429 of a call paced at an older rate does not cut the learned one again)."""
    try:
        yield
    except ApplicationError as err:
        await note_failure(store, run_id, cand, err, admission.slot_at if admission else None)
        raise
