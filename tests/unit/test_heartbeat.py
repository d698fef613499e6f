"""Heartbeats while an activity waits: a plain liveness beat is due a beat's interval after the activity started
(a short turn sends none: one server round trip fewer per turn), a beat with details at once."""

import asyncio
import dataclasses
from datetime import UTC, datetime, timedelta

from temporalio.testing import ActivityEnvironment

from activities.heartbeat import heartbeating


def environment(started_ago_s: float, timeout_s: float = 1.5) -> tuple[ActivityEnvironment, list]:
    env, beats = ActivityEnvironment(), []
    env.info = dataclasses.replace(
        env.info,
        heartbeat_timeout=timedelta(seconds=timeout_s),
        started_time=datetime.now(UTC) - timedelta(seconds=started_ago_s),
    )
    env.on_heartbeat = lambda *details: beats.append(details)
    return env, beats


async def wait_in_block(seconds: float, details=None) -> None:
    async with heartbeating(details):
        await asyncio.sleep(seconds)


async def test_a_young_activity_sends_no_plain_beat_before_its_interval_then_beats_regularly():
    env, beats = environment(started_ago_s=0.0)  # beats every 0.5 s
    await env.run(wait_in_block, 0.05)
    assert beats == []
    env, beats = environment(started_ago_s=0.0)
    await env.run(wait_in_block, 1.2)  # due at 0.5 and 1.0
    assert 1 <= len(beats) <= 3


async def test_an_older_activity_and_a_beat_with_details_beat_at_once():
    env, beats = environment(started_ago_s=60.0)
    await env.run(wait_in_block, 0.02)
    assert len(beats) == 1
    env, beats = environment(started_ago_s=0.0)
    await env.run(wait_in_block, 0.02, lambda: {"waiting_for": "store"})
    assert beats == [({"waiting_for": "store"},)]


async def test_a_worker_clock_behind_the_servers_never_delays_the_first_beat_past_its_interval():
    env, beats = environment(started_ago_s=-60.0)  # the start looks a minute in the future from here
    await env.run(wait_in_block, 0.8)  # due at 0.5
    assert len(beats) >= 1
