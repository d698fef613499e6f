"""A scripted ACP agent, built on the agent side of `agent-client-protocol`: a real process speaking ACP on
stdio whose behaviour comes from the JSON in SCRIPTED_AGENT (set per execution profile, so per test).

    python -m office.scripted_agent

Keys (all optional): models (advertised; null or absent: no model option), current_model, set_model
("ok" | "error" | "method_not_found"), auth_required (session/new answers -32000), fail_turn (1-based prompt
number that fails), fail_match (fail every prompt whose newest line has this text), fail_after_output (send a
chunk first), fail_code / fail_message (the JSON-RPC error), exit_code (exit instead of answering), latency_s,
stream_first (one chunk before the latency), log (a JSONL file: every call it received, with its pid and its
process's own id `agent`), usage (report each turn's ACP `usage` as claude-agent-acp does: a quarter of the prompt's
and the answer's characters, with `cached_read` / `cached_write` cache counts; logged as method "usage"),
stop_match (a prompt whose newest line has this text ends with stopReason `refusal`, its usage still reported),
fail_once (a file: the first prompt that finds it missing creates it and fails, in whichever process),
start_stderr (a line written to stderr at start), stall_at_start (true: never answer `initialize`; a file: the
first process that finds it missing creates it and never answers, later ones start as usual),
actions (before answering a prompt, in order; each applies to the prompt number `turn` or to prompts whose newest
line contains `match`, or to every prompt):
  {"write": "a.txt", "content": "…", "via": "fs"}    the client's fs/write_text_file ("cwd": straight into the cwd)
  {"read": "a.txt"}                                 the client's fs/read_text_file
  {"sleep": 5}                                      a turn in progress (e.g. to kill its worker meanwhile)
  {"say": "…"}                                      a message chunk (session/update agent_message_chunk)
  {"tool": "edit", "path": "a.txt", "title": "…", "status": "completed"}
                                                    a tool call's session/update (the path under the cwd), then
                                                    its tool_call_update with `status` (none: left running)
  {"until": "/tmp/…/go"}                            wait (up to a minute) until that file exists: a test's cue
  {"run": ["sh", "-c", "…"]}                        a command run by the agent itself (exit code, output logged)
  "{last}" in a string is replaced by the prompt's newest line
  {"permission": "execute", "raw_input": {"command": "rm -rf /"}, "locations": ["x"], "title": "…"}
                                                    session/request_permission; the chosen option is logged
Each action's outcome (option, error, content) is logged as method "action".
It answers deterministically from what it was sent, so a test can check exactly what history it was given."""

import asyncio
import json
import os
import sys
import time
import uuid
from pathlib import Path
from typing import Any

from acp import RequestError, run_agent, start_tool_call, text_block, update_agent_message, update_tool_call
from acp.schema import (
    AgentCapabilities,
    Implementation,
    InitializeResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectOption,
    SetSessionConfigOptionResponse,
    ToolCallLocation,
    ToolCallUpdate,
    Usage,
)

AGENT_ID = uuid.uuid4().hex  # one per process: pids repeat across sandboxes, each in its own pid namespace


class ScriptedAgent:
    def __init__(self, script: dict[str, Any]):
        self.script = script
        self.current = script.get("current_model") or ((script.get("models") or [None])[0])
        self.prompts = 0
        self.tools = 0
        self.conn: Any = None
        self.cwd = ""

    def on_connect(self, conn: Any) -> None:
        self.conn = conn

    def record(self, method: str, **params: Any) -> None:
        if path := self.script.get("log"):
            with open(path, "a", encoding="utf-8") as out:
                out.write(json.dumps({"pid": os.getpid(), "agent": AGENT_ID, "method": method, **params}) + "\n")

    def _model_options(self) -> list[SessionConfigOptionSelect | SessionConfigOptionBoolean] | None:
        models = self.script.get("models")
        if models is None:
            return None
        return [
            SessionConfigOptionSelect(
                id="model",
                name="Model",
                category="model",
                type="select",
                current_value=self.current or "",
                options=[SessionConfigSelectOption(value=m, name=m) for m in models],
            )
        ]

    async def initialize(self, protocol_version: int, client_capabilities: Any = None, **_: Any) -> InitializeResponse:
        self.client_capabilities = client_capabilities
        self.record("initialize", protocol_version=protocol_version)
        return InitializeResponse(
            protocol_version=protocol_version,
            agent_capabilities=AgentCapabilities(),
            agent_info=Implementation(name="scripted-agent", version="1"),
        )

    async def new_session(self, cwd: str, **_: Any) -> NewSessionResponse:
        self.cwd = cwd
        caps = getattr(getattr(self, "client_capabilities", None), "fs", None)
        self.record("session/new", cwd=cwd, env_model=os.environ.get("ANTHROPIC_MODEL"), fs=bool(caps))
        if self.script.get("auth_required"):
            raise RequestError.auth_required({"message": "Authentication required: run /login"})
        return NewSessionResponse(session_id="scripted-1", config_options=self._model_options())

    async def set_config_option(
        self, config_id: str, session_id: str, value: Any, **_: Any
    ) -> SetSessionConfigOptionResponse:
        self.record("session/set_config_option", config_id=config_id, value=value)
        behaviour = self.script.get("set_model", "ok")
        if behaviour == "method_not_found":
            raise RequestError.method_not_found("session/set_config_option")
        if behaviour == "error":
            raise RequestError.invalid_params({"message": f"model {value} cannot be used with this account"})
        self.current = value
        return SetSessionConfigOptionResponse(config_options=self._model_options() or [])

    async def prompt(self, prompt: list[Any], session_id: str, **_: Any) -> PromptResponse:
        self.prompts += 1
        text = "\n".join(getattr(block, "text", "") for block in prompt)
        self.record("session/prompt", n=self.prompts, model=self.current, text=text)
        if self.script.get("stream_first"):  # a first chunk, then the latency: a turn visibly in progress
            await self.conn.session_update(session_id, update_agent_message(text_block("working on it ")))
        await asyncio.sleep(float(self.script.get("latency_s", 0)))
        last = text.strip().splitlines()[-1] if text.strip() else ""
        for action in self.script.get("actions") or []:
            if action.get("turn", self.prompts) == self.prompts and action.get("match", "") in last:
                await self._act(action, session_id, last)
        failing = self._failing(last)
        if failing and self.script.get("exit_code") is not None:
            os._exit(int(self.script["exit_code"]))
        if failing and self.script.get("fail_after_output"):
            await self.conn.session_update(session_id, update_agent_message(text_block("partial answer ")))
        if failing:
            raise RequestError(
                int(self.script.get("fail_code", -32603)), self.script.get("fail_message", "Internal error")
            )
        stop = self.script.get("stop_match")
        if stop and stop in last:  # the agent refused the turn: no answer, but the tokens it took are reported
            return PromptResponse(stop_reason="refusal", usage=self._usage(text, ""))
        answer = f"[{self.current or 'agent-default'}] turn {self.prompts}: {last}"
        for piece in (answer[: len(answer) // 2], answer[len(answer) // 2 :]):
            await self.conn.session_update(session_id, update_agent_message(text_block(piece)))
        return PromptResponse(stop_reason="end_turn", usage=self._usage(text, answer))

    def _failing(self, last: str) -> bool:
        match, once = self.script.get("fail_match"), self.script.get("fail_once")
        if once and not Path(once).exists():  # the first prompt of any process of this script, then never again
            Path(once).touch()
            return True
        return self.script.get("fail_turn") == self.prompts or bool(match and match in last)

    def _usage(self, prompt: str, answer: str) -> Usage | None:
        """claude-agent-acp's shape: input without the cache, the cache counts apart, their total."""
        script = self.script.get("usage")
        if not script:
            return None
        cached = script if isinstance(script, dict) else {}
        read, write = int(cached.get("cached_read", 0)), int(cached.get("cached_write", 0))
        usage = Usage(
            input_tokens=len(prompt) // 4,
            output_tokens=len(answer) // 4,
            cached_read_tokens=read,
            cached_write_tokens=write,
            total_tokens=len(prompt) // 4 + len(answer) // 4 + read + write,
        )
        self.record("usage", n=self.prompts, **usage.model_dump(by_alias=True, exclude_none=True))
        return usage

    async def _act(self, action: dict[str, Any], session_id: str, last: str) -> None:
        outcome: dict[str, Any] = {}
        action = {k: v.replace("{last}", last) if isinstance(v, str) else v for k, v in action.items()}
        if {"say", "tool", "until"} & action.keys():
            await self._tell(action, session_id)
            self.record("action", n=self.prompts, **action)
            return
        try:
            if "sleep" in action:
                await asyncio.sleep(float(action["sleep"]))
            elif "write" in action and action.get("via", "fs") == "cwd":
                target = Path(self.cwd) / action["write"]
                await asyncio.to_thread(target.write_text, action.get("content", ""), encoding="utf-8")
                outcome["written"] = True
            elif "write" in action:
                await self.conn.write_text_file(
                    session_id=session_id, path=action["write"], content=action.get("content", "")
                )
                outcome["written"] = True
            elif "run" in action:  # straight on the machine, never through the client: what a hostile agent does
                process = await asyncio.create_subprocess_exec(
                    *action["run"], stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
                )
                out, _ = await process.communicate()
                outcome["exit"], outcome["output"] = process.returncode, out.decode(errors="replace")[-2000:]
            elif "read" in action:
                read = await self.conn.read_text_file(session_id=session_id, path=action["read"])
                outcome["content"] = read.content
            elif "permission" in action:
                answer = await self.conn.request_permission(
                    session_id=session_id,
                    tool_call=ToolCallUpdate(
                        tool_call_id=f"call-{self.prompts}-{action['permission']}",
                        kind=action["permission"],
                        title=action.get("title", action["permission"]),
                        raw_input=action.get("raw_input"),
                        locations=[ToolCallLocation(path=p) for p in action.get("locations", [])],
                    ),
                    options=[
                        PermissionOption(option_id="allow-always", name="Always", kind="allow_always"),
                        PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                        PermissionOption(option_id="reject", name="Reject", kind="reject_once"),
                    ],
                )
                outcome["option"] = getattr(answer.outcome, "option_id", None) or answer.outcome.outcome
        except Exception as err:  # a refused call is what the test looks at: log it, go on with the turn
            outcome["error"] = str(err)
        self.record("action", n=self.prompts, **{k: v for k, v in action.items() if k != "content"}, **outcome)

    async def _tell(self, action: dict[str, Any], session_id: str) -> None:
        """What a real agent streams while it works: a message chunk, or a tool call and how it ended (or a pause
        until the test says go on)."""
        if "until" in action:
            for _ in range(1200):
                if await asyncio.to_thread(Path(action["until"]).exists):
                    return
                await asyncio.sleep(0.05)
            return
        if "say" in action:
            await self.conn.session_update(session_id, update_agent_message(text_block(action["say"])))
            return
        self.tools += 1
        call_id, path = f"tool-{self.prompts}-{self.tools}", str(Path(self.cwd) / action.get("path", ""))
        locations = [ToolCallLocation(path=path)] if action.get("path") else None
        title = action.get("title", action["tool"])
        await self.conn.session_update(
            session_id, start_tool_call(call_id, title, kind=action["tool"], status="in_progress", locations=locations)
        )
        if action.get("status"):
            await self.conn.session_update(session_id, update_tool_call(call_id, status=action["status"]))

    async def cancel(self, session_id: str, **_: Any) -> None:
        self.record("session/cancel")


def main() -> None:
    script = json.loads(os.environ.get("SCRIPTED_AGENT") or "{}")
    if script.get("exit_at_start") is not None:
        sys.exit(int(script["exit_at_start"]))
    if script.get("start_stderr"):
        print(script["start_stderr"], file=sys.stderr, flush=True)
    stall = script.get("stall_at_start")
    if stall is True or (stall and not Path(stall).exists()):  # never answers initialize (a file: only once)
        if stall is not True:
            Path(stall).touch()
        time.sleep(3600)
    # acp's Agent protocol lists every method; at run time an agent may leave some out and acp answers those with
    # method_not_found, which the scripted agent relies on (it has no load_session, for one).
    asyncio.run(run_agent(ScriptedAgent(script)))  # type: ignore[arg-type]


if __name__ == "__main__":
    main()
