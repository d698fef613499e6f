"""An ACP executor: one agent process per session, spoken to over JSON-RPC on stdio with the
`agent-client-protocol` client side. It launches the profile's command, initialises, opens a session, reads
the models the agent advertises, makes at most one model-selection call, prompts, and always reaps."""

import asyncio
import contextlib
import ctypes
import os
import signal
import sys
from dataclasses import dataclass, field
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, connect_to_agent, text_block
from acp.meta import AGENT_METHODS
from acp.schema import ClientCapabilities, DeniedOutcome, Implementation, RequestPermissionResponse
from acp.transports import default_environment
from opentelemetry import trace

from activities.executors.base import ProviderCallError, resolve_credential
from routing.classifier import FailureSignal
from routing.codes import Phase
from routing.config import ExecutionProfile

METHOD_NOT_FOUND = -32601
LEGACY_SET_MODEL = "session/set_model"  # agents from before session config options (e.g. claude-code-acp 0.x)
# Claude Code reads its start model from this variable; the ACP bridge passes `_meta.claudeCode.options`
# through to the Claude Agent SDK, which is where an explicit fallback model goes.
CLAUDE_MODEL_ENV = "ANTHROPIC_MODEL"
STDIO_LIMIT = 16 * 1024 * 1024
tracer = trace.get_tracer("office.executors")


def is_claude_bridge(command: list[str]) -> bool:
    return any("claude-code-acp" in part or "claude-agent-acp" in part for part in command)


def launch_environment(profile: ExecutionProfile, provider: str, start_model: str | None) -> dict[str, str]:
    """A trimmed environment (no worker secrets leak by inheritance), the profile's own variables, the
    credential resolved from its reference, and for Claude's bridge the start model unless already set."""
    env = {**default_environment(), **profile.env}
    if (credential := resolve_credential(profile, provider)) is not None:
        env[profile.credential_env] = credential  # type: ignore[index]  # set whenever a credential resolved
    if is_claude_bridge(profile.command) and start_model and CLAUDE_MODEL_ENV not in env:
        env[CLAUDE_MODEL_ENV] = start_model
    return env


def _die_with_parent() -> None:  # runs in the child before exec: a killed worker takes its agents along
    with contextlib.suppress(Exception):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG


@dataclass
class ModelChoice:
    """What the agent advertises: a session config option of category `model`, or the older `models` state."""

    catalog: list[str] | None  # None: the agent offers no model selection
    current: str | None
    config_id: str | None = None


def models_from(session: dict[str, Any]) -> ModelChoice:
    for option in session.get("configOptions") or []:
        if option.get("category") == "model" and option.get("type") == "select":
            values: list[str] = []
            for entry in option.get("options") or []:
                values += [o["value"] for o in entry.get("options", [])] if "options" in entry else [entry["value"]]
            return ModelChoice(values, option.get("currentValue"), option.get("id"))
    legacy = session.get("models")
    if isinstance(legacy, dict) and legacy.get("availableModels") is not None:
        return ModelChoice([m["modelId"] for m in legacy["availableModels"]], legacy.get("currentModelId"))
    return ModelChoice(None, None)


class _Collector:
    """The client side the agent calls back: collects this session's message chunks; refuses file and
    terminal access (an office run grants no tools it has not been configured with)."""

    def __init__(self) -> None:
        self.chunks: list[str] = []
        self.updates = 0

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates += 1
        if getattr(update, "session_update", None) == "agent_message_chunk":
            content = getattr(update, "content", None)
            if getattr(content, "type", None) == "text":
                self.chunks.append(content.text)

    async def request_permission(self, *_: Any, **__: Any) -> Any:
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    def on_connect(self, conn: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        async def refuse(*_: Any, **__: Any) -> Any:
            raise RequestError.method_not_found(name)

        return refuse


@dataclass
class AgentSession:
    """One live agent process and its ACP session. It belongs to exactly one run."""

    run_id: str
    provider: str
    process: asyncio.subprocess.Process
    conn: Any
    collector: _Collector
    session_id: str = ""
    choice: ModelChoice = field(default_factory=lambda: ModelChoice(None, None))
    stderr_tail: list[str] = field(default_factory=list)
    prompts: int = 0
    stderr_reader: asyncio.Task | None = None

    @classmethod
    async def launch(
        cls, run_id: str, provider: str, profile: ExecutionProfile, env: dict[str, str], cwd: str | None = None
    ) -> "AgentSession":
        try:
            process = await asyncio.create_subprocess_exec(
                *profile.command,
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                env=env,
                cwd=cwd,
                limit=STDIO_LIMIT,
                start_new_session=True,
                preexec_fn=_die_with_parent if sys.platform == "linux" else None,
            )
        except FileNotFoundError as err:  # the shell's "command not found"
            raise ProviderCallError(
                FailureSignal(
                    phase=Phase.session_start,
                    provider=provider,
                    exit_code=127,
                    exception_type="FileNotFoundError",
                    error_text=f"agent command not found: {profile.command[0]} ({err.strerror})",
                )
            ) from err
        collector = _Collector()
        conn = connect_to_agent(collector, process.stdin, process.stdout)
        session = cls(run_id, provider, process, conn, collector)
        session.stderr_reader = asyncio.create_task(session._drain_stderr())  # an unread pipe would block it
        return session

    async def _drain_stderr(self) -> None:
        assert self.process.stderr is not None
        while line := await self.process.stderr.readline():
            self.stderr_tail = ([*self.stderr_tail, line.decode(errors="replace").rstrip()])[-20:]

    async def request(self, method: str, params: dict[str, Any], phase: Phase) -> dict[str, Any]:
        """A raw request, so fields from newer or older protocol versions are read, not dropped."""
        with tracer.start_as_current_span(
            "agent.request", attributes={"office.provider": self.provider, "rpc.method": method}
        ) as span:
            try:
                return await self._guard(self.conn._conn.send_request(method, params), phase) or {}
            except ProviderCallError as err:
                span.set_attribute("rpc.jsonrpc.error_code", err.signal.jsonrpc_code or 0)
                span.set_status(trace.Status(trace.StatusCode.ERROR, str(err)))
                raise

    async def start(self, cwd: str, meta: dict[str, Any] | None = None) -> None:
        init = {
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": ClientCapabilities().model_dump(by_alias=True, exclude_none=True),
            "clientInfo": Implementation(name="office", version="1").model_dump(by_alias=True, exclude_none=True),
        }
        await self.request(AGENT_METHODS["initialize"], init, Phase.session_start)
        params: dict[str, Any] = {"cwd": cwd, "mcpServers": []}
        if meta:
            params["_meta"] = meta
        created = await self.request(AGENT_METHODS["session_new"], params, Phase.session_start)
        self.session_id = created["sessionId"]
        self.choice = models_from(created)

    async def select_model(self, model: str) -> str | None:
        """The one selection call. Returns the model the agent reports as current afterwards, if it says."""
        if self.choice.config_id is not None:
            answer = await self.request(
                AGENT_METHODS["session_set_config_option"],
                {"sessionId": self.session_id, "configId": self.choice.config_id, "value": model},
                Phase.session_start,
            )
            after = models_from({"configOptions": answer.get("configOptions") or []})
            return after.current if after.catalog is not None else model
        await self.request(LEGACY_SET_MODEL, {"sessionId": self.session_id, "modelId": model}, Phase.session_start)
        return model

    async def prompt(self, text: str) -> str:
        self.collector.chunks.clear()
        self.prompts += 1
        answer = await self.request(
            AGENT_METHODS["session_prompt"],
            {"sessionId": self.session_id, "prompt": [text_block(text).model_dump(by_alias=True, exclude_none=True)]},
            Phase.after_start,
        )
        if answer.get("stopReason") not in (None, "end_turn", "max_tokens", "max_turn_requests"):
            raise ProviderCallError(
                FailureSignal(
                    phase=Phase.after_start,
                    provider=self.provider,
                    exception_type="AgentStopped",
                    error_text=f"agent stopped the turn: {answer.get('stopReason')}",
                )
            )
        return "".join(self.collector.chunks)

    def progress(self) -> dict:
        """How far the current turn got (counts only: content stays out of Temporal's heartbeat details)."""
        return {
            "message_chunks": len(self.collector.chunks),
            "session_updates": self.collector.updates,
            "chars": sum(map(len, self.collector.chunks)),
        }

    async def cancel(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self.conn._conn.send_notification(AGENT_METHODS["session_cancel"], {"sessionId": self.session_id}), 1.0
            )

    async def _guard(self, call: Any, phase: Phase) -> Any:
        """Runs one request, mapping protocol errors, a dead process and a broken pipe to signals."""
        waiter = asyncio.ensure_future(call)
        exited = asyncio.ensure_future(self.process.wait())
        try:
            done, _ = await asyncio.wait({waiter, exited}, return_when=asyncio.FIRST_COMPLETED)
        except asyncio.CancelledError:
            waiter.cancel()
            exited.cancel()
            raise
        if waiter in done:
            exited.cancel()
            try:
                return waiter.result()
            except RequestError as err:
                raise ProviderCallError(self._signal(phase, jsonrpc_code=err.code, error_text=_text(err))) from err
            except (ConnectionError, BrokenPipeError, EOFError, OSError) as err:
                with contextlib.suppress(asyncio.TimeoutError):  # a closed pipe usually means the agent exited
                    await asyncio.wait_for(asyncio.shield(exited), 1.0)
                if self.process.returncode is None:
                    raise ProviderCallError(
                        self._signal(
                            phase, exception_type=type(err).__name__, error_text=f"agent transport lost: {err}"
                        )
                    ) from err
        waiter.cancel()
        exited.cancel()
        code = self.process.returncode
        await asyncio.sleep(0.05)  # let the stderr reader take the last lines
        raise ProviderCallError(
            self._signal(
                phase,
                exit_code=code,
                exception_type="AgentExited",
                error_text=f"agent process exited with code {code}: {' | '.join(self.stderr_tail[-3:])}",
            )
        )

    def _signal(self, phase: Phase, **kw: Any) -> FailureSignal:
        return FailureSignal(phase=phase, provider=self.provider, **kw)

    async def close(self) -> None:
        """Always reaps: stdin closed, then the whole process group terminated, then killed."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(), 1.0)
        with contextlib.suppress(Exception):  # stdin closed: a well-behaved agent exits by itself
            assert self.process.stdin is not None
            self.process.stdin.close()
            await asyncio.wait_for(self.process.wait(), 1.0)
        if self.process.returncode is None:
            for sig, wait_s in ((signal.SIGTERM, 2.0), (signal.SIGKILL, 5.0)):
                with contextlib.suppress(ProcessLookupError, PermissionError):
                    os.killpg(self.process.pid, sig)
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(self.process.wait(), wait_s)
                    break
        with contextlib.suppress(ProcessLookupError, PermissionError):  # grandchildren (npx → node) too
            os.killpg(self.process.pid, signal.SIGKILL)


def _text(err: RequestError) -> str:
    data = err.data
    detail = (
        data
        if isinstance(data, str)
        else (data.get("details") or data.get("message"))
        if isinstance(data, dict)
        else None
    )
    return f"{err}: {detail}" if detail and str(detail) not in str(err) else str(err)
