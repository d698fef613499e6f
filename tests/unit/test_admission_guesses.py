"""A failed call counts in the provider key's shared window at once (activities.admission.note_failure). A reading
the learned stage guessed from the words counts as one failure there, and never as what a rule's reading of the same
code would teach every run: no rate cut for the key, no Retry-After floor every run waits out."""

import pytest

from activities.admission import note_failure
from contracts.failures import provider_failure
from routing.classifier import Classification
from routing.codes import ErrorCode, Phase, class_of
from testkit.factories import candidate


class Recorder:
    def __init__(self) -> None:
        self.noted: list[tuple[str, float | None, float | None]] = []

    async def note_failure(self, provider, code, run_id, *, key, retry_after_s, limit_rpm, admitted_at):
        self.noted.append((code, retry_after_s, limit_rpm))
        return False


def failed(code: ErrorCode, rule: str) -> Exception:
    reading = Classification(
        code=code, error_class=class_of(code), confidence=0.9, phase=Phase.after_start, rule=rule,
        retry_after_s=600, limit_rpm=12,
    )  # fmt: skip
    return provider_failure(reading)


CANDIDATE = candidate()


@pytest.mark.parametrize(
    ("code", "guessed_as"),
    [
        (ErrorCode.rate_limited, "unknown"),  # one failure in the window, not a rate limit every run keeps to
        (ErrorCode.quota_limited, "unknown"),
        (ErrorCode.provider_overloaded, "provider_overloaded"),
        (ErrorCode.timeout, "timeout"),
    ],
)
async def test_a_guess_counts_as_one_failure_and_never_sets_the_keys_rate_or_floor(code, guessed_as):
    store = Recorder()
    await note_failure(store, "run-1", CANDIDATE, failed(code, "text.some_rule"))  # type: ignore[arg-type]
    await note_failure(store, "run-1", CANDIDATE, failed(code, f"learned.{code.value}"))  # type: ignore[arg-type]
    await note_failure(store, "run-1", CANDIDATE, failed(code, "unverified.text.some_rule"))  # type: ignore[arg-type]
    ruled, guessed, unvouched = store.noted
    assert ruled == (code.value, 600, 12)
    assert guessed == unvouched == (guessed_as, None, None)
