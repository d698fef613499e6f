"""The simulator's HTTP surface. State lives in one `Simulator` instance per server, never at module level.

Routes (per simulated provider P):
  GET  /p/P/v1/models               advertised catalog
  POST /p/P/v1/chat/completions     chat, streaming (SSE) and non-streaming
Admin:
  GET  /admin/config                PUT /admin/config            PUT /admin/providers/P
  GET  /admin/calls   GET /admin/model-calls   DELETE /admin/calls   GET /healthz
"""

import asyncio
import hashlib
import json
import math
import time
from dataclasses import dataclass, field
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import Route

from office.simulator.config import InjectedFailure, SimConfig, SimProvider
from office.simulator.errors import error_body


def deterministic_reply(model: str, messages: list[dict[str, Any]]) -> str:
    """Same messages in, same answer out: a test can tell exactly which history a provider was given."""
    canonical = json.dumps([[m.get("role"), m.get("content")] for m in messages], sort_keys=True)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    last = users[-1] if users else ""
    first = users[0] if users else ""
    recall = f" | first message was: {first[:160]}" if "recall" in last.lower() else ""
    return f"[{model}] history {digest}, {len(messages)} messages; re: {last[:160]}{recall}"


@dataclass
class _Bucket:
    capacity: float
    rate_per_s: float
    tokens: float
    stamp: float

    def take(self, now: float) -> float | None:
        """None when a token was taken; else seconds until one is available."""
        self.tokens = min(self.capacity, self.tokens + (now - self.stamp) * self.rate_per_s)
        self.stamp = now
        if self.tokens >= 1:
            self.tokens -= 1
            return None
        return (1 - self.tokens) / self.rate_per_s


@dataclass
class Simulator:
    config: SimConfig
    calls: list[dict[str, Any]] = field(default_factory=list)  # chat completions
    model_calls: list[dict[str, Any]] = field(default_factory=list)  # catalog reads
    _matches: dict[tuple[str, int], int] = field(default_factory=dict)
    _cuts: dict[str, int] = field(default_factory=dict)
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def set_provider(self, name: str, provider: SimProvider) -> None:
        self.config.providers[name] = provider
        self._buckets.pop(name, None)
        for key in [k for k in self._matches if k[0] == name]:
            del self._matches[key]
        self._cuts.pop(name, None)

    def set_config(self, config: SimConfig) -> None:
        self.config = config
        self._matches.clear()
        self._cuts.clear()
        self._buckets.clear()

    def _bucket_wait(self, name: str, prov: SimProvider) -> float | None:
        if prov.rpm is None:
            return None
        now = time.monotonic()
        bucket = self._buckets.get(name)
        if bucket is None:
            bucket = self._buckets[name] = _Bucket(prov.burst, prov.rpm / 60.0, prov.burst, now)
        return bucket.take(now)

    def _injected(
        self, name: str, prov: SimProvider, model: str | None, endpoint: str = "chat", last_user: str = ""
    ) -> InjectedFailure | None:
        for index, failure in enumerate(prov.failures):
            if endpoint not in failure.endpoints:
                continue
            if failure.models and model not in failure.models:
                continue
            if failure.match_text is not None and failure.match_text not in last_user:
                continue
            seen = self._matches.get((name, index), 0)
            self._matches[(name, index)] = seen + 1
            if seen < failure.skip:
                continue
            if failure.times is not None and seen - failure.skip >= failure.times:
                continue
            return failure
        return None

    def _should_cut(self, name: str, prov: SimProvider) -> bool:
        if prov.cut_after_chunks is None:
            return False
        done = self._cuts.get(name, 0)
        if prov.cut_times is not None and done >= prov.cut_times:
            return False
        self._cuts[name] = done + 1
        return True


def _error(
    prov: SimProvider,
    shape: str,
    kind: str,
    status: int,
    model: str | None,
    retry_after_s: float | None,
    message: str | None = None,
) -> Response:
    headers = {}
    if retry_after_s is not None:
        headers["retry-after"] = str(max(1, math.ceil(retry_after_s)))
        headers["retry-after-ms"] = str(int(retry_after_s * 1000))
    return Response(
        error_body(shape, kind, status, model, retry_after_s, message),
        status_code=status,
        headers=headers,
        media_type="application/json",
    )


def build_app(sim: Simulator) -> Starlette:
    def provider_or_404(request: Request) -> tuple[str, SimProvider] | Response:
        name = request.path_params["provider"]
        prov = sim.config.providers.get(name)
        if prov is None:
            return JSONResponse(
                {"error": {"message": f"unknown simulated provider {name}", "type": "not_found"}}, status_code=404
            )
        return name, prov

    def auth_error(request: Request, prov: SimProvider) -> Response | None:
        if prov.api_key is None:
            return None
        supplied = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if supplied != prov.api_key:
            return _error(prov, prov.shape, "auth", 401 if prov.shape != "gemini" else 400, None, None)
        return None

    async def models(request: Request) -> Response:
        found = provider_or_404(request)
        if isinstance(found, Response):
            return found
        name, prov = found
        if (denied := auth_error(request, prov)) is not None:
            return denied
        sim.model_calls.append({"provider": name, "at": time.time()})
        if (injected := sim._injected(name, prov, None, "models")) is not None:
            return _error(
                prov, injected.shape, injected.kind, injected.status, None, injected.retry_after_s, injected.message
            )
        return JSONResponse(
            {
                "object": "list",
                "data": [{"id": m, "object": "model", "created": 0, "owned_by": name} for m in prov.models],
            }
        )

    async def chat(request: Request) -> Response:
        found = provider_or_404(request)
        if isinstance(found, Response):
            return found
        name, prov = found
        body = await request.json()
        model = body.get("model") or prov.default_model or (prov.models[0] if prov.models else "sim-default")
        messages = body.get("messages") or []
        stream = bool(body.get("stream"))
        call: dict[str, Any] = {
            "provider": name,
            "model": model,
            "requested_model": body.get("model"),
            "messages": messages,
            "stream": stream,
            "at": time.time(),
            "authorized": True,
            "status": None,
        }  # None: no answer given (yet)
        sim.calls.append(call)

        def fail(response: Response) -> Response:
            call["status"] = response.status_code
            call["at_end"] = time.time()
            if response.headers.get("retry-after"):
                call["retry_after_s"] = float(response.headers["retry-after-ms"]) / 1000
            return response

        if (denied := auth_error(request, prov)) is not None:
            call["authorized"] = False
            return fail(denied)
        if prov.latency_ms:
            await asyncio.sleep(prov.latency_ms / 1000)
        if (wait := sim._bucket_wait(name, prov)) is not None:
            return fail(_error(prov, prov.shape, "rate_limit", 429, model, wait))
        users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
        if (injected := sim._injected(name, prov, model, "chat", users[-1] if users else "")) is not None:
            if injected.kind == "timeout":
                await asyncio.sleep(injected.hold_s)
            return fail(
                _error(
                    prov,
                    injected.shape,
                    injected.kind,
                    injected.status,
                    model,
                    injected.retry_after_s,
                    injected.message,
                )
            )
        if body.get("model") and body["model"] not in prov.models:
            return fail(_error(prov, prov.shape, "model_not_found", 404, model, None))

        reply = deterministic_reply(model, messages)
        call["reply"], call["status"] = reply, 200
        created = int(time.time())
        if not stream:
            return JSONResponse(
                {
                    "id": f"chatcmpl-{len(sim.calls)}",
                    "object": "chat.completion",
                    "created": created,
                    "model": model,
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": reply}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": len(json.dumps(messages)) // 4, "completion_tokens": len(reply) // 4},
                }
            )

        words = reply.split(" ")
        chunks = [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]
        cut = sim._should_cut(name, prov)

        async def events():
            for i, piece in enumerate(chunks):
                if cut and i >= (prov.cut_after_chunks or 0):
                    call["cut"] = True
                    return  # the connection closes with no finish_reason and no [DONE]
                if prov.chunk_delay_ms:
                    await asyncio.sleep(prov.chunk_delay_ms / 1000)
                yield (
                    "data: "
                    + json.dumps(
                        {
                            "id": "chatcmpl-s",
                            "object": "chat.completion.chunk",
                            "created": created,
                            "model": model,
                            "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}],
                        }
                    )
                    + "\n\n"
                )
            yield (
                "data: "
                + json.dumps(
                    {
                        "id": "chatcmpl-s",
                        "object": "chat.completion.chunk",
                        "created": created,
                        "model": model,
                        "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}],
                    }
                )
                + "\n\n"
            )
            yield "data: [DONE]\n\n"

        return StreamingResponse(events(), media_type="text/event-stream")

    async def get_config(_: Request) -> Response:
        return JSONResponse(sim.config.model_dump(mode="json"))

    async def put_config(request: Request) -> Response:
        sim.set_config(SimConfig.model_validate(await request.json()))
        return JSONResponse({"ok": True})

    async def put_provider(request: Request) -> Response:
        sim.set_provider(request.path_params["provider"], SimProvider.model_validate(await request.json()))
        return JSONResponse({"ok": True})

    async def get_calls(request: Request) -> Response:
        provider = request.query_params.get("provider")
        return JSONResponse([c for c in sim.calls if provider is None or c["provider"] == provider])

    async def get_model_calls(request: Request) -> Response:
        provider = request.query_params.get("provider")
        return JSONResponse([c for c in sim.model_calls if provider is None or c["provider"] == provider])

    async def clear_calls(_: Request) -> Response:
        sim.calls.clear()
        sim.model_calls.clear()
        return JSONResponse({"ok": True})

    async def healthz(_: Request) -> Response:
        return JSONResponse({"ok": True, "providers": sorted(sim.config.providers)})

    return Starlette(
        routes=[
            Route("/p/{provider}/v1/models", models, methods=["GET"]),
            Route("/p/{provider}/v1/chat/completions", chat, methods=["POST"]),
            Route("/admin/config", get_config, methods=["GET"]),
            Route("/admin/config", put_config, methods=["PUT"]),
            Route("/admin/providers/{provider}", put_provider, methods=["PUT"]),
            Route("/admin/calls", get_calls, methods=["GET"]),
            Route("/admin/calls", clear_calls, methods=["DELETE"]),
            Route("/admin/model-calls", get_model_calls, methods=["GET"]),
            Route("/healthz", healthz, methods=["GET"]),
        ]
    )
