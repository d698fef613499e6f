"""Terminal messages say what failed, where, and what the user should change."""

import pytest

from routing.codes import ErrorCode
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
