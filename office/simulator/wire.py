"""The simulator's wire formats: request parsing into a `Turn`, and rendering of an `Answer` or a `Failure` in
the caller's API: OpenAI chat completions, Anthropic Messages (what Claude Code speaks) and the OpenAI
Responses API (what Codex speaks), as JSON or as server-sent events, with each API's documented error bodies
and headers (Retry-After, Anthropic's anthropic-ratelimit-*, OpenAI's x-ratelimit-*)."""

import asyncio
import json
import math
import re
import time
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse

from office.simulator.errors import error_body
from office.simulator.turns import Answer, Failure, Turn

# Text the agents put into user turns besides what the user typed (Claude Code's <system-reminder> blocks and the
# <command-name>/model</command-name>… record of a model selection, Codex's <environment_context> and
# <user_instructions>): a block made only of such elements is not part of the conversation a test asserts on.
_CONTEXT_BLOCK = re.compile(r"^\s*(?:<([a-z_-]+)[ >].*?</\1>\s*)+$", re.S)


def credential(request: Request) -> str | None:
    auth = request.headers.get("authorization", "")
    if auth.lower().startswith("bearer "):
        return auth[7:].strip()
    return request.headers.get("x-api-key") or request.headers.get("x-goog-api-key") or request.query_params.get("key")


def _texts(content: Any, kinds: tuple[str, ...]) -> tuple[str, bool]:
    """The typed text of a message's content (a string or a list of blocks), and whether it carries a tool result."""
    if isinstance(content, str):
        return content, False
    parts, tool_result = [], False
    for block in content or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") in ("tool_result", "function_call_output"):
            tool_result = True
        elif block.get("type") in kinds and not _CONTEXT_BLOCK.match(block.get("text") or ""):
            parts.append(block.get("text") or "")
    return "\n".join(p for p in parts if p), tool_result


def _tool_error(content: Any) -> str | None:
    """The text of an Anthropic tool_result block marked `is_error` (a refused or failed tool), if any."""
    for block in content if isinstance(content, list) else []:
        if isinstance(block, dict) and block.get("type") == "tool_result" and block.get("is_error"):
            inner = block.get("content")
            if isinstance(inner, list):
                inner = " ".join(str(b.get("text", "")) for b in inner if isinstance(b, dict))
            return str(inner or "error")
    return None


def parse(api: str, provider: str, body: dict[str, Any], credential: str | None) -> Turn:
    stream = bool(body.get("stream"))
    if api == "messages":
        messages, tool_result, tool_error = [], False, None
        for m in body.get("messages") or []:
            text, tool_result = _texts(m.get("content"), ("text",))
            tool_error = _tool_error(m.get("content"))
            if text:
                messages.append({"role": m.get("role"), "content": text})
        turn = Turn(api, provider, body.get("model"), messages, stream, credential, tool_result)
        turn.tool_error = tool_error if tool_result else None
        return turn
    if api == "responses":
        items = body.get("input") or []
        if isinstance(items, str):
            items = [{"type": "message", "role": "user", "content": items}]
        messages, tool_result = [], False
        for item in items:
            if item.get("type") == "function_call_output":
                tool_result = True
                continue
            if item.get("type", "message") != "message" or item.get("role") not in ("user", "assistant"):
                continue
            text, _ = _texts(item.get("content"), ("input_text", "output_text", "text"))
            if text:
                messages.append({"role": item["role"], "content": text})
                tool_result = False
        return Turn(api, provider, body.get("model"), messages, stream, credential, tool_result)
    if api == "gemini":
        messages, tool_result = [], False
        for content in body.get("contents") or []:
            parts = content.get("parts") or []
            tool_result = any("functionResponse" in part for part in parts)
            text = "\n".join(p["text"] for p in parts if p.get("text") and not _CONTEXT_BLOCK.match(p["text"]))
            if text:
                messages.append({"role": "assistant" if content.get("role") == "model" else "user", "content": text})
        model, _, action = body["_target"].partition(":")
        return Turn(
            api,
            provider,
            model.removeprefix("models/"),
            messages,
            action == "streamGenerateContent",
            credential,
            tool_result,
        )
    messages = body.get("messages") or []
    tool_result = bool(messages) and messages[-1].get("role") == "tool"
    options = body.get("stream_options")
    include_usage = stream and isinstance(options, dict) and options.get("include_usage") is True
    return Turn(api, provider, body.get("model"), messages, stream, credential, tool_result, include_usage)


# Errors -------------------------------------------------------------------------------------------------------


# The unified window headers Claude Code reads per window (cli.js BWq: `anthropic-ratelimit-unified-5h-*`, `-7d-*`).
_UNIFIED_ABBREVIATION = {"five_hour": "5h", "seven_day": "7d"}


def subscription_limit_headers(window: str, reset_in_s: float, now: float | None = None) -> dict[str, str]:
    """A claude.ai subscription window used up, as the Anthropic API states it on a 429 and Claude Code reads it
    (cli.js gWq and gG8): status rejected, the reset as epoch seconds, the window as the representative claim.
    No Retry-After: Claude Code does not retry a subscriber's 429 and takes the reset from these headers."""
    reset = str(int((time.time() if now is None else now) + reset_in_s))
    headers = {
        "anthropic-ratelimit-unified-status": "rejected",
        "anthropic-ratelimit-unified-reset": reset,
        "anthropic-ratelimit-unified-representative-claim": window,
    }
    if (abbreviation := _UNIFIED_ABBREVIATION.get(window)) is not None:
        headers[f"anthropic-ratelimit-unified-{abbreviation}-utilization"] = "1.0"
        headers[f"anthropic-ratelimit-unified-{abbreviation}-reset"] = reset
    return headers


def error_response(failure: Failure) -> Response:
    headers: dict[str, str] = {"request-id": f"req_sim_{uuid.uuid4().hex[:16]}"}
    ra = failure.retry_after_s
    if failure.kind == "subscription_limit":
        headers |= subscription_limit_headers(failure.window or "five_hour", ra if ra is not None else 3 * 3600)
    elif ra is not None:
        headers["retry-after"] = str(max(1, math.ceil(ra)))
        if failure.shape != "anthropic":
            headers["retry-after-ms"] = str(int(ra * 1000))
    if failure.status == 429 and ra is not None:
        # An injected 429 states what is left and when it resets (its Retry-After), never a limit: it is one
        # request's failure and knows nothing of the provider's rate (the token bucket states its own).
        reset_s = ra
        if failure.shape == "anthropic":
            reset = (datetime.now(UTC) + timedelta(seconds=reset_s)).strftime("%Y-%m-%dT%H:%M:%SZ")
            for kind in ("requests", "tokens", "input-tokens"):
                headers[f"anthropic-ratelimit-{kind}-remaining"] = "0"
                headers[f"anthropic-ratelimit-{kind}-reset"] = reset
        elif failure.shape in ("openai", "azure", "openrouter"):
            headers |= {"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": f"{reset_s:g}s"}
    if failure.rate_headers is not None:  # the token bucket states its own limit (or none)
        headers = {k: v for k, v in headers.items() if "ratelimit" not in k} | failure.rate_headers
    return Response(
        error_body(failure.shape, failure.kind, failure.status, failure.model, ra, failure.message),
        status_code=failure.status,
        headers=headers,
        media_type="application/json",
    )


# Streams ------------------------------------------------------------------------------------------------------


def event(data: Any, name: str | None = None) -> str:
    payload = data if isinstance(data, str) else json.dumps(data)
    return (f"event: {name}\n" if name else "") + f"data: {payload}\n\n"


async def sse(frames: list[str], cut_at: int | None, delay_s: float, on_cut: Callable[[], None]) -> AsyncIterator[str]:
    """Writes frames; with `cut_at`, the connection closes before that frame (no final event): a cut stream."""
    for index, frame in enumerate(frames):
        if cut_at is not None and index >= cut_at:
            on_cut()
            return
        if delay_s and index:
            await asyncio.sleep(delay_s)
        yield frame


def _pieces(text: str) -> list[str]:
    words = text.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]


def _streamed(frames: list[str], first_delta: int, answer: Answer, call: dict[str, Any]) -> Response:
    cut_at = None if answer.cut_after_chunks is None else first_delta + answer.cut_after_chunks

    def mark() -> None:
        call["cut"] = True

    return StreamingResponse(sse(frames, cut_at, answer.chunk_delay_s, mark), media_type="text/event-stream")


def render(api: str, answer: Answer, stream: bool, call: dict[str, Any], call_number: int) -> Response:
    renderers = {"chat": _chat, "messages": _messages, "responses": _responses, "gemini": _gemini}
    return renderers[api](answer, stream, call, call_number)


def _gemini(answer: Answer, stream: bool, call: dict[str, Any], n: int) -> Response:
    """Gemini generateContent / streamGenerateContent?alt=sse: candidates with parts, finishReason STOP last."""
    usage = {"promptTokenCount": answer.input_tokens, "candidatesTokenCount": max(1, len(answer.text) // 4)}
    usage["totalTokenCount"] = usage["promptTokenCount"] + usage["candidatesTokenCount"]
    call["usage"] = usage  # what the answer reports, for tests to compare with what a run records

    def chunk(parts: list[dict[str, Any]], finish: str | None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": answer.model}

    parts: list[dict[str, Any]]
    if answer.tool:
        parts = [{"functionCall": {"name": answer.tool.name, "args": answer.tool.input}}]
    else:
        parts = [{"text": answer.text}]
    if not stream:
        return JSONResponse(chunk(parts, "STOP"))
    if answer.tool:
        frames = [event(chunk(parts, "STOP"))]
    else:
        pieces = _pieces(answer.text)
        frames = [event(chunk([{"text": p}], "STOP" if i == len(pieces) - 1 else None)) for i, p in enumerate(pieces)]
    return _streamed(frames, 0, answer, call)


def _tool_id(prefix: str, call_number: int) -> str:
    return f"{prefix}{call_number:06d}{uuid.uuid4().hex[:10]}"


def chat_usage(answer: Answer) -> dict[str, Any]:
    """Chat completions' `usage` as OpenAI sends it: `prompt_tokens` includes the cached ones."""
    completion = len(answer.text) // 4
    return {
        "prompt_tokens": answer.input_tokens,
        "completion_tokens": completion,
        "total_tokens": answer.input_tokens + completion,
        "prompt_tokens_details": {"cached_tokens": answer.cached_tokens},
    }


def _chat(answer: Answer, stream: bool, call: dict[str, Any], n: int) -> Response:
    created, model = int(time.time()), answer.model
    usage = chat_usage(answer)
    tool = answer.tool
    tool_calls = (
        [
            {
                "id": _tool_id("call_", n),
                "type": "function",
                "function": {"name": tool.name, "arguments": json.dumps(tool.input)},
            }
        ]
        if tool
        else None
    )
    finish = "tool_calls" if tool else "stop"
    if not stream:
        message: dict[str, Any] = {"role": "assistant", "content": None if tool else answer.text}
        if tool_calls:
            message["tool_calls"] = tool_calls
        return JSONResponse(
            {
                "id": f"chatcmpl-{n}",
                "object": "chat.completion",
                "created": created,
                "model": model,
                "choices": [{"index": 0, "message": message, "finish_reason": finish}],
                "usage": usage,
            }
        )
    if answer.include_usage:
        call["usage"] = usage  # what the stream reports, for tests to compare with what a run records

    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> str:
        data = {
            "id": "chatcmpl-s",
            "object": "chat.completion.chunk",
            "created": created,
            "model": model,
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return event(data | {"usage": None} if answer.include_usage else data)

    # With `include_usage` the API sends one more chunk before [DONE]: no choices, the request's usage.
    last = {"id": "chatcmpl-s", "object": "chat.completion.chunk", "created": created, "model": model, "choices": []}
    tail = [event(last | {"usage": usage})] if answer.include_usage else []

    if tool_calls:
        deltas = [chunk({"role": "assistant", "tool_calls": [{"index": 0, **tool_calls[0]}]})]
    else:
        deltas = [chunk({"content": piece}) for piece in _pieces(answer.text)]
    frames = [*deltas, chunk({}, finish), *tail, event("[DONE]")]
    return _streamed(frames, 0, answer, call)


def _messages(answer: Answer, stream: bool, call: dict[str, Any], n: int) -> Response:
    """Anthropic Messages: message_start, content_block_start/delta/stop per block, message_delta, message_stop."""
    msg_id, model, tool = f"msg_sim_{n:06d}", answer.model, answer.tool
    blocks: list[dict[str, Any]] = []
    if tool:
        blocks.append({"type": "tool_use", "id": _tool_id("toolu_", n), "name": tool.name, "input": tool.input})
    else:
        blocks.append({"type": "text", "text": answer.text})
    stop_reason = "tool_use" if tool else "end_turn"
    output_tokens = max(1, len(answer.text) // 4)
    # The cache counters are always present on the real API (claude-agent-acp adds them up: a missing one is NaN);
    # Anthropic's input_tokens leaves out the tokens read from the cache.
    cache = {"cache_creation_input_tokens": 0, "cache_read_input_tokens": answer.cached_tokens}
    uncached = answer.input_tokens - answer.cached_tokens
    usage = {"input_tokens": uncached, "output_tokens": output_tokens, **cache}
    call["usage"] = usage  # what the answer reports, for tests to compare with what a run records
    if not stream:
        return JSONResponse(
            {
                "id": msg_id,
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": blocks,
                "stop_reason": stop_reason,
                "stop_sequence": None,
                "usage": usage,
            }
        )
    start = {
        "type": "message_start",
        "message": {
            "id": msg_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": uncached, "output_tokens": 1, **cache},
        },
    }
    frames = [event(start, "message_start")]
    first_delta = 0
    for index, block in enumerate(blocks):
        if block["type"] == "text":
            frames.append(
                event(
                    {"type": "content_block_start", "index": index, "content_block": {"type": "text", "text": ""}},
                    "content_block_start",
                )
            )
            frames.append(event({"type": "ping"}, "ping"))
            first_delta = len(frames)
            frames += [
                event(
                    {"type": "content_block_delta", "index": index, "delta": {"type": "text_delta", "text": piece}},
                    "content_block_delta",
                )
                for piece in _pieces(block["text"])
            ]
        else:
            frames.append(
                event(
                    {"type": "content_block_start", "index": index, "content_block": {**block, "input": {}}},
                    "content_block_start",
                )
            )
            first_delta = len(frames)
            frames.append(
                event(
                    {
                        "type": "content_block_delta",
                        "index": index,
                        "delta": {"type": "input_json_delta", "partial_json": json.dumps(block["input"])},
                    },
                    "content_block_delta",
                )
            )
        frames.append(event({"type": "content_block_stop", "index": index}, "content_block_stop"))
    frames.append(
        event(
            {
                "type": "message_delta",
                "delta": {"stop_reason": stop_reason, "stop_sequence": None},
                "usage": {"output_tokens": output_tokens},
            },
            "message_delta",
        )
    )
    frames.append(event({"type": "message_stop"}, "message_stop"))
    return _streamed(frames, first_delta, answer, call)


def _responses(answer: Answer, stream: bool, call: dict[str, Any], n: int) -> Response:
    """OpenAI Responses: response.created, output_item.added, output_text.delta…, output_item.done, completed."""
    resp_id, item_id, tool = f"resp_sim_{n:06d}", f"msg_sim_{n:06d}", answer.tool
    if tool:
        item: dict[str, Any] = {
            "type": "function_call",
            "id": f"fc_sim_{n:06d}",
            "call_id": _tool_id("call_", n),
            "name": tool.name,
            "arguments": json.dumps(tool.input),
            "status": "completed",
        }
    else:
        item = {
            "type": "message",
            "id": item_id,
            "role": "assistant",
            "status": "completed",
            "content": [{"type": "output_text", "text": answer.text, "annotations": []}],
        }
    output_tokens = max(1, len(answer.text) // 4)
    usage = {
        "input_tokens": answer.input_tokens,
        "input_tokens_details": {"cached_tokens": answer.cached_tokens},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": answer.input_tokens + output_tokens,
    }
    call["usage"] = usage  # what the answer reports, for tests to compare with what a run records
    response = {
        "id": resp_id,
        "object": "response",
        "created_at": int(time.time()),
        "status": "completed",
        "model": answer.model,
        "output": [item],
        "usage": usage,
    }
    if not stream:
        return JSONResponse(response)
    pending = {**response, "status": "in_progress", "output": [], "usage": None}
    frames = [event({"type": "response.created", "response": pending}, "response.created")]
    added = {**item, "status": "in_progress"}
    if not tool:
        added["content"] = []
    frames.append(
        event({"type": "response.output_item.added", "output_index": 0, "item": added}, "response.output_item.added")
    )
    first_delta = len(frames)
    if not tool:
        frames += [
            event(
                {
                    "type": "response.output_text.delta",
                    "item_id": item_id,
                    "output_index": 0,
                    "content_index": 0,
                    "delta": piece,
                },
                "response.output_text.delta",
            )
            for piece in _pieces(answer.text)
        ]
    frames.append(
        event({"type": "response.output_item.done", "output_index": 0, "item": item}, "response.output_item.done")
    )
    frames.append(event({"type": "response.completed", "response": response}, "response.completed"))
    return _streamed(frames, first_delta, answer, call)
