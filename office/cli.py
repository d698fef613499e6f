"""The `office` command line (typer + rich)."""

import asyncio
import json
import os
import sys
from collections.abc import Awaitable, Callable
from datetime import UTC
from pathlib import Path
from typing import Any, TypeVar

import typer
import yaml
from pydantic import ValidationError
from rich.console import Console
from rich.table import Table

from office.runs import SubmitError, list_views, run_view, wait_for_view
from office.runs import submit as submit_run
from office.settings import DEFAULT_DATA_DIR, Settings
from office.temporal_client import connect
from routing.run import RunStatus, RunView
from store.repository import Store

app = typer.Typer(no_args_is_help=True, help="Office run scheduler: run AI coding agents on Temporal.")
runs_app = typer.Typer(no_args_is_help=True, help="Inspect and control runs.")
workspace_app = typer.Typer(no_args_is_help=True, help="Workspaces and their provider order.")
profile_app = typer.Typer(no_args_is_help=True, help="Agent profiles.")
db_app = typer.Typer(no_args_is_help=True, help="Database migrations.")
health_app = typer.Typer(no_args_is_help=True, help="Provider health (evidence from runs, never preference).")
watchdog_app = typer.Typer(no_args_is_help=True, help="The backstop that clears stale automatic state.")
app.add_typer(runs_app, name="runs")
app.add_typer(workspace_app, name="workspace")
app.add_typer(profile_app, name="profile")
app.add_typer(db_app, name="db")
app.add_typer(health_app, name="health")
app.add_typer(watchdog_app, name="watchdog")

console = Console()
err_console = Console(stderr=True)
T = TypeVar("T")


def _run(coro_fn: Callable[[], Awaitable[T]]) -> T:
    return asyncio.run(coro_fn())  # type: ignore[arg-type]


def _fail(message: str, code: int = 2) -> None:
    err_console.print(f"[red]error:[/] {message}")
    raise typer.Exit(code)


def _print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, indent=2, default=str) + "\n")


async def _with_store(fn: Callable[[Store], Awaitable[T]]) -> T:
    store = Store(Settings.from_env().database_url)
    try:
        return await fn(store)
    finally:
        await store.close()


def _render_view(view: RunView) -> None:
    colour = {"completed": "green", "failed": "red", "parked": "yellow", "cancelled": "magenta"}.get(
        view.status.value, "cyan"
    )
    console.print(
        f"[bold]{view.run_id}[/]  [{colour}]{view.status.value}[/]  workspace={view.workspace} "
        f"agent={view.agent} provider={view.provider or '-'} requested={view.requested_model or '-'} "
        f"effective={view.effective_model or '-'} fallbacks={view.fallback_count}"
    )
    if view.attempts:
        table = Table("seq", "provider", "model", "outcome", "error code", "decision")
        for a in view.attempts:
            table.add_row(str(a.seq), a.provider, a.model or "-", a.outcome, a.error_code or "-", a.decision or "-")
        console.print(table)
    for w in view.warnings:
        console.print(
            f"[yellow]warning[/] {w.kind}: {w.reason} (requested {w.requested_model}, effective {w.effective_model})"
        )
    if view.park_reason:
        console.print(f"[yellow]parked:[/] {view.park_reason} (resume with `office runs resume {view.run_id}`)")
    if view.message:
        console.print(f"[bold]{view.message}[/]")
    if view.output:
        console.print(view.output)


def _exit_for(view: RunView) -> None:
    if view.status in (RunStatus.failed, RunStatus.cancelled):
        raise typer.Exit(1)


# --- the embedded stack ------------------------------------------------------------------------------
@app.command()
def dev(
    data_dir: Path = typer.Option(
        Path(DEFAULT_DATA_DIR), help="Where Temporal, the store and the simulator keep state."
    ),
    temporal_port: int = typer.Option(7233, help="Temporal frontend (gRPC) port."),
    ui_port: int = typer.Option(8233, help="Temporal UI port."),
    simulator_port: int = typer.Option(8390, help="Provider simulator port."),
    no_demo: bool = typer.Option(False, "--no-demo", help="Start the stack without submitting demo runs."),
) -> None:
    """Start the embedded stack: Temporal dev server, provider simulator, worker, demo."""
    from office.devstack import run_dev_stack

    asyncio.run(run_dev_stack(data_dir, temporal_port, ui_port, simulator_port, demo=not no_demo))


@app.command()
def worker() -> None:
    """Run a worker against TEMPORAL_ADDRESS and OFFICE_DATABASE_URL."""
    from office.worker_runtime import run_worker_forever

    asyncio.run(run_worker_forever())


@app.command()
def simulator(
    port: int = typer.Option(8390), config: Path | None = typer.Option(None, help="SimConfig JSON file.")
) -> None:
    """Run the provider simulator alone."""
    from office.simulator.server import SimulatorServer, load_config

    async def serve() -> None:
        server = await SimulatorServer(load_config(config), port=port).start()
        print(f"simulator on {server.url}", flush=True)
        await asyncio.Event().wait()

    asyncio.run(serve())


# --- runs --------------------------------------------------------------------------------------------
@app.command()
def submit(
    prompt: str = typer.Argument(..., help="The task for the agent."),
    workspace: str = typer.Option(..., "--workspace", "-w"),
    agent: str = typer.Option(..., "--agent", "-a"),
    tier: str | None = typer.Option(None, help="Tier of the workspace's execution profiles."),
    run_id: str | None = typer.Option(None, help="Workflow id; generated when omitted."),
    pin_provider: list[str] = typer.Option(
        [], "--pin-provider", help="Pin this run to a provider (repeatable); no fallback outside."
    ),
    pin_model: str | None = typer.Option(None, "--pin-model", help="Pin this run to a model."),
    follow_up: list[str] = typer.Option([], "--follow-up", help="A further user turn (repeatable)."),
    wait: bool = typer.Option(False, "--wait", help="Wait for the run to end."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Submit an office run."""

    async def go() -> RunView | str:
        store = Store(Settings.from_env().database_url)
        try:
            client = await connect()
            handle = await submit_run(
                client,
                store,
                workspace,
                agent,
                prompt,
                run_id=run_id,
                tier=tier,
                pin_providers=pin_provider,
                pin_model=pin_model,
                follow_ups=follow_up,
            )
        finally:
            await store.close()
        if not wait:
            return handle.id
        return await wait_for_view(client, handle.id)

    try:
        result = _run(go)
    except SubmitError as err:
        _fail(str(err))
        return
    if isinstance(result, str):
        _print_json({"run_id": result, "status": "running"}) if as_json else console.print(f"submitted {result}")
        return
    _print_json(result.model_dump(mode="json")) if as_json else _render_view(result)
    _exit_for(result)


@app.command()
def watch(run_id: str, interval: float = typer.Option(1.0, help="Seconds between refreshes.")) -> None:
    """Follow a run until it ends, printing each change."""

    async def go() -> RunView:
        client = await connect()
        last = None
        while True:
            view = await run_view(client, run_id)
            line = (view.status.value, view.provider, len(view.attempts), view.park_reason)
            if line != last:
                last = line
                latest = view.attempts[-1] if view.attempts else None
                step = f" last attempt {latest.provider}:{latest.error_code or latest.outcome}" if latest else ""
                console.print(f"{view.status.value:<10} provider={view.provider or '-'}{step}")
            if view.status in (RunStatus.completed, RunStatus.failed, RunStatus.cancelled):
                return view
            await asyncio.sleep(interval)

    view = _run(go)
    _render_view(view)
    _exit_for(view)


@runs_app.command("show")
def runs_show(run_id: str, as_json: bool = typer.Option(False, "--json")) -> None:
    """Show one run: status, attempts, warnings, message."""
    view = _run(lambda: _show(run_id))
    _print_json(view.model_dump(mode="json")) if as_json else _render_view(view)


async def _show(run_id: str) -> RunView:
    from temporalio.service import RPCError

    client = await connect()
    try:
        return await run_view(client, run_id)
    except RPCError as err:
        _fail(f"run {run_id!r}: {err.message}")
        raise


@runs_app.command("list")
def runs_list(
    as_json: bool = typer.Option(False, "--json"),
    limit: int = typer.Option(50),
    query: str | None = typer.Option(None, help="Extra visibility query, e.g. 'OfficeFallbackCount > 0'."),
) -> None:
    """List recent runs."""

    async def go() -> list[RunView]:
        return await list_views(await connect(), limit=limit, query=query)

    views = _run(go)
    if as_json:
        _print_json([v.model_dump(mode="json") for v in views])
        return
    table = Table("run", "status", "workspace", "agent", "provider", "effective model", "fallbacks", "error code")
    for v in views:
        table.add_row(
            v.run_id,
            v.status.value,
            v.workspace,
            v.agent,
            v.provider or "-",
            v.effective_model or "-",
            str(v.fallback_count),
            v.error_code or "-",
        )
    console.print(table)


@runs_app.command("cancel")
def runs_cancel(run_id: str) -> None:
    """Cancel a run (its activities are cancelled too)."""

    async def go() -> None:
        await (await connect()).get_workflow_handle(run_id).cancel()

    _run(go)
    console.print(f"cancellation requested for {run_id}")


@runs_app.command("decide")
def runs_decide(
    run_id: str,
    substitute: str | None = typer.Option(None, help="Approve this provider for this run only."),
    model: str | None = typer.Option(None, help="With --substitute: the model to run there."),
    retry: bool = typer.Option(False, "--retry", help="Try the pinned route again."),
    cancel: bool = typer.Option(False, "--cancel", help="End the run."),
    actor: str = typer.Option(os.environ.get("USER", "user"), help="Who decides (for the record)."),
) -> None:
    """Answer a run parked `awaiting_user_decision`. Nothing is saved as a preference."""
    from routing.selection import UserDecision
    from workflows.office_run import OfficeRunWorkflow

    chosen = [name for name, on in (("substitute", substitute), ("retry", retry), ("cancel", cancel)) if on]
    if len(chosen) != 1:
        _fail("choose exactly one of --substitute PROVIDER, --retry, --cancel")
    decision = UserDecision(action=chosen[0], provider=substitute, model=model, actor=actor)  # type: ignore[arg-type]

    async def go() -> None:
        from temporalio.client import WorkflowUpdateFailedError
        from temporalio.service import RPCError

        handle = (await connect()).get_workflow_handle(run_id)
        try:
            await handle.execute_update(OfficeRunWorkflow.user_decision, decision)
        except WorkflowUpdateFailedError as err:
            _fail(f"run {run_id}: {err.cause.message if err.cause else err}")
        except RPCError as err:  # e.g. the run has already ended
            _fail(f"run {run_id} is not awaiting a decision ({err.message})")

    _run(go)
    console.print(f"{chosen[0]} sent to {run_id}")


@runs_app.command("explain")
def runs_explain(run_id: str, as_json: bool = typer.Option(False, "--json")) -> None:
    """Three timelines: what the run selected and why, what durable state changed, what cleanup did."""
    from office.explain import explain_run

    async def go() -> dict:
        client = await connect()
        return await _with_store(lambda store: explain_run(client, store, run_id))

    report = _run(go)
    if as_json:
        _print_json(report)
        return
    console.print("[bold]1. live run: what it selected and why[/]")
    for a in report["selected"]:
        console.print(
            f"  attempt {a['seq']}: {a['provider']} model={a['model'] or a['requested_model']} "
            f"source={a['source']} → {a['outcome']}"
            + (f" [{a['error_code']}] {a['decision']}: {a['reason']}" if a["error_code"] else "")
        )
    for step in report["live"]:
        detail = {k: v for k, v in step.items() if k not in ("at", "event")}
        console.print(f"  {step['at']}  {step['event']}  {detail or ''}")
    console.print("[bold]2. durable state changed during the run[/]")
    for d in report["durable"] or [{"at": "-", "kind": "(none)"}]:
        console.print(f"  {d}")
    console.print("[bold]3. cleanup[/]")
    for c in report["cleanup"] or [{"at": "-", "kind": "(none)"}]:
        console.print(f"  {c}")


@runs_app.command("resume")
def runs_resume(run_id: str) -> None:
    """Resume a parked run after fixing credentials, plan or capacity."""
    from workflows.office_run import OfficeRunWorkflow

    async def go() -> None:
        await (await connect()).get_workflow_handle(run_id).signal(OfficeRunWorkflow.resume)

    _run(go)
    console.print(f"resume sent to {run_id}")


# --- configuration -----------------------------------------------------------------------------------
def _load_file(path: Path) -> dict:
    text = path.read_text()
    data = yaml.safe_load(text) if path.suffix in (".yaml", ".yml") else json.loads(text)
    if not isinstance(data, dict):
        _fail(f"{path}: expected a mapping at the top level")
    return data


def _validation_message(err: ValidationError) -> str:
    parts = []
    for e in err.errors():
        where = ".".join(str(p) for p in e["loc"]) or "(top level)"
        parts.append(f"{where}: {e['msg']}")
    return "; ".join(parts)


@workspace_app.command("set")
def workspace_set(file: Path = typer.Option(..., "--file", "-f", help="Workspace YAML or JSON.")) -> None:
    """Create or replace a workspace from a file (validated as a whole; nothing half-saved)."""
    from routing.config import WorkspaceConfig

    try:
        config = WorkspaceConfig.model_validate(_load_file(file))
    except ValidationError as err:
        _fail(f"{file}: {_validation_message(err)}")
        return
    _run(lambda: _with_store(lambda s: s.save_workspace(config)))
    console.print(f"workspace {config.name} saved ({', '.join(e.provider for e in config.provider_order)})")


@workspace_app.command("show")
def workspace_show(name: str, as_json: bool = typer.Option(False, "--json")) -> None:
    ws = _run(lambda: _with_store(lambda s: s.get_workspace(name)))
    if ws is None:
        _fail(f"workspace {name!r} does not exist")
        return
    _print_json(ws.model_dump(mode="json")) if as_json else console.print(yaml.safe_dump(ws.model_dump(mode="json")))


@workspace_app.command("list")
def workspace_list(as_json: bool = typer.Option(False, "--json")) -> None:
    items = _run(lambda: _with_store(lambda s: s.list_workspaces()))
    if as_json:
        _print_json([w.model_dump(mode="json") for w in items])
        return
    for w in items:
        console.print(f"{w.name}: {' → '.join(e.provider for e in w.provider_order)}")


@profile_app.command("set")
def profile_set(
    name: str | None = typer.Argument(None, help="Profile name (or `name` in --file)."),
    model: str | None = typer.Option(None, help="Start model."),
    fallback_model: str | None = typer.Option(None),
    auto_fallback: bool | None = typer.Option(None, "--auto-fallback/--no-auto-fallback"),
    file: Path | None = typer.Option(None, "--file", "-f", help="Profile YAML or JSON."),
) -> None:
    """Create or replace an agent profile (an explicit user action; flags override the file)."""
    from routing.config import AgentProfile

    data = _load_file(file) if file else {}
    overrides = {"name": name, "model": model, "fallback_model": fallback_model, "auto_fallback": auto_fallback}
    data |= {k: v for k, v in overrides.items() if v is not None}
    try:
        profile = AgentProfile.model_validate(data)
    except ValidationError as err:
        _fail(_validation_message(err))
        return
    _run(lambda: _with_store(lambda s: s.save_agent(profile)))
    console.print(f"profile {profile.name} saved")


def _profile_reports(names: list[str] | None, workspace: str | None) -> list[dict]:
    from office.catalogs import profile_reports

    async def go(store: Store) -> list[dict]:
        agents = await store.list_agents()
        if names is not None:
            agents = [a for a in agents if a.name in names]
        return await profile_reports(store, agents, workspace)

    return _run(lambda: _with_store(go))


@profile_app.command("show")
def profile_show(
    name: str,
    workspace: str | None = typer.Option(None, help="Judge models against this workspace's providers only."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """A profile, with its models marked available, gone (no provider advertises them) or unknown."""
    reports = _profile_reports([name], workspace)
    if not reports:
        _fail(f"agent profile {name!r} does not exist")
        return
    _print_json(reports[0]) if as_json else console.print(reports[0])


@profile_app.command("list")
def profile_list(workspace: str | None = typer.Option(None), as_json: bool = typer.Option(False, "--json")) -> None:
    reports = _profile_reports(None, workspace)
    if as_json:
        _print_json(reports)
        return
    for r in reports:
        console.print(
            f"{r['name']}: model={r['model']} ({r['model_status']}) "
            f"fallback={r['fallback_model'] or '-'} auto_fallback={r['auto_fallback']}"
        )


@app.command()
def models(
    provider: str,
    workspace: str | None = typer.Option(None, help="Workspace that configures PROVIDER."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """What PROVIDER's executor advertises now, with every profile's configured models marked."""
    from office.catalogs import CatalogError, live_catalog, profile_report

    async def go(store: Store) -> dict:
        catalog = await live_catalog(store, provider, workspace)
        reports = [profile_report(a, {provider: catalog}) for a in await store.list_agents()]
        return {
            "provider": provider,
            "models": catalog,
            "profiles": [
                {k: r[k] for k in ("name", "model", "model_status", "fallback_model", "fallback_model_status")}
                for r in reports
            ],
        }

    try:
        report = _run(lambda: _with_store(go))
    except CatalogError as err:
        _fail(str(err))
        return
    if as_json:
        _print_json(report)
        return
    console.print(f"[bold]{provider}[/] advertises: {', '.join(report['models']) or '(nothing)'}")
    table = Table("profile", "model", "status", "fallback", "status")
    for r in report["profiles"]:
        table.add_row(
            r["name"], r["model"], r["model_status"], r["fallback_model"] or "-", r["fallback_model_status"] or "-"
        )
    console.print(table)


@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply migrations to OFFICE_DATABASE_URL."""
    from store.migrate import migrate

    _run(lambda: migrate(Settings.from_env().database_url))
    console.print("database is at the latest revision")


@app.command()
def pin(
    agent: str,
    provider: list[str] = typer.Option([], "--provider", help="Provider(s) the agent may use."),
    model: str | None = typer.Option(None, "--model", help="The model the agent must run."),
    actor: str = typer.Option(os.environ.get("USER", "user"), help="Who pins (for the record)."),
    reason: str = typer.Option("", help="Why, for the record."),
) -> None:
    """Pin an agent to providers and/or a model: a durable user preference (source=user)."""
    from routing.selection import SelectionKind, UserSelection
    from store.preferences import PreferenceWriter

    if not provider and not model:
        _fail("give --provider and/or --model")

    async def go(store: Store) -> None:
        if await store.get_agent(agent) is None:
            _fail(f"agent profile {agent!r} does not exist")
        writer = PreferenceWriter(store)
        if provider:
            await writer.set_user_selection(
                UserSelection(agent=agent, kind=SelectionKind.provider, value=provider, actor=actor, reason=reason)
            )
        if model:
            await writer.set_user_selection(
                UserSelection(agent=agent, kind=SelectionKind.model, value=[model], actor=actor, reason=reason)
            )

    _run(lambda: _with_store(go))
    console.print(f"pinned {agent}: providers={provider or '-'} model={model or '-'}")


@app.command()
def unpin(
    agent: str,
    provider: bool = typer.Option(False, "--provider"),
    model: bool = typer.Option(False, "--model"),
    actor: str = typer.Option(os.environ.get("USER", "user")),
) -> None:
    """Remove an agent's provider and/or model pin."""
    from routing.selection import SelectionKind
    from store.preferences import PreferenceWriter

    kinds = [k for k, on in ((SelectionKind.provider, provider), (SelectionKind.model, model)) if on] or list(
        SelectionKind
    )

    async def go(store: Store) -> int:
        writer = PreferenceWriter(store)
        return sum([await writer.clear_user_selection(agent, k, actor) for k in kinds])

    console.print(f"removed {_run(lambda: _with_store(go))} pin(s) from {agent}")


@app.command("selections")
def selections_list(as_json: bool = typer.Option(False, "--json")) -> None:
    """Durable selection state (user pins; anything else is a bug the watchdog clears)."""
    rows = _run(lambda: _with_store(lambda s: s.selections()))
    data = [r.model_dump(mode="json") for r in rows]
    _print_json(data) if as_json else [console.print(d) for d in data]


@watchdog_app.command("install")
def watchdog_install(
    every_minutes: float = typer.Option(10, help="How often the schedule runs."),
    max_age_minutes: float = typer.Option(60, help="Automatic state older than this is cleared."),
) -> None:
    """Create or update the Temporal Schedule that runs the watchdog."""
    from datetime import timedelta

    from office.watchdog_schedule import install_watchdog

    async def go() -> None:
        await install_watchdog(await connect(), timedelta(minutes=every_minutes), timedelta(minutes=max_age_minutes))

    _run(go)
    console.print("watchdog schedule installed")


BENCHES = ("continuity", "amplification", "throughput")


@app.command()
def bench(
    name: str = typer.Argument(..., help="continuity | amplification | throughput | all"),
    as_json: bool = typer.Option(False, "--json", help="One JSON object (all: keyed by benchmark)."),
) -> None:
    """Run a benchmark against a real dev server and the provider simulator; print ratios measured side by side."""
    import importlib
    import logging

    names = list(BENCHES) if name == "all" else [name]
    if any(n not in BENCHES for n in names):
        _fail(f"unknown benchmark {name!r}: choose one of {', '.join(BENCHES)} or all")
    logging.getLogger("temporalio").setLevel(logging.ERROR)
    results = {}
    for n in names:
        err_console.print(f"running {n} …")
        results[n] = asyncio.run(importlib.import_module(f"bench.{n}").run())
        if not as_json:
            _render_bench(n, results[n])
    if as_json:
        _print_json(results if name == "all" else results[name])


def _render_bench(name: str, result: dict) -> None:
    table = Table(f"{name}", "value")
    for key, value in result.items():
        if isinstance(value, dict):
            for sub, subvalue in value.items():
                shown = {k: v for k, v in subvalue.items()} if isinstance(subvalue, dict) else subvalue
                table.add_row(f"{key}.{sub}", json.dumps(shown, default=str))
        elif not isinstance(value, list):
            table.add_row(key, str(value))
    console.print(table)


@app.command("explain-error")
def explain_error(
    status: int | None = typer.Option(None, "--status", help="HTTP status code."),
    header: list[str] = typer.Option([], "--header", help="'Name: value', repeatable."),
    body: str | None = typer.Option(None, "--body", help="Response body text."),
    body_file: Path | None = typer.Option(None, "--body-file", help="Read the body from a file."),
    provider: str | None = typer.Option(None, "--provider", help="Provider name (a hint)."),
    jsonrpc_code: int | None = typer.Option(None, "--jsonrpc-code", help="ACP JSON-RPC error code."),
    error_text: str | None = typer.Option(None, "--error-text", help="Exception or agent error text."),
    exception_type: str | None = typer.Option(None, "--exception-type"),
    exit_code: int | None = typer.Option(None, "--exit-code", help="Executor process exit code."),
    alone: bool = typer.Option(False, "--no-other-provider", help="Decide as if no other provider were eligible."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Classify a failure given by hand and show what an office run would decide."""
    from datetime import datetime

    from routing.classifier import FailureSignal, classify
    from routing.decider import RoutingContext, RunState, decide

    headers: dict[str, str] = {}
    for item in header:
        name, sep, value = item.partition(":")
        if not sep or not name.strip():
            _fail(f"--header {item!r}: expected 'Name: value'")
        headers[name.strip()] = value.strip()
    if body_file is not None:
        body = body_file.read_text()
    result = classify(
        FailureSignal(
            status=status,
            headers=headers,
            body=body,
            provider=provider,
            jsonrpc_code=jsonrpc_code,
            error_text=error_text,
            exception_type=exception_type,
            exit_code=exit_code,
        ),
        datetime.now(UTC),
    )
    decision = decide(
        result,
        RoutingContext.office,
        RunState(attempts=1, max_attempts=8, other_candidate_eligible=not alone),
        rand=0.5,
    )
    out = {
        "code": result.code.value,
        "class": result.error_class.value,
        "confidence": result.confidence,
        "phase": result.phase.value,
        "rule": result.rule,
        "excerpt": result.excerpt,
        "retry_after_s": result.retry_after_s,
        "decision": decision.kind.value,
        "reason": decision.reason,
        "delay_s": decision.delay_s,
        "park_reason": decision.park_reason.value if decision.park_reason else None,
        "health": decision.health.model_dump(mode="json") if decision.health else None,
    }
    if as_json:
        _print_json(out)
        return
    for key, value in out.items():
        console.print(f"[bold]{key:>14}[/]  {value}")


@health_app.command("list")
def health_list(as_json: bool = typer.Option(False, "--json")) -> None:
    """What runs have learned about each provider scope."""
    rows = _run(lambda: _with_store(lambda s: s.health_rows()))
    data = [r.model_dump(mode="json") for r in rows]
    if as_json:
        _print_json(data)
        return
    table = Table("provider", "model", "state", "retry at", "backoff step", "last code", "last run")
    for r in rows:
        table.add_row(
            r.provider,
            r.model or "(all)",
            r.state,
            str(r.retry_at or "-"),
            str(r.backoff_step),
            r.last_code or "-",
            r.last_run_id or "-",
        )
    console.print(table)


@health_app.command("clear")
def health_clear(provider: str, model: str | None = typer.Option(None, help="Only this model's record.")) -> None:
    """Say a provider is fixed (credentials, plan); parked runs still need `office runs resume`."""
    cleared = _run(lambda: _with_store(lambda s: s.clear_health(provider, model)))
    console.print(f"cleared {cleared} health record(s) for {provider}")


def main() -> None:
    """Exits with os._exit after flushing: the Temporal client's Rust threads can abort CPython's
    finalisation ("PyGILState_Release ... must be current", temporalio/sdk-python#300), which would turn a
    successful command into a crash with a non-zero status."""
    from office.telemetry import configure_telemetry, flush_telemetry

    if sys.argv[1:2] not in (["dev"], ["worker"]):  # those two configure their own, long-lived telemetry
        configure_telemetry("office-cli", default="none")
    try:
        app()
        code = 0
    except SystemExit as done:  # typer ends every command this way, with the status to exit with
        code = done.code if isinstance(done.code, int) else (0 if done.code is None else 1)
    flush_telemetry()
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


if __name__ == "__main__":
    main()
