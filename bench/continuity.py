"""Continuity: does a fallback receive exactly its own conversation, at 100 conversations in flight?

150 scripted conversations of 7/9/11 turns, a factual anchor at turn 0 and a unique canary each; one failover
per conversation injected from a seeded manifest (timeout, 5xx, 429 at an early, middle or the probe turn);
repeated over seeds until 750 failovers; plus a stateless control arm of 50 conversations that forwards only the
newest message.
Counted from the simulator's own call log."""

import asyncio
import random
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from typing import Any

from bench.common import bench_stack, wilson_low
from office.runs import submit, wait_for_view
from office.simulator.config import InjectedFailure, SimProvider
from routing.run import RunView
from testkit.stack import Stack

# The injected 429 states no reset, in its headers or its text: it is one conversation's failure, not a key-wide
# limit. A reset it states (a Retry-After, or the OpenAI text "Please try again in 20s", which the simulator
# writes when no Retry-After is given and the classifier rightly reads) is a floor for every caller of the key:
# they wait for it and new conversations start on the fallback, so the bench would measure the floor, not
# failover (the amplification bench covers that).
FAILURE_KINDS: dict[str, dict[str, Any]] = {
    "timeout": dict(status=504, kind="timeout", hold_s=2.0),
    "5xx": dict(status=503, kind="unavailable"),
    "429": dict(status=429, kind="rate_limit", message="Rate limit reached for requests per min (RPM)."),
}
TARGET_FAILOVERS = 750


@dataclass
class Conversation:
    key: str
    canary: str
    anchor: str
    turns: list[str]
    fail_turn: int
    fail_kind: str


def manifest(seed: int, count: int) -> list[Conversation]:
    rng = random.Random(seed)
    out = []
    for i in range(count):
        n = rng.choice([7, 9, 11])
        canary = f"CANARY-{seed}-{i}-{rng.getrandbits(32):08x}"
        anchor = f"deploy code {rng.randint(100000, 999999)}"
        turns = [f"{canary} turn 0: remember that project {i} uses {anchor}."]
        turns += [f"{canary} turn {k}: continue with step {k} of the migration." for k in range(1, n - 1)]
        turns.append(f"{canary} turn {n - 1}: recall the deploy code from the start.")
        position = rng.choice(["early", "middle", "probe"])
        fail_turn = {"early": 1, "middle": n // 2, "probe": n - 1}[position]
        out.append(Conversation(f"s{seed}c{i}", canary, anchor, turns, fail_turn, rng.choice(list(FAILURE_KINDS))))
    return out


@dataclass
class Arm:
    """One seed's manifest (or the control arm) on its own workspace, so its calls are told apart."""

    conversations: list[Conversation]
    full_history: bool
    workspace: str
    agent: str
    names: dict[str, str]
    results: list[tuple[Conversation, RunView]] = field(default_factory=list)


async def prepare_arm(stack: Stack, conversations: list[Conversation], full_history: bool) -> Arm:
    failures = [
        InjectedFailure.model_validate({**FAILURE_KINDS[c.fail_kind], "match_text": f"{c.canary} turn {c.fail_turn}:"})
        for c in conversations
    ]
    ws, agent, names = await stack.workspace(
        {"primary": SimProvider(failures=failures), "fallback": SimProvider()}, timeout_s=1.0
    )
    return Arm(conversations, full_history, ws, agent, names)


async def converse(stack: Stack, arm: Arm, c: Conversation) -> None:
    handle = await submit(
        stack.client,
        stack.store,
        arm.workspace,
        arm.agent,
        c.turns[0],
        run_id=f"cont-{arm.workspace}-{c.key}",
        task_queue=stack.task_queue,
        follow_ups=c.turns[1:],
        full_history=arm.full_history,
    )
    arm.results.append((c, await wait_for_view(stack.client, handle.id)))


def score_arm(arm: Arm, calls: list[dict[str, Any]]) -> dict[str, Any]:
    providers = set(arm.names.values())
    return score(
        arm.results,
        [c for c in calls if c["provider"] in providers],
        {c.canary: c for c in arm.conversations},
        arm.names,
    )


def score(
    results: list[tuple[Conversation, RunView]],
    calls: list[dict[str, Any]],
    by_canary: dict[str, Conversation],
    names: dict[str, str],
) -> dict[str, Any]:
    failovers = preserved = completed = 0
    for conversation, view in results:
        completed += view.status.value == "completed"
        if view.fallback_count >= 1:
            failovers += 1
            preserved += bool(view.output and conversation.anchor in view.output)
    canaries = list(by_canary)
    bleed = mismatch = 0
    replies: dict[str, list[str]] = {}
    for call in sorted((c for c in calls if c["status"] == 200), key=lambda c: c["at"]):
        users = [m["content"] for m in call["messages"] if m["role"] == "user"]
        owner = users[0].split(" ", 1)[0] if users else ""
        text = " ".join(m["content"] for m in call["messages"]) + " " + call.get("reply", "")
        if any(other in text for other in canaries if other != owner):
            bleed += 1
        owned = by_canary.get(owner)
        if owned is None:
            mismatch += 1
            continue
        turn = len(users) - 1
        assistants = [m["content"] for m in call["messages"] if m["role"] == "assistant"]
        history_ok = users == owned.turns[: turn + 1] and assistants == replies.get(owner, [])[:turn]
        stateless_ok = users == [owned.turns[turn]] if len(users) == 1 else False
        if not (history_ok or stateless_ok):
            mismatch += 1
        replies.setdefault(owner, []).append(call["reply"])
    return {
        "conversations": len(results),
        "completed": completed,
        "failovers": failovers,
        "preserved": preserved,
        "bleed": bleed,
        "payload_mismatch": mismatch,
        "chat_calls": len(calls),
        "primary_calls": sum(c["provider"] == names["primary"] for c in calls),
    }


CONTROL_CONVERSATIONS = 50  # the stateless control shows what forwarding only the newest message loses: 50 show it


async def run(conversations: int = 150, in_flight: int = 100, target: int = TARGET_FAILOVERS) -> dict[str, Any]:
    """One pool of `in_flight` conversations: the control arm first, then seed after seed until `target`
    failovers were measured (no arm waits for the previous one's stragglers). A lane starts no conversation that
    the target does not need: once the failovers counted and the conversations running could reach it, it waits
    for one to end (a conversation that ended without a failover lets it go on)."""
    started = time.monotonic()
    async with bench_stack(worker_process=True, worker_processes=2) as stack:
        control = await prepare_arm(stack, manifest(1000, CONTROL_CONVERSATIONS), False)
        arms: list[Arm] = []
        failovers = running = 0
        turn = asyncio.Condition()

        async def jobs() -> AsyncIterator[tuple[Arm, Conversation]]:
            for c in control.conversations:
                yield control, c
            while failovers < target:
                arms.append(await prepare_arm(stack, manifest(len(arms), conversations), True))
                for c in arms[-1].conversations:
                    if failovers >= target:
                        return
                    yield arms[-1], c

        feed = jobs()

        def room() -> bool:  # the target still needs a conversation more, or it is reached
            return failovers + running < target or failovers >= target

        async def lane() -> None:
            nonlocal failovers, running
            while True:
                async with turn:
                    job = await anext(feed, None)
                    if job is None:
                        return
                    arm, c = job
                    counted = arm is not control
                    if counted:
                        await turn.wait_for(room)
                        if failovers >= target:
                            return
                        running += 1
                failed_over = False
                try:
                    await converse(stack, arm, c)
                    failed_over = arm.results[-1][1].fallback_count >= 1  # its own: appended with no await since
                finally:
                    if counted:
                        async with turn:
                            running -= 1
                            failovers += failed_over
                            turn.notify_all()

        await asyncio.gather(*[lane() for _ in range(in_flight)])
        calls = await stack.simulator.calls()
    scored = [score_arm(arm, calls) for arm in arms]
    control_score = score_arm(control, calls)
    failovers = sum(a["failovers"] for a in scored)
    preserved = sum(a["preserved"] for a in scored)
    return {
        "failovers": failovers,
        "preserved": preserved,
        "cpr": preserved / failovers if failovers else 0.0,
        "cpr_ci_low": wilson_low(preserved, failovers),
        "bleed": sum(a["bleed"] for a in scored),
        "payload_mismatch": sum(a["payload_mismatch"] for a in scored),
        "completed": sum(a["completed"] for a in scored),
        "conversations": sum(a["conversations"] for a in scored),
        "control_cpr": control_score["preserved"] / control_score["failovers"] if control_score["failovers"] else 0.0,
        "control_failovers": control_score["failovers"],
        "control_bleed": control_score["bleed"],
        "seeds": len(arms),
        "in_flight": in_flight,
        "seconds": round(time.monotonic() - started, 1),
        "per_seed": scored,
    }
