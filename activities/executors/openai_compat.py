"""OpenAI-compatible chat endpoints over httpx. No client-side retries: the routing decider's short retries are the
only ones (the activity runs once)."""

import json
from collections.abc import Callable

import httpx
from opentelemetry import trace

from activities.executors.base import ProviderCallError, resolve_credential
from routing.classifier import FailureSignal
from routing.codes import Phase
from routing.config import ExecutionProfile
from routing.rate_limits import requests_per_minute
from routing.usage import Usage, from_openai

tracer = trace.get_tracer("office.executors")


class ChatResult:
    def __init__(self, text: str, model: str | None, limit_rpm: float | None = None, usage: Usage | None = None):
        self.text, self.model = text, model
        self.limit_rpm = limit_rpm  # the request limit the answer's rate-limit headers state
        self.usage = usage  # the stream's `usage` (None: the endpoint sent none)


class OpenAICompatExecutor:
    def __init__(
        self,
        provider: str,
        profile: ExecutionProfile,
        client: httpx.AsyncClient,
        usage_refused: set[str] | None = None,
    ):
        self.provider, self.profile, self.client = provider, profile, client
        self.base_url = (profile.base_url or "").rstrip("/")
        # Endpoints (base URLs) that refused `stream_options` (older OpenAI-compatible servers, Azure OpenAI before
        # api-version 2024-07-01): asked without it, so their answers carry no usage. The caller owns the set.
        self.usage_refused = usage_refused if usage_refused is not None else set()
        self.on_text: Callable[[str], None] | None = None  # each piece of the answer as it streams in

    def _headers(self, phase: Phase) -> dict[str, str]:
        try:
            key = resolve_credential(self.profile, self.provider, phase)
        except ProviderCallError as err:
            err.signal.phase = phase
            raise
        return {"authorization": f"Bearer {key}"} if key else {}

    def _signal(self, phase: Phase, **kw: object) -> FailureSignal:
        return FailureSignal(phase=phase, provider=self.provider, **kw)  # type: ignore[arg-type]

    async def _raise_for(self, response: httpx.Response, phase: Phase) -> None:
        if response.status_code < 400:
            return
        body = (await response.aread()).decode("utf-8", "replace")
        raise ProviderCallError(
            self._signal(phase, status=response.status_code, headers=dict(response.headers), body=body[:20000])
        )

    def _transport_error(self, exc: Exception, phase: Phase) -> ProviderCallError:
        return ProviderCallError(self._signal(phase, exception_type=type(exc).__name__, error_text=str(exc) or None))

    async def list_models(self) -> list[str]:
        with tracer.start_as_current_span("provider.list_models", attributes={"office.provider": self.provider}):
            return await self._list_models()

    async def _list_models(self) -> list[str]:
        phase = Phase.session_start
        try:
            response = await self.client.get(
                f"{self.base_url}/models", headers=self._headers(phase), timeout=min(30.0, self.profile.timeout_s)
            )
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, phase) from exc
        await self._raise_for(response, phase)
        data = response.json().get("data") or []
        return [str(m["id"]) for m in data if isinstance(m, dict) and m.get("id")]

    async def chat(self, model: str | None, messages: list[dict[str, str]]) -> ChatResult:
        """Streams the answer; a stream that ends without its final event is a failure, not an answer."""
        attributes: dict[str, str | int] = {
            "office.provider": self.provider,
            "office.model": model or "provider default",
            "office.messages": len(messages),
        }
        with tracer.start_as_current_span("provider.chat", attributes=attributes) as span:
            try:
                return await self._chat(model, messages)
            except ProviderCallError as err:
                span.set_attribute("http.status_code", err.signal.status or 0)
                span.set_status(trace.Status(trace.StatusCode.ERROR, str(err)))
                raise

    async def _chat(self, model: str | None, messages: list[dict[str, str]]) -> ChatResult:
        payload: dict[str, object] = {"messages": messages, "stream": True}
        if model:
            payload["model"] = model
        if self.base_url in self.usage_refused:
            return await self._stream(payload)
        # `include_usage`: the stream's last chunk before [DONE] carries the answer's `usage` (OpenAI's API).
        try:
            return await self._stream({**payload, "stream_options": {"include_usage": True}})
        except ProviderCallError as err:
            if err.signal.status != 400 or "stream_options" not in (err.signal.body or ""):
                raise
        # The server does not know the option (a 400 naming it): the same request without it, once; remembered.
        self.usage_refused.add(self.base_url)
        return await self._stream(payload)

    async def _stream(self, payload: dict[str, object]) -> ChatResult:
        phase = Phase.after_start
        parts: list[str] = []
        reported: str | None = None
        usage: Usage | None = None
        finished, done, limit_rpm = False, False, None
        try:
            async with self.client.stream(
                "POST",
                f"{self.base_url}/chat/completions",
                json=payload,
                headers=self._headers(phase),
                timeout=self.profile.timeout_s,
            ) as response:
                await self._raise_for(response, phase)
                limit_rpm = requests_per_minute(response.headers)
                # Read to the stream's end, past [DONE]: a response left unread closes its connection, and every
                # turn then paid a new connection (a TLS handshake, with a real provider).
                async for line in response.aiter_lines():
                    if done or not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        finished = done = True
                        continue
                    event = json.loads(data)
                    usage = from_openai(event.get("usage")) or usage  # the usage chunk follows the final one
                    if finished:
                        continue
                    reported = event.get("model") or reported
                    for choice in event.get("choices") or []:
                        piece = (choice.get("delta") or {}).get("content")
                        if piece:
                            parts.append(piece)
                            if self.on_text is not None:
                                self.on_text(piece)
                        if choice.get("finish_reason"):
                            finished = True
        except httpx.HTTPError as exc:
            raise self._transport_error(exc, phase) from exc
        if not finished:
            raise ProviderCallError(
                self._signal(
                    phase,
                    exception_type="StreamTruncated",
                    error_text=f"stream ended without a final event after {len(parts)} chunks",
                )
            )
        return ChatResult("".join(parts), reported, limit_rpm, usage)
