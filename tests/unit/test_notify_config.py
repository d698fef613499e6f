"""A workspace's `notify:` endpoints: bad settings are refused in one line naming the field and the fix, secrets
only by reference, and the addresses a worker may post to."""

import pytest
from pydantic import ValidationError

from activities.notify import address_problem, run_link
from office.config_files import describe_validation
from routing.config import WorkspaceConfig
from routing.credentials import CredentialAllowList, credential_fields
from routing.notify import message_id, subscribed, targets

BASE = {
    "name": "team",
    "provider_order": ["alpha"],
    "providers": {"alpha": {"base_url": "https://api.openai.com/v1", "credential_env": "OPENAI_API_KEY"}},
}
HOOK = {"url": "https://hooks.example.com/office", "events": ["completed"], "secret_env": "OFFICE_CRED_HOOK"}


def problem(*endpoints: dict[str, object]) -> str:
    with pytest.raises(ValidationError) as err:
        WorkspaceConfig.model_validate({**BASE, "notify": list(endpoints)})
    return describe_validation(err.value, WorkspaceConfig)


def test_endpoints_parse_with_safe_defaults():
    ws = WorkspaceConfig.model_validate(
        {**BASE, "notify": [HOOK, {**HOOK, "events": ["failed", "parked"], "name": "pager"}]}
    )
    first, second = ws.notify
    assert (first.include_prompt, first.max_attempts, first.label(0), second.label(1)) == (
        False,
        12,
        "notify.0",
        "pager",
    )
    assert subscribed(ws.notify) == ["completed", "failed", "parked"]
    assert targets(ws.notify, "parked") == [1] and targets(ws.notify, "budget") == []
    assert WorkspaceConfig.model_validate(BASE).notify == []


@pytest.mark.parametrize(
    "change,expected",
    [
        (
            {"events": ["done"]},
            "notify.0.events: done is not an event; use any of completed, failed, parked, awaiting_permission, budget",
        ),
        ({"events": []}, "notify.0.events: List should have at least 1 item"),
        ({"events": ["failed", "failed"]}, "notify.0.events: lists an event more than once"),
        (
            {"url": "ftp://hooks.example.com/x"},
            "notify.0.url: must be an http(s) URL such as https://hooks.example.com/office (it has scheme 'ftp')",
        ),
        ({"url": "hooks.example.com/x"}, "notify.0.url: must be an http(s) URL such as https://hooks.example.com"),
        ({"url": "https:///x"}, "notify.0.url: must name a host"),
        ({"secret_env": "my secret"}, "notify.0.secret_env: must be the NAME of an environment variable"),
        ({"name": "Pager Duty"}, "notify.0.name: must be a short name"),
        ({"max_attempts": 0}, "notify.0.max_attempts: Input should be greater than or equal to 1"),
        ({"headers": {"x": "y"}}, "notify.0.headers: is not a known setting (known here: url, events, secret_env"),
    ],
)
def test_a_bad_endpoint_is_refused_in_one_line_naming_the_field(change, expected):
    said = problem({**HOOK, **change})
    assert said.startswith(expected), said
    assert "\n" not in said


def test_a_missing_secret_reference_and_duplicate_names_are_named():
    assert problem({"url": HOOK["url"], "events": ["failed"]}).startswith("notify.0.secret_env: Field required")
    assert "two endpoints have the same name" in problem({**HOOK, "name": "a"}, {**HOOK, "name": "a"})


def test_a_literal_secret_is_refused_with_a_pointer_to_secret_env_and_never_repeated():
    literal = "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
    said = problem({**HOOK, "secret_env": literal})
    assert said.startswith("notify.0.secret_env contains what looks like a webhook signing secret (whsec_…)")
    assert "name that variable in secret_env (e.g. secret_env: OFFICE_CRED_WEBHOOK_SECRET)" in said
    assert literal not in said
    said = problem({**HOOK, "url": "https://hooks.example.com/x?token=abc123"})
    assert said.startswith("notify.0.url contains what looks like a credential in the query string (token=…)")


def test_the_secret_reference_is_admitted_like_every_credential_reference():
    ws = WorkspaceConfig.model_validate({**BASE, "notify": [{**HOOK, "secret_env": "OFFICE_DATABASE_URL"}]})
    assert ("notify.0.secret_env", "OFFICE_DATABASE_URL") in credential_fields(ws)
    said = CredentialAllowList.parse(None).problem("OFFICE_DATABASE_URL", "notify.0.secret_env")
    assert said and said.startswith("notify.0.secret_env names OFFICE_DATABASE_URL, an office or Temporal setting")


@pytest.mark.parametrize(
    "address,private_allowed,refused",
    [
        ("93.184.215.14", False, None),
        ("2606:4700::1111", False, None),
        ("127.0.0.1", False, "OFFICE_NOTIFY_ALLOW_PRIVATE=1"),
        ("10.1.2.3", False, "OFFICE_NOTIFY_ALLOW_PRIVATE=1"),
        ("::ffff:127.0.0.1", False, "OFFICE_NOTIFY_ALLOW_PRIVATE=1"),
        ("127.0.0.1", True, None),
        ("192.168.1.20", True, None),
        ("169.254.169.254", True, "link-local, metadata"),  # cloud metadata, whatever the worker allows
        ("fd00:ec2::254", True, "link-local, metadata"),
        ("fe80::1%eth0", True, "link-local, metadata"),
        ("0.0.0.0", True, "link-local, metadata"),
        ("224.0.0.1", True, "link-local, metadata"),
    ],
)
def test_where_a_worker_may_post(address, private_allowed, refused):
    said = address_problem(address, private_allowed)
    assert (said is None) if refused is None else (refused in (said or ""))


def test_the_link_and_the_message_id():
    assert run_link("https://temporal.example.com/", "prod ns", "run-1") == (
        "https://temporal.example.com/namespaces/prod%20ns/workflows/run-1"
    )
    assert message_id("abc", "parked", 2) == "msg_abc_parked_2"
