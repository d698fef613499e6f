"""An agent that never answered `initialize` has not called its provider: what its stderr said decides only when it
is more specific than the stall itself (a provider's own words, read above the timeout); anything else is the worker's
(`worker_lost`), never booked against the provider. A verdict read from incidental words (a 403 the sandbox's own
proxy gives a blocked host, a 400 of some fetch) would mark the provider for every run or fail the run."""

import pytest

from activities.executors.acp import AgentSession
from activities.executors.agents import ADAPTERS
from routing.codes import ErrorCode

CLAUDE_401 = 'API Error: 401 {"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key"}}'


def stalled(stderr: list[str], adapter: str = "generic") -> tuple[ErrorCode, str]:
    session = AgentSession(
        "run-1",
        "claude",
        None,
        None,
        None,
        stderr_tail=stderr,
        adapter=ADAPTERS[adapter],  # type: ignore[arg-type]
    )
    found = session._launch_stalled().finding
    assert found is not None
    return found.code, found.rule


@pytest.mark.parametrize(
    ("stderr", "code"),
    [
        ([], ErrorCode.worker_lost),
        (["Debugger listening on ws://127.0.0.1:9229"], ErrorCode.worker_lost),
        (["Error: 403 Forbidden"], ErrorCode.worker_lost),  # what the sandbox's proxy answers a blocked host
        (["AxiosError: Request failed with status code 403"], ErrorCode.worker_lost),
        (["Error: 400 Bad Request"], ErrorCode.worker_lost),
        (["HTTP 429"], ErrorCode.worker_lost),
        (["Request timed out"], ErrorCode.worker_lost),
        (["Please visit the following URL to authorize this application"], ErrorCode.worker_lost),
        ([CLAUDE_401], ErrorCode.auth_required),  # the provider refused the key: its words decide, as before
        (["loading config", CLAUDE_401], ErrorCode.auth_required),
    ],
)
def test_a_stalled_start_is_the_workers_unless_the_agent_named_a_providers_failure(stderr, code):
    assert stalled(stderr)[0] is code


def test_the_stall_names_what_the_agent_said_last():
    code, rule = stalled(["Debugger listening on ws://127.0.0.1:9229"])
    assert (code, rule) == (ErrorCode.worker_lost, "agent.launch_stalled")
    session = AgentSession("run-1", "claude", None, None, None, stderr_tail=["waiting"])  # type: ignore[arg-type]
    assert (session._launch_stalled().finding.excerpt or "").startswith(  # type: ignore[union-attr]
        "worker lost: the agent did not answer initialize within 60 s (waiting)"
    )
