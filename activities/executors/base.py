"""What every executor raises: the raw signal, classified later by the pure classifier; and how a credential
reference is resolved on the worker (only names the worker's allow-list admits)."""

import asyncio
import os
from datetime import datetime
from functools import cache

from activities.nearest import classify_with_nearest
from contracts.failures import configuration_failure
from routing.classifier import Classification, FailureSignal
from routing.codes import Phase
from routing.config import ExecutionProfile
from routing.credentials import ALLOW_SETTING, CredentialAllowList
from routing.usage import Usage


class ProviderCallError(Exception):
    """A failed call, as the raw signal the classifier reads; or, when the office itself found whose fault it was
    (a worker that could not start the agent in time), that finding."""

    def __init__(self, signal: FailureSignal, usage: Usage | None = None, finding: Classification | None = None):
        super().__init__(signal.error_text or f"provider call failed (status {signal.status})")
        self.signal = signal
        self.usage = usage  # what the failed call reported it used, when it said (an agent's stopped turn)
        self.finding = finding

    def classification(self, now: datetime) -> Classification:
        return self.finding or classify_with_nearest(self.signal, now)

    async def classified(self, now: datetime) -> Classification:
        """`classification` off the event loop: a failure no rule reads is embedded (and, the first time in a worker,
        the encoder's models are loaded), which must not hold up other activities' heartbeats."""
        return await asyncio.to_thread(self.classification, now)


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
