"""What every executor raises: the raw signal, classified later by the pure classifier."""

import os

from routing.classifier import FailureSignal
from routing.config import ExecutionProfile


class ProviderCallError(Exception):
    def __init__(self, signal: FailureSignal):
        super().__init__(signal.error_text or f"provider call failed (status {signal.status})")
        self.signal = signal


def resolve_credential(profile: ExecutionProfile, provider: str) -> str | None:
    """Credentials are resolved here, inside the activity, from the reference the profile carries."""
    if profile.credential_env is None:
        return None
    value = os.environ.get(profile.credential_env)
    if not value:
        raise ProviderCallError(
            FailureSignal(
                provider=provider,
                exception_type="MissingCredentials",
                error_text=f"environment variable {profile.credential_env} is not set on the worker",
            )
        )
    return value
