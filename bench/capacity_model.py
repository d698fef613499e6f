"""A model of the amplification arm for the capacity rules, with no quota declared: 100 runs fall back within
5 s onto a provider whose limit is a 60/min token bucket (burst 1, Retry-After = time to its next token), sends
jitter after their pacing slot (a busy worker), and a refused call asks again after its Retry-After (or the
decider's jitter). The limits the arm is held to: at most 1.3 calls per run, the busiest minute at most 1.2x
the quota. Pure: the routing.capacity functions and a heap of events, seeded; `python -m bench.capacity_model`
prints it per seed and jitter, in a second (the real arm takes minutes and one jitter: the machine's load)."""

import heapq
import random
from datetime import UTC, datetime, timedelta
from typing import Any

from routing.capacity import CallRequest, CapacityPolicy, CapacityState, RateLimited, Verdict, admit, step

T0 = datetime(2026, 11, 30, tzinfo=UTC)
P = CapacityPolicy()
RUNS, QUOTA_PER_S = 100, 1.0
LATENCY_S = 0.005  # from the slot to the provider, on a quiet machine


def at(seconds: float) -> datetime:
    return T0 + timedelta(seconds=seconds)


def busiest_minute(times: list[float]) -> int:
    times, busiest, j = sorted(times), 0, 0
    for i, t in enumerate(times):
        while j < len(times) and times[j] < t + 60:
            j += 1
        busiest = max(busiest, j - i)
    return busiest


def amplification(seed: int, jitter_s: float) -> tuple[float, float, float]:
    """(calls per run, busiest minute over the quota, seconds until the last run was served)."""
    rng, state, tokens, refilled = random.Random(seed), CapacityState(), 1.0, 0.0
    events: list[tuple[float, int, str, tuple[datetime, float] | None]] = [
        (rng.uniform(0, 5.0), i, "ask", None) for i in range(RUNS)
    ]
    heapq.heapify(events)
    sent: list[float] = []
    served_at = 0.0
    while events:
        t, i, kind, reserved = heapq.heappop(events)
        if kind == "ask":  # admission.admit_and_open: a slot ahead → re-ask a little before it; if it stands, go
            asked = CallRequest(f"r{i}", reserved_at=reserved[0] if reserved else None)
            state, answer = admit(state, at(t), asked, P)
            if answer.verdict is Verdict.refused:
                heapq.heappush(events, (t + (answer.retry_after_s or 1.0), i, "ask", None))
            elif answer.wait_s > 0:
                slot = t + answer.wait_s
                heapq.heappush(events, (max(t, slot - 0.25), i, "ask", (at(t), slot)))
            else:
                go = max(t, reserved[1]) if reserved else t
                send = go + LATENCY_S + rng.uniform(0, jitter_s)
                heapq.heappush(events, (send, i, "call", (answer.slot_at or at(t), go)))
            continue
        admitted = reserved[0] if reserved else None
        sent.append(t)
        tokens, refilled = min(1.0, tokens + (t - refilled) * QUOTA_PER_S), t
        if tokens >= 1.0:
            tokens, served_at = tokens - 1.0, max(served_at, t)
            continue
        retry_after = (1.0 - tokens) / QUOTA_PER_S
        state = step(state, at(t), RateLimited(f"r{i}", retry_after, admitted_at=admitted), P)
        heapq.heappush(events, (t + max(retry_after, rng.uniform(0, 1.0)), i, "ask", None))
    return len(sent) / RUNS, busiest_minute(sent) / (60 * QUOTA_PER_S), served_at


def run(seeds: int = 5, jitters: tuple[float, ...] = (0.0, 0.3, 0.8)) -> dict[str, Any]:
    figures = {}
    for jitter in jitters:
        runs = [amplification(seed, jitter) for seed in range(seeds)]
        figures[f"jitter_{jitter}s"] = {
            "calls_per_run_max": round(max(r[0] for r in runs), 2),
            "busiest_minute_over_quota_max": round(max(r[1] for r in runs), 2),
            "served_s": [round(r[2], 1) for r in runs],
        }
    return figures


if __name__ == "__main__":
    import json

    print(json.dumps(run(), indent=2))
