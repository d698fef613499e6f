"""Every failure the office raises, in one place: their types, how each is built and how each is recognised.

All are Temporal `ApplicationError`s told apart by `type`, so they cross the activity/workflow boundary (and reach
foreign clients) intact::

    ApplicationError
    ├── the provider's ........ ProviderFailure.<code>  non-retryable; details[0] is the Classification: the
    │                                                    routing decider, not a retry policy, says what is next
    ├── the settings' ......... ConfigError             non-retryable; details[0] (when present) is an
    │                                                    `invalid_configuration` Classification naming the setting
    ├── not the provider's (infrastructure: never counted, never marks health, never routes elsewhere)
    │   ├── StoreUnavailable                             retryable; the workflow waits, then the same attempt again
    │   └── WorkerShutdown                               non-retryable; a lost worker: the same route elsewhere
    ├── refused ............... StoreRejected           non-retryable; the store refused the data itself
    │                           ForeignCallRefused      non-retryable; not an office run's call (activities.boundary)
    │                           PlainPayloadRefused     non-retryable; a plain payload to an encrypting office
    └── the run's own end ..... OfficeRunFailed.<code>  details[0] is the RunView; the message is actionable

Pure: no I/O, importable by workflows.
"""

from typing import Any

from temporalio.exceptions import ApplicationError, ApplicationErrorCategory

from routing.classifier import Classification
from routing.codes import ErrorClass, ErrorCode, Phase
from routing.usage import Usage

PROVIDER_FAILURE = "ProviderFailure"  # a prefix: ProviderFailure.<code>
CONFIG_ERROR = "ConfigError"
STORE_UNAVAILABLE = "StoreUnavailable"
WORKER_SHUTDOWN = "WorkerShutdown"
STORE_REJECTED = "StoreRejected"
FOREIGN_CALL_REFUSED = "ForeignCallRefused"
PLAIN_PAYLOAD_REFUSED = "PlainPayloadRefused"
RUN_FAILED = "OfficeRunFailed"  # a prefix: OfficeRunFailed.<code>


# --- built -----------------------------------------------------------------------------------------------------
def provider_failure(
    failure: Classification, usage: Usage | None = None, cost_usd: float | None = None
) -> ApplicationError:
    """`usage`: what the failed call reported it used (details[1], with its cost), when the executor knows it."""
    spent = [{"usage": usage.model_dump(mode="json"), "cost_usd": cost_usd}] if usage is not None else []
    return ApplicationError(
        f"{failure.code}: {failure.excerpt or failure.rule}",
        failure.model_dump(mode="json"),
        *spent,
        type=f"{PROVIDER_FAILURE}.{failure.code}",
        non_retryable=True,
        category=ApplicationErrorCategory.BENIGN,
    )  # expected: logged at debug, not as a crash


def configuration_failure(setting: str, message: str, provider: str, phase: Phase) -> ApplicationError:
    """A setting that cannot work: the run fails as `invalid_configuration` naming it."""
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


def config_error(message: str) -> ApplicationError:
    """Route resolution's: the message names the workspace, profile or setting to fix."""
    return ApplicationError(message, type=CONFIG_ERROR, non_retryable=True)


def store_unavailable(message: str, details: dict[str, Any]) -> ApplicationError:
    return ApplicationError(
        message, details, type=STORE_UNAVAILABLE, non_retryable=False, category=ApplicationErrorCategory.BENIGN
    )


def store_rejected(message: str, what: str) -> ApplicationError:
    return ApplicationError(message, {"store_rejected": what}, type=STORE_REJECTED, non_retryable=True)


def worker_shutdown() -> ApplicationError:
    return ApplicationError(
        "the worker shut down during this activity",
        type=WORKER_SHUTDOWN,
        non_retryable=True,  # the workflow decides: the same route on a live worker
        category=ApplicationErrorCategory.BENIGN,
    )


def refused(why: str) -> ApplicationError:
    """The message says what was refused and why, never what the input asked for."""
    return ApplicationError(f"refused: {why}", type=FOREIGN_CALL_REFUSED, non_retryable=True)


def run_failed(code: ErrorCode, message: str, view: dict[str, Any]) -> ApplicationError:
    return ApplicationError(message, view, type=f"{RUN_FAILED}.{code.value}", non_retryable=True)


# --- recognised ------------------------------------------------------------------------------------------------
def failure_of(err: BaseException | None) -> Classification | None:
    """The Classification a provider or configuration failure carries; None for anything else."""
    if not isinstance(err, ApplicationError) or not err.details or not isinstance(err.details[0], dict):
        return None
    if not (err.type or "").startswith((PROVIDER_FAILURE, CONFIG_ERROR)):
        return None
    try:
        return Classification.model_validate(err.details[0])
    except ValueError:
        return None


def provider_failure_of(err: BaseException | None) -> Classification | None:
    """The Classification of a provider failure only (what counts in the provider key's shared window)."""
    is_provider = isinstance(err, ApplicationError) and (err.type or "").startswith(PROVIDER_FAILURE)
    return failure_of(err) if is_provider else None


def spent_of(err: BaseException | None) -> tuple[Usage | None, float | None]:
    """The usage (and its cost) a provider failure carries; (None, None) when the executor did not know it."""
    if not isinstance(err, ApplicationError) or not (err.type or "").startswith(PROVIDER_FAILURE):
        return None, None
    if len(err.details) < 2 or not isinstance(err.details[1], dict):
        return None, None
    try:
        usage = Usage.model_validate(err.details[1].get("usage"))
    except ValueError:
        return None, None
    cost = err.details[1].get("cost_usd")
    return usage, float(cost) if isinstance(cost, int | float) else None


def is_type(err: BaseException | None, *types: str) -> bool:
    return isinstance(err, ApplicationError) and err.type in types
