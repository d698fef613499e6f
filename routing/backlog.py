"""Run ceilings: who holds a slot of a scope (a workspace, an agent profile, a provider key) and who waits, and
which waiting run gets the next free slot. Pure: the gate workflow (workflows/gate.py) keeps this state and asks
`next_grant`; nothing here reads a clock or the world.

Order of the backlog: priority class first (interactive, then default, then batch), a batch run that has waited
longer than `promote_after_s` counting as default (never as interactive); within a class, the workspace holding
the fewest slots of the scope first (fairness between workspaces sharing a provider's seats; a workspace's own
gate holds one workspace only), then submission order (the run's workflow start time), then arrival at the gate.
"""

import heapq
from datetime import datetime
from enum import StrEnum

from pydantic import BaseModel, Field

PROMOTE_AFTER_S = 15 * 60.0  # a batch run waiting longer than this is served as a default one
CHECK_EVERY_S = 30.0  # while runs wait behind a full gate, how often it asks whether its holders still run
GATE_PREFIX = "office-gate"


class RunPriority(StrEnum):
    interactive = "interactive"  # a person is waiting for it
    default = "default"
    batch = "batch"  # scheduled and bulk work: yields to the others


RANK = {RunPriority.interactive: 0, RunPriority.default: 1, RunPriority.batch: 2}
# Temporal's priority key (1 is served first, 3 is the server's default, 5 last) for the run's workflow and its
# activities, so tasks backlogged in a task queue follow the same classes.
PRIORITY_KEY = {RunPriority.interactive: 1, RunPriority.default: 3, RunPriority.batch: 5}


class ScopeKind(StrEnum):
    workspace = "workspace"  # max_concurrent_runs of a workspace: held for the whole run
    agent = "agent"  # max_concurrent_sessions of an agent profile: held for the whole run
    provider = "provider"  # max_concurrent_sessions of a provider key: held while the run's attempts use it


def gate_id(kind: ScopeKind, name: str) -> str:
    """The gate workflow's id: one gate per scope, whichever worker or workspace asks."""
    return f"{GATE_PREFIX}:{kind.value}:{name}"


class QueueView(BaseModel):
    """What a run shows of the ceiling it waited for: the gate, when it asked, when it got its slot."""

    gate: str  # the gate workflow's id (its scope)
    priority: RunPriority
    queued_at: datetime
    granted_at: datetime | None = None
    grant: int | None = None  # the grant's sequence number at the gate (tests and benches read the order)
    arrival: int | None = None  # the run's ask was the gate's arrival-th (from 0)
    asks_at_grant: int | None = None  # asks the gate had received when it granted this run
    position: int | None = None  # filled by `office runs show` while the run waits (1: served next)


class Waiting(BaseModel):
    """A run waiting for a slot of the gate's scope."""

    run_id: str
    workspace: str
    priority: RunPriority = RunPriority.default
    limit: int = Field(ge=1)  # the ceiling the run's configuration states: it starts only below it
    submitted_at: datetime  # the run's workflow start time
    seq: int = 0  # arrival at the gate: the last tie-break
    # Asked by its submitter while the run waits in a start delay, before any task of its own: its grant must
    # wake it (signal-with-start; a plain signal leaves a delayed workflow asleep).
    wake: bool = False


class GateAsk(BaseModel):
    """A run asks a gate for a slot (signal-with-start: the gate starts with the first ask)."""

    gate: str
    waiting: Waiting
    promote_after_s: float = PROMOTE_AFTER_S


class GateGrant(BaseModel):
    """The gate's answer to a waiting run: its slot of `gate` is granted (the `grant`-th of the gate's life)."""

    gate: str
    grant: int
    arrival: int = 0
    asks_at_grant: int = 0


class HeldGates(BaseModel):
    """A run's side of its gates, carried when the run continues as new: the gates it asked (waiting or holding,
    in order), the provider gate of its current candidate, and the grants it has."""

    held: list[str] = Field(default_factory=list)
    provider: str | None = None
    granted: dict[str, GateGrant] = Field(default_factory=dict)


class GateWake(BaseModel):
    """A grant for a run its submitter asked for (Waiting.wake): it wakes the run from its start delay."""

    run_id: str
    grant: GateGrant


class Holder(BaseModel):
    run_id: str
    workspace: str
    since: datetime
    grant: int = 0  # the grant's sequence number at the gate
    arrival: int = 0  # its ask's arrival at the gate
    asks_at_grant: int = 0  # the gate's asks received when it was granted
    wake: bool = False  # its grant wakes the run from its start delay (Waiting.wake)


class GateState(BaseModel):
    """The whole of a gate: carried over `continue_as_new`, and the answer of its `snapshot` query."""

    scope: str
    holders: list[Holder] = Field(default_factory=list)
    backlog: list[Waiting] = Field(default_factory=list)
    next_seq: int = 0
    granted: int = 0  # slots granted over the gate's life: the grant's sequence number
    promote_after_s: float = PROMOTE_AFTER_S
    check_every_s: float = CHECK_EVERY_S
    history_bound: int = 10_000  # events: then the gate continues as new with this state


def effective_priority(w: Waiting, now: datetime, promote_after_s: float) -> RunPriority:
    """A batch run that has waited longer than the bound is served as default; nothing is promoted further."""
    if w.priority is RunPriority.batch and (now - w.submitted_at).total_seconds() > promote_after_s:
        return RunPriority.default
    return w.priority


def ordered(
    backlog: list[Waiting], holders: list[Holder], now: datetime, promote_after_s: float = PROMOTE_AFTER_S
) -> list[Waiting]:
    """The backlog in the order slots go to it, if they freed now and the holders stayed as they are: class by
    class, the workspace holding fewest next (each grant counts), each workspace's runs in submission order."""
    held: dict[str, int] = {}
    for h in holders:
        held[h.workspace] = held.get(h.workspace, 0) + 1
    by_class: dict[int, dict[str, list[Waiting]]] = {}
    for w in backlog:
        rank = RANK[effective_priority(w, now, promote_after_s)]
        by_class.setdefault(rank, {}).setdefault(w.workspace, []).append(w)
    out: list[Waiting] = []
    for rank in sorted(by_class):
        queues = {
            ws: sorted(runs, key=lambda w: (w.submitted_at, w.seq), reverse=True) for ws, runs in by_class[rank].items()
        }
        heads = [(held.get(ws, 0), q[-1].submitted_at, q[-1].seq, ws) for ws, q in queues.items()]
        heapq.heapify(heads)
        while heads:
            _, _, _, ws = heapq.heappop(heads)
            out.append(queues[ws].pop())
            held[ws] = held.get(ws, 0) + 1
            if queues[ws]:
                heapq.heappush(heads, (held[ws], queues[ws][-1].submitted_at, queues[ws][-1].seq, ws))
    return out


def _key(w: Waiting, held: dict[str, int], now: datetime, promote_after_s: float) -> tuple[int, int, datetime, int]:
    return (RANK[effective_priority(w, now, promote_after_s)], held.get(w.workspace, 0), w.submitted_at, w.seq)


def next_grant(state: GateState, now: datetime) -> Waiting | None:
    """The waiting run that gets a slot now, or None: the backlog is empty, or its first run's ceiling is reached
    (a run never overtakes the one before it in order, so a run with a lower ceiling is not starved)."""
    if not state.backlog:
        return None
    held: dict[str, int] = {}
    for h in state.holders:
        held[h.workspace] = held.get(h.workspace, 0) + 1
    first = min(state.backlog, key=lambda w: _key(w, held, now, state.promote_after_s))
    return first if len(state.holders) < first.limit else None


def grant(state: GateState, now: datetime) -> list[Holder]:
    """Moves every run that fits from the backlog to the holders, in order; returns the new holders."""
    out: list[Holder] = []
    while (w := next_grant(state, now)) is not None:
        state.backlog.remove(w)
        state.granted += 1
        out.append(
            Holder(
                run_id=w.run_id,
                workspace=w.workspace,
                since=now,
                grant=state.granted,
                arrival=w.seq,
                asks_at_grant=state.next_seq,
                wake=w.wake,
            )
        )
        state.holders.append(out[-1])
    return out


def position(state: GateState, run_id: str, now: datetime) -> int | None:
    """1 for the run served next; None when it does not wait here."""
    for i, w in enumerate(ordered(state.backlog, state.holders, now, state.promote_after_s), 1):
        if w.run_id == run_id:
            return i
    return None


def enqueue(state: GateState, w: Waiting) -> bool:
    """A run asks: queued once (asking again while waiting or holding changes nothing). True when it holds already
    (its grant must be sent again: the first one may have been lost with a crashed worker's task)."""
    if any(h.run_id == w.run_id for h in state.holders):
        return True
    if all(b.run_id != w.run_id for b in state.backlog):
        state.backlog.append(w.model_copy(update={"seq": state.next_seq}))
        state.next_seq += 1
    return False


def release(state: GateState, run_id: str) -> bool:
    """The run ended (or vanished): its slot, or its place in the backlog, is free. True when anything changed."""
    before = len(state.holders) + len(state.backlog)
    state.holders = [h for h in state.holders if h.run_id != run_id]
    state.backlog = [b for b in state.backlog if b.run_id != run_id]
    return len(state.holders) + len(state.backlog) != before
