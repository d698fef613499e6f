"""The simulator's native APIs as an agent's HTTP client sees them: event order, tool use, error bodies, headers."""

import json

from starlette.testclient import TestClient

from office.simulator.app import Simulator, build_app
from office.simulator.config import InjectedFailure, ScriptedToolUse, SimConfig, SimProvider


def client(**provider) -> tuple[TestClient, Simulator]:
    sim = Simulator(SimConfig(providers={"p": SimProvider(models=["claude-*", "gpt-*"], **provider)}))
    return TestClient(build_app(sim)), sim


def events(text: str) -> list[tuple[str | None, dict | str]]:
    out = []
    for frame in text.strip().split("\n\n"):
        lines = dict(line.split(": ", 1) for line in frame.splitlines())
        data = lines["data"]
        out.append((lines.get("event"), data if data == "[DONE]" else json.loads(data)))
    return out


USER = {
    "role": "user",
    "content": [{"type": "text", "text": "<system-reminder>ctx</system-reminder>"}, {"type": "text", "text": "hi"}],
}


def test_messages_stream_text_in_anthropic_event_order():
    http, sim = client(api_key="k")
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "stream": True, "messages": [USER]}
    r = http.post("/p/p/v1/messages", json=body, headers={"x-api-key": "k"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/event-stream")
    names = [name for name, _ in events(r.text)]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    assert names[-3:] == ["content_block_stop", "message_delta", "message_stop"]
    text = "".join(d["delta"]["text"] for n, d in events(r.text) if n == "content_block_delta")
    assert text == sim.calls[0]["reply"] and text.endswith("re: hi")  # the agent's context blocks are not the user's
    assert sim.calls[0]["messages"] == [{"role": "user", "content": "hi"}]


def test_scripted_tool_use_then_text_once_the_result_arrives():
    http, sim = client(tool_uses=[ScriptedToolUse(name="Write", input={"file_path": "a.txt", "content": "x"})])
    body = {"model": "claude-x", "max_tokens": 10, "stream": True, "messages": [USER]}
    first = events(http.post("/p/p/v1/messages", json=body).text)
    start = next(d for n, d in first if n == "content_block_start")
    assert start["content_block"]["type"] == "tool_use" and start["content_block"]["name"] == "Write"
    partial = "".join(d["delta"]["partial_json"] for n, d in first if n == "content_block_delta")
    assert json.loads(partial) == {"file_path": "a.txt", "content": "x"}
    assert next(d for n, d in first if n == "message_delta")["delta"]["stop_reason"] == "tool_use"
    tool_id = start["content_block"]["id"]
    body["messages"] += [
        {"role": "assistant", "content": [start["content_block"]]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": tool_id, "content": "ok"}]},
    ]
    second = events(http.post("/p/p/v1/messages", json=body).text)
    assert next(d for n, d in second if n == "message_delta")["delta"]["stop_reason"] == "end_turn"
    assert [c.get("tool_use") for c in sim.calls] == ["Write", None]


def test_anthropic_errors_carry_documented_bodies_and_rate_limit_headers():
    failures = [InjectedFailure(status=429, kind="rate_limit", retry_after_s=7, times=1)]
    http, _ = client(failures=[*failures, InjectedFailure(status=529, kind="overloaded")])
    body = {"model": "claude-x", "max_tokens": 10, "messages": [USER]}
    limited = http.post("/p/p/v1/messages", json=body)
    assert limited.status_code == 429 and limited.json()["error"]["type"] == "rate_limit_error"
    assert limited.headers["retry-after"] == "7" and limited.headers["anthropic-ratelimit-requests-remaining"] == "0"
    assert (
        limited.headers["anthropic-ratelimit-requests-reset"].endswith("Z") and "retry-after-ms" not in limited.headers
    )
    overloaded = http.post("/p/p/v1/messages", json=body)
    assert overloaded.status_code == 529
    assert overloaded.json() == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def test_wrong_key_is_refused_in_each_apis_shape():
    http, sim = client(api_key="k")
    anthropic = http.post(
        "/p/p/v1/messages", json={"model": "claude-x", "messages": [USER]}, headers={"x-api-key": "no"}
    )
    assert anthropic.status_code == 401 and anthropic.json()["error"]["type"] == "authentication_error"
    openai = http.post(
        "/p/p/v1/responses", json={"model": "gpt-x", "input": "hi"}, headers={"authorization": "Bearer no"}
    )
    assert openai.status_code == 401 and openai.json()["error"]["code"] == "invalid_api_key"
    assert [c["authorized"] for c in sim.calls] == [False, False]


def test_a_cut_messages_stream_ends_without_message_stop():
    http, sim = client(cut_after_chunks=1)
    r = http.post("/p/p/v1/messages", json={"model": "claude-x", "stream": True, "messages": [USER]})
    names = [n for n, _ in events(r.text)]
    assert names.count("content_block_delta") == 1 and "message_stop" not in names and sim.calls[0]["cut"]


def test_responses_stream_for_codex_text_and_function_call():
    http, sim = client(tool_uses=[ScriptedToolUse(name="shell", input={"command": ["ls"]}, times=1)])
    items = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "list files"}]}]
    tool = events(http.post("/p/p/v1/responses", json={"model": "gpt-5", "stream": True, "input": items}).text)
    done = next(d for n, d in tool if n == "response.output_item.done")["item"]
    assert (done["type"], done["name"], json.loads(done["arguments"])) == (
        "function_call",
        "shell",
        {"command": ["ls"]},
    )
    items += [done, {"type": "function_call_output", "call_id": done["call_id"], "output": "a.txt"}]
    text = events(http.post("/p/p/v1/responses", json={"model": "gpt-5", "stream": True, "input": items}).text)
    names = [n for n, _ in text]
    assert names[0] == "response.created" and names[-1] == "response.completed"
    deltas = "".join(d["delta"] for n, d in text if n == "response.output_text.delta")
    assert deltas == sim.calls[1]["reply"] and sim.calls[1]["tool_result"]
