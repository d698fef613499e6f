"""What every executor raises: the raw signal, classified later by the pure classifier; and how a credential
reference is resolved on the worker (only names the worker's allow-list admits)."""

import os
from functools import cache

from temporalio.exceptions import ApplicationError

from routing.classifier import Classification, FailureSignal
from routing.codes import ErrorClass, ErrorCode, Phase
from routing.config import ExecutionProfile
from routing.credentials import ALLOW_SETTING, CredentialAllowList

CONFIG_ERROR = "ConfigError"


class ProviderCallError(Exception):
    def __init__(self, signal: FailureSignal):
        super().__init__(signal.error_text or f"provider call failed (status {signal.status})")
        self.signal = signal


class CredentialRefused(ValueError):
    """A credential reference this worker may not resolve; the message names the setting to change."""

    def __init__(self, setting: str, message: str) -> None:
        super().__init__(message)
        self.setting = setting


@cache
def _allow_list(raw: str | None) -> CredentialAllowList:
    return CredentialAllowList.parse(raw)


def allow_list() -> CredentialAllowList:
    """The worker's OFFICE_CREDENTIAL_ENV_ALLOW (read now, so a test or an operator's change applies)."""
    raw = os.environ.get(ALLOW_SETTING)
    try:
        return _allow_list(raw)
    except ValueError as err:
        raise CredentialRefused(ALLOW_SETTING, str(err)) from None


def read_credential(name: str, field: str) -> str | None:
    """The value of the variable `name` if the allow-list admits it (None when unset); CredentialRefused if not."""
    problem = allow_list().problem(name, field)
    if problem is not None:
        raise CredentialRefused(field, problem)
    return os.environ.get(name)


def configuration_failure(setting: str, message: str, provider: str, phase: Phase) -> ApplicationError:
    """A setting that cannot work: the run fails as `invalid_configuration` naming it; never a provider failure
    (no breaker count, no health write, no fallback)."""
    failure = Classification(
        code=ErrorCode.invalid_configuration,
        error_class=ErrorClass.terminal,
        confidence=1.0,
        phase=phase,
        rule=f"configuration:{setting}",
        excerpt=f"Workspace setting {setting}: {message}",
        provider=provider,
    )
    return ApplicationError(failure.excerpt, failure.model_dump(mode="json"), type=CONFIG_ERROR, non_retryable=True)


def resolve_credential(profile: ExecutionProfile, provider: str, phase: Phase = Phase.session_start) -> str | None:
    """Credentials are resolved here, inside the activity, from the reference the profile carries. A name the
    worker's allow-list refuses is a configuration failure raised before anything is sent."""
    if profile.credential_env is None:
        return None
    try:
        value = read_credential(profile.credential_env, f"providers.{provider}.credential_env")
    except CredentialRefused as err:
        raise configuration_failure(err.setting, str(err), provider, phase) from None
    if not value:
        raise ProviderCallError(
            FailureSignal(
                provider=provider,
                exception_type="MissingCredentials",
                error_text=f"environment variable {profile.credential_env} is not set on the worker",
            )
        )
    return value
