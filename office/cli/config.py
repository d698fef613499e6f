"""Configuration a user owns: `office workspace …`, `office profile …`, `office models`, `office pin` / `unpin`,
`office selections`."""

import os
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer
import yaml
from pydantic import BaseModel, ValidationError
from rich.table import Table

from office.cli.common import DEFAULT_ACTOR, JsonFlag, Services, console, fail, print_json, run_with_services
from office.config_files import ConfigFileError, describe_validation, load_config_file

if TYPE_CHECKING:
    from routing.config import WorkspaceConfig
    from routing.selection import SelectionKind

workspace_app = typer.Typer(no_args_is_help=True, help="Workspaces and their provider order.")
profile_app = typer.Typer(no_args_is_help=True, help="Agent profiles.")


def load_file(path: Path) -> dict[str, Any]:
    """The settings in a YAML/JSON file, or exit 2 with one line (unreadable, not UTF-8, NUL, syntax,
    duplicate key, not a mapping)."""
    try:
        return load_config_file(path)
    except ConfigFileError as err:
        fail(str(err))


def validation_message(err: ValidationError, model: type[BaseModel] | None = None) -> str:
    return describe_validation(err, model)


def credential_problem(config: "WorkspaceConfig") -> str | None:
    """The first credential reference the workers' allow-list refuses (read from this shell's
    OFFICE_CREDENTIAL_ENV_ALLOW, which should match the workers'), or a malformed allow-list."""
    from routing.credentials import ALLOW_SETTING, CredentialAllowList, credential_fields

    try:
        allowed = CredentialAllowList.parse(os.environ.get(ALLOW_SETTING))
    except ValueError as err:
        return str(err)
    for field, name in credential_fields(config):
        problem = allowed.problem(name, field)
        if problem:
            return problem
    return None


# --- workspaces ---------------------------------------------------------------------------------------
@workspace_app.command("set")
def workspace_set(file: Annotated[Path, typer.Option("--file", "-f", help="Workspace YAML or JSON.")]) -> None:
    """Create or replace a workspace from a file (validated as a whole; nothing half-saved)."""
    from routing.config import WorkspaceConfig
    from routing.sandbox import NO_SANDBOX_WARNING

    try:
        config = WorkspaceConfig.model_validate(load_file(file))
    except ValidationError as err:
        fail(f"{file}: {validation_message(err, WorkspaceConfig)}; nothing was saved")
    problem = credential_problem(config)
    if problem:
        fail(f"{file}: {problem}; nothing was saved")
    run_with_services(lambda s: s.store.save_workspace(config), store=True)
    console.print(f"workspace {config.name} saved ({', '.join(e.provider for e in config.provider_order)})")
    if config.sandbox.off:
        console.print(f"[yellow]warning[/] workspace {config.name}: {NO_SANDBOX_WARNING}")


@workspace_app.command("show")
def workspace_show(name: str, as_json: JsonFlag = False) -> None:
    ws = run_with_services(lambda s: s.store.get_workspace(name), store=True)
    if ws is None:
        fail(f"workspace {name!r} does not exist")
    print_json(ws.model_dump(mode="json")) if as_json else console.print(yaml.safe_dump(ws.model_dump(mode="json")))


@workspace_app.command("list")
def workspace_list(as_json: JsonFlag = False) -> None:
    items = run_with_services(lambda s: s.store.list_workspaces(), store=True)
    if as_json:
        print_json([w.model_dump(mode="json") for w in items])
        return
    for w in items:
        console.print(f"{w.name}: {' → '.join(e.provider for e in w.provider_order)}")


# --- agent profiles -----------------------------------------------------------------------------------
@profile_app.command("set")
def profile_set(
    name: Annotated[str | None, typer.Argument(help="Profile name (or `name` in --file).")] = None,
    model: Annotated[str | None, typer.Option(help="Start model.")] = None,
    fallback_model: Annotated[str | None, typer.Option()] = None,
    auto_fallback: Annotated[bool | None, typer.Option("--auto-fallback/--no-auto-fallback")] = None,
    file: Annotated[Path | None, typer.Option("--file", "-f", help="Profile YAML or JSON.")] = None,
) -> None:
    """Create or replace an agent profile (an explicit user action; flags override the file)."""
    from routing.config import AgentProfile

    data = load_file(file) if file else {}
    overrides = {"name": name, "model": model, "fallback_model": fallback_model, "auto_fallback": auto_fallback}
    data |= {k: v for k, v in overrides.items() if v is not None}
    try:
        profile = AgentProfile.model_validate(data)
    except ValidationError as err:
        fail(f"{f'{file}: ' if file else ''}{validation_message(err, AgentProfile)}; nothing was saved")
    run_with_services(lambda s: s.store.save_agent(profile), store=True)
    console.print(f"profile {profile.name} saved")


async def _profile_reports(services: Services, names: list[str] | None, workspace: str | None) -> list[dict[str, Any]]:
    from office.catalogs import profile_reports

    agents = await services.store.list_agents()
    if names is not None:
        agents = [a for a in agents if a.name in names]
    return await profile_reports(services.store, agents, workspace)


@profile_app.command("show")
def profile_show(
    name: str,
    workspace: Annotated[str | None, typer.Option(help="Judge models against this workspace's providers only.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """A profile, with its models marked available, gone (no provider advertises them) or unknown."""
    reports = run_with_services(lambda s: _profile_reports(s, [name], workspace), store=True)
    if not reports:
        fail(f"agent profile {name!r} does not exist")
    print_json(reports[0]) if as_json else console.print(reports[0])


@profile_app.command("list")
def profile_list(workspace: Annotated[str | None, typer.Option()] = None, as_json: JsonFlag = False) -> None:
    reports = run_with_services(lambda s: _profile_reports(s, None, workspace), store=True)
    if as_json:
        print_json(reports)
        return
    for r in reports:
        console.print(
            f"{r['name']}: model={r['model']} ({r['model_status']}) "
            f"fallback={r['fallback_model'] or '-'} auto_fallback={r['auto_fallback']}"
        )


# --- what providers advertise -------------------------------------------------------------------------
async def _models_report(services: Services, provider: str, workspace: str | None) -> dict[str, Any]:
    from office.catalogs import live_catalog, profile_report

    catalog = await live_catalog(services.store, provider, workspace)
    reports = [profile_report(a, {provider: catalog}) for a in await services.store.list_agents()]
    return {
        "provider": provider,
        "models": catalog,
        "profiles": [
            {k: r[k] for k in ("name", "model", "model_status", "fallback_model", "fallback_model_status")}
            for r in reports
        ],
    }


def models(
    provider: str,
    workspace: Annotated[str | None, typer.Option(help="Workspace that configures PROVIDER.")] = None,
    as_json: JsonFlag = False,
) -> None:
    """What PROVIDER's executor advertises now, with every profile's configured models marked."""
    from office.catalogs import CatalogError

    try:
        report = run_with_services(lambda s: _models_report(s, provider, workspace), store=True)
    except CatalogError as err:
        fail(str(err))
    if as_json:
        print_json(report)
        return
    console.print(f"[bold]{provider}[/] advertises: {', '.join(report['models']) or '(nothing)'}")
    table = Table("profile", "model", "status", "fallback", "status")
    for r in report["profiles"]:
        table.add_row(
            r["name"], r["model"], r["model_status"], r["fallback_model"] or "-", r["fallback_model_status"] or "-"
        )
    console.print(table)


# --- user pins (durable selections) -------------------------------------------------------------------
async def _pin(services: Services, agent: str, provider: list[str], model: str | None, actor: str, reason: str) -> None:
    from routing.selection import SelectionKind, UserSelection
    from store.preferences import PreferenceWriter

    if await services.store.get_agent(agent) is None:
        fail(f"agent profile {agent!r} does not exist")
    writer = PreferenceWriter(services.store)
    if provider:
        await writer.set_user_selection(
            UserSelection(agent=agent, kind=SelectionKind.provider, value=provider, actor=actor, reason=reason)
        )
    if model:
        await writer.set_user_selection(
            UserSelection(agent=agent, kind=SelectionKind.model, value=[model], actor=actor, reason=reason)
        )


def pin(
    agent: str,
    provider: Annotated[list[str] | None, typer.Option("--provider", help="Provider(s) the agent may use.")] = None,
    model: Annotated[str | None, typer.Option("--model", help="The model the agent must run.")] = None,
    actor: Annotated[str, typer.Option(help="Who pins (for the record).")] = DEFAULT_ACTOR,
    reason: Annotated[str, typer.Option(help="Why, for the record.")] = "",
) -> None:
    """Pin an agent to providers and/or a model: a durable user preference (source=user)."""
    provider = provider or []
    if not provider and not model:
        fail("give --provider and/or --model")
    run_with_services(lambda s: _pin(s, agent, provider, model, actor, reason), store=True)
    console.print(f"pinned {agent}: providers={provider or '-'} model={model or '-'}")


async def _unpin(services: Services, agent: str, kinds: "list[SelectionKind]", actor: str) -> int:
    from store.preferences import PreferenceWriter

    writer = PreferenceWriter(services.store)
    return sum([await writer.clear_user_selection(agent, k, actor) for k in kinds])


def unpin(
    agent: str,
    provider: Annotated[bool, typer.Option("--provider")] = False,
    model: Annotated[bool, typer.Option("--model")] = False,
    actor: Annotated[str, typer.Option()] = DEFAULT_ACTOR,
) -> None:
    """Remove an agent's provider and/or model pin."""
    from routing.selection import SelectionKind

    kinds = [k for k, on in ((SelectionKind.provider, provider), (SelectionKind.model, model)) if on] or list(
        SelectionKind
    )
    removed = run_with_services(lambda s: _unpin(s, agent, kinds, actor), store=True)
    console.print(f"removed {removed} pin(s) from {agent}")


def selections_list(as_json: JsonFlag = False) -> None:
    """Durable selection state (user pins; anything else is a bug the watchdog clears)."""
    rows = run_with_services(lambda s: s.store.selections(), store=True)
    data = [r.model_dump(mode="json") for r in rows]
    if as_json:
        print_json(data)
        return
    for d in data:
        console.print(d)
