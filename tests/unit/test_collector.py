"""The ACP client side the agent calls back (`_Collector`): permission requests and fs/* calls judged on real paths
in a real git working copy, reads bounded in what they make the worker hold, an answer bounded in what it keeps."""

import contextlib
import os
import subprocess
from pathlib import Path

import pytest
from acp import RequestError
from acp.schema import AgentMessageChunk, TextContentBlock, ToolCallLocation, ToolCallUpdate

from activities.executors import acp_fs
from activities.executors.acp import FS_REFUSED, AgentSession, _Collector
from activities.executors.base import ProviderCallError
from activities.executors.launcher import launch_environment, sandbox_plan
from routing.classifier import classify
from routing.codes import ANSWER_LIMIT_BYTES, ErrorClass, ErrorCode
from routing.permissions import PermissionPolicy
from routing.sandbox import SandboxSettings
from testkit.factories import scripted_agent

ATTACKER = PermissionPolicy.model_validate({"edit": "allow", "execute": ["pytest", "cat"]})
OPTIONS = [
    {"optionId": "always", "name": "Always", "kind": "allow_always"},
    {"optionId": "yes", "name": "Allow", "kind": "allow_once"},
    {"optionId": "no", "name": "Reject", "kind": "reject_once"},
]
MiB = 1024 * 1024


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout


@pytest.fixture
def wc(tmp_path: Path) -> Path:
    """A git working copy whose history holds symlinks out of it (`link` → a directory holding a secret) and into
    a nested repository's .git (`cfg` → sub/.git/config)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret\n")
    wc = tmp_path / "wc"
    wc.mkdir()
    git("init", "--quiet", "-b", "main", cwd=wc)
    (wc / "README").write_text("hello\n")
    (wc / "link").symlink_to(outside)
    (wc / "sub").mkdir()
    git("init", "--quiet", "-b", "main", cwd=wc / "sub")  # a nested repository, as a vendored checkout would be
    (wc / "cfg").symlink_to("sub/.git/config")
    git("add", "README", "link", "cfg", cwd=wc)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "--quiet", "-m", "seed", cwd=wc)
    assert git("ls-files", "-s", "link", cwd=wc).startswith("120000")  # committed as a symlink
    return wc


async def asked(collector: _Collector, kind: str, raw_input: dict, locations: list[str] | None = None) -> str:
    tool_call = ToolCallUpdate(
        tool_call_id=f"call-{kind}",
        kind=kind,
        title=kind,
        raw_input=raw_input,
        locations=[ToolCallLocation(path=p) for p in locations or []],
    )
    answer = await collector.request_permission("s", tool_call, OPTIONS)
    return answer.outcome.option_id


async def test_a_committed_symlink_out_of_the_working_copy_is_refused_for_read_edit_and_commands(wc):
    collector = _Collector(ATTACKER, str(wc))
    secret = str(wc / "link" / "secret.txt")
    assert await asked(collector, "read", {"file_path": "link/secret.txt"}, [secret]) == "no"
    assert await asked(collector, "edit", {"file_path": secret}) == "no"
    assert await asked(collector, "execute", {"command": "cat link/secret.txt"}) == "no"
    assert await asked(collector, "execute", {"command": "cat secret.txt", "cwd": "link"}) == "no"
    assert await asked(collector, "think", {"command": "cat link/secret.txt"}) == "no"
    assert await asked(collector, "search", {"pattern": "link/**"}) == "no"
    assert any("through a symbolic link" in line for line in collector.permissions)
    # the same requests inside the working copy are allowed: the symlink is what is refused
    assert await asked(collector, "read", {"file_path": "README"}, [str(wc / "README")]) == "yes"
    assert await asked(collector, "edit", {"file_path": "README"}) == "yes"
    assert await asked(collector, "execute", {"command": "cat README"}) == "yes"
    assert collector.counts.refused == {"read": 1, "edit": 1, "execute": 3, "search": 1}

    for call in (
        collector.read_text_file("s", "link/secret.txt"),
        collector.read_text_file("s", secret),
        collector.write_text_file("s", "link/secret.txt", "pwned\n"),
        collector.write_text_file("s", "link/new.txt", "pwned\n"),
    ):
        with pytest.raises(RequestError) as err:
            await call
        assert err.value.code == FS_REFUSED
    assert (wc.parent / "outside" / "secret.txt").read_text() == "secret\n"
    assert not (wc.parent / "outside" / "new.txt").exists()
    assert (await collector.read_text_file("s", "README")).content == "hello\n"


async def test_no_git_directory_is_written_at_any_depth(wc):
    collector = _Collector(ATTACKER, str(wc))
    before = (wc / "sub" / ".git" / "config").read_text()
    assert await asked(collector, "edit", {"file_path": "sub/.git/config"}) == "no"
    assert await asked(collector, "edit", {"file_path": "cfg"}) == "no"  # a symlink into it
    assert await asked(collector, "execute", {"command": "cat sub/.git/config"}) == "no"
    hook = "[core]\n\tfsmonitor = touch /tmp/pwned\n"
    for path in ("sub/.git/config", "cfg", ".git/config", "sub/.GIT/hooks/x"):
        with pytest.raises(RequestError):
            await collector.write_text_file("s", path, hook)
        with pytest.raises(PermissionError, match=r"\.git"):
            acp_fs.write_text_file(wc, path, hook)  # the fs layer refuses it too, on its own
    assert (wc / "sub" / ".git" / "config").read_text() == before
    assert await asked(collector, "read", {"file_path": "sub/.git/config"}) == "yes"  # reading is harmless


def peak_rss_reset() -> int:
    """Resets the process's peak resident set (Linux: /proc/self/clear_refs) and returns it, in bytes."""
    with contextlib.suppress(OSError):  # an older kernel: the peak stays, and the delta is then a lower bound
        Path("/proc/self/clear_refs").write_text("5")
    return peak_rss()


def peak_rss() -> int:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) * 1024
    raise AssertionError("no VmHWM")


needs_proc = pytest.mark.skipif(not Path("/proc/self/status").exists(), reason="reads VmHWM from /proc")


@needs_proc
async def test_a_huge_file_is_refused_from_its_size_without_being_read(wc):
    big = wc / "big.bin"
    big.touch()
    os.truncate(big, 200 * MiB)  # truncate(2): a sparse file, no disk, 200 MB to read
    assert big.stat().st_size == 200 * MiB
    collector = _Collector(ATTACKER, str(wc))
    before = peak_rss_reset()
    with pytest.raises(RequestError) as err:
        await collector.read_text_file("s", "big.bin")
    grown = peak_rss() - before
    assert err.value.code == FS_REFUSED and "8 MiB" in str(err.value) and "line and limit" in str(err.value)
    assert err.value.data["limit_bytes"] == acp_fs.MAX_READ_BYTES == 8 * MiB
    print(f"\nMEASURE peak RSS growth refusing a 200 MB file: {grown / MiB:.1f} MiB")
    assert grown < 16 * MiB


@needs_proc
async def test_line_and_limit_read_just_those_lines_of_a_huge_file(wc):
    big = wc / "big.log"
    big.write_text("".join(f"line {i}\n" for i in range(1, 100_001)))
    with big.open("a") as f:
        f.truncate(200 * MiB)  # then 200 MB of NULs with no newline: one huge last line
    collector = _Collector(ATTACKER, str(wc))
    before = peak_rss_reset()
    assert (await collector.read_text_file("s", "big.log", line=2, limit=1)).content == "line 2\n"
    assert (await collector.read_text_file("s", "big.log", line=99_999, limit=2)).content == (
        "line 99999\nline 100000\n"
    )
    assert (await collector.read_text_file("s", "big.log", limit=3)).content == "line 1\nline 2\nline 3\n"
    with pytest.raises(RequestError) as err:  # the huge last line is more than a read may return
        await collector.read_text_file("s", "big.log", line=100_001, limit=1)
    grown = peak_rss() - before
    assert "8 MiB" in str(err.value)
    print(f"\nMEASURE peak RSS growth for line/limit reads of a 200 MB file: {grown / MiB:.1f} MiB")
    assert grown < 40 * MiB


def test_line_and_limit_edges(tmp_path):
    (tmp_path / "f").write_text("a\nb\r\nc")

    def read(**kw):
        return acp_fs.read_text_file(tmp_path, "f", **kw)

    assert read() == "a\nb\r\nc"
    assert read(line=2) == "b\r\nc"
    assert read(line=3, limit=5) == "c"
    assert read(line=4, limit=1) == ""
    assert read(line=0, limit=1) == read(line=-3, limit=1) == "a\n"
    assert read(limit=0) == ""
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(PermissionError, match="not a regular file"):  # never blocks the worker's thread
        acp_fs.read_text_file(tmp_path, "fifo")
    with pytest.raises(OSError):  # no reader: refused at once (ENXIO), never a blocked thread either
        acp_fs.write_text_file(tmp_path, "fifo", "x")


# --------------------------------------------------------------------------------------------------- answers


def chunk(text: str) -> AgentMessageChunk:
    return AgentMessageChunk(session_update="agent_message_chunk", content=TextContentBlock(type="text", text=text))


async def test_an_answer_past_the_limit_is_not_kept_and_fails_the_turn_naming_the_limit():
    collector = _Collector()
    piece = "x" * (64 * 1024)
    for _ in range(48):  # 3 MiB
        await collector.session_update("s", chunk(piece))
    kept = sum(map(len, collector.chunks))
    assert kept <= ANSWER_LIMIT_BYTES and collector.answer_bytes >= 3 * MiB
    with pytest.raises(ProviderCallError) as err:
        collector.answer("claude")
    found = classify(err.value.signal)
    assert (found.code, found.error_class, found.provider) == (
        ErrorCode.answer_too_large,
        ErrorClass.terminal,
        "claude",
    )
    assert "1 MiB" in str(err.value) and "at least" in str(err.value)
    assert collector.chunks == []  # released
    await collector.session_update("s", chunk("the next turn"))  # starts empty
    assert collector.answer() == "the next turn"


async def test_an_answer_is_measured_as_it_travels():
    collector = _Collector(answer_limit=1000)
    await collector.session_update("s", chunk("é" * 500))  # 1000 bytes of UTF-8
    assert collector.answer() == "é" * 500
    await collector.session_update("s", chunk("\x01" * 200))  # 1200 bytes escaped in JSON
    with pytest.raises(ProviderCallError):
        collector.answer()
    for text in ("a" * 600, "b" * 600):  # each fits; together they do not
        await collector.session_update("s", chunk(text))
    assert collector.chunks == ["a" * 600]
    with pytest.raises(ProviderCallError):
        collector.answer()
    collector.chunks.append("stray")  # a chunk that arrived between turns, cleared by the next prompt
    collector.chunks.clear()
    await collector.session_update("s", chunk("c" * 900))
    assert collector.answer() == "c" * 900


async def test_a_real_agents_answer_past_the_limit_fails_its_turn(tmp_path):
    """The scripted agent (a real process) echoes the prompt: a 1.5 MiB prompt makes an answer past the limit."""
    profile = scripted_agent()
    work = tmp_path / "work"
    work.mkdir()
    env = launch_environment(profile, "sim", None)
    plan = sandbox_plan(profile, SandboxSettings())
    session = await AgentSession.launch("run-1", "sim", profile, env, str(work), str(tmp_path / "state"), plan)
    try:
        await session.start(str(work))
        assert "hello" in await session.prompt("hello")
        with pytest.raises(ProviderCallError) as err:
            await session.prompt("y" * (3 * MiB // 2))
        assert classify(err.value.signal).code is ErrorCode.answer_too_large
        assert sum(map(len, session.collector.chunks)) <= ANSWER_LIMIT_BYTES
    finally:
        await session.close()


def tool_call(call_id: str) -> object:
    from acp.schema import ToolCallStart

    return ToolCallStart(session_update="tool_call", tool_call_id=call_id, title="Read", kind="read", status="pending")


@pytest.mark.parametrize(
    ("updates", "kept"),
    [
        (["Done. Please run /login to continue."], True),  # the model's last message: its answer stands
        (["Please run /login", "@tool", "done"], False),  # said before a tool call: a later notice is real
        (["reading", "@tool", "The README says: Please run /login"], True),
        (["all good"], False),  # nothing of the model's holds the words: the bridge's notice is its own
    ],
)
async def test_login_words_in_the_models_last_message_keep_the_turn(updates, kept):
    """claude-agent-acp answers authRequired when a finished turn's result text (its last message) holds "Please run
    /login"; Claude Code's real notice is never streamed. Only words streamed after the turn's last tool call are what
    the bridge read, so only they keep the turn."""
    from activities.executors.agents import CLAUDE_CODE
    from routing.classifier import FailureSignal
    from routing.codes import Phase

    collector = _Collector()
    session = AgentSession("run-1", "claude", None, None, collector, adapter=CLAUDE_CODE)  # type: ignore[arg-type]
    for n, update in enumerate(updates):
        await collector.session_update("s", tool_call(f"t{n}") if update == "@tool" else chunk(update))
    refused = ProviderCallError(
        FailureSignal(phase=Phase.after_start, jsonrpc_code=-32000, error_text="Authentication required")
    )
    assert session._answer_read_as_login(refused) is kept
    other = ProviderCallError(FailureSignal(phase=Phase.after_start, jsonrpc_code=-32603, error_text="Internal error"))
    assert session._answer_read_as_login(other) is False
