"""A worker that shuts down mid-activity says so: the activity fails with `WorkerShutdown` (the workflow books a
lost worker, never a provider failure) instead of reporting a cancellation nobody requested, which the server
refuses and which would leave the attempt to its heartbeat timeout."""

import asyncio
import functools
from collections.abc import Awaitable, Callable
from typing import ParamSpec, TypeVar

from temporalio import activity

from contracts.failures import worker_shutdown

P = ParamSpec("P")
T = TypeVar("T")


def fails_on_worker_shutdown(fn: Callable[P, Awaitable[T]]) -> Callable[P, Awaitable[T]]:
    """Wraps an activity: the cancellation a stopping worker delivers becomes the `WorkerShutdown` failure; a
    cancellation the workflow requested stays a cancellation."""

    @functools.wraps(fn)
    async def wrapper(*args: P.args, **kwargs: P.kwargs) -> T:
        try:
            return await fn(*args, **kwargs)
        except asyncio.CancelledError:
            details = activity.cancellation_details()
            if details is not None and details.worker_shutdown and not details.cancel_requested:
                raise worker_shutdown() from None
            raise

    return wrapper
