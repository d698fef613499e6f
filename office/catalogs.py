"""Catalog reports for the CLI: what an executor advertises now, and whether profiles' models are gone."""

import tempfile
from pathlib import Path
from typing import Any

import httpx

from activities.executors.acp import AgentSession
from activities.executors.base import ProviderCallError
from activities.executors.launcher import launch_environment, sandbox_plan
from activities.executors.openai_compat import OpenAICompatExecutor
from activities.workdir import default_work_dir, private_dir
from routing.config import AgentProfile, ExecutionProfile, ExecutorKind, WorkspaceConfig
from routing.model_policy import model_status
from routing.sandbox import SandboxSettings
from store.repository import Store


class CatalogError(RuntimeError):
    pass


async def find_provider(store: Store, provider: str, workspace: str | None) -> WorkspaceConfig:
    spaces = [await store.get_workspace(workspace)] if workspace else await store.list_workspaces()
    for ws in spaces:
        if ws is not None and provider in ws.providers:
            return ws
    where = f"workspace {workspace!r}" if workspace else "any workspace"
    raise CatalogError(f"provider {provider!r} is not configured in {where}")


async def live_catalog(store: Store, provider: str, workspace: str | None) -> list[str]:
    """Asks the executor now (credentials from this process's environment) and records what it said."""
    ws = await find_provider(store, provider, workspace)
    profile = ws.providers[provider]
    try:
        if profile.kind is ExecutorKind.acp:
            models = await _agent_catalog(provider, profile, ws.sandbox)
        else:
            async with httpx.AsyncClient() as http:
                models = await OpenAICompatExecutor(provider, profile, http).list_models()
    except ProviderCallError as err:
        raise CatalogError(f"{provider}: {err}") from err
    await store.observe_catalog(provider, models, None)
    return models


async def _agent_catalog(provider: str, profile: ExecutionProfile, sandbox: SandboxSettings) -> list[str]:
    """Launches the agent (in the workspace's sandbox, in an empty directory of its own, never the caller's
    current directory), opens a session, reads what it advertises, and reaps it."""
    env = launch_environment(profile, provider, None)
    work_dir = default_work_dir()
    with tempfile.TemporaryDirectory(dir=private_dir(Path(work_dir))) as cwd:
        session = await AgentSession.launch(
            "catalog", provider, profile, env, cwd, work_dir, sandbox_plan(profile, sandbox)
        )
        try:
            await session.start(cwd)
        finally:
            await session.close()
    return session.choice.catalog or []


def profile_report(agent: AgentProfile, catalogs: dict[str, list[str]]) -> dict[str, Any]:
    known = list(catalogs.values())
    status = model_status(agent.model, known)
    fallback_status = model_status(agent.fallback_model, known)
    return agent.model_dump(mode="json") | {
        "model_status": status.value if status else None,
        "fallback_model_status": fallback_status.value if fallback_status else None,
        "catalogs_from": sorted(catalogs),
    }


async def profile_reports(store: Store, agents: list[AgentProfile], workspace: str | None) -> list[dict[str, Any]]:
    spaces = [await store.get_workspace(workspace)] if workspace else await store.list_workspaces()
    providers = sorted({p for ws in spaces if ws is not None for p in ws.providers})
    catalogs = await store.observed_catalogs(providers)
    return [profile_report(agent, catalogs) for agent in agents]
