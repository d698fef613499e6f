"""Provider health belongs to the provider it describes (endpoint + credential), not to a name two workspaces
happen to share: one workspace's key failure never takes another workspace's provider out of its routes."""

import uuid

import pytest

from office.simulator.config import SimProvider
from routing.config import AgentProfile, ExecutionProfile, WorkspaceConfig
from routing.decider import HealthState
from routing.identity import provider_key
from routing.run import RunStatus
from testkit.runs import run_to_end

from .helpers import calls_to

pytestmark = pytest.mark.integration


async def test_an_auth_failure_in_one_workspace_leaves_the_others_claude_in_use(stack, monkeypatch):
    tag = uuid.uuid4().hex[:8]
    # Two real endpoints with their own keys; both workspaces call theirs `claude`.
    sim_a, sim_b, backup = f"claude-a-{tag}", f"claude-b-{tag}", f"backup-{tag}"
    await stack.simulator.set_provider(sim_a, SimProvider(api_key="key-a"))
    await stack.simulator.set_provider(sim_b, SimProvider(api_key="key-b"))
    await stack.simulator.set_provider(backup, SimProvider())
    monkeypatch.setenv("OFFICE_CRED_TEAM_A_KEY", "revoked-key")  # workspace a's key is refused: auth_required
    monkeypatch.setenv("OFFICE_CRED_TEAM_B_KEY", "key-b")
    name = f"claude-{tag}"

    def workspace(ws: str, sim: str, env: str) -> WorkspaceConfig:
        return WorkspaceConfig(
            name=f"{ws}-{tag}",
            provider_order=[name, backup],
            providers={
                name: ExecutionProfile(base_url=stack.simulator.provider_url(sim), credential_env=env),
                backup: ExecutionProfile(base_url=stack.simulator.provider_url(backup)),
            },
        )

    ws_a, ws_b = (
        workspace("team-a", sim_a, "OFFICE_CRED_TEAM_A_KEY"),
        workspace("team-b", sim_b, "OFFICE_CRED_TEAM_B_KEY"),
    )
    agent = AgentProfile(name=f"coder-{tag}", model="sim-small")
    for ws in (ws_a, ws_b):
        await stack.store.save_workspace(ws)
    await stack.store.save_agent(agent)

    first = await run_to_end(stack, ws_a.name, agent.name, "team a's task")
    assert first.status is RunStatus.completed and first.provider == backup
    assert first.attempts[0].error_code == "auth_required"
    key_a, key_b = provider_key(ws_a.providers[name]), provider_key(ws_b.providers[name])
    [a_health] = [h for h in await stack.store.list_health(ws_a) if h.provider == name and h.model is None]
    assert (a_health.provider, a_health.provider_key, a_health.state) == (
        name,
        key_a,
        HealthState.user_action_required,
    )
    assert [h for h in await stack.store.list_health(ws_b) if h.provider == name] == []  # nothing about b's claude

    for i in range(3):
        view = await run_to_end(stack, ws_b.name, agent.name, f"team b's task {i}")
        assert view.status is RunStatus.completed and view.provider == name  # its own claude, not skipped
        assert [a.provider for a in view.attempts] == [name]
    assert len(calls_to(stack, sim_b)) == 3

    again = await run_to_end(stack, ws_a.name, agent.name, "team a, still revoked")
    # team a's own claude stays out of its routes (user action required): not even tried
    assert again.provider == backup and [a.provider for a in again.attempts] == [backup]
    assert {h.provider_key for h in await stack.store.list_health() if h.provider == name} == {key_a, key_b}
