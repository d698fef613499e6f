"""Ceilings: one gate workflow per scope (a workspace's `max_concurrent_runs`, an agent profile's or a provider key's
`max_concurrent_sessions`) holds who has a slot and who waits; `RunGates` is the run's side of it.

A run over a ceiling asks its gate (a local activity that update-with-starts it): the update's answer is the grant
when a slot is free for it, so a run that does not wait asks and goes on in the same workflow task. Otherwise it
waits on a durable condition (no timer, no polling) until the gate's `gate_granted` signal. It releases in its
`finally` (a local activity that signals the gate, in the run's last workflow task). Gates run on a task queue of
their own (contracts.gate.gate_queue), served by a worker of their own in each worker process: their workflow tasks
never wait for a slot held by a run that waits for their answer. The gate grants in routing.backlog's order. A
holder that vanished without releasing (terminated, timed out, its history lost) is found by the gate itself: while
runs wait behind a full gate, it asks every `check_every_s` which holders still run, and frees the others' slots.
The gate continues as new to bound its history; its whole state (holders, backlog) is its input. A run of a
workspace without ceilings never touches a gate.

Runs recorded before gate-enter-v1 asked by signal-with-start (`gate_ask`, the grant always by signal) and released
by signals from the workflow; a gate still answers those asks, and one started on the runs' own task queue moves to
the gates' at its next continue-as-new (gate-own-queue-v1)."""

import asyncio
import contextlib
from collections.abc import Callable
from datetime import timedelta

from temporalio import workflow
from temporalio.common import RetryPolicy

with workflow.unsafe.imports_passed_through():
    from contracts import gate as stubs
    from routing.backlog import (
        GateAsk,
        GateGrant,
        GateState,
        GateWake,
        HeldGates,
        Holder,
        QueueView,
        ScopeKind,
        Waiting,
        enqueue,
        gate_id,
        grant,
        position,
        release,
    )
    from routing.identity import provider_key
    from routing.run import Candidate, RoutePlan, RunRequest, RunStatus, RunView

# A run asked gates for its ceilings. Asked only where a ceiling applies: runs without ceilings carry no marker.
RUN_CEILINGS = "run-ceilings-v1"  # by signal-with-start, released by signals from the workflow
GATE_ENTER = "gate-enter-v1"  # by update-with-start (granted in the answer), released by a local activity
GATE_OWN_QUEUE = "gate-own-queue-v1"  # a gate on the runs' task queue continues as new on the gates' own
ASKED_AT_SUBMISSION = "gate-asked-at-submission-v1"  # its submitter asked the workspace's gate (a start delay)
LOCAL = timedelta(seconds=30)
STATE_RETRY = RetryPolicy(initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))
STALE_PLAN = timedelta(seconds=60)  # a run that waited longer resolves its route again: health may have changed


@workflow.defn(name=stubs.GATE_WORKFLOW)
class GateWorkflow:
    @workflow.init
    def __init__(self, state: GateState) -> None:
        self._state = state
        self._dirty = True  # grant at start: the state may come with free slots (a continue-as-new)
        self._resend: set[str] = set()
        self._sending = 0  # grant signals on their way: the loop goes on meanwhile, continue-as-new waits for them
        self._checked_at = workflow.now()

    @workflow.signal(name=stubs.ASK_SIGNAL)
    def ask(self, ask: GateAsk) -> None:
        self._state.promote_after_s = ask.promote_after_s
        if enqueue(self._state, ask.waiting):  # a holder asking again lost its grant with a worker: send it again
            self._resend.add(ask.waiting.run_id)
        self._dirty = True

    @workflow.update(name=stubs.ENTER_UPDATE)
    def enter(self, ask: GateAsk) -> GateGrant | None:
        """A run asks: its grant is the answer when a slot is free for it now; else None (it waits, in order, and
        its grant follows by signal). A holder asking again (its worker lost the answer) gets its grant again."""
        self._state.promote_after_s = ask.promote_after_s
        run_id = ask.waiting.run_id
        enqueue(self._state, ask.waiting)
        for h in grant(self._state, workflow.now()):
            if h.run_id != run_id:  # granted ahead of the asker (a slot freed in this task): told by signal
                self._resend.add(h.run_id)
        self._dirty = True  # the loop sends those grants and looks at the history's length
        held = next((h for h in self._state.holders if h.run_id == run_id), None)
        return None if held is None else self._grant_of(held)

    @workflow.signal(name=stubs.RELEASE_SIGNAL)
    def release(self, run_id: str) -> None:
        self._dirty = release(self._state, run_id) or self._dirty

    @workflow.query
    def snapshot(self) -> GateState:
        return self._state

    @workflow.query
    def position(self, run_id: str) -> int | None:
        return position(self._state, run_id, workflow.now())

    @workflow.run
    async def run(self, state: GateState) -> None:
        while True:
            left = self._until_check()
            with contextlib.suppress(asyncio.TimeoutError):
                await workflow.wait_condition(lambda: self._dirty, timeout=left, timeout_summary="holders still run?")
            if (left := self._until_check()) is not None and left <= timedelta(0):
                await self._drop_vanished()
            self._dirty = False
            await self._grant()
            info = workflow.info()
            if info.is_continue_as_new_suggested() or info.get_current_history_length() > self._state.history_bound:
                await workflow.wait_condition(lambda: workflow.all_handlers_finished() and not self._sending)
                queue = workflow.info().task_queue
                if stubs.gate_queue(queue) != queue and workflow.patched(GATE_OWN_QUEUE):
                    workflow.continue_as_new(self._state, task_queue=stubs.gate_queue(queue))
                workflow.continue_as_new(self._state)

    def _until_check(self) -> timedelta | None:
        """Holders are checked only while runs wait behind a full gate (a free slot is granted anyway)."""
        if not self._state.backlog or not self._state.holders:
            self._checked_at = workflow.now()
            return None
        due = self._checked_at + timedelta(seconds=self._state.check_every_s)
        return due - workflow.now()

    async def _drop_vanished(self) -> None:
        holders = [h.run_id for h in self._state.holders]
        gone = await workflow.execute_local_activity(
            stubs.gate_vanished, holders, start_to_close_timeout=LOCAL, retry_policy=STATE_RETRY
        )
        for run_id in gone:
            release(self._state, run_id)
        self._checked_at = workflow.now()

    async def _grant(self) -> None:
        sends = {h.run_id: h for h in grant(self._state, workflow.now())}
        sends |= {h.run_id: h for h in self._state.holders if h.run_id in self._resend}
        self._resend.clear()
        for h in sends.values():  # not awaited here: a release arriving meanwhile is served at once
            self._sending += 1
            asyncio.create_task(self._send(h))  # noqa: RUF006 (the loop waits for `_sending` before continuing as new)

    def _grant_of(self, h: Holder) -> GateGrant:
        return GateGrant(gate=self._state.scope, grant=h.grant, arrival=h.arrival, asks_at_grant=h.asks_at_grant)

    async def _send(self, h: Holder) -> None:
        run_id = h.run_id
        try:
            if h.wake:  # asked at submission: the run sleeps in its start delay, which a plain signal leaves alone
                woken = await workflow.execute_local_activity(
                    stubs.gate_wake, GateWake(run_id=run_id, grant=self._grant_of(h)), start_to_close_timeout=LOCAL,
                    retry_policy=STATE_RETRY,
                )  # fmt: skip
                if not woken:
                    raise LookupError(run_id)
            else:
                await workflow.get_external_workflow_handle(run_id).signal(stubs.GRANTED_SIGNAL, self._grant_of(h))
        except Exception:  # the run is gone (terminated while it waited): its slot goes to the next one
            release(self._state, run_id)
            self._dirty = True
        finally:
            self._sending -= 1


class RunGates:
    """The run's ceilings: asks each gate that applies, waits for its grant (status `queued`), releases at the end."""

    def __init__(self, view: Callable[[], RunView], publish: Callable[[], None]):
        self._view, self._publish = view, publish
        self._granted: dict[str, GateGrant] = {}
        self._held: list[str] = []  # asked (waiting or holding), in order: released in reverse
        self._provider: str | None = None  # the provider gate held for the current candidate
        self._early: dict[str, GateGrant] = {}  # grants that woke the run, before it knew what it had asked

    def state(self) -> HeldGates:
        return HeldGates(held=list(self._held), provider=self._provider, granted=dict(self._granted))

    def restore(self, held: HeldGates) -> None:
        """A run that continued as new keeps its slots: it releases them when it ends, in whichever history."""
        self._held, self._provider, self._granted = list(held.held), held.provider, dict(held.granted)

    def granted(self, grant: GateGrant) -> None:
        if grant.gate in self._held:
            self._granted[grant.gate] = grant
        else:  # the grant that woke a run asked for at submission arrives before the run's code (a signal)
            self._early[grant.gate] = grant

    def asked_at_submission(self, gate: str) -> None:
        """Its submitter asked `gate` for it (RunRequest.asked_gate): held from the start, released at the end,
        and granted if the grant already woke it (else its start delay ended first: it asks again, in order)."""
        workflow.patched(ASKED_AT_SUBMISSION)
        self._held.append(gate)
        if (got := self._early.pop(gate, None)) is not None:
            self._granted[gate] = got
        self._early.clear()  # nothing else was asked: no other grant is this run's

    async def enter(self, req: RunRequest, plan: RoutePlan) -> bool:
        """The workspace's and the agent profile's ceilings, in that order (every run asks in the same order, so
        two runs never hold what the other waits for). True when the run waited long enough to re-resolve."""
        started = workflow.now()
        if plan.max_concurrent_runs:
            await self._acquire(req, gate_id(ScopeKind.workspace, req.workspace), plan.max_concurrent_runs)
        if plan.agent.max_concurrent_sessions:
            await self._acquire(req, gate_id(ScopeKind.agent, plan.agent.name), plan.agent.max_concurrent_sessions)
        return workflow.now() - started > STALE_PLAN

    async def on_provider(self, req: RunRequest, cand: Candidate) -> None:
        """Before an attempt: the provider key's seats, held while the run's attempts stay on that key."""
        limit = cand.profile.max_concurrent_sessions
        gate = gate_id(ScopeKind.provider, provider_key(cand.profile)) if limit else None
        if gate == self._provider:
            return
        if self._provider is not None:
            await self._release([self._provider])
        self._provider = gate
        if gate is not None and limit:
            await self._acquire(req, gate, limit)

    async def leave(self) -> None:
        """The run ended (completed, failed, cancelled while waiting or running): every slot and place is freed."""
        if self._held:
            await self._release(list(reversed(self._held)))

    async def _acquire(self, req: RunRequest, gate: str, limit: int) -> None:
        waiting = Waiting(
            run_id=req.run_id,
            workspace=req.workspace,
            priority=req.priority,
            limit=limit,
            submitted_at=workflow.info().workflow_start_time,
        )
        view = self._view()
        if gate in self._granted:  # asked at submission and granted: it waited (queued) in its start delay
            woke = self._granted[gate]
            view.queue = QueueView(gate=gate, priority=req.priority, queued_at=waiting.submitted_at,
                                   granted_at=workflow.now(), grant=woke.grant, arrival=woke.arrival,
                                   asks_at_grant=woke.asks_at_grant)  # fmt: skip
            view.status = RunStatus.running
            self._publish()
            return
        if gate not in self._held:  # asked at submission, the run woke at its start delay's end: it asks again
            self._held.append(gate)  # before asking: a cancel while queued still removes the run from the backlog
        if not self._by_update():
            await self._acquire_by_signal(req, gate, waiting)
            return
        queued_at = workflow.now()
        got = await workflow.execute_local_activity(
            stubs.gate_enter, GateAsk(gate=gate, waiting=waiting), start_to_close_timeout=LOCAL,
            retry_policy=STATE_RETRY,
        )  # fmt: skip
        if got is not None:  # a free slot, granted in the answer: the run never showed as queued
            self._granted[gate] = got
        else:
            view.queue = QueueView(gate=gate, priority=req.priority, queued_at=queued_at)
            view.status = RunStatus.queued
            self._publish()
            await workflow.wait_condition(lambda: gate in self._granted, timeout_summary=f"queued: {gate}")
            got = self._granted[gate]
        view.queue = QueueView(gate=gate, priority=req.priority, queued_at=queued_at, granted_at=workflow.now(),
                               grant=got.grant, arrival=got.arrival, asks_at_grant=got.asks_at_grant)  # fmt: skip
        view.status = RunStatus.running
        self._publish()

    def _by_update(self) -> bool:
        """Asked once per history (the answer is remembered): runs recorded before gate-enter-v1 asked by
        signal-with-start and released by signals from the workflow."""
        return workflow.patched(GATE_ENTER)

    async def _acquire_by_signal(self, req: RunRequest, gate: str, waiting: Waiting) -> None:
        workflow.patched(RUN_CEILINGS)
        view = self._view()
        view.queue = QueueView(gate=gate, priority=req.priority, queued_at=workflow.now())
        view.status = RunStatus.queued
        self._publish()
        await workflow.execute_local_activity(
            stubs.gate_ask, GateAsk(gate=gate, waiting=waiting), start_to_close_timeout=LOCAL, retry_policy=STATE_RETRY
        )
        await workflow.wait_condition(lambda: gate in self._granted, timeout_summary=f"queued: {gate}")
        got = self._granted[gate]
        view.queue.granted_at, view.queue.grant = workflow.now(), got.grant
        view.queue.arrival, view.queue.asks_at_grant = got.arrival, got.asks_at_grant
        view.status = RunStatus.running
        self._publish()

    async def _release(self, gates: list[str]) -> None:
        for gate in gates:
            self._held.remove(gate)
            self._granted.pop(gate, None)
        if self._by_update():  # one local activity in the run's task: no workflow task waits for its signals
            await workflow.execute_local_activity(
                stubs.gate_release, gates, start_to_close_timeout=LOCAL, retry_policy=STATE_RETRY
            )
            return
        await asyncio.gather(*(self._signal_release(gate) for gate in gates))

    async def _signal_release(self, gate: str) -> None:
        try:
            await workflow.get_external_workflow_handle(gate).signal(stubs.RELEASE_SIGNAL, workflow.info().workflow_id)
        except Exception:  # the gate is gone (an operator terminated it): a new one starts with nobody holding
            workflow.logger.warning("could not release %s: the gate is gone", gate)
