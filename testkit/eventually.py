"""Waiting for something the system does on its own time (a worker's call, visibility, a timer, a process exit).

    await eventually(lambda: len(calls_to(stack, p)), until=lambda n: n >= 2, timeout=30, what="two calls to p")

Polls instead of sleeping a guessed time; on timeout it fails naming what was awaited and the last value seen, so
a failure says how far the system got."""

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, cast, overload

T = TypeVar("T")
_NOTHING_YET: Any = object()


@overload
async def eventually(
    probe: Callable[[], Awaitable[T]],
    *,
    timeout: float,  # noqa: ASYNC109
    what: str,
    until: Callable[[T], object] = bool,
    interval: float = 0.05,
) -> T: ...


@overload
async def eventually(
    probe: Callable[[], T],
    *,
    timeout: float,  # noqa: ASYNC109
    what: str,
    until: Callable[[T], object] = bool,
    interval: float = 0.05,
) -> T: ...


async def eventually(
    probe: Callable[[], T | Awaitable[T]],
    *,
    timeout: float,  # noqa: ASYNC109 - the deadline is this helper's subject; applied with asyncio.timeout below
    what: str,
    until: Callable[[T], object] = bool,
    interval: float = 0.05,
) -> T:
    """Calls `probe` (sync or async) every `interval` seconds until `until(value)` holds (by default: the value is
    truthy) and returns that value. After `timeout` seconds (a probe still running is cancelled) it raises
    AssertionError naming `what` and the last value seen. Errors raised by `probe` are not retried."""
    last: Any = _NOTHING_YET
    deadline = asyncio.timeout(timeout)
    try:
        async with deadline:
            while True:
                value = probe()
                last = await value if inspect.isawaitable(value) else value
                if until(last):
                    return cast(T, last)
                await asyncio.sleep(interval)
    except TimeoutError:
        if not deadline.expired():
            raise  # the probe's own timeout, not ours
        seen = "no value (the first probe did not return)" if last is _NOTHING_YET else repr(last)
        raise AssertionError(f"timed out after {timeout:g}s waiting for {what}; last value seen: {seen}") from None
