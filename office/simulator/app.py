"""The simulator: what a provider decides for one request, independent of the API it arrived on.

`Simulator.respond(turn)` takes one API-neutral `Turn` (parsed by `office.simulator.wire` from OpenAI chat
completions, Anthropic Messages or the OpenAI Responses API) and returns a `Failure` or an `Answer`; the wire
module renders either in the caller's API (JSON or SSE). Recording is separate (`record`, `settle`). State lives
in one `Simulator` instance per server, never at module level.

Routes (per simulated provider P; see `build_app`):
  GET  /p/P/v1/models               advertised catalog
  POST /p/P/v1/chat/completions     OpenAI chat, streaming (SSE) and non-streaming
  POST /p/P/v1/messages             Anthropic Messages (Claude Code), streaming and non-streaming
  POST /p/P/v1/messages/count_tokens
  POST /p/P/v1/responses            OpenAI Responses (Codex), streaming and non-streaming
  POST /p/P/v1beta/models/M:streamGenerateContent (alt=sse) and :generateContent   Gemini (Gemini CLI)
Admin:
  GET  /admin/config                PUT /admin/config            PUT /admin/providers/P
  GET  /admin/calls   GET /admin/model-calls   DELETE /admin/calls   GET /healthz
"""

import asyncio
import fnmatch
import hashlib
import json
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from office.simulator import wire
from office.simulator.config import NATIVE_SHAPE, InjectedFailure, ScriptedToolUse, SimConfig, SimProvider
from office.simulator.turns import Answer, Failure, Turn


def deterministic_reply(model: str, messages: list[dict[str, Any]]) -> str:
    """Same messages in, same answer out: a test can tell exactly which history a provider was given."""
    canonical = json.dumps([[m.get("role"), m.get("content")] for m in messages], sort_keys=True)
    digest = hashlib.sha256(canonical.encode()).hexdigest()[:12]
    users = [str(m.get("content", "")) for m in messages if m.get("role") == "user"]
    last = users[-1] if users else ""
    first = users[0] if users else ""
    recall = f" | first message was: {first[:160]}" if "recall" in last.lower() else ""
    return f"[{model}] history {digest}, {len(messages)} messages; re: {last[:160]}{recall}"


def _tool_error_note(error: str | None) -> str:
    """A model reads the tool's result: an error it got (a refused permission) is part of what it says."""
    return f" | the tool reported an error: {' '.join(error.split())[:200]}" if error else ""


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


class UnknownProvider(LookupError):
    """A simulated provider no configuration names; the HTTP routes answer 404 before this can happen."""


@dataclass
class Simulator:
    config: SimConfig
    calls: list[dict[str, Any]] = field(default_factory=list)  # generation calls, every API
    model_calls: list[dict[str, Any]] = field(default_factory=list)  # catalog reads
    _matches: dict[tuple[str, int], int] = field(default_factory=dict)
    _tool_uses: dict[tuple[str, int], int] = field(default_factory=dict)
    _cuts: dict[str, int] = field(default_factory=dict)
    _buckets: dict[str, _Bucket] = field(default_factory=dict)

    def set_provider(self, name: str, provider: SimProvider) -> None:
        self.config.providers[name] = provider
        self._buckets.pop(name, None)
        for counters in (self._matches, self._tool_uses):
            for key in [k for k in counters if k[0] == name]:
                del counters[key]
        self._cuts.pop(name, None)

    def set_config(self, config: SimConfig) -> None:
        self.config = config
        for counters in (self._matches, self._tool_uses, self._cuts, self._buckets):
            counters.clear()

    def provider(self, name: str) -> SimProvider | None:
        return self.config.providers.get(name)

    def known(self, name: str) -> SimProvider:
        """A provider the route has checked exists (the HTTP handlers answer 404 for any other)."""
        prov = self.config.providers.get(name)
        if prov is None:
            raise UnknownProvider(name)
        return prov

    # Recording: one row per generation call, settled with what was answered.
    def record(self, turn: Turn) -> dict[str, Any]:
        prov = self.provider(turn.provider)
        model = turn.requested_model or (prov and prov.default_model) or (prov and prov.models and prov.models[0])
        call: dict[str, Any] = {
            "provider": turn.provider,
            "api": turn.api,
            "model": model or "sim-default",
            "requested_model": turn.requested_model,
            "messages": turn.messages,
            "tool_result": turn.tool_result,
            "stream": turn.stream,
            "at": time.time(),
            "authorized": True,
            "status": None,  # None: no answer given (yet)
        }
        self.calls.append(call)
        return call

    @staticmethod
    def settle(call: dict[str, Any], outcome: "Failure | Answer") -> None:
        if isinstance(outcome, Failure):
            call["status"], call["at_end"] = outcome.status, time.time()
            call["authorized"] = not outcome.denied
            if outcome.retry_after_s is not None:
                call["retry_after_s"] = outcome.retry_after_s
            return
        call["status"], call["at_end"] = 200, time.time()
        call["reply"] = outcome.text
        if outcome.tool is not None:
            call["tool_use"] = outcome.tool.name

    def record_catalog_read(self, provider: str) -> None:
        self.model_calls.append({"provider": provider, "at": time.time()})

    # Deciding: each step answers "fail this way" or lets the request through.
    async def respond(self, turn: Turn) -> Failure | Answer:
        prov = self.known(turn.provider)
        model = turn.requested_model or prov.default_model or (prov.models[0] if prov.models else "sim-default")
        if (denied := self.authorise(turn, prov)) is not None:
            return denied
        if prov.latency_ms:
            await asyncio.sleep(prov.latency_ms / 1000)
        if (wait := self.throttle(turn.provider, prov)) is not None:
            shape = self.shape(turn.api, prov)
            return Failure(
                429, "rate_limit", shape, model, wait, rate_headers=self.rate_headers(turn.provider, prov, shape)
            )
        if (injected := self.inject(turn.provider, prov, model, "chat", turn.last_user, turn.api)) is not None:
            if injected.kind == "timeout":
                await asyncio.sleep(injected.hold_s)
            return Failure(
                injected.status,
                injected.kind,
                injected.shape or NATIVE_SHAPE[turn.api],
                model,
                injected.retry_after_s,
                injected.message,
                window=injected.window if injected.kind == "subscription_limit" else None,
            )
        if turn.requested_model and not any(fnmatch.fnmatchcase(turn.requested_model, m) for m in prov.models):
            return Failure(404, "model_not_found", self.shape(turn.api, prov), model)
        return Answer(
            model=model,
            text=deterministic_reply(model, turn.messages) + _tool_error_note(turn.tool_error),
            tool=None if turn.tool_result else self.tool_use(turn.provider, prov, turn.last_user),
            cut_after_chunks=prov.cut_after_chunks if self.cut(turn.provider, prov) else None,
            chunk_delay_s=prov.chunk_delay_ms / 1000,
            input_tokens=len(json.dumps(turn.messages)) // 4,
            cached_tokens=len(json.dumps(turn.messages[:-1])) // 4 if len(turn.messages) > 1 else 0,
            include_usage=turn.include_usage,
        )

    async def respond_catalog(self, provider: str, credential: str | None) -> Failure | list[str]:
        prov = self.known(provider)
        if prov.api_key is not None and credential != prov.api_key:
            return Failure(401 if prov.shape != "gemini" else 400, "auth", prov.shape, None, denied=True)
        self.record_catalog_read(provider)
        if (injected := self.inject(provider, prov, None, "models")) is not None:
            return Failure(
                injected.status,
                injected.kind,
                injected.shape or "openai",
                None,
                injected.retry_after_s,
                injected.message,
            )
        return list(prov.models)

    @staticmethod
    def shape(api: str, prov: SimProvider) -> str:
        """The error body shape for the simulator's own errors (auth, quota bucket, unknown model)."""
        return prov.shape if api == "chat" else NATIVE_SHAPE[api]

    def authorise(self, turn: Turn, prov: SimProvider) -> Failure | None:
        if prov.api_key is None or turn.credential == prov.api_key:
            return None
        shape = self.shape(turn.api, prov)
        return Failure(401 if shape != "gemini" else 400, "auth", shape, None, denied=True)

    def throttle(self, name: str, prov: SimProvider) -> float | None:
        """The token bucket: None when the call may go ahead, else seconds until it could."""
        if prov.rpm is None:
            return None
        now = time.monotonic()
        bucket = self._buckets.get(name)
        if bucket is None:
            bucket = self._buckets[name] = _Bucket(prov.burst, prov.rpm / 60.0, prov.burst, now)
        return bucket.take(now)

    def rate_headers(self, name: str, prov: SimProvider, shape: str) -> dict[str, str]:
        """The token bucket as the provider's rate-limit headers state it (limit per minute, what is left,
        when it is full again), in the provider family's names; none when the provider has no limit."""
        bucket = self._buckets.get(name)
        if prov.rpm is None or not prov.rate_headers or bucket is None:
            return {}
        limit, remaining = f"{prov.rpm:g}", str(int(bucket.tokens))
        full_in = (bucket.capacity - bucket.tokens) / bucket.rate_per_s
        if shape == "anthropic":
            reset = (datetime.now(UTC) + timedelta(seconds=full_in)).strftime("%Y-%m-%dT%H:%M:%SZ")
            return {
                "anthropic-ratelimit-requests-limit": limit,
                "anthropic-ratelimit-requests-remaining": remaining,
                "anthropic-ratelimit-requests-reset": reset,
            }
        return {
            "x-ratelimit-limit-requests": limit,
            "x-ratelimit-remaining-requests": remaining,
            "x-ratelimit-reset-requests": f"{full_in:.3f}s",
        }

    def inject(
        self,
        name: str,
        prov: SimProvider,
        model: str | None,
        endpoint: str = "chat",
        last_user: str = "",
        api: str | None = None,
    ) -> InjectedFailure | None:
        for index, failure in enumerate(prov.failures):
            if endpoint not in failure.endpoints or (api and failure.apis and api not in failure.apis):
                continue
            if failure.models and not any(fnmatch.fnmatchcase(model or "", m) for m in failure.models):
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

    def tool_use(self, name: str, prov: SimProvider, last_user: str) -> ScriptedToolUse | None:
        for index, scripted in enumerate(prov.tool_uses):
            if scripted.match_text is not None and scripted.match_text not in last_user:
                continue
            used = self._tool_uses.get((name, index), 0)
            if scripted.times is not None and used >= scripted.times:
                continue
            self._tool_uses[(name, index)] = used + 1
            return scripted
        return None

    def cut(self, name: str, prov: SimProvider) -> bool:
        if prov.cut_after_chunks is None:
            return False
        done = self._cuts.get(name, 0)
        if prov.cut_times is not None and done >= prov.cut_times:
            return False
        self._cuts[name] = done + 1
        return True


def _unknown(name: str) -> Response:
    return JSONResponse(
        {"error": {"message": f"unknown simulated provider {name}", "type": "not_found"}}, status_code=404
    )


class _Handlers:
    """The simulator's HTTP endpoints over one Simulator: the provider APIs and the admin API tests drive."""

    def __init__(self, sim: Simulator):
        self.sim = sim

    async def models(self, request: Request) -> Response:
        name = request.path_params["provider"]
        if self.sim.provider(name) is None:
            return _unknown(name)
        outcome = await self.sim.respond_catalog(name, wire.credential(request))
        if isinstance(outcome, Failure):
            return wire.error_response(outcome)
        return JSONResponse(
            {"object": "list", "data": [{"id": m, "object": "model", "created": 0, "owned_by": name} for m in outcome]}
        )

    def generation(self, api: str) -> Callable[[Request], Awaitable[Response]]:
        async def handle(request: Request) -> Response:
            return await self.generate(api, request)

        return handle

    async def generate(self, api: str, request: Request) -> Response:
        sim, name = self.sim, request.path_params["provider"]
        if sim.provider(name) is None:
            return _unknown(name)
        body = await request.json()
        if api == "gemini":
            body["_target"] = request.path_params["target"]
        turn = wire.parse(api, name, body, wire.credential(request))
        call = sim.record(turn)
        outcome = await sim.respond(turn)
        sim.settle(call, outcome)
        if isinstance(outcome, Failure):
            return wire.error_response(outcome)
        response = wire.render(api, outcome, turn.stream, call, call_number=len(sim.calls))
        prov = sim.provider(name)  # read again: a test may have replaced it while the answer was held
        if prov is not None:
            response.headers.update(sim.rate_headers(name, prov, sim.shape(api, prov)))
        return response

    async def count_tokens(self, request: Request) -> Response:
        if self.sim.provider(request.path_params["provider"]) is None:
            return _unknown(request.path_params["provider"])
        return JSONResponse({"input_tokens": len(json.dumps(await request.json())) // 4})

    async def get_config(self, _: Request) -> Response:
        return JSONResponse(self.sim.config.model_dump(mode="json"))

    async def put_config(self, request: Request) -> Response:
        self.sim.set_config(SimConfig.model_validate(await request.json()))
        return JSONResponse({"ok": True})

    async def put_provider(self, request: Request) -> Response:
        self.sim.set_provider(request.path_params["provider"], SimProvider.model_validate(await request.json()))
        return JSONResponse({"ok": True})

    async def get_calls(self, request: Request) -> Response:
        provider = request.query_params.get("provider")
        return JSONResponse([c for c in self.sim.calls if provider is None or c["provider"] == provider])

    async def get_model_calls(self, request: Request) -> Response:
        provider = request.query_params.get("provider")
        return JSONResponse([c for c in self.sim.model_calls if provider is None or c["provider"] == provider])

    async def clear_calls(self, _: Request) -> Response:
        self.sim.calls.clear()
        self.sim.model_calls.clear()
        return JSONResponse({"ok": True})

    async def healthz(self, _: Request) -> Response:
        return JSONResponse({"ok": True, "providers": sorted(self.sim.config.providers)})


def build_app(sim: Simulator) -> Starlette:
    h = _Handlers(sim)
    return Starlette(
        routes=[
            Route("/p/{provider}/v1/models", h.models, methods=["GET"]),
            Route("/p/{provider}/v1/chat/completions", h.generation("chat"), methods=["POST"]),
            Route("/p/{provider}/v1/messages", h.generation("messages"), methods=["POST"]),
            Route("/p/{provider}/v1/messages/count_tokens", h.count_tokens, methods=["POST"]),
            Route("/p/{provider}/v1/responses", h.generation("responses"), methods=["POST"]),
            Route("/p/{provider}/v1beta/models/{target}", h.generation("gemini"), methods=["POST"]),
            Route("/admin/config", h.get_config, methods=["GET"]),
            Route("/admin/config", h.put_config, methods=["PUT"]),
            Route("/admin/providers/{provider}", h.put_provider, methods=["PUT"]),
            Route("/admin/calls", h.get_calls, methods=["GET"]),
            Route("/admin/calls", h.clear_calls, methods=["DELETE"]),
            Route("/admin/model-calls", h.get_model_calls, methods=["GET"]),
            Route("/healthz", h.healthz, methods=["GET"]),
        ]
    )
