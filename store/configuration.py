"""The configuration aggregate: workspaces and agent profiles, the identities provider names have in them, and
what a run reads at submit and route resolution (on PostgreSQL in one asyncpg statement each: store.turn_path)."""

from sqlalchemy.ext.asyncio import AsyncSession
from sqlmodel import col, select

from routing.config import AgentProfile, WorkspaceConfig
from routing.identity import legacy_key, provider_key
from routing.route import HealthRecord
from routing.selection import Pins
from store import turn_path
from store.capacity import health_records
from store.database import Database
from store.rows import utcnow
from store.selections import pins_of
from store.tables import AgentProfileRow, ProviderHealthRow, WorkspaceRow


def _profile(row: AgentProfileRow) -> AgentProfile:
    return AgentProfile.model_validate(row.model_dump(exclude={"updated_at"}))


class ConfigRepository:
    def __init__(self, database: Database):
        self.database = database

    async def save_workspace(self, config: WorkspaceConfig) -> None:
        await self.database.upsert(
            WorkspaceRow,
            {"name": config.name, "config": config.model_dump(mode="json"), "updated_at": utcnow()},
            ["name"],
        )

    async def get_workspace(self, name: str) -> WorkspaceConfig | None:
        async with self.database.reads() as s:
            row = await s.get(WorkspaceRow, name)
        return WorkspaceConfig.model_validate(row.config) if row else None

    async def list_workspaces(self) -> list[WorkspaceConfig]:
        async with self.database.reads() as s:
            rows = (await s.execute(select(WorkspaceRow).order_by(col(WorkspaceRow.name)))).scalars().all()
        return [WorkspaceConfig.model_validate(r.config) for r in rows]

    async def save_agent(self, agent: AgentProfile) -> None:
        values = agent.model_dump(mode="json") | {"updated_at": utcnow()}
        await self.database.upsert(AgentProfileRow, values, ["name"])

    async def get_agent(self, name: str) -> AgentProfile | None:
        async with self.database.reads() as s:
            row = await s.get(AgentProfileRow, name)
        return _profile(row) if row else None

    async def list_agents(self) -> list[AgentProfile]:
        async with self.database.reads() as s:
            rows = (await s.execute(select(AgentProfileRow).order_by(col(AgentProfileRow.name)))).scalars().all()
        return [_profile(r) for r in rows]

    # Health rows are keyed by the provider's identity (routing.identity.provider_key), never by its name alone.
    # The activities pass the key they computed from the candidate's profile; a caller that passes only a name
    # (the CLI, tests, scripts) gets the identity that name has in the stored workspaces.
    async def key_for(self, provider: str) -> str:
        """The identity a provider name stands for in the stored workspaces. A name no workspace uses gets a
        legacy key of its own; a name that workspaces give to different providers is ambiguous: pass the key."""
        keys = await self.keys_for([provider])
        found = keys.get(provider, set())
        if len(found) > 1:
            raise ValueError(
                f"provider name {provider!r} stands for {len(found)} different providers across workspaces "
                f"(keys {', '.join(sorted(found))}); name it by its key"
            )
        return next(iter(found)) if found else legacy_key(provider)

    async def keys_for(self, providers: list[str]) -> dict[str, set[str]]:
        """Every identity each of these provider names has in the stored workspaces."""
        found: dict[str, set[str]] = {}
        for workspace in await self.list_workspaces():
            for name, profile in workspace.providers.items():
                if name in providers:
                    found.setdefault(name, set()).add(provider_key(profile))
        return found

    async def configs(self, workspace: str, agent: str) -> tuple[WorkspaceConfig | None, AgentProfile | None]:
        """A workspace and an agent profile, in one round trip."""
        if self.database.is_postgresql:
            async with self.database.driver() as conn:
                config, profile, _ = await turn_path.configs(conn, workspace, agent)
            return config, profile
        async with self.database.reads() as s:
            return await _configs(s, workspace, agent)

    async def route_inputs(
        self, workspace: str, agent: str, with_pins: bool
    ) -> tuple[WorkspaceConfig | None, AgentProfile | None, list[HealthRecord], Pins]:
        """What route resolution reads, in one round trip: the workspace, the agent profile, the health records
        of the workspace's own provider identities and (`with_pins`) the user's pins."""
        if self.database.is_postgresql:
            async with self.database.driver() as conn:
                config, profile, pins = await turn_path.configs(conn, workspace, agent, with_pins)
                keys = {provider_key(p) for p in config.providers.values()} if config else set()
                return config, profile, await turn_path.health(conn, keys) if keys else [], pins
        async with self.database.reads() as s:
            config, profile = await _configs(s, workspace, agent)
            health: list[HealthRecord] = []
            if config is not None:
                keys = {provider_key(p) for p in config.providers.values()}
                query = select(ProviderHealthRow).where(col(ProviderHealthRow.provider_key).in_(keys))
                health = await health_records(s, query)
            pins = await pins_of(s, agent) if with_pins else Pins()
        return config, profile, health, pins


async def _configs(s: AsyncSession, workspace: str, agent: str) -> tuple[WorkspaceConfig | None, AgentProfile | None]:
    ws_row, agent_row = await s.get(WorkspaceRow, workspace), await s.get(AgentProfileRow, agent)
    config = WorkspaceConfig.model_validate(ws_row.config) if ws_row else None
    return config, _profile(agent_row) if agent_row else None
