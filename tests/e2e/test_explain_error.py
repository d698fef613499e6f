"""`office explain-error`: the classifier and the office decider on a failure given by hand."""

import json
import subprocess
import sys
from pathlib import Path

from routing.rules import CATALOGUE_VERSION

OFFICE = str(Path(sys.executable).parent / "office")


def explain(*args: str) -> dict:
    done = subprocess.run([OFFICE, "explain-error", *args, "--json"], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_openai_429_billing_quota_is_not_a_rate_limit(tmp_path):
    body = tmp_path / "body.json"
    body.write_text(
        json.dumps(
            {
                "error": {
                    "message": "You exceeded your current quota, please check your plan and billing details.",
                    "type": "insufficient_quota",
                    "code": "insufficient_quota",
                }
            }
        )
    )
    out = explain("--status", "429", "--body-file", str(body), "--provider", "openai")
    assert (out["code"], out["class"], out["decision"]) == ("quota_limited", "quota", "fallback")
    assert out["rule"] and out["retry_after_s"] is None
    assert out["catalogue"] == CATALOGUE_VERSION  # the rules catalogue that decided it


def test_rate_limit_with_retry_after_header_is_a_short_retry_with_that_floor():
    out = explain(
        "--status",
        "429",
        "--header",
        "Retry-After: 7",
        "--body",
        '{"error":{"message":"Rate limit reached","code":"rate_limit_exceeded"}}',
    )
    assert (out["code"], out["decision"], out["retry_after_s"]) == ("rate_limited", "short_retry", 7.0)
    assert out["delay_s"] >= 7


def test_acp_auth_and_unknown_text():
    assert explain("--jsonrpc-code", "-32000", "--error-text", "Authentication required")["code"] == "auth_required"
    unknown = explain("--error-text", "the flux capacitor is misaligned")
    # an office run waits for a person's decision on it, and fails only once nobody decided
    assert (unknown["code"], unknown["decision"], unknown["park_reason"]) == ("unknown", "park", "unreadable_failure")


def test_user_action_with_no_other_provider_parks():
    out = explain("--status", "401", "--body", '{"error":{"code":"invalid_api_key"}}', "--no-other-provider")
    assert (out["decision"], out["park_reason"]) == ("park", "blocked_provider_action_required")


def test_malformed_header_is_rejected_with_the_fix():
    done = subprocess.run([OFFICE, "explain-error", "--header", "no-colon-here"], capture_output=True, text=True)
    assert done.returncode == 2 and "Name: value" in done.stderr


def test_a_bare_agent_error_line_reads_its_status_and_body():
    out = explain(
        "--text", 'API Error: 529 {"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}'
    )
    assert (out["code"], out["rule"], out["status"], out["status_in_text"]) == (
        "provider_overloaded",
        "body.overloaded_error",
        529,
        True,
    )
    assert out["decision"] == "short_retry"


def test_a_daily_limit_with_a_wall_clock_reset_falls_back_instead_of_retrying():
    out = explain("--text", "You've hit your session limit · resets 3pm (America/Bogota)")
    assert (out["code"], out["rule"], out["decision"]) == ("quota_limited", "claude-code.session_limit", "fallback")
    assert out["retry_after_s"] > 60


def test_words_no_rule_reads_are_shown_as_the_worker_reads_them_by_the_lines_nearest_in_meaning():
    out = explain("--text", "Error: the connection dropped")
    reading = (out["code"], out["rule"], out["decision"])
    assert reading == ("network_unavailable", "nearest.network_unavailable", "short_retry")


def test_an_unknown_line_names_the_rules_that_almost_matched():
    out = explain("--text", "connection dropped (code 7)")
    assert (out["code"], out["decision"]) == ("unknown", "park")
    assert out["near_misses"][0]["rule"] == "neutral.network"
    shown = subprocess.run(
        [OFFICE, "explain-error", "--text", "connection dropped (code 7)"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert shown.returncode == 0 and "almost matched" in shown.stdout and "neutral.network" in shown.stdout


def test_text_and_error_text_together_are_rejected():
    done = subprocess.run(
        [OFFICE, "explain-error", "--text", "a", "--error-text", "b"], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 2 and "--text" in done.stderr
