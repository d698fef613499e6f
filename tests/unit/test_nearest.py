"""The classifier's third stage (activities/nearest.py): where no rule and no learned word read a failure, the
training lines nearest in meaning, in any of sixteen languages, decide what the run does next, as a guess."""

from datetime import UTC, datetime

import pytest

import activities.nearest as stage
from activities.executors.base import ProviderCallError
from activities.nearest import classify_with_nearest, stored
from routing.classifier import FailureSignal, classify
from routing.decider import HealthState, RoutingContext, RunState, decide
from testkit.corpus import corpus_lines
from testkit.nearest_cv import cross_validate

NOW = datetime(2026, 1, 1, tzinfo=UTC)
FIRST = RunState(attempts=1, max_attempts=8, other_candidate_eligible=True)


def test_the_stored_lines_are_the_training_corpus():
    assert stored().fingerprint == stage.fingerprint(corpus_lines()), "run `python -m scripts.build_nearest`"


@pytest.mark.parametrize(
    "text, code, decision",
    [
        ("Похоже, интернет пропал. Попробуйте ещё раз чуть позже.", "network_unavailable", "short_retry"),
        ("인터넷 연결이 불안정합니다. 잠시 후 다시 시도하세요.", "network_unavailable", "short_retry"),
        ("La connessione si è interrotta. Riprova più tardi.", "network_unavailable", "short_retry"),
        ("Der API-Schlüssel wurde widerrufen.", "auth_required", "fallback"),
        ("Ce modèle n'existe plus.", "model_unavailable", "fallback"),
        # near nothing: silent, and an office run waits for a person
        ("Lorem ipsum dolor sit amet, consectetur adipiscing elit.", "unknown", "park"),
    ],
)
def test_words_no_rule_reads_are_read_by_the_lines_nearest_in_meaning(text, code, decision):
    signal = FailureSignal(error_text=text)
    assert classify(signal, NOW).rule == "unmatched"  # no rule and no learned word reads these
    reading = classify_with_nearest(signal, NOW)
    assert (reading.code.value, decide(reading, RoutingContext.office, FIRST, rand=0.5).kind.value) == (code, decision)
    assert reading.rule == ("unmatched" if code == "unknown" else f"nearest.{code}")


def test_a_reading_of_the_nearest_lines_is_a_guess_never_a_verdict_on_the_provider():
    reading = classify_with_nearest(FailureSignal(error_text="Der API-Schlüssel wurde widerrufen."), NOW)
    decision = decide(reading, RoutingContext.office, FIRST, rand=0.5)
    assert decision.kind.value == "fallback"  # this run moves on
    assert decision.health is not None and decision.health.state is HealthState.short_retry  # no login marked


@pytest.mark.parametrize("code", ["rate_limited", "unknown", "no_such_code"])
def test_a_rate_limit_is_never_read_from_similarity(code):
    """A limit's retry rests on its window, which the words state and a similarity does not read."""
    reading = classify(FailureSignal(error_text="Lorem ipsum", nearest_code=code), NOW)
    assert (reading.code.value, reading.rule) == ("unknown", "unmatched")


def test_a_reading_a_rule_made_is_left_alone_and_the_workflows_own_reading_never_consults_the_stage():
    signal = FailureSignal(error_text="Invalid API key provided")
    assert classify_with_nearest(signal, NOW) == classify(signal, NOW)
    vague = FailureSignal(error_text="Похоже, интернет пропал. Попробуйте ещё раз чуть позже.")
    assert classify(vague, NOW).rule == "unmatched"  # what a workflow computes: a recorded history replays the same
    assert ProviderCallError(vague).classification(NOW).rule == "nearest.network_unavailable"  # what a worker does


def test_leaving_one_family_out_the_stage_decides_a_third_of_the_lines_almost_always_right():
    """The settings' cross-validation (scripts/nearest_cv.py) as a floor: each line read against every other family's
    stored lines decides at least 30 % of them, at least 97 % to the right decision, none transient read as failing."""
    t = cross_validate()
    assert t.decided >= 0.3 * t.lines and t.right >= 0.97 * t.decided and t.transient_failed == 0, t
