"""Running and operating the system: `office dev`, `worker`, `simulator`, `bench`, `db upgrade`,
`watchdog install`."""

import asyncio
import json
from collections.abc import Callable, Coroutine
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from office.cli.common import EXIT_NOT_INSTALLED, console, err_console, fail, print_json, run_with_services
from office.settings import DEFAULT_DATA_DIR

db_app = typer.Typer(no_args_is_help=True, help="Database migrations.")
watchdog_app = typer.Typer(no_args_is_help=True, help="The backstop that clears stale automatic state.")

# The dev stack's Temporal UI. A named default rather than a literal: typer hands each call its own copy.
UI_ORIGINS = ["http://127.0.0.1:8233", "http://localhost:8233"]
BENCHES = ("continuity", "amplification", "throughput", "scale", "launch", "ceilings")  # `all`, in this order
SOLO_BENCHES = ("soak", "storm")  # by name only: too long for `all` (`make bench` stays within 15 minutes)


# --- the embedded stack ------------------------------------------------------------------------------
def dev(
    data_dir: Annotated[Path, typer.Option(help="Where Temporal, the store and the simulator keep state.")] = Path(
        DEFAULT_DATA_DIR
    ),
    temporal_port: Annotated[int, typer.Option(help="Temporal frontend (gRPC) port.")] = 7233,
    ui_port: Annotated[int, typer.Option(help="Temporal UI port.")] = 8233,
    simulator_port: Annotated[int, typer.Option(help="Provider simulator port.")] = 8390,
    codec_port: Annotated[
        int, typer.Option(help="Codec server port (the UI decodes encrypted payloads through it).")
    ] = 8234,
    no_demo: Annotated[bool, typer.Option("--no-demo", help="Start the stack without submitting demo runs.")] = False,
) -> None:
    """Start the embedded stack: Temporal dev server, provider simulator, worker, demo."""
    from office.codec import CodecKeyError
    from office.devstack import run_dev_stack

    try:
        asyncio.run(run_dev_stack(data_dir, temporal_port, ui_port, simulator_port, not no_demo, codec_port))
    except CodecKeyError as err:
        fail(str(err))


def worker() -> None:
    """Run a worker against TEMPORAL_ADDRESS and OFFICE_DATABASE_URL."""
    from office.worker_runtime import run_worker_forever

    asyncio.run(run_worker_forever())


async def _serve_simulator(port: int, config: Path | None) -> None:
    from office.simulator.server import SimulatorServer, load_config

    server = await SimulatorServer(load_config(config), port=port).start()
    print(f"simulator on {server.url}", flush=True)
    await asyncio.Event().wait()


def simulator(
    port: Annotated[int, typer.Option()] = 8390,
    config: Annotated[Path | None, typer.Option(help="SimConfig JSON file.")] = None,
) -> None:
    """Run the provider simulator alone."""
    asyncio.run(_serve_simulator(port, config))


async def _serve_codec(port: int, ui_origins: list[str], hosts: list[str], allow_encode: bool) -> None:
    from office.codec import KEYS_FILE_ENV, CodecKeyError, codec_from_env
    from office.codec_server import CodecServer

    try:
        codec = codec_from_env()
    except CodecKeyError as err:
        fail(str(err))
    if codec is None:
        fail(f"{KEYS_FILE_ENV} is not set: name the key file the workers encrypt with")
    server = await CodecServer(codec, ui_origins, port=port, hosts=hosts, allow_encode=allow_encode).start()
    print(f"codec server on {server.url} (Temporal UI: --ui-codec-endpoint {server.url})", flush=True)
    await asyncio.Event().wait()


def codec_server(
    port: Annotated[int, typer.Option()] = 8234,
    ui_origin: Annotated[list[str], typer.Option(help="The Temporal UI's origin (repeatable).")] = UI_ORIGINS,
    host_name: Annotated[
        list[str] | None,
        typer.Option(help="A name clients reach this server by, besides 127.0.0.1 and localhost (repeatable)."),
    ] = None,
    allow_encode: Annotated[
        bool, typer.Option(help="Also serve POST /encode (seals anything for whoever asks).")
    ] = False,
) -> None:
    """Decode encrypted payloads for the Temporal UI and `temporal --codec-endpoint` (loopback only; with
    OFFICE_CODEC_TOKEN set, only for requests bearing that token)."""
    asyncio.run(_serve_codec(port, ui_origin, host_name or [], allow_encode))


# --- operations ----------------------------------------------------------------------------------------
@db_app.command("upgrade")
def db_upgrade() -> None:
    """Apply migrations to OFFICE_DATABASE_URL."""
    from store.migrate import migrate

    run_with_services(lambda s: migrate(s.store.url), store=True)
    console.print("database is at the latest revision")


@watchdog_app.command("install")
def watchdog_install(
    every_minutes: Annotated[float, typer.Option(help="How often the schedule runs.")] = 10,
    max_age_minutes: Annotated[float, typer.Option(help="Automatic state older than this is cleared.")] = 60,
) -> None:
    """Create or update the Temporal Schedule that runs the watchdog."""
    from datetime import timedelta

    from office.watchdog_schedule import install_watchdog

    every, max_age = timedelta(minutes=every_minutes), timedelta(minutes=max_age_minutes)
    run_with_services(lambda s: install_watchdog(s.client, every, max_age), client=True)
    console.print("watchdog schedule installed")


# --- benchmarks ----------------------------------------------------------------------------------------
def bench(
    name: Annotated[
        str,
        typer.Argument(help="continuity | amplification | throughput | scale | launch | ceilings | all | soak | storm"),
    ],
    as_json: Annotated[bool, typer.Option("--json", help="One JSON object (all: keyed by benchmark).")] = False,
    runs: Annotated[
        int | None, typer.Option(min=1, help="soak only: the runs measured after the warm-up (default 10,000).")
    ] = None,
) -> None:
    """Run a benchmark against a real dev server and the provider simulator; print ratios measured side by side.
    `all` runs every one but `soak` (10,000 runs through one worker) and `storm` (2,000 sandboxed agent starts at
    once): run those by name."""
    import logging

    names = list(BENCHES) if name == "all" else [name]
    if any(n not in BENCHES + SOLO_BENCHES for n in names):
        fail(f"unknown benchmark {name!r}: choose one of {', '.join(BENCHES + SOLO_BENCHES)} or all")
    if runs is not None and names != ["soak"]:
        fail("--runs applies to `office bench soak` only: drop it, or run the soak")
    runners = _bench_runners(soak_runs=runs)
    logging.getLogger("temporalio").setLevel(logging.ERROR)
    results = {}
    for n in names:
        err_console.print(f"running {n} …")
        results[n] = asyncio.run(runners[n]())
        if not as_json:
            _render_bench(n, results[n])
    if as_json:
        print_json(results if name == "all" else results[name])


def _bench_runners(soak_runs: int | None = None) -> dict[str, Callable[[], Coroutine[Any, Any, dict[str, Any]]]]:
    """The benchmarks by name. They live in the source checkout (bench/ and the testkit/ it runs stacks with):
    the wheel ships neither, so an installed `office` without the checkout says so and exits 5."""
    try:
        from bench import amplification, ceilings, continuity, launch, scale, soak, throughput
    except ModuleNotFoundError as err:
        if (err.name or "").partition(".")[0] not in ("bench", "testkit"):
            raise
        fail(
            "the benchmarks are not installed: run them from the source checkout (make bench, "
            "or python -m office.cli bench NAME in its root)",
            EXIT_NOT_INSTALLED,
        )
    return {
        "continuity": continuity.run,
        "amplification": amplification.run,
        "throughput": throughput.run,
        "scale": scale.run,
        "launch": launch.run,
        "ceilings": ceilings.run,
        "soak": lambda: soak.run(soak.SoakPlan(runs=soak_runs) if soak_runs else soak.PLAN),
        "storm": launch.run_storm,
    }


def _render_bench(name: str, result: dict[str, Any]) -> None:
    table = Table(f"{name}", "value")
    for key, value in _flatten(result):
        table.add_row(key, value)
    console.print(table)


def _flatten(value: object, prefix: str = "") -> list[tuple[str, str]]:
    """Nested figures as dotted rows (`levels.1000.overhead_p99_s`); a list of figures stays on one row, a list of
    records (per-seed details) is left to --json."""
    if isinstance(value, dict) and value:
        return [row for key, sub in value.items() for row in _flatten(sub, f"{prefix}.{key}" if prefix else str(key))]
    if isinstance(value, list) and any(isinstance(item, dict) for item in value):
        return []
    shown = json.dumps(value, default=str) if isinstance(value, dict | list) else str(value)
    return [(prefix, shown)]
