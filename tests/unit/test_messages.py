"""Terminal messages say what failed, where, and what the user should change."""

import pytest

from routing.codes import ANSWER_LIMIT_BYTES, ErrorCode, limit_text
from routing.messages import actionable_message


@pytest.mark.parametrize(
    "code,must_say",
    [
        (
            ErrorCode.model_unavailable,
            [
                'Model unavailable: the configured model "m-1" is no longer available on provider p',
                "Change the model in agent profile coder or configure a fallback.",
            ],
        ),
        (ErrorCode.auth_required, ["Authentication failed on provider p", "credentials"]),
        (ErrorCode.missing_credentials, ["Missing credentials for provider p", "environment variable"]),
        (ErrorCode.subscription_required, ["Subscription or billing required on provider p", "Upgrade the plan"]),
        (ErrorCode.quota_limited, ["Quota exhausted on provider p", "reset"]),
        (ErrorCode.content_policy, ["content policy", "not retried on another provider"]),
        (ErrorCode.unknown, ["Unclassified", "fail closed"]),
    ],
)
def test_actionable_messages(code, must_say):
    message = actionable_message(code, "p", "m-1", "coder", "")
    for phrase in must_say:
        assert phrase in message
    assert "Traceback" not in message


def test_provider_detail_is_appended():
    assert actionable_message(ErrorCode.auth_required, "p", "m", "a", "invalid x-api-key").endswith(
        "(provider said: invalid x-api-key)"
    )


def test_an_answer_too_large_names_the_limit_and_blames_no_provider():
    message = actionable_message(ErrorCode.answer_too_large, "p", "m", "coder", "came to at least 3000000 bytes")
    assert f"{limit_text(ANSWER_LIMIT_BYTES)}" in message and "1 MiB" in message
    assert "not at fault" in message and "health was not changed" in message
    assert "shorter answer" in message and "write long output to a file" in message
    assert message.endswith("(detail: came to at least 3000000 bytes)") and "provider said" not in message


@pytest.mark.parametrize(
    ("size", "text"), [(1 << 20, "1 MiB"), (8 << 20, "8 MiB"), (1536 << 10, "1.5 MiB"), (100, "100 bytes")]
)
def test_limits_read_as_people_write_them(size, text):
    assert limit_text(size) == text


def test_an_agent_that_never_started_names_the_profile_and_clears_the_provider():
    from routing.messages import launch_stalled_message

    text = launch_stalled_message(
        "claude", "claude/standard", "worker lost: the agent did not answer initialize within 60 s (waiting)"
    )
    assert text.startswith("Agent did not start: the agent for claude (execution profile claude/standard)")
    assert "(the agent did not answer initialize within 60 s (waiting))" in text
    assert "The provider was not at fault" in text and "profile's command" in text
