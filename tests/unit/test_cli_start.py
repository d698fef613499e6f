"""`office --help` and a command refused for its input answer without loading the Temporal client, the store, the
workflows or an HTTP client: the answer is the same (status, one line), only sooner. Each case runs the CLI as a
subprocess with `-X importtime`, which lists every module the process imported."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

# What only a command that reached Temporal or the database needs (top-level packages, and the telemetry SDK that
# only an exporting process sets up).
HEAVY = ("temporalio", "grpc", "sqlalchemy", "asyncpg", "store", "workflows", "activities.git", "httpx",
         "opentelemetry.sdk")  # fmt: skip

# (argv, exit status, what stderr says; None: stdout is the help text)
REFUSED = [
    (["--help"], 0, None),
    (["runs", "--help"], 0, None),
    (["submit", "--help"], 0, None),
    (["submit", "-a", "bot", "task"], 2, "Missing option '--workspace'"),
    (["submit", "-w", "w", "-a", "bot", "   "], 2, "prompt: is empty"),
    (["submit", "-w", "w", "-a", "bot", "task", "--max-tokens", "0"], 2, "max-tokens: 0 is not a count of tokens"),
    (["runs", "show"], 2, "Missing argument 'run_id'"),
    (["runs", "continue", "run-1", ""], 2, "text: is empty"),
    (["runs", "decide", "run-1"], 2, "choose exactly one of --substitute PROVIDER, --retry, --cancel"),
    (["runs", "resume", "run-1", "--max-cost-usd", "-1"], 2, "max-cost-usd: -1.0 is not an amount of USD"),
    (
        ["schedule", "create", "nightly", "-w", "w", "-a", "bot", "--interval", "9x", "task"],
        2,
        "interval: '9x' is not an interval",
    ),
    (["workspace", "set", "--file", "/nonexistent/ws.yaml"], 2, "no such file"),
    (["explain-error", "--text", "x", "--error-text", "y"], 2, "--text and --error-text both give the error text"),
]


def office(argv: list[str]) -> tuple[int, str, str, set[str]]:
    """Runs `office ARGV` against a Temporal frontend and a database that are not there; its status, stdout, the
    stderr lines that are not -X importtime's, and the modules it imported."""
    env = os.environ | {
        "TEMPORAL_ADDRESS": "127.0.0.1:1",
        "OFFICE_DATABASE_URL": "postgresql://127.0.0.1:1/office",
        "OFFICE_OTEL_EXPORTER": "none",
        "COLUMNS": "200",
    }
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "office.cli", *argv], env=env, capture_output=True, timeout=60
    )
    imported, said = set(), []
    for line in proc.stderr.decode(errors="replace").splitlines():
        if line.startswith("import time:"):
            imported.add(line.rsplit("|", 1)[1].strip())
        else:
            said.append(line)
    return proc.returncode, proc.stdout.decode(errors="replace"), "\n".join(said), imported


def heavy_in(imported: set[str]) -> list[str]:
    return sorted(m for m in imported if any(m == h or m.startswith(f"{h}.") for h in HEAVY))


@pytest.fixture(scope="module")
def refused() -> list[tuple[int, str, str, set[str]]]:
    with ThreadPoolExecutor(2) as pool:
        return list(pool.map(office, [argv for argv, _, _ in REFUSED]))


@pytest.mark.parametrize("case", range(len(REFUSED)), ids=[" ".join(argv) or "-" for argv, _, _ in REFUSED])
def test_help_and_bad_input_answer_without_loading_temporal_or_the_store(refused, case):
    argv, status, says = REFUSED[case]
    code, out, err, imported = refused[case]
    assert code == status, err
    assert "Traceback" not in err
    if says is None:
        assert "Usage:" in out and "--help" in out
    else:
        assert says in " ".join(err.split())
    assert heavy_in(imported) == [], f"office {' '.join(argv)} imported {heavy_in(imported)[:8]}"


def test_a_command_that_connects_does_load_them():
    """The control: the listing sees the client when a command gets as far as connecting (here to nothing)."""
    code, _, err, imported = office(["runs", "show", "run-1"])
    assert code == 3 and "cannot connect to Temporal at 127.0.0.1:1" in err
    assert {"temporalio", "sqlalchemy", "workflows"} <= imported
