"""`office bench` from an installed wheel, which ships neither bench/ nor testkit/: one line and exit 5."""

import sys

import pytest
from typer.testing import CliRunner

from office.cli import app
from office.cli.common import EXIT_NOT_INSTALLED, EXIT_USAGE


@pytest.mark.parametrize("missing", ["bench", "testkit"])
def test_bench_without_the_source_checkout_says_so_and_exits_5(monkeypatch, missing):
    monkeypatch.setitem(sys.modules, missing, None)  # `import bench` now fails as it does outside the checkout
    for name in [n for n in sys.modules if n.startswith(("bench.", "testkit."))]:
        monkeypatch.delitem(sys.modules, name)
    result = CliRunner().invoke(app, ["bench", "scale"])
    assert result.exit_code == EXIT_NOT_INSTALLED == 5
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "benchmarks are not installed" in lines[0] and "make bench" in lines[0]


def test_an_unknown_benchmark_is_bad_input_before_anything_is_imported(monkeypatch):
    monkeypatch.setitem(sys.modules, "bench", None)
    result = CliRunner().invoke(app, ["bench", "nonsense"])
    assert result.exit_code == EXIT_USAGE
    assert "unknown benchmark 'nonsense'" in result.stderr


def _recording_runners(monkeypatch, ran: list[str], asked_runs: list[int | None]):
    from office.cli import dev

    def runners(soak_runs: int | None = None):
        asked_runs.append(soak_runs)

        def recorder(name: str):
            async def run() -> dict[str, int]:
                ran.append(name)
                return {"ok": 1}

            return run

        return {n: recorder(n) for n in dev.BENCHES + dev.SOLO_BENCHES}

    monkeypatch.setattr(dev, "_bench_runners", runners)


def test_all_runs_every_benchmark_but_the_soak(monkeypatch):
    ran: list[str] = []
    _recording_runners(monkeypatch, ran, [])
    result = CliRunner().invoke(app, ["bench", "all", "--json"])
    assert result.exit_code == 0, result.output
    assert set(ran) == {"continuity", "amplification", "throughput", "scale", "launch", "ceilings"}


def test_the_soak_runs_by_name_with_the_runs_asked_for(monkeypatch):
    ran: list[str] = []
    soak_runs: list[int | None] = []
    _recording_runners(monkeypatch, ran, soak_runs)
    result = CliRunner().invoke(app, ["bench", "soak", "--runs", "300", "--json"])
    assert result.exit_code == 0, result.output
    assert ran == ["soak"] and soak_runs == [300]


def test_runs_with_another_benchmark_is_bad_input(monkeypatch):
    monkeypatch.setitem(sys.modules, "bench", None)
    result = CliRunner().invoke(app, ["bench", "scale", "--runs", "300"])
    assert result.exit_code == EXIT_USAGE
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--runs applies to `office bench soak` only" in lines[0]
