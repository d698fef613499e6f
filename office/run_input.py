"""A run's input as the user gives it, checked without Temporal or the store: the CLI runs these checks before it
connects (and imports the client), office.runs again before it starts anything."""

from collections.abc import Sequence

from routing.validation import text_problem


class SubmitError(ValueError):
    """Bad input to submit: names the field and the fix; nothing was started."""

    def __init__(self, field: str, message: str):
        super().__init__(f"{field}: {message}")
        self.field = field


def validate_text(prompt: str, follow_ups: Sequence[str] = (), pin_model: str | None = None) -> None:
    """What can be judged without the store (the CLI calls it before connecting): the texts sent to the agent."""
    if not prompt or not prompt.strip():
        raise SubmitError("prompt", 'is empty; give the task text, e.g. office submit ... "fix the failing test"')
    if problem := text_problem(prompt):
        raise SubmitError("prompt", problem)
    for i, text in enumerate(follow_ups, 1):
        if not text.strip():
            raise SubmitError("follow-up", f"#{i} is empty; give the text of the further turn or leave it out")
        if problem := text_problem(text):
            raise SubmitError("follow-up", f"#{i} {problem}")
    if pin_model is not None and not pin_model.strip():
        raise SubmitError("pin-model", "is empty; name the model to pin, or leave --pin-model out")


def validate_limits(max_cost_usd: float | None, max_tokens: int | None) -> None:
    """A run's own budget: a non-negative amount of USD, a positive count of tokens."""
    if max_cost_usd is not None and not max_cost_usd >= 0:  # NaN too
        raise SubmitError("max-cost-usd", f"{max_cost_usd} is not an amount of USD; give one like 2.50, or omit it")
    if max_tokens is not None and max_tokens < 1:
        raise SubmitError("max-tokens", f"{max_tokens} is not a count of tokens; give one like 200000, or omit it")
