"""`office dev`: the embedded stack in one terminal. Temporal dev server (SQLite file), provider simulator,
store migrations on SQLite, a worker, the demo workspace and demo runs. Ctrl-C stops what it started."""

import asyncio
import contextlib
import json
import os
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

from rich.console import Console
from temporalio.client import Client
from temporalio.common import WorkflowIDReusePolicy

from activities.git.runner import DEV_MODE_ENV
from activities.workdir import private_dir
from contracts.queues import TASK_QUEUE
from office.codec import KEYS_FILE_ENV, CodecKeyError, codec_from_env, ensure_key_file
from office.codec_server import CodecServer
from office.demo import DEMO_AGENTS, DEMO_ENV, DEMO_RUNS, demo_simulator, demo_workspace
from office.runs import RunIdTaken, submit, wait_for_view
from office.simulator.config import SimConfig
from office.simulator.server import SimulatorServer
from office.telemetry import configure_telemetry
from office.temporal_client import connect
from office.temporal_server import TemporalDevServer
from office.watchdog_schedule import install_watchdog
from office.worker_runtime import office_worker
from routing.config import ExecutionProfile, ExecutorKind, WorkspaceConfig
from routing.permissions import PermissionPolicy
from routing.repository import RepositoryConfig
from routing.sandbox import ProfileSandbox
from store.migrate import migrate
from store.repository import Store


async def _submit_demo_runs(client: Client, store: Store, console: Console) -> None:
    for run_id, agent, prompt in DEMO_RUNS:
        try:
            await submit(
                client,
                store,
                "demo",
                agent,
                prompt,
                run_id=run_id,
                id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE,
            )
        except RunIdTaken:
            console.print(f"  demo run {run_id} exists already (kept from an earlier start)")
            continue
        view = await wait_for_view(client, run_id)
        tried = " → ".join(f"{a.provider}:{a.error_code or a.outcome}" for a in view.attempts)
        console.print(
            f"  demo run [bold]{run_id}[/]: {view.status.value} ({tried})"
            + (f"\n    {view.message}" if view.message else "")
        )


REPO_RUN = ("demo-repo-change", "coder", "Add a changelog entry for the parser fix")


def _seed_demo_repo(data_dir: Path) -> Path:
    """A local bare repository under the data dir, seeded once with one commit on main."""
    bare = data_dir / "demo-repo.git"
    if (bare / "HEAD").exists():
        return bare
    git = ["git", "-c", "user.name=Office demo", "-c", "user.email=demo@localhost", "-c", "init.defaultBranch=main"]
    subprocess.run([*git, "init", "--quiet", "--bare", str(bare)], check=True)
    with tempfile.TemporaryDirectory() as seed:
        subprocess.run([*git, "init", "--quiet", seed], check=True)
        (Path(seed) / "README.md").write_text("# Demo repository\n\nA parser and its tests.\n")
        subprocess.run([*git, "-C", seed, "add", "README.md"], check=True)
        subprocess.run([*git, "-C", seed, "commit", "--quiet", "-m", "Initial commit"], check=True)
        subprocess.run([*git, "-C", seed, "push", "--quiet", str(bare), "HEAD:refs/heads/main"], check=True)
    return bare


def demo_repo_workspace(bare: Path) -> WorkspaceConfig:
    """`demo-repo`: runs work on office/<run-id> in the demo repository. Its agent is the scripted ACP agent
    (no credentials, no npm), which writes CHANGELOG.md through the client's fs/write_text_file."""
    script = {
        "models": ["demo-model"],
        "actions": [
            {"write": "CHANGELOG.md", "content": "# Changelog\n\n- Fix the parser's handling of empty input.\n"}
        ],
    }
    agent = ExecutionProfile(
        kind=ExecutorKind.acp,
        command=[sys.executable, "-m", "office.scripted_agent"],
        env={"SCRIPTED_AGENT": json.dumps(script), "PYTHONPATH": str(Path(__file__).resolve().parents[1])},
        timeout_s=60,
        # The demo's agent runs from this checkout: its sandbox may read it (and nothing else of the machine's).
        sandbox=ProfileSandbox(read_only=[str(Path(__file__).resolve().parents[1])]),
    )
    return WorkspaceConfig(
        name="demo-repo",
        provider_order=["scripted"],  # type: ignore[list-item]  # plain names are accepted
        providers={"scripted": agent},
        repository=RepositoryConfig(url=str(bare), base_ref="main"),
        permissions=PermissionPolicy(edit="allow"),
    )


async def _submit_repo_run(client: Client, console: Console, store: Store) -> None:
    run_id, agent, prompt = REPO_RUN
    try:
        await submit(client, store, "demo-repo", agent, prompt, run_id=run_id,
                     id_reuse_policy=WorkflowIDReusePolicy.REJECT_DUPLICATE)  # fmt: skip
    except RunIdTaken:
        console.print(f"  demo run {run_id} exists already (kept from an earlier start)")
        return
    view = await wait_for_view(client, run_id)
    r = view.result
    console.print(
        f"  demo run [bold]{run_id}[/]: {view.status.value}"
        + (f", branch [bold]{r.branch}[/] {r.base_commit[:12]}..{r.head_commit[:12]} ({r.files_changed} file, "
           f"+{r.insertions} -{r.deletions}); see `office runs diff {run_id}`" if r else f"\n    {view.message}")
    )  # fmt: skip


PRIVATE_FILES = ("codec-keys", "office.db", "temporal.db", "simulator.json", "env.json", "temporal.log")


def _prepare_data_dir(data_dir: Path) -> tuple[Path, SimConfig]:
    """The file work before the stack starts (run in a thread): the data directory, and the simulator's
    configuration, written once with the demo providers and the user's to edit from then on."""
    data_dir = data_dir.resolve()
    private_dir(data_dir)
    os.chmod(data_dir, 0o700)  # also a data dir an older version made 0755
    for name in PRIVATE_FILES:  # and the files it wrote 0644
        with contextlib.suppress(FileNotFoundError):
            os.chmod(data_dir / name, 0o600)
    sim_file = data_dir / "simulator.json"
    if not sim_file.exists():
        sim_file.write_text(demo_simulator().model_dump_json(indent=2))
    return data_dir, SimConfig.model_validate_json(sim_file.read_text())


async def run_dev_stack(
    data_dir: Path, temporal_port: int, ui_port: int, simulator_port: int, demo: bool, codec_port: int = 8234
) -> None:
    console = Console()
    # Everything this stack writes is private to its user: the store holds every prompt and answer in plain text,
    # the key file decrypts Temporal's payloads. The umask covers the files the Temporal dev server, SQLite and
    # git create too (owner-only: 0600 files, 0700 directories).
    os.umask(0o077)
    data_dir, sim_config = await asyncio.to_thread(_prepare_data_dir, data_dir)
    # Prompts and answers are ciphertext in Temporal; the UI decodes them through the codec server below.
    keys = await asyncio.to_thread(ensure_key_file, data_dir / "codec-keys")
    os.environ.setdefault(KEYS_FILE_ENV, str(keys))
    codec = codec_from_env()
    db_url = f"sqlite:///{data_dir / 'office.db'}"
    exporter = configure_telemetry("office-dev", console_file=data_dir / "telemetry.log")
    os.environ.update({k: v for k, v in DEMO_ENV.items() if k not in os.environ})

    temporal = TemporalDevServer(
        db_file=data_dir / "temporal.db", port=temporal_port, ui_port=ui_port, log_file=data_dir / "temporal.log",
        codec_endpoint=f"http://127.0.0.1:{codec_port}",
    )  # fmt: skip
    if codec is None:  # set just above, unless the environment sets it empty
        raise CodecKeyError(f"{KEYS_FILE_ENV} is set but empty: name the key file, or unset it for one kept here")
    codec_server = CodecServer(codec, [temporal.ui_url, f"http://localhost:{ui_port}"], port=codec_port)
    simulator = SimulatorServer(sim_config, port=simulator_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(sig, stop.set)
    console.print(f"starting Temporal dev server on {temporal.address} (UI {temporal.ui_url}), data in {data_dir}")
    await codec_server.start()
    await temporal.start()
    try:
        await simulator.start()
        console.print(f"provider simulator on {simulator.url}")
        await migrate(db_url)
        store = Store(db_url)
        await store.save_workspace(demo_workspace(simulator.url))
        await store.save_workspace(demo_repo_workspace(await asyncio.to_thread(_seed_demo_repo, data_dir)))
        for agent in DEMO_AGENTS:
            if await store.get_agent(agent.name) is None:  # never overwrite a profile the user edited
                await store.save_agent(agent)
        client = await connect(address=temporal.address, namespace="default")
        os.environ.setdefault("OFFICE_WORK_DIR", str(data_dir / "work"))  # mirrors and per-run working copies
        os.environ[DEV_MODE_ENV] = "1"  # a development worker: the demo repository is a path under the data dir
        async with office_worker(client, db_url, TASK_QUEUE):
            await install_watchdog(client)
            if demo:
                console.print("submitting demo runs …")
                await _submit_demo_runs(client, store, console)
                await _submit_repo_run(client, console, store)
            exports = {
                "TEMPORAL_ADDRESS": temporal.address,
                "TEMPORAL_NAMESPACE": "default",
                "OFFICE_DATABASE_URL": db_url,
                "OFFICE_SIMULATOR_URL": simulator.url,
                KEYS_FILE_ENV: os.environ[KEYS_FILE_ENV],
                DEV_MODE_ENV: "1",  # `office runs diff` reads the demo repository from its path too
            }
            await asyncio.to_thread((data_dir / "env.json").write_text, json.dumps(exports, indent=2))
            for name, value in exports.items():
                print(f"export {name}={value}")
            print(f"Temporal UI: {temporal.ui_url}/namespaces/default/workflows (decoded by {codec_server.url})")
            if exporter == "console":
                print(f"traces and metrics: {data_dir / 'telemetry.log'}")
            print("ready", flush=True)
            await stop.wait()
            console.print("stopping …")
        await store.close()
    finally:
        with contextlib.suppress(Exception):
            await simulator.stop()
        temporal.stop()
        with contextlib.suppress(Exception):
            await codec_server.stop()
