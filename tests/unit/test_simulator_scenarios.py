"""The simulator's named scenarios as Claude Code's HTTP client meets them on the Anthropic Messages API."""

import time

import pytest
from starlette.testclient import TestClient

from office.simulator.app import Simulator, build_app
from office.simulator.config import SimConfig, SimProvider
from office.simulator.scenarios import claude_own_fallback, claude_subscription_limit


def client(provider: SimProvider) -> tuple[TestClient, Simulator]:
    sim = Simulator(SimConfig(providers={"p": provider}))
    return TestClient(build_app(sim)), sim


def ask(http: TestClient, model: str):
    body = {"model": model, "max_tokens": 10, "messages": [{"role": "user", "content": "hi"}]}
    return http.post("/p/p/v1/messages", json=body)


def test_only_the_overloaded_model_is_overloaded_and_the_fallback_answers_in_its_own_name():
    http, sim = client(claude_own_fallback("claude-opus-*"))
    for _ in range(3):
        overloaded = ask(http, "claude-opus-4-6")
        assert overloaded.status_code == 529
        assert overloaded.json()["error"]["type"] == "overloaded_error"  # what Claude Code counts (cli.js Ov6)
    answered = ask(http, "claude-sonnet-4-6")
    assert answered.status_code == 200 and answered.json()["model"] == "claude-sonnet-4-6"
    assert [(c["model"], c["status"]) for c in sim.calls] == [("claude-opus-4-6", 529)] * 3 + [
        ("claude-sonnet-4-6", 200)
    ]


@pytest.mark.parametrize("window, per_window", [("five_hour", "5h"), ("seven_day", "7d"), ("seven_day_opus", None)])
def test_a_used_up_subscription_window_states_its_reset_as_claude_code_reads_it(window, per_window):
    http, sim = client(claude_subscription_limit(reset_in_s=3 * 3600, window=window, times=1))
    before = time.time()
    limited = ask(http, "claude-opus-4-6")
    assert limited.status_code == 429 and limited.json()["error"]["type"] == "rate_limit_error"
    headers = limited.headers
    assert headers["anthropic-ratelimit-unified-status"] == "rejected"
    assert headers["anthropic-ratelimit-unified-representative-claim"] == window
    reset = int(headers["anthropic-ratelimit-unified-reset"])  # epoch seconds (cli.js c6_: Number(h) * 1000)
    assert before + 3 * 3600 - 1 <= reset <= time.time() + 3 * 3600
    assert "retry-after" not in headers  # a subscriber's 429 is not retried; the reset is in the unified headers
    if per_window is not None:
        assert headers[f"anthropic-ratelimit-unified-{per_window}-reset"] == str(reset)
        assert headers[f"anthropic-ratelimit-unified-{per_window}-utilization"] == "1.0"
    assert ask(http, "claude-opus-4-6").status_code == 200  # `times` used up: the window has reset
    assert [c["status"] for c in sim.calls] == [429, 200]
