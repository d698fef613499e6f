"""Reference clients reproduced for comparison: what a naive retry loop and Temporal's default retry policy
(with HTTP-client retries inside each attempt) offer a rate-limited provider, and a bare one-activity workflow."""

import asyncio
import contextlib

import httpx
from temporalio import activity
from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from activities.executors.openai_compat import OpenAICompatExecutor
from bench.bare_workflow import ChatCall
from routing.config import ExecutionProfile


async def post_chat(http: httpx.AsyncClient, call: ChatCall) -> httpx.Response:
    return await http.post(
        call.url, json={"model": "sim-small", "messages": [{"role": "user", "content": call.prompt}]}, timeout=30
    )


class ReferenceActivities:
    def __init__(self, http: httpx.AsyncClient):
        self.http = http

    @activity.defn
    async def chat_once(self, call: ChatCall) -> str:
        if call.stream:  # exactly the office executor's call, without the scheduler around it
            base = call.url.removesuffix("/chat/completions")
            executor = OpenAICompatExecutor("bare", ExecutionProfile(base_url=base), self.http)
            return (await executor.chat("sim-small", [{"role": "user", "content": call.prompt}])).text
        for _ in range(call.client_retries + 1):
            response = await post_chat(self.http, call)
            if response.status_code == 200:
                content: str = response.json()["choices"][0]["message"]["content"]
                return content
        # Temporal's retry policy retries it (benign: expected, so not logged as a crash).
        raise ApplicationError(f"provider answered {response.status_code}", category=ApplicationErrorCategory.BENIGN)


async def fixed_interval_client(
    http: httpx.AsyncClient, call: ChatCall, interval_s: float, time_up: asyncio.Event
) -> bool:
    """The storm: retry every `interval_s` until success or until `time_up` is set."""
    while not time_up.is_set():
        if (await post_chat(http, call)).status_code == 200:
            return True
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(time_up.wait(), interval_s)
    return False
