"""An ACP executor: one agent process per session, spoken to over JSON-RPC on stdio with the
`agent-client-protocol` client side. It launches the profile's command, initialises, opens a session, reads
the models the agent advertises, makes at most one model-selection call, prompts, and always reaps."""

import asyncio
import contextlib
import json
import os
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from acp import PROTOCOL_VERSION, RequestError, text_block
from acp.client.router import build_client_router
from acp.connection import Connection
from acp.meta import AGENT_METHODS
from acp.schema import (
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    FileSystemCapabilities,
    Implementation,
    ReadTextFileResponse,
    RequestPermissionResponse,
    WriteTextFileResponse,
)
from opentelemetry import trace

from activities.executors import acp_fs
from activities.executors.agent_model import usage_limit_signal
from activities.executors.agents import CLAUDE_CODE, AgentAdapter, adapter_for, read_relayed
from activities.executors.base import ProviderCallError
from activities.executors.launcher import LaunchedAgent, adapter_of, launch, launch_command
from activities.executors.sandbox import Sandbox, SandboxPlan
from activities.git import workcopy
from activities.questions import OpenQuestions
from routing.classifier import ANSWER_TOO_LARGE, FailureSignal, classify, is_learned, unverified, worker_fault
from routing.codes import ANSWER_LIMIT_BYTES, ErrorCode, Phase, limit_text
from routing.config import ExecutionProfile
from routing.decider import LAUNCH_STALLED_RULE
from routing.permissions import (
    MAX_CHECKED_PATHS,
    PermissionCounts,
    PermissionPolicy,
    PermissionVerdict,
    choose_option,
    decide_permission,
    narrow,
    read_tool_call,
    to_resolve,
)
from routing.progress import ProgressLog
from routing.usage import from_acp_prompt

METHOD_NOT_FOUND = -32601
LEGACY_SET_MODEL = "session/set_model"  # agents from before session config options (e.g. claude-code-acp 0.x)
FS_REFUSED = -32001  # an fs/* call the run's permission policy or working copy confinement refuses
STDERR_LINES, STDERR_LINE_BYTES = 20, 2048  # what is kept of an agent's stderr for its failure's excerpt
# An agent that has not answered `initialize` by then failed to start: the attempt fails, the worker goes on.
LAUNCH_TIMEOUT_S = 60.0
AUTH_REQUIRED_CODE = -32000  # ACP's RequestError.authRequired
tracer = trace.get_tracer("office.executors")


def is_claude_bridge(profile: ExecutionProfile) -> bool:
    return adapter_of(profile).name == "claude-code"


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


def _value(obj: Any, name: str) -> Any:
    value = getattr(obj, name, None)
    return getattr(value, "value", value)


class _Collector:
    """The client side the agent calls back: collects this session's message chunks and answers permission
    requests and `fs/*` calls from the run's permission policy, inside the session's working directory only.
    Terminals are not offered (every other client method is refused).

    Paths are judged by the pure policy on what they really are: every path a request names (and every word of its
    command) is resolved here with os.path.realpath against the working directory, so a symlink leading out of the
    working copy is refused. A turn's answer is kept up to `answer_limit` bytes (ANSWER_LIMIT_BYTES); the chunks past
    it are dropped as they come, and `answer()` then fails the turn as answer_too_large."""

    def __init__(
        self, policy: PermissionPolicy | None = None, cwd: str | None = None, answer_limit: int = ANSWER_LIMIT_BYTES
    ) -> None:
        self.chunks: list[str] = []
        self.final_from = 0  # the turn's chunks from here on are its last message (after its last tool call)
        self.updates = 0
        self.policy, self.cwd = policy or PermissionPolicy(), cwd
        self.tool_kinds: dict[str, str] = {}  # tool call id → kind, from the agent's tool_call updates
        self.permissions: list[str] = []  # what was asked and how it was answered (this session, for logs)
        self.counts = PermissionCounts()  # this turn's decisions by kind (reset per prompt)
        self.questions = OpenQuestions()  # requests the policy marks `ask`, waiting for the run's person
        self.approved: dict[str, set[str]] = {}  # kind → real paths a person allowed this turn (reset per prompt)
        self.answer_limit = answer_limit
        self.answer_bytes = 0  # this turn's answer so far, as it travels (UTF-8 JSON), kept or dropped
        self.overflowed = False  # this turn's answer passed the limit: nothing more is kept
        self._kept = 0  # len(chunks) after the last chunk kept: fewer means a new turn cleared them
        self.progress: ProgressLog | None = None  # the running turn's, for `office watch` (activities.run_events)
        self.fs_calls = 0

    async def session_update(self, session_id: str, update: Any, **_: Any) -> None:
        self.updates += 1
        kind = getattr(update, "session_update", None)
        if kind == "agent_message_chunk":
            content = getattr(update, "content", None)
            if content is not None and getattr(content, "type", None) == "text":
                self._collect(content.text)
                if self.progress is not None:
                    self.progress.message(content.text, datetime.now(UTC))
        elif kind in ("tool_call", "tool_call_update"):
            if kind == "tool_call":
                self.final_from = len(self.chunks)
            if _value(update, "kind"):
                self.tool_kinds[update.tool_call_id] = _value(update, "kind")
            if self.progress is not None:  # kind, title and paths only: a call's content may hold a file's
                locations = [getattr(loc, "path", None) or "" for loc in getattr(update, "locations", None) or []]
                self.progress.tool(
                    update.tool_call_id, _value(update, "kind"), getattr(update, "title", None), locations,
                    _value(update, "status"), datetime.now(UTC),
                )  # fmt: skip

    def _collect(self, text: str) -> None:
        if len(self.chunks) < self._kept:  # the chunks were cleared for a new turn
            self.answer_bytes, self.overflowed, self._kept = 0, False, 0
        if self.overflowed:  # past the limit: counted (roughly), never kept
            self.answer_bytes += len(text)
            return
        room = self.answer_limit - self.answer_bytes
        size = len(text) if len(text) > room else self._json_size(text)  # a char is at least a byte: no need to encode
        self.answer_bytes += size
        if size > room:
            self.overflowed = True
            return
        self.chunks.append(text)
        self._kept = len(self.chunks)

    def answer(self, provider: str | None = None) -> str:
        """This turn's answer, its chunks released; ProviderCallError (answer_too_large, naming the limit) when it
        passed the limit: what was kept is not an answer, and asking again would only repeat it."""
        text, size, overflowed = "".join(self.chunks), self.answer_bytes, self.overflowed
        self.chunks.clear()
        self.answer_bytes, self.overflowed, self._kept = 0, False, 0
        if overflowed:
            raise ProviderCallError(
                FailureSignal(
                    phase=Phase.after_start,
                    provider=provider,
                    exception_type=ANSWER_TOO_LARGE,
                    error_text=(
                        f"the agent's answer to this turn came to at least {size} bytes, more than the "
                        f"{limit_text(self.answer_limit)} a run keeps for one answer (ANSWER_LIMIT_BYTES); "
                        "the rest was dropped and the turn failed"
                    ),
                )
            )
        return text

    def _decide(
        self, kind: str | None, raw_input: object = None, locations: list[str] | None = None
    ) -> PermissionVerdict:
        """The pure policy's verdict, on the real paths of everything the request names."""
        request = read_tool_call(kind, raw_input, locations or [])
        workdir = self.cwd or ""
        keys = to_resolve(request, workdir)
        real: dict[str, str] = {}
        if len(keys) <= MAX_CHECKED_PATHS:  # more are refused unresolved
            for key in keys:
                with contextlib.suppress(OSError, ValueError):  # unresolved: refused
                    real[key] = os.path.realpath(key)
        return decide_permission(
            self.policy,
            request.kind,
            request.paths,
            request.command,
            workdir,
            dirs=request.dirs,
            patterns=request.patterns,
            real=real,
            real_workdir=os.path.realpath(workdir) if workdir.startswith("/") else None,
        )

    async def _judged(
        self, kind: str | None, raw_input: object, locations: list[str] | None, title: str
    ) -> PermissionVerdict:
        """The policy's verdict; where it says `ask`, the run's person decides (activities.questions). Paths a
        person allowed earlier in this turn (a request, then the fs/* call that carries it out) are not asked again."""
        verdict = self._decide(kind, raw_input, locations)
        if not verdict.ask:
            return verdict
        request = read_tool_call(kind, raw_input, locations or [])
        workdir = self.cwd or ""
        real = self._real_paths(request.paths)
        if real and real <= self.approved.get(verdict.kind, set()):
            return verdict.model_copy(update={"allowed": True, "reason": "allowed by a person earlier in this turn"})
        allowed = await self.questions.ask(verdict.kind, title, request.paths, request.command, workdir)
        if allowed:
            self.approved.setdefault(verdict.kind, set()).update(real)
        reason = "allowed by a person" if allowed else "refused: a person said no, or nobody answered in time"
        return verdict.model_copy(update={"allowed": allowed, "reason": reason})

    def _real_paths(self, paths: tuple[str, ...]) -> set[str]:
        """The real paths a request names (the policy has checked each lies in the working copy)."""
        workdir = self.cwd or ""
        return {os.path.realpath(os.path.join(workdir, p)) for p in paths} if workdir else set()

    async def request_permission(self, session_id: str, tool_call: Any, options: list[Any], **_: Any) -> Any:
        kind = _value(tool_call, "kind") or self.tool_kinds.get(getattr(tool_call, "tool_call_id", ""))
        title = getattr(tool_call, "title", None) or kind or "tool"
        locations = [getattr(loc, "path", None) or "" for loc in getattr(tool_call, "locations", None) or []]
        verdict = await self._judged(kind, getattr(tool_call, "raw_input", None), locations, title)
        choice = choose_option(verdict, options)
        self.counts = self.counts.add(verdict.kind, choice.allowed)
        self.permissions.append(f"{'allowed' if choice.allowed else 'refused'}: {title} ({choice.reason})")
        if choice.option_id is not None:
            return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=choice.option_id))
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))

    async def _fs(self, kind: str, path: str) -> str:
        """The policy's verdict on an `fs/*` call (counted like a permission request); the root to confine to."""
        verdict = await self._judged(kind, {"path": path}, None, f"fs {kind} {path}")
        if self.progress is not None:  # shown as the tool call it is (and as failed when refused)
            self.fs_calls += 1
            status = None if verdict.allowed else "failed"
            self.progress.tool(f"fs-{self.fs_calls}", kind, f"fs {kind}", [path], status, datetime.now(UTC))
        self.counts = self.counts.add(verdict.kind, verdict.allowed)
        self.permissions.append(f"{'allowed' if verdict.allowed else 'refused'}: fs {kind} {path}")
        if not verdict.allowed or not self.cwd:
            raise RequestError(FS_REFUSED, verdict.reason, {"path": path})
        return self.cwd

    async def read_text_file(
        self, session_id: str, path: str, line: int | None = None, limit: int | None = None, **_: Any
    ) -> ReadTextFileResponse:
        root = await self._fs("read", path)
        try:
            content = await asyncio.to_thread(acp_fs.read_text_file, root, path, line, limit)
        except PermissionError as err:
            raise RequestError(FS_REFUSED, str(err), {"path": path}) from err
        except acp_fs.FileTooLargeError as err:
            raise RequestError(FS_REFUSED, str(err), {"path": path, "limit_bytes": acp_fs.MAX_READ_BYTES}) from err
        except OSError as err:
            raise RequestError.resource_not_found(path) from err
        return ReadTextFileResponse(content=content)

    async def write_text_file(self, session_id: str, path: str, content: str, **_: Any) -> WriteTextFileResponse:
        root = await self._fs("edit", path)
        try:
            await asyncio.to_thread(acp_fs.write_text_file, root, path, content)
        except PermissionError as err:
            raise RequestError(FS_REFUSED, str(err), {"path": path}) from err
        except OSError as err:  # a directory, a FIFO with no reader, a full disk: the agent hears why
            raise RequestError(FS_REFUSED, f"{path}: {err.strerror or err}", {"path": path}) from err
        return WriteTextFileResponse()

    def on_connect(self, conn: Any) -> None:
        pass

    def __getattr__(self, name: str) -> Any:
        async def refuse(*_: Any, **__: Any) -> Any:
            raise RequestError.method_not_found(name)

        return refuse

    @staticmethod
    def _json_size(text: str) -> int:
        """Bytes `text` takes as a JSON string in a Temporal payload (UTF-8, control characters escaped)."""
        return len(json.dumps(text, ensure_ascii=False).encode("utf-8", "surrogatepass")) - 2  # quotes aside


RETRY_LINE_WAIT_S = 0.5  # how long an empty answer waits for the plugin's line saying the agent's retry was stopped


def _said_when_stopped(payload: str) -> str:
    """The provider's message from the plugin's line ({"message": …}), read as the agent's error would have been;
    the line itself when it is not that JSON."""
    try:
        message = json.loads(payload).get("message")
    except (ValueError, AttributeError):
        message = None
    text = message if isinstance(message, str) and message.strip() else payload
    return text.strip() or "the agent's own retry was stopped (no message)"


def _used_tokens(answer: dict[str, Any]) -> bool:
    usage = from_acp_prompt(answer)
    return usage is not None and (usage.input_tokens > 0 or usage.output_tokens > 0)


@dataclass
class AgentSession:
    """One live agent process and its ACP session. It belongs to exactly one run."""

    run_id: str
    provider: str
    process: asyncio.subprocess.Process
    conn: Connection
    collector: _Collector
    session_id: str = ""
    choice: ModelChoice = field(default_factory=lambda: ModelChoice(None, None))
    stderr_tail: list[str] = field(default_factory=list)
    prompts: int = 0
    stderr_reader: asyncio.Task[None] | None = None
    adapter: AgentAdapter = field(default_factory=lambda: adapter_for([]))
    workcopy: "workcopy.WorkCopy | None" = None  # with a repository: the attempt's working copy (the cwd)
    profile: ExecutionProfile | None = None  # what it was launched from (the store's): its turns account to it
    note: str | None = None  # the continuation note the first prompt of a fresh session starts with
    launched: LaunchedAgent | None = None  # the process with its sandbox: reaped together
    last_answer: dict[str, Any] = field(default_factory=dict)  # the last session/prompt result, as the agent sent it
    own_retry_stopped: str | None = None  # this turn: what the provider said when the agent's own retry was stopped
    retry_stopped_seen: asyncio.Event = field(default_factory=asyncio.Event)
    agent: str = ""  # the run's agent profile (attempt rows count usage by agent)

    @classmethod
    async def launch(
        cls,
        run_id: str,
        provider: str,
        profile: ExecutionProfile,
        env: dict[str, str],
        cwd: str,
        work_dir: str,
        sandbox: SandboxPlan | None,
        policy: PermissionPolicy | None = None,
    ) -> "AgentSession":
        """Starts the profile's agent through the launcher (sandboxed unless `sandbox` is None). A missing command
        is the shell's "command not found"; a command the repository could decide is CommandRefused."""
        try:
            launched = await launch(launch_command(profile), env, cwd, sandbox, work_dir)
        except FileNotFoundError as err:
            raise ProviderCallError(
                FailureSignal(
                    phase=Phase.session_start,
                    provider=provider,
                    exit_code=127,
                    exception_type="FileNotFoundError",
                    error_text=f"agent command not found: {profile.command[0]} ({err.strerror})",
                )
            ) from err
        collector = _Collector(narrow(policy or PermissionPolicy(), profile.permissions), cwd)
        process = launched.process
        # The library's own connection, driven by raw requests: fields of newer or older protocol versions are read,
        # not dropped by a typed model.
        if process.stdin is None or process.stdout is None:
            raise RuntimeError("the launcher starts every agent with sockets for stdin and stdout")
        conn = Connection(build_client_router(collector), process.stdin, process.stdout)
        session = cls(run_id, provider, process, conn, collector, adapter=adapter_of(profile), profile=profile)
        session.launched = launched
        session.stderr_reader = asyncio.create_task(session._drain_stderr())  # an unread pipe would block it
        return session

    async def _drain_stderr(self) -> None:
        """Keeps the last lines the agent wrote to stderr (each cut short), reading to the end however long a line
        is: an error message needs a few lines, and a flood must not pin the worker's memory."""
        stream = self.process.stderr
        if stream is None:  # launched without a stderr pipe: nothing to keep
            return
        while True:
            try:
                line = await stream.readuntil(b"\n")
            except asyncio.IncompleteReadError as end:
                line = end.partial
            except asyncio.LimitOverrunError as long:  # a line longer than the buffer: keep its start, skip the rest
                line = await stream.read(long.consumed)
            if not line:
                return
            text = line[:STDERR_LINE_BYTES].decode(errors="replace").rstrip()
            marker = self.adapter.retry_stopped_marker
            if marker is not None and text.startswith(marker):
                self.own_retry_stopped = _said_when_stopped(text.removeprefix(marker))
                self.retry_stopped_seen.set()
            self.stderr_tail = [*self.stderr_tail, text][-STDERR_LINES:]

    async def request(self, method: str, params: dict[str, Any], phase: Phase) -> dict[str, Any]:
        """A raw request, so fields from newer or older protocol versions are read, not dropped."""
        with tracer.start_as_current_span(
            "agent.request", attributes={"office.provider": self.provider, "rpc.method": method}
        ) as span:
            try:
                return await self._guard(self.conn.send_request(method, params), phase) or {}
            except ProviderCallError as err:
                span.set_attribute("rpc.jsonrpc.error_code", err.signal.jsonrpc_code or 0)
                span.set_status(trace.Status(trace.StatusCode.ERROR, str(err)))
                raise

    async def start(self, cwd: str, meta: dict[str, Any] | None = None) -> None:
        init = {
            "protocolVersion": PROTOCOL_VERSION,
            "clientCapabilities": ClientCapabilities(  # fs/* answered inside the working copy, by the policy
                fs=FileSystemCapabilities(read_text_file=True, write_text_file=True)
            ).model_dump(by_alias=True, exclude_none=True),
            "clientInfo": Implementation(name="office", version="1").model_dump(by_alias=True, exclude_none=True),
        }
        try:
            await asyncio.wait_for(
                self.request(AGENT_METHODS["initialize"], init, Phase.session_start), LAUNCH_TIMEOUT_S
            )
        except TimeoutError:
            raise self._launch_stalled() from None
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
        self.collector.final_from = 0
        self.own_retry_stopped = None
        self.retry_stopped_seen.clear()
        self.collector.counts = PermissionCounts()
        self.collector.approved = {}
        self.prompts += 1
        if (sandbox := self._sandbox()) is not None:
            sandbox.turn_started()
        prompt = [text_block(text).model_dump(by_alias=True, exclude_none=True)]
        try:
            answer = await self.request(
                AGENT_METHODS["session_prompt"], {"sessionId": self.session_id, "prompt": prompt}, Phase.after_start
            )
        except ProviderCallError as err:
            if not self._answer_read_as_login(err):
                raise
            answer = {"stopReason": "end_turn"}  # the bridge threw away the turn's usage with its result
        self.last_answer = answer
        if (said := await self._own_retry_stopped(answer)) is not None:
            # Words the agent's process relays on its stderr, not the provider's own answer: they decide this run's
            # next step, and never a verdict on the provider for every run.
            signal = self._signal(Phase.after_start, error_text=said)
            reading = unverified(classify(signal, datetime.now(UTC)))
            raise ProviderCallError(signal, usage=from_acp_prompt(answer), finding=reading)
        if answer.get("stopReason") not in (None, "end_turn", "max_tokens", "max_turn_requests"):
            raise ProviderCallError(
                FailureSignal(
                    phase=Phase.after_start,
                    provider=self.provider,
                    exception_type="AgentStopped",
                    error_text=f"agent stopped the turn: {answer.get('stopReason')}",
                ),
                usage=from_acp_prompt(answer),  # a refused turn may still have used (and billed) tokens
            )
        return self.collector.answer(self.provider)  # answer_too_large past ANSWER_LIMIT_BYTES

    def progress(self) -> dict[str, int]:
        """How far the current turn got (counts only: content stays out of Temporal's heartbeat details)."""
        return {
            "message_chunks": len(self.collector.chunks),
            "session_updates": self.collector.updates,
            "chars": sum(map(len, self.collector.chunks)),
        }

    async def cancel(self) -> None:
        with contextlib.suppress(Exception):
            await asyncio.wait_for(
                self.conn.send_notification(AGENT_METHODS["session_cancel"], {"sessionId": self.session_id}), 1.0
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
            try:
                result = waiter.result()
            except RequestError as err:
                exited.cancel()
                raise ProviderCallError(self._signal(phase, jsonrpc_code=err.code, error_text=_text(err))) from err
            except (ConnectionError, BrokenPipeError, EOFError, OSError, asyncio.CancelledError) as err:
                # The pipe closed (the library may cancel what was pending): usually the agent exited. `exited` is
                # still awaited here, so its exit is an exit (provider_unavailable), never a cancellation.
                with contextlib.suppress(asyncio.TimeoutError):
                    await asyncio.wait_for(asyncio.shield(exited), 1.0)
                if self.process.returncode is None:
                    exited.cancel()
                    raise ProviderCallError(
                        self._signal(
                            phase, exception_type=type(err).__name__, error_text=f"agent transport lost: {err}"
                        )
                    ) from err
            else:
                exited.cancel()
                return result
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

    async def _own_retry_stopped(self, answer: dict[str, Any]) -> str | None:
        """What the provider said when the office's plugin stopped the agent's own retry in this turn (the agent
        then ends the turn as if it had finished), else None. The plugin's stderr line is written before the
        abort, but on another pipe than the answer: a turn that answered nothing is given a moment for it."""
        if self.adapter.retry_stopped_marker is None:
            return None
        if self.own_retry_stopped is None and not self.collector.chunks and not _used_tokens(answer):
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.retry_stopped_seen.wait(), RETRY_LINE_WAIT_S)
        return self.own_retry_stopped

    def _answer_read_as_login(self, err: ProviderCallError) -> bool:
        """A turn the agent finished whose answer the bridge took for its own "not logged in" notice: the model's
        last message held the adapter's login words (repository content can make it say them), and the bridge threw
        authRequired in place of the turn's result. Claude Code's real notice is its own synthetic message, never
        streamed as the model's text, so login words in the turn's streamed last message (the text after its last
        tool call, which is what the bridge reads) are the model's: the turn stands, and the provider is never
        marked as needing a login for every run. Words said before a tool call leave a later real notice alone."""
        collector = self.collector
        words, said = self.adapter.login_words, "".join(collector.chunks[collector.final_from :])
        return words is not None and err.signal.jsonrpc_code == AUTH_REQUIRED_CODE and words in said

    def _launch_stalled(self) -> ProviderCallError:
        """An agent that has not answered `initialize` has not called its provider for the run yet: unless its own
        last words name something more specific than the stall (a provider's failure, read above the timeout), the
        worker could not start it in time (a loaded machine, an agent that hangs at start), which is never booked
        against the provider."""
        said = " | ".join(self.stderr_tail[-3:])
        signal = self._signal(
            Phase.session_start,
            exception_type="AgentLaunchTimeout",
            error_text=f"agent did not answer initialize within {LAUNCH_TIMEOUT_S:.0f} s: {said}",
        )
        reading = classify(signal, datetime.now(UTC))
        if reading.code not in (ErrorCode.timeout, ErrorCode.unknown) and not is_learned(reading):
            return ProviderCallError(signal, finding=reading)
        what = f"the agent did not answer initialize within {LAUNCH_TIMEOUT_S:.0f} s" + (f" ({said})" if said else "")
        stalled = worker_fault(Phase.session_start, self.provider, LAUNCH_STALLED_RULE, what)
        return ProviderCallError(signal, finding=stalled)

    def _sandbox(self) -> Sandbox | None:
        return self.launched.sandbox if self.launched is not None else None

    def _signal(self, phase: Phase, **kw: Any) -> FailureSignal:
        signal = read_relayed(self.adapter, FailureSignal(phase=phase, provider=self.provider, **kw))
        if (sandbox := self._sandbox()) is not None and sandbox.provider_fault is not None:
            # the transport as the worker's relay saw it, beside whatever words the agent found for it
            signal = signal.model_copy(update={"relay_fault": sandbox.provider_fault})
        if self.adapter is CLAUDE_CODE:  # a subscription window's notice: a quota with the reset its clock names
            signal = usage_limit_signal(signal, datetime.now(UTC)) or signal
        return signal

    async def close(self) -> None:
        """Always reaps: stdin closed (a well-behaved agent exits by itself), then the launcher ends the rest."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.conn.close(), 1.0)
        with contextlib.suppress(Exception):
            if self.process.stdin is not None:
                self.process.stdin.close()
            await asyncio.wait_for(self.process.wait(), 1.0)
        if self.launched is not None:
            await self.launched.reap()


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
