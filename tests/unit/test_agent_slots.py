"""The live agent limit's slot supplier: places are starts in progress plus live agent processes; a process keeps
its place after its start's slot is released, until it exits; a waiting start is woken when a place frees."""

import asyncio
from dataclasses import dataclass, field

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from temporalio.worker import SlotPermit, SlotReleaseContext

from office.agent_slots import AgentSlots
from office.settings import AGENT_BUDGET_MB, WorkerSizing, default_max_live_agents

CTX = None  # the supplier never reads the reservation context


@dataclass
class Held:
    permit: SlotPermit
    started: bool = False  # the start launched its agent process


@dataclass
class Model:
    """What the worker does with the permits: a start launches at most one process, then its slot is released."""

    live: int = 0  # agent processes
    held: list[Held] = field(default_factory=list)
    waiting: list[asyncio.Task] = field(default_factory=list)


async def settle() -> None:
    for _ in range(10):
        await asyncio.sleep(0)


def release(slots: AgentSlots, held: Held) -> None:
    slots.release_slot(SlotReleaseContext(slot_info=None, permit=held.permit))


OPS = st.lists(
    st.tuples(
        st.sampled_from(["reserve", "try", "launch", "release", "release_from_thread", "exit"]), st.integers(0, 9)
    ),
    max_size=60,
)


@settings(max_examples=150, deadline=None)
@given(limit=st.integers(1, 4), ops=OPS)
def test_processes_never_exceed_the_limit_and_a_freed_place_wakes_a_waiting_start(limit, ops):
    async def scenario() -> None:
        m = Model()
        slots = AgentSlots(limit, lambda: m.live)
        for op, i in ops:
            if op == "reserve":
                m.waiting.append(asyncio.create_task(slots.reserve_slot(CTX)))
            elif op == "try" and (permit := slots.try_reserve_slot(CTX)) is not None:
                m.held.append(Held(permit))
            elif op == "launch" and (idle := [h for h in m.held if not h.started]):
                idle[i % len(idle)].started = True
                m.live += 1
            elif op in ("release", "release_from_thread") and m.held:
                held = m.held.pop(i % len(m.held))
                if op == "release_from_thread":  # as the SDK core does, from its own threads
                    await asyncio.to_thread(release, slots, held)
                else:
                    release(slots, held)
            elif op == "exit" and m.live:
                m.live -= 1
                slots.changed()
            await settle()
            for task in [t for t in m.waiting if t.done()]:
                m.waiting.remove(task)
                m.held.append(Held(task.result()))
            # Agent processes plus starts that have not launched theirs: never above the limit.
            assert m.live + sum(not h.started for h in m.held) <= limit
            # No lost wake-up: a start still waits only while every place is taken.
            assert not m.waiting or m.live + len(m.held) >= limit
        for task in m.waiting:
            task.cancel()
        await asyncio.gather(*m.waiting, return_exceptions=True)

    asyncio.run(scenario())


async def test_a_place_stays_taken_while_the_process_lives_after_its_start_finished():
    live = 0
    slots = AgentSlots(1, lambda: live)
    first = await slots.reserve_slot(CTX)
    live = 1  # the start launched its agent, then finished
    slots.release_slot(SlotReleaseContext(slot_info=None, permit=first))
    second = asyncio.create_task(slots.reserve_slot(CTX))
    await settle()
    assert not second.done() and slots.try_reserve_slot(CTX) is None
    live = 0  # the run closed its session: the agent exited
    slots.changed()
    await asyncio.wait_for(second, 1)


def test_the_default_limit_follows_memory_and_is_at_least_one():
    assert default_max_live_agents(0) == default_max_live_agents(AGENT_BUDGET_MB) == 1
    assert default_max_live_agents(16 * 1024) == 24  # three quarters of 16 GiB at 512 MiB per agent
    assert WorkerSizing(max_live_agents=5).live_agents_limit() == 5
    assert WorkerSizing().live_agents_limit() == default_max_live_agents() >= 1
    with pytest.raises(ValueError, match="OFFICE_MAX_LIVE_AGENTS"):
        WorkerSizing(max_live_agents=-1).live_agents_limit()
