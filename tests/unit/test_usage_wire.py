"""Usage on the wire: the simulator's chat stream ends with the usage chunk when the request asks for it (as
OpenAI's API does), the OpenAI-compatible executor asks for it and reads it, and `office usage --since` periods."""

import json
from datetime import UTC, datetime, timedelta

import httpx
import pytest
from starlette.testclient import TestClient

from activities.executors.openai_compat import OpenAICompatExecutor
from office.cli.usage import parse_since
from office.simulator.app import Simulator, build_app
from office.simulator.config import SimConfig, SimProvider
from routing.config import ExecutionProfile
from routing.usage import Usage

CONVERSATION = [
    {"role": "user", "content": "first question"},
    {"role": "assistant", "content": "first answer"},
    {"role": "user", "content": "second question"},
]


def simulator() -> Simulator:
    return Simulator(SimConfig(providers={"p": SimProvider(models=["gpt-*"])}))


def data_frames(text: str) -> list[dict | str]:
    frames = [line[len("data: ") :] for line in text.splitlines() if line.startswith("data: ")]
    return [f if f == "[DONE]" else json.loads(f) for f in frames]


def test_a_chat_stream_ends_with_its_usage_when_asked():
    sim = simulator()
    http = TestClient(build_app(sim))
    body = {"model": "gpt-4o", "stream": True, "messages": CONVERSATION, "stream_options": {"include_usage": True}}
    frames = data_frames(http.post("/p/p/v1/chat/completions", json=body).text)
    assert frames[-1] == "[DONE]"
    last = frames[-2]
    assert isinstance(last, dict) and last["choices"] == []
    usage = last["usage"]
    assert usage == sim.calls[0]["usage"]
    assert usage["total_tokens"] == usage["prompt_tokens"] + usage["completion_tokens"] > 0
    # the conversation before the newest message is what a prompt cache holds
    assert 0 < usage["prompt_tokens_details"]["cached_tokens"] < usage["prompt_tokens"]
    assert all(f["usage"] is None for f in frames[:-2] if isinstance(f, dict))


def test_a_chat_stream_has_no_usage_unless_asked():
    http = TestClient(build_app(simulator()))
    body = {"model": "gpt-4o", "stream": True, "messages": CONVERSATION}
    frames = data_frames(http.post("/p/p/v1/chat/completions", json=body).text)
    assert not any(isinstance(f, dict) and "usage" in f for f in frames)


async def test_the_endpoint_executor_asks_for_usage_and_reads_it():
    sim = simulator()
    transport = httpx.ASGITransport(app=build_app(sim))
    async with httpx.AsyncClient(transport=transport, base_url="http://sim") as client:
        profile = ExecutionProfile(base_url="http://sim/p/p/v1")
        result = await OpenAICompatExecutor("p", profile, client).chat("gpt-4o", CONVERSATION)
    reported = sim.calls[0]["usage"]
    assert result.usage == Usage(
        input_tokens=reported["prompt_tokens"],
        output_tokens=reported["completion_tokens"],
        cache_read_tokens=reported["prompt_tokens_details"]["cached_tokens"],
    )
    assert result.text == sim.calls[0]["reply"]


NOW = datetime(2026, 12, 2, 4, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "since"),
    [
        ("24h", NOW - timedelta(hours=24)),
        ("7d", NOW - timedelta(days=7)),
        ("30m", NOW - timedelta(minutes=30)),
        ("2w", NOW - timedelta(weeks=2)),
        ("2026-12-01", datetime(2026, 12, 1, tzinfo=UTC)),
        ("2026-12-01T08:00:00", datetime(2026, 12, 1, 8, tzinfo=UTC)),  # no zone: UTC
        ("2026-12-01T08:00:00+02:00", datetime(2026, 12, 1, 6, tzinfo=UTC)),
    ],
)
def test_since_is_a_duration_back_or_an_iso_date(text: str, since: datetime):
    assert parse_since(text, NOW) == since


@pytest.mark.parametrize("text", ["yesterday", "24", "7y", "2026-13-01", ""])
def test_a_since_that_is_neither_says_the_forms(text: str):
    with pytest.raises(ValueError, match=r"duration \(30m, 24h, 7d, 2w\)"):
        parse_since(text, NOW)


async def test_an_endpoint_that_refuses_stream_options_still_answers_without_usage():
    """Azure OpenAI before api-version 2024-07-01 (and other older OpenAI-compatible servers) answer 400 to the
    option: the answer is asked for once more without it, and that endpoint is not asked with it again."""
    sent: list[dict] = []

    def endpoint(request: httpx.Request) -> httpx.Response:
        body = json.loads(request.content)
        sent.append(body)
        if "stream_options" in body:
            error = {
                "message": "Unrecognized request argument supplied: stream_options",
                "type": "invalid_request_error",
            }
            return httpx.Response(400, json={"error": error})
        chunk = {"model": "gpt-4o", "choices": [{"delta": {"content": "hi"}, "finish_reason": "stop"}]}
        return httpx.Response(200, text=f"data: {json.dumps(chunk)}\n\ndata: [DONE]\n\n")

    refused: set[str] = set()
    async with httpx.AsyncClient(transport=httpx.MockTransport(endpoint)) as client:
        executor = OpenAICompatExecutor("azure", ExecutionProfile(base_url="http://azure/v1"), client, refused)
        first = await executor.chat("gpt-4o", CONVERSATION)
        second = await OpenAICompatExecutor("azure", executor.profile, client, refused).chat("gpt-4o", CONVERSATION)
    assert (first.text, first.usage, second.text) == ("hi", None, "hi")
    assert ["stream_options" in body for body in sent] == [True, False, False]
