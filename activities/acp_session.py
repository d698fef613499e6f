"""ACP sessions as activities. `acp_start` runs on the shared queue: it launches the agent, applies the
start-model policy and keeps the live process in this worker. `acp_turn` and `acp_close` run on this
worker's own task queue, so every later turn reaches the process that holds the session."""

import asyncio
import contextlib
import glob
import logging
import os
import re
import shutil
import stat
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

from acp.meta import AGENT_METHODS
from temporalio import activity
from temporalio.exceptions import ApplicationError

from activities import bookkeeping
from activities.boundary import RunBoundary
from activities.executors.acp import METHOD_NOT_FOUND, AgentSession, is_claude_bridge
from activities.executors.agent_model import (
    answered_by,
    claude_transcript_pattern,
    claude_turn_models,
    claude_turn_usage,
    is_claude_alias,
    reported_models,
)
from activities.executors.agents import refused_repository_config
from activities.executors.base import ProviderCallError
from activities.executors.launcher import (
    CommandRefused,
    adapter_of,
    kill_orphaned_agents,
    launch_environment,
    sandbox_plan,
)
from activities.executors.sandbox import HOME as SANDBOX_HOME
from activities.executors.sandbox import SandboxUnavailable
from activities.git import workcopy
from activities.git.mirrors import Mirrors
from activities.heartbeat import heartbeating
from activities.shutdown import fails_on_worker_shutdown
from activities.start_policy import settle_start
from activities.turn_pipeline import Turn, TurnAnswer, TurnCommitted, run_turn
from activities.workdir import default_work_dir, private_dir
from contracts.activities import (
    AcpAnswerInput,
    AcpCloseInput,
    AcpStarted,
    AcpStartInput,
    AcpTurnInput,
    Activity,
    SessionStarted,
    SessionTurnOutput,
)
from contracts.failures import CONFIG_ERROR, configuration_failure, provider_failure, refused
from routing.classifier import Classification, worker_fault
from routing.codes import ErrorClass, ErrorCode, Phase
from routing.model_policy import plan_model, settle_model
from routing.permissions import PermissionCounts
from routing.progress import ProgressLog
from routing.questions import PERMISSION_ASKED, PermissionAsked
from routing.repository import (
    BranchMovedError,
    RepositoryConfig,
    RepositoryConfigError,
    RepositoryUnavailableError,
)
from routing.run import Candidate
from routing.sandbox import NO_SANDBOX_WARNING, SandboxSettings
from routing.transcript import Entry, forward
from routing.usage import from_acp_prompt
from store.repository import Store
from store.rows import utcnow

log = logging.getLogger(__name__)
T = TypeVar("T")


def repository_failure(err: Exception, provider: str, phase: Phase) -> ApplicationError:
    """Bad repository settings (or a branch someone else moved) end the run with a message naming the setting:
    classified `invalid_configuration`, never a provider failure, never routed to another provider."""
    setting = getattr(err, "setting", "repository")
    failure = Classification(
        code=ErrorCode.invalid_configuration,
        error_class=ErrorClass.terminal,
        confidence=1.0,
        phase=phase,
        rule=f"repository:{setting}" if isinstance(err, RepositoryConfigError) else "repository:branch_moved",
        excerpt=f"Workspace setting {setting}: {err}" if isinstance(err, RepositoryConfigError) else str(err),
        provider=provider,
    )
    return ApplicationError(failure.excerpt, failure.model_dump(mode="json"), type=CONFIG_ERROR, non_retryable=True)


async def launch_failure(
    err: ProviderCallError | CommandRefused | SandboxUnavailable, provider: str, workspace: str
) -> ApplicationError:
    """A missing agent is the provider's (not configured: fall back); a command the repository could decide or a
    worker that cannot sandbox is the workspace's configuration: the run ends with the setting to change. (Read off
    the event loop, as every failure a worker classifies: a text no rule reads is embedded.)"""
    if isinstance(err, ProviderCallError):
        return provider_failure(await err.classified(utcnow()))
    if isinstance(err, SandboxUnavailable):
        return configuration_failure(
            "sandbox", f"{err}; or set `sandbox: none` in workspace {workspace!r}", provider, Phase.session_start
        )
    return configuration_failure(f"providers.{provider}.command", str(err), provider, Phase.session_start)


async def durably(call: Callable[[], Awaitable[T]], what: str) -> T:
    """A repository that worked before and is unreachable now is infrastructure: retried here (jittered,
    up to 30 s apart) until it is back or the activity's timeout ends the attempt; never a provider failure."""
    delay = 1.0
    while True:
        try:
            return await call()
        except RepositoryUnavailableError as err:
            log.warning("%s: %s; retrying in %.0fs", what, err, delay)
            await asyncio.sleep(delay)
            delay = min(delay * 2, 30.0)


@dataclass
class _Live:
    session: AgentSession
    used_at: float


class LiveAgents:
    """The agent processes this worker holds, by session key. Each belongs to exactly one run (the key
    carries the run id and attempt); conversation state lives in the agent and the run's transcript, never here."""

    def __init__(self, idle_ttl_s: float = 3600.0):
        self.idle_ttl_s = idle_ttl_s
        self._live: dict[str, _Live] = {}
        self._closing = 0  # taken out of _live, process not reaped yet: still counted
        self.on_exit: Callable[[], None] = lambda: None  # the worker's live agent limit counts again

    def count(self) -> int:
        """Agent processes held by this worker, each until it has exited."""
        return len(self._live) + self._closing

    def put(self, key: str, session: AgentSession) -> None:
        self._live[key] = _Live(session, time.monotonic())

    def get(self, key: str) -> AgentSession | None:
        live = self._live.get(key)
        if live is not None:
            live.used_at = time.monotonic()
        return live.session if live else None

    async def close(self, key: str) -> bool:
        live = self._live.pop(key, None)
        if live is None:
            return False
        self._closing += 1
        try:
            await end_session(live.session)
        finally:
            self._closing -= 1
            self.on_exit()
        return True

    async def reap_idle(self) -> int:
        """Sessions whose run went away without closing them (terminated, reset) are reaped after the TTL."""
        cutoff = time.monotonic() - self.idle_ttl_s
        stale = [key for key, live in self._live.items() if live.used_at < cutoff]
        for key in stale:
            await self.close(key)
        return len(stale)

    async def close_all(self) -> None:
        for key in list(self._live):
            await self.close(key)


async def end_session(session: AgentSession) -> None:
    """Reaps the agent, then removes its working copy (the run's branch stays in the repository) and the
    configuration directory Claude Code had for this session."""
    await session.close()
    wc, session.workcopy = session.workcopy, None
    if wc is not None:
        with contextlib.suppress(Exception):
            await workcopy.remove(wc)
    if session.collector.cwd and session.adapter.name == "claude-code":
        await asyncio.to_thread(shutil.rmtree, claude_config_dir(session.collector.cwd, session.run_id), True)


def _safe(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


def session_workdir(base: str | None, run_id: str, work_dir: str) -> str:
    """Where a run's agent works: the worker's configured directory, else the run's own owner-only directory under
    the worker's work directory (never the worker's current directory). An absolute path, as ACP wants."""
    if base:
        return os.path.abspath(base)
    path = Path(work_dir).resolve() / "sessions" / _safe(run_id)
    return str(private_dir(path))


async def reap_orphaned_agents() -> int:
    """Kills agent processes a crashed predecessor of this worker left (their worker is gone). Call at worker
    start; returns how many were killed."""
    reaped = await asyncio.to_thread(kill_orphaned_agents)
    if reaped:
        log.warning("reaped %d agent processes left by a worker that is gone", reaped)
    return reaped


def claude_config_dir(cwd: str, run_id: str) -> Path:
    """Claude Code's configuration directory (CLAUDE_CONFIG_DIR) for one session: beside its working directory,
    never inside it, so nothing of the repository is its configuration and nothing of its own is committed.
    Removed when the session ends (`end_session`)."""
    work = Path(cwd)
    return work.parent / f".{work.name}.claude-{_safe(run_id)}"


TRANSCRIPT_WRITE_S = 2.0  # how long Claude Code may take to append an answer it has already sent
TRANSCRIPT_READ_BYTES = 1 << 20  # what a turn's transcript lines are read of, at most (the agent writes them)
MODEL_NAME_CHARS = 200  # a reported model longer than a model column is not a model name


def _plausible_model(name: str) -> bool:
    """A model name as an agent reports it: short and printable (the agent writes what reports it)."""
    return 0 < len(name) <= MODEL_NAME_CHARS and name.isprintable()


def _read_appended(path: Path, offset: int) -> str:
    """The bytes after `offset` of a regular file, never through a link, at most TRANSCRIPT_READ_BYTES."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return ""
        os.lseek(fd, offset, os.SEEK_SET)
        return os.read(fd, TRANSCRIPT_READ_BYTES).decode(errors="replace")
    finally:
        os.close(fd)


def claude_meta(cand: Candidate, config_dir: Path | None = None) -> dict[str, object] | None:
    """session/new's `_meta` for Claude's bridge, which hands `claudeCode.options` to the Claude Agent SDK over its
    own defaults (claude-agent-acp createSession): no setting sources (the bridge's default, user + project + local,
    would load the repository's .claude/settings*.json hooks, permissions and env, CLAUDE.md, skills and agents),
    only the client's MCP servers (strictMcpConfig: no .mcp.json), a configuration directory of the session's own,
    and the explicit fallback model when auto-fallback is off (it has no environment variable).

    The fallback model is the only model Claude Code can switch a turn to by itself: the SDK passes
    `--fallback-model` only when given one and the CLI has no default, setting or variable for it (claude-agent-sdk
    0.2.83 sdk.mjs, cli.js 2.1.83 `WA=N==="default"?Tf():N`). So a profile without one, a pinned model (never
    substituted) or a fallback equal to the requested model (the SDK refuses that) leaves Claude Code none. Nor
    does one of Claude Code's aliases ("sonnet", "opus", …): it switches to the fallback as given, unresolved
    (cli.js query loop `mainLoopModel=w`), and the API refuses an alias (404, "issue with the selected model")."""
    if not is_claude_bridge(cand.profile):
        return None
    options: dict[str, object] = {"settingSources": [], "strictMcpConfig": True}
    if config_dir is not None:
        options["env"] = {"CLAUDE_CONFIG_DIR": str(config_dir)}
    fallback = cand.fallback_model
    own = fallback and not is_claude_alias(fallback) and fallback != cand.requested_model
    if own and not cand.auto_fallback and not cand.model_pinned:
        options["fallbackModel"] = fallback
    return {"claudeCode": {"options": options}}


def prompt_text(snapshot: list[Entry], fresh_session: bool, provider: str, full_history: bool) -> tuple[str, list[str]]:
    """A fresh agent session on a run that already has a conversation (a fallback, a re-dispatch) gets this
    run's own transcript snapshot, normalised, in its first prompt; a live session gets only the new turn."""
    if not fresh_session or len(snapshot) <= 1:
        return snapshot[-1].content, []
    forwarded = forward(snapshot, provider, full_history)
    *before, newest = forwarded.messages
    lines = ["Conversation so far in this run (forwarded by the office scheduler):"]
    lines += [f"[{m['role']}] {m['content']}" for m in before]
    return "\n".join(lines) + "\n\n" + newest["content"], forwarded.normalisations


class AcpActivities:
    def __init__(
        self,
        store: Store,
        worker_queue: str,
        agents: LiveAgents,
        boundary: RunBoundary,
        cwd: str | None = None,
        work_dir: str | None = None,
        mirrors: Mirrors | None = None,
    ):
        self.store, self.worker_queue, self.agents, self.cwd = store, worker_queue, agents, cwd
        self.work_dir = work_dir or default_work_dir()
        self.mirrors = mirrors or Mirrors(self.work_dir)  # the worker's (office.worker_runtime)
        self.boundary = boundary

    @activity.defn(name=Activity.acp_start)
    @fails_on_worker_shutdown
    async def acp_start(self, inp: AcpStartInput) -> AcpStarted:
        """(With a repository: a working copy of the run's branch at its last completed turn →) launch →
        initialize → session/new in that directory → the advertised models → at most one selection call.
        The command, its environment, the repository and the permissions are the store's (activities.boundary)."""
        inp, sandbox = await self._configured(inp)
        cand = inp.candidate
        try:  # the credential first: a reference the worker refuses fails before a working copy or a process
            env = launch_environment(cand.profile, cand.provider, cand.requested_model)
        except ProviderCallError as err:
            raise provider_failure(await err.classified(utcnow())) from err
        wc = await self._workcopy(inp, inp.repository) if inp.repository is not None else None
        if wc is not None and (found := refused_repository_config(adapter_of(cand.profile), wc.path)):
            await workcopy.remove(wc)
            raise configuration_failure(
                "repository",
                f"the repository holds {', '.join(found)}, which {adapter_of(cand.profile).name} loads as its own "
                "configuration (and runs plugins from) whatever it is told; remove it from the branch or run this "
                "repository with another agent",
                cand.provider,
                Phase.session_start,
            )
        cwd = str(wc.path) if wc is not None else session_workdir(self.cwd, inp.run_id, self.work_dir)
        plan = sandbox_plan(cand.profile, sandbox)
        if plan is None:
            log.warning("run %s: %s", inp.run_id, NO_SANDBOX_WARNING)
        try:
            session = await AgentSession.launch(
                inp.run_id, cand.provider, cand.profile, env, cwd, self.work_dir, plan, inp.permissions
            )
        except (ProviderCallError, CommandRefused, SandboxUnavailable) as err:
            if wc is not None:
                await workcopy.remove(wc)
            raise await launch_failure(err, cand.provider, inp.workspace) from err
        session.workcopy, session.agent = wc, inp.agent
        try:
            async with heartbeating():
                if wc is not None and inp.start_commit is not None:  # a fallback or another worker continues
                    session.note = await workcopy.continuation_note(wc)
                try:
                    started = await AgentExecutor(self.store, session, cand, inp.agent).start(cwd)
                except ProviderCallError as err:
                    raise provider_failure(await err.classified(utcnow())) from err
        except BaseException:
            async with heartbeating():  # reaping can outlast a heartbeat timeout: never look like a lost worker
                await end_session(session)
            raise
        key = f"{inp.run_id}/{inp.attempt_seq}"
        self.agents.put(key, session)
        return AcpStarted(
            started=started,
            session_key=key,
            worker_queue=self.worker_queue,
            base_commit=wc.base_commit if wc is not None else None,
            sandbox_note=None if plan is not None else f"workspace {inp.workspace}: {NO_SANDBOX_WARNING}",
        )

    async def _configured(self, inp: AcpStartInput) -> tuple[AcpStartInput, SandboxSettings]:
        """The input with the store's candidate, repository and permissions; the workspace's sandbox."""
        configured = await self.boundary.configured(inp.run_id, inp.workspace, inp.candidate)
        ws = configured.workspace
        if inp.repository is not None and ws.repository is None:
            raise configuration_failure(
                "repository", f"workspace {ws.name!r} no longer has a repository; add it back or resubmit the run",
                inp.candidate.provider, Phase.session_start,
            )  # fmt: skip
        updated = {
            "candidate": configured.candidate,
            "repository": ws.repository if inp.repository is not None else None,
            "permissions": ws.permissions,
        }
        return inp.model_copy(update=updated), ws.sandbox

    async def _workcopy(self, inp: AcpStartInput, repo: RepositoryConfig) -> workcopy.WorkCopy:
        try:
            async with heartbeating():
                return await durably(
                    lambda: workcopy.prepare(
                        inp.run_id, repo, inp.start_commit, self.mirrors, base_commit=inp.base_commit
                    ),
                    f"preparing a working copy of {repo.url}",
                )
        except RepositoryConfigError as err:
            raise repository_failure(err, inp.candidate.provider, Phase.session_start) from err

    @activity.defn(name=Activity.acp_turn)
    @fails_on_worker_shutdown
    async def acp_turn(self, inp: AcpTurnInput) -> SessionTurnOutput:
        """One prompt on the live session, through the turn pipeline; the answer and the attempt row are stored
        together. A failed turn ends the session at once (the run never uses it again), so its place under the
        worker's live agent limit frees now, not after the idle TTL."""
        await self.boundary.check_run(inp.run_id)
        session = self.agents.get(inp.session_key)
        if session is None or session.run_id != inp.run_id:
            raise provider_failure(  # the worker's loss, never the provider's: a new session on a live worker
                worker_fault(
                    Phase.after_start,
                    inp.candidate.provider,
                    "worker.session_lost",
                    f"the agent session is no longer on the worker of {self.worker_queue} (restarted or reaped)",
                )
            )
        cand = inp.candidate
        if session.profile is not None:  # accounted to what the agent was launched from (the store's profile)
            cand = cand.model_copy(update={"provider": session.provider, "profile": session.profile})
        turn = Turn.of(inp, cand, inp.started, await self.boundary.workspace_of(inp.run_id), session.agent)

        async def end(keep_changes_of: int | None) -> None:
            await self._end(session, inp.session_key, keep_changes_of)

        questions = session.collector.questions
        questions.during_turn(self._asking_run(), inp.session_key, session.collector.policy.ask_timeout)
        try:
            return await run_turn(self.store, turn, AgentExecutor(self.store, session, cand, end=end))
        finally:
            questions.turn_ended()

    @staticmethod
    def _asking_run() -> Callable[[PermissionAsked], Awaitable[None]]:
        """How this turn's agent asks its run's person: a signal to the run this activity belongs to, sent with the
        worker's own Temporal client (the run answers through `acp_answer`)."""
        handle = activity.client().get_workflow_handle(activity.info().workflow_id or "")

        async def send(question: PermissionAsked) -> None:
            await handle.signal(PERMISSION_ASKED, question)

        return send

    @activity.defn(name=Activity.acp_answer)
    async def acp_answer(self, inp: AcpAnswerInput) -> bool:
        """The run's answer to a question this worker's agent asked: delivered only to a question the session
        (of this activity's own run) holds open itself; anything else is ignored (False)."""
        run_id = activity.info().workflow_id or ""
        session = self.agents.get(inp.session_key)
        if session is None or session.run_id != run_id:
            return False
        return session.collector.questions.deliver(inp.question_id, inp.allow)

    async def _end(self, session: AgentSession | None, key: str, seq: int | None = None) -> None:
        """Ends a failed turn's session (keeping its partial changes when `seq` is given), heartbeating: this
        cleanup can outlast a heartbeat timeout, and a silent one would book the provider's failure as a lost
        worker."""
        async with heartbeating():
            if session is not None and seq is not None:
                await self._keep_failed(session, seq)
            await self.agents.close(key)

    @staticmethod
    async def _keep_failed(session: AgentSession, seq: int) -> None:
        """A failed turn's partial changes go to their side ref (office-failed/<run>-<seq>), never the branch."""
        if session.workcopy is None:
            return
        try:
            await asyncio.wait_for(workcopy.keep_failed(session.workcopy, seq), 30)
        except Exception as err:  # best effort: the run goes on from its last completed turn either way
            log.warning("could not keep the partial changes of attempt %d of %s: %s", seq, session.run_id, err)

    @activity.defn(name=Activity.acp_close)
    async def acp_close(self, inp: AcpCloseInput) -> bool:
        run_id = activity.info().workflow_id or ""
        await self.boundary.check_run(run_id)
        session = self.agents.get(inp.session_key)
        if session is not None and session.run_id != run_id:
            raise refused("a session is closed only by its own run")
        return await self.agents.close(inp.session_key)


class AgentExecutor:
    """A live ACP agent session as the turn pipeline's executor (activities.turn_pipeline): its start is the session
    in the agent (session/new, the one model selection, the start-model policy), its turns are prompts, and a turn
    with a repository ends with a commit pushed to the run's branch."""

    admission_phase = Phase.after_start
    paced_by_admission = False  # the agent makes its own calls: none of them was paced by the turn's admission

    def __init__(
        self,
        store: Store,
        session: AgentSession,
        cand: Candidate,
        agent: str = "",
        end: Callable[[int | None], Awaitable[None]] | None = None,
    ) -> None:
        self.store, self.session, self.cand, self.agent = store, session, cand, agent
        self._end = end

    async def start(self, cwd: str | None = None) -> SessionStarted:
        """session/new in `cwd` (the working copy) → the advertised models → at most one selection call → the
        start-model policy and its one warning."""
        cand, session, run_id = self.cand, self.session, self.session.run_id
        cwd = cwd or session.collector.cwd or ""
        claude = is_claude_bridge(cand.profile)
        sandboxed = session.launched is not None and session.launched.sandbox is not None
        if not claude:
            config_dir = None
        elif sandboxed:  # the sandbox's home is the session's own, and the only place outside its working copy
            config_dir = Path(SANDBOX_HOME) / ".claude"
        else:
            config_dir = private_dir(claude_config_dir(cwd, run_id))
        await session.start(cwd, claude_meta(cand, config_dir))
        if claude:  # the bridge took permissions.defaultMode from the repository's .claude/settings*.json
            await session.request(
                AGENT_METHODS["session_set_mode"], {"sessionId": session.session_id, "modeId": "default"},
                Phase.session_start,
            )  # fmt: skip
        choice = session.choice
        if (catalog := choice.catalog) is not None:
            await bookkeeping.store_retrying(
                lambda: self.store.observe_catalog(cand.provider, catalog, run_id),
                f"recording the catalog of {cand.provider}",
            )
        plan = plan_model(
            cand.requested_model,
            cand.fallback_model,
            cand.auto_fallback,
            choice.catalog,
            selection_supported=choice.catalog is not None,
        )
        apply_error, reported, unsupported = None, choice.current, False
        if plan.select is not None:
            try:
                reported = await session.select_model(plan.select)
            except ProviderCallError as err:
                if err.signal.jsonrpc_code == METHOD_NOT_FOUND:  # the agent cannot select: its default runs
                    unsupported = True
                    plan = plan_model(
                        cand.requested_model,
                        cand.fallback_model,
                        cand.auto_fallback,
                        choice.catalog,
                        selection_supported=False,
                    )
                else:
                    apply_error = err.signal.error_text or "selection failed"
        decision = settle_model(plan, apply_error, reported)
        if unsupported:  # the one call was made; the decision says so
            decision = decision.model_copy(update={"set_model_called": True})
        warning = await settle_start(self.store, run_id, self.agent, cand, decision, plan.select)
        return SessionStarted(
            decision=decision,
            model_to_send=plan.select if apply_error is None else None,
            effective_model=decision.effective,
            warning=warning,
        )

    async def prompt(self, transcript: list[Entry], started: SessionStarted, full_history: bool) -> TurnAnswer:
        """A fresh session on a run that already has a conversation gets the run's transcript (and where its files
        are) in its first prompt; a live one only the new turn."""
        session = self.session
        fresh = session.prompts == 0
        text, normalisations = prompt_text(transcript, fresh, self.cand.provider, full_history)
        if fresh and session.note:  # where the files are: the branch at the last completed turn
            text = f"{session.note}\n\n{text}"
        transcript_file = await asyncio.to_thread(self._claude_transcript)
        offset = transcript_file.stat().st_size if transcript_file is not None else 0
        answer = await session.prompt(text)
        appended = await self._claude_answer_lines(transcript_file, offset)
        reported = [m for m in reported_models(session.last_answer, appended) if _plausible_model(m)]
        counts = session.collector.counts
        return TurnAnswer(
            answer,
            answered_by(started.effective_model, reported) or started.effective_model,
            normalisations,
            permissions=counts if counts != PermissionCounts() else None,
            usage=from_acp_prompt(session.last_answer) or (claude_turn_usage(appended) if appended else None),
        )

    def _claude_transcript(self) -> Path | None:
        """Claude Code's transcript of this session in its configuration directory (the sandbox's home, or the
        directory beside the working copy), once it exists; only a regular file inside that directory (the agent
        writes there and could leave a link leading out of it)."""
        session = self.session
        if not is_claude_bridge(self.cand.profile) or not session.session_id:
            return None
        sandbox = session.launched.sandbox if session.launched is not None else None
        if sandbox is not None:
            config_dir = sandbox.root / "home" / ".claude"
        else:
            config_dir = claude_config_dir(session.collector.cwd or "", session.run_id)
        root = os.path.realpath(config_dir)
        for found in glob.glob(claude_transcript_pattern(str(config_dir), session.session_id)):
            real = os.path.realpath(found)
            if real.startswith(root + os.sep) and os.path.isfile(real):
                return Path(real)
        return None

    async def _claude_answer_lines(self, transcript_file: Path | None, offset: int) -> str | None:
        """What this turn appended to Claude Code's transcript (at most TRANSCRIPT_READ_BYTES). Claude Code answers
        before it writes the answer's line (and a session's first line before it makes the file), so the line is
        waited for, briefly; without it nothing is reported."""
        if not is_claude_bridge(self.cand.profile):
            return None
        deadline = time.monotonic() + TRANSCRIPT_WRITE_S
        while True:  # a session's first turn may be answered before its transcript file exists
            transcript_file = transcript_file or await asyncio.to_thread(self._claude_transcript)
            appended = await asyncio.to_thread(_read_appended, transcript_file, offset) if transcript_file else None
            if (appended and claude_turn_models(appended)) or time.monotonic() >= deadline:
                return appended
            await asyncio.sleep(0.05)

    def progress(self) -> dict[str, int]:
        return self.session.progress()

    def observe(self, progress: ProgressLog | None) -> None:
        collector = self.session.collector
        if progress is not None:
            progress.cwd = collector.cwd
        collector.progress = progress

    async def cancel(self) -> None:
        await self.session.cancel()

    async def commit(self, turn: int, model: str | None) -> TurnCommitted:
        """A completed turn is durable: committed and pushed to the run's branch before the turn counts as done."""
        wc = self.session.workcopy
        if wc is None:
            return TurnCommitted()
        try:
            async with heartbeating():
                commit = await durably(
                    lambda: workcopy.commit_turn(wc, turn, self.cand.provider, model), f"pushing {wc.branch}"
                )
                return TurnCommitted(commit, await durably(lambda: workcopy.result(wc), f"reading {wc.branch}"))
        except (RepositoryConfigError, BranchMovedError) as err:
            raise repository_failure(err, self.cand.provider, Phase.after_start) from err

    async def close(self, keep_changes_of: int | None) -> None:
        if self._end is not None:
            await self._end(keep_changes_of)


async def reap_idle_forever(agents: LiveAgents, every_s: float = 60.0) -> None:
    while True:
        await asyncio.sleep(every_s)
        with contextlib.suppress(Exception):
            if reaped := await agents.reap_idle():
                log.info("reaped %d idle agent sessions", reaped)
