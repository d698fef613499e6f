"""The run's bookkeeping against the store (transcript, attempts, provider health, admission) when the store is
not there: a store fault is infrastructure, never the provider's.

`store_retrying(op, what)` runs a store call and, while it fails because the database is unreachable or dropped
the connection (a restart, a failover, `pg_terminate_backend`, a network cut), retries it with capped, jittered
exponential backoff, heartbeating `{"waiting_for": "store", …}` so the pending activity shows what it waits for
in the Temporal UI and `office watch`. It never lets such an error reach the routing classifier: it never counts
as a provider attempt and never marks provider health. Past a bound safely under the activity's start-to-close
timeout it raises a *retryable* `ApplicationError(type="StoreUnavailable")`, which the workflow treats as
"wait and run the same attempt again, uncounted".

A database error that is not an outage (a value PostgreSQL refuses, such as a NUL byte in text or a value too
long for its column) is not retried: it raises a non-retryable `StoreRejected` naming what was being written,
without the SQL. Text that reaches the store from outside the run's own input (a provider's answer, an error
excerpt) is cleaned of NUL bytes here, so both backends store the same thing; prompts with NUL bytes are
refused at submit (routing.run.RunRequest).

Every write retried here is idempotent (insert-if-absent on its primary key: (run, seq) for transcript
entries, (run, attempt seq) for attempts), so a retry after a commit whose acknowledgement was lost adds
nothing.
"""

import asyncio
import dataclasses
import logging
import random
import time
from collections.abc import Awaitable, Callable, Iterator
from datetime import UTC, datetime
from typing import Any, TypeVar

from sqlalchemy import exc as sa_exc
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import metrics
from activities.heartbeat import beat, beat_interval_s, heartbeating
from contracts import failures
from contracts.activities import SessionTurnOutput
from store.repository import Store
from store.rows import Closed, TurnClose
from store.tables import TranscriptEntryRow

log = logging.getLogger(__name__)
T = TypeVar("T")


FIRST_DELAY_S = 0.1
MAX_DELAY_S = 5.0
DEFAULT_BOUND_S = 60.0  # outside an activity, or an activity without a start-to-close timeout
# SQLSTATE classes that mean "the database is not there right now", not "this data is wrong": connection
# exception, insufficient resources (too many connections), operator intervention (shutdown, terminated
# backend, cannot connect now), system error (I/O), transaction rollback (serialization failure, deadlock).
OUTAGE_SQLSTATE = ("08", "53", "57", "58", "40")
DATA_SQLSTATE = ("22", "23")  # data exception (NUL byte, value too long, …), integrity constraint violation


def _chain(err: BaseException) -> Iterator[BaseException]:
    """The error, what SQLAlchemy wrapped (`.orig`), and its causes: where the driver's own error is."""
    seen: set[int] = set()
    todo: list[BaseException | None] = [err]
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        yield e
        todo += [getattr(e, "orig", None), e.__cause__, e.__context__]


def _sqlstate(err: BaseException) -> str | None:
    for e in _chain(err):
        code = getattr(e, "sqlstate", None) or getattr(e, "pgcode", None)
        if isinstance(code, str) and len(code) == 5:
            return code
    return None


def is_outage(err: BaseException) -> bool:
    """The database is unreachable, restarting, or dropped this connection: worth waiting for."""
    if isinstance(err, ApplicationError):
        return False
    if any(isinstance(e, sa_exc.DBAPIError) and e.connection_invalidated for e in _chain(err)):
        return True
    state = _sqlstate(err)
    if state is not None:
        return state[:2] in OUTAGE_SQLSTATE
    for e in _chain(err):
        if isinstance(e, sa_exc.TimeoutError):  # no pooled connection came free in time
            return True
        if isinstance(e, sa_exc.InterfaceError):
            return True
        if isinstance(e, sa_exc.OperationalError):
            # SQLite: locked or unreadable database file is an outage; a missing table or column is not.
            return not str(e.orig).startswith("no such")
        if isinstance(e, OSError | TimeoutError | ConnectionError):  # refused, reset, unreachable, timed out
            return True
        if type(e).__module__.startswith("asyncpg") and type(e).__name__ in {
            "ConnectionDoesNotExistError",
            "InterfaceError",
            "InternalClientError",
        }:
            return True
        if type(e).__name__ == "PostgresConnectionError":
            return True
    return False


def is_store_error(err: BaseException) -> bool:
    return any(isinstance(e, sa_exc.SQLAlchemyError) or type(e).__module__.startswith("asyncpg") for e in _chain(err))


def describe(err: BaseException) -> str:
    """One short line naming the driver's error, never the statement or its parameters."""
    inner = err
    for e in _chain(err):
        if not isinstance(e, sa_exc.SQLAlchemyError):
            inner = e
            break
    text = str(inner).split("\n", 1)[0].split("[SQL:", 1)[0].strip()
    state = _sqlstate(err)
    name = type(inner).__name__
    return f"{name}{f' ({state})' if state else ''}: {text[:160]}" if text else name


def clean_text(text: str) -> str:
    """PostgreSQL text cannot hold NUL; SQLite can. Both store U+FFFD instead, so both backends agree."""
    return text.replace("\x00", "\ufffd")


def clean_row(values: dict[str, Any]) -> dict[str, Any]:
    return {k: clean_text(v) if isinstance(v, str) else v for k, v in values.items()}


def store_unavailable(
    what: str, err: BaseException, waited_s: float, held: dict[str, Any] | None = None
) -> ApplicationError:
    """Retryable: infrastructure, not the provider's. `held` is an answer the provider already gave, carried
    so the next try records it instead of asking the provider again."""
    details: dict[str, Any] = {"waiting_for": "store", "what": what, "waited_s": round(waited_s, 1)}
    if held is not None:
        details["held"] = held
    return failures.store_unavailable(
        f"the store is unavailable ({describe(err)}) while {what}; waited {waited_s:.0f} s, the run waits for it",
        details,
    )


def store_rejected(what: str, err: BaseException) -> ApplicationError:
    return failures.store_rejected(f"the store refused the data while {what}: {describe(err)}", what)


def _deadline(bound_s: float | None) -> float:
    """Seconds this wait may last: `bound_s`, else what is left of the activity's start-to-close timeout less
    a margin (so the activity fails with a clear StoreUnavailable, not a timeout), else DEFAULT_BOUND_S."""
    if bound_s is not None:
        return bound_s
    if not activity.in_activity():
        return DEFAULT_BOUND_S
    info = activity.info()
    limit = info.start_to_close_timeout or info.schedule_to_close_timeout
    if not limit:
        return DEFAULT_BOUND_S
    margin = max(3.0, min(30.0, 0.15 * limit.total_seconds()))
    elapsed = (datetime.now(UTC) - info.started_time).total_seconds()
    return max(0.0, limit.total_seconds() - margin - elapsed)


async def _alive(op: Callable[[], Awaitable[T]]) -> T:
    """`await op()`, heartbeating (no details) while it takes longer than a beat: a store call that hangs (a
    black-holed connection, a slow reconnect) must not look like a lost worker, which the workflow would
    classify as the provider's timeout."""
    if not activity.in_activity() or activity.info().is_local or not (hb := activity.info().heartbeat_timeout):
        return await op()
    # A timer, not a task: most store calls finish long before the first beat, and this runs on every one.
    loop, every_s = asyncio.get_running_loop(), beat_interval_s(hb.total_seconds())
    timers: list[asyncio.TimerHandle] = []

    def tick() -> None:
        activity.heartbeat()
        timers[0] = loop.call_later(every_s, tick)

    timers.append(loop.call_later(every_s, tick))
    try:
        return await op()
    finally:
        timers[0].cancel()


async def store_retrying(
    op: Callable[[], Awaitable[T]], what: str, *, bound_s: float | None = None, held: dict[str, Any] | None = None
) -> T:
    """`await op()`, retried while the store is out (see the module notes). `what` says what was being done
    ("recording the answer of turn 1"), for the heartbeat and the error. `held`: an answer the provider gave,
    returned to the workflow in the StoreUnavailable failure if the bound passes."""
    try:
        return await _alive(op)
    except Exception as err:
        if not is_outage(err):
            if is_store_error(err) and not isinstance(err, ApplicationError):
                raise store_rejected(what, err) from None
            raise
        first = err
    started = time.monotonic()
    limit = _deadline(bound_s)
    state: dict[str, Any] = {
        "waiting_for": "store",
        "what": what,
        "since": datetime.now(UTC).isoformat(timespec="seconds"),
        "retries": 0,
        "last_error": describe(first),
    }
    log.warning("store unavailable while %s (%s); retrying for up to %.0f s", what, state["last_error"], limit)
    metrics.store_waits.add(1, {"what": what.split(" ", 1)[0]})
    attempt = 0
    async with heartbeating(lambda: state):
        while True:
            waited = time.monotonic() - started
            delay = random.uniform(0, min(MAX_DELAY_S, FIRST_DELAY_S * 2**attempt))  # full jitter
            if waited + delay >= limit:
                raise store_unavailable(what, first, waited, held)
            await asyncio.sleep(delay)
            attempt += 1
            state["retries"] = attempt
            try:
                result = await op()
            except Exception as err:
                if not is_outage(err):
                    if is_store_error(err) and not isinstance(err, ApplicationError):
                        raise store_rejected(what, err) from None
                    raise
                first = err
                state["last_error"] = describe(err)
                continue
            log.info("store back after %.1f s while %s (%d retries)", time.monotonic() - started, what, attempt)
            beat({"waiting_for": None, "what": what, "retries": attempt})
            return result


# --- the turn's transcript, on every executor ------------------------------------------------------------------
async def open_turn(store: Store, run_id: str, user_seq: int, text: str) -> list[TranscriptEntryRow]:
    """The turn's user message (insert-if-absent on (run, seq)) and the run's snapshot up to it."""
    return await store_retrying(
        lambda: store.open_turn(run_id, user_seq, clean_text(text)), f"opening turn {user_seq // 2 + 1} of {run_id}"
    )


async def close_turn(store: Store, close: TurnClose, held: dict[str, Any] | None = None) -> Closed:
    """The succeeded attempt (insert-if-absent on (run, attempt seq)), the answer (on (run, seq), only with a
    new attempt row) and the provider's restored health, in one transaction, retried while the store is out.
    The answer is already in hand: it is never asked of the provider again. See `Store.close_turn`."""
    return await store_retrying(
        lambda: store.close_turn(
            dataclasses.replace(close, answer=clean_text(close.answer), attempt=clean_row(close.attempt))
        ),
        f"recording the answer of turn {close.seq // 2} of {close.run_id}",
        held=held,
    )


def as_stored(turn: SessionTurnOutput, closed: Closed) -> SessionTurnOutput:
    """The turn as the run keeps it: with the answer its transcript holds (a lost attempt's, when that got in
    first), so what the run shows is what its next turn is sent."""
    if closed.answer == turn.output.text:
        return turn
    return turn.model_copy(update={"output": turn.output.model_copy(update={"text": closed.answer})})
