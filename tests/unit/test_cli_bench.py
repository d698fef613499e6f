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
